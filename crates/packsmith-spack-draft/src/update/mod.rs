//! A new upstream version into a recipe a maintainer already has
//! (`packsmith update`), without starting Spack:
//!
//! - `diff`: the facts of the old and the new version compared as a
//!   packager reads them (dependencies and their constraints, the options
//!   that are variants, the CMake minimum, the language standard, the build
//!   system), each change with its file:line evidence on both sides;
//! - `versions`: the recipe's newest version and the URL its `url` pattern
//!   gives for another one;
//! - `plan`: the diff turned into [`EditOp`](packsmith_spack_knowledge::edit::EditOp)s on the
//!   recipe (a `version()` in Spack's order, `when="@V:"` on what is new,
//!   `when="@:OLD"` closing what was dropped), applied one at a time so an
//!   edit that does not fit is reported and the rest still land. The
//!   maintainer's lines are never rewritten except where an edit lands.

pub mod diff;
pub mod plan;
pub mod versions;

pub use diff::{diff_facts, Change, Fact, FactChange, FactsDiff, Side, Topic};
pub use plan::{apply_plan, plan_update, Plan, PlanInputs, PlannedEdit, StalePatch, Updated};
pub use versions::{newest_version, recipe_url, url_for_version};
