//! Starting expressions per builder, in current nixpkgs style.
//!
//! Each builder file fills a [`Draft`]; the draft renders the package
//! function, taking exactly the inputs its text uses (nixfmt layout: one
//! input per line). `meta` is always there, with `FIXME` where a fact is
//! unknown rather than a silent guess.

mod build_tools;
mod cmake_tests;
mod derived;
mod frameworks;
mod gi_inputs;
mod go;
mod headers;
mod inputs;
mod lazarus;
mod license;
mod npm;
mod python;
mod python_checks;
mod python_env;
mod rust;
mod rust_inputs;
mod stdenv;
mod tauri;

use packsmith_core::markdown::plain_markdown;
use packsmith_core::{BuildSystemKind, RepoFacts};
use serde::{Deserialize, Serialize};

use crate::attr_path::{package_set, PackageSet};
use crate::fetch::{quote, FetcherCall, FetcherFn, NixValue};
pub use inputs::{autotools_inputs, cmake_inputs, make_inputs, meson_inputs, DerivedInputs};
pub use license::nixpkgs_license;
pub use npm::JsLock;
pub use rust_inputs::rust_inputs;
pub use tauri::TauriApp;

/// The builder a template starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Builder {
    Cmake,
    Meson,
    /// `autoreconf`: no generated configure script ships, so run autoreconfHook.
    Autotools {
        autoreconf: bool,
    },
    Make,
    PythonPackage,
    PythonApplication,
    Rust,
    Go,
    Npm,
    /// A Lazarus (Free Pascal) project built with `lazbuild`.
    Lazarus,
    Generic,
}

impl Builder {
    /// Every builder, for listing to a model.
    pub const ALL: &'static [Builder] = &[
        Self::Cmake,
        Self::Meson,
        Self::Autotools { autoreconf: false },
        Self::Autotools { autoreconf: true },
        Self::Make,
        Self::PythonPackage,
        Self::PythonApplication,
        Self::Rust,
        Self::Go,
        Self::Npm,
        Self::Lazarus,
        Self::Generic,
    ];

    /// The builder's name in prompts and answers (`python-package`).
    pub fn key(self) -> &'static str {
        match self {
            Self::Cmake => "cmake",
            Self::Meson => "meson",
            Self::Autotools { autoreconf: false } => "autotools",
            Self::Autotools { autoreconf: true } => "autotools-autoreconf",
            Self::Make => "make",
            Self::PythonPackage => "python-package",
            Self::PythonApplication => "python-application",
            Self::Rust => "rust",
            Self::Go => "go",
            Self::Npm => "npm",
            Self::Lazarus => "lazarus",
            Self::Generic => "generic",
        }
    }

    /// What the template is for, one line for a model choosing among them.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Cmake => "stdenv.mkDerivation with cmake (a CMakeLists.txt drives the build)",
            Self::Meson => "stdenv.mkDerivation with meson and ninja",
            Self::Autotools { autoreconf: false } => {
                "stdenv.mkDerivation for a shipped ./configure script"
            }
            Self::Autotools { autoreconf: true } => {
                "stdenv.mkDerivation with autoreconfHook (configure.ac but no ./configure)"
            }
            Self::Make => "stdenv.mkDerivation driven by a plain Makefile",
            Self::PythonPackage => "buildPythonPackage: a Python library others import",
            Self::PythonApplication => "buildPythonApplication: a Python command-line program",
            Self::Rust => "rustPlatform.buildRustPackage (Cargo)",
            Self::Go => "buildGoModule (go.mod)",
            Self::Npm => {
                "a package.json project locked by npm or pnpm (buildNpmPackage) or yarn (yarn hooks)"
            }
            Self::Lazarus => "stdenv.mkDerivation running lazbuild on a Lazarus project (.lpi)",
            Self::Generic => "stdenv.mkDerivation with hand-written phases",
        }
    }

    /// The builder named `key` (as [`Builder::key`] writes it).
    pub fn from_key(key: &str) -> Option<Self> {
        let key = key
            .trim()
            .trim_matches(['`', '"', '\'', '.'])
            .to_ascii_lowercase();
        Self::ALL.iter().copied().find(|b| b.key() == key)
    }

    /// The files one of which a tree this builder builds holds at its top
    /// (none for the generic builder).
    pub fn build_files(self) -> &'static [&'static str] {
        match self {
            Self::Cmake => &["CMakeLists.txt"],
            Self::Meson => &["meson.build"],
            Self::Autotools { .. } => &["configure.ac", "configure.in", "configure"],
            Self::Make => &["Makefile", "GNUmakefile", "makefile"],
            Self::PythonPackage | Self::PythonApplication => {
                &["pyproject.toml", "setup.py", "setup.cfg"]
            }
            Self::Rust => &["Cargo.toml"],
            Self::Go => &["go.mod"],
            Self::Npm => &["package.json"],
            // Named after the project: fits_tree looks for any `.lpi`.
            Self::Lazarus | Self::Generic => &[],
        }
    }

    /// Whether a tree rooted at `root` can be built this way: a model's
    /// pick of CMake for a tree with no CMakeLists.txt is refused.
    pub fn fits_tree(self, root: &std::path::Path) -> bool {
        if self == Self::Lazarus {
            let lpi = |e: std::fs::DirEntry| e.file_name().to_string_lossy().ends_with(".lpi");
            return std::fs::read_dir(root).is_ok_and(|mut d| d.any(|e| e.is_ok_and(lpi)));
        }
        let files = self.build_files();
        files.is_empty() || files.iter().any(|f| root.join(f).is_file())
    }

    /// Which `callPackage` the package file is written for.
    pub fn call_scope(self) -> CallScope {
        match self {
            Self::PythonPackage => CallScope::Python3Packages,
            _ => CallScope::TopLevel,
        }
    }
}

/// `pkgs.callPackage` (top level, `pkgs/by-name` style) or
/// `pkgs.python3Packages.callPackage` (`python-modules` style, where
/// `buildPythonPackage` and build backends are inputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallScope {
    TopLevel,
    Python3Packages,
}

impl CallScope {
    pub fn call_package(self) -> &'static str {
        match self {
            Self::TopLevel => "pkgs.callPackage",
            Self::Python3Packages => "pkgs.python3Packages.callPackage",
        }
    }
}

/// The builder for a package that will have the nixpkgs attribute `attr`,
/// when the facts leave no doubt: a module of a Python package set is
/// built with `buildPythonPackage` whatever else the tree builds (a Python
/// package with a CMake extension); otherwise as [`choose_template`].
pub fn choose_builder(facts: &RepoFacts, attr: Option<&str>) -> Option<Builder> {
    if attr.map(package_set) == Some(PackageSet::Python) && facts.python.is_some() {
        return Some(Builder::PythonPackage);
    }
    choose_template(facts)
}

/// Whether configure is generated anew (`autoreconfHook`): always when
/// none ships; and when the tree is a repository's (a forge archive, a
/// clone), whose committed configure is often stale and which nixpkgs
/// regenerates from configure.ac. A release tarball's configure is kept.
fn autoreconf(facts: &RepoFacts) -> bool {
    let Some(at) = facts.autotools.as_ref() else {
        return true;
    };
    !at.has_configure_script || (at.file.is_some() && facts.source.kind != "archive")
}

/// The builder when the facts leave no doubt, else None (a model picks).
pub fn choose_template(facts: &RepoFacts) -> Option<Builder> {
    let Some(primary) = facts.primary_build_system else {
        return facts.lazarus.as_ref().map(|_| Builder::Lazarus);
    };
    Some(match primary {
        BuildSystemKind::Cmake => Builder::Cmake,
        BuildSystemKind::Meson => Builder::Meson,
        BuildSystemKind::Autotools => Builder::Autotools {
            autoreconf: autoreconf(facts),
        },
        BuildSystemKind::Makefile => Builder::Make,
        BuildSystemKind::Python => {
            let py = facts.python.as_ref()?;
            // maturin packaging a Rust program (a Cargo binary): nixpkgs
            // builds the program with Cargo; the Python wheel is its
            // python3Packages attribute's business (choose_builder).
            let rust_program = facts.cargo.as_ref().is_some_and(|c| !c.binaries.is_empty());
            if py.build_backend.as_deref() == Some("maturin") && rust_program {
                Builder::Rust
            } else if py.is_application {
                Builder::PythonApplication
            } else {
                Builder::PythonPackage
            }
        }
        BuildSystemKind::Cargo => Builder::Rust,
        BuildSystemKind::Go => Builder::Go,
        // Without a lock file buildNpmPackage cannot work; a model decides.
        BuildSystemKind::Npm => {
            let npm = facts.npm.as_ref()?;
            if matches!(
                npm.lockfile.as_deref(),
                Some("package-lock.json" | "pnpm-lock.yaml" | "yarn.lock")
            ) {
                Builder::Npm
            } else {
                return None;
            }
        }
    })
}

/// What a template needs, independent of where it was learnt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateInput {
    pub pname: String,
    pub version: String,
    pub src: FetcherCall,
    pub description: Option<String>,
    pub homepage: Option<String>,
    /// SPDX id.
    pub license: Option<String>,
    pub main_program: Option<String>,
    /// The sources handle `--version`: the main program gets nixpkgs'
    /// `versionCheckHook` as its install check.
    #[serde(default)]
    pub version_check: bool,
    /// PEP 517 backend module (`hatchling.build`).
    pub python_build_backend: Option<String>,
    /// Go: a vendor/ directory ships (`vendorHash = null`).
    pub go_vendored: bool,
    /// Go: `package main` directories, for `subPackages`.
    pub go_binaries: Vec<String>,
    /// Write Python builders as `(finalAttrs: { … })`. Off by default:
    /// buildPythonPackage gained fixed-point arguments only in late 2025
    /// (nixpkgs PR 271387), after many pinned nixpkgs (NixBench's) were cut.
    pub python_final_attrs: bool,
    /// Inputs and flags read from the build system's dependency calls and
    /// options (CMake, Meson, Autotools, plain make), or for Cargo from the
    /// locked crates, `flags` then being `env` settings; empty for other
    /// builders.
    #[serde(default)]
    pub derived: DerivedInputs,
    /// Python: runtime requirements and build requirements besides the
    /// backend's own package, as nixpkgs Python attributes.
    #[serde(default)]
    pub python_dependencies: Vec<String>,
    /// Python: runtime requirements only macOS installs (a marker of
    /// `sys_platform == 'darwin'`), listed under `isDarwin`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub python_darwin_dependencies: Vec<String>,
    #[serde(default)]
    pub python_build_requires: Vec<String>,
    /// Python: `nativeCheckInputs` (`pytestCheckHook` and the test
    /// extra's requirements) when the project has tests.
    #[serde(default)]
    pub python_check_inputs: Vec<String>,
    /// The packaged project's directory inside the source (`python` of a
    /// monorepo), for `sourceRoot`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_root: Option<String>,
    /// A JavaScript project: which tool locked its dependencies.
    #[serde(default)]
    pub js_lock: JsLock,
    /// Rust: the package is a Tauri app (`cargo-tauri.hook`, its web
    /// frontend's dependencies, `cargoRoot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tauri: Option<TauriApp>,
    /// A Lazarus project: its `.lpi`, program and widget set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lazarus: Option<packsmith_core::LazarusProject>,
    /// nixpkgs maintainer handles (attributes of `lib.maintainers`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maintainers: Vec<String>,
    /// Plain make with no `install:` target: what `installPhase` copies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub make_install: Option<MakeInstall>,
    /// A Makefile shipped under another name (`Makefile.vanilla`): stdenv's
    /// `makefile` passes it to make with `-f` in every phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub makefile: Option<String>,
}

/// A Makefile that installs nothing: the programs `installPhase` copies.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MakeInstall {
    /// Programs plain `make` leaves unbuilt (its first rule makes an
    /// object): `buildFlags` names them. Empty when none is known.
    pub programs: Vec<String>,
    /// Where their link lines write them, relative to the Makefile's
    /// directory (`..`), when not beside it.
    pub written_to: Option<String>,
}

impl MakeInstall {
    /// For a plain-make project whose Makefile has no `install:` target.
    fn from_facts(facts: &RepoFacts) -> Option<Self> {
        let make = facts.primary_build_system == Some(BuildSystemKind::Makefile);
        let installs = facts.install_rules.as_ref().is_none_or(|r| r.present);
        if !make || installs {
            return None;
        }
        let m = facts.make.as_ref();
        Some(Self {
            programs: m
                .map(|m| m.unbuilt_programs.iter().map(|p| p.value.clone()).collect())
                .unwrap_or_default(),
            written_to: m.and_then(|m| m.programs_written_to.clone()),
        })
    }
}

impl TemplateInput {
    /// Fills the input from analysed facts and a fetcher call.
    pub fn from_facts(facts: &RepoFacts, pname: &str, version: &str, src: FetcherCall) -> Self {
        let py = facts.python.as_ref();
        let main_program = facts
            .cargo
            .as_ref()
            .and_then(|c| c.binaries.first().cloned())
            .or_else(|| py.and_then(|p| p.scripts.first().map(|s| s.name.clone())))
            .or_else(|| facts.npm.as_ref().and_then(|n| n.binaries.first().cloned()))
            .or_else(|| facts.cmake.as_ref().and_then(cmake_main_program))
            .or_else(|| facts.lazarus.as_ref().and_then(lazarus::main_program))
            .or_else(|| {
                facts.go.as_ref().and_then(|g| {
                    g.binaries.first().map(|b| {
                        let last = b.trim_end_matches('/').rsplit('/').next().unwrap_or(b);
                        if last == "." || last.is_empty() {
                            g.module
                                .as_deref()
                                .and_then(|m| m.rsplit('/').next())
                                .unwrap_or(pname)
                                .to_string()
                        } else {
                            last.to_string()
                        }
                    })
                })
            });
        Self {
            pname: pname.to_string(),
            version: version.to_string(),
            src,
            description: short_description(facts),
            homepage: facts.homepage.as_ref().map(|h| h.value.clone()),
            license: facts.license.as_ref().map(|l| l.spdx.clone()),
            version_check: main_program.is_some() && facts.version_flag.is_some(),
            main_program,
            python_build_backend: py.and_then(|p| p.build_backend.clone()),
            go_vendored: facts.go.as_ref().is_some_and(|g| g.has_vendor_dir),
            go_binaries: facts
                .go
                .as_ref()
                .map(|g| g.binaries.clone())
                .unwrap_or_default(),
            python_final_attrs: false,
            // A Makefile below the top is built where it is.
            source_root: (facts.primary_build_system == Some(BuildSystemKind::Makefile))
                .then(|| facts.build_root.as_ref().map(|r| r.value.clone()))
                .flatten(),
            make_install: MakeInstall::from_facts(facts),
            makefile: facts
                .build_systems
                .iter()
                .find_map(|b| b.makefile_under_another_name())
                .and_then(|f| f.rsplit('/').next())
                .map(str::to_string),
            js_lock: facts
                .npm
                .as_ref()
                .and_then(|n| n.lockfile.as_deref())
                .map_or(JsLock::Npm, JsLock::of_file),
            tauri: TauriApp::from_facts(facts),
            lazarus: facts.lazarus.clone(),
            maintainers: Vec::new(),
            python_dependencies: py
                .map(|p| python::nixpkgs_requirements(&p.dependencies))
                .unwrap_or_default(),
            python_darwin_dependencies: py
                .map(|p| python::darwin_requirements(&p.dependencies))
                .unwrap_or_default(),
            python_build_requires: py
                .map(|p| python::nixpkgs_requirements(&p.build_requires))
                .unwrap_or_default(),
            python_check_inputs: py
                .map(|p| python_checks::check_inputs(p, &facts.tree))
                .unwrap_or_default(),
            derived: derived_inputs(facts),
        }
    }
}

/// `meta.description` wants a short phrase: the one-line summary a
/// package manifest declares (PyPI's, crates.io's, npm's) when it says
/// something (three words or more), else the analysis' description (the
/// README's first prose).
fn short_description(facts: &RepoFacts) -> Option<String> {
    let manifest = facts
        .python
        .as_ref()
        .and_then(|p| p.description.clone())
        .or_else(|| facts.cargo.as_ref().and_then(|c| c.description.clone()))
        .or_else(|| facts.npm.as_ref().and_then(|n| n.description.clone()))
        // "Handler", "Python client": too little to say what it is.
        .filter(|d| d.split_whitespace().count() >= 3);
    manifest.or_else(|| facts.description.as_ref().map(|d| d.value.clone()))
}

/// What the primary build system's dependency calls ask of the
/// derivation; for a `stdenv` build (Meson, Autotools, make, CMake) also
/// the libraries a Makefile project's sources include and the GObject
/// libraries its Python sources load.
fn derived_inputs(facts: &RepoFacts) -> DerivedInputs {
    let mut derived = match facts.primary_build_system {
        Some(BuildSystemKind::Meson) => facts.meson.as_ref().map(meson_inputs).unwrap_or_default(),
        Some(BuildSystemKind::Autotools) => facts
            .autotools
            .as_ref()
            .map(autotools_inputs)
            .unwrap_or_default(),
        Some(BuildSystemKind::Makefile) => facts.make.as_ref().map(make_inputs).unwrap_or_default(),
        Some(BuildSystemKind::Cargo) => {
            return facts.cargo.as_ref().map(rust_inputs).unwrap_or_default()
        }
        Some(BuildSystemKind::Cmake) => cmake_derived(facts),
        _ => return cmake_derived(facts),
    };
    headers::add_included_libraries(&facts.includes, &mut derived);
    gi_inputs::add_gi_inputs(&facts.gi_requires, &mut derived);
    frameworks::add_framework_inputs(&facts.downloads, facts.cmake.as_ref(), &mut derived);
    if let Some(meson) = &facts.meson {
        build_tools::add_icon_cache_tool(meson, &mut derived);
        python_env::add_python_env(meson, !facts.gi_requires.is_empty(), &mut derived);
    }
    inputs::add_web_view_tls(&mut derived);
    derived
}

fn cmake_derived(facts: &RepoFacts) -> DerivedInputs {
    let Some(cmake) = &facts.cmake else {
        return DerivedInputs::default();
    };
    let mut derived = cmake_inputs(cmake, &facts.downloads);
    // `install(… DESTINATION "$ENV{HOME}/lib")`: the sandbox's home is
    // unwritable, and the files belong in $out.
    derived.post_patch = cmake
        .home_installs
        .iter()
        .map(|at| {
            format!(
                "substituteInPlace {} --replace-fail '$ENV{{HOME}}' \"$out\"",
                at.file
            )
        })
        .collect();
    derived
}

/// The one program a CMake project builds whatever its options, when it
/// builds exactly one that is no test, example or benchmark: nixpkgs wants
/// it as `meta.mainProgram`. Several, or none, leave it unset.
fn cmake_main_program(cmake: &packsmith_core::CmakeFacts) -> Option<String> {
    let mut programs = cmake.targets.iter().filter(|t| {
        let name = t.name.to_ascii_lowercase();
        t.kind == packsmith_core::CmakeTargetKind::Executable
            && t.conditions.is_empty()
            && cmake.installs.is_some()
            && !["test", "example", "bench", "demo"]
                .iter()
                .any(|w| name.contains(w))
    });
    let first = programs.next()?;
    programs.next().is_none().then(|| first.name.clone())
}

/// Renders the starting `package.nix` for `builder`.
pub fn render(builder: Builder, input: &TemplateInput) -> String {
    let draft = match builder {
        Builder::Cmake
        | Builder::Meson
        | Builder::Autotools { .. }
        | Builder::Make
        | Builder::Lazarus
        | Builder::Generic => stdenv::draft(builder, input),
        Builder::PythonPackage => python::draft(input, false),
        Builder::PythonApplication => python::draft(input, true),
        Builder::Rust => rust::draft(input),
        Builder::Go => go::draft(input),
        Builder::Npm => npm::draft(input),
    };
    draft.render()
}

/// A package function under construction.
#[derive(Debug, Default)]
pub(crate) struct Draft {
    /// Function inputs after `lib`, in first-use order.
    inputs: Vec<String>,
    /// `stdenv.mkDerivation (finalAttrs: {` and its closing `})`.
    open: String,
    close: String,
    /// Attribute blocks, separated by blank lines; each line unindented.
    blocks: Vec<Vec<String>>,
    /// `let` bindings before the derivation (`pythonEnv = …;`), as
    /// (name, value); their names are no function inputs.
    lets: Vec<(String, String)>,
}

impl Draft {
    /// `env.NAME = value;` for each setting (the Rust builder keeps them in
    /// `DerivedInputs::flags`), when there is any.
    pub(crate) fn env_settings(&mut self, settings: &[String]) {
        if !settings.is_empty() {
            self.block(settings.iter().map(|setting| format!("env.{setting};")));
        }
    }

    pub(crate) fn new(open: &str, close: &str) -> Self {
        Self {
            open: open.to_string(),
            close: close.to_string(),
            ..Self::default()
        }
    }

    /// Binds `name` in a `let` before the derivation.
    pub(crate) fn bind(&mut self, name: &str, value: String) -> &mut Self {
        self.inputs.retain(|i| i != name);
        self.lets.push((name.to_string(), value));
        self
    }

    pub(crate) fn input(&mut self, name: &str) -> &mut Self {
        let bound = self.lets.iter().any(|(n, _)| n == name);
        if !name.is_empty() && name != "lib" && !bound && !self.inputs.iter().any(|i| i == name) {
            self.inputs.push(name.to_string());
        }
        self
    }

    pub(crate) fn block<S: Into<String>>(
        &mut self,
        lines: impl IntoIterator<Item = S>,
    ) -> &mut Self {
        self.blocks
            .push(lines.into_iter().map(Into::into).collect());
        self
    }

    /// `pname`, `version` and `src` (the fetcher's function becomes an input).
    pub(crate) fn header(&mut self, input: &TemplateInput) -> &mut Self {
        self.block([
            format!("pname = {};", quote(&input.pname)),
            format!("version = {};", quote(&input.version)),
        ]);
        if input.src.function != FetcherFn::Path {
            self.input(input.src.function.name());
        }
        let src = format!("src = {};", input.src.render(0));
        self.block(src.lines().map(str::to_string).collect::<Vec<_>>());
        if let Some(dir) = &input.source_root {
            let src = if self.open.contains("finalAttrs") {
                "finalAttrs.src"
            } else {
                "src"
            };
            // A fetcher's result has a name; a local path is unpacked under
            // its base name.
            let top = if input.src.function == FetcherFn::Path {
                format!("baseNameOf {src}")
            } else {
                format!("{src}.name")
            };
            self.block([format!("sourceRoot = \"${{{top}}}/{dir}\";")]);
        }
        self
    }

    /// `name = [ a b ];` with each element an input.
    pub(crate) fn list(&mut self, name: &str, items: &[&str]) -> &mut Self {
        for i in items {
            self.input(i.split('.').next().unwrap_or(i));
        }
        self.block([format!("{name} = [ {} ];", items.join(" "))])
    }

    pub(crate) fn meta(&mut self, input: &TemplateInput) -> &mut Self {
        // The smoke test goes just before `meta`, whose program it runs.
        if input.version_check && input.main_program.is_some() {
            self.input(crate::install_check::HOOK);
            self.block(crate::install_check::lines());
        }
        let mut m = vec!["meta = {".to_string()];
        m.push(match &input.description {
            Some(d) => format!(
                "  description = {};",
                // "A demo tool that …" for `demo`: the article, then the name.
                quote(&without_leading_article(&without_own_name(
                    &without_leading_article(first_sentence(&plain_markdown(d))),
                    &input.pname
                )))
            ),
            None => "  description = \"FIXME: one line saying what this is\";".to_string(),
        });
        if let Some(h) = input.homepage.as_ref().filter(|h| !is_placeholder_url(h)) {
            m.push(format!("  homepage = {};", quote(h)));
        }
        // `A OR B` is a choice; nixpkgs writes a choice as the list of both.
        let choice: Option<Vec<&str>> = input
            .license
            .as_deref()
            .filter(|s| s.contains(" OR "))
            .and_then(|s| s.split(" OR ").map(nixpkgs_license).collect());
        m.push(match (choice, input.license.as_deref()) {
            (Some(attrs), _) => format!("  license = with lib.licenses; [ {} ];", attrs.join(" ")),
            (None, Some(spdx)) => match nixpkgs_license(spdx) {
                Some(attr) => format!("  license = lib.licenses.{attr};"),
                None => format!(
                    "  license = lib.licenses.free; # FIXME: map SPDX `{spdx}` to lib.licenses"
                ),
            },
            (None, None) => "  # FIXME: license = lib.licenses.<attr>;".to_string(),
        });
        if let Some(c) = changelog(&input.src, self.open.contains("finalAttrs")) {
            m.push(format!("  changelog = {};", quote(&c)));
        }
        m.push(match input.maintainers.as_slice() {
            [] => "  maintainers = [ ];".to_string(),
            handles => format!(
                "  maintainers = with lib.maintainers; [ {} ];",
                handles.join(" ")
            ),
        });
        // A library that exists only for Linux makes the package Linux-only.
        if linux_only_input(input).is_some() {
            m.push("  platforms = lib.platforms.linux;".to_string());
        }
        if let Some(p) = &input.main_program {
            m.push(format!("  mainProgram = {};", quote(p)));
        }
        m.push("};".to_string());
        self.block(m)
    }

    pub(crate) fn render(&self) -> String {
        let mut out = String::from("{\n  lib,\n");
        for i in &self.inputs {
            out.push_str(&format!("  {i},\n"));
        }
        out.push_str("}:\n\n");
        if !self.lets.is_empty() {
            out.push_str("let\n");
            for (name, value) in &self.lets {
                out.push_str(&format!("  {name} = {value};\n"));
            }
            out.push_str("in\n");
        }
        out.push_str(&self.open);
        out.push('\n');
        for (n, block) in self.blocks.iter().enumerate() {
            if n > 0 {
                out.push('\n');
            }
            for line in block {
                if line.is_empty() {
                    out.push('\n');
                    continue;
                }
                let laid_out = crate::conventions::expand_list(line);
                for l in laid_out.as_deref().unwrap_or(std::slice::from_ref(line)) {
                    out.push_str("  ");
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
        out.push_str(&self.close);
        out.push('\n');
        // The printer lays most lines out as nixfmt does; nixfmt itself has
        // the last word (lists of strings, long lines).
        crate::format::formatted_or_same(&out)
    }
}

/// A URL a generator left unfilled (OpenAPI Generator's
/// `https://github.com/GIT_USER_ID/GIT_REPO_ID`, a `{owner}` template).
fn is_placeholder_url(url: &str) -> bool {
    url.contains("GIT_USER_ID") || url.contains("GIT_REPO_ID") || url.contains(['{', '<'])
}

/// nixpkgs attributes of libraries that exist only on Linux (the
/// kernel's netlink and netfilter, udev, ALSA, the DDC/CI tool).
const LINUX_ONLY: &[&str] = &[
    "libmnl",
    "libnetfilter_queue",
    "libnfnetlink",
    "libnftnl",
    "systemdLibs",
    "udev",
    "alsa-lib",
    "ddcutil",
    "libcap",
    "libseccomp",
    "libbpf",
    "libnl",
    "pipewire",
];

/// The first build input that only Linux has, if any.
fn linux_only_input(input: &TemplateInput) -> Option<&str> {
    input
        .derived
        .build
        .iter()
        .map(String::as_str)
        .find(|a| LINUX_ONLY.contains(a))
}

/// The release notes of a GitHub tag: nixpkgs reviewers ask for
/// `meta.changelog` when the forge publishes releases. The tag is written
/// as the scope refers to it (`finalAttrs.src.tag`, or the literal tag).
fn changelog(src: &FetcherCall, final_attrs: bool) -> Option<String> {
    if src.function != FetcherFn::FetchFromGitHub {
        return None;
    }
    let arg = |k: &str| {
        src.args
            .iter()
            .find(|(n, _)| n == k)
            .and_then(|(_, v)| match v {
                NixValue::Str(s) => Some(s.clone()),
                NixValue::Expr(_) => None,
            })
    };
    let (owner, repo) = (arg("owner")?, arg("repo")?);
    src.args.iter().find(|(n, _)| n == "tag")?;
    let tag = if final_attrs {
        "${finalAttrs.src.tag}".to_string()
    } else {
        arg("tag").unwrap_or_else(|| "${src.tag}".to_string())
    };
    Some(format!(
        "https://github.com/{owner}/{repo}/releases/tag/{tag}"
    ))
}

/// nixpkgs descriptions do not start with the package's own name:
/// "heatsim solves …" becomes "Solves …", "foo is a tool …" "Tool …".
fn without_own_name(d: &str, pname: &str) -> String {
    // `cucumber-expressions` is written "Cucumber Expressions" in prose:
    // `-`, `_` and spaces count alike (each one byte, so offsets agree).
    let fold = |t: &str| t.to_ascii_lowercase().replace(['-', '_'], " ");
    let lower = fold(d);
    let name = fold(pname);
    let Some(rest) = lower
        .strip_prefix(&name)
        .filter(|r| r.starts_with([' ', ':', ',']))
        .map(|r| &d[d.len() - r.len()..])
    else {
        return d.to_string();
    };
    let rest = rest.trim_start_matches([' ', ':', ',', '-']);
    let rest = rest.strip_prefix("is ").unwrap_or(rest);
    let mut chars = rest.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => d.to_string(),
    }
}

/// nixpkgs descriptions start without an article: "Tool that …", not
/// "A tool that …"; the next word is capitalised.
fn capitalised(d: &str) -> String {
    let mut chars = d.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn without_leading_article(d: &str) -> String {
    // "This is a tool …" and the like open with the subject, then the
    // article: dropped only when a noun phrase follows ("This is done by
    // …" keeps its subject).
    let lead_ins = [
        "this is ",
        "this project is ",
        "this library is ",
        "this package is ",
        "it is ",
    ];
    let articles = ["a ", "an ", "the "];
    let starts = |text: &str, head: &str| {
        text.get(..head.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(head))
    };
    let d = lead_ins
        .iter()
        .find(|l| starts(d, l) && articles.iter().any(|a| starts(&d[l.len()..], a)))
        .map_or(d, |l| &d[l.len()..]);
    // "This repository contains an …", "This library implements …": what
    // follows the verb is the noun phrase.
    let verb_lead_ins = [
        "this repository contains ",
        "this repo contains ",
        "this project contains ",
        "this project provides ",
        "this library provides ",
        "this package provides ",
        "this crate provides ",
        "this project implements ",
        "this library implements ",
        "this package implements ",
    ];
    let after_verb = verb_lead_ins
        .iter()
        .find(|l| starts(d, l))
        .map(|l| capitalised(&d[l.len()..]));
    let d = after_verb.as_deref().unwrap_or(d);
    for article in ["a ", "an ", "the "] {
        let opens = d
            .get(..article.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(article));
        if let Some(rest) = d.get(article.len()..).filter(|_| opens) {
            let mut chars = rest.chars();
            if let Some(first) = chars.next() {
                return first.to_uppercase().chain(chars).collect();
            }
        }
    }
    d.to_string()
}

/// nixpkgs wants a short description without a trailing period.
fn first_sentence(d: &str) -> &str {
    let d = d.trim();
    let end = d.find(". ").map_or(d.len(), |i| i);
    let s = d[..end].trim_end_matches('.');
    if s.len() <= 120 {
        return s;
    }
    // Too long: end at the last whole clause (or else word) within 120
    // bytes, never in the middle of a word or after a dangling comma.
    let mut cut = 120;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &s[..cut];
    let at = head
        .rfind([',', ';', ':', '('])
        .filter(|&i| i >= 40)
        .or_else(|| head.rfind(' '))
        .unwrap_or(cut);
    let mut s = head[..at].trim_end_matches([' ', ',', ';', ':', '(', '-']);
    // A cut after "for UTI and" leaves a phrase hanging on its last word.
    while let Some((rest, last)) = s.rsplit_once(' ') {
        if !crate::conventions::DANGLING.contains(&last.to_ascii_lowercase().as_str()) {
            break;
        }
        s = rest.trim_end_matches([' ', ',', ';', ':', '(', '-']);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{
        changelog, first_sentence, plain_markdown, without_leading_article, without_own_name,
    };
    use crate::fetch::{FetcherCall, FetcherFn, NixValue};

    #[test]
    fn a_generator_placeholder_is_no_homepage() {
        assert!(super::is_placeholder_url(
            "https://github.com/GIT_USER_ID/GIT_REPO_ID"
        ));
        assert!(super::is_placeholder_url("https://github.com/{owner}/x"));
        assert!(!super::is_placeholder_url("https://example.org/heatsim"));
    }

    #[test]
    fn markdown_links_become_their_text() {
        let d = plain_markdown(
            "Cucumber Expressions is an alternative to [Regular Expressions](https://en.wikipedia.org/wiki/Regular_expression) with a **more** `intuitive` syntax",
        );
        assert_eq!(
            first_sentence(&d),
            "Cucumber Expressions is an alternative to Regular Expressions with a more intuitive syntax"
        );
    }

    #[test]
    fn the_package_name_does_not_open_the_description() {
        let d = without_own_name("heatsim solves the heat equation", "heatsim");
        assert_eq!(d, "Solves the heat equation");
        let d = without_own_name("Quill is a tool for quills", "quill");
        assert_eq!(without_leading_article(&d), "Tool for quills");
        assert_eq!(
            without_leading_article("a zsh plugin that reloads"),
            "Zsh plugin that reloads"
        );
        assert_eq!(
            without_leading_article("This is a prometheus exporter for fastd"),
            "Prometheus exporter for fastd"
        );
        assert_eq!(
            without_own_name("Quill: fast quills", "quill"),
            "Fast quills"
        );
        assert_eq!(
            without_own_name(
                "Cucumber Expressions is an alternative to Regular Expressions",
                "cucumber-expressions"
            ),
            "An alternative to Regular Expressions"
        );
        // Another word that merely starts with the name stays.
        assert_eq!(without_own_name("Quillo reads", "quill"), "Quillo reads");
        assert_eq!(without_own_name("quill", "quill"), "quill");
    }

    #[test]
    fn a_github_tag_has_a_changelog() {
        let call = |tag: Option<&str>| FetcherCall {
            function: FetcherFn::FetchFromGitHub,
            args: [("owner", "o"), ("repo", "r")]
                .into_iter()
                .chain(tag.map(|t| ("tag", t)))
                .map(|(k, v)| (k.to_string(), NixValue::Str(v.to_string())))
                .collect(),
        };
        assert_eq!(
            changelog(&call(Some("v${finalAttrs.version}")), true).as_deref(),
            Some("https://github.com/o/r/releases/tag/${finalAttrs.src.tag}")
        );
        assert_eq!(
            changelog(&call(Some("v${version}")), false).as_deref(),
            Some("https://github.com/o/r/releases/tag/v${version}")
        );
        // A commit has no release notes.
        assert_eq!(changelog(&call(None), true), None);
    }

    #[test]
    fn leading_articles_are_dropped() {
        assert_eq!(without_leading_article("A demo tool"), "Demo tool");
        assert_eq!(without_leading_article("An editor"), "Editor");
        assert_eq!(without_leading_article("Another tool"), "Another tool");
        assert_eq!(
            without_leading_article("This repository contains an implementation of Haskell"),
            "Implementation of Haskell"
        );
        assert_eq!(
            without_leading_article("This library implements Kaitai Struct API for C++"),
            "Kaitai Struct API for C++"
        );
        assert_eq!(
            without_leading_article("This crate provides fast hashing"),
            "Fast hashing"
        );
        // Not a noun phrase after "This is": the sentence stays whole.
        assert_eq!(
            without_leading_article("This is done by hacking miniz"),
            "This is done by hacking miniz"
        );
    }

    #[test]
    fn long_descriptions_end_on_a_whole_clause() {
        let d = "A 2-D heat-equation solver for structured grids with MPI domain decomposition, OpenMP threads, CUDA offload and HDF5 checkpoints";
        let s = first_sentence(d);
        assert!(s.len() <= 120, "{s}");
        assert_eq!(
            s,
            "A 2-D heat-equation solver for structured grids with MPI domain decomposition, OpenMP threads"
        );
        let hanging = "While designed for macOS, utitools also works on other platforms by falling back to a cached dictionary for UTI and extension mappings loaded via a CSV file";
        assert_eq!(
            first_sentence(hanging),
            "While designed for macOS, utitools also works on other platforms by falling back to a cached dictionary for UTI"
        );
        let words = "word ".repeat(40);
        let s = first_sentence(&words);
        assert!(s.len() <= 120 && s.ends_with("word"), "{s}");
    }

    #[test]
    fn short_descriptions_keep_their_first_sentence() {
        assert_eq!(first_sentence("Does one thing. More."), "Does one thing");
    }
}
