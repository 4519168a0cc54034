//! Everything one `packsmith nix SOURCE` run needs, as plain data.

use std::path::PathBuf;

use crate::runner::NixConfig;

/// What to package, with which Nix, and how the loop runs.
#[derive(Debug, Clone)]
pub struct NixRequest {
    /// A URL, `pypi:NAME`, `crate:NAME`, a local directory, or a local
    /// release archive (a path or `file://` URL).
    pub source: String,
    /// The revision to fetch (a tag or a commit); else the newest release
    /// tag of a repository.
    pub rev: Option<String>,
    pub name: Option<String>,
    pub version: Option<String>,
    /// The nixpkgs attribute the package will have (`python3Packages.foo`).
    pub attr_path: Option<String>,
    /// A nixpkgs checkout or commit; else `<nixpkgs>` from NIX_PATH.
    pub nixpkgs: Option<String>,
    /// Where clones and unpacked archives are kept.
    pub cache_dir: PathBuf,
    /// `nix-build` in Nix's sandbox (and the runtime check in bubblewrap).
    pub sandbox: bool,
    /// Host paths the build and the built program may see.
    pub sandbox_paths: Vec<String>,
    pub offline: bool,
    /// The runs directory; the run's is `<out>/<name>/`.
    pub out: PathBuf,
    pub replace: bool,
    pub max_iterations: u32,
    pub max_no_progress: u32,
    pub static_repairs: u32,
    pub refine: u32,
    /// Tools for the model.
    pub tools: bool,
    /// Ask the model about the project before attempt 1 (with a model).
    pub project_summary: bool,
    /// A recipe that was only parsed (no nixpkgs) ends as a success.
    pub allow_unbuilt: bool,
    /// nixpkgs maintainer handles (`--maintainer`) for `meta.maintainers`.
    pub maintainers: Vec<String>,
}

impl NixRequest {
    /// How Nix is run for this request.
    pub fn config(&self) -> NixConfig {
        NixConfig {
            sandbox: self.sandbox,
            extra_sandbox_paths: self.sandbox_paths.clone(),
            offline: self.offline,
            ..NixConfig::default()
        }
    }
}
