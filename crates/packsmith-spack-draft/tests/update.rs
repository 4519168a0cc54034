//! `update/`: the facts of the two-version CMake fixture diffed, and the
//! maintainer's v1 recipe edited for v2 (exact lines; every line the
//! edits do not land on byte-identical).

use std::path::{Path, PathBuf};

use packsmith_core::RepoFacts;
use packsmith_spack_draft::brief::{build_brief_with, BriefOverrides, SpackBrief};
use packsmith_spack_draft::update::{
    apply_plan, diff_facts, plan_update, Change, PlanInputs, Side, Topic,
};
use packsmith_spack_knowledge::mapping::NoKnowledge;
use packsmith_spack_knowledge::target::TargetSpack;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/update/tally")
}

fn side(version: &str) -> (RepoFacts, SpackBrief) {
    facts_and_brief(&fixture().join(version), "tally", version)
}

fn facts_and_brief(root: &Path, name: &str, version: &str) -> (RepoFacts, SpackBrief) {
    let facts = packsmith_analyze::analyze_dir(
        root,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: root.display().to_string(),
            release_tag: None,
        },
    )
    .unwrap();
    let brief = build_brief_with(
        &facts,
        TargetSpack::V0_23,
        &NoKnowledge,
        &BriefOverrides {
            name: Some(name.into()),
            version: Some(version.into()),
        },
    );
    (facts, brief)
}

fn diff_of(old: &str, new: &str) -> (packsmith_spack_draft::update::FactsDiff, SpackBrief) {
    let (old_facts, old_brief) = side(old);
    let (new_facts, new_brief) = side(new);
    let diff = diff_facts(
        Side {
            facts: &old_facts,
            brief: &old_brief,
        },
        Side {
            facts: &new_facts,
            brief: &new_brief,
        },
    );
    (diff, new_brief)
}

/// `file:line` of a change's side.
fn at(fact: Option<&packsmith_spack_draft::update::Fact>) -> String {
    let e = fact.unwrap().evidence.as_ref().unwrap();
    format!("{}:{} {}", e.file, e.line, fact.unwrap().value)
}

#[test]
fn the_diff_names_each_change_with_evidence_from_both_sides() {
    let (diff, _) = diff_of("1.0.0", "2.0.0");
    let seen: Vec<(Topic, Change, &str)> = diff
        .changes
        .iter()
        .map(|c| (c.topic, c.change, c.name.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (Topic::Dependency, Change::Added, "bzip2"),
            (Topic::Dependency, Change::Added, "zlib-api"),
            (Topic::Option, Change::Added, "zlib"),
            (Topic::CmakeMinimum, Change::Changed, "cmake"),
        ]
    );
    let c = &diff.changes;
    assert_eq!(at(c[0].new.as_ref()), "CMakeLists.txt:6 bzip2");
    assert!(c[0].old.is_none());
    // The dependency behind the option names the option's variant.
    assert_eq!(
        at(c[1].new.as_ref()),
        "CMakeLists.txt:13 zlib-api when +zlib"
    );
    assert_eq!(
        at(c[2].new.as_ref()),
        "CMakeLists.txt:4 WITH_ZLIB (default False)"
    );
    // Both sides of a change carry their evidence.
    assert_eq!(at(c[3].old.as_ref()), "CMakeLists.txt:1 3.10");
    assert_eq!(at(c[3].new.as_ref()), "CMakeLists.txt:1 3.16");

    // Backwards, the same changes are drops.
    let (back, _) = diff_of("2.0.0", "1.0.0");
    let dropped: Vec<&str> = back
        .changes
        .iter()
        .filter(|c| c.change == Change::Dropped)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(dropped, ["bzip2", "zlib-api", "zlib"]);
    assert_eq!(at(back.changes[0].old.as_ref()), "CMakeLists.txt:6 bzip2");
}

fn recipe_v1() -> String {
    std::fs::read_to_string(fixture().join("package.py")).unwrap()
}

/// Every line of `before` is in `after`, byte for byte and in order, and
/// what `after` adds is exactly `added`.
fn assert_only_added(before: &str, after: &str, added: &[&str]) {
    let mut extra = Vec::new();
    let mut old = before.split_inclusive('\n').peekable();
    for line in after.split_inclusive('\n') {
        if old.peek() == Some(&line) {
            old.next();
        } else {
            extra.push(line.trim_end_matches('\n'));
        }
    }
    assert_eq!(
        old.next(),
        None,
        "a line of the recipe was changed:\n{after}"
    );
    assert_eq!(extra, added, "{after}");
}

const SUM: &str = "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef";

#[test]
fn the_v1_recipe_gets_the_new_version_variant_and_dependencies_under_when() {
    let (diff, new_brief) = diff_of("1.0.0", "2.0.0");
    let before = recipe_v1();
    let plan = plan_update(&PlanInputs {
        recipe: &before,
        old_version: "1.0.0",
        new_version: "2.0.0",
        sha256: Some(SUM),
        diff: &diff,
        new: &new_brief,
        stale_patches: &[],
    });
    let updated = apply_plan(&before, &plan);
    assert!(updated.refused.is_empty(), "{:?}", updated.refused);
    assert!(plan.notes.is_empty(), "{:?}", plan.notes);
    let added = [
        "    version(\"2.0.0\", sha256=\"5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef\")",
        "    variant(",
        "        \"zlib\",",
        "        default=False,",
        "        description=\"Count the bytes of gzip-compressed input too\",",
        "        when=\"@2.0.0:\",",
        "    )",
        // (the blank line between the variant and the dependencies)
        "",
        "    depends_on(\"cmake@3.16:\", type=\"build\", when=\"@2.0.0:\")",
        "    depends_on(\"bzip2\", when=\"@2.0.0:\")",
        "    depends_on(\"zlib-api\", when=\"@2.0.0: +zlib\")",
        "        args.append(self.define_from_variant(\"WITH_ZLIB\", \"zlib\"))",
    ];
    assert_only_added(&before, &updated.recipe, &added);
    // In Spack's order: newest version first, and each addition in its
    // block (the new CMake constraint under the maintainer's own).
    let expected_block = "    version(\"2.0.0\", sha256=\"5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef\")
    version(\"1.0.0\", sha256=\"0000000000000000000000000000000000000000000000000000000000000001\")
    version(\"0.9.0\", sha256=\"0000000000000000000000000000000000000000000000000000000000000002\")

    variant(
        \"zlib\",
        default=False,
        description=\"Count the bytes of gzip-compressed input too\",
        when=\"@2.0.0:\",
    )

    depends_on(\"cmake@3.10:\", type=\"build\")  # maintainer's note: kept as written
    depends_on(\"cmake@3.16:\", type=\"build\", when=\"@2.0.0:\")
    depends_on(\"bzip2\", when=\"@2.0.0:\")
    depends_on(\"zlib-api\", when=\"@2.0.0: +zlib\")

    def cmake_args(self):
        args = [
            self.define(\"BUILD_TESTING\", self.run_tests),
        ]
        args.append(self.define_from_variant(\"WITH_ZLIB\", \"zlib\"))
        return args
";
    assert!(
        updated.recipe.ends_with(expected_block),
        "{}",
        updated.recipe
    );
    // The result is still a recipe the reader understands.
    let parsed = packsmith_spack_knowledge::recipe::parse_recipe(&updated.recipe, "package.py");
    assert!(parsed.syntax_errors.is_empty());
    assert_eq!(parsed.versions[0].version, "2.0.0");
}

#[test]
fn without_a_checksum_the_version_says_fixme() {
    let (diff, new_brief) = diff_of("1.0.0", "2.0.0");
    let before = recipe_v1();
    let plan = plan_update(&PlanInputs {
        recipe: &before,
        old_version: "1.0.0",
        new_version: "2.0.0",
        sha256: None,
        diff: &diff,
        new: &new_brief,
        stale_patches: &[],
    });
    let updated = apply_plan(&before, &plan);
    assert!(updated
        .recipe
        .contains("    version(\"2.0.0\")  # FIXME: checksum\n    version(\"1.0.0\", "));
}

#[test]
fn what_upstream_dropped_is_closed_at_the_old_version() {
    let (diff, new_brief) = diff_of("2.0.0", "1.0.0");
    let before = "from spack.package import *


class Tally(CMakePackage):
    \"\"\"Counts bytes.\"\"\"

    version(\"2.0.0\", sha256=\"5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef\")

    variant(\"zlib\", default=False, description=\"gzip input\")

    depends_on(\"bzip2\")
    depends_on(\"zlib-api\", when=\"+zlib\")
";
    // Read as an update from 2.0.0 to a "3.0.0" that is v1's tree.
    let plan = plan_update(&PlanInputs {
        recipe: before,
        old_version: "2.0.0",
        new_version: "3.0.0",
        sha256: Some(SUM),
        diff: &diff,
        new: &new_brief,
        stale_patches: &[],
    });
    let updated = apply_plan(before, &plan);
    assert!(updated.refused.is_empty(), "{:?}", updated.refused);
    for line in [
        "    variant(\"zlib\", default=False, description=\"gzip input\", when=\"@:2.0.0\")\n",
        "    depends_on(\"bzip2\", when=\"@:2.0.0\")\n",
        "    depends_on(\"zlib-api\", when=\"@:2.0.0 +zlib\")\n",
    ] {
        assert!(updated.recipe.contains(line), "{line}{}", updated.recipe);
    }
    // A lower CMake minimum changes nothing, and says so.
    assert!(
        plan.notes.iter().any(|n| n.contains("went down to 3.10")),
        "{:?}",
        plan.notes
    );
}

/// The facts and brief of a tree given as (path, text) pairs.
fn side_of(files: &[(&str, &str)], name: &str, version: &str) -> (RepoFacts, SpackBrief) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    facts_and_brief(dir.path(), name, version)
}

fn updated(
    recipe: &str,
    (old, new): ((RepoFacts, SpackBrief), (RepoFacts, SpackBrief)),
    versions: (&str, &str),
) -> (String, Vec<String>) {
    let diff = diff_facts(
        Side {
            facts: &old.0,
            brief: &old.1,
        },
        Side {
            facts: &new.0,
            brief: &new.1,
        },
    );
    let plan = plan_update(&PlanInputs {
        recipe,
        old_version: versions.0,
        new_version: versions.1,
        sha256: Some(SUM),
        diff: &diff,
        new: &new.1,
        stale_patches: &[],
    });
    (apply_plan(recipe, &plan).recipe, plan.notes)
}

fn pyproject(requires_python: &str, propcache: &str) -> String {
    format!(
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n\n\
         [project]\nname = \"yarl\"\nversion = \"1\"\nrequires-python = \"{requires_python}\"\n\
         dependencies = [\"idna>=2.0\", \"propcache{propcache}\"]\n"
    )
}

#[test]
fn raised_lowest_versions_are_declared_from_the_new_version_on() {
    let old = pyproject(">=3.8", ">=0.2.0");
    let new = pyproject(">=3.9", ">=0.2.1");
    let recipe = "from spack.package import *\n\n\nclass PyYarl(PythonPackage):\n    \
                  \"\"\"URLs.\"\"\"\n\n    pypi = \"yarl/yarl-1.18.3.tar.gz\"\n\n    \
                  version(\"1.18.3\", sha256=\"ab\")\n\n    \
                  with default_args(type=(\"build\", \"run\")):\n        \
                  depends_on(\"python@3.8:\")\n        depends_on(\"py-idna@2.0:\")\n        \
                  depends_on(\"py-propcache@0.2:\")\n";
    let (text, _) = updated(
        recipe,
        (
            side_of(&[("pyproject.toml", &old)], "py-yarl", "1.18.3"),
            side_of(&[("pyproject.toml", &new)], "py-yarl", "1.22.0"),
        ),
        ("1.18.3", "1.22.0"),
    );
    for line in [
        "        depends_on(\"python@3.9:\", type=(\"build\", \"run\"), when=\"@1.22.0:\")\n",
        "        depends_on(\"py-propcache@0.2.1:\", type=(\"build\", \"run\"), when=\"@1.22.0:\")\n",
    ] {
        assert!(text.contains(line), "{line}{text}");
    }
    // idna's floor did not move: its line is untouched and not repeated.
    assert_eq!(text.matches("py-idna").count(), 1, "{text}");
}

#[test]
fn a_switch_no_dependency_hangs_on_and_facts_of_another_build_system_are_only_noted() {
    let old = "cmake_minimum_required(VERSION 3.10)\nproject(demo C)\nadd_library(demo demo.c)\ninstall(TARGETS demo)\n";
    let new = "cmake_minimum_required(VERSION 3.20)\nproject(demo C)\noption(DEMO_FAST \"fast\" OFF)\nadd_library(demo demo.c)\ninstall(TARGETS demo)\n";
    let configure = "AC_INIT([demo], [1])\nAC_PROG_CC\nAC_OUTPUT\n";
    let recipe = "from spack.package import *\n\n\nclass Demo(AutotoolsPackage):\n    \
                  \"\"\"Demo.\"\"\"\n\n    url = \"https://example.org/demo-1.0.tar.gz\"\n\n    \
                  version(\"1.0\", sha256=\"ab\")\n";
    let (text, notes) = updated(
        recipe,
        (
            side_of(
                &[("CMakeLists.txt", old), ("configure.ac", configure)],
                "demo",
                "1.0",
            ),
            side_of(
                &[("CMakeLists.txt", new), ("configure.ac", configure)],
                "demo",
                "2.0",
            ),
        ),
        ("1.0", "2.0"),
    );
    // Only the version line is added: the recipe builds with Autotools.
    assert_only_added(
        recipe,
        &text,
        &[&format!("    version(\"2.0\", sha256=\"{SUM}\")")],
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("read from cmake, which the recipe does not build with")),
        "{notes:?}"
    );
}

#[test]
fn a_new_switch_no_dependency_hangs_on_gets_no_variant() {
    let old = "cmake_minimum_required(VERSION 3.10)\nproject(demo C)\nadd_library(demo demo.c)\ninstall(TARGETS demo)\n";
    let new = "cmake_minimum_required(VERSION 3.10)\nproject(demo C)\noption(DEMO_FAST \"fast\" OFF)\nadd_library(demo demo.c)\ninstall(TARGETS demo)\n";
    let recipe = "from spack.package import *\n\n\nclass Demo(CMakePackage):\n    \
                  \"\"\"Demo.\"\"\"\n\n    url = \"https://example.org/demo-1.0.tar.gz\"\n\n    \
                  version(\"1.0\", sha256=\"ab\")\n";
    let (text, notes) = updated(
        recipe,
        (
            side_of(&[("CMakeLists.txt", old)], "demo", "1.0"),
            side_of(&[("CMakeLists.txt", new)], "demo", "2.0"),
        ),
        ("1.0", "2.0"),
    );
    assert!(!text.contains("variant("), "{text}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("DEMO_FAST is new in 2.0") && n.contains("no variant")),
        "{notes:?}"
    );
}

#[test]
fn a_patch_the_new_source_refuses_is_closed_at_the_old_version() {
    let (diff, new_brief) = diff_of("1.0.0", "1.0.0");
    let before = "from spack.package import *\n\n\nclass Tally(CMakePackage):\n    \
                  \"\"\"Counts bytes.\"\"\"\n\n    version(\"1.0.0\", sha256=\"ab\")\n\n    \
                  patch(\"fix-a.patch\")\n    patch(\"fix-b.patch\", when=\"@0.9: %gcc\")\n";
    let stale = [
        packsmith_spack_draft::update::StalePatch {
            source: "fix-a.patch".into(),
            line: 9,
            when: None,
            why: "1 out of 1 hunk FAILED".into(),
        },
        packsmith_spack_draft::update::StalePatch {
            source: "fix-b.patch".into(),
            line: 10,
            when: Some("@0.9: %gcc".into()),
            why: "1 out of 1 hunk FAILED".into(),
        },
    ];
    let plan = plan_update(&PlanInputs {
        recipe: before,
        old_version: "1.0.0",
        new_version: "2.0.0",
        sha256: Some(SUM),
        diff: &diff,
        new: &new_brief,
        stale_patches: &stale,
    });
    let text = apply_plan(before, &plan).recipe;
    assert!(
        text.contains("    patch(\"fix-a.patch\", when=\"@:1.0.0\")\n"),
        "{text}"
    );
    assert!(
        text.contains("    patch(\"fix-b.patch\", when=\"@0.9:1.0.0 %gcc\")\n"),
        "{text}"
    );
}
