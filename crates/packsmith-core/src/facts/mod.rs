//! `RepoFacts`: everything a packager reads from a source repository.
//!
//! Every fact carries [`Evidence`] (file and line) so that a brief, a prompt
//! or a human reviewer can check where it came from.

mod autotools;
mod cmake;
mod ecosystems;
mod make;
mod meson;
mod python;

pub use autotools::*;
pub use cmake::*;
pub use ecosystems::*;
pub use make::*;
pub use meson::*;
pub use python::*;

use serde::{Deserialize, Serialize};

/// Version of the JSON layout of [`RepoFacts`]; bump on incompatible change.
pub const FACTS_SCHEMA_VERSION: u32 = 1;

/// Where a fact was found: a path relative to the repository root and a
/// 1-based line (0 when the fact is about the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Evidence {
    pub file: String,
    pub line: u32,
}

impl Evidence {
    pub fn new(file: impl Into<String>, line: u32) -> Self {
        Self {
            file: file.into(),
            line,
        }
    }

    /// Evidence for a whole file (no particular line).
    pub fn file(file: impl Into<String>) -> Self {
        Self::new(file, 0)
    }
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// A value together with where it was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sourced<T> {
    pub value: T,
    pub evidence: Evidence,
}

impl<T> Sourced<T> {
    pub fn new(value: T, evidence: Evidence) -> Self {
        Self { value, evidence }
    }
}

/// Something the analysis could not read or follow. Analysis never fails on
/// bad content; it records a warning and carries on with partial facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisWarning {
    pub file: String,
    /// 1-based line, or 0 when the warning is about the whole file.
    pub line: u32,
    pub message: String,
}

impl AnalysisWarning {
    pub fn new(file: impl Into<String>, line: u32, message: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            line,
            message: message.into(),
        }
    }
}

/// The build systems packsmith recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BuildSystemKind {
    Cmake,
    Meson,
    Autotools,
    Makefile,
    Python,
    Cargo,
    Go,
    Npm,
}

impl BuildSystemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cmake => "cmake",
            Self::Meson => "meson",
            Self::Autotools => "autotools",
            Self::Makefile => "makefile",
            Self::Python => "python",
            Self::Cargo => "cargo",
            Self::Go => "go",
            Self::Npm => "npm",
        }
    }
}

impl std::fmt::Display for BuildSystemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One build system found in the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildSystemFact {
    pub kind: BuildSystemKind,
    /// The file that shows it (top-level files first).
    pub evidence: Evidence,
    /// Depth of that file below the root (0 = top level).
    pub depth: u32,
    /// Why it was (or was not) taken as primary, for humans.
    pub note: String,
    /// A file outside the repository its build reads (a Makefile's
    /// `include ../../hrldas/user_build_options`): it builds only inside a
    /// larger project's tree, so it is primary only when nothing else is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads_outside_tree: Option<String>,
}

impl BuildSystemFact {
    /// The Makefile of a build shipped under a name make does not look for
    /// (`src-mpi/Makefile.vanilla`): a recipe copies it to `Makefile`.
    pub fn makefile_under_another_name(&self) -> Option<&str> {
        let name = self.evidence.file.rsplit('/').next()?;
        (self.kind == BuildSystemKind::Makefile
            && !matches!(name, "GNUmakefile" | "Makefile" | "makefile"))
        .then_some(self.evidence.file.as_str())
    }
}

/// Programming languages a build compiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    C,
    Cxx,
    Fortran,
    Cuda,
    Hip,
    Python,
    Rust,
    Go,
    JavaScript,
    Other,
}

impl Language {
    /// Map a CMake / Meson language token (`CXX`, `cpp`, `Fortran`, …).
    pub fn from_token(token: &str) -> Option<Self> {
        match token.to_ascii_lowercase().as_str() {
            "c" => Some(Self::C),
            "cxx" | "cpp" | "c++" => Some(Self::Cxx),
            "fortran" => Some(Self::Fortran),
            "cuda" => Some(Self::Cuda),
            "hip" => Some(Self::Hip),
            "python" => Some(Self::Python),
            "rust" => Some(Self::Rust),
            "go" => Some(Self::Go),
            _ => None,
        }
    }
}

/// A language the build uses, how we know, and under which condition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageUse {
    pub language: Language,
    /// `project`, `enable_language`, `check_language`, `meson project`, `sources`, …
    pub how: String,
    /// Enclosing conditions, outermost first (empty = unconditional).
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// Technologies a packager must know about (they map to Spack base classes,
/// variants or Nix inputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FeatureKind {
    Cuda,
    Hip,
    Openmp,
    Mpi,
    Kokkos,
    Raja,
    Sycl,
    Pybind11,
    Nanobind,
    Swig,
    Python,
}

/// A hint that the project uses a feature, with evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureHint {
    pub feature: FeatureKind,
    /// What was seen (`find_package(MPI)`, `*.cu sources`, `option ENABLE_CUDA`).
    pub detail: String,
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// How the build would reach the network (forbidden in Spack and Nix sandboxes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DownloadKind {
    FetchContent,
    ExternalProject,
    GitSubmodule,
    FileDownload,
    MesonSubproject,
    /// `git clone` run by the build itself (`execute_process(COMMAND git clone …)`).
    GitClone,
}

/// How a project lets its user turn a download off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DownloadSwitchKind {
    /// A user option (`FOO_USE_SYSTEM_FMT`, `FOO_DOWNLOAD_FMT`): set it to
    /// `value` and the build uses an installed copy.
    Option,
    /// The build tries `find_package(name)` first and downloads only when
    /// that fails: an installed copy is enough.
    FindPackageFirst,
}

/// The project's own way to build without the download.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DownloadSwitch {
    pub kind: DownloadSwitchKind,
    /// The option, or the package `find_package` looks for.
    pub name: String,
    /// The option's value that turns the download off (`ON`, `OFF`);
    /// empty for `FindPackageFirst`.
    pub value: String,
    pub evidence: Evidence,
}

/// Something the build downloads at configure or build time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DownloadFact {
    pub kind: DownloadKind,
    /// Name of the declared content / submodule path.
    pub name: String,
    /// URL or git repository, when given literally.
    pub url: Option<String>,
    /// Tag, commit or hash pin, when given.
    pub pin: Option<String>,
    pub conditions: Vec<String>,
    pub evidence: Evidence,
    /// The upstream project it fetches (`fmt` for
    /// `https://github.com/fmtlib/fmt.git`), when the URL or name tells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    /// The project's switch that turns the download off, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch: Option<DownloadSwitch>,
    /// For a submodule the build needs: the build command or check that
    /// needs it (`add_subdirectory(blt)`, `if(NOT EXISTS …/SetupBLT.cmake)`,
    /// a target's source file in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_by: Option<Sourced<String>>,
    /// For a submodule: its directory holds files here (a recursive
    /// checkout), which a release archive or `git archive` leaves out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub present: bool,
    /// For a submodule: a target compiles a file of it, so no Spack
    /// package of what it vendors can stand in for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compiled: bool,
}

impl DownloadFact {
    /// A download with no URL, pin, conditions or switch yet.
    pub fn new(kind: DownloadKind, name: impl Into<String>, evidence: Evidence) -> Self {
        Self {
            kind,
            name: name.into(),
            url: None,
            pin: None,
            conditions: Vec::new(),
            evidence,
            upstream: None,
            switch: None,
            required_by: None,
            present: false,
            compiled: false,
        }
    }

    /// A git submodule the build needs (`required_by` says what needs it).
    pub fn is_required_submodule(&self) -> bool {
        self.kind == DownloadKind::GitSubmodule && self.required_by.is_some()
    }
}

/// Whether `make install` (or its equivalent) has anything to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstallRules {
    /// False when the build files install nothing: a recipe must copy
    /// the built files itself.
    pub present: bool,
    /// How this was told (`install()`, `install: target`, `no install() in 3 CMake files`).
    pub how: String,
    /// The first install rule, or the build file read when there is none.
    pub evidence: Evidence,
    /// Without install rules: the directory of the public headers a
    /// recipe copies to `include` (`include`, `src/include`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<String>,
    /// A Makefile's installation-prefix variable (`prefix`, `PREFIX`,
    /// `INSTALL_PREFIX`), which `make install` must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_variable: Option<String>,
    /// The prefix variable names the programs' directory, not the prefix
    /// (lastz's `LASTZ_INSTALL`): the recipe gives it `prefix.bin`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prefix_variable_is_bin: bool,
}

/// A release tag recognised as a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagVersion {
    /// The tag as written (`v1.2.3`, `release-1_2_3`).
    pub tag: String,
    /// The normalised version (`1.2.3`).
    pub version: String,
    /// Commit the tag points to, when known.
    pub commit: Option<String>,
}

/// What the repository says about its versions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionFacts {
    /// The version the build files declare (project(VERSION), AC_INIT, …).
    pub declared: Option<Sourced<String>>,
    /// The newest release tag, by version order (pre-releases only if nothing else).
    pub latest_tag: Option<TagVersion>,
    /// Up to a handful of the newest release tags, newest first.
    pub recent_tags: Vec<TagVersion>,
    /// HEAD commit, for a git checkout.
    pub commit: Option<String>,
    /// Remote URL of the checkout (origin), when known.
    pub remote: Option<String>,
    /// The release-archive URL a recipe should use (GitHub / GitLab), when
    /// the host and a tag are known.
    pub archive_url: Option<String>,
}

/// The licence, as an SPDX id where it can be recognised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LicenseFact {
    /// SPDX identifier (`BSD-3-Clause`), or `LicenseRef-unknown`.
    pub spdx: String,
    pub evidence: Evidence,
    /// Where the project allows later versions of its GNU licence (a source
    /// header's "or (at your option) any later version"): why `-or-later`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub later_versions: Option<Evidence>,
}

impl LicenseFact {
    /// The id of a licence file whose text is not recognised.
    pub const UNKNOWN: &'static str = "LicenseRef-unknown";
}

/// How the repository was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceInfo {
    /// `path` or `git`.
    pub kind: String,
    /// What the user gave (a path or URL).
    pub given: String,
    /// The release tag a clone packsmith made was checked out at (a recipe
    /// packages a release, not the default branch's head).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_tag: Option<String>,
}

/// Everything `packsmith analyze` reports about a repository.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepoFacts {
    pub schema_version: u32,
    pub source: SourceInfo,
    /// Best guess at the project name (project(), AC_INIT, pyproject, directory name).
    pub name: Option<Sourced<String>>,
    pub build_systems: Vec<BuildSystemFact>,
    pub primary_build_system: Option<BuildSystemKind>,
    pub cmake: Option<CmakeFacts>,
    pub autotools: Option<AutotoolsFacts>,
    pub meson: Option<MesonFacts>,
    pub python: Option<PythonFacts>,
    pub cargo: Option<CargoFacts>,
    pub go: Option<GoFacts>,
    pub npm: Option<NpmFacts>,
    /// Libraries and pkg-config modules a plain Makefile build uses; only
    /// when the Makefile is the primary build system.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub make: Option<MakefileFacts>,
    /// GObject libraries Python sources load through introspection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gi_requires: Vec<GiRequire>,
    /// System headers the C and C++ sources include on every build (no
    /// preprocessor condition, not in the tree), first file and line each;
    /// read for a plain Makefile build, whose Makefiles say little (the
    /// Spack brief and the Nix draft map them to libraries).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<Sourced<String>>,
    /// The first HDF5 call of the MPI-IO driver in the sources
    /// (`H5Pset_fapl_mpio`, `h5pset_fapl_mpio_f`): the build needs a
    /// parallel HDF5, which a serial one does not declare.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hdf5_mpi_io: Option<Sourced<String>>,
    /// A Lazarus project at the top, when no other build system is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lazarus: Option<LazarusProject>,
    /// Where the project's own sources handle `--version`, when it builds
    /// programs: the evidence for an install check that runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_flag: Option<Sourced<String>>,
    /// Languages, merged over all build systems and sources.
    pub languages: Vec<LanguageUse>,
    /// CUDA / HIP / OpenMP / MPI / Kokkos / … hints, merged.
    pub features: Vec<FeatureHint>,
    /// What the build downloads (FetchContent, ExternalProject, submodules).
    pub downloads: Vec<DownloadFact>,
    /// Whether the primary build system installs anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install_rules: Option<InstallRules>,
    /// The directory holding the primary build file when it is not at
    /// the top (`src` for `src/CMakeLists.txt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_root: Option<Sourced<String>>,
    pub versions: VersionFacts,
    pub license: Option<LicenseFact>,
    pub homepage: Option<Sourced<String>>,
    pub description: Option<Sourced<String>>,
    /// The directory tree rendered within a character budget, for prompts.
    pub tree: String,
    pub warnings: Vec<AnalysisWarning>,
}

impl RepoFacts {
    /// Facts of a source nothing was read from (a recipe repaired without
    /// its project): every fact absent.
    pub fn empty(source: SourceInfo) -> Self {
        Self {
            schema_version: FACTS_SCHEMA_VERSION,
            source,
            name: None,
            build_systems: Vec::new(),
            primary_build_system: None,
            cmake: None,
            autotools: None,
            meson: None,
            python: None,
            cargo: None,
            go: None,
            npm: None,
            make: None,
            gi_requires: Vec::new(),
            includes: Vec::new(),
            hdf5_mpi_io: None,
            lazarus: None,
            version_flag: None,
            languages: Vec::new(),
            features: Vec::new(),
            downloads: Vec::new(),
            install_rules: None,
            build_root: None,
            versions: VersionFacts::default(),
            license: None,
            homepage: None,
            description: None,
            tree: String::new(),
            warnings: Vec::new(),
        }
    }
}
