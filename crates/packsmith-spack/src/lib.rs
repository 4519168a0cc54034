//! Spack knowledge without starting Spack: read `package.py` recipes into a
//! typed model, parse spec strings, and score generated recipes against
//! human ones.

pub mod brief;
pub mod diagnose;
pub mod draft;
pub mod mapping;
pub mod recipe;
pub mod score;
pub mod spec;
pub mod target;
pub mod validate;
