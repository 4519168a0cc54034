//! Spack knowledge without starting Spack: read `package.py` recipes into a
//! typed model, parse spec strings, index a package repository into a
//! knowledge base and retrieve similar recipes from it, check a recipe
//! statically, turn repository facts into a brief and a first draft, and
//! score generated recipes against human ones. Nothing here runs a process
//! or calls a model (embeddings come through `packsmith_core::embed`).

pub mod base_classes;
pub mod brief;
pub mod check;
pub mod draft;
pub mod edit;
pub mod embed;
pub mod generation;
pub mod kb;
pub mod mapping;
pub mod mutate;
mod pywalk;
pub mod recipe;
pub mod retrieve;
pub mod score;
pub mod spec;
pub mod target;
