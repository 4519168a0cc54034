//! One integration-test binary for packsmith-analyze: each module below was
//! its own test binary, each linking the whole crate again (slow on 2 cores).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

mod buildsys_fixtures;
mod cmake_fixtures;
mod layout_fixtures;
