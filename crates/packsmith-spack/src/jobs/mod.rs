//! The model's small jobs: each asks one checkable question (a few tokens
//! out, under a grammar) where the rules have no certain answer, and checks
//! the answer before it is used.
//!
//! - `pick_package`: the Spack package for a dependency name no rule maps,
//!   from the knowledge base's candidates (`packsmith kb pick`, and the
//!   repair of a `missing_dependency` in `ecosystem/pick_repair`).
//! - `unresolved`: every such name a brief left out, with its candidates
//!   and picks.
//! - `explain_failure`: a failure's class and cause from its log, reduced
//!   (`diagnose::reduce_log`) or whole; `log_diagnosis` puts it beside the
//!   rules' verdict (`packsmith diagnose`).

pub mod explain_failure;
pub mod log_diagnosis;
pub mod pick_package;
pub mod unresolved;

pub use explain_failure::{explain_failure, Explanation};
pub use log_diagnosis::{diagnose_log, LogDiagnosis, LogView};
pub use pick_package::{pick_package, Pick, PickQuestion};
pub use unresolved::{unresolved_picks, JobError, UnresolvedPick};
