//! The model's small jobs: each asks one checkable question (a few tokens
//! out, under a grammar) where the rules have no certain answer, and checks
//! the answer before it is used.
//!
//! - `pick_package`: the Spack package for a dependency name no rule maps,
//!   from the knowledge base's candidates (`packsmith kb pick`).
//! - `unresolved`: every such name a brief left out, with its candidates
//!   and picks.

pub mod pick_package;
pub mod unresolved;

pub use pick_package::{pick_package, Pick, PickQuestion};
pub use unresolved::{unresolved_picks, JobError, UnresolvedPick};
