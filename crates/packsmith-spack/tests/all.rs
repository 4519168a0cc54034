//! One integration-test binary for packsmith-spack: each module below was its own
//! test binary, each linking tree-sitter and SQLite again (slow on 2 cores).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ecosystem;
mod hermeticity;
mod real_loop;
mod smoke;
mod spack_logs;
mod spack_real;
mod style;
