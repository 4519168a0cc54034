//! One integration-test binary for packsmith-llm.

// Helpers outside #[test] functions (the loopback server, fixtures) panic
// on failure by design, like the tests themselves; the third-party tier
// prints what the real model said, and SKIPPED lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod suite;
