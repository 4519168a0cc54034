//! S_d and S_v of a generated Spack recipe against the human one, in
//! process (the same conversion as `packsmith score`).

use std::path::Path;

use packsmith_spack_knowledge::recipe::read_recipe;
use packsmith_spack_knowledge::score::{score, ScoreOptions, ScoreRecipe, SpackRelease};

fn load(path: &Path) -> Result<ScoreRecipe, String> {
    let recipe = read_recipe(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !recipe.is_spack_recipe() {
        return Err(format!("{}: no package class", path.display()));
    }
    Ok(ScoreRecipe::from_recipe(&recipe))
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
