//! Which Spack generation an existing recipe was written for, so that
//! `check` and `score` judge a 0.23 recipe as 0.23 without being told.
//! The repository's `repo.yaml` decides where there is one (package
//! API v2 and later is Spack 1.x); a lone file is judged by its imports.

use std::path::Path;

use crate::recipe::{ParsedRecipe, SpackGeneration};
use crate::target::TargetSpack;

/// A generation and what it was read from, for the note the user sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inferred {
    pub target: TargetSpack,
    pub from: &'static str,
}

/// The generation of the recipe at `path`, or `None` when neither its
/// repository nor its imports tell.
pub fn infer_generation(path: &Path, recipe: &ParsedRecipe) -> Option<Inferred> {
    if let Some(target) = repository_generation(path) {
        return Some(Inferred {
            target,
            from: "its repository's repo.yaml",
        });
    }
    match recipe.generation {
        SpackGeneration::V1 => Some(Inferred {
            target: TargetSpack::V1,
            from: "its spack_repo imports",
        }),
        // The star import alone is valid in both; a package class whose
        // build-system base comes from it is a 0.x recipe (1.x imports it).
        SpackGeneration::V0 if !recipe.bases.is_empty() => Some(Inferred {
            target: TargetSpack::V0_23,
            from: "its build-system class coming from `spack.package`",
        }),
        _ => None,
    }
}

/// `<repo>/packages/<name>/package.py` → the `api:` of `<repo>/repo.yaml`:
/// none or v1 is Spack 0.x, v2 and later Spack 1.x.
fn repository_generation(path: &Path) -> Option<TargetSpack> {
    let packages = path.parent()?.parent()?;
    if packages.file_name()? != "packages" {
        return None;
    }
    let text = std::fs::read_to_string(packages.parent()?.join("repo.yaml")).ok()?;
    let api_major = text.lines().find_map(|line| {
        let value = line.trim().strip_prefix("api:")?.trim();
        let value = value
            .trim_matches(|c| c == '"' || c == '\'')
            .trim_start_matches('v');
        value.split('.').next()?.parse::<u32>().ok()
    });
    Some(match api_major {
        Some(major) if major >= 2 => TargetSpack::V1,
        _ => TargetSpack::V0_23,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::parse_recipe;

    const STAR_CMAKE: &str = "from spack.package import *\n\nclass Foo(CMakePackage):\n    pass\n";
    const V1_CMAKE: &str = "from spack_repo.builtin.build_systems.cmake import CMakePackage\n\
                            from spack.package import *\n\nclass Foo(CMakePackage):\n    pass\n";

    fn repo(dir: &Path, yaml: &str, source: &str) -> std::path::PathBuf {
        let pkg = dir.join("packages/foo");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(dir.join("repo.yaml"), yaml).unwrap();
        std::fs::write(pkg.join("package.py"), source).unwrap();
        pkg.join("package.py")
    }

    fn infer(path: &Path) -> Option<Inferred> {
        let source = std::fs::read_to_string(path).unwrap();
        infer_generation(path, &parse_recipe(&source, &path.display().to_string()))
    }

    #[test]
    fn the_repository_decides_where_there_is_one() {
        let tmp = tempfile::tempdir().unwrap();
        let old = repo(
            &tmp.path().join("old"),
            "repo:\n  namespace: builtin\n",
            V1_CMAKE,
        );
        assert_eq!(infer(&old).unwrap().target, TargetSpack::V0_23);
        let new = repo(
            &tmp.path().join("new"),
            "repo:\n  namespace: builtin\n  api: v2.2\n",
            STAR_CMAKE,
        );
        assert_eq!(infer(&new).unwrap().target, TargetSpack::V1);
    }

    #[test]
    fn a_lone_file_is_judged_by_its_imports() {
        let tmp = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = tmp.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let star = write("a.py", STAR_CMAKE);
        assert_eq!(infer(&star).unwrap().target, TargetSpack::V0_23);
        let v1 = write("b.py", V1_CMAKE);
        assert_eq!(infer(&v1).unwrap().target, TargetSpack::V1);
        assert_eq!(infer(&write("c.py", "x = 1\n")), None);
    }
}
