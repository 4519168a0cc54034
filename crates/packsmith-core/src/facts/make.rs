//! Facts read from a plain Makefile build: the libraries it links and the
//! pkg-config modules it queries, which a recipe must provide.

use super::Sourced;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MakefileFacts {
    /// Makefiles read, the primary one first, then those it includes and
    /// those of the subdirectories it builds.
    pub files: Vec<String>,
    /// Libraries linked by name (`foo` for `-lfoo`), without those every
    /// C toolchain brings (`m`, `pthread`, …).
    pub libraries: Vec<Sourced<String>>,
    /// Modules pkg-config is asked about, without version constraints.
    pub pkg_config_modules: Vec<Sourced<String>>,
    /// Whether the build queries pkg-config (a build-time tool).
    pub uses_pkg_config: bool,
    /// Build tools the Makefiles run that a toolchain does not bring
    /// (`msgfmt`, `glib-compile-resources`, …), each where first named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Sourced<String>>,
}
