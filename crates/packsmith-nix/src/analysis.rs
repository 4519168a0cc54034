//! Failure analysis when nothing built: one category from a fixed list,
//! with a deterministic first guess from the classified failures and the
//! repository facts. A model may refine the explanation; the category list
//! stays fixed so benchmark reports can count them.

use packsmith_core::{DownloadKind, RepoFacts};
use serde::{Deserialize, Serialize};

use crate::diagnose::{Failure, NixDiagnosis};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureCategory {
    DependencyNotInNixpkgs,
    NeedsLockFile,
    BuildDownloadsFromNetwork,
    NeedsPatch,
    UpstreamBroken,
    Timeout,
    Other,
    /// Not offered to the model: every recipe it wrote failed to parse,
    /// so the logs say nothing about the package.
    NoValidNix,
}

impl FailureCategory {
    /// The categories a model may pick from.
    pub const ALL: &'static [FailureCategory] = &[
        Self::DependencyNotInNixpkgs,
        Self::NeedsLockFile,
        Self::BuildDownloadsFromNetwork,
        Self::NeedsPatch,
        Self::UpstreamBroken,
        Self::Timeout,
        Self::Other,
    ];

    /// One line for the user.
    pub fn describe(self) -> &'static str {
        match self {
            Self::DependencyNotInNixpkgs => "a dependency is not packaged in nixpkgs",
            Self::NeedsLockFile => "the builder needs a lock file the repository does not ship",
            Self::BuildDownloadsFromNetwork => {
                "the build downloads from the network, which the sandbox forbids"
            }
            Self::NeedsPatch => "the source needs a patch to build in Nix",
            Self::UpstreamBroken => "the upstream source does not build as released",
            Self::Timeout => "the build did not finish within the time limit",
            Self::Other => "another reason (see the explanation)",
            Self::NoValidNix => "the model never wrote a package.nix that parses",
        }
    }
}

/// A first guess and the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstGuess {
    pub category: FailureCategory,
    pub reason: String,
}

const NETWORK_SIGNS: &[&str] = &[
    "could not resolve host",
    "couldn't resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "network is unreachable",
    "failed to connect to",
    "connection refused",
    "could not download",
    "failed to download",
    "unable to access 'https://",
    "dial tcp: lookup",
    "getaddrinfo",
    "error sending request for url",
    "proxy.golang.org",
    "failed to fetch",
];

const MISSING_DEP_SIGNS: &[&str] = &[
    "could not find a package configuration file provided by",
    "no package '",
    "dependency \"",
    "was not found in the pkg-config search path",
    "no matching distribution found",
    "modulenotfounderror: no module named",
    "could not find a version that satisfies",
    "requirement not satisfied",
];

/// Deterministic first guess from the failures of the run (oldest first)
/// and the facts; `Other` when nothing points anywhere.
pub fn first_guess(failures: &[NixDiagnosis], facts: Option<&RepoFacts>) -> FirstGuess {
    let g = |category, reason: &str| FirstGuess {
        category,
        reason: reason.to_string(),
    };
    let last = failures.last();
    let text: String = failures
        .iter()
        .map(|d| d.excerpt.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("\n");
    if last.is_some_and(|d| matches!(d.failure, Failure::Timeout { .. })) {
        return g(FailureCategory::Timeout, "the last attempt timed out");
    }
    if let Some(f) = facts {
        if f.cargo.as_ref().is_some_and(|c| !c.has_lockfile) {
            return g(
                FailureCategory::NeedsLockFile,
                "a Cargo project without Cargo.lock: cargoHash cannot be computed",
            );
        }
        if f.npm.as_ref().is_some_and(|n| n.lockfile.is_none()) {
            return g(
                FailureCategory::NeedsLockFile,
                "an npm project without package-lock.json: npmDepsHash cannot be computed",
            );
        }
        if f.go
            .as_ref()
            .is_some_and(|g| !g.has_sum && !g.dependencies.is_empty())
        {
            return g(
                FailureCategory::NeedsLockFile,
                "a Go module with dependencies but no go.sum",
            );
        }
    }
    let network = NETWORK_SIGNS.iter().find(|s| text.contains(*s));
    let downloads = facts.is_some_and(|f| {
        f.downloads.iter().any(|d| {
            matches!(
                d.kind,
                DownloadKind::FetchContent
                    | DownloadKind::ExternalProject
                    | DownloadKind::FileDownload
                    | DownloadKind::MesonSubproject
                    | DownloadKind::GitClone
            )
        })
    });
    if let Some(sign) = network {
        let why = if downloads {
            format!("the log shows `{sign}` and the build files declare downloads (FetchContent, ExternalProject, subprojects)")
        } else {
            format!("the log shows `{sign}`")
        };
        return FirstGuess {
            category: FailureCategory::BuildDownloadsFromNetwork,
            reason: why,
        };
    }
    if let Some(sign) = MISSING_DEP_SIGNS.iter().find(|s| text.contains(*s)) {
        return FirstGuess {
            category: FailureCategory::DependencyNotInNixpkgs,
            reason: format!("the log shows `{sign}`; check whether nixpkgs has it"),
        };
    }
    if failures.iter().any(|d| {
        matches!(
            &d.failure,
            Failure::EvalError {
                error: crate::diagnose::EvalErrorKind::UndefinedVariable
                    | crate::diagnose::EvalErrorKind::MissingArgument,
                ..
            }
        )
    }) && last.is_some_and(|d| matches!(d.failure, Failure::EvalError { .. }))
    {
        return g(
            FailureCategory::DependencyNotInNixpkgs,
            "the last attempt asks for an input nixpkgs does not have",
        );
    }
    if downloads && last.is_some_and(|d| matches!(d.failure, Failure::BuildFailure { .. })) {
        return g(
            FailureCategory::BuildDownloadsFromNetwork,
            "the build files declare downloads (FetchContent, ExternalProject, subprojects) and the build fails",
        );
    }
    g(
        FailureCategory::Other,
        "no deterministic sign; ask for an explanation",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::classify;
    use crate::runner::Step;

    fn build_failure(text: &str) -> NixDiagnosis {
        let log = format!("Running phase: configurePhase\n{text}\nerror: builder for '/nix/store/h-x.drv' failed with exit code 1\n");
        classify(Step::Build, &log, Some("/nix/store/h-x.drv"))
    }

    #[test]
    fn guesses_from_logs_alone() {
        let net = build_failure("fatal: unable to access 'https://github.com/x/y.git/': Could not resolve host: github.com");
        assert_eq!(
            first_guess(&[net], None).category,
            FailureCategory::BuildDownloadsFromNetwork
        );
        let dep =
            build_failure("  Could not find a package configuration file provided by \"Foo\"");
        assert_eq!(
            first_guess(&[dep], None).category,
            FailureCategory::DependencyNotInNixpkgs
        );
        let to = NixDiagnosis::timeout(Step::Build, "");
        assert_eq!(first_guess(&[to], None).category, FailureCategory::Timeout);
        let other = build_failure("segfault");
        assert_eq!(first_guess(&[other], None).category, FailureCategory::Other);
    }

    #[test]
    fn cargo_without_lock_needs_a_lock_file() {
        let facts: RepoFacts = serde_json::from_value(serde_json::json!({
            "schema_version": 1, "source": {"kind": "path", "given": "."}, "name": null,
            "build_systems": [], "primary_build_system": "cargo", "cmake": null,
            "autotools": null, "meson": null, "python": null,
            "cargo": {"files": [], "name": null, "name_evidence": null, "version": null,
              "is_workspace": false, "workspace_members": [], "dependencies": [],
              "features": [], "default_features": [], "binaries": [], "has_library": true,
              "has_lockfile": false, "license": null, "homepage": null, "description": null,
              "rust_version": null, "edition": null},
            "go": null, "npm": null, "languages": [], "features": [], "downloads": [],
            "versions": {"declared": null, "latest_tag": null, "recent_tags": [], "commit": null,
              "remote": null, "archive_url": null},
            "license": null, "homepage": null, "description": null, "tree": "", "warnings": []
        }))
        .unwrap();
        let g = first_guess(&[build_failure("error: x")], Some(&facts));
        assert_eq!(g.category, FailureCategory::NeedsLockFile);
    }
}
