//! The project is never its own dependency: examples, tests and bindings
//! often `find_package(<Project>)` to build against an installed copy, and
//! Spack refuses a package that depends on itself at load time.

use super::{BriefNote, SpackBrief};
use packsmith_core::RepoFacts;

/// Drops every dependency (declared or optional) on the project itself, and
/// any switch that would turn its own lookup off, with a note for each.
pub(super) fn drop_self(facts: &RepoFacts, brief: &mut SpackBrief) {
    let project = facts
        .cmake
        .as_ref()
        .and_then(|c| c.project.as_ref())
        .map(|p| p.name.clone())
        .or_else(|| facts.name.as_ref().map(|n| n.value.clone()));
    let package = brief.package.clone();
    let is_self = |upstream: &str, spec: &str| {
        let name = spec
            .split(['@', '+', '~', ' ', '%', '^'])
            .next()
            .unwrap_or(spec);
        is_own_name(upstream, Some(name), &package, project.as_deref())
    };
    let mut notes = Vec::new();
    for list in [&mut brief.dependencies, &mut brief.optional_dependencies] {
        list.retain(|d| {
            if !is_self(&d.upstream, &d.spec) {
                return true;
            }
            notes.push(BriefNote {
                message: format!(
                    "{} is the project itself (an installed copy for examples, tests or bindings): not a dependency",
                    d.upstream
                ),
                evidence: Some(d.evidence.clone()),
            });
            false
        });
    }
    brief.defines.retain(|d| {
        d.key
            .strip_prefix("CMAKE_DISABLE_FIND_PACKAGE_")
            .is_none_or(|name| !is_own_name(name, None, &package, project.as_deref()))
    });
    brief.notes.retain(|n| {
        !(n.message
            .contains("switched off (-DCMAKE_DISABLE_FIND_PACKAGE_")
            && notes_mention_self(&n.message, &package, project.as_deref()))
    });
    brief.notes.extend(notes);
}

/// A disable note names its lookup first: `Quillo is looked for …`.
fn notes_mention_self(message: &str, package: &str, project: Option<&str>) -> bool {
    let first = message.split(' ').next().unwrap_or_default();
    is_own_name(first, None, package, project)
}

/// A name folded for comparison: lower case, `_` as `-`, and a trailing
/// config-file suffix (`-config`, `Config`) dropped.
fn fold(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase().replace('_', "-");
    for suffix in ["-config", "config"] {
        if let Some(stem) = lower.strip_suffix(suffix) {
            if !stem.is_empty() {
                return stem.trim_end_matches('-').to_string();
            }
        }
    }
    lower
}

/// True when `upstream` (a `find_package` or pkg-config name) or the Spack
/// name it maps to is the project itself: its upstream name or the Spack
/// name the draft gives it.
pub fn is_own_name(
    upstream: &str,
    mapped: Option<&str>,
    package: &str,
    project: Option<&str>,
) -> bool {
    let own: Vec<String> = std::iter::once(package)
        .chain(project)
        .flat_map(|n| [n.trim().to_ascii_lowercase().replace('_', "-"), fold(n)])
        .collect();
    let candidates = [Some(upstream), mapped]
        .into_iter()
        .flatten()
        .flat_map(|n| [n.trim().to_ascii_lowercase().replace('_', "-"), fold(n)]);
    candidates.into_iter().any(|c| own.contains(&c))
}

#[cfg(test)]
mod tests {
    use super::is_own_name;

    #[test]
    fn own_names_in_every_spelling() {
        for name in [
            "Quillo",
            "QUILLO",
            "quillo-config",
            "QuilloConfig",
            "quillo_config",
        ] {
            assert!(is_own_name(name, None, "quillo", Some("Quillo")), "{name}");
        }
        assert!(is_own_name("Foo", Some("my-pkg"), "my-pkg", None));
        assert!(is_own_name("my_pkg", None, "my-pkg", None));
        for name in ["ZLIB", "QuilloExtras", "Config", "quill"] {
            assert!(
                !is_own_name(name, Some("zlib-api"), "quillo", Some("Quillo")),
                "{name}"
            );
        }
    }
}
