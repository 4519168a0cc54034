//! Configure-time downloads with their switches, required submodules,
//! install rules, built targets and a build file below the top (issue 20).

use crate::common::analyze_fixture;
use packsmith_core::{CmakeTargetKind, DownloadKind, DownloadSwitchKind, Evidence};

#[test]
fn downloads_say_what_they_fetch_and_what_turns_them_off() {
    let facts = analyze_fixture("cmake-downloads");
    let find = |name: &str| {
        facts
            .downloads
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("no download {name}: {:#?}", facts.downloads))
    };
    // find_package first, FetchContent only when it fails.
    let fmt = find("fmt");
    assert_eq!(fmt.kind, DownloadKind::FetchContent);
    assert_eq!(fmt.upstream.as_deref(), Some("fmt"));
    assert_eq!(fmt.evidence, Evidence::new("CMakeLists.txt", 13));
    let switch = fmt.switch.as_ref().unwrap();
    assert_eq!(switch.kind, DownloadSwitchKind::FindPackageFirst);
    assert_eq!(switch.name, "fmt");
    // A project option, declared at line 4, turned ON to use the system copy.
    let eigen = find("eigen");
    assert_eq!(eigen.upstream.as_deref(), Some("eigen"));
    let switch = eigen.switch.as_ref().unwrap();
    assert_eq!(
        (switch.kind, switch.name.as_str(), switch.value.as_str()),
        (DownloadSwitchKind::Option, "DLF_USE_SYSTEM_EIGEN", "ON")
    );
    assert_eq!(switch.evidence, Evidence::new("CMakeLists.txt", 4));
    // FIND_PACKAGE_ARGS: FetchContent tries the installed package itself.
    let json = find("json");
    let switch = json.switch.as_ref().unwrap();
    assert_eq!(
        (switch.kind, switch.name.as_str()),
        (DownloadSwitchKind::FindPackageFirst, "nlohmann_json")
    );
    // git clone run by the configure.
    let mesh = find("mesh-data");
    assert_eq!(mesh.kind, DownloadKind::GitClone);
    assert_eq!(
        mesh.url.as_deref(),
        Some("https://github.com/example/mesh-data.git")
    );
    assert_eq!(mesh.pin.as_deref(), Some("v2"));
    assert_eq!(mesh.evidence.line, 31);
    assert!(mesh.switch.is_none());
    // Content already in the tree is no download, nor is an archive shipped in it.
    assert!(!facts.downloads.iter().any(|d| d.name == "bundled"));
    assert!(!facts
        .downloads
        .iter()
        .any(|d| d.name == "zlib" || d.name == "lz4"));
    let gsl = find("gsl");
    assert_eq!(gsl.kind, DownloadKind::ExternalProject);
    assert_eq!(gsl.upstream.as_deref(), Some("gsl"));
}

#[test]
fn an_empty_submodule_that_a_check_needs_is_required() {
    let facts = analyze_fixture("cmake-downloads");
    let blt = facts
        .downloads
        .iter()
        .find(|d| d.kind == DownloadKind::GitSubmodule && d.name == "cmake/blt")
        .unwrap();
    assert_eq!(blt.upstream.as_deref(), Some("blt"));
    let why = blt.required_by.as_ref().expect("blt is required");
    assert_eq!(why.evidence, Evidence::new("CMakeLists.txt", 7));
    assert!(why.value.contains("SetupBLT.cmake"), "{}", why.value);
    // An include() of a file inside an empty submodule requires it too.
    let kokkos = facts
        .downloads
        .iter()
        .find(|d| d.name == "third_party/kokkos")
        .unwrap();
    let why = kokkos.required_by.as_ref().expect("kokkos is required");
    assert_eq!(why.evidence, Evidence::new("CMakeLists.txt", 40));
    assert!(why.value.starts_with("include("), "{}", why.value);
    // A submodule no build command needs is not required.
    let theme = facts
        .downloads
        .iter()
        .find(|d| d.name == "docs/theme")
        .unwrap();
    assert!(theme.required_by.is_none());
}

#[test]
fn targets_and_the_absence_of_install_rules_are_read() {
    let facts = analyze_fixture("cmake-downloads");
    let rules = facts.install_rules.as_ref().unwrap();
    assert!(!rules.present, "{rules:?}");
    assert_eq!(rules.evidence, Evidence::file("CMakeLists.txt"));
    assert_eq!(rules.headers.as_deref(), Some("include"));
    let targets: Vec<(&str, CmakeTargetKind)> = facts
        .cmake
        .as_ref()
        .unwrap()
        .targets
        .iter()
        .map(|t| (t.name.as_str(), t.kind))
        .collect();
    assert_eq!(
        targets,
        [
            ("dlf", CmakeTargetKind::Executable),
            ("dlfcore", CmakeTargetKind::StaticLibrary)
        ]
    );
    assert!(facts.build_root.is_none());
}

#[test]
fn a_build_file_under_src_is_read_from_there() {
    let facts = analyze_fixture("cmake-in-src");
    let root = facts.build_root.as_ref().unwrap();
    assert_eq!(root.value, "src");
    assert_eq!(root.evidence, Evidence::file("src/CMakeLists.txt"));
    let cmake = facts.cmake.as_ref().expect("the CMake files were read");
    assert_eq!(cmake.project.as_ref().unwrap().name, "nested");
    assert_eq!(cmake.find_packages[0].name, "ZLIB");
    assert_eq!(
        cmake.find_packages[0].evidence,
        Evidence::new("src/CMakeLists.txt", 3)
    );
    let rules = facts.install_rules.as_ref().unwrap();
    assert!(rules.present);
    assert_eq!(rules.evidence, Evidence::new("src/CMakeLists.txt", 6));
}

#[test]
fn a_makefile_without_an_install_target_has_no_install_rules() {
    let facts = analyze_fixture("makefile-no-install");
    let rules = facts.install_rules.as_ref().unwrap();
    assert!(!rules.present);
    assert_eq!(rules.how, "no install: target");
    // Autotools always installs.
    let facts = analyze_fixture("autotools-with-enable");
    assert!(facts.install_rules.as_ref().unwrap().present);
}

/// An install() the walk could not reach still counts, so the recipe does
/// not replace the project's own install rules.
#[test]
fn an_install_in_a_file_not_followed_still_counts() {
    let facts = analyze_fixture("cmake-install-unfollowed");
    let rules = facts.install_rules.as_ref().unwrap();
    assert!(rules.present, "{rules:?}");
    assert_eq!(rules.evidence, Evidence::new("cmake/Install.cmake", 2));
}

/// pumgen's shape: a target compiles a file of a submodule. Empty here,
/// the submodule is required by that target; checked out (a recursive
/// clone), it is required and present, and so is one whose CMake file the
/// build includes; a checked-out one the build never reads is neither.
#[test]
fn a_submodule_a_target_compiles_from_is_required_empty_or_checked_out() {
    let gitmodules = "[submodule \"x\"]\n\tpath = ext/tinyxml2\n\turl = ../../leethomason/tinyxml2.git\n\
                      [submodule \"m\"]\n\tpath = cmake/jrl\n\turl = https://github.com/jrl-umi3218/jrl-cmakemodules.git\n\
                      [submodule \"d\"]\n\tpath = docs/theme\n\turl = https://github.com/example/theme.git\n";
    let cmake =
        "cmake_minimum_required(VERSION 3.10)\nproject(p CXX)\ninclude(cmake/jrl/base.cmake)\n\
                 add_library(tinyxml2 ext/tinyxml2/tinyxml2.cpp)\nadd_executable(p src/main.cpp)\n";
    let empty = crate::common::facts_of(&[
        (".gitmodules", gitmodules),
        ("CMakeLists.txt", cmake),
        ("src/main.cpp", "int main() {}\n"),
    ]);
    let find = |facts: &packsmith_core::RepoFacts, name: &str| {
        facts
            .downloads
            .iter()
            .find(|d| d.name == name)
            .cloned()
            .unwrap()
    };
    let tinyxml2 = find(&empty, "ext/tinyxml2");
    assert!(!tinyxml2.present && tinyxml2.compiled);
    let why = tinyxml2
        .required_by
        .expect("the target's source requires it");
    assert!(
        why.value.contains("ext/tinyxml2/tinyxml2.cpp"),
        "{}",
        why.value
    );
    assert_eq!(why.evidence, Evidence::new("CMakeLists.txt", 4));

    let checked_out = crate::common::facts_of(&[
        (".gitmodules", gitmodules),
        ("CMakeLists.txt", cmake),
        ("src/main.cpp", "int main() {}\n"),
        ("ext/tinyxml2/tinyxml2.cpp", "int x;\n"),
        ("cmake/jrl/base.cmake", "set(JRL 1)\n"),
        ("docs/theme/conf.py", "x = 1\n"),
    ]);
    let tinyxml2 = find(&checked_out, "ext/tinyxml2");
    assert!(
        tinyxml2.present && tinyxml2.required_by.is_some(),
        "{tinyxml2:?}"
    );
    let jrl = find(&checked_out, "cmake/jrl");
    assert!(jrl.present && !jrl.compiled, "{jrl:?}");
    assert!(jrl
        .required_by
        .unwrap()
        .value
        .contains("cmake/jrl/base.cmake"));
    let theme = find(&checked_out, "docs/theme");
    assert!(theme.present && theme.required_by.is_none(), "{theme:?}");
}
