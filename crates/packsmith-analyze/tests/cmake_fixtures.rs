//! Snapshot tests of the CMake reader over small fixture repositories, plus
//! an ignored helper that prints the CMake facts of any checkout:
//! `CMAKE_DUMP=/path/to/repo cargo test -p packsmith-analyze --test all cmake_fixtures::dump_cmake_facts -- --ignored --nocapture`

fixture_snapshots!(
    cmake_nested_conditions,
    cmake_included_options,
    cmake_python_bindings,
    cmake_fetchcontent,
    cmake_bad_input,
);

use super::common::facts_of;

/// The `find_package` of `name` in the facts.
fn find_package<'a>(
    facts: &'a packsmith_core::RepoFacts,
    name: &str,
) -> &'a packsmith_core::CmakeFindPackage {
    facts
        .cmake
        .as_ref()
        .unwrap()
        .find_packages
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no find_package({name})"))
}

#[test]
#[ignore = "prints the CMake facts of $CMAKE_DUMP; for checking real projects by hand"]
fn dump_cmake_facts() {
    let Ok(path) = std::env::var("CMAKE_DUMP") else {
        println!("SKIPPED: set CMAKE_DUMP to a repository path");
        return;
    };
    let start = std::time::Instant::now();
    let facts = packsmith_analyze::analyze_dir(
        std::path::Path::new(&path),
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: path.clone(),
            release_tag: None,
        },
    )
    .expect("analyze");
    let elapsed = start.elapsed();
    // The CMake reader alone, on an already walked tree.
    let mut warnings = Vec::new();
    let view = packsmith_analyze::RepoView::walk(std::path::Path::new(&path), &mut warnings);
    let mut ctx = packsmith_analyze::Ctx::new(&view);
    let cmake_start = std::time::Instant::now();
    let cmake = packsmith_analyze::cmake::analyze(&mut ctx);
    let cmake_elapsed = cmake_start.elapsed();
    eprintln!(
        "cmake reader: {cmake_elapsed:?} for {} files ({} indexed in the tree)",
        cmake.map_or(0, |c| c.files.len()),
        view.files().len()
    );
    let out = serde_json::json!({
        "cmake": facts.cmake,
        "languages": facts.languages,
        "features": facts.features,
        "downloads": facts.downloads,
        "warnings": facts.warnings,
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("json"));
    eprintln!("analysed {path} in {elapsed:?}");
}

/// A quiet `find_package` that configure cannot do without — it stops with
/// `FATAL_ERROR` under `if(NOT <Pkg>_FOUND)`, or `<Pkg>_C_FOUND` as FindMPI
/// sets it — is required; so is one whose absence builds a bundled copy
/// (a packager declares it instead), unless it is a test framework; a
/// plain optional one stays optional.
#[test]
fn a_fatal_error_when_not_found_makes_a_package_required() {
    let facts = facts_of(&[
        ("cmake/SetupMPI.cmake", "find_package(MPI QUIET)\n"),
        (
            "CMakeLists.txt",
            r#"cmake_minimum_required(VERSION 3.14)
project(quill C)
list(APPEND CMAKE_MODULE_PATH "${CMAKE_SOURCE_DIR}/cmake")
include(SetupMPI)
if(NOT MPI_C_FOUND)
  message(FATAL_ERROR "Could not find MPI!")
endif()
find_package(ZLIB)
if(NOT ${ZLIB_FOUND})
  message(FATAL_ERROR "zlib is needed")
endif()
find_package(BZip2)
if(BZip2_FOUND)
  set(BZ bz2)
else()
  add_subdirectory(third_party/bzip2)
endif()
find_package(GTest)
if(NOT GTest_FOUND)
  add_subdirectory(third_party/googletest)
endif()
find_package(LibLZMA)
if(LibLZMA_FOUND)
  add_definitions(-DHAVE_LZMA)
endif()
option(QUILL_SUPPORT_LIBEDIT "Link the shell with libedit" OFF)
find_package(Editline)
if(EDITLINE_FOUND)
  add_definitions(-DHAVE_EDITLINE)
else()
  if(QUILL_SUPPORT_LIBEDIT)
    message(FATAL_ERROR "libedit not found")
  endif()
endif()
add_library(quill quill.c)
install(TARGETS quill)
"#,
        ),
    ]);
    let required = |name: &str| find_package(&facts, name).required;
    assert!(required("MPI"));
    assert!(required("ZLIB"));
    assert!(required("BZip2"));
    assert!(!required("GTest"));
    assert!(!required("LibLZMA"));
    // Configure stops without libedit only when the option asks for it.
    let editline = find_package(&facts, "Editline");
    assert!(!editline.required);
    assert_eq!(editline.required_when, ["QUILL_SUPPORT_LIBEDIT"]);
    assert!(find_package(&facts, "ZLIB").required_when.is_empty());
}

/// Old CMake style repeats the if's condition in `else(...)` and
/// `endif(...)`: the else branch runs when that condition is false, so a
/// `find_package` there is conditioned on the negation alone, never on both.
#[test]
fn an_else_that_repeats_the_condition_adds_no_condition_of_its_own() {
    let facts = facts_of(&[(
        "CMakeLists.txt",
        r#"cmake_minimum_required(VERSION 3.14)
project(alps CXX)
option(ALPS_INSTALL_EIGEN "Download and install Eigen3" OFF)
if (NOT ALPS_INSTALL_EIGEN)
  find_package(Eigen3 3.3.4)
else(NOT ALPS_INSTALL_EIGEN)
  find_package(Boost 1.56)
endif(NOT ALPS_INSTALL_EIGEN)
add_library(alps alps.cpp)
install(TARGETS alps)
"#,
    )]);
    let conditions = |name: &str| find_package(&facts, name).conditions.clone();
    assert_eq!(conditions("Eigen3"), vec!["NOT ALPS_INSTALL_EIGEN"]);
    assert_eq!(conditions("Boost"), vec!["ALPS_INSTALL_EIGEN"]);
}

/// `if(NOT X) return() endif()` ends the file for builds without X: what
/// follows, subdirectories included, is conditioned on X (simdjson's
/// benchmark competitors live behind its developer mode this way).
#[test]
fn an_early_return_conditions_the_rest_of_the_file() {
    let facts = facts_of(&[
        ("deps/CMakeLists.txt", "find_package(RapidJSON)\n"),
        (
            "CMakeLists.txt",
            r#"cmake_minimum_required(VERSION 3.14)
project(sj CXX)
option(SJ_DEVELOPER_MODE "Developer targets" OFF)
find_package(Threads)
add_library(sj sj.cpp)
install(TARGETS sj)
if(NOT SJ_DEVELOPER_MODE)
  return()
endif()
find_package(benchmark)
add_subdirectory(deps)
"#,
        ),
    ]);
    let conditions = |name: &str| find_package(&facts, name).conditions.clone();
    assert_eq!(conditions("Threads"), Vec::<String>::new());
    assert_eq!(conditions("benchmark"), vec!["SJ_DEVELOPER_MODE"]);
    assert_eq!(conditions("RapidJSON"), vec!["SJ_DEVELOPER_MODE"]);
}

/// A framework's modules are read from `target_link_libraries`, and the
/// features the project switches off from its compile definitions.
#[test]
fn linked_libraries_and_compile_definitions_are_recorded() {
    let facts = facts_of(&[(
        "CMakeLists.txt",
        r#"cmake_minimum_required(VERSION 3.22)
project(plug CXX)
set(EXTRA juce::juce_opengl)
add_subdirectory(JUCE)
juce_add_plugin(plug FORMATS VST3)
target_compile_definitions(plug PUBLIC JUCE_WEB_BROWSER=0 JUCE_USE_CURL=0)
add_compile_definitions(NDEBUG_EXTRA)
add_definitions(-DWITH_X=1 -Wall)
target_link_libraries(plug PRIVATE juce_audio_utils ${EXTRA} PUBLIC juce::juce_recommended_config_flags $<$<CONFIG:Debug>:dbg> /usr/lib/libm.so)
"#,
    )]);
    let cmake = facts.cmake.unwrap();
    assert_eq!(
        cmake.linked,
        [
            "juce_audio_utils",
            "juce::juce_opengl",
            "juce::juce_recommended_config_flags"
        ]
    );
    assert_eq!(
        cmake.compile_definitions,
        [
            "JUCE_WEB_BROWSER=0",
            "JUCE_USE_CURL=0",
            "NDEBUG_EXTRA",
            "WITH_X=1"
        ]
    );
}

/// A loop that looks for packages by its variable is walked once per
/// item: each package is found, with the item's own option in its
/// condition (igraph's vendorable dependencies).
#[test]
fn a_loop_over_dependencies_finds_each_package() {
    let facts = facts_of(&[
        (
            "deps.cmake",
            r#"macro(find_dependencies)
  set(VENDORABLE BLAS GMP)
  foreach(DEP ${VENDORABLE})
    string(TOUPPER "${DEP}" DEP_UPPER)
    if(USE_INTERNAL_${DEP_UPPER} STREQUAL "AUTO")
      find_package(${DEP} QUIET)
    endif()
  endforeach()
  foreach(sub a b)
    add_subdirectory(${sub})
  endforeach()
endmacro()
"#,
        ),
        ("a/CMakeLists.txt", "find_package(Alpha)\n"),
        ("b/CMakeLists.txt", "find_package(Beta)\n"),
        (
            "CMakeLists.txt",
            r#"cmake_minimum_required(VERSION 3.18)
project(g C)
set(USE_INTERNAL_BLAS AUTO CACHE STRING "")
include(deps.cmake)
find_dependencies()
"#,
        ),
    ]);
    let conditions = |name: &str| find_package(&facts, name).conditions.clone();
    assert!(
        conditions("BLAS").contains(&"USE_INTERNAL_BLAS STREQUAL \"AUTO\"".to_string()),
        "{:?}",
        conditions("BLAS")
    );
    assert!(conditions("GMP").contains(&"USE_INTERNAL_GMP STREQUAL \"AUTO\"".to_string()));
    // A loop over subdirectories is still followed as before.
    find_package(&facts, "Alpha");
    find_package(&facts, "Beta");
}

/// ROMS' `option( ROMS_EXECUTABLE"Turn on/off …" ON )`: one argument with
/// a quote inside, a name nothing tests; no option comes of it.
#[test]
fn an_option_name_with_a_quote_in_it_is_no_option() {
    let lists = r#"cmake_minimum_required(VERSION 3.12)
project(roms Fortran)
option( ROMS_EXECUTABLE "Turn on/off building ROMS executable" ON )
option( ROMS_EXECUTABLE"Turn on/off building ROMS executable" ON )
"#;
    let facts = facts_of(&[("CMakeLists.txt", lists)]);
    let names: Vec<String> = facts
        .cmake
        .unwrap()
        .options
        .into_iter()
        .map(|o| o.name)
        .collect();
    assert_eq!(names, ["ROMS_EXECUTABLE"]);
}

/// A configure or build step that runs the program of an optional lookup
/// (libecpint generates its sources with Python) needs that package.
#[test]
fn a_step_running_a_found_program_makes_its_package_a_generator() {
    let lists = r#"cmake_minimum_required(VERSION 3.12)
project(gen CXX)
find_package(Python COMPONENTS Interpreter)
find_package(Perl)
execute_process(COMMAND ${Python_EXECUTABLE} "${CMAKE_CURRENT_SOURCE_DIR}/makelist.py" 4)
if(WITH_DOCS)
  add_custom_command(OUTPUT doc.html COMMAND ${PERL_EXECUTABLE} mkdoc.pl)
endif()
add_custom_target(fmt COMMAND ${CLANG_FORMAT_EXECUTABLE} -i a.cpp)
"#;
    let facts = facts_of(&[("CMakeLists.txt", lists)]);
    let generators: Vec<(String, String, Vec<String>)> = facts
        .cmake
        .unwrap()
        .generators
        .into_iter()
        .map(|g| (g.tool, g.command, g.conditions))
        .collect();
    assert_eq!(
        generators,
        [
            ("Python".to_string(), "execute_process".to_string(), vec![]),
            (
                "Perl".to_string(),
                "add_custom_command".to_string(),
                vec!["WITH_DOCS".to_string()]
            ),
        ]
    );
}

/// A generator call per loop item under `if(EXISTS <shipped output>)`:
/// the test is decided against the tree, so the tool is needed exactly
/// when some output is missing (igraph's parsers in a git checkout).
#[test]
fn generators_are_recorded_when_the_tree_lacks_their_output() {
    let lists = r#"cmake_minimum_required(VERSION 3.18)
project(parsers C)
find_package(BISON QUIET)
find_package(FLEX QUIET)
foreach(FORMAT gml ncol)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/parsers/${FORMAT}-parser.c)
    list(APPEND SOURCES parsers/${FORMAT}-parser.c)
  else()
    bison_target(${FORMAT}_parser ${FORMAT}.y ${FORMAT}-parser.c)
    flex_target(${FORMAT}_lexer ${FORMAT}.l ${FORMAT}-lexer.c)
  endif()
endforeach()
if(UNKNOWN_SWITCH)
  BISON_TARGET(extra extra.y extra.c)
endif()
"#;
    let tools = |facts: packsmith_core::RepoFacts| -> Vec<(String, Vec<String>)> {
        facts
            .cmake
            .unwrap()
            .generators
            .into_iter()
            .map(|g| (g.tool, g.conditions))
            .collect()
    };
    let git_checkout = facts_of(&[("CMakeLists.txt", lists)]);
    assert_eq!(
        tools(git_checkout),
        [
            ("BISON".to_string(), vec![]),
            ("FLEX".to_string(), vec![]),
            ("BISON".to_string(), vec!["UNKNOWN_SWITCH".to_string()]),
        ]
    );
    // One parser shipped: the other is still generated.
    let one_shipped = facts_of(&[
        ("CMakeLists.txt", lists),
        ("parsers/gml-parser.c", "int x;"),
    ]);
    assert_eq!(tools(one_shipped).len(), 3);
    // Every parser shipped (a release tarball): only the unknown switch is left.
    let all_shipped = facts_of(&[
        ("CMakeLists.txt", lists),
        ("parsers/gml-parser.c", "int x;"),
        ("parsers/ncol-parser.c", "int x;"),
    ]);
    assert_eq!(
        tools(all_shipped),
        [("BISON".to_string(), vec!["UNKNOWN_SWITCH".to_string()])]
    );
}

/// JUCE's copy of built plugins into $HOME: switchable when the value is a
/// variable a -D can set, always on when it is a literal, absent when off.
#[test]
fn juce_copy_after_build_is_recorded_with_its_switch() {
    let copy = |body: &str| {
        let text = format!("cmake_minimum_required(VERSION 3.22)\nproject(plug CXX)\n{body}\n");
        facts_of(&[("CMakeLists.txt", text.as_str())])
            .cmake
            .unwrap()
            .home_copy
            .map(|c| c.switch)
    };
    let guarded = "if(NOT DEFINED PLUG_COPY)\n  set(PLUG_COPY TRUE)\nendif()\njuce_add_plugin(plug COPY_PLUGIN_AFTER_BUILD ${PLUG_COPY} FORMATS VST3)";
    assert_eq!(copy(guarded), Some(Some("PLUG_COPY".to_string())));
    let option =
        "option(PLUG_COPY \"copy\" ON)\njuce_add_plugin(plug COPY_PLUGIN_AFTER_BUILD ${PLUG_COPY})";
    assert_eq!(copy(option), Some(Some("PLUG_COPY".to_string())));
    // A plain set() wins over -D: nothing on the command line turns it off.
    let plain = "set(PLUG_COPY ON)\njuce_add_plugin(plug COPY_PLUGIN_AFTER_BUILD ${PLUG_COPY})";
    assert_eq!(copy(plain), Some(None));
    assert_eq!(
        copy("juce_add_plugin(plug COPY_PLUGIN_AFTER_BUILD TRUE)"),
        Some(None)
    );
    assert_eq!(
        copy("juce_add_plugin(plug COPY_PLUGIN_AFTER_BUILD FALSE)"),
        None
    );
    assert_eq!(copy("option(PLUG_COPY \"copy\" OFF)\njuce_add_plugin(plug COPY_PLUGIN_AFTER_BUILD ${PLUG_COPY})"), None);
}

/// The generator upstream configures with: a preset first, else the CI
/// step that runs cmake; a Windows-only workflow and a project without
/// either name none.
#[test]
fn the_generator_upstream_configures_with_is_read_from_presets_and_ci() {
    let lists = "cmake_minimum_required(VERSION 3.16)\nproject(z C)\nadd_library(z z.c)\n";
    let generator = |files: &[(&str, &str)]| {
        let mut all = vec![("CMakeLists.txt", lists)];
        all.extend_from_slice(files);
        facts_of(&all)
            .cmake
            .unwrap()
            .upstream_generator
            .map(|g| (g.value, g.evidence.file, g.evidence.line))
    };
    let workflow = "on: push\njobs:\n  linux:\n    runs-on: ubuntu-latest\n    steps:\n      - run: sudo apt-get -y install ninja-build\n      - run: |\n          cmake -DSANITIZE_ADDRESS=On -S . -B build -GNinja\n";
    assert_eq!(
        generator(&[(".github/workflows/build.yml", workflow)]),
        Some(("Ninja".into(), ".github/workflows/build.yml".into(), 8))
    );
    let presets = "{\n  \"version\": 3,\n  \"configurePresets\": [\n    {\"name\": \"dev\", \"generator\": \"Ninja Multi-Config\"}\n  ]\n}\n";
    assert_eq!(
        generator(&[
            (".github/workflows/build.yml", workflow),
            ("CMakePresets.json", presets)
        ]),
        Some(("Ninja Multi-Config".into(), "CMakePresets.json".into(), 4))
    );
    assert_eq!(
        generator(&[(".github/workflows/windows.yml", workflow)]),
        None
    );
    assert_eq!(generator(&[]), None);
}

/// The CMake files the walk read.
fn files_read(facts: &packsmith_core::RepoFacts) -> Vec<String> {
    facts.cmake.as_ref().unwrap().files.clone()
}

/// A VTK-style module system adds each module's directory through a
/// computed path: the walk reads every directory holding a `vtk.module`
/// below the directories `vtk_module_find_modules` searches, keeps the
/// module file as the reason, and the modules' lookups are facts with
/// their own file and line; a module outside those directories is not read.
#[test]
fn vtk_module_directories_are_read() {
    let facts = facts_of(&[
        (
            "CMakeLists.txt",
            r#"cmake_minimum_required(VERSION 3.12)
project(VTK CXX)
set(vtk_source_directories
  "${CMAKE_CURRENT_SOURCE_DIR}/Common"
  "${CMAKE_CURRENT_SOURCE_DIR}/IO")
if (VTK_ENABLE_REMOTE_MODULES)
  list(APPEND vtk_source_directories "${CMAKE_CURRENT_SOURCE_DIR}/Remote")
endif ()
vtk_module_find_modules(vtk_module_files ${vtk_source_directories})
vtk_module_scan(
  MODULE_FILES ${vtk_module_files}
  PROVIDES_MODULES vtk_modules
  WANT_BY_DEFAULT ON)
vtk_module_build(MODULES ${vtk_modules})
"#,
        ),
        ("Common/Core/vtk.module", "NAME\n  VTK::CommonCore\n"),
        (
            "Common/Core/CMakeLists.txt",
            "set(classes vtkObject)\nfind_package(ZLIB)\n",
        ),
        ("IO/Image/vtk.module", "NAME\n  VTK::IOImage\n"),
        (
            "IO/Image/CMakeLists.txt",
            "set(classes vtkPNGReader)\n\nvtk_module_find_package(PRIVATE PACKAGE PNG VERSION 1.6 COMPONENTS a)\n",
        ),
        ("Remote/Extra/vtk.module", "NAME\n  VTK::Extra\n"),
        ("Remote/Extra/CMakeLists.txt", "find_package(Extra)\n"),
        ("Examples/Demo/vtk.module", "NAME\n  Demo\n"),
        ("Examples/Demo/CMakeLists.txt", "find_package(Qt6)\n"),
    ]);
    let files = files_read(&facts);
    for f in [
        "Common/Core/CMakeLists.txt",
        "IO/Image/CMakeLists.txt",
        "Remote/Extra/CMakeLists.txt",
    ] {
        assert!(files.contains(&f.to_string()), "{f} not read: {files:?}");
    }
    assert!(!files.contains(&"Examples/Demo/CMakeLists.txt".to_string()));
    let zlib = find_package(&facts, "ZLIB");
    assert_eq!(
        (zlib.evidence.file.as_str(), zlib.evidence.line),
        ("Common/Core/CMakeLists.txt", 2)
    );
    let png = find_package(&facts, "PNG");
    assert_eq!(
        (png.evidence.file.as_str(), png.evidence.line),
        ("IO/Image/CMakeLists.txt", 3)
    );
    assert_eq!(png.version.as_deref(), Some("1.6"));
    assert_eq!(png.components, ["a"]);
    assert!(!png.required);
    let dirs = &facts.cmake.as_ref().unwrap().module_dirs;
    let core = dirs.iter().find(|d| d.dir == "Common/Core").unwrap();
    assert_eq!(core.module_file, "Common/Core/vtk.module");
    assert_eq!(
        (core.evidence.file.as_str(), core.evidence.line),
        ("CMakeLists.txt", 14)
    );
    assert!(
        !facts
            .warnings
            .iter()
            .any(|w| w.message.contains("not followed")),
        "{:?}",
        facts.warnings
    );
}

/// `vtk_module_scan` given module files directly, with no
/// `vtk_module_find_modules`, enters those modules only.
#[test]
fn vtk_modules_listed_by_hand_are_read() {
    let facts = facts_of(&[
        (
            "CMakeLists.txt",
            r#"project(app CXX)
vtk_module_scan(MODULE_FILES "${CMAKE_CURRENT_SOURCE_DIR}/lib/vtk.module" PROVIDES_MODULES mods)
vtk_module_build(MODULES ${mods})
"#,
        ),
        ("lib/vtk.module", "NAME\n  app::lib\n"),
        ("lib/CMakeLists.txt", "find_package(Eigen3)\n"),
        ("other/vtk.module", "NAME\n  app::other\n"),
        ("other/CMakeLists.txt", "find_package(Boost)\n"),
    ]);
    let files = files_read(&facts);
    assert_eq!(files, ["CMakeLists.txt", "lib/CMakeLists.txt"]);
    find_package(&facts, "Eigen3");
}

/// `foreach` over a literal list or a variable holding one drives
/// `add_subdirectory(${d})` and `add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/${d})`;
/// the files-read count includes what the loops reach.
#[test]
fn a_loop_over_a_literal_list_enters_each_directory() {
    let facts = facts_of(&[
        (
            "CMakeLists.txt",
            r#"project(loops C)
foreach(d alpha beta)
  add_subdirectory(${d})
endforeach()
set(MORE gamma delta)
foreach(name IN LISTS MORE)
  add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/${name})
endforeach()
"#,
        ),
        ("alpha/CMakeLists.txt", "find_package(Alpha)\n"),
        ("beta/CMakeLists.txt", "find_package(Beta)\n"),
        ("gamma/CMakeLists.txt", "find_package(Gamma)\n"),
        ("delta/CMakeLists.txt", "find_package(Delta)\n"),
    ]);
    assert_eq!(files_read(&facts).len(), 5, "{:?}", files_read(&facts));
    for name in ["Alpha", "Beta", "Gamma", "Delta"] {
        let p = find_package(&facts, name);
        assert_eq!(p.evidence.line, 1);
        assert_eq!(
            p.evidence.file,
            format!("{}/CMakeLists.txt", name.to_lowercase())
        );
    }
}

/// `file(GLOB … RELATIVE …)` feeding such a loop is evaluated on the
/// tree: directories with a `CMakeLists.txt` are entered, the files and
/// build-less directories the glob also lists are skipped quietly (the
/// loop's own `IS_DIRECTORY` test does that in CMake).
#[test]
fn a_loop_over_a_glob_enters_each_directory() {
    let facts = facts_of(&[
        (
            "CMakeLists.txt",
            r#"project(plugins C)
file(GLOB children RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}/plugins ${CMAKE_CURRENT_SOURCE_DIR}/plugins/*)
foreach(child ${children})
  if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/plugins/${child})
    add_subdirectory(plugins/${child})
  endif()
endforeach()
file(GLOB_RECURSE helpers ${CMAKE_CURRENT_SOURCE_DIR}/cmake/*.cmake)
foreach(h ${helpers})
  include(${h})
endforeach()
"#,
        ),
        ("plugins/README", "not a plugin\n"),
        ("plugins/docs/index.md", "no build here\n"),
        ("plugins/one/CMakeLists.txt", "find_package(One)\n"),
        ("plugins/two/CMakeLists.txt", "find_package(Two)\n"),
        ("cmake/deep/Helper.cmake", "find_package(Helper)\n"),
    ]);
    let files = files_read(&facts);
    for f in [
        "plugins/one/CMakeLists.txt",
        "plugins/two/CMakeLists.txt",
        "cmake/deep/Helper.cmake",
    ] {
        assert!(files.contains(&f.to_string()), "{f} not read: {files:?}");
    }
    find_package(&facts, "Two");
    find_package(&facts, "Helper");
    assert!(
        facts.warnings.is_empty() || !facts.warnings.iter().any(|w| w.file == "CMakeLists.txt"),
        "{:?}",
        facts.warnings
    );
    assert!(facts.cmake.as_ref().unwrap().required_paths.is_empty());
}

/// jrl-cmakemodules' lookups (eigenpy's) are read as the `find_package`
/// they make, whether the module collection's submodule is empty (its
/// macros unknown) or checked out (their definitions too indirect to
/// follow).
#[test]
fn jrl_cmakemodules_lookups_are_find_packages() {
    let cmakelists = r#"cmake_minimum_required(VERSION 3.10)
project(eigenpy CXX)
include(cmake/base.cmake)
if(CMAKE_CROSSCOMPILING)
  set(PYTHON_COMPONENTS Interpreter NumPy)
else()
  set(PYTHON_COMPONENTS Interpreter Development.Module NumPy)
endif()
findpython(REQUIRED)
add_project_dependency(Eigen3 3.0.5 REQUIRED PKG_CONFIG_REQUIRES "eigen3 >= 3.0.5")
search_for_boost_python(REQUIRED)
if(BUILD_WITH_CHOLMOD_SUPPORT)
  add_project_dependency(CHOLMOD REQUIRED FIND_EXTERNAL "CHOLMOD")
endif()
"#;
    let gitmodules = "[submodule \"cmake\"]\n\tpath = cmake\n\turl = https://github.com/jrl-umi3218/jrl-cmakemodules.git\n";
    // The collection checked out: its own (indirect) definitions.
    let base = "macro(add_project_dependency)\n  set(_args ${ARGN})\n  _add_to_list(_PKG_CONFIG_DEPENDENCIES \"${_args}\")\nendmacro()\n\
                macro(findpython)\n  set(_x 1)\nendmacro()\nmacro(search_for_boost_python)\n  set(_y 1)\nendmacro()\n";
    for files in [
        vec![(".gitmodules", gitmodules), ("CMakeLists.txt", cmakelists)],
        vec![
            (".gitmodules", gitmodules),
            ("CMakeLists.txt", cmakelists),
            ("cmake/base.cmake", base),
        ],
    ] {
        let facts = facts_of(&files);
        let eigen = find_package(&facts, "Eigen3");
        assert_eq!(eigen.version.as_deref(), Some("3.0.5"));
        assert!(eigen.required);
        assert!(eigen.components.is_empty(), "{:?}", eigen.components);
        let python = find_package(&facts, "Python");
        assert!(python.required);
        let mut components = python.components.clone();
        components.sort();
        assert_eq!(components, ["Development.Module", "Interpreter", "NumPy"]);
        let boost = find_package(&facts, "Boost");
        assert_eq!(boost.components, ["python"]);
        let cholmod = find_package(&facts, "CHOLMOD");
        assert!(cholmod.required);
        assert!(cholmod.components.is_empty(), "{:?}", cholmod.components);
        assert_eq!(cholmod.conditions, ["BUILD_WITH_CHOLMOD_SUPPORT"]);
    }
}

/// A quiet lookup whose imported target every build links cannot be done
/// without: CMake stops at generate time on a missing `<Pkg>::<target>`.
/// A link under a condition, or of a test framework, leaves it optional.
#[test]
fn an_imported_target_linked_unconditionally_makes_its_lookup_required() {
    let facts = facts_of(&[(
        "CMakeLists.txt",
        r#"cmake_minimum_required(VERSION 3.14)
project(mstore Fortran)
if(NOT TARGET "mctc-lib::mctc-lib")
  find_package("mctc-lib")
endif()
set(lib-deps "mctc-lib::mctc-lib")
find_package(OpenMP)
find_package(GTest)
add_library(mstore-lib src.f90)
target_link_libraries(mstore-lib PUBLIC "${lib-deps}" GTest::gtest)
if(WITH_OPENMP)
  target_link_libraries(mstore-lib PRIVATE OpenMP::OpenMP_Fortran)
endif()
"#,
    )]);
    assert!(find_package(&facts, "mctc-lib").required);
    assert!(!find_package(&facts, "OpenMP").required);
    assert!(!find_package(&facts, "GTest").required);
}

/// noahmp's shape: nothing at the top, a `src/Makefile` that includes a
/// file of the model it is built into, and a CMake build of its own in
/// `drivers/erf/`: that CMake build is the one read, from its directory.
#[test]
fn the_cmake_build_is_read_when_the_shallower_makefile_needs_a_larger_tree() {
    let facts = facts_of(&[
        ("src/Makefile", "include ../../hrldas/user_build_options\nall:\n"),
        (
            "drivers/erf/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.17)\nproject(NoahMP Fortran)\nfind_package(MPI COMPONENTS Fortran REQUIRED)\n",
        ),
    ]);
    assert!(find_package(&facts, "MPI").required);
    assert_eq!(
        facts.build_root.as_ref().map(|r| r.value.as_str()),
        Some("drivers/erf")
    );
}

/// zpp's shape: the top CMakeLists.txt stops when it is the top-level
/// project ("use add_subdirectory, or install it with Python"), so the
/// Python project beside it is the build; a CMakeLists.txt that stops only
/// under another condition, or one with nothing beside it, stays primary.
#[test]
fn a_cmake_file_that_refuses_the_top_level_is_no_primary() {
    let pyproject = "[build-system]\nrequires = [\"setuptools\"]\n\n[project]\nname = \"zpp\"\n";
    let refusing = r#"cmake_minimum_required(VERSION 3.16)
if("${CMAKE_CURRENT_SOURCE_DIR}" STREQUAL "${CMAKE_SOURCE_DIR}")
  message(FATAL_ERROR "Zpp can either be used with add_subdirectory with cmake or installed using python")
endif()
find_package(Python 3.8 REQUIRED COMPONENTS Interpreter)
"#;
    let facts = facts_of(&[("CMakeLists.txt", refusing), ("pyproject.toml", pyproject)]);
    assert_eq!(
        facts.primary_build_system,
        Some(packsmith_core::BuildSystemKind::Python)
    );
    let cmake = facts.cmake.as_ref().unwrap();
    assert_eq!(cmake.refuses_top_level.as_ref().map(|e| e.line), Some(3));
    let note = &facts
        .build_systems
        .iter()
        .find(|s| s.kind == packsmith_core::BuildSystemKind::Cmake)
        .unwrap()
        .note;
    assert!(
        note.contains("refuses to be the top-level project"),
        "{note}"
    );
    // PROJECT_IS_TOP_LEVEL says the same.
    let top_level = "cmake_minimum_required(VERSION 3.21)\nproject(zpp NONE)\nif(PROJECT_IS_TOP_LEVEL)\n  message(FATAL_ERROR \"add_subdirectory only\")\nendif()\n";
    let facts = facts_of(&[("CMakeLists.txt", top_level), ("pyproject.toml", pyproject)]);
    assert_eq!(
        facts.primary_build_system,
        Some(packsmith_core::BuildSystemKind::Python)
    );
    // Nothing else to build: CMake stays primary.
    let facts = facts_of(&[("CMakeLists.txt", refusing)]);
    assert_eq!(
        facts.primary_build_system,
        Some(packsmith_core::BuildSystemKind::Cmake)
    );
    // A stop under another condition is no refusal.
    let other = "cmake_minimum_required(VERSION 3.16)\nif(WIN32)\n  message(FATAL_ERROR \"no Windows\")\nendif()\n";
    let facts = facts_of(&[("CMakeLists.txt", other), ("pyproject.toml", pyproject)]);
    assert_eq!(
        facts.primary_build_system,
        Some(packsmith_core::BuildSystemKind::Cmake)
    );
    assert!(facts.cmake.unwrap().refuses_top_level.is_none());
}
