//! What a Nix run starts from: the source as a fetcher spec, the
//! repository analysis (when the source can be cloned or read), the
//! package name, revision and version, and the nixpkgs pin.

use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_agent::RunError;
use packsmith_analyze::archive::{self, local_archive};
use packsmith_analyze::{analyze_dir, source, AnalyzeError};
use packsmith_core::{RepoFacts, SourceInfo};
use packsmith_exec::CommandSpec;

use crate::fetch::{parse_source, Revision, SourceSpec};
use crate::runner::{NixConfig, NixpkgsPin};

/// The resolved inputs.
pub struct Inputs {
    pub source: SourceSpec,
    /// The tree the repository tools read (None: nothing to read).
    pub repo_root: Option<PathBuf>,
    pub facts: Option<RepoFacts>,
    pub pname: String,
    pub rev: Option<Revision>,
    pub version: String,
    /// Why the repository could not be analysed, if it could not.
    pub analysis_note: Option<String>,
    /// The packaged project's directory in the tree, when not its top.
    pub source_root: Option<String>,
}

/// A local directory given without `./` is still a path; a local release
/// archive (a path or `file://` URL) is fetched by its `file://` URL.
fn source_spec(given: &str) -> Result<SourceSpec, RunError> {
    if let Some(archive) = local_archive(given) {
        let abs = archive
            .canonicalize()
            .map_err(|e| RunError::bad_input(format!("cannot read {given}: {e}")))?;
        return Ok(SourceSpec::Url {
            url: format!("file://{}", abs.display()),
        });
    }
    let p = Path::new(given);
    if p.is_dir() {
        let abs = p
            .canonicalize()
            .map_err(|e| RunError::bad_input(format!("cannot read {given}: {e}")))?;
        if !holds_a_file(&abs) {
            return Err(empty_directory(&abs));
        }
        return Ok(SourceSpec::Path { path: abs });
    }
    match parse_source(given) {
        Ok(SourceSpec::Path { path }) if path.is_file() => Err(RunError::bad_input(
            format!(
                "{} is a file, but neither a source directory nor a release archive",
                path.display()
            ),
        )
        .hint("give a source directory, a release archive (.tar.gz, .tar.xz, .tar.bz2, .zip, …) or a project URL")),
        Ok(SourceSpec::Path { path }) => Err(RunError::bad_input(
            format!("{} is not a directory", path.display()),
        )
        .hint("give an existing source directory, or a project URL")),
        Ok(spec) => Ok(spec),
        Err(e) => Err(RunError::from_hint_as(&e, true)),
    }
}

/// Whether `dir` holds a file anywhere below it, `.git` left out: a
/// tree without one has nothing to package, and a recipe made from it
/// would only look like a result (issue 45). Stops at the first file.
fn holds_a_file(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        // Unreadable: the analysis says why, with the path.
        return true;
    };
    entries.flatten().any(|entry| {
        let Ok(kind) = entry.file_type() else {
            return true;
        };
        if kind.is_dir() {
            entry.file_name() != ".git" && holds_a_file(&entry.path())
        } else {
            true
        }
    })
}

fn empty_directory(dir: &Path) -> RunError {
    RunError::bad_input(
        format!(
            "{} is empty: it holds no file to package (a .git directory aside)",
            dir.display()
        ),
    )
    .hint("give the project's source directory (the one with its build files), a release archive or a project URL")
}

/// A name nixpkgs would accept: lower case, `-` for anything odd.
fn clean_name(s: &str) -> String {
    let n: String = s
        .trim()
        .to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.+".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let n = n.trim_matches('-').to_string();
    if n.is_empty() {
        "package".into()
    } else {
        n
    }
}

fn name_from_source(spec: &SourceSpec) -> String {
    match spec {
        SourceSpec::Forge { repo, .. } => repo.clone(),
        SourceSpec::Pypi { pname } | SourceSpec::Crate { pname } => pname.clone(),
        SourceSpec::Url { url } | SourceSpec::Git { url } => url
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("package")
            .trim_end_matches(".git")
            .split(['-', '_'])
            .next()
            .unwrap_or("package")
            .to_string(),
        SourceSpec::Path { path } => path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| "package".into()),
    }
}

/// `v1.2.3` → `1.2.3`; `demo-1.2` → `1.2`; anything without a digit stays.
fn version_from_tag(tag: &str, pname: &str) -> String {
    let t = tag.strip_prefix("refs/tags/").unwrap_or(tag);
    let t = t.strip_prefix(&format!("{pname}-")).unwrap_or(t);
    let t = t
        .strip_prefix('v')
        .or_else(|| t.strip_prefix('V'))
        .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or(t);
    t.to_string()
}

/// What the user gave, resolved.
pub struct Given<'a> {
    pub source: &'a str,
    pub rev: Option<&'a str>,
    pub name: Option<&'a str>,
    pub version: Option<&'a str>,
    pub attr_path: Option<&'a str>,
    /// Where clones and unpacked archives are kept.
    pub cache_dir: &'a Path,
}

pub fn resolve(g: &Given<'_>, say: &mut dyn FnMut(&str)) -> Result<Inputs, RunError> {
    let Given {
        source: given,
        rev,
        name,
        version,
        attr_path,
        cache_dir,
    } = *g;
    let spec = source_spec(given)?;
    let mut note = None;
    let (repo_root, facts) = match &spec {
        SourceSpec::Path { path } => {
            let (root, info) =
                source::resolve(&path.display().to_string(), cache_dir, &mut |l| say(l))
                    .map_err(|e| RunError::from_hint_as(&e, true))?;
            // A tree without a known build file is still packaged: the
            // model reads it and picks the builder.
            let facts = analyze_dir(&root, info)
                .map_err(|e| note = Some(analysis_failed(&e.to_string())))
                .ok();
            (Some(root), facts)
        }
        SourceSpec::Forge { .. } | SourceSpec::Git { .. } => {
            match source::resolve(given, cache_dir, &mut |l| say(l)) {
                Ok((root, info)) => {
                    let facts = analyze_dir(&root, info)
                        .map_err(|e| note = Some(analysis_failed(&e.to_string())))
                        .ok();
                    (Some(root), facts)
                }
                // The caller sees its cancel token set: an interruption.
                Err(e @ AnalyzeError::Interrupted { .. }) => {
                    return Err(RunError::from_hint_as(&e, false));
                }
                Err(e) => {
                    note = Some(format!("the repository could not be fetched: {e}"));
                    (None, None)
                }
            }
        }
        SourceSpec::Url { url } if local_archive(url).is_some() => {
            let archive = PathBuf::from(url.trim_start_matches("file://"));
            match archive::unpack(&archive, cache_dir) {
                Ok(root) => {
                    let info = SourceInfo {
                        kind: "archive".into(),
                        given: given.into(),
                        release_tag: None,
                    };
                    let facts = analyze_dir(&root, info)
                        .map_err(|e| note = Some(analysis_failed(&e.to_string())))
                        .ok();
                    (Some(root), facts)
                }
                Err(e) => {
                    note = Some(format!(
                        "the archive could not be unpacked for analysis: {e}"
                    ));
                    (None, None)
                }
            }
        }
        _ => {
            note = Some("a package index or remote archive source is not analysed".into());
            (None, None)
        }
    };
    let (facts, source_root) = match (attr_path, &repo_root, facts) {
        (Some(attr), Some(root), Some(f)) => python_subproject(attr, root, f, say),
        (_, _, facts) => (facts, None),
    };
    // `demo-1.0.tar.gz` names the package and its version; its top
    // directory `demo-1.0` is no better a name than that.
    let (archive_name, archive_version) = match &spec {
        SourceSpec::Url { url } => {
            archive::split_name_version(&archive::archive_stem(Path::new(url)))
        }
        _ => (None, None),
    };
    let pname = clean_name(
        name.map(str::to_string)
            .or_else(|| {
                facts
                    .as_ref()
                    .and_then(|f| f.name.as_ref().map(|n| n.value.clone()))
                    .filter(|n| {
                        archive_version
                            .as_ref()
                            .is_none_or(|v| !n.ends_with(&format!("-{v}")))
                    })
            })
            .or(archive_name)
            .unwrap_or_else(|| name_from_source(&spec))
            .as_str(),
    );
    let needs_rev = matches!(spec, SourceSpec::Forge { .. } | SourceSpec::Git { .. });
    let rev = rev.map(Revision::guess).or_else(|| {
        let f = facts.as_ref().filter(|_| needs_rev)?;
        f.versions
            .latest_tag
            .as_ref()
            .map(|t| Revision::Tag(t.tag.clone()))
            .or_else(|| f.versions.commit.clone().map(Revision::Rev))
    });
    let version = version.map(str::to_string).unwrap_or_else(|| {
        let declared = facts
            .as_ref()
            .and_then(|f| f.versions.declared.as_ref().map(|d| d.value.clone()));
        match &rev {
            Some(Revision::Tag(t)) => version_from_tag(t, &pname),
            _ => archive_version
                .or(declared)
                .unwrap_or_else(|| "0-unstable".into()),
        }
    });
    Ok(Inputs {
        source: spec,
        repo_root,
        facts,
        pname,
        rev,
        version,
        analysis_note: note,
        source_root,
    })
}

/// A module of a Python package set from a repository whose top is no
/// Python project, or another one (a uv workspace's root): the facts of
/// the Python project's directory (found by the attribute's name), with
/// the repository's versions, and that directory for `sourceRoot`.
/// Otherwise the facts as they are.
fn python_subproject(
    attr: &str,
    root: &Path,
    facts: RepoFacts,
    say: &mut dyn FnMut(&str),
) -> (Option<RepoFacts>, Option<String>) {
    use crate::attr_path::{leaf, package_set, python_subproject, same_name, PackageSet};
    if package_set(attr) != PackageSet::Python {
        return (Some(facts), None);
    }
    // The Python project the analysis found is the attribute's: keep it.
    let found = facts.python.as_ref().map(|p| p.name.as_deref());
    if let Some(Some(name)) = found {
        if same_name(name, leaf(attr)) {
            return (Some(facts), None);
        }
    }
    let Some(dir) = python_subproject(root, leaf(attr)) else {
        return (Some(facts), None);
    };
    match analyze_dir(&root.join(&dir), facts.source.clone()) {
        Ok(mut sub) => {
            sub.versions = facts.versions;
            say(&format!(
                "note: {attr} is the Python project in {dir}/ (sourceRoot)"
            ));
            (Some(sub), Some(dir))
        }
        Err(_) => (Some(facts), None),
    }
}

/// The note for an analysis that failed: its first line (the hint is for
/// commands that need the facts).
fn analysis_failed(error: &str) -> String {
    format!(
        "the repository could not be analysed ({})",
        error.lines().next().unwrap_or(error)
    )
}

/// `--nixpkgs`: an existing directory is a checkout, anything else a
/// commit; without it, `<nixpkgs>` from NIX_PATH; else None.
pub fn nixpkgs_pin(
    given: Option<&str>,
    config: &NixConfig,
) -> Result<Option<NixpkgsPin>, RunError> {
    if let Some(g) = given {
        let p = Path::new(g);
        if p.is_dir() {
            let path = p
                .canonicalize()
                .map_err(|e| RunError::bad_input(format!("cannot read --nixpkgs {g}: {e}")))?;
            if !path.join("default.nix").is_file() {
                return Err(RunError::bad_input(format!(
                    "--nixpkgs {g} has no default.nix, so it is not a nixpkgs checkout"
                ))
                .hint("give the root of a nixpkgs checkout, or a nixpkgs commit"));
            }
            return Ok(Some(NixpkgsPin::Path { path }));
        }
        if g.contains('/') {
            return Err(RunError::bad_input(format!(
                "--nixpkgs {g} is neither a directory nor a nixpkgs revision"
            ))
            .hint("give the path of a nixpkgs checkout, or a commit such as a 40-digit hash"));
        }
        return Ok(Some(NixpkgsPin::Rev {
            rev: g.to_string(),
            sha256: None,
        }));
    }
    let spec = CommandSpec::new(config.program("nix-instantiate"))
        .args(["--find-file", "nixpkgs"])
        .timeout(Duration::from_secs(30));
    Ok(packsmith_exec::run(&spec)
        .ok()
        .filter(|o| o.success())
        .map(|o| o.stdout.trim().to_string())
        .filter(|p| !p.is_empty())
        .map(|p| NixpkgsPin::Path { path: p.into() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_versions() {
        assert_eq!(clean_name("My Tool!"), "my-tool");
        assert_eq!(version_from_tag("v1.2.3", "x"), "1.2.3");
        assert_eq!(version_from_tag("demo-2.0", "demo"), "2.0");
        assert_eq!(version_from_tag("release", "demo"), "release");
        assert_eq!(
            name_from_source(&parse_source("https://example.org/demo-1.0.tar.gz").unwrap()),
            "demo"
        );
    }

    #[test]
    fn an_empty_tree_is_refused_with_its_path_and_a_hint() {
        let dir = tempfile::tempdir().unwrap();
        // Only directories, and a .git with a file in it: still empty.
        std::fs::create_dir_all(dir.path().join("src/empty")).unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let given = dir.path().display().to_string();
        let err = source_spec(&given).unwrap_err();
        assert!(err.bad_input);
        let canonical = dir.path().canonicalize().unwrap();
        assert!(
            err.message.contains(&canonical.display().to_string()),
            "{}",
            err.message
        );
        assert!(err.message.contains("is empty"), "{}", err.message);
        assert!(err.hint.is_some());
        // One file, however deep, is something to package.
        std::fs::write(dir.path().join("src/empty/main.c"), "int main(){}\n").unwrap();
        assert!(matches!(
            source_spec(&given).unwrap(),
            SourceSpec::Path { .. }
        ));
    }

    #[test]
    fn a_nixpkgs_directory_needs_a_default_nix() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = NixConfig::default();
        let err = nixpkgs_pin(Some(&dir.path().display().to_string()), &cfg).unwrap_err();
        assert!(err.message.contains("not a nixpkgs checkout"));
        std::fs::write(dir.path().join("default.nix"), "{ }: { }").unwrap();
        assert!(matches!(
            nixpkgs_pin(Some(&dir.path().display().to_string()), &cfg).unwrap(),
            Some(NixpkgsPin::Path { .. })
        ));
        assert!(matches!(
            nixpkgs_pin(Some("nixos-24.11"), &cfg).unwrap(),
            Some(NixpkgsPin::Rev { .. })
        ));
    }
}
