//! SpackIt's similarity metrics between a generated recipe and the human
//! reference (docs/spackit-notes.md §7), plus what SpackIt lacks: precision
//! counterparts and a semantic dependency score.
//!
//! - `s_d`: SpackIt's dependency recall, reproduced exactly: canonical
//!   textual comparison of spec and condition, 0.0 (not None) when the
//!   reference has no own dependencies.
//! - `s_d_semantic`: the same weights, but spec and condition compared with
//!   the spec grammar (equivalent = full credit, intersecting = half); None
//!   when the reference has no own dependencies.
//! - `s_v`: recall of lower-cased CMake define keys; None without reference keys.
//! - `dep_precision`, `key_precision`: the mirror images over the generated side.
//! - `fidelity`: package-level recall and precision of link/run dependencies,
//!   test-only dependencies apart, and variant recall (see `fidelity.rs`).
//!
//! The inputs are plain data; callers convert their recipe model into
//! [`ScoreRecipe`], listing only the directives written in the recipe itself.

mod deps;
mod fidelity;
mod inherited;
mod keys;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use fidelity::Fidelity;
pub use inherited::{inherited_dependencies, known_base_classes, SpackRelease};

/// One `depends_on` (or `extends`) directive as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreDep {
    /// The first argument, e.g. `cmake@3.5:`.
    pub spec: String,
    /// The full condition (nested `with when()` blocks joined by a space),
    /// or None when unconditional.
    pub when: Option<String>,
    /// `type=` as written; empty means not given, which Spack reads as
    /// build+link (`extends` callers should pass build+run).
    pub types: Vec<String>,
}

/// What the scorer needs from one recipe.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreRecipe {
    /// Base classes of the package class as written, e.g. `CMakePackage`.
    /// Like SpackIt, dotted names (`builtin.CMakePackage`) are not resolved.
    pub bases: Vec<String>,
    pub dependencies: Vec<ScoreDep>,
    /// CMake define keys as written (`FXDIV_BUILD_TESTS`).
    pub define_keys: Vec<String>,
    /// Names of the variants the recipe declares.
    #[serde(default)]
    pub variants: Vec<String>,
    /// The versions the recipe declares (`version("1.2.0", …)`).
    #[serde(default)]
    pub versions: Vec<String>,
    /// Each variant's default as Spack reads it (`True`, `False`, `Release`,
    /// `shared,static`), where the recipe writes a literal: what a plain
    /// `spack install` of the package gets.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variant_defaults: BTreeMap<String, String>,
}

impl ScoreRecipe {
    /// A parsed recipe's own directives; `extends(x)` counts as a
    /// build+run dependency on x.
    pub fn from_recipe(recipe: &crate::recipe::ParsedRecipe) -> Self {
        let deps = recipe.dependencies.iter().map(|d| ScoreDep {
            spec: d.spec.clone(),
            when: d.when.clone(),
            types: d.types.clone(),
        });
        let extends = recipe.extends.iter().map(|e| ScoreDep {
            spec: e.spec.clone(),
            when: e.when.clone(),
            types: vec!["build".to_string(), "run".to_string()],
        });
        ScoreRecipe {
            bases: recipe.bases.clone(),
            dependencies: deps.chain(extends).collect(),
            define_keys: recipe
                .define_key_names()
                .into_iter()
                .map(str::to_string)
                .collect(),
            variants: recipe.variants.iter().map(|v| v.name.clone()).collect(),
            versions: recipe.versions.iter().map(|v| v.version.clone()).collect(),
            variant_defaults: recipe
                .variants
                .iter()
                .filter_map(|v| {
                    let default = match v.default.as_ref()? {
                        crate::recipe::Value::Bool(b) => {
                            if *b { "True" } else { "False" }.to_string()
                        }
                        crate::recipe::Value::Str(s) => s.clone(),
                        crate::recipe::Value::Int(i) => i.to_string(),
                        _ => return None,
                    };
                    Some((v.name.clone(), default))
                })
                .collect(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreOptions {
    /// Which release's base-class table removes inherited dependencies.
    pub release: SpackRelease,
}

/// How one reference dependency was matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DepMatch {
    pub reference: String,
    /// The best same-name generated dependency (textual score).
    pub generated: String,
    /// SpackIt's M for this pair.
    pub score: f64,
    /// M with semantic spec and condition terms.
    pub semantic_score: f64,
}

/// Dependency details for humans, each entry rendered as a directive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DepReport {
    pub matched: Vec<DepMatch>,
    /// Reference dependencies with no same-name generated dependency.
    pub missing: Vec<String>,
    /// Generated dependencies with no same-name reference dependency.
    pub extra: Vec<String>,
    /// Directives dropped on either side as exact copies of inherited ones.
    pub inherited_reference: Vec<String>,
    pub inherited_generated: Vec<String>,
}

/// Define-key details, lower-cased and sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyReport {
    pub matched: Vec<String>,
    pub missing: Vec<String>,
    pub extra: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// SpackIt S_d (always set; 0.0 when the reference has no own deps).
    pub s_d: Option<f64>,
    /// Semantic S_d; None when the reference has no own deps.
    pub s_d_semantic: Option<f64>,
    /// SpackIt S_v; None when the reference has no define keys.
    pub s_v: Option<f64>,
    /// Mirror of S_d over generated deps; None when there are none.
    pub dep_precision: Option<f64>,
    /// Shared keys over generated keys; None when there are none.
    pub key_precision: Option<f64>,
    /// SpackIt's `variants_extras`: generated keys the reference lacks.
    pub key_extras: usize,
    pub deps: DepReport,
    pub keys: KeyReport,
    pub fidelity: Fidelity,
}

/// Scores `generated` against the human `reference`.
pub fn score(reference: &ScoreRecipe, generated: &ScoreRecipe, options: ScoreOptions) -> Scores {
    let dep = deps::score_dependencies(reference, generated, options.release);
    let key = keys::score_keys(&reference.define_keys, &generated.define_keys);
    Scores {
        s_d: Some(dep.recall),
        s_d_semantic: dep.semantic_recall,
        s_v: key.recall,
        dep_precision: dep.precision,
        key_precision: key.precision,
        key_extras: key.report.extra.len(),
        deps: dep.report,
        keys: key.report,
        fidelity: fidelity::fidelity(reference, generated, options.release),
    }
}
