//! Facts read from Autotools inputs (configure.ac / configure.in).

use super::{Evidence, Sourced};
use serde::{Deserialize, Serialize};

/// `AC_ARG_ENABLE` or `AC_ARG_WITH`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutotoolsArg {
    /// `enable` or `with`.
    pub kind: String,
    /// The feature / package name (`mpi` for `--enable-mpi`).
    pub name: String,
    /// The help string as written (AS_HELP_STRING arguments joined).
    pub help: String,
    /// Default when the help or action states one, else None.
    pub default: Option<String>,
    pub evidence: Evidence,
}

/// `PKG_CHECK_MODULES(PREFIX, [mods])`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutotoolsPkgCheck {
    pub prefix: String,
    pub modules: Vec<String>,
    /// False when an action-if-not-found is given (the build copes without it).
    pub required: bool,
    /// Enclosing `AS_IF` / option-action conditions, outermost first.
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

/// `AC_CHECK_LIB(lib, func)`, `AC_SEARCH_LIBS`, `AC_CHECK_HEADERS(h…)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutotoolsCheck {
    /// The macro name.
    pub macro_name: String,
    /// Library or header names.
    pub names: Vec<String>,
    /// The function probed (`AC_CHECK_LIB`, `AC_SEARCH_LIBS`), if any.
    pub function: Option<String>,
    /// True when the action-if-not-found stops configure (`AC_MSG_ERROR`).
    pub required: bool,
    /// Enclosing `AS_IF` / option-action conditions, outermost first.
    pub conditions: Vec<String>,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutotoolsFacts {
    /// configure.ac / configure.in that was read, if any.
    pub file: Option<String>,
    pub package: Option<String>,
    pub version: Option<String>,
    pub bug_report: Option<String>,
    pub url: Option<String>,
    pub init_evidence: Option<Evidence>,
    /// False when the AC_INIT version is not a literal (m4_esyscmd, macros);
    /// `version` then holds the text as written.
    pub version_is_literal: bool,
    /// `autogen.sh` / `bootstrap` / `autogen` script at the top level, if any.
    pub bootstrap_script: Option<String>,
    /// `AC_CONFIG_SUBDIRS` directories (nested configure scripts).
    pub config_subdirs: Vec<String>,
    /// Whether a generated `configure` script ships (no autoreconf needed).
    pub has_configure_script: bool,
    /// The shipped `configure` lacks its executable bit (committed as mode
    /// 644): a build that runs `./configure` gets "Permission denied".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub configure_not_executable: bool,
    /// Installation directories configure.ac sets to a system path when
    /// left at their default (`test "$sysconfdir" = '${prefix}/etc' &&
    /// sysconfdir=/etc`): `sysconfdir`, `localstatedir`. `make install`
    /// then writes outside the prefix unless the option is given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub system_dirs: Vec<Sourced<String>>,
    /// Whether automake / libtool are used (Makefile.am, LT_INIT).
    pub uses_automake: bool,
    pub uses_libtool: bool,
    pub args: Vec<AutotoolsArg>,
    pub pkg_checks: Vec<AutotoolsPkgCheck>,
    pub checks: Vec<AutotoolsCheck>,
    /// Languages from AC_PROG_CC / AC_PROG_CXX / AC_PROG_FC …
    pub languages: Vec<String>,
}
