//! Facts read from Python packaging metadata.

use super::Evidence;
use serde::{Deserialize, Serialize};

/// A requirement with its PEP 508 specifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonRequirement {
    /// Normalised distribution name (lower case, `-`).
    pub name: String,
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
    pub target: String,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonFacts {
    pub files: Vec<String>,
    pub name: Option<String>,
    pub version: Option<String>,
    /// `dynamic = ["version"]` etc.
    pub dynamic: Vec<String>,
    /// The PEP 517 backend (`setuptools.build_meta`, `hatchling.build`, …);
    /// None with a bare setup.py (legacy setuptools).
    pub build_backend: Option<String>,
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
