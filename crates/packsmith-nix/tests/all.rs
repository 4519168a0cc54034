//! The crate's one integration-test binary (see `suite/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
