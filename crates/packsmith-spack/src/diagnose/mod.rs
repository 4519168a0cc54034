//! A failed stage → a [`FailureClass`] and a short, model-ready excerpt.
//!
//! Ordered regular-expression rules over Spack's own messages (checked
//! against logs captured from Spack 0.23 in `tests/spack-logs/`), in the
//! spirit of SpackIt's labels (`spackit_label`) but deterministic. The
//! excerpt is never the raw log: the decisive block only (the CMake error
//! block, the first compiler errors, the concretizer's reasons, the last
//! traceback frame), capped at [`MAX_LINES`] lines and [`MAX_BYTES`] bytes.

mod build_config;
mod build_rules;
mod build_tools;
mod compiler_compat;
mod excerpt;
mod hermetic;
mod matching;
mod python_build;
mod reduce;
mod rules;
mod smoke;
mod undefined;

use serde::{Deserialize, Serialize};

use crate::validate::hermetic::UndeclaredDependency;
use crate::validate::{SpackStageOutcome, Stage};

pub use build_rules::install_missing_sources;
pub use build_tools::program_not_found;
pub use compiler_compat::{compat_rule, CompatRule, COMPAT_RULES};
pub use excerpt::{cap, MAX_BYTES, MAX_LINES};
pub use hermetic::diagnose_hermeticity;
#[cfg(test)]
pub(crate) use hermetic::host_zlib_report;
pub use reduce::{reduce_log, ReducedLog};
pub use rules::classify;
pub use smoke::diagnose_smoke;
pub use undefined::{undefined_names, SourceLanguage, UndefinedName};

/// What went wrong, coarse enough for the repair loop to dispatch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// The recipe does not load (Python syntax, a bad import, a name not
    /// defined) or raises a Python exception while Spack runs it.
    Syntax,
    /// A dependency or virtual that this Spack does not know.
    UnknownPackage,
    /// The concretizer cannot satisfy the recipe's constraints.
    Constraint,
    /// The build looked for something that is not there (CMake package,
    /// pkg-config module, header, library).
    MissingDependency,
    /// A program the build runs is not in the build environment: Spack's
    /// `Cannot generate configure: missing dependencies: autoconf, …` (a
    /// source without its generated `configure`), or a shell's `X: command
    /// not found` for a build tool; `names` holds the Spack packages that
    /// provide them.
    MissingBuildTool,
    /// The source's generated Autotools files come from another libtool
    /// than the build's (`libtool: Version mismatch error`): they must be
    /// regenerated; `names` holds the Autotools packages.
    StaleAutotools,
    /// A file a makefile includes is not in the source (`config.mk`): the
    /// project expects it made before the build, usually from a template it
    /// ships; `names` holds the file.
    MissingBuildConfig,
    /// A header of the project itself (included with quotes) is not in
    /// the source, or its install rules copy a source path it lacks: the
    /// archive lacks a file, which no dependency provides.
    MissingSourceFile,
    /// Any other CMake configure error.
    CmakeConfigure,
    /// The configure tried to download a dependency (FetchContent,
    /// ExternalProject, a `git clone` it runs itself) and could not.
    ConfigureDownload,
    /// The build has no install rules: `make install` / `ninja install`
    /// has no such target.
    NoInstallTarget,
    /// The compiler failed on a known compatibility error of a newer
    /// compiler (gfortran ≥ 10 argument mismatch, …) that a flag fixes;
    /// `names` holds the matching rules of `COMPAT_RULES`.
    CompilerCompat,
    /// A parallel `make` linked against a library the build makes itself
    /// before that library was made (`ld: cannot find -lX` while the log
    /// shows `libX` being built): `parallel = False` fixes it.
    ParallelBuild,
    /// The compiler or linker failed.
    Compilation,
    /// The source could not be fetched or verified (checksum, missing
    /// archive, no network, a dependency that would need a download).
    Fetch,
    /// Tests failed: those run during the install (`--test=root`), or
    /// the smoke test after it.
    Test,
    /// The install passed but took libraries, headers or tools from the
    /// host that the concretized DAG does not hold (the hermeticity check).
    UndeclaredDependency,
    /// The stage ran out of time.
    Timeout,
    /// The sandbox stopped something (a write outside, the network, the
    /// process or file-size limits).
    Sandbox,
    /// None of the rules matched.
    Unknown,
}

impl FailureClass {
    /// The label SpackIt's published results use for this class.
    pub fn spackit_label(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::UnknownPackage | Self::Constraint => "constraint",
            Self::MissingDependency | Self::MissingBuildTool | Self::UndeclaredDependency => {
                "missing_dependency"
            }
            Self::MissingSourceFile | Self::MissingBuildConfig | Self::StaleAutotools => {
                "compilation"
            }
            Self::CmakeConfigure => "cmake",
            Self::ConfigureDownload => "web",
            Self::NoInstallTarget => "compilation",
            Self::CompilerCompat | Self::ParallelBuild | Self::Compilation | Self::Unknown => {
                "compilation"
            }
            Self::Fetch => "web",
            Self::Test => "test",
            Self::Timeout => "compute_timeout",
            Self::Sandbox => "system_incompatible",
        }
    }
}

/// A classified failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosis {
    pub stage: Stage,
    pub class: FailureClass,
    /// One line for people and reports.
    pub summary: String,
    /// What the model reads: at most [`MAX_LINES`] lines / [`MAX_BYTES`].
    pub excerpt: String,
    /// The recipe line at fault, already corrected for Spack's +1 offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe_line: Option<u32>,
    /// Names involved (unknown packages, missing CMake packages, headers;
    /// for an offline concretization, the dependencies that would download).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// A short hint for the repair, when one is certain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The main error line with numbers and hashes blurred, to tell "the
    /// same error again" from a new one.
    pub signature: String,
    /// The hermeticity check's findings, each with its evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<UndeclaredDependency>,
    /// For a compilation failure, the names the compiler could not find,
    /// from the whole build log.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undefined: Vec<UndefinedName>,
}

/// Diagnoses a failed stage: from what the stage itself knows when
/// packsmith failed it (an offline concretization that would download),
/// else from its log files (the stage log, plus Spack's build log when the
/// install copied it). None for a stage that passed.
pub fn diagnose_outcome(outcome: &SpackStageOutcome) -> std::io::Result<Option<Diagnosis>> {
    if outcome.passed {
        return Ok(None);
    }
    if let Some(names) = outcome.offline_downloads() {
        return Ok(Some(rules::offline_downloads(outcome.stage, names)));
    }
    let log = std::fs::read_to_string(&outcome.log_path)?;
    let build_log = match &outcome.build_log {
        Some(p) => std::fs::read_to_string(p).ok(),
        None => None,
    };
    let mut d = match outcome.stage {
        // Spack's test log, copied as `build_log`, holds the failing parts.
        Stage::Smoke => diagnose_smoke(&log, build_log.as_deref()),
        stage => classify(stage, &log, build_log.as_deref()),
    };
    if outcome.timed_out {
        d.class = FailureClass::Timeout;
    }
    if d.class == FailureClass::Compilation {
        d.undefined = undefined_names(build_log.as_deref().unwrap_or(&log));
    }
    Ok(Some(d))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::validate::ToBuild;

    fn concretize(passed: bool, would_build: &[&str], log: &std::path::Path) -> SpackStageOutcome {
        SpackStageOutcome {
            stage: Stage::Concretize,
            passed,
            duration: Duration::from_secs(1),
            log_path: log.to_path_buf(),
            exit_code: Some(0),
            timed_out: false,
            command: "spack spec -I --fresh demo".into(),
            would_build: would_build
                .iter()
                .map(|n| ToBuild {
                    name: n.to_string(),
                    spec: format!("{n}@1.0"),
                })
                .collect(),
            build_log: None,
            sandbox_events: Vec::new(),
        }
    }

    #[test]
    fn an_offline_refusal_is_diagnosed_from_the_stage_not_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("concretize.log");
        // A log that names nothing: the names come from the stage's result.
        std::fs::write(&log, "==> stdout\n -   demo@1.0\n").unwrap();
        let d = diagnose_outcome(&concretize(false, &["boost", "doxygen"], &log))
            .unwrap()
            .unwrap();
        assert_eq!(d.class, FailureClass::Fetch);
        assert_eq!(d.names, vec!["boost", "doxygen"]);
        assert_eq!(
            d.summary,
            "packsmith: offline, but the concretized DAG would build from source (a download each): boost, doxygen"
        );
        assert!(d.hint.as_deref().unwrap().contains("cannot be downloaded"));
        // Online, the same nodes are no failure at all.
        assert_eq!(
            diagnose_outcome(&concretize(true, &["boost"], &log)).unwrap(),
            None
        );
    }

    /// A header the project includes with quotes but does not ship is a
    /// missing source file; a header of a library (angle brackets) stays a
    /// missing dependency.
    #[test]
    fn the_projects_own_missing_header_is_a_missing_source_file() {
        let own = "==> Installing demo\n\
            /stage/src/main.c:3:10: fatal error: demo_config.h: No such file or directory\n    \
            3 | #include \"demo_config.h\"\n      |          ^~~~~~~~~~~~~~~\n\
            compilation terminated.\n";
        let d = classify(Stage::Install, own, None);
        assert_eq!(d.class, FailureClass::MissingSourceFile, "{d:#?}");
        assert_eq!(d.names, vec!["demo_config.h"]);
        assert!(d.summary.starts_with("missing source file: demo_config.h"));
        let hint = d.hint.as_deref().unwrap();
        assert!(hint.contains("not in the source archive"), "{hint}");
        assert!(!hint.contains("add a depends_on"), "{hint}");

        let library = own
            .replace("demo_config.h", "zlib.h")
            .replace("#include \"zlib.h\"", "#include <zlib.h>");
        let d = classify(Stage::Install, &library, None);
        assert_eq!(d.class, FailureClass::MissingDependency, "{d:#?}");
        assert_eq!(d.names, vec!["zlib.h"]);
        // recorder's: a library's header included with quotes.
        let quoted = own.replace("demo_config.h", "hdf5.h");
        let d = classify(Stage::Install, &quoted, None);
        assert_eq!(d.class, FailureClass::MissingDependency, "{d:#?}");
        assert_eq!(d.names, vec!["hdf5.h"]);
    }
}
