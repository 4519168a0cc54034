//! Spack knowledge without starting Spack: read `package.py` recipes into a
//! typed model, parse spec strings, and score generated recipes against
//! human ones.

pub mod brief;
pub mod check;
pub mod diagnose;
pub mod draft;
pub mod ecosystem;
pub mod embed;
pub mod kb;
pub mod mapping;
pub mod recipe;
pub mod retrieve;
pub mod score;
pub mod spec;
pub mod target;
pub mod validate;
