//! S_d and S_v of a generated Spack recipe against the human one, in
//! process (the same conversion as `packsmith score`).

use std::path::Path;

use packsmith_spack::recipe::{read_recipe, Recipe};
use packsmith_spack::score::{score, ScoreDep, ScoreOptions, ScoreRecipe, SpackRelease};

/// What the scorer needs from a parsed recipe; `extends(x)` counts as a
/// build+run dependency on x, as in `packsmith score`.
fn to_score_recipe(recipe: &Recipe) -> ScoreRecipe {
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
    }
}

fn load(path: &Path) -> Result<ScoreRecipe, String> {
    let recipe = read_recipe(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !recipe.is_spack_recipe() {
        return Err(format!("{}: no package class", path.display()));
    }
    Ok(to_score_recipe(&recipe))
}

/// (S_d, S_v) of `generated` against `reference`.
pub fn spack_scores(
    generated: &Path,
    reference: &Path,
    release: &str,
) -> Result<(Option<f64>, Option<f64>), String> {
    let release = if release == "0.23" {
        SpackRelease::V0_23
    } else {
        SpackRelease::V1
    };
    let reference = load(reference)?;
    let generated = load(generated)?;
    let s = score(&reference, &generated, ScoreOptions { release });
    Ok((s.s_d, s.s_v))
}
