//! Facts read from Python packaging metadata.

use super::Evidence;
use serde::{Deserialize, Serialize};

/// A requirement with its PEP 508 specifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonRequirement {
    /// Normalised distribution name (lower case, `-`).
    pub name: String,
    /// Extras requested (`dask[array]` → `array`).
    pub extras: Vec<String>,
    /// Version specifier as written (`>=1.20,<3`), empty if none.
    pub specifier: String,
    /// Environment marker (`python_version < "3.11"`), if any.
    pub marker: Option<String>,
    pub evidence: Evidence,
}

/// `[project.optional-dependencies]` group or `extras_require` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonExtra {
    pub name: String,
    pub requirements: Vec<PythonRequirement>,
}

/// A console / GUI script entry point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonEntryPoint {
    pub name: String,
    /// `console`, `gui`, `script` (setup.py `scripts=`), or the entry-point group.
    pub kind: String,
    pub target: String,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonFacts {
    pub files: Vec<String>,
    /// The directory the metadata was found in: None at the top level, or a
    /// bindings directory such as `python` when the top level has none.
    pub subdir: Option<String>,
    /// `subdir` was read because its project declares the name asked for
    /// (one of several Python projects in the repository): it is the build.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub chosen_by_name: bool,
    /// Files the metadata names (licence, readme) that `subdir` lacks and
    /// the repository's top has: the recipe copies them in before the build.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_from_top: Vec<String>,
    pub name: Option<String>,
    pub name_evidence: Option<Evidence>,
    pub version: Option<String>,
    pub version_evidence: Option<Evidence>,
    /// `dynamic = ["version"]` etc.
    pub dynamic: Vec<String>,
    /// The PEP 517 backend (`setuptools.build_meta`, `hatchling.build`, …);
    /// `setuptools.build_meta:__legacy__` without a `[build-system]` table.
    pub build_backend: Option<String>,
    /// Environment variables that give the build its version when it reads
    /// it from git metadata (`SETUPTOOLS_SCM_PRETEND_VERSION` for
    /// setuptools-scm and hatch-vcs, `PDM_BUILD_SCM_VERSION`) and the tree
    /// has no `PKG-INFO`: a forge archive or checkout without `.git`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scm_version_env: Vec<String>,
    pub build_requires: Vec<PythonRequirement>,
    pub requires_python: Option<String>,
    pub dependencies: Vec<PythonRequirement>,
    pub extras: Vec<PythonExtra>,
    pub scripts: Vec<PythonEntryPoint>,
    /// True when entry points (scripts) exist: an application rather than a library.
    pub is_application: bool,
    pub license: Option<String>,
    pub homepage: Option<String>,
    pub description: Option<String>,
}

/// `gi.require_version('Gtk', '4.0')` in a Python source: a GObject
/// library the program loads through introspection at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GiRequire {
    pub namespace: String,
    pub version: String,
    pub evidence: Evidence,
}
