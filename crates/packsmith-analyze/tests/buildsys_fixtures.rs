//! Snapshot tests for the Autotools, Meson, Python, Cargo, Go and npm readers.

fixture_snapshots!(
    autotools_with_enable,
    meson_choices,
    meson_gnome_app,
    python_pyproject_app,
    python_setup_py,
    cargo_workspace,
    go_module,
    npm_package,
    bad_manifests,
);

/// A plain Makefile project: the system headers its own sources include on
/// every build are recorded; conditional ones, the tree's own headers and
/// what tests include are not; another build system reads none.
#[test]
fn a_makefile_projects_unconditional_system_includes_are_recorded() {
    let makefile = "CFLAGS += $(shell pkg-config --cflags gtk+-3.0)\nall: app\napp: app.c\n\t$(CC) -o app app.c\ninstall:\n\tinstall -m755 app $(DESTDIR)$(PREFIX)/bin\n";
    let app = "#include <glib.h>\n#include <gtk/gtk.h>\n#include <vendored/thing.h>\n#ifdef WITH_NOTIFY\n#include <libnotify/notify.h>\n#endif\n#include \"app.h\"\nint main(void) { return 0; }\n";
    let files = [
        ("Makefile", makefile),
        ("app.c", app),
        ("include/vendored/thing.h", "int thing;\n"),
        ("tests/check.c", "#include <cmocka.h>\n"),
    ];
    let includes: Vec<(String, String, u32)> = super::common::facts_of(&files)
        .includes
        .into_iter()
        .map(|s| (s.value, s.evidence.file, s.evidence.line))
        .collect();
    assert_eq!(
        includes,
        [
            ("glib.h".to_string(), "app.c".to_string(), 1),
            ("gtk/gtk.h".to_string(), "app.c".to_string(), 2),
        ]
    );
    let cmake = [
        (
            "CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.16)\nproject(app C)\nadd_executable(app app.c)\n",
        ),
        ("app.c", app),
    ];
    assert!(super::common::facts_of(&cmake).includes.is_empty());
}

/// A header of the tree's own that no file includes is not built: its
/// includes say nothing (cohomCalg's `polylibgmp.h`). In a header-only
/// tree every header is the product and counts.
#[test]
fn an_own_header_nothing_includes_is_no_evidence() {
    let makefile = "all: app\napp: app.c\n\t$(CC) -o app app.c\ninstall:\n\tinstall -m755 app $(DESTDIR)$(PREFIX)/bin\n";
    let files = [
        ("Makefile", makefile),
        (
            "app.c",
            "#include \"lib/used.h\"\nint main(void) { return 0; }\n",
        ),
        ("lib/used.h", "#include <zlib.h>\n"),
        ("lib/unused_gmp.h", "#define GNUMP\n#include <gmp.h>\n"),
    ];
    let headers = |files: &[(&str, &str)]| -> Vec<String> {
        let facts = super::common::facts_of(files);
        facts.includes.into_iter().map(|s| s.value).collect()
    };
    assert_eq!(headers(&files), ["zlib.h"]);
    let header_only = [
        ("Makefile", makefile),
        ("include/only.h", "#include <gmp.h>\n"),
    ];
    assert_eq!(headers(&header_only), ["gmp.h"]);
}

/// A setup.py without a `[build-system]` table builds with setuptools'
/// legacy backend, so setuptools is a build requirement; a pyproject that
/// names its own backend gets none added.
#[test]
fn a_setup_py_without_build_system_requires_setuptools() {
    let setup = "from setuptools import setup\nsetup(name='x', version='1.0')\n";
    let build_requires = |files: &[(&str, &str)]| -> Vec<(String, String)> {
        let facts = super::common::facts_of(files);
        facts
            .python
            .map(|p| p.build_requires)
            .unwrap_or_default()
            .into_iter()
            .map(|r| (r.name, r.evidence.file))
            .collect()
    };
    assert_eq!(
        build_requires(&[("setup.py", setup)]),
        [("setuptools".to_string(), "setup.py".to_string())]
    );
    let pyproject =
        "[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n";
    assert_eq!(
        build_requires(&[("setup.py", setup), ("pyproject.toml", pyproject)]),
        [("hatchling".to_string(), "pyproject.toml".to_string())]
    );
    // Poetry's table alone is not a build system: pip still uses setuptools.
    let poetry = "[tool.poetry]\nname = \"x\"\nversion = \"1.0\"\n";
    let cfg = "[metadata]\nname = x\n";
    assert_eq!(
        build_requires(&[("setup.cfg", cfg), ("pyproject.toml", poetry)]),
        [("setuptools".to_string(), "setup.cfg".to_string())]
    );
}

/// Where a program handles `--version` is evidence for an install check;
/// a library, or a program whose `--version` is only in a test, has none.
#[test]
fn the_version_flag_is_found_in_the_programs_own_sources() {
    let cmake = "cmake_minimum_required(VERSION 3.16)\nproject(quill C)\nadd_executable(quill src/main.c)\ninstall(TARGETS quill)\n";
    let main = "#include <string.h>\nint main(int argc, char **argv) {\n  if (argc > 1 && !strcmp(argv[1], \"--version\")) return 0;\n  return 1;\n}\n";
    let f = super::common::facts_of(&[("CMakeLists.txt", cmake), ("src/main.c", main)]);
    let flag = f.version_flag.expect("a version flag");
    assert_eq!(
        (flag.evidence.file.as_str(), flag.evidence.line),
        ("src/main.c", 3)
    );
    let only_in_tests = super::common::facts_of(&[
        ("CMakeLists.txt", cmake),
        ("src/main.c", "int main(void) { return 0; }\n"),
        ("tests/cli.c", main),
    ]);
    assert_eq!(only_in_tests.version_flag, None);
    let library = "cmake_minimum_required(VERSION 3.16)\nproject(quill C)\nadd_library(quill src/main.c)\ninstall(TARGETS quill)\n";
    let f = super::common::facts_of(&[("CMakeLists.txt", library), ("src/main.c", main)]);
    assert_eq!(f.version_flag, None);
}

/// An sdist whose setup.py computes `python_requires` (a kwargs dict the
/// reader does not follow) still says it in PKG-INFO; the manifests win
/// where they say it themselves.
#[test]
fn an_sdists_pkg_info_gives_requires_python_the_manifests_leave_out() {
    let setup = "kwds = dict(name='dill', python_requires='>=3.9')\nsetup(**kwds)\n";
    let pkg_info = "Metadata-Version: 2.1\nName: dill\nVersion: 0.4.1\nRequires-Python: >=3.9\n\nRequires-Python: >=2.7\n";
    let files = [("setup.py", setup), ("PKG-INFO", pkg_info)];
    let py = super::common::facts_of(&files)
        .python
        .expect("a Python project");
    assert_eq!(py.requires_python.as_deref(), Some(">=3.9"));
    let cfg = "[metadata]\nname = dill\n[options]\npython_requires = >=3.8\n";
    let files = [("setup.cfg", cfg), ("PKG-INFO", pkg_info)];
    let py = super::common::facts_of(&files)
        .python
        .expect("a Python project");
    assert_eq!(py.requires_python.as_deref(), Some(">=3.8"));
}

/// `license = {file = …}` names a file, not a licence: the licence is what
/// that file's text is recognised as, else unknown (the draft then asks for
/// the SPDX id), never `file: …`.
#[test]
fn a_licence_file_the_metadata_names_is_read() {
    let mit = "MIT License\n\nCopyright (c) 2024 A. Person\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software and associated documentation files (the \"Software\"), to deal\nin the Software without restriction, including without limitation the rights\nto use, copy, modify, merge, publish, distribute, sublicense, and/or sell\ncopies of the Software, and to permit persons to whom the Software is\nfurnished to do so, subject to the following conditions:\n\nThe above copyright notice and this permission notice shall be included in all\ncopies or substantial portions of the Software.\n\nTHE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR\nIMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY.\n";
    let pyproject = "[build-system]\nrequires = [\"flit_core\"]\nbuild-backend = \"flit_core.buildapi\"\n\n[project]\nname = \"demo\"\nversion = \"1.0\"\nlicense = { file = \"TERMS.txt\" }\n";
    let facts = super::common::facts_of(&[("pyproject.toml", pyproject), ("TERMS.txt", mit)]);
    let license = facts.license.unwrap();
    assert_eq!(license.spdx, "MIT");
    assert_eq!(license.evidence.file, "TERMS.txt");
    let facts =
        super::common::facts_of(&[("pyproject.toml", pyproject), ("TERMS.txt", "Ask us.\n")]);
    let license = facts.license.unwrap();
    assert_eq!(license.spdx, packsmith_core::LicenseFact::UNKNOWN);
    assert_eq!(license.evidence.file, "TERMS.txt");
}

/// `LICENSE-APACHE` beside `LICENSE-MIT`, and no `LICENSE`, offers either:
/// the licence is both, as an SPDX `OR`; one of them alone is that one.
#[test]
fn the_rust_pair_of_licence_files_is_a_choice() {
    let mit = "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n";
    let apache = "                                 Apache License\n                           Version 2.0, January 2004\n";
    let cmake = "cmake_minimum_required(VERSION 3.20)\nproject(demo C)\n";
    let facts = super::common::facts_of(&[
        ("CMakeLists.txt", cmake),
        ("LICENSE-APACHE", apache),
        ("LICENSE-MIT", mit),
    ]);
    assert_eq!(facts.license.unwrap().spdx, "Apache-2.0 OR MIT");
    let facts = super::common::facts_of(&[("CMakeLists.txt", cmake), ("LICENSE-MIT", mit)]);
    assert_eq!(facts.license.unwrap().spdx, "MIT");
}

/// py-stringzilla's shape: CMake, Cargo and npm builds beside the top's
/// Python project. Asked for as `py-<name>`, the Python project the top
/// declares is the package; asked for by no name, CMake's precedence holds.
#[test]
fn a_py_name_the_top_python_project_declares_makes_it_primary() {
    use packsmith_core::BuildSystemKind;
    let files = [
        ("CMakeLists.txt", "cmake_minimum_required(VERSION 3.14)\nproject(stringzilla C)\n"),
        ("Cargo.toml", "[package]\nname = \"stringzilla\"\nversion = \"4.2.1\"\n"),
        ("setup.py", "from setuptools import setup\n__lib_name__ = \"stringzilla\"\nsetup(name=__lib_name__, version=\"4.2.1\")\n"),
        ("pyproject.toml", "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"),
    ];
    let asked = super::common::facts_for(&files, Some("py-stringzilla"));
    assert_eq!(asked.primary_build_system, Some(BuildSystemKind::Python));
    let cmake = asked
        .build_systems
        .iter()
        .find(|s| s.kind == BuildSystemKind::Cmake)
        .unwrap();
    assert!(cmake.note.contains("py-stringzilla"), "{}", cmake.note);
    assert_eq!(
        super::common::facts_of(&files).primary_build_system,
        Some(BuildSystemKind::Cmake)
    );
    // A name the Python project declares otherwise changes nothing.
    let mut named = files;
    named[2].1 = "from setuptools import setup\nsetup(name=\"stringzilla\", version=\"4.2.1\")\n";
    let other = super::common::facts_for(&named, Some("py-other"));
    assert_eq!(other.primary_build_system, Some(BuildSystemKind::Cmake));
    let same = super::common::facts_for(&named, Some("py-StringZilla"));
    assert_eq!(same.primary_build_system, Some(BuildSystemKind::Python));
}

/// rosco's shape: the top's Python project builds a CMake library two
/// levels down through `cmake-build-extension`. Asked for by a name that is
/// no Python package's, the library is the package and its directory the
/// build root; as `py-<name>`, or by no name, the Python project stays.
#[test]
fn a_plain_name_asks_for_the_native_build_the_python_project_drives() {
    use packsmith_core::BuildSystemKind;
    let pyproject = "[build-system]\nrequires = [\"setuptools\", \"cmake\", \"cmake-build-extension\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"rosco\"\nversion = \"2.9.0\"\n";
    let files = [
        ("pyproject.toml", pyproject),
        ("rosco/controller/CMakeLists.txt", "cmake_minimum_required(VERSION 3.6)\nproject(ROSCO Fortran)\nadd_library(discon SHARED src/DISCON.F90)\ninstall(TARGETS discon)\n"),
    ];
    let asked = super::common::facts_for(&files, Some("rosco"));
    assert_eq!(asked.primary_build_system, Some(BuildSystemKind::Cmake));
    assert_eq!(
        asked.build_root.as_ref().map(|r| r.value.as_str()),
        Some("rosco/controller")
    );
    for wanted in [Some("py-rosco"), None] {
        let facts = super::common::facts_for(&files, wanted);
        assert_eq!(
            facts.primary_build_system,
            Some(BuildSystemKind::Python),
            "{wanted:?}"
        );
    }
    // A Python project that drives no native build is the package whatever
    // the name (a Python application packaged without `py-`).
    let plain = "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"rosco\"\nversion = \"2.9.0\"\n";
    let mut files_plain = files;
    files_plain[0].1 = plain;
    let facts = super::common::facts_for(&files_plain, Some("rosco"));
    assert_eq!(facts.primary_build_system, Some(BuildSystemKind::Python));
}

/// iotaa's shape: a top-level Makefile of chores (conda, lint, tests; no
/// install rule, nothing compiled) and the Python project in `src/`.
#[test]
fn a_makefile_of_chores_beside_a_python_project_is_no_build() {
    use packsmith_core::BuildSystemKind;
    let chores = "TARGETS = env lint test\n.PHONY: $(TARGETS)\nall:\n\t$(error Valid targets are: $(TARGETS))\nenv:\n\tconda create -y -n dev\nlint:\n\trecipe/run_test.sh lint\ntest:\n\tpytest src\n";
    let pyproject = "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"iotaa\"\nversion = \"1.5.0\"\n";
    let facts = super::common::facts_of(&[("Makefile", chores), ("src/pyproject.toml", pyproject)]);
    assert_eq!(facts.primary_build_system, Some(BuildSystemKind::Python));
    assert_eq!(
        facts.build_root.as_ref().map(|r| r.value.as_str()),
        Some("src")
    );
    let make = facts
        .build_systems
        .iter()
        .find(|s| s.kind == BuildSystemKind::Makefile)
        .unwrap();
    assert!(make.note.contains("only runs chores"), "{}", make.note);
    // A Makefile that installs is a build, and wins at the top.
    let installs = format!("{chores}install:\n\tcp -r bin $(PREFIX)\n");
    let facts =
        super::common::facts_of(&[("Makefile", &installs), ("src/pyproject.toml", pyproject)]);
    assert_eq!(facts.primary_build_system, Some(BuildSystemKind::Makefile));
}
