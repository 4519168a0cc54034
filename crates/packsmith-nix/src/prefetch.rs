//! Deterministic hashes before any build, where Nix can compute them:
//! `nix-prefetch-url` for a flat file, `nix-prefetch-url --unpack` for the
//! forge archives behind `fetchFromGitHub` & co (their `hash` is the NAR hash
//! of the unpacked tree, which is what `--unpack` prints). Git fetchers and
//! anything with extra arguments go through trust-on-first-use instead.

use std::time::Duration;

use packsmith_exec::CommandSpec;

use packsmith_core::forge::ForgeRepo;

use crate::fetch::{Revision, SourceSpec};
use crate::hash::{HashAlgo, NixHash};
use crate::runner::NixConfig;

/// A URL and whether its hash is of the unpacked tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefetchPlan {
    pub url: String,
    pub unpack: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum PrefetchError {
    #[error(transparent)]
    Exec(#[from] packsmith_exec::ExecError),
    #[error("`{command}` failed: {stderr}\nhint: check the URL and revision, or let the build compute the hash (trust on first use)")]
    Failed { command: String, stderr: String },
    #[error("`{command}` printed `{output}`, which is not a hash")]
    BadOutput { command: String, output: String },
}

/// What to prefetch for `source`, or None when only a build can tell the
/// hash (fetchgit, local paths).
pub fn plan(
    source: &SourceSpec,
    rev: Option<&Revision>,
    version: Option<&str>,
) -> Option<PrefetchPlan> {
    let unpacked = |url: String| Some(PrefetchPlan { url, unpack: true });
    match source {
        SourceSpec::Forge { forge, owner, repo } => {
            let repo = ForgeRepo {
                forge: forge.clone(),
                owner: owner.clone(),
                repo: repo.clone(),
            };
            unpacked(match rev? {
                Revision::Tag(t) => repo.tag_archive_url(t),
                Revision::Rev(r) => repo.commit_archive_url(r),
            })
        }
        SourceSpec::Pypi { pname } => {
            let v = version?;
            let first = pname.chars().next()?;
            Some(PrefetchPlan {
                url: format!(
                    "https://files.pythonhosted.org/packages/source/{first}/{pname}/{pname}-{v}.tar.gz"
                ),
                unpack: false,
            })
        }
        SourceSpec::Crate { pname } => {
            let v = version?;
            unpacked(format!(
                "https://crates.io/api/v1/crates/{pname}/{v}/download#crate.tar.gz"
            ))
        }
        SourceSpec::Url { url } => Some(PrefetchPlan {
            url: url.clone(),
            unpack: false,
        }),
        SourceSpec::Git { .. } | SourceSpec::Path { .. } => None,
    }
}

/// The command that prefetches `plan` (network access needed for remote URLs).
pub fn command(plan: &PrefetchPlan, config: &NixConfig) -> CommandSpec {
    let mut spec = CommandSpec::new(config.program("nix-prefetch-url"));
    if plan.unpack {
        spec = spec.args(["--unpack", "--name", "source"]);
    }
    spec.arg(&plan.url).timeout(Duration::from_secs(300))
}

/// Runs the prefetch and returns the SRI hash.
pub fn prefetch(plan: &PrefetchPlan, config: &NixConfig) -> Result<String, PrefetchError> {
    let spec = command(plan, config);
    let out = packsmith_exec::run(&spec)?;
    if !out.success() {
        return Err(PrefetchError::Failed {
            command: spec.display(),
            stderr: crate::logs::last_lines(&out.stderr, 5),
        });
    }
    let printed = out.stdout.trim().lines().last().unwrap_or_default().trim();
    NixHash::parse(printed, HashAlgo::Sha256)
        .map(|h| h.to_sri())
        .map_err(|_| PrefetchError::BadOutput {
            command: spec.display(),
            output: printed.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::parse_source;

    #[test]
    fn forge_archives_are_unpacked_and_files_are_flat() {
        let gh = parse_source("https://github.com/o/r").unwrap();
        let p = plan(&gh, Some(&Revision::guess("v1.0")), Some("1.0")).unwrap();
        assert_eq!(
            p.url,
            "https://github.com/o/r/archive/refs/tags/v1.0.tar.gz"
        );
        assert!(p.unpack);
        let gl = parse_source("https://gitlab.com/g/s/r").unwrap();
        let p = plan(&gl, Some(&Revision::guess("1.0")), None).unwrap();
        assert_eq!(p.url, "https://gitlab.com/g/s/r/-/archive/1.0/r-1.0.tar.gz");
        let py = parse_source("pypi:attrs").unwrap();
        let p = plan(&py, None, Some("25.1.0")).unwrap();
        assert!(!p.unpack);
        assert!(p.url.ends_with("/source/a/attrs/attrs-25.1.0.tar.gz"));
        let git = parse_source("https://example.org/x.git").unwrap();
        assert_eq!(plan(&git, Some(&Revision::guess("v1")), None), None);
    }
}
