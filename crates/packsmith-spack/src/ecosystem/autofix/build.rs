//! Rule repairs for build failures whose fix is certain: a build with no
//! install target gets the recipe's own `install()` (the draft's renderer,
//! with no target known by name); a configure that tried to download gets
//! FetchContent's offline switches and a dependency on the Spack package
//! for what it fetched; an install rule whose `mkdir` fails on the prefix
//! Spack has already made gets `mkdir -p` through `filter_file` in `edit()`.

use packsmith_spack_draft::brief::InstallPlan;
use packsmith_spack_draft::draft::render_install;
use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::mapping::{map_name, Known, MappingKind, NameSource, SpackNames};
use packsmith_spack_knowledge::recipe::{parse_recipe, ParsedRecipe};

use crate::ecosystem::RECIPE_FILE;

/// The two generic FetchContent switches: the CMake variable and its
/// value.
const DISCONNECTED: [(&str, Setting); 2] = [
    ("FETCHCONTENT_FULLY_DISCONNECTED", Setting::On),
    (
        "FETCHCONTENT_TRY_FIND_PACKAGE_MODE",
        Setting::Text("ALWAYS"),
    ),
];

/// The value of a CMake define a rule sets.
#[derive(Clone, Copy)]
enum Setting {
    On,
    Text(&'static str),
}

impl Setting {
    /// As [`EditOp::AddCmakeDefine`] takes it.
    fn json(self) -> serde_json::Value {
        match self {
            Self::On => serde_json::Value::Bool(true),
            Self::Text(t) => serde_json::Value::String(t.into()),
        }
    }

    /// As Python writes it.
    fn python(self) -> String {
        match self {
            Self::On => "True".into(),
            Self::Text(t) => format!("\"{t}\""),
        }
    }
}

/// Whether the package class derives from one of `bases` (as written, a
/// dotted `cmake.CMakePackage` included).
pub(super) fn base_is(recipe: &ParsedRecipe, bases: &[&str]) -> bool {
    recipe
        .bases
        .iter()
        .any(|b| bases.iter().any(|want| b.ends_with(want)))
}

/// No install target: the recipe installs what the build made.
pub fn add_install_method(text: &str) -> Option<(String, String)> {
    let recipe = parse_recipe(text, RECIPE_FILE);
    if recipe.has_method("install") || !base_is(&recipe, &["CMakePackage", "MakefilePackage"]) {
        return None;
    }
    let plan = InstallPlan {
        why: "make install has no install target".into(),
        ..InstallPlan::default()
    };
    let edit = EditOp::AddMethod {
        text: render_install(&plan).join("\n"),
    };
    Some((
        apply_edits(text, &[edit]).ok()?,
        "the build has no install target: added an install() that copies the executables, \
         libraries and headers it made"
            .into(),
    ))
}

/// A parallel build that linked before it made its own library:
/// `parallel = False` before the first `version(` of the class (refused
/// when the class sets `parallel` already).
pub fn build_serially(text: &str) -> Option<(String, String)> {
    let edit = EditOp::SetAttribute {
        name: "parallel".into(),
        value: serde_json::Value::Bool(false),
    };
    Some((
        apply_edits(text, &[edit]).ok()?,
        "a parallel make used what the build makes before it was made: parallel = False".into(),
    ))
}

/// The Spack name for what a download step fetched, when one is known
/// (without a knowledge base: the curated table's only, a rule must be sure).
fn spack_name(name: &str, kb: Option<&dyn SpackNames>) -> Option<String> {
    let m = match kb {
        Some(kb) => map_name(name, NameSource::Cmake, kb),
        None => map_name(
            name,
            NameSource::Cmake,
            &packsmith_spack_knowledge::mapping::NoKnowledge,
        ),
    };
    if !matches!(
        m.kind,
        MappingKind::Package | MappingKind::Virtual | MappingKind::BuildTool
    ) {
        return None;
    }
    let spack = m.spack?;
    let known = match kb {
        Some(kb) if kb.knows_names() => kb.lookup(&spack) != Known::Unknown,
        _ => m.confidence >= 0.9,
    };
    known.then_some(spack)
}

/// The edits that put the FetchContent switches into `cmake_args`: each
/// added to the list it returns, or a new method with them all; `None`
/// when the recipe's `cmake_args` is a builder's (left to the model).
fn define_edits(recipe: &ParsedRecipe, missing: &[(&str, Setting)]) -> Option<Vec<EditOp>> {
    if missing.is_empty() {
        return Some(Vec::new());
    }
    let cmake_args: Vec<_> = recipe
        .methods
        .iter()
        .filter(|m| m.name == "cmake_args")
        .collect();
    if cmake_args.is_empty() {
        let mut method = vec![
            "    def cmake_args(self):".to_string(),
            "        return [".into(),
        ];
        method.extend(
            missing
                .iter()
                .map(|(key, v)| format!("            self.define(\"{key}\", {}),", v.python())),
        );
        method.push("        ]".into());
        return Some(vec![EditOp::AddMethod {
            text: method.join("\n"),
        }]);
    }
    if cmake_args
        .iter()
        .any(|m| recipe.class_name.as_deref() != Some(m.class.as_str()))
    {
        return None;
    }
    Some(
        missing
            .iter()
            .map(|(key, v)| EditOp::AddCmakeDefine {
                name: key.to_string(),
                value: v.json(),
            })
            .collect(),
    )
}

/// A configure-time download failed: run FetchContent disconnected,
/// finding installed packages first, and depend on what it fetched.
pub fn disconnect_fetch_content(
    text: &str,
    fetched: &[String],
    kb: Option<&dyn SpackNames>,
) -> Option<(String, String)> {
    let recipe = parse_recipe(text, RECIPE_FILE);
    if !base_is(&recipe, &["CMakePackage"]) {
        return None;
    }
    let mut new_deps: Vec<String> = Vec::new();
    for n in fetched {
        if let Some(s) = spack_name(n, kb) {
            let declared = recipe.dependencies.iter().any(|d| d.name == s);
            if !declared && !new_deps.contains(&s) {
                new_deps.push(s);
            }
        }
    }
    let set = recipe.define_key_names();
    let missing: Vec<(&str, Setting)> = DISCONNECTED
        .iter()
        .filter(|(key, _)| !set.contains(key))
        .copied()
        .collect();
    if new_deps.is_empty() && missing.is_empty() {
        return None;
    }
    let mut edits = define_edits(&recipe, &missing)?;
    edits.extend(new_deps.iter().map(|n| EditOp::AddDependency {
        spec: n.clone(),
        when: None,
        types: Vec::new(),
    }));
    let out = apply_edits(text, &edits).ok()?;
    let mut what = Vec::new();
    if !missing.is_empty() {
        what.push(
            "FetchContent now runs disconnected and tries installed packages first".to_string(),
        );
    }
    if !new_deps.is_empty() {
        what.push(format!("depends on {}", new_deps.join(", ")));
    }
    Some((
        out,
        format!(
            "the configure tried to download {}: {}",
            fetched.join(", "),
            what.join("; ")
        ),
    ))
}

/// The regex (Python's, as `filter_file` reads it) of a `mkdir` of a
/// make variable without `-p`, and its replacement.
const MKDIR_OF_A_VARIABLE: (&str, &str) = (r"\bmkdir\s+\$", "mkdir -p $");

/// The makefile a failed `make` names (`make: *** [Makefile:69: install]
/// Error 1`), relative to the build directory.
fn failing_makefile(log: &str) -> Option<&str> {
    log.lines().find_map(|l| {
        let rest = &l[l.find("*** [")? + 5..];
        let (file, _) = rest.split_once(':')?;
        (!file.is_empty() && !file.starts_with('/') && !file.contains(' ')).then_some(file)
    })
}

/// An install rule that makes its directories with a plain `mkdir` fails
/// once Spack has made the prefix (`mkdir: cannot create directory …:
/// File exists`): its makefile is filtered to `mkdir -p` in `edit()`.
pub fn create_install_directories(text: &str, log: &str) -> Option<(String, String)> {
    if !(log.contains("mkdir: cannot create directory") && log.contains("File exists")) {
        return None;
    }
    let makefile = base_is(&parse_recipe(text, RECIPE_FILE), &["MakefilePackage"]);
    if !makefile || text.contains(MKDIR_OF_A_VARIABLE.1) {
        return None;
    }
    let file = failing_makefile(log).unwrap_or("Makefile");
    let edit = EditOp::FilterFile {
        file: file.to_string(),
        regex: MKDIR_OF_A_VARIABLE.0.to_string(),
        repl: MKDIR_OF_A_VARIABLE.1.to_string(),
        literal: false,
    };
    let fixed = apply_edits(text, &[edit]).ok()?;
    Some((
        fixed,
        format!(
            "the install rule's mkdir fails on the prefix Spack already made: {file}'s mkdir \
             of a make variable becomes mkdir -p (filter_file in edit())"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_spack_knowledge::kb::NameIndex;

    const DRAFT: &str = r#"from spack.package import *


class Demo(CMakePackage):
    """Demo."""

    version("1.0", sha256="00")

    depends_on("cmake@3.14:", type="build")

    def cmake_args(self):
        args = [
            self.define("DEMO_X", True),
        ]
        return args
"#;

    fn kb() -> NameIndex {
        NameIndex {
            packages: ["fmt", "cmake"].iter().map(|s| s.to_string()).collect(),
            virtuals: Default::default(),
            ..Default::default()
        }
    }

    #[test]
    fn an_install_method_is_appended_once() {
        let (out, why) = add_install_method(DRAFT).unwrap();
        assert!(
            out.contains("\n    def install(self, spec, prefix):\n"),
            "{out}"
        );
        assert!(out.contains("install(path, prefix.bin)"), "{out}");
        assert!(out.ends_with('\n'));
        assert!(why.contains("install()"));
        assert!(
            parse_recipe(&out, RECIPE_FILE).syntax_errors.is_empty(),
            "{out}"
        );
        assert!(add_install_method(&out).is_none());
        // Not for a build system with an install step of its own.
        let autotools = DRAFT.replace("CMakePackage", "AutotoolsPackage");
        assert!(add_install_method(&autotools).is_none());
    }

    /// The method goes at the end of the package class, whatever follows
    /// it in the file; `parallel = False` before the versions, once.
    #[test]
    fn edits_land_in_the_class() {
        let text = format!("{DRAFT}\n\ndef helper():\n    return 1\n");
        let (out, _) = add_install_method(&text).unwrap();
        let install = out.find("    def install(self, spec, prefix):").unwrap();
        assert!(install < out.find("def helper():").unwrap(), "{out}");
        assert!(
            parse_recipe(&out, RECIPE_FILE).syntax_errors.is_empty(),
            "{out}"
        );
        let (out, _) = build_serially(DRAFT).unwrap();
        assert!(
            out.contains("    \"\"\"Demo.\"\"\"\n\n    parallel = False\n\n    version(\"1.0\""),
            "{out}"
        );
        assert!(build_serially(&out).is_none());
    }

    #[test]
    fn a_download_adds_the_switches_and_the_dependency() {
        let kb = kb();
        let (out, why) =
            disconnect_fetch_content(DRAFT, &["fmt".into(), "nosuch".into()], Some(&kb)).unwrap();
        assert!(
            out.contains(
                "    depends_on(\"cmake@3.14:\", type=\"build\")\n    depends_on(\"fmt\")\n"
            ),
            "{out}"
        );
        assert!(!out.contains("nosuch"), "{out}");
        assert!(
            out.contains(
                "        args.append(self.define(\"FETCHCONTENT_FULLY_DISCONNECTED\", True))\n        args.append(self.define(\"FETCHCONTENT_TRY_FIND_PACKAGE_MODE\", \"ALWAYS\"))\n        return args"
            ),
            "{out}"
        );
        assert!(why.contains("fmt"), "{why}");
        assert!(
            parse_recipe(&out, RECIPE_FILE).syntax_errors.is_empty(),
            "{out}"
        );
        // Applied again: nothing left to add.
        assert!(disconnect_fetch_content(&out, &["fmt".into()], Some(&kb)).is_none());
    }

    #[test]
    fn without_cmake_args_a_method_is_added() {
        let text = DRAFT
            .split("    def cmake_args")
            .next()
            .unwrap()
            .to_string();
        let (out, _) = disconnect_fetch_content(&text, &[], None).unwrap();
        assert!(
            out.contains("    def cmake_args(self):\n        return [\n"),
            "{out}"
        );
        assert!(
            parse_recipe(&out, RECIPE_FILE).syntax_errors.is_empty(),
            "{out}"
        );
    }
}
