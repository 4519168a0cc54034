//! Spack's two conventions for a CMake library, which upstream builds do
//! not declare because CMake has them built in: `shared` (default on, as
//! in 202 of the 235 CMake recipes of Spack 0.23 that have one) for a
//! library whose kind follows `BUILD_SHARED_LIBS` (`add_library(fmt …)`
//! with no `STATIC`/`SHARED`), and `pic` (`CMAKE_POSITION_INDEPENDENT_CODE`)
//! for a package whose libraries are static only, so that a dependent's
//! shared library can link them.

use super::conditions::{ConditionMap, When};
use super::{BriefNote, BriefVariant, SpackBrief, VariantDefault};
use packsmith_core::{CmakeFacts, CmakeTarget, CmakeTargetKind};

/// Adds `shared` and `pic` when the package's own libraries call for them
/// and no option of the project already offers them.
pub(super) fn apply(cmake: &CmakeFacts, map: &mut ConditionMap, brief: &mut SpackBrief) {
    let libraries: Vec<(&CmakeTarget, When)> = cmake
        .targets
        .iter()
        .filter(|t| t.kind != CmakeTargetKind::Executable && !map.is_test_only(&t.conditions))
        .map(|t| (t, map.translate(&t.conditions)))
        .filter(|(_, when)| matches!(when, When::Always | When::Spec(_)))
        .collect();
    // A library built in every configuration first; else one under a
    // feature, whose variant `shared` then depends on (glm's
    // `GLM_BUILD_LIBRARY`).
    let mut follows_kind: Vec<&(&CmakeTarget, When)> = libraries
        .iter()
        .filter(|(t, _)| t.kind == CmakeTargetKind::Library)
        .collect();
    follows_kind.sort_by_key(|(_, when)| !matches!(when, When::Always));
    let broken = uninstalled_library_an_install_needs(cmake);
    if let (Some((library, user)), None) = (&broken, &cmake.build_shared_libs) {
        brief.notes.push(BriefNote {
            message: format!(
                "no variant shared: library {library} has no install rule and installed target {user} links it, so a shared build would install {user} without it; CMake's default builds it static"
            ),
            evidence: follows_kind.first().map(|(t, _)| t.evidence.clone()),
        });
    }
    if let Some((target, when)) = follows_kind.first().filter(|_| broken.is_none()) {
        if !has_variant(brief, "shared") && cmake.build_shared_libs.is_none() {
            map.variants
                .insert("BUILD_SHARED_LIBS".into(), "shared".into());
            let when = match when {
                When::Spec(spec) => Some(spec.clone()),
                _ => None,
            };
            let shared = ("shared", "Build shared libraries", "BUILD_SHARED_LIBS");
            push(brief, shared, when, target);
        }
    }
    // `pic` where the package's libraries are static only and always
    // built: with a shared library beside it, or `shared` to choose, few
    // of Spack's recipes add it (45 of 1,196 CMake recipes in 0.23 declare
    // `pic`). A static library another target links is the build's own
    // helper (oneapi-level-zero's `level_zero_utils`), not a deliverable.
    let only_static = libraries
        .iter()
        .all(|(t, _)| t.kind == CmakeTargetKind::StaticLibrary);
    let deliverable = libraries.iter().find(|(t, when)| {
        matches!(when, When::Always) && !cmake.linked.iter().any(|l| l == &t.name)
    });
    if let Some((target, _)) = deliverable.filter(|_| only_static) {
        let key = "CMAKE_POSITION_INDEPENDENT_CODE";
        let declared = cmake.options.iter().any(|o| o.name == key)
            || cmake.cache_vars.iter().any(|v| v.name == key);
        if !has_variant(brief, "pic") && !has_variant(brief, "shared") && !declared {
            map.variants.insert(key.into(), "pic".into());
            let pic = ("pic", "Build position-independent code", key);
            push(brief, pic, None, target);
        }
    }
}

/// A library whose kind follows `BUILD_SHARED_LIBS`, that no
/// `install(TARGETS …)` names and that an installed target links (itself,
/// or through the project's other libraries): `(library, installed
/// target)`. Built shared, it would leave the install broken (fusion-io's
/// `trace` could not load `libfusionio_trace.so`).
fn uninstalled_library_an_install_needs(cmake: &CmakeFacts) -> Option<(String, String)> {
    let resolve = |name: &str| -> String {
        cmake
            .target_aliases
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    };
    let follows_kind = |name: &str| {
        cmake
            .targets
            .iter()
            .any(|t| t.name == name && t.kind == CmakeTargetKind::Library)
    };
    for root in &cmake.installed_targets {
        let mut seen: Vec<String> = vec![root.clone()];
        let mut queue: Vec<String> = vec![root.clone()];
        while let Some(target) = queue.pop() {
            for linked in cmake.target_links.get(&target).into_iter().flatten() {
                let linked = resolve(linked);
                if seen.contains(&linked) {
                    continue;
                }
                if follows_kind(&linked) && !cmake.installed_targets.contains(&linked) {
                    return Some((linked, root.clone()));
                }
                seen.push(linked.clone());
                queue.push(linked);
            }
        }
    }
    None
}

fn has_variant(brief: &SpackBrief, name: &str) -> bool {
    brief.variants.iter().any(|v| v.name == name)
}

/// The variant `(name, description, CMake key)`, and a note saying why.
fn push(
    brief: &mut SpackBrief,
    (name, description, key): (&str, &str, &str),
    when: Option<String>,
    target: &CmakeTarget,
) {
    brief.variants.push(BriefVariant {
        name: name.into(),
        default: VariantDefault::Bool(true),
        values: Vec::new(),
        description: description.into(),
        when,
        option: key.into(),
        inherited: false,
        evidence: target.evidence.clone(),
    });
    brief.notes.push(BriefNote {
        message: format!(
            "library {} is built by CMake's rules: variant {name} sets {key}, as Spack's recipes do",
            target.name
        ),
        evidence: Some(target.evidence.clone()),
    });
}
