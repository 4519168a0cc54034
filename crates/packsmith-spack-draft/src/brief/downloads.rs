//! Configure-time downloads and required submodules → Spack conventions:
//! depend on the Spack package for what is fetched, pass the project's own
//! switch (or FetchContent's generic ones), and always run FetchContent
//! fully disconnected so that a download still attempted fails at once
//! instead of timing out.

use super::conditions::{ConditionMap, When};
use super::{dep, push_dep, BriefDefine, BriefNote, SpackBrief};
use packsmith_core::{DownloadFact, DownloadKind, DownloadSwitchKind, RepoFacts};
use packsmith_spack_knowledge::mapping::{map_name, Known, MappingKind, NameSource, SpackNames};

/// Spack packages that only a project's tests use.
const TEST_FRAMEWORKS: &[&str] = &["googletest", "catch2", "doctest", "cxxtest", "benchmark"];

/// The oldest CMake with `FETCHCONTENT_TRY_FIND_PACKAGE_MODE`.
const TRY_FIND_PACKAGE_CMAKE: &str = "3.24";

/// Applies the rules for every download the analysis found.
pub(super) fn apply(
    facts: &RepoFacts,
    kb: &dyn SpackNames,
    conds: &ConditionMap,
    brief: &mut SpackBrief,
) {
    let cmake = brief
        .base_classes
        .first()
        .is_some_and(|b| b == "CMakePackage");
    let mut fetch_content = false;
    let mut try_find = false;
    for d in &facts.downloads {
        match d.kind {
            DownloadKind::GitSubmodule => submodule(d, kb, brief),
            DownloadKind::MesonSubproject => note_download(d, brief, None),
            DownloadKind::FileDownload => note_download(d, brief, None),
            DownloadKind::FetchContent | DownloadKind::ExternalProject | DownloadKind::GitClone => {
                let spack = spack_name(d, kb);
                if let Some(name) = &spack {
                    // A test framework fetched for a build whose tests the
                    // recipe switches with `self.run_tests` is needed only then.
                    let tests_switched = brief
                        .defines
                        .iter()
                        .any(|d| d.value.as_deref() == Some("self.run_tests"));
                    let test_framework = TEST_FRAMEWORKS.contains(&name.as_str());
                    let types = if conds.is_test_only(&d.conditions)
                        || (test_framework && tests_switched)
                    {
                        vec!["test".to_string()]
                    } else {
                        Vec::new()
                    };
                    let when = match conds.translate(&d.conditions) {
                        When::Spec(s) => Some(s),
                        When::Never => continue,
                        _ => None,
                    };
                    let why = format!("the build downloads `{}` at configure time", d.name);
                    push_dep(
                        &mut brief.dependencies,
                        dep(name, when, types, &d.name, 0.8, &why, d.evidence.clone()),
                    );
                }
                let fc = d.kind == DownloadKind::FetchContent;
                fetch_content |= fc;
                let uses = spack
                    .as_deref()
                    .map(|n| format!("depends on `{n}`"))
                    .unwrap_or_else(|| "no Spack package found for it".into());
                let message = match &d.switch {
                    Some(s) if s.kind == DownloadSwitchKind::Option => {
                        let on = s.value.eq_ignore_ascii_case("ON");
                        push_define(brief, &s.name, if on { "True" } else { "False" });
                        format!(
                            "the build downloads `{}` unless {}={} ({}): set; {uses}",
                            d.name, s.name, s.value, s.evidence
                        )
                    }
                    // find_package is tried first: the dependency is enough.
                    Some(s) => format!(
                        "the build downloads `{}` only when find_package({}) fails: {uses}",
                        d.name, s.name
                    ),
                    None if fc => {
                        try_find = true;
                        format!(
                            "FetchContent `{}` has no switch: FETCHCONTENT_TRY_FIND_PACKAGE_MODE=ALWAYS makes it find_package({}) first; {uses}",
                            d.name, d.name
                        )
                    }
                    None => {
                        note_download(d, brief, spack.as_deref());
                        continue;
                    }
                };
                brief.notes.push(BriefNote {
                    message,
                    evidence: Some(d.evidence.clone()),
                });
            }
        }
    }
    // What a download rule declared is no longer merely optional.
    let declared: Vec<String> = brief
        .dependencies
        .iter()
        .filter(|d| d.why.contains("downloads") || d.why.contains("submodule"))
        .map(|d| dep_name(&d.spec).to_string())
        .collect();
    brief
        .optional_dependencies
        .retain(|d| !declared.iter().any(|n| n == dep_name(&d.spec)));
    if cmake && fetch_content {
        push_define(brief, "FETCHCONTENT_FULLY_DISCONNECTED", "True");
        if try_find {
            push_define(brief, "FETCHCONTENT_TRY_FIND_PACKAGE_MODE", "\"ALWAYS\"");
            raise_cmake_minimum(brief);
        }
    }
}

/// The Spack package for what a download fetches: the name find_package
/// would look for, the declared name, then the upstream project's name,
/// each through the mapping. With a knowledge base only names this Spack
/// knows are taken; without one, the first mapping is (a guess, as for
/// `find_package` names, which the static check and the model review).
fn spack_name(d: &DownloadFact, kb: &dyn SpackNames) -> Option<String> {
    let mut candidates: Vec<&str> = Vec::new();
    if let Some(s) = d
        .switch
        .as_ref()
        .filter(|s| s.kind == DownloadSwitchKind::FindPackageFirst)
    {
        candidates.push(&s.name);
    }
    // `nlohmann/json` → `nlohmann-json`: taken only when Spack has it by
    // exactly that name.
    let owner_repo = d.url.as_deref().and_then(owner_repo);
    if let Some(joined) = owner_repo.as_deref() {
        if kb.knows_names() && kb.lookup(joined) != Known::Unknown {
            return Some(joined.to_string());
        }
    }
    // A submodule's name is its path (`cmake/` holding jrl-cmakemodules):
    // the repository it comes from says what it is.
    let path_only = d.kind == DownloadKind::GitSubmodule && d.upstream.is_some();
    if !path_only {
        candidates.push(&d.name);
    }
    if let Some(u) = &d.upstream {
        candidates.push(u);
    }
    let mapped: Vec<_> = candidates
        .into_iter()
        .map(|c| map_name(c, NameSource::Cmake, kb))
        .collect();
    let usable = |kind: MappingKind| {
        matches!(
            kind,
            MappingKind::Package | MappingKind::Virtual | MappingKind::BuildTool
        )
    };
    if !kb.knows_names() {
        // The curated table first, then the plain guess.
        let curated = mapped
            .iter()
            .find(|m| usable(m.kind) && m.confidence >= 0.9);
        let guess = mapped
            .iter()
            .find(|m| usable(m.kind) || m.kind == MappingKind::Unmapped);
        return curated.or(guess).and_then(|m| m.spack.clone());
    }
    mapped.into_iter().find_map(|m| {
        let name = m.spack.filter(|_| usable(m.kind))?;
        (kb.lookup(&name) != Known::Unknown).then_some(name)
    })
}

/// A required submodule, checked out here or empty: depend on the Spack
/// package that provides it (BLT's path variable is a convention every
/// LLNL project shares), unless the build compiles the vendored copy's
/// files or Spack has none; then the recipe fetches with git and its
/// submodules.
fn submodule(d: &DownloadFact, kb: &dyn SpackNames, brief: &mut SpackBrief) {
    let Some(required) = &d.required_by else {
        brief.notes.push(BriefNote {
            message: format!(
                "git submodule `{}`: release archives lack it; fetch with git and submodules=True, or depend on the package it vendors",
                d.name
            ),
            evidence: Some(d.evidence.clone()),
        });
        return;
    };
    // A build that compiles the vendored copy's own files cannot use the
    // package instead: it needs the submodule itself.
    let spack = spack_name(d, kb).filter(|_| !d.compiled);
    brief.fetch.submodules |= spack.is_none();
    let state = if d.present {
        "checked out here"
    } else {
        "empty here"
    };
    let message = match &spack {
        Some(name) => {
            let types = if name == "blt" {
                vec!["build".to_string()]
            } else {
                Vec::new()
            };
            let why = format!("the build needs submodule `{}` ({})", d.name, required.value);
            push_dep(
                &mut brief.dependencies,
                dep(name, None, types, &d.name, 0.8, &why, d.evidence.clone()),
            );
            if name == "blt" {
                push_define(brief, "BLT_SOURCE_DIR", "self.spec[\"blt\"].prefix");
            }
            format!(
                "submodule `{}` is {state} and required by {} ({}): depends on `{name}`; pass its path to the variable the check reads",
                d.name, required.value, required.evidence
            )
        }
        None => format!(
            "submodule `{}` is {state} and required by {} ({}), and release archives lack it: fetch with git and submodules=True",
            d.name, required.value, required.evidence
        ),
    };
    brief.notes.push(BriefNote {
        message,
        evidence: Some(d.evidence.clone()),
    });
}

fn note_download(d: &DownloadFact, brief: &mut SpackBrief, spack: Option<&str>) {
    let message = match spack {
        Some(name) => format!(
            "the build downloads `{}` ({:?}) with no switch to turn it off; depends on `{name}`: patch the build to use it",
            d.name, d.kind
        ),
        None => format!(
            "the build downloads `{}` ({:?}); Spack builds have no network: depend on it as a package and switch the download off",
            d.name, d.kind
        ),
    };
    brief.notes.push(BriefNote {
        message,
        evidence: Some(d.evidence.clone()),
    });
}

/// `https://github.com/nlohmann/json.git` → `nlohmann-json`, for the
/// hosts whose URLs read `host/owner/repo`.
fn owner_repo(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let mut parts = rest.split('/').filter(|p| !p.is_empty());
    if !packsmith_core::forge::names_owner_repo(parts.next()?) {
        return None;
    }
    let owner = parts.next()?;
    let repo = parts.next()?;
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    Some(format!("{owner}-{repo}").to_ascii_lowercase())
}

fn dep_name(spec: &str) -> &str {
    spec.split(['@', '+', '~', ' ']).next().unwrap_or(spec)
}

/// A fixed define, once.
fn push_define(brief: &mut SpackBrief, key: &str, value: &str) {
    if brief.defines.iter().any(|d| d.key == key) {
        return;
    }
    brief.defines.push(BriefDefine {
        key: key.to_string(),
        variant: None,
        value: Some(value.to_string()),
    });
}

/// `FETCHCONTENT_TRY_FIND_PACKAGE_MODE` needs CMake 3.24.
fn raise_cmake_minimum(brief: &mut SpackBrief) {
    let current = brief
        .cmake_constraint
        .as_deref()
        .and_then(|c| c.strip_prefix("cmake@"))
        .map(|v| v.trim_end_matches(':').to_string());
    let older = current.as_deref().is_none_or(|v| {
        let parts = |s: &str| -> Vec<u32> { s.split('.').map_while(|p| p.parse().ok()).collect() };
        parts(v) < parts(TRY_FIND_PACKAGE_CMAKE)
    });
    if older {
        brief.cmake_constraint = Some(format!("cmake@{TRY_FIND_PACKAGE_CMAKE}:"));
    }
}

/// The options that are download switches: set by the recipe, never
/// offered as variants.
pub(super) fn switch_options(facts: &RepoFacts) -> Vec<String> {
    facts
        .downloads
        .iter()
        .filter_map(|d| d.switch.as_ref())
        .filter(|s| s.kind == DownloadSwitchKind::Option)
        .map(|s| s.name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::owner_repo;

    #[test]
    fn owner_and_repository_join() {
        assert_eq!(
            owner_repo("https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz")
                .as_deref(),
            Some("nlohmann-json")
        );
        assert_eq!(
            owner_repo("https://github.com/fmtlib/fmt.git").as_deref(),
            Some("fmtlib-fmt")
        );
        assert_eq!(owner_repo("https://example.org/a/b.tar.gz"), None);
    }
}
