//! S_d, S_v and the fidelity figures of a generated Spack recipe against
//! the human one, in process (the same conversion as `packsmith score`).

use std::path::Path;

use packsmith_spack_knowledge::recipe::read_recipe;
use packsmith_spack_knowledge::score::{score, Fidelity, ScoreOptions, ScoreRecipe, SpackRelease};

fn load(path: &Path) -> Result<ScoreRecipe, String> {
    let recipe = read_recipe(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !recipe.is_spack_recipe() {
        return Err(format!("{}: no package class", path.display()));
    }
    Ok(ScoreRecipe::from_recipe(&recipe))
}

/// What a pair's journal record keeps of the comparison.
pub struct SpackScores {
    pub s_d: Option<f64>,
    pub s_v: Option<f64>,
    pub fidelity: Fidelity,
}

/// The scores of `generated` against `reference`.
pub fn spack_scores(
    generated: &Path,
    reference: &Path,
    release: &str,
) -> Result<SpackScores, String> {
    let release = if release == "0.23" {
        SpackRelease::V0_23
    } else {
        SpackRelease::V1
    };
    let reference = load(reference)?;
    let generated = load(generated)?;
    let s = score(&reference, &generated, ScoreOptions { release });
    Ok(SpackScores {
        s_d: s.s_d,
        s_v: s.s_v,
        fidelity: s.fidelity,
    })
}
