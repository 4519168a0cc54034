//! Issue 20 item 2: configure-time downloads, required submodules, a build
//! without install rules and a build file under `src/` turn into Spack
//! conventions in the brief and the draft.

use std::path::{Path, PathBuf};

use packsmith_spack_draft::brief::{build_brief, SpackBrief};
use packsmith_spack_draft::draft::{render_recipe, DraftOptions};
use packsmith_spack_knowledge::kb::NameIndex;
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::target::TargetSpack;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../packsmith-analyze/tests/fixtures")
        .join(name)
}

fn kb() -> NameIndex {
    let packages = [
        "cmake",
        "fmt",
        "eigen",
        "nlohmann-json",
        "blt",
        "zlib",
        "hdf5",
        "gsl",
        // Spack 0.23 has the language virtuals too.
        "cxx",
    ];
    NameIndex {
        packages: packages.iter().map(|s| s.to_string()).collect(),
        virtuals: [("mpi".to_string(), vec!["openmpi".to_string()])]
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

fn brief(name: &str) -> SpackBrief {
    let dir = fixture(name);
    let facts = packsmith_analyze::analyze_dir(
        &dir,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: name.into(),
            release_tag: None,
        },
    )
    .unwrap();
    build_brief(&facts, TargetSpack::V0_23, &kb())
}

/// The brief of a temporary CMake project with this `CMakeLists.txt`.
fn brief_of_cmake(cmakelists: &str) -> SpackBrief {
    brief_of_tree(&[("CMakeLists.txt", cmakelists)])
}

/// The brief of a temporary tree holding these files.
pub(crate) fn brief_of_tree(files: &[(&str, &str)]) -> SpackBrief {
    brief_of_tree_for(files, None)
}

/// The brief of a temporary tree holding these files, analysed for the
/// package `wanted` (`--name`).
fn brief_of_tree_for(files: &[(&str, &str)], wanted: Option<&str>) -> SpackBrief {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let info = packsmith_core::SourceInfo {
        kind: "path".into(),
        given: "fixture".into(),
        release_tag: None,
    };
    let facts = packsmith_analyze::analyze_dir_for(dir.path(), info, wanted).unwrap();
    build_brief(&facts, TargetSpack::V0_23, &kb())
}

#[test]
fn downloads_become_dependencies_and_switches() {
    let b = brief("cmake-downloads");
    let deps: Vec<&str> = b.dependencies.iter().map(|d| d.spec.as_str()).collect();
    // fmt (find_package first), eigen (project switch), json through the
    // name find_package would look for (nlohmann_json), BLT for the
    // required submodule; mesh-data is no Spack package.
    for want in ["fmt", "eigen", "nlohmann-json", "blt"] {
        assert!(deps.contains(&want), "{want} not in {deps:?}");
    }
    assert!(!deps.iter().any(|d| d.contains("mesh")), "{deps:?}");
    // An ExternalProject of an archive in the tree is built from it; one of a URL is a dependency.
    assert!(
        !deps.iter().any(|d| d.contains("zlib") || d.contains("lz4")),
        "{deps:?}"
    );
    assert!(deps.contains(&"gsl"), "{deps:?}");
    let define = |key: &str| {
        b.defines
            .iter()
            .find(|d| d.key == key)
            .and_then(|d| d.value.clone())
    };
    assert_eq!(define("DLF_USE_SYSTEM_EIGEN").as_deref(), Some("True"));
    assert_eq!(
        define("FETCHCONTENT_FULLY_DISCONNECTED").as_deref(),
        Some("True")
    );
    assert_eq!(
        define("BLT_SOURCE_DIR").as_deref(),
        Some("self.spec[\"blt\"].prefix")
    );
    // Every FetchContent here has a switch: no need for the generic mode.
    assert_eq!(define("FETCHCONTENT_TRY_FIND_PACKAGE_MODE"), None);
    // The switch is set by the recipe, not offered as a variant.
    assert!(
        !b.variants
            .iter()
            .any(|v| v.option == "DLF_USE_SYSTEM_EIGEN"),
        "{:#?}",
        b.variants
    );
    assert!(
        b.notes.iter().any(|n| n.message
            == "the build downloads `eigen` unless DLF_USE_SYSTEM_EIGEN=ON (CMakeLists.txt:4): set; depends on `eigen`"),
        "{:#?}",
        b.notes
    );
    // The git clone has no switch: the note says so.
    assert!(
        b.notes
            .iter()
            .any(|n| n.message.contains("`mesh-data`") && n.message.contains("GitClone")),
        "{:#?}",
        b.notes
    );
}

/// A download of libc++ (`ExternalProject_Add(libcxx-download …)`) names
/// `cxx`, the C++ compiler's virtual: never a dependency of another type
/// (Spack 0.23 refuses the recipe at load: "languages must be of 'build'
/// type"), and the languages the build compiles declare it already.
#[test]
fn a_download_named_for_the_cxx_virtual_is_no_dependency() {
    let b = brief_of_cmake(
        "cmake_minimum_required(VERSION 3.14)\nproject(v CXX)\ninclude(ExternalProject)\n\
         ExternalProject_Add(libcxx-download GIT_REPOSITORY https://git.llvm.org/git/libcxx.git)\n",
    );
    let deps: Vec<&str> = b.dependencies.iter().map(|d| d.spec.as_str()).collect();
    assert!(!deps.contains(&"cxx"), "{deps:?}");
}

#[test]
fn fetch_content_without_a_switch_tries_find_package_always() {
    let b = brief("cmake-fetchcontent");
    let define = |key: &str| {
        b.defines
            .iter()
            .find(|d| d.key == key)
            .and_then(|d| d.value.clone())
    };
    assert_eq!(
        define("FETCHCONTENT_TRY_FIND_PACKAGE_MODE").as_deref(),
        Some("\"ALWAYS\"")
    );
    assert_eq!(
        define("FETCHCONTENT_FULLY_DISCONNECTED").as_deref(),
        Some("True")
    );
    // The mode needs CMake 3.24; the project asked for 3.14.
    assert_eq!(b.cmake_constraint.as_deref(), Some("cmake@3.24:"));
    // The bundled-zstd option turned off, CPM asked for local packages.
    assert_eq!(define("FETCHY_BUNDLE_ZSTD").as_deref(), Some("False"));
    assert_eq!(define("CPM_USE_LOCAL_PACKAGES").as_deref(), Some("True"));
    let deps: Vec<&str> = b.dependencies.iter().map(|d| d.spec.as_str()).collect();
    assert!(deps.contains(&"fmt"), "{deps:?}");
    // `json` from github.com/nlohmann/json: Spack's name joins owner and repository.
    assert!(deps.contains(&"nlohmann-json"), "{deps:?}");
}

#[test]
fn the_draft_installs_by_hand_and_passes_the_switches() {
    let b = brief("cmake-downloads");
    let text = render_recipe(&b, &DraftOptions::default());
    let recipe = parse_recipe(&text, "package.py");
    assert!(recipe.syntax_errors.is_empty(), "{text}");
    for line in [
        "            self.define(\"FETCHCONTENT_FULLY_DISCONNECTED\", True),",
        "            self.define(\"DLF_USE_SYSTEM_EIGEN\", True),",
        "            self.define(\"BLT_SOURCE_DIR\", self.spec[\"blt\"].prefix),",
        "    depends_on(\"fmt\")",
        "    depends_on(\"blt\", type=\"build\")",
        "    def install(self, spec, prefix):",
        "        for path in find(self.build_directory, [\"dlf\"]):",
        "                install(path, prefix.bin)",
        "        install_tree(join_path(self.stage.source_path, \"include\"), prefix.include)",
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
    // A dependency the download rules declared is no longer listed as optional.
    assert!(!text.contains("    # depends_on(\"fmt\")"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 99), "{text}");
    // The install() comes after cmake_args, inside the class.
    let args_at = text.find("def cmake_args").unwrap();
    assert!(text.find("def install").unwrap() > args_at);
}

#[test]
fn a_build_file_under_src_sets_root_cmakelists_dir() {
    let b = brief("cmake-in-src");
    assert_eq!(b.root_cmakelists_dir.as_deref(), Some("src"));
    assert!(b.install.is_none(), "it has install rules");
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(text.contains("    root_cmakelists_dir = \"src\""), "{text}");
    assert!(text.contains("    depends_on(\"zlib\")"), "{text}");
}

#[test]
fn a_makefile_without_install_target_gets_an_install_method() {
    let b = brief("makefile-no-install");
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains("    def install(self, spec, prefix):"),
        "{text}"
    );
    assert!(!text.contains("install_targets"), "{text}");
    assert!(parse_recipe(&text, "package.py").syntax_errors.is_empty());
}

#[test]
fn without_a_knowledge_base_the_download_is_still_declared() {
    use packsmith_spack_knowledge::mapping::NoKnowledge;
    let dir = fixture("cmake-fetchcontent");
    let facts = packsmith_analyze::analyze_dir(
        &dir,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: "cmake-fetchcontent".into(),
            release_tag: None,
        },
    )
    .unwrap();
    let b = build_brief(&facts, TargetSpack::V0_23, &NoKnowledge);
    let deps: Vec<&str> = b.dependencies.iter().map(|d| d.spec.as_str()).collect();
    for want in ["googletest", "fmt"] {
        assert!(deps.contains(&want), "{want} not in {deps:?}");
    }
}

/// Issue 20: options named in the negative become variants named for the
/// feature, default on when the option is off, mapped back to the option.
#[test]
fn negative_options_become_positive_variants() {
    let b = brief("cmake-negative-options");
    let text = render_recipe(&b, &DraftOptions::default());
    for line in [
        "    variant(",
        "        \"zlib\",",
        "        default=True,",
        "    depends_on(\"zlib\", when=\"+zlib\")",
        "    depends_on(\"mpi\", when=\"+mpi\")",
        "            self.define(\"NEGOPT_NO_ZLIB\", self.spec.satisfies(\"~zlib\")),",
        "            self.define(\"NEGOPT_DISABLE_MPI\", self.spec.satisfies(\"~mpi\")),",
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
    let mpi = b.variants.iter().find(|v| v.name == "mpi").unwrap();
    assert_eq!(
        mpi.default,
        packsmith_spack_draft::brief::VariantDefault::Bool(false)
    );
    assert!(
        !text.contains("nozlib") && !text.contains("no_zlib"),
        "{text}"
    );
    assert!(parse_recipe(&text, "package.py").syntax_errors.is_empty());
}

/// A test framework fetched unconditionally, in a project whose tests the
/// recipe switches with `self.run_tests`: a test-only dependency.
#[test]
fn a_fetched_test_framework_is_a_test_dependency() {
    let dir = fixture("cmake-fetch-gtest");
    let facts = packsmith_analyze::analyze_dir(
        &dir,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: "cmake-fetch-gtest".into(),
            release_tag: None,
        },
    )
    .unwrap();
    let kb = NameIndex {
        packages: ["cmake", "googletest"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        virtuals: Default::default(),
        ..Default::default()
    };
    let b = build_brief(&facts, TargetSpack::V0_23, &kb);
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains("    depends_on(\"googletest\", type=\"test\")"),
        "{text}"
    );
    assert!(
        text.contains("            self.define(\"BUILD_TESTING\", self.run_tests),"),
        "{text}"
    );
}

/// An optional `find_package(Eigen3)` elsewhere in the project would be
/// switched off as optional; when the download makes eigen a dependency,
/// the switch must go, or FetchContent downloads instead of finding it
/// (percolator, found by the new-to-Spack run).
#[test]
fn a_downloaded_package_is_never_also_switched_off() {
    let b = brief_of_cmake(
        r#"cmake_minimum_required(VERSION 3.14)
project(perco CXX)
find_package(Eigen3 3.3 QUIET)
find_package(ZLIB QUIET)
include(FetchContent)
FetchContent_Declare(eigen
  GIT_REPOSITORY https://gitlab.com/libeigen/eigen.git
  GIT_TAG 3.4.0)
FetchContent_MakeAvailable(eigen)
add_executable(perco main.cpp)
install(TARGETS perco)
"#,
    );
    let deps: Vec<&str> = b.dependencies.iter().map(|d| d.spec.as_str()).collect();
    assert!(deps.iter().any(|d| d.starts_with("eigen")), "{deps:?}");
    let keys: Vec<&str> = b.defines.iter().map(|d| d.key.as_str()).collect();
    assert!(
        !keys.contains(&"CMAKE_DISABLE_FIND_PACKAGE_Eigen3"),
        "{keys:?}"
    );
    // An optional lookup nothing declares is still switched off.
    assert!(
        keys.contains(&"CMAKE_DISABLE_FIND_PACKAGE_ZLIB"),
        "{keys:?}"
    );
}

/// A cache variable that installs into a host directory (neper's Bash
/// completion into `/usr/share`) is pointed under the prefix: Spack's
/// sandbox refuses the write, and a recipe never installs outside it.
#[test]
fn an_install_directory_on_the_host_is_pointed_under_the_prefix() {
    let b = brief_of_cmake(
        r#"cmake_minimum_required(VERSION 3.14)
project(nep C)
set(CMAKE_INSTALL_COMPLETION ON CACHE BOOL "Install Bash completion files")
if (APPLE)
  set(CMAKE_INSTALL_COMPLETION_PREFIX "/usr/local/etc" CACHE STRING "Bash completion directory")
else()
  set(CMAKE_INSTALL_COMPLETION_PREFIX "/usr/share" CACHE STRING "Bash completion directory")
endif()
set(NEP_DATA_DIR "data" CACHE PATH "Where the data is read from")
add_executable(nep nep.c)
install(TARGETS nep)
install(FILES nep.bash DESTINATION ${CMAKE_INSTALL_COMPLETION_PREFIX}/bash-completion)
"#,
    );
    let value = |key: &str| {
        b.defines
            .iter()
            .find(|d| d.key == key)
            .and_then(|d| d.value.clone())
    };
    assert_eq!(
        value("CMAKE_INSTALL_COMPLETION_PREFIX").as_deref(),
        Some("join_path(self.prefix, \"share\")")
    );
    assert_eq!(value("NEP_DATA_DIR"), None);
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains(
            "self.define(\"CMAKE_INSTALL_COMPLETION_PREFIX\", join_path(self.prefix, \"share\"))"
        ),
        "{text}"
    );
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
}

/// ISCDtoolbox's shape: `install(… DESTINATION "$ENV{HOME}/lib")` installs
/// into the builder's home and leaves Spack's prefix empty. The draft's
/// `patch()` points each such file at the prefix, and Python's `re.sub`
/// does to the file what CMake would then read.
#[test]
fn an_install_into_home_is_patched_into_the_prefix() {
    let b = brief_of_tree(&[
        (
            "CMakeLists.txt",
            r#"cmake_minimum_required(VERSION 2.8)
project(Commons C)
add_library(Commons SHARED src/chrono.c)
add_subdirectory(tools)
INSTALL(TARGETS Commons LIBRARY DESTINATION "$ENV{HOME}/lib")
install(FILES include/chrono.h DESTINATION "$ENV{HOME}/include")
install(FILES README DESTINATION share/doc)
"#,
        ),
        (
            "tools/CMakeLists.txt",
            "add_executable(tool tool.c)\ninstall(TARGETS tool DESTINATION bin)\n",
        ),
    ]);
    assert_eq!(b.home_install_files, vec!["CMakeLists.txt".to_string()]);
    let text = render_recipe(&b, &DraftOptions::default());
    let line = r#"filter_file(r"\$ENV\{HOME\}", "${CMAKE_INSTALL_PREFIX}", "CMakeLists.txt")"#;
    assert!(text.contains("    def patch(self):\n"), "{text}");
    assert!(text.contains(line), "{text}");
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
    // What the call does to the file, as Spack's filter_file (re.sub) does it.
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(r#"import re, sys; print(re.sub(r"\$ENV\{HOME\}", "${CMAKE_INSTALL_PREFIX}", sys.argv[1]))"#)
        .arg(r#"DESTINATION "$ENV{HOME}/lib")"#)
        .output()
        .expect("python3 runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"DESTINATION "${CMAKE_INSTALL_PREFIX}/lib")"#
    );
    // Without such an install, no patch().
    let plain =
        brief_of_cmake("project(p C)\nadd_library(p p.c)\ninstall(TARGETS p DESTINATION lib)\n");
    assert!(plain.home_install_files.is_empty());
    assert!(!render_recipe(&plain, &DraftOptions::default()).contains("def patch"));
}

/// Caliper's shape: a C++ library at the top, its Python reader in
/// `python/caliper-reader/`. Asked for `py-caliper-reader`, the draft is
/// that project's: a PythonPackage whose pip runs in its directory, under
/// the repository's licence, with nothing of the C++ build; asked for
/// nothing, the C++ library as before.
#[test]
fn the_python_project_named_by_the_package_is_the_recipe() {
    let files = [
        ("CMakeLists.txt", "cmake_minimum_required(VERSION 3.12)\nproject(caliper CXX)\noption(WITH_CUPTI \"CUPTI\" OFF)\nadd_library(caliper src/c.cpp)\ninstall(TARGETS caliper)\n"),
        ("src/c.cpp", "int f() { return 0; }\n"),
        ("LICENSE", "Copyright (c) 2015, Lawrence Livermore National Security, LLC.\n\nRedistribution and use in source and binary forms, with or without\nmodification, are permitted provided that the following conditions are met:\n\n1. Redistributions of source code must retain the above copyright notice,\nthis list of conditions and the following disclaimer.\n\n2. Redistributions in binary form must reproduce the above copyright notice,\nthis list of conditions and the following disclaimer in the documentation\nand/or other materials provided with the distribution.\n\n3. Neither the name of the copyright holder nor the names of its\ncontributors may be used to endorse or promote products derived from\nthis software without specific prior written permission.\n\nTHIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS \"AS IS\"\nAND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE\nIMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE\nARE DISCLAIMED.\n"),
        ("python/caliper-reader/setup.py", "from setuptools import setup\nsetup(name=\"caliper-reader\", version=\"0.4.0\", description=\"A Python library for reading Caliper .cali files\", packages=[\"caliperreader\"])\n"),
        ("python/caliper-reader/caliperreader/__init__.py", "\n"),
    ];
    let b = brief_of_tree_for(&files, Some("py-caliper-reader"));
    assert_eq!(b.base_classes, vec!["PythonPackage".to_string()]);
    assert_eq!(b.build_directory.as_deref(), Some("python/caliper-reader"));
    assert_eq!(b.license.as_deref(), Some("BSD-3-Clause"));
    assert!(b.variants.is_empty(), "{:?}", b.variants);
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains("    build_directory = \"python/caliper-reader\"\n"),
        "{text}"
    );
    assert!(text.contains("Caliper .cali files"), "{text}");
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
    let b = brief_of_tree(&files);
    assert_eq!(
        b.base_classes.first().map(String::as_str),
        Some("CMakePackage")
    );
    assert_eq!(b.build_directory, None);
}

/// roman-numerals' shape: a Rust crate and a Python package side by side,
/// the Python metadata naming a licence file only the top has. Asked for
/// `py-roman-numerals-py`, the recipe builds `python/`, copies the licence
/// in first (flit refuses the project without it), and never writes
/// `license("file: …")`.
#[test]
fn a_named_python_project_gets_the_files_its_metadata_names() {
    let files = [
        ("rust/Cargo.toml", "[package]\nname = \"roman-numerals-rs\"\nversion = \"3.1.0\"\n"),
        ("rust/src/lib.rs", "\n"),
        ("LICENCE.rst", "Zero-Clause BSD or CC0, at your choice.\n"),
        ("python/README.rst", "A library for manipulating well-formed Roman numerals.\n"),
        ("python/pyproject.toml", "[build-system]\nrequires = [\"flit_core>=3.7,<4\"]\nbuild-backend = \"flit_core.buildapi\"\n\n[project]\nname = \"roman-numerals-py\"\nversion = \"3.1.0\"\nreadme = \"README.rst\"\nlicense.file = \"LICENCE.rst\"\n"),
        ("python/roman_numerals/__init__.py", "\n"),
    ];
    let b = brief_of_tree_for(&files, Some("py-roman-numerals-py"));
    assert_eq!(b.base_classes, vec!["PythonPackage".to_string()]);
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains("    build_directory = \"python\"\n"),
        "{text}"
    );
    assert!(
        text.contains("    def patch(self):\n")
            && text.contains(
                "        copy(\"LICENCE.rst\", join_path(\"python\", \"LICENCE.rst\"))\n"
            ),
        "{text}"
    );
    assert!(!text.contains("file: "), "{text}");
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
}

/// zpp's shape: a CMakeLists.txt for `add_subdirectory` users, which stops
/// when it is the top-level project, beside the Python package that is the
/// build: the recipe is the Python package's, with nothing of the CMake part.
#[test]
fn a_cmake_part_beside_the_python_build_adds_nothing() {
    let b = brief_of_tree(&[
        (
            "CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.16)\nif(\"${CMAKE_CURRENT_SOURCE_DIR}\" STREQUAL \"${CMAKE_SOURCE_DIR}\")\n  message(FATAL_ERROR \"use add_subdirectory, or pip\")\nendif()\nfind_package(Python 3.8 REQUIRED COMPONENTS Interpreter)\nfind_package(ZLIB REQUIRED)\n",
        ),
        (
            "pyproject.toml",
            "[build-system]\nrequires = [\"setuptools >= 59.6\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"zpp\"\nversion = \"1.1.0\"\n",
        ),
    ]);
    assert_eq!(b.base_classes, vec!["PythonPackage".to_string()]);
    let deps: Vec<&str> = b.dependencies.iter().map(|d| d.spec.as_str()).collect();
    assert!(
        !deps
            .iter()
            .any(|d| d.starts_with("cmake") || d.starts_with("zlib")),
        "{deps:?}"
    );
    assert_eq!(b.cmake_constraint, None);
}

/// Clara's shape: one executable, the tests, which CTest runs; no install().
const TESTS_ONLY_CMAKE: &str = "cmake_minimum_required(VERSION 3.8.2)\nproject(Parsely)\n\
    include_directories(include third_party)\n\
    add_executable(ParselyTests src/main.cpp src/ParselyTests.cpp)\n\
    find_package(ZLIB REQUIRED)\n\
    include(CTest)\nadd_test(NAME RunTests COMMAND $<TARGET_FILE:ParselyTests>)\n";

#[test]
fn a_build_of_tests_alone_is_a_header_only_library() {
    let b = brief_of_tree(&[
        ("CMakeLists.txt", TESTS_ONLY_CMAKE),
        ("include/parsely.hpp", "#pragma once\n"),
        ("single_include/parsely.hpp", "#pragma once\n"),
        ("src/main.cpp", "int main() {}\n"),
        ("src/ParselyTests.cpp", "\n"),
    ]);
    assert_eq!(b.base_classes.first().map(String::as_str), Some("Package"));
    let plan = b.install.as_ref().expect("an install plan");
    assert!(plan.headers_only, "{plan:?}");
    assert_eq!(plan.headers.as_deref(), Some("single_include"));
    assert!(b.cmake_constraint.is_none() && b.defines.is_empty());
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
    assert!(text.contains("class Parsely(Package):"), "{text}");
    assert!(
        text.contains(
            "        install_tree(join_path(self.stage.source_path, \"single_include\"), prefix.include)"
        ),
        "{text}"
    );
    // Nothing is configured or built, and what the tests' lookups found is only listed.
    for absent in [
        "cmake_args",
        "depends_on(\"cmake",
        "build_directory",
        "    depends_on(\"zlib\")",
    ] {
        assert!(!text.contains(absent), "`{absent}` in:\n{text}");
    }
    assert!(text.contains("    # depends_on(\"zlib\")"), "{text}");
    assert!(text.contains("its tests (ParselyTests)"), "{text}");
    let class = &text[text.find("class Parsely").unwrap()..];
    assert!(
        !class.contains("\n\n\n"),
        "two blank lines in the class:\n{text}"
    );
}

#[test]
fn a_test_program_beside_another_executable_keeps_the_cmake_build() {
    let cmake = TESTS_ONLY_CMAKE.replace(
        "include(CTest)",
        "add_executable(parsely-cli src/main.cpp)\ninclude(CTest)",
    );
    let b = brief_of_tree(&[
        ("CMakeLists.txt", cmake.as_str()),
        ("include/parsely.hpp", "#pragma once\n"),
    ]);
    assert_eq!(
        b.base_classes.first().map(String::as_str),
        Some("CMakePackage")
    );
    let plan = b.install.as_ref().expect("an install plan");
    assert!(!plan.headers_only);
    assert_eq!(plan.executables, ["ParselyTests", "parsely-cli"]);
}

/// Which required submodules make the recipe fetch with git and
/// `submodules=True`: a checked-out one the build compiles from, and an
/// empty one no Spack package stands in for; not BLT (a Spack package) nor
/// a submodule the build never reads.
#[test]
fn the_submodules_the_build_needs_decide_the_git_fetch() {
    let gitmodules = |path: &str| {
        format!(
            "[submodule \"s\"]\n\tpath = {path}\n\turl = https://github.com/example/{path}.git\n"
        )
    };
    let compiles = "project(p CXX)\nadd_library(p src/p.cpp ext/vend/vend.cpp)\n";
    let checked_out = brief_of_tree(&[
        (".gitmodules", &gitmodules("ext/vend")),
        ("CMakeLists.txt", compiles),
        ("src/p.cpp", "int p;\n"),
        ("ext/vend/vend.cpp", "int v;\n"),
    ]);
    assert!(checked_out.fetch.submodules);
    assert!(
        checked_out
            .notes
            .iter()
            .any(|n| n.message.contains("`ext/vend` is checked out here")),
        "{:?}",
        checked_out.notes
    );
    let empty = brief_of_tree(&[
        (".gitmodules", &gitmodules("ext/vend")),
        ("CMakeLists.txt", compiles),
        ("src/p.cpp", "int p;\n"),
    ]);
    assert!(empty.fetch.submodules);
    // Spack has the vendored library (zlib here), but the build compiles
    // the submodule's own file: no dependency stands in for it.
    let vendored_zlib = brief_of_tree(&[
        (".gitmodules", &gitmodules("ext/zlib")),
        (
            "CMakeLists.txt",
            "project(p C)\nadd_library(p src/p.c ext/zlib/inflate.c)\n",
        ),
        ("src/p.c", "int p;\n"),
    ]);
    assert!(vendored_zlib.fetch.submodules);
    assert!(
        !vendored_zlib
            .dependencies
            .iter()
            .any(|d| d.spec.starts_with("zlib")),
        "{:?}",
        vendored_zlib.dependencies
    );
    // A submodule at `cmake/` (eigenpy's jrl-cmakemodules) is not Spack's
    // cmake: its repository names it, and Spack (here) has no such package.
    let cmake_dir = brief_of_tree(&[
        (
            ".gitmodules",
            "[submodule \"cmake\"]\n\tpath = cmake\n\turl = https://github.com/jrl-umi3218/jrl-cmakemodules.git\n",
        ),
        (
            "CMakeLists.txt",
            "include(\"${CMAKE_CURRENT_LIST_DIR}/cmake/base.cmake\")\nproject(p CXX)\nadd_library(p src/p.cpp)\n",
        ),
        ("src/p.cpp", "int p;\n"),
        ("cmake/base.cmake", "set(B 1)\n"),
    ]);
    assert!(cmake_dir.fetch.submodules, "{:?}", cmake_dir.notes);
    let blt = brief_of_tree(&[
        (".gitmodules", &gitmodules("blt")),
        (
            "CMakeLists.txt",
            "project(p CXX)\ninclude(blt/SetupBLT.cmake)\nadd_library(p src/p.cpp)\n",
        ),
        ("src/p.cpp", "int p;\n"),
    ]);
    assert!(!blt.fetch.submodules);
    // Checked out, BLT is still Spack's package, as LLNL's recipes have it.
    let blt_checked_out = brief_of_tree(&[
        (".gitmodules", &gitmodules("blt")),
        (
            "CMakeLists.txt",
            "project(p CXX)\ninclude(blt/SetupBLT.cmake)\nadd_library(p src/p.cpp)\n",
        ),
        ("src/p.cpp", "int p;\n"),
        ("blt/SetupBLT.cmake", "set(BLT_LOADED 1)\n"),
    ]);
    assert!(!blt_checked_out.fetch.submodules);
    assert!(blt_checked_out.dependencies.iter().any(|d| d.spec == "blt"));
    assert!(
        blt.dependencies.iter().any(|d| d.spec == "blt"),
        "{:?}",
        blt.dependencies
    );
    let unread = brief_of_tree(&[
        (".gitmodules", &gitmodules("docs/theme")),
        (
            "CMakeLists.txt",
            "project(p CXX)\nadd_library(p src/p.cpp)\n",
        ),
        ("src/p.cpp", "int p;\n"),
        ("docs/theme/conf.py", "x = 1\n"),
    ]);
    assert!(!unread.fetch.submodules);
}

/// pumgen's shape: sources that call HDF5's MPI-IO driver need a parallel
/// HDF5 (`hdf5+hl+mpi`); the same lookup in a serial code stays as it is,
/// and a call in a comment or a test does not count.
#[test]
fn an_mpi_io_call_asks_for_a_parallel_hdf5() {
    let cmake = "project(p CXX)\nfind_package(MPI REQUIRED)\nfind_package(HDF5 REQUIRED COMPONENTS C HL)\nadd_executable(p src/p.cpp)\n";
    let hdf5 = |b: &SpackBrief| {
        b.dependencies
            .iter()
            .find(|d| d.spec.starts_with("hdf5"))
            .map(|d| d.spec.clone())
    };
    let parallel = brief_of_tree(&[
        ("CMakeLists.txt", cmake),
        (
            "src/p.cpp",
            "#include <hdf5.h>\nvoid open(hid_t p) {\n  H5Pset_fapl_mpio(p, MPI_COMM_WORLD, MPI_INFO_NULL);\n}\n",
        ),
    ]);
    let spec = hdf5(&parallel).expect("hdf5 is declared");
    assert!(spec.starts_with("hdf5") && spec.ends_with("+mpi"), "{spec}");
    assert!(
        parallel
            .notes
            .iter()
            .any(|n| n.message.contains("H5Pset_fapl_mpio")
                && n.evidence
                    .as_ref()
                    .is_some_and(|e| e.file == "src/p.cpp" && e.line == 3)),
        "{:?}",
        parallel.notes
    );
    let serial = brief_of_tree(&[
        ("CMakeLists.txt", cmake),
        (
            "src/p.cpp",
            "#include <hdf5.h>\n// H5Pset_fapl_mpio is not used here\nint main() {}\n",
        ),
        (
            "tests/t.cpp",
            "void t(hid_t p) { H5Pset_fapl_mpio(p, 0, 0); }\n",
        ),
    ]);
    let spec = hdf5(&serial).expect("hdf5 is declared");
    assert!(!spec.contains("mpi"), "{spec}");
}

/// Two lookups of one package ask for the union of their components:
/// `find_package(Boost)` then `find_package(Boost COMPONENTS python)` is
/// `boost+python`, whichever comes first, and a version stays.
#[test]
fn two_lookups_of_a_package_keep_both_their_variants() {
    let kb = NameIndex {
        packages: ["boost", "cmake"].iter().map(|s| s.to_string()).collect(),
        variants: [(
            "boost".to_string(),
            vec!["python".to_string(), "system".to_string()],
        )]
        .into_iter()
        .collect(),
        ..Default::default()
    };
    let spec_of = |cmake: &str| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("CMakeLists.txt"), cmake).unwrap();
        let facts = packsmith_analyze::analyze_dir(
            dir.path(),
            packsmith_core::SourceInfo {
                kind: "path".into(),
                given: "fixture".into(),
                release_tag: None,
            },
        )
        .unwrap();
        let b = build_brief(&facts, TargetSpack::V0_23, &kb);
        let boost: Vec<String> = b
            .dependencies
            .iter()
            .filter(|d| d.spec.starts_with("boost"))
            .map(|d| d.spec.clone())
            .collect();
        boost
    };
    assert_eq!(
        spec_of("project(p CXX)\nfind_package(Boost REQUIRED)\nfind_package(Boost 1.70 REQUIRED COMPONENTS python)\n"),
        ["boost@1.70:+python"]
    );
    assert_eq!(
        spec_of("project(p CXX)\nfind_package(Boost REQUIRED COMPONENTS system)\nfind_package(Boost REQUIRED COMPONENTS python)\n"),
        ["boost+system+python"]
    );
}

/// `find_package(fmt)` under `if(NOT TARGET fmt::fmt)` (a superproject may
/// have made the target) with `fmt::fmt` linked by every build: built on
/// its own the project always needs fmt, so it is an unconditional
/// dependency, not an optional one switched off in `cmake_args` (mstore's
/// configure stopped on its `mctc-lib::mctc-lib` that way). A lookup whose
/// target is linked only under an option stays optional.
#[test]
fn a_lookup_whose_target_every_build_links_is_a_dependency() {
    let b = brief_of_cmake(
        r#"project(p CXX)
if(NOT TARGET "fmt::fmt")
  find_package("fmt")
endif()
set(deps "fmt::fmt")
find_package(ZLIB)
add_library(p p.cpp)
target_link_libraries(p PUBLIC "${deps}")
option(P_ZLIB "compress" OFF)
if(P_ZLIB)
  target_link_libraries(p PRIVATE ZLIB::ZLIB)
endif()
"#,
    );
    let fmt: Vec<_> = b.dependencies.iter().filter(|d| d.spec == "fmt").collect();
    assert_eq!(fmt.len(), 1, "{:#?}", b.dependencies);
    assert_eq!(fmt[0].when, None);
    assert!(
        b.optional_dependencies.iter().all(|d| d.spec != "fmt"),
        "{:#?}",
        b.optional_dependencies
    );
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(!text.contains("CMAKE_DISABLE_FIND_PACKAGE_fmt"), "{text}");
    assert!(
        !b.dependencies
            .iter()
            .any(|d| d.spec == "zlib" && d.when.is_none()),
        "{:#?}",
        b.dependencies
    );
}

/// A library that follows `BUILD_SHARED_LIBS` and has no install rule,
/// linked (through its alias) by an installed program: built shared, the
/// program would be installed without it (fusion-io's `trace`), so the
/// draft offers no `shared` variant and says why. Once the library is
/// installed too, `shared` is offered as usual.
#[test]
fn no_shared_variant_when_a_shared_build_would_install_a_program_without_its_library() {
    let tree = |install_lib: &str| {
        format!(
            r#"project(fio CXX)
add_library(fio_core core.cpp)
add_library(fio_trace trace.cpp)
add_library(fio::trace ALIAS fio_trace)
target_link_libraries(fio_trace PUBLIC fio_core)
add_executable(trace main.cpp)
target_link_libraries(trace PRIVATE fio::trace)
install(TARGETS trace RUNTIME DESTINATION bin)
install(TARGETS fio_core {install_lib})
"#
        )
    };
    let b = brief_of_cmake(&tree(""));
    assert!(
        b.variants.iter().all(|v| v.name != "shared"),
        "{:#?}",
        b.variants
    );
    assert!(
        b.notes
            .iter()
            .any(|n| n.message.contains("fio_trace") && n.message.contains("trace")),
        "{:#?}",
        b.notes
    );
    let b = brief_of_cmake(&tree("fio_trace"));
    assert!(
        b.variants.iter().any(|v| v.name == "shared"),
        "{:#?}",
        b.variants
    );
}
