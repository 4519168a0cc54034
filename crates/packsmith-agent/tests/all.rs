//! One integration-test binary for the agent crate (see STYLE.md §10).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
