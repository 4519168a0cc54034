//! What a recipe contributes to retrieval: its build systems, dependency
//! names and build options, as sets.

use std::collections::BTreeSet;

use crate::base_classes::{class_for_kind, implied_build_system};
use crate::recipe::ParsedRecipe;

/// The last component of a possibly dotted base (`cmake.CMakePackage`).
pub fn base_short(base: &str) -> &str {
    base.rsplit('.').next().unwrap_or(base)
}

/// The build systems a recipe supports: the `build_system(...)` values,
/// else what its base classes imply.
pub fn build_systems(recipe: &ParsedRecipe) -> Vec<String> {
    if let Some(bs) = &recipe.build_system {
        if !bs.values.is_empty() {
            return bs.values.clone();
        }
    }
    let mut out: Vec<String> = Vec::new();
    for base in &recipe.bases {
        let short = base_short(base);
        if let Some(system) = implied_build_system(short) {
            if !out.iter().any(|s| s == system) {
                out.push(system.to_string());
            }
        }
    }
    out
}

/// The `build_system` value for an `analyze` build-system kind.
pub fn build_system_for_kind(kind: packsmith_core::BuildSystemKind) -> &'static str {
    implied_build_system(class_for_kind(Some(kind)))
        // `class_for_kind` only names classes that imply one (a unit test holds it).
        .unwrap_or("generic")
}

/// The retrieval sets of one recipe.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureSets {
    pub deps: BTreeSet<String>,
    pub opts: BTreeSet<String>,
    pub build_systems: BTreeSet<String>,
}

/// Dependency names and build options (own variants, plus `cuda`/`rocm`
/// from the GPU mixins, which say something about the package; the
/// variants every CMake package inherits say nothing and are left out).
pub fn feature_sets(recipe: &ParsedRecipe) -> FeatureSets {
    let deps = recipe
        .dependencies
        .iter()
        .map(|d| d.name.as_str())
        .chain(recipe.extends.iter().map(|e| head_name(&e.spec)))
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    let mut opts: BTreeSet<String> = recipe
        .variants
        .iter()
        .map(|v| v.name.to_ascii_lowercase())
        .collect();
    for base in &recipe.bases {
        match base_short(base) {
            "CudaPackage" => {
                opts.insert("cuda".to_string());
            }
            "ROCmPackage" => {
                opts.insert("rocm".to_string());
            }
            _ => {}
        }
    }
    FeatureSets {
        deps,
        opts,
        build_systems: build_systems(recipe).into_iter().collect(),
    }
}

/// `python@3.8:` → `python`.
fn head_name(spec: &str) -> &str {
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .unwrap_or(spec.len());
    spec[..end].trim()
}
