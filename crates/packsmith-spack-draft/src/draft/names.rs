//! Dependency names the knowledge base does not hold never reach Spack from
//! the draft: each one is resolved to the known name it stands for, or
//! written as a commented-out `depends_on` with a FIXME naming the closest
//! known packages — the same fix the static check (PS401) proposes, from
//! the same `mapping::fix_name`.

use crate::brief::{BriefDependency, SpackBrief};
use packsmith_spack_knowledge::mapping::{fix_name, NameFix, SpackNames};

/// A dependency left out because no Spack name was found for it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownDependency {
    pub dependency: BriefDependency,
    pub closest: Vec<String>,
}

/// The brief with every dependency name resolved against `kb`, and the
/// dependencies that could not be.
pub fn resolve_names(
    brief: &SpackBrief,
    kb: &dyn SpackNames,
) -> (SpackBrief, Vec<UnknownDependency>) {
    let mut out = brief.clone();
    let mut unknown = Vec::new();
    out.dependencies = resolve_list(&brief.dependencies, kb, &mut unknown);
    out.optional_dependencies = resolve_list(&brief.optional_dependencies, kb, &mut unknown);
    (out, unknown)
}

fn resolve_list(
    deps: &[BriefDependency],
    kb: &dyn SpackNames,
    unknown: &mut Vec<UnknownDependency>,
) -> Vec<BriefDependency> {
    // Each kept dependency, and whether it was renamed.
    let mut kept: Vec<(BriefDependency, bool)> = Vec::new();
    for d in deps {
        let (name, rest) = split_name(&d.spec);
        let (dep, renamed) = match fix_name(name, kb) {
            NameFix::Known => (d.clone(), false),
            NameFix::Resolved {
                name: known,
                evidence,
            } => {
                let dep = BriefDependency {
                    spec: format!("{known}{rest}"),
                    why: format!("{}; `{name}` is not a Spack package, so {evidence}", d.why),
                    ..d.clone()
                };
                (dep, true)
            }
            NameFix::Unresolved { closest } => {
                unknown.push(UnknownDependency {
                    dependency: d.clone(),
                    closest,
                });
                continue;
            }
        };
        // `gmock` and `GTest` both become `googletest`: declare it once
        // (the brief's own entries are left as they are).
        let same = |(k, k_renamed): &(BriefDependency, bool)| {
            (renamed || *k_renamed)
                && k.spec == dep.spec
                && k.when == dep.when
                && k.types == dep.types
        };
        if !kept.iter().any(same) {
            kept.push((dep, renamed));
        }
    }
    kept.into_iter().map(|(d, _)| d).collect()
}

/// `googletest@1.10: +gmock` → (`googletest`, `@1.10: +gmock`).
fn split_name(spec: &str) -> (&str, &str) {
    let end = spec
        .find(['@', '+', '~', ' ', '%', '^'])
        .unwrap_or(spec.len());
    spec.split_at(end)
}

/// The commented-out lines for dependencies with no Spack name.
pub fn render_unknown(
    unknown: &[UnknownDependency],
    depends_on: impl Fn(&BriefDependency) -> Vec<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for u in unknown {
        let (name, _) = split_name(&u.dependency.spec);
        let hint = if u.closest.is_empty() {
            "no known name is close; package it first or drop it".to_string()
        } else {
            let names: Vec<String> = u.closest.iter().map(|c| format!("`{c}`")).collect();
            format!("closest known: {}", names.join(", "))
        };
        out.push(format!(
            "    # FIXME: upstream {} needs `{name}`, which is no Spack package ({hint}):",
            u.dependency.upstream
        ));
        for line in depends_on(&u.dependency) {
            out.push(format!("    # {}", line.trim_start()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::Evidence;
    use packsmith_spack_knowledge::kb::NameIndex;

    fn dep(spec: &str, upstream: &str) -> BriefDependency {
        BriefDependency {
            spec: spec.into(),
            when: None,
            types: vec!["test".into()],
            upstream: upstream.into(),
            confidence: 0.3,
            why: "found upstream".into(),
            evidence: Evidence::new("CMakeLists.txt", 1),
        }
    }

    #[test]
    fn a_renamed_dependency_is_declared_once_and_keeps_its_constraint() {
        let kb = NameIndex {
            packages: ["googletest".to_string()].into_iter().collect(),
            virtuals: Default::default(),
            ..Default::default()
        };
        let mut unknown = Vec::new();
        let deps = [
            dep("googletest", "GTest"),
            dep("gmock", "GMock"),
            dep("gmock@1.10:", "GMock"),
            dep("zzz", "Zzz"),
        ];
        let kept = resolve_list(&deps, &kb, &mut unknown);
        let specs: Vec<&str> = kept.iter().map(|d| d.spec.as_str()).collect();
        assert_eq!(specs, ["googletest", "googletest@1.10:"]);
        assert!(kept[1].why.contains("`gmock` is not a Spack package"));
        assert_eq!(unknown.len(), 1);
        assert_eq!(unknown[0].dependency.spec, "zzz");
    }
}
