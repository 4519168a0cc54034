//! The new version's source hash, from the best evidence at hand: the
//! release archive given on this machine when it is the very file the
//! fetcher downloads (a flat hash, as `fetchurl` and `fetchPypi` take),
//! else `nix-prefetch-url` on the URL the fetcher builds for the new
//! version (online), else `lib.fakeHash` for the build to fill in.

use std::path::Path;

use packsmith_core::forge::Forge;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::recipe::SrcCall;
use crate::fetch::{Revision, SourceSpec};
use crate::hash::NixHash;
use crate::prefetch::{plan, prefetch, PrefetchPlan};
use crate::runner::NixConfig;

/// Where the new hash came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum HashFrom {
    /// The release archive given, which is the file the URL names.
    GivenArchive { path: String },
    /// `nix-prefetch-url` on the new version's URL.
    Prefetched { url: String },
    /// Neither: `lib.fakeHash`, for a build to compute.
    Placeholder { why: String },
}

/// The new source hash and its origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewHash {
    /// SRI; None for `lib.fakeHash`.
    pub sri: Option<String>,
    #[serde(flatten)]
    pub from: HashFrom,
}

/// What the fetcher downloads for `version`, and whether its hash is of
/// the unpacked tree; None when an attribute is computed by code the
/// reader does not follow.
pub fn fetch_plan(src: &SrcCall, pname: Option<&str>, version: &str) -> Option<PrefetchPlan> {
    let value = |name: &str| -> Option<String> {
        if src.inherits.iter().any(|i| i == name) {
            return match name {
                "version" => Some(version.to_string()),
                "pname" => pname.map(str::to_string),
                _ => None,
            };
        }
        let raw = &src.attr(name)?.value;
        let filled = raw
            .replace("${finalAttrs.version}", version)
            .replace("${self.version}", version)
            .replace("${version}", version);
        let filled = match pname {
            Some(p) => filled
                .replace("${finalAttrs.pname}", p)
                .replace("${pname}", p),
            None => filled,
        };
        (!filled.contains("${")).then_some(filled)
    };
    // The source as `packsmith nix` names one, so the URL and whether its
    // hash is of the unpacked tree come from `prefetch::plan`.
    let forge = |forge: Forge| -> Option<PrefetchPlan> {
        let spec = SourceSpec::Forge {
            forge,
            owner: value("owner")?,
            repo: value("repo")?,
        };
        let rev = Revision::guess(&value("tag").or_else(|| value("rev"))?);
        plan(&spec, Some(&rev), Some(version))
    };
    match src.fetcher.as_str() {
        "fetchurl" => plan(&SourceSpec::Url { url: value("url")? }, None, None),
        "fetchzip" => Some(PrefetchPlan {
            url: value("url")?,
            unpack: true,
        }),
        "fetchPypi" => plan(
            &SourceSpec::Pypi {
                pname: value("pname")?,
            },
            None,
            Some(&value("version")?),
        ),
        "fetchFromGitHub" => forge(Forge::GitHub),
        "fetchFromGitLab" => forge(Forge::GitLab {
            host: value("domain").unwrap_or_else(|| "gitlab.com".into()),
        }),
        "fetchFromGitea" | "fetchFromCodeberg" => forge(Forge::Gitea {
            host: value("domain").unwrap_or_else(|| "codeberg.org".into()),
        }),
        _ => None,
    }
}

/// The flat sha256 of `path` in SRI form.
fn file_sri(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(NixHash {
        algo: crate::hash::HashAlgo::Sha256,
        bytes: hasher.finalize().to_vec(),
    }
    .to_sri())
}

/// The new hash for `plan` (None: the fetcher could not be followed).
pub fn new_hash(
    plan: Option<&PrefetchPlan>,
    archive: Option<&Path>,
    config: &NixConfig,
) -> NewHash {
    let placeholder = |why: String| NewHash {
        sri: None,
        from: HashFrom::Placeholder { why },
    };
    let Some(plan) = plan else {
        return placeholder(
            "the source's URL is computed in a way packsmith does not follow".into(),
        );
    };
    let url_file = plan.url.rsplit('/').next().unwrap_or_default();
    if let Some(a) = archive {
        let same_file = a
            .file_name()
            .is_some_and(|f| f.to_string_lossy() == url_file);
        if same_file && !plan.unpack {
            if let Ok(sri) = file_sri(a) {
                return NewHash {
                    sri: Some(sri),
                    from: HashFrom::GivenArchive {
                        path: a.display().to_string(),
                    },
                };
            }
        }
    }
    if config.offline {
        return placeholder(format!("offline: {} was not fetched", plan.url));
    }
    match prefetch(plan, config) {
        Ok(sri) => NewHash {
            sri: Some(sri),
            from: HashFrom::Prefetched {
                url: plan.url.clone(),
            },
        },
        Err(e) => placeholder(format!(
            "{} could not be fetched: {}",
            plan.url,
            e.to_string().lines().next().unwrap_or_default()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::update::recipe::NixRecipe;

    #[test]
    fn the_url_of_each_fetcher_for_the_new_version() {
        let gh = NixRecipe::read(
            "{ }: {\n  src = fetchFromGitHub {\n    owner = \"acme\";\n    repo = \"demo\";\n    tag = \"v${finalAttrs.version}\";\n    hash = \"\";\n  };\n}\n",
        );
        let p = fetch_plan(gh.src.as_ref().unwrap(), None, "2.0").unwrap();
        assert_eq!(
            p.url,
            "https://github.com/acme/demo/archive/refs/tags/v2.0.tar.gz"
        );
        assert!(p.unpack);
        let py = NixRecipe::read(
            "{ }: {\n  src = fetchPypi {\n    inherit pname version;\n    hash = \"\";\n  };\n}\n",
        );
        let p = fetch_plan(py.src.as_ref().unwrap(), Some("attrs"), "25.1.0").unwrap();
        assert!(p.url.ends_with("/source/a/attrs/attrs-25.1.0.tar.gz"));
        assert!(!p.unpack);
        let url = NixRecipe::read(
            "{ }: {\n  src = fetchurl {\n    url = \"mirror://${foo}/x-${version}.tar.gz\";\n  };\n}\n",
        );
        assert_eq!(fetch_plan(url.src.as_ref().unwrap(), None, "1"), None);
    }

    #[test]
    fn the_given_archive_is_hashed_when_it_is_the_file_fetched() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("demo-2.0.tar.gz");
        std::fs::write(&archive, b"hello\n").unwrap();
        let plan = PrefetchPlan {
            url: "https://x.org/demo-2.0.tar.gz".into(),
            unpack: false,
        };
        let offline = NixConfig {
            offline: true,
            ..NixConfig::default()
        };
        let h = new_hash(Some(&plan), Some(&archive), &offline);
        // sha256 of "hello\n".
        assert_eq!(
            h.sri.as_deref(),
            Some("sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=")
        );
        // Another file name, or a hash of the unpacked tree: not this file's.
        let other = PrefetchPlan {
            url: "https://x.org/demo-2.0.tar.bz2".into(),
            unpack: false,
        };
        let h = new_hash(Some(&other), Some(&archive), &offline);
        assert_eq!(h.sri, None);
        assert!(matches!(h.from, HashFrom::Placeholder { .. }));
    }
}
