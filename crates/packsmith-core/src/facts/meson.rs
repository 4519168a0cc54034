//! Facts read from Meson build files.

use super::Evidence;
use serde::{Deserialize, Serialize};

/// An entry of meson_options.txt / meson.options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MesonOption {
    pub name: String,
    /// boolean, combo, string, integer, array, feature.
    pub option_type: String,
    /// The `value:` given, else Meson's implied default for the type.
    pub default: Option<String>,
    pub choices: Vec<String>,
    pub description: String,
    pub evidence: Evidence,
}

/// `dependency('name', version: …, required: …)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MesonDependency {
    pub name: String,
    pub version: Option<String>,
    /// `true`, `false`, or the expression given (`get_option('mpi')`).
    pub required: String,
    /// `fallback:` as written (a subproject meson may download), if any.
    pub fallback: Option<String>,
    /// Enclosing `if` conditions, outermost first.
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// `find_program('name', required: …)`: a tool the build runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MesonProgram {
    pub name: String,
    /// `true`, `false`, or the expression given.
    pub required: String,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MesonFacts {
    pub files: Vec<String>,
    pub project: Option<String>,
    pub version: Option<String>,
    pub languages: Vec<String>,
    pub license: Option<String>,
    pub meson_version: Option<String>,
    pub project_evidence: Option<Evidence>,
    pub options: Vec<MesonOption>,
    pub dependencies: Vec<MesonDependency>,
    /// The options file read (`meson_options.txt` or `meson.options`).
    pub options_file: Option<String>,
    /// `subproject(...)` / wrap files: things meson may download.
    pub subprojects: Vec<String>,
    /// `find_program()` calls, in the order read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<MesonProgram>,
    /// Modules imported (`gnome`, `i18n`, `python`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<String>,
}
