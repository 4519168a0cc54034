//! Reader for Spack `package.py` recipes.
//!
//! The reader never runs Python: it parses the file with tree-sitter and reads
//! the directives statically, so it works on broken recipes (what parsed is
//! kept, the errors are reported with their position) and on both Spack
//! generations (v0.x `builtin` repo and the v1 `spack_repo` package repo).
//!
//! Every item carries a 1-based `line` and a 1-based byte `col`.
//! Strings are kept as their actual content; expressions that are not
//! literals are kept as Python source text.

mod context;
mod defines;
mod directives;
mod imports;
mod indent;
pub mod layout;
mod parse;
mod pyval;
mod recover;
mod tree;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use pyval::{split_spec_head, Value};
pub use tree::RecipeTree;

/// Parse recipe text. Never panics; syntax errors end up in
/// [`ParsedRecipe::syntax_errors`] and everything that parsed is still read.
pub fn parse_recipe(source: &str, path: &str) -> ParsedRecipe {
    parse::parse(source, path).0
}

/// Read and parse a recipe file.
pub fn read_recipe(path: &Path) -> Result<ParsedRecipe, RecipeError> {
    let bytes = std::fs::read(path).map_err(|source| RecipeError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| RecipeError::NotUtf8 {
        path: path.display().to_string(),
        offset: e.utf8_error().valid_up_to(),
    })?;
    Ok(parse_recipe(&text, &path.display().to_string()))
}

/// Why a recipe file could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum RecipeError {
    #[error(
        "cannot read recipe {path}: {source}\nhint: check that the file exists and is readable"
    )]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "recipe {path} is not valid UTF-8 (first bad byte at offset {offset})\n\
         hint: Spack recipes are Python source; re-encode the file as UTF-8"
    )]
    NotUtf8 { path: String, offset: usize },
}

/// The hint is the `hint:` line of the text.
impl packsmith_core::Hint for RecipeError {}

/// Which Spack generation a recipe was written for, judged from its imports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpackGeneration {
    /// Spack 0.x: `from spack.package import *` (or `from spack import *`),
    /// build systems come from the star import.
    V0,
    /// Spack 1.x package repo: build systems imported from `spack_repo...`.
    V1,
    /// No Spack import found.
    #[default]
    Unknown,
}

/// One `import` / `from ... import ...` statement at module level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Import {
    /// Dotted module (`spack_repo.builtin.build_systems.cmake`).
    pub module: String,
    /// Imported names (`CMakePackage`, `*`); empty for `import module`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    pub line: u32,
    pub col: u32,
}

/// A class-level assignment (`homepage = "..."`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attribute {
    pub name: String,
    pub value: Value,
    pub line: u32,
    pub col: u32,
}

/// `version(...)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VersionDirective {
    /// The version string (source text when not a literal).
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Any other checksum: the positional second argument (old md5 style)
    /// or `md5=`/`sha512=`/... as `algo:value` (`positional:value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub preferred: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submodules: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get_full_repo: Option<Value>,
    /// Keyword arguments not modelled above (`expand`, `extension`, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
    /// Context note, e.g. the class-level `for` loop this came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// The allowed values of a variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VariantValues {
    /// A tuple or list literal.
    Items(Vec<Value>),
    /// Anything else (`any_combination_of(...)`, `disjoint_sets(...)`, a name).
    Expr(String),
}

/// `variant(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub name: String,
    /// Source text of `default=`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_source: Option<String>,
    /// Typed default when it is a literal (bool, str, int, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<VariantValues>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sticky: bool,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// `depends_on(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dependency {
    /// The spec as written (`cmake@3.9.0:`).
    pub spec: String,
    /// Leading package name (`cmake`); empty when the spec is not a literal.
    pub name: String,
    /// Version range right after the name (`3.9.0:`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// As written; empty means Spack's default (`build`, `link`).
    pub types: Vec<String>,
    /// `patches=` was given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub patches: bool,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: u32,
    pub col: u32,
}

impl Dependency {
    /// Types with Spack's default applied.
    pub fn effective_types(&self) -> Vec<String> {
        if self.types.is_empty() {
            vec!["build".to_string(), "link".to_string()]
        } else {
            self.types.clone()
        }
    }
}

/// `conflicts(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    pub spec: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// `requires(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Requirement {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub specs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// `provides(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provides {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub specs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// `patch(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Patch {
    /// URL or file name relative to the package directory.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Value>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// `resource(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// `extends(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extends {
    pub spec: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
    pub line: u32,
    pub col: u32,
}

/// `build_system(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildSystem {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// `license(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct License {
    pub license: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checked_by: Vec<String>,
    pub line: u32,
    pub col: u32,
}

/// A class-level call the reader does not model (`can_splice`, `redistribute`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OtherDirective {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// A method of the package class or of a builder class in the same file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Method {
    pub name: String,
    /// The class it is defined in (package class or e.g. `CMakeBuilder`).
    pub class: String,
    /// Decorators as source text without `@` (`run_after("install")`, `when("+mpi")`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorators: Vec<String>,
    pub line: u32,
    pub col: u32,
}

/// How a CMake define key was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefineHow {
    /// `define("KEY", ...)` / `self.define(...)`.
    Define,
    /// `define_from_variant("KEY", ...)`.
    DefineFromVariant,
    /// `from_variant("KEY", ...)`.
    FromVariant,
    /// `cmake_cache_option/string/path("KEY", ...)` (CachedCMakePackage).
    CacheEntry,
    /// A `-DKEY=...` string or f-string.
    DashD,
    /// A define call inside a loop over a literal list of names or tuples.
    Loop,
    /// A define call fed from a dict literal.
    Dict,
}

/// A CMake cache variable the recipe sets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DefineKey {
    pub key: String,
    pub how: DefineHow,
    /// The variant name for `define_from_variant`/`from_variant`, when literal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Enclosing function (`cmake_args`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// A parse error reported by tree-sitter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyntaxError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Everything read from one `package.py`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ParsedRecipe {
    pub path: String,
    pub generation: SpackGeneration,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<Import>,
    /// The package class; `None` when the file defines no Spack package class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_line: Option<u32>,
    /// Bases as written, dotted ones included (`cmake.CMakePackage`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<String>,
    /// Classes of the same file the package class derives from (e.g.
    /// `FftwBase`); their directives are read first, as Spack inherits them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_bases: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docstring: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_depth: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maintainers: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub licenses: Vec<License>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<VersionDirective>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<Dependency>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<Requirement>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provides: Vec<Provides>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patches: Vec<Patch>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<Resource>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extends: Vec<Extends>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_system: Option<BuildSystem>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_directives: Vec<OtherDirective>,
    /// Class-level assignments other than the ones modelled above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<Method>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub define_keys: Vec<DefineKey>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub syntax_errors: Vec<SyntaxError>,
}

impl ParsedRecipe {
    /// Whether the recipe has stand-alone tests for `spack test run`: a
    /// `test_*` method of its package or `import_modules`.
    pub fn has_stand_alone_tests(&self) -> bool {
        self.methods.iter().any(|m| m.name.starts_with("test"))
            || self.attributes.iter().any(|a| a.name == "import_modules")
    }

    /// True when the file defines a Spack package class.
    pub fn is_spack_recipe(&self) -> bool {
        self.class_name.is_some()
    }

    /// Names of the methods of the package class and its builders.
    pub fn has_method(&self, name: &str) -> bool {
        self.methods.iter().any(|m| m.name == name)
    }

    /// Distinct define keys, in first-seen order.
    pub fn define_key_names(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        self.define_keys
            .iter()
            .map(|d| d.key.as_str())
            .filter(|k| seen.insert(*k))
            .collect()
    }
}
