//! What a recipe inherits from its base classes, so that S_d can drop what
//! a recipe merely inherits (SpackIt's `data/buildsys.pkl`). The facts are
//! rows of the one base-class table (`crate::base_classes`); this module
//! picks the release, adds the parents' declarations and expands the
//! per-architecture tables.

use super::ScoreDep;
use crate::base_classes::{
    base_class, PerArch, BASE_CLASSES, CUDA_ARCHS_0_23, CUDA_ARCHS_1, ROCM_TARGETS,
};

/// Which Spack the reference recipes come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SpackRelease {
    /// Spack 0.23, `spack.build_systems`.
    V0_23,
    /// Spack 1.x with the separate spack-packages repository (SpackIt's
    /// container ran this).
    #[default]
    V1,
}

const BL: &[&str] = &["build", "link"];

/// Names of the base classes the table knows, sorted case-insensitively.
pub fn known_base_classes() -> impl Iterator<Item = &'static str> {
    let mut names: Vec<&'static str> = BASE_CLASSES.iter().map(|b| b.name).collect();
    names.sort_by_key(|n| n.to_lowercase());
    names.into_iter()
}

/// Every dependency a recipe inherits from `base` (its own directives and
/// its parents'), or an empty list for an unknown class.
pub fn inherited_dependencies(base: &str, release: SpackRelease) -> Vec<ScoreDep> {
    let Some(class) = base_class(base) else {
        return Vec::new();
    };
    let decls = match release {
        SpackRelease::V0_23 => class.inherited.v0_23,
        SpackRelease::V1 => class.inherited.v1,
    };
    let to_dep = |spec: String, when: &str, types: &[&str]| ScoreDep {
        spec,
        when: (!when.is_empty()).then(|| when.to_string()),
        types: types.iter().map(|t| t.to_string()).collect(),
    };
    let mut deps: Vec<ScoreDep> = class
        .parents
        .iter()
        .flat_map(|p| inherited_dependencies(p, release))
        .chain(decls.iter().map(|(s, w, t)| to_dep(s.to_string(), w, t)))
        .collect();
    match class.inherited.per_arch {
        PerArch::None => {}
        PerArch::Cuda => {
            let table = match release {
                SpackRelease::V0_23 => CUDA_ARCHS_0_23,
                SpackRelease::V1 => CUDA_ARCHS_1,
            };
            deps.extend(table.iter().map(|(arch, range)| {
                to_dep(format!("cuda@{range}"), &format!("cuda_arch={arch}"), BL)
            }));
        }
        PerArch::Rocm => {
            deps.extend(ROCM_TARGETS.iter().map(|(target, min)| {
                to_dep(
                    format!("llvm-amdgpu@{min}:"),
                    &format!("amdgpu_target={target}"),
                    BL,
                )
            }));
        }
    }
    deps
}
