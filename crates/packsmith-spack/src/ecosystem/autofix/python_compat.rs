//! A Python build script that uses what Python itself has since removed:
//! `open(…, "U")` (universal newlines, gone in Python 3.11) raises
//! `ValueError: invalid mode: 'U'` before the backend reads any metadata.
//! Universal newlines are Python 3's default, so `patch()` drops the `U`
//! (`"U"` becomes `"r"`, `"rbU"` `"rb"`) in the file the traceback names.

use packsmith_spack_knowledge::edit::{apply_edits, EditOp};

/// Where Spack's stage keeps the source: traceback paths below it are the
/// project's files.
const SOURCE_DIR: &str = "/spack-src/";

/// The modes Python 3.11 refuses, as quoted string literals.
const REMOVED_MODES: &[&str] = &["U", "rU", "Ur", "rbU"];

/// The recipe with a `filter_file` per removed mode the failing line uses,
/// when the excerpt is Python's refusal of one; the reason for the report.
pub(super) fn drop_removed_open_modes(text: &str, excerpt: &str) -> Option<(String, String)> {
    if !excerpt.contains("ValueError: invalid mode: '") {
        return None;
    }
    let lines: Vec<&str> = excerpt.lines().collect();
    // The traceback's last frame in the project, and the code line after it.
    let (index, file) = lines.iter().enumerate().rev().find_map(|(i, l)| {
        let path = l.trim().strip_prefix("File \"")?.split('"').next()?;
        let rel = path.split_once(SOURCE_DIR)?.1;
        (!rel.contains("..")).then(|| (i, rel.to_string()))
    })?;
    let code = lines.get(index + 1)?;
    let edits: Vec<EditOp> = REMOVED_MODES
        .iter()
        .flat_map(|mode| ['"', '\''].map(|q| (*mode, q)))
        .filter(|(mode, q)| code.contains(&format!("{q}{mode}{q})")))
        .map(|(mode, q)| {
            // The mode less `U`: `rbU` stays binary.
            let kept = match mode.replace('U', "") {
                k if k.is_empty() => "r".to_string(),
                k => k,
            };
            EditOp::FilterFile {
                file: file.clone(),
                regex: format!("{q}{mode}{q})"),
                repl: format!("{q}{kept}{q})"),
                literal: true,
            }
        })
        .collect();
    if edits.is_empty() {
        return None;
    }
    let out = apply_edits(text, &edits).ok()?;
    let why = format!(
        "{file} opens a file with a mode Python 3.11 removed (universal newlines, `U`); \
         patch() drops the `U`, which changes nothing in Python 3"
    );
    Some((out, why))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = "class PyParameterized(PythonPackage):\n    \"\"\"Parameterized testing.\"\"\"\n\n    version(\"0.7.1\", sha256=\"0000\")\n\n    depends_on(\"py-setuptools\", type=\"build\")\n";

    fn excerpt(code: &str) -> String {
        format!(
            "ValueError: invalid mode: 'U'\nFile \"/root/stage/spack-stage-py-parameterized-0.7.1-abc/spack-src/setup.py\", line 11, in <module>\n      {code}\n  ValueError: invalid mode: 'U'\n"
        )
    }

    #[test]
    fn the_removed_mode_is_rewritten_in_the_file_the_traceback_names() {
        let (out, why) = drop_removed_open_modes(
            RECIPE,
            &excerpt("long_description = open(\"README.rst\", \"U\").read()"),
        )
        .unwrap();
        assert!(
            out.ends_with("    def patch(self):\n        filter_file('\"U\")', '\"r\")', \"setup.py\", string=True)\n"),
            "{out}"
        );
        assert!(why.contains("setup.py"), "{why}");
        let single =
            drop_removed_open_modes(RECIPE, &excerpt("text = open('README', 'rU').read()"))
                .unwrap()
                .0;
        assert!(
            single.contains("filter_file(\"'rU')\", \"'r')\", \"setup.py\", string=True)"),
            "{single}"
        );
        // A binary read stays binary.
        let binary = drop_removed_open_modes(RECIPE, &excerpt("data = open(path, \"rbU\").read()"))
            .unwrap()
            .0;
        assert!(
            binary.contains("filter_file('\"rbU\")', '\"rb\")', \"setup.py\", string=True)"),
            "{binary}"
        );
    }

    #[test]
    fn other_failures_and_unlocated_ones_are_left() {
        assert!(drop_removed_open_modes(RECIPE, "ValueError: Unknown classifier").is_none());
        // No frame in the source: nothing to edit.
        let outside = "ValueError: invalid mode: 'U'\nFile \"/usr/lib/python3/x.py\", line 2\n    open(p, \"U\")\n";
        assert!(drop_removed_open_modes(RECIPE, outside).is_none());
        // A frame whose line uses no removed mode literally.
        assert!(drop_removed_open_modes(RECIPE, &excerpt("open(name, mode)")).is_none());
    }
}
