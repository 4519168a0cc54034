//! S_d, S_v and the fidelity figures of a generated Spack recipe against
//! the human one, in process (the same conversion as `packsmith score`);
//! the fidelity of a generated Nix expression to nixpkgs' own.

use std::path::{Path, PathBuf};

use packsmith_agent::report::RunReport;
use packsmith_nix::fidelity::{nix_fidelity, NixFidelity};

use crate::task::NixTask;
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

/// The recipe a pair is scored on, and which one it is: the passing
/// recipe, else the best attempt's.
pub fn scored_recipe(report: &RunReport) -> Option<(&'static str, &Path)> {
    match (&report.final_recipe, &report.best_recipe) {
        (Some(p), _) => Some(("final", Path::new(p))),
        (None, Some(p)) => Some(("best", Path::new(p))),
        (None, None) => None,
    }
}

/// nixpkgs' own expression for a task: `<dir>/<attr_path>.nix` or
/// `<dir>/<package_name>.nix` in a directory of reference files; in a
/// nixpkgs checkout, `pkgs/by-name/` for top-level packages and
/// `python-modules/` for Python package sets.
pub fn nix_reference(dir: &Path, task: &NixTask) -> Option<PathBuf> {
    let name = &task.package_name;
    let shard: String = name.to_lowercase().chars().take(2).collect();
    [
        dir.join(format!("{}.nix", task.attr_path)),
        dir.join(format!("{name}.nix")),
        dir.join("pkgs/by-name")
            .join(shard)
            .join(name)
            .join("package.nix"),
        dir.join("pkgs/development/python-modules")
            .join(name)
            .join("default.nix"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// The fidelity of `generated` to the nixpkgs expression `reference`.
pub fn nix_scores(generated: &Path, reference: &Path) -> Result<NixFidelity, String> {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    Ok(nix_fidelity(&read(reference)?, &read(generated)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::parse_tasks;

    #[test]
    fn nix_reference_by_attr_path_then_nixpkgs_layout() {
        let dir = tempfile::tempdir().unwrap();
        let line = r#"{"package_name": "Quill-py", "attr_path": "python3Packages.quill-py", "pname": "quill-py", "version": "1", "nixpkgs_base_commit": "0"}"#;
        let crate::task::Task::Nix(task) = parse_tasks(line, "t").unwrap().remove(0) else {
            panic!("not a Nix task")
        };
        assert_eq!(nix_reference(dir.path(), &task), None);
        let module = dir.path().join("pkgs/development/python-modules/Quill-py");
        std::fs::create_dir_all(&module).unwrap();
        std::fs::write(module.join("default.nix"), "{ }").unwrap();
        assert_eq!(
            nix_reference(dir.path(), &task),
            Some(module.join("default.nix"))
        );
        let by_name = dir.path().join("pkgs/by-name/qu/Quill-py");
        std::fs::create_dir_all(&by_name).unwrap();
        std::fs::write(by_name.join("package.nix"), "{ }").unwrap();
        assert_eq!(
            nix_reference(dir.path(), &task),
            Some(by_name.join("package.nix"))
        );
        let flat = dir.path().join("python3Packages.quill-py.nix");
        std::fs::write(&flat, "{ }").unwrap();
        assert_eq!(nix_reference(dir.path(), &task), Some(flat));
    }
}
