//! Validation against a real Spack: a local source mirror, one overlay repo
//! and config scope per attempt, the stages (load → audit → concretize →
//! install) each with its own timeout and log file, all run through
//! `packsmith-exec` and, by default, inside its bubblewrap sandbox with
//! the Spack policy of `sandbox.rs`.
//!
//! After a successful install, `hermetic` checks what the build took from
//! outside the concretized DAG (configure output, CMake cache, the
//! installed ELF files' `DT_NEEDED`), and `smoke` derives a smoke test
//! from the prefix, writes it into the recipe and runs `spack test run`.
//!
//! After a recipe passed, `variant_check` flips its boolean variants one
//! at a time and concretizes (optionally installs) each.
//!
//! These are plain functions and types; the agent loop that calls them
//! lives elsewhere.

mod error;
pub mod hermetic;
mod overlay;
mod sandbox;
mod setup;
pub mod smoke;
mod source;
mod stages;
mod upstream;
mod variant_check;

pub use error::{ValidateError, NO_SPACK_HINT};
pub use overlay::{
    attempt_namespace, package_dir_of, prepare_attempt, prepare_attempt_in, Attempt,
    PreparedAttempts,
};
pub use packsmith_exec::sandbox::{PidsCgroup, Sandbox, SandboxError, SandboxPolicy};
pub use sandbox::SpackSandboxPolicy;
pub use setup::{SpackPaths, SpackSetup};
pub use source::{
    archive_extension, archive_from_url, pack_as_archive, pack_local_source, pack_tree,
    recipe_archive_extension, sha256_file, LocalSource, FIXED_MTIME,
};
pub use stages::{
    offline_refusal_line, parse_spec_install_status, run_stage, run_stage_spec, run_stages,
    SpackStageOutcome, Stage, StageOptions, StageTimeouts, ToBuild,
};
pub use upstream::{pack_upstream_release, upstream_release_sha256, UpstreamRelease};
pub use variant_check::{
    check_variants, pick_variants, VariantCheck, VariantCheckOptions, VariantFlip, VariantResult,
    VariantSkip, MAX_VARIANT_FLIPS,
};
