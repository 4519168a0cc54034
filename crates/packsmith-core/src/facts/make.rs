//! Facts of builds driven by a tool other than a configure system: a
//! plain Makefile (the libraries it links and the pkg-config modules it
//! queries, which a recipe must provide) and a Lazarus project.

use super::{Evidence, Sourced};
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
    /// Manual pages in the tree (`vi.1`, `man/tool.8`) that no Makefile
    /// installs or names: a packager installs them by hand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uninstalled_man_pages: Vec<String>,
    /// Where the build writes under `$(HOME)` (a cache, a package
    /// database): the package needs a writable HOME.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_home: Option<Evidence>,
    /// The programs the primary Makefile links that plain `make` does not
    /// build (its first rule makes an object or a pattern): a recipe
    /// names them in `build_targets`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unbuilt_programs: Vec<Sourced<String>>,
    /// Where their link lines write them, relative to the Makefile's
    /// directory (`..` for `-o ../$@`), when not beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub programs_written_to: Option<String>,
    /// Compiler variables set to an MPI wrapper outside any conditional
    /// (`CC = mpicc`): the build needs MPI.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mpi_compilers: Vec<Sourced<String>>,
}

/// A Lazarus (Free Pascal) project at the top of the tree: `lazbuild`
/// builds its `.lpi` file, for the widget set the project targets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LazarusProject {
    /// The `.lpi` file, relative to the root.
    pub project_file: String,
    /// The program it builds (`<Target><Filename Value=…>`), when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// `qt6`, `qt5`, `gtk2`, …: the project's `LCLWidgetType`, else the
    /// `--widgetset` (`--ws`) a build script in the tree passes lazbuild.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widgetset: Option<Sourced<String>>,
    /// The desktop entry the tree ships for the program, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desktop_file: Option<String>,
    /// The program's icons as (hicolor size, path): `128x128`, `scalable`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<(String, String)>,
    /// Units the sources use that load their library at run time with
    /// dlopen (`GL`, `GLU`): nothing links it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dynamic_units: Vec<Sourced<String>>,
}
