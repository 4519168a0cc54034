//! The recipe's own patches tried on the new source: one that no longer
//! applies (upstream merged it, or the code moved) must be limited to the
//! old versions, or the new version's install fails at its stage.

use std::path::Path;
use std::time::Duration;

use packsmith_exec::CommandSpec;
use packsmith_spack_draft::update::StalePatch;
use packsmith_spack_knowledge::recipe::ParsedRecipe;
use packsmith_spack_knowledge::spec::Version;

/// The local patches (files beside the recipe) that hold for the new
/// version and that `patch --dry-run` refuses on the new tree.
pub fn stale_patches(
    recipe: &ParsedRecipe,
    recipe_dir: &Path,
    new_root: &Path,
    new_version: &str,
) -> Vec<StalePatch> {
    let version = Version::parse(new_version);
    recipe
        .patches
        .iter()
        .filter(|p| !p.source.contains("://"))
        .filter(|p| holds_for(p.when.as_deref(), version.as_ref()))
        .filter_map(|p| {
            let file = recipe_dir.join(&p.source);
            if !file.is_file() {
                return None;
            }
            let level = p.level.as_ref().map_or("1".to_string(), |l| l.to_text());
            refused(&file, new_root, &level).map(|why| StalePatch {
                source: p.source.clone(),
                line: p.line,
                when: p.when.clone(),
                why,
            })
        })
        .collect()
}

/// Whether a patch's `when=` can hold for the new version: its version
/// ranges (the other conditions are not decided here) contain it.
fn holds_for(when: Option<&str>, version: Option<&Version>) -> bool {
    let (Some(when), Some(version)) = (when, version) else {
        return true;
    };
    when.split_whitespace()
        .filter(|t| t.starts_with('@'))
        .all(|t| {
            packsmith_spack_knowledge::spec::parse(&format!("x{t}"))
                .ok()
                .and_then(|s| s.versions)
                .is_none_or(|c| c.contains(version))
        })
}

/// What `patch` says when it cannot apply `file` to `root`, None when it
/// applies (or `patch` cannot be run: nothing is claimed then).
fn refused(file: &Path, root: &Path, level: &str) -> Option<String> {
    let spec = CommandSpec::new("patch")
        .args(["--dry-run", "--batch", "--silent", "--force"])
        .arg(format!("-p{level}"))
        .arg("-d")
        .arg(root)
        .arg("-i")
        .arg(file)
        .timeout(Duration::from_secs(60));
    let out = packsmith_exec::run(&spec).ok()?;
    if out.success() {
        return None;
    }
    let said = format!("{}{}", out.stdout, out.stderr);
    Some(
        said.lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("patch refused it")
            .trim()
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_spack_knowledge::recipe::parse_recipe;

    #[test]
    fn a_patch_the_new_source_refuses_is_stale_and_one_that_applies_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let (pkg, tree) = (dir.path().join("pkg"), dir.path().join("src"));
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(tree.join("a.c"), "int x = 1;\n").unwrap();
        let patch =
            |from: &str, to: &str| format!("--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-{from}\n+{to}\n");
        std::fs::write(pkg.join("fits.patch"), patch("int x = 1;", "int x = 2;")).unwrap();
        std::fs::write(pkg.join("merged.patch"), patch("int x = 0;", "int x = 1;")).unwrap();
        std::fs::write(pkg.join("old.patch"), patch("int y = 0;", "int y = 1;")).unwrap();
        let recipe = parse_recipe(
            "from spack.package import *\n\nclass Demo(CMakePackage):\n    \
             version(\"1.0\", sha256=\"ab\")\n    patch(\"fits.patch\")\n    \
             patch(\"merged.patch\", when=\"@0.9:\")\n    patch(\"old.patch\", when=\"@:0.8\")\n    \
             patch(\"https://example.org/x.patch\", sha256=\"cd\")\n",
            "package.py",
        );
        let stale = stale_patches(&recipe, &pkg, &tree, "2.0");
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert_eq!(stale[0].source, "merged.patch");
        assert_eq!(stale[0].when.as_deref(), Some("@0.9:"));
        // The tree is untouched by the dry run.
        assert_eq!(
            std::fs::read_to_string(tree.join("a.c")).unwrap(),
            "int x = 1;\n"
        );
    }
}
