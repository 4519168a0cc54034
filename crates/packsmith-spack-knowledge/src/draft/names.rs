//! Dependency names the knowledge base does not hold never reach Spack from
//! the draft: each one is resolved to the known name it stands for, or
//! written as a commented-out `depends_on` with a FIXME naming the closest
//! known packages — the same fix the static check (PS401) proposes, from
//! the same `mapping::fix_name`.

use crate::brief::{BriefDependency, SpackBrief};
use crate::mapping::{fix_name, NameFix, SpackNames};

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
    let mut kept: Vec<BriefDependency> = Vec::new();
    for d in deps {
        let (name, rest) = split_name(&d.spec);
        let resolved = match fix_name(name, kb) {
            NameFix::Known => {
                kept.push(d.clone());
                continue;
            }
            NameFix::Resolved {
                name: known,
                evidence,
            } => BriefDependency {
                spec: format!("{known}{rest}"),
                why: format!("{}; `{name}` is not a Spack package, so {evidence}", d.why),
                ..d.clone()
            },
            NameFix::Unresolved { closest } => {
                unknown.push(UnknownDependency {
                    dependency: d.clone(),
                    closest,
                });
                continue;
            }
        };
        // `gmock` and `GTest` both become `googletest`: declare it once.
        let same = |k: &BriefDependency| {
            k.spec == resolved.spec && k.when == resolved.when && k.types == resolved.types
        };
        if !kept.iter().any(same) {
            kept.push(resolved);
        }
    }
    kept
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
