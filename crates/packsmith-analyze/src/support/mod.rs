//! Helpers shared by the Autotools, Meson, Python, Cargo, Go and npm readers.
//!
//! Declared from `autotools/mod.rs` with `#[path]` only because `lib.rs` is
//! owned elsewhere; it belongs at `crate::support` (one `mod` line in lib.rs).

pub mod hints;
pub mod ini;
pub mod json_lines;
pub mod lines;
pub mod toml_doc;
