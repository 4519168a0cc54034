//! Facts read from CMake build files.

use super::{Evidence, Sourced};
use serde::{Deserialize, Serialize};

/// `project(NAME VERSION … LANGUAGES … DESCRIPTION … HOMEPAGE_URL …)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeProject {
    pub name: String,
    pub version: Option<String>,
    pub languages: Vec<String>,
    pub description: Option<String>,
    pub homepage_url: Option<String>,
    pub evidence: Evidence,
}

/// How an option was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmakeOptionKind {
    /// `option(NAME "help" [value])`
    Option,
    /// `cmake_dependent_option(NAME "help" value <depends> <force>)`
    DependentOption,
}

/// A boolean user option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeOption {
    pub name: String,
    pub help: String,
    /// Default as written (`ON`, `OFF`, `${VAR}`); `None` means CMake's OFF.
    pub default: Option<String>,
    pub kind: CmakeOptionKind,
    /// For `cmake_dependent_option`: the condition under which the option is
    /// offered, and the value it is forced to otherwise.
    pub depends: Option<String>,
    pub force: Option<String>,
    /// Enclosing `if()` conditions, outermost first.
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// `set(NAME value CACHE TYPE "doc" [FORCE])`, with any
/// `set_property(CACHE NAME PROPERTY STRINGS …)` choices attached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeCacheVar {
    pub name: String,
    /// BOOL, STRING, PATH, FILEPATH, INTERNAL.
    pub cache_type: String,
    /// The value, list items joined with `;`.
    pub default: String,
    pub doc: String,
    pub force: bool,
    /// Allowed values from `set_property(CACHE … PROPERTY STRINGS …)`.
    pub choices: Vec<String>,
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// `find_package(Name [version] [EXACT] [QUIET] [REQUIRED] [COMPONENTS …])`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeFindPackage {
    pub name: String,
    pub version: Option<String>,
    pub exact: bool,
    pub required: bool,
    pub quiet: bool,
    pub config_mode: bool,
    pub components: Vec<String>,
    pub optional_components: Vec<String>,
    /// Enclosing `if()` conditions, outermost first, so that
    /// `if(FOO_ENABLE_MPI) find_package(MPI REQUIRED)` reads
    /// "MPI, required when FOO_ENABLE_MPI".
    pub conditions: Vec<String>,
    pub evidence: Evidence,
    /// Where configure stops without the package although the lookup is
    /// optional: the conditions besides the not-found test around a
    /// `message(FATAL_ERROR …)` (`if(PCRE2_SUPPORT_LIBEDIT)` in the `else()`
    /// of `if(EDITLINE_FOUND)`), so the package is needed when they hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_when: Vec<String>,
}

/// `pkg_check_modules(PREFIX [REQUIRED] mod1 mod2>=1.0 …)` or `pkg_search_module`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakePkgConfig {
    pub prefix: String,
    /// Module specs as written (`glib-2.0>=2.56`).
    pub modules: Vec<String>,
    pub required: bool,
    /// `pkg_check_modules` or `pkg_search_module`.
    pub command: String,
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// What a `find_library` / `find_path` / `find_program` looks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeFindItem {
    /// `find_library`, `find_path`, `find_program`, `find_file`.
    pub command: String,
    pub variable: String,
    pub names: Vec<String>,
    pub required: bool,
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// What kind of thing a target builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmakeTargetKind {
    Executable,
    /// `add_library(name STATIC …)`
    StaticLibrary,
    /// `add_library(name SHARED …)` or `MODULE`
    SharedLibrary,
    /// `add_library(name …)`: static or shared as `BUILD_SHARED_LIBS` says.
    Library,
}

/// A target the build makes (`add_executable`, `add_library`), leaving out
/// imported, alias, object and interface libraries (nothing is built).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeTarget {
    pub name: String,
    pub kind: CmakeTargetKind,
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// A path the configure insists on: `add_subdirectory` of a directory
/// with no `CMakeLists.txt`, or `if(NOT EXISTS <path>)` around a
/// `message(FATAL_ERROR …)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeRequiredPath {
    /// Repository-relative path.
    pub path: String,
    /// The command or check that needs it (`add_subdirectory(blt)`).
    pub check: String,
    pub evidence: Evidence,
}

/// A build step that runs a code generator from a CMake find module
/// (`bison_target` from FindBISON, `flex_target` from FindFLEX): the tool
/// is needed to build, however optional its `find_package` looks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeGenerator {
    /// The find module's package name (`BISON`).
    pub tool: String,
    /// The command as written, lower-cased (`bison_target`).
    pub command: String,
    /// Enclosing conditions still unknown after the tree was consulted:
    /// an `EXISTS` test of a path in the tree is decided and dropped.
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// A build step that copies what it built into the user's home (JUCE's
/// `COPY_PLUGIN_AFTER_BUILD` copies plugins to `~/.vst3`, `~/.lv2`): a
/// sandboxed build has no writable home.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeHomeCopy {
    /// The variable that switches the copy (`ZL_JUCE_COPY_PLUGIN`) when a
    /// `-D` on the command line can turn it off; None when it is always on.
    pub switch: Option<String>,
    /// The command and argument (`juce_add_plugin COPY_PLUGIN_AFTER_BUILD`).
    pub check: String,
    pub evidence: Evidence,
}

/// A directory the build enters because a module description file marks
/// it as a module of a VTK-style module system (`vtk_module_scan` /
/// `vtk_module_build` add each module's directory by a computed path).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeModuleDir {
    /// Repository-relative directory whose `CMakeLists.txt` was read.
    pub dir: String,
    /// The module description file (`Common/Core/vtk.module`): why the
    /// directory was entered.
    pub module_file: String,
    /// The call that builds the modules (`vtk_module_build`).
    pub evidence: Evidence,
}

/// Everything read from the CMake files of a repository.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmakeFacts {
    /// Files parsed, in the order they were followed (root first).
    pub files: Vec<String>,
    pub project: Option<CmakeProject>,
    pub minimum_required: Option<Sourced<String>>,
    pub options: Vec<CmakeOption>,
    pub cache_vars: Vec<CmakeCacheVar>,
    pub find_packages: Vec<CmakeFindPackage>,
    pub pkg_config: Vec<CmakePkgConfig>,
    pub find_items: Vec<CmakeFindItem>,
    /// C++ standard (`17`), from `CMAKE_CXX_STANDARD` or `cxx_std_17`.
    pub cxx_standard: Option<Sourced<String>>,
    /// `BUILD_SHARED_LIBS` as an option or cache variable, with its default.
    pub build_shared_libs: Option<Sourced<String>>,
    /// `enable_testing()`, `include(CTest)` or a `BUILD_TESTING` option.
    pub testing: Option<Evidence>,
    /// The first test the build registers (`add_test`,
    /// `gtest_discover_tests`, …): there is something for ctest to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<Evidence>,
    /// First `install()` seen (None = nothing is installed).
    pub installs: Option<Evidence>,
    /// The top CMakeLists.txt stops with `message(FATAL_ERROR)` when it is
    /// the top-level project (zpp's: "use add_subdirectory, or install it
    /// with Python"): it is a part for other CMake builds, not the build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refuses_top_level: Option<Evidence>,
    /// `install(… DESTINATION "$ENV{HOME}/…")`: the first such call of
    /// each CMake file that installs into the user's home, not the prefix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub home_installs: Vec<Evidence>,
    /// Executables and libraries the build makes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<CmakeTarget>,
    /// Paths the configure needs that the tree lacks or checks for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_paths: Vec<CmakeRequiredPath>,
    /// Libraries named in `target_link_libraries` (plain names and
    /// `ns::name` targets; no paths, variables or generator expressions),
    /// first-seen order: which modules of a vendored framework are used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linked: Vec<String>,
    /// Preprocessor definitions the build sets (`NAME` or `NAME=VALUE`),
    /// from `target_compile_definitions`, `add_compile_definitions` and
    /// `add_definitions(-D…)`: a framework's features switched off there
    /// need none of their libraries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compile_definitions: Vec<String>,
    /// Code generators the build runs (bison, flex).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<CmakeGenerator>,
    /// The first step that copies build output into the user's home.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home_copy: Option<CmakeHomeCopy>,
    /// The generator upstream's own presets or CI configure with (`Ninja`):
    /// a package built the way upstream tests it uses the same one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_generator: Option<Sourced<String>>,
    /// Module directories entered through a VTK-style module system.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub module_dirs: Vec<CmakeModuleDir>,
    /// Source files the targets name, repository-relative (bounded): which
    /// git submodules the build compiles from. Not serialized: only the
    /// layout reader uses them.
    #[serde(skip)]
    pub target_sources: Vec<CmakeRequiredPath>,
    /// The build's own link graph, for the draft's library-kind rule (not
    /// serialized): the targets `install(TARGETS …)` names, ...
    #[serde(skip)]
    pub installed_targets: Vec<String>,
    /// ... `add_library(<alias> ALIAS <target>)` as alias → target, ...
    #[serde(skip)]
    pub target_aliases: std::collections::BTreeMap<String, String>,
    /// ... and what `target_link_libraries(<target> …)` links, per target
    /// (plain names and `ns::name` targets, as in `linked`).
    #[serde(skip)]
    pub target_links: std::collections::BTreeMap<String, Vec<String>>,
}
