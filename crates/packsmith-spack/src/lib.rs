//! The Spack backend: runs the real Spack on a recipe (load, audit,
//! concretize, install) in the sandbox, turns a failed stage into a typed
//! diagnosis, and puts Spack behind the agent loop's `Ecosystem` seam.
//! What can be known without starting Spack (recipes, specs, the knowledge
//! base, the static check, the brief and the draft) is in
//! `packsmith-spack-knowledge`.

pub mod diagnose;
pub mod ecosystem;
pub mod knowledge;
pub mod prepare;
pub mod repair_set;
pub mod setup;
pub mod validate;
