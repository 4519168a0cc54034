//! A project whose own libraries leave symbols to each other (phasta's
//! `libcommon.so: undefined reference to 'itrdrv_'`, a cycle among the
//! solver's libraries): built shared, the first program's link fails; as
//! static archives, upstream's default when it never names
//! `BUILD_SHARED_LIBS`, the program's link resolves them. The draft's
//! `shared` variant then defaults off.

use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::recipe::parse_recipe;

use super::build::base_is;
use crate::ecosystem::RECIPE_FILE;

/// The recipe with `shared` defaulting off, when the link failed on a
/// shared library the build itself made (a path in the build tree) and
/// the `shared` variant drives `BUILD_SHARED_LIBS`; the reason.
pub(super) fn static_when_own_libraries_leave_symbols(
    text: &str,
    excerpt: &str,
) -> Option<(String, String)> {
    if !excerpt.lines().any(own_library_leaves_symbol) {
        return None;
    }
    let recipe = parse_recipe(text, RECIPE_FILE);
    let shared_on = recipe
        .variants
        .iter()
        .any(|v| v.name == "shared" && v.default_source.as_deref() == Some("True"));
    let drives = recipe.define_key_names().contains(&"BUILD_SHARED_LIBS");
    if !base_is(&recipe, &["CMakePackage"]) || !shared_on || !drives {
        return None;
    }
    let edit = EditOp::SetVariantDefault {
        name: "shared".into(),
        default: serde_json::Value::Bool(false),
    };
    Some((
        apply_edits(text, &[edit]).ok()?,
        "the project's own shared libraries leave symbols to each other, which only a static \
         link resolves: the shared variant now defaults off"
            .into(),
    ))
}

/// `ld: ../lib/libx.so: undefined reference to …` with a relative path:
/// a library of this build, not of the system or a dependency.
fn own_library_leaves_symbol(line: &str) -> bool {
    let Some((_, after)) = line.split_once("ld: ") else {
        return false;
    };
    let Some((path, rest)) = after.split_once(": ") else {
        return false;
    };
    let name = path.rsplit('/').next().unwrap_or(path);
    !path.starts_with('/')
        && name.starts_with("lib")
        && name.contains(".so")
        && rest.starts_with("undefined reference to")
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = "class Phasta(CMakePackage):\n    \"\"\"Solver.\"\"\"\n\n    version(\"1.0\", sha256=\"0000\")\n\n    variant(\"shared\", default=True, description=\"Build shared libraries\")\n\n    def cmake_args(self):\n        args = [self.define_from_variant(\"BUILD_SHARED_LIBS\", \"shared\")]\n        return args\n";

    #[test]
    fn own_libraries_leaving_symbols_make_the_build_static() {
        let log = "/usr/bin/ld: ../phSolver/common/libcommon.so: undefined reference to `itrdrv_'\ncollect2: error: ld returned 1 exit status\n";
        let (out, why) = static_when_own_libraries_leave_symbols(RECIPE, log).unwrap();
        assert!(
            out.contains(
                "variant(\"shared\", default=False, description=\"Build shared libraries\")"
            ),
            "{out}"
        );
        assert!(why.contains("static"), "{why}");
        // Done once: the variant is off now.
        assert!(static_when_own_libraries_leave_symbols(&out, log).is_none());
        // A system library's missing symbol is another failure.
        let system =
            "/usr/bin/ld: /usr/lib/x86_64-linux-gnu/libfoo.so: undefined reference to `bar'\n";
        assert!(static_when_own_libraries_leave_symbols(RECIPE, system).is_none());
        let object = "/usr/bin/ld: main.o: undefined reference to `bar'\n";
        assert!(static_when_own_libraries_leave_symbols(RECIPE, object).is_none());
    }
}
