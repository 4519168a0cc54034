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
use packsmith_spack_knowledge::recipe::parse_recipe;

use super::lines::{append_method, class_runs_to_end, rejoin};
use crate::ecosystem::RECIPE_FILE;

/// The two generic FetchContent switches, as `cmake_args` entries.
const DISCONNECTED: [&str; 2] = [
    "self.define(\"FETCHCONTENT_FULLY_DISCONNECTED\", True)",
    "self.define(\"FETCHCONTENT_TRY_FIND_PACKAGE_MODE\", \"ALWAYS\")",
];

fn base_is(text: &str, bases: &[&str]) -> bool {
    text.lines()
        .filter(|l| l.starts_with("class "))
        .any(|l| bases.iter().any(|b| l.contains(b)))
}

/// No install target: the recipe installs what the build made.
pub fn add_install_method(text: &str) -> Option<(String, String)> {
    if text.contains("def install(") || !class_runs_to_end(text) {
        return None;
    }
    if !base_is(text, &["CMakePackage", "MakefilePackage"]) {
        return None;
    }
    let plan = InstallPlan {
        why: "make install has no install target".into(),
        ..InstallPlan::default()
    };
    Some((
        append_method(text, &render_install(&plan)),
        "the build has no install target: added an install() that copies the executables, \
         libraries and headers it made"
            .into(),
    ))
}

/// A parallel build that linked before it made its own library:
/// `parallel = False` before the first `version(` of the class.
pub fn build_serially(text: &str) -> Option<(String, String)> {
    if text
        .lines()
        .any(|l| l.trim_start().starts_with("parallel ="))
    {
        return None;
    }
    let mut lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("    version("))?;
    lines.insert(at, "");
    lines.insert(at, "    parallel = False");
    let out = rejoin(&lines, text);
    Some((
        out,
        "a parallel make linked before the library it builds was made: parallel = False".into(),
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

/// Adds `depends_on` lines for `names` after the last one-line
/// `depends_on` of the class (or before its first method).
fn add_dependencies(lines: &mut Vec<String>, names: &[String]) {
    if names.is_empty() {
        return;
    }
    let at = lines
        .iter()
        .rposition(|l| l.starts_with("    depends_on(") && l.trim_end().ends_with(')'))
        .map(|i| i + 1)
        .or_else(|| lines.iter().position(|l| l.starts_with("    def ")))
        .unwrap_or(lines.len());
    for (k, n) in names.iter().enumerate() {
        lines.insert(at + k, format!("    depends_on(\"{n}\")"));
    }
}

/// Puts the FetchContent switches into `cmake_args`: before its
/// `return args`, or as a new method; None when `cmake_args` has another
/// shape (left to the model).
fn add_defines(lines: &mut Vec<String>, missing: &[&str]) -> Option<()> {
    if missing.is_empty() {
        return Some(());
    }
    match lines
        .iter()
        .position(|l| l.trim() == "def cmake_args(self):")
    {
        Some(start) => {
            let end = lines[start + 1..]
                .iter()
                .position(|l| !l.trim().is_empty() && !l.starts_with("        "))
                .map_or(lines.len(), |i| start + 1 + i);
            let ret = (start + 1..end)
                .rev()
                .find(|&i| lines[i].trim() == "return args")?;
            for (k, d) in missing.iter().enumerate() {
                lines.insert(ret + k, format!("        args.append({d})"));
            }
        }
        None => {
            if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                lines.push(String::new());
            }
            lines.push("    def cmake_args(self):".into());
            lines.push("        return [".into());
            lines.extend(missing.iter().map(|d| format!("            {d},")));
            lines.push("        ]".into());
        }
    }
    Some(())
}

/// A configure-time download failed: run FetchContent disconnected,
/// finding installed packages first, and depend on what it fetched.
pub fn disconnect_fetch_content(
    text: &str,
    fetched: &[String],
    kb: Option<&dyn SpackNames>,
) -> Option<(String, String)> {
    if !base_is(text, &["CMakePackage"]) || !class_runs_to_end(text) {
        return None;
    }
    let declared: Vec<String> = parse_recipe(text, RECIPE_FILE)
        .dependencies
        .into_iter()
        .map(|d| d.name)
        .collect();
    let mut new_deps: Vec<String> = Vec::new();
    for n in fetched {
        if let Some(s) = spack_name(n, kb) {
            if !declared.contains(&s) && !new_deps.contains(&s) {
                new_deps.push(s);
            }
        }
    }
    let missing: Vec<&str> = DISCONNECTED
        .iter()
        .filter(|d| {
            let key = d.split('"').nth(1).unwrap_or(d);
            !text.contains(key)
        })
        .copied()
        .collect();
    if new_deps.is_empty() && missing.is_empty() {
        return None;
    }
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    add_defines(&mut lines, &missing)?;
    add_dependencies(&mut lines, &new_deps);
    let mut out = lines.join("\n");
    out.push('\n');
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
    if !base_is(text, &["MakefilePackage"]) || text.contains(MKDIR_OF_A_VARIABLE.1) {
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
