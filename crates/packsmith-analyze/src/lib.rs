//! Repository inspection: turns a source tree into [`RepoFacts`].
//!
//! Each build system has its own reader module; they share a [`Ctx`] that
//! collects warnings and the cross-cutting findings (languages, feature
//! hints, downloads). Analysis never fails on bad content: it records a
//! warning and returns partial facts.
//!
//! It fails only when the input itself is wrong (a missing path, not a
//! directory, no recognisable project, a failed clone), with an
//! [`AnalyzeError`] that carries a hint. Unreadable, binary, non-UTF-8, huge
//! or unparsable files become `AnalysisWarning { file, line, message }`.
//!
//! The pipeline: `source::resolve` (a path read in place; a URL cloned into
//! the cache), then [`analyze_dir`] (in `assemble`): [`RepoView::walk`]
//! (bounded, symlink-loop-safe file index; capped, binary-aware reads; no
//! `stat`, the directory entry's type is enough) →
//! `detect` (every build system with its shallowest evidence; the primary one
//! by depth, then priority CMake > Meson > Autotools > Cargo > Go > Python >
//! npm > Make, unless a Python backend drives the native build) → the readers
//! → `assemble` (name, version, licence, homepage and description merged by
//! precedence; versions from git tags; the tree within a character budget).
//!
//! Modules:
//! - `source`: a path or a clone. A clone is checked out at its newest
//!   release tag (`SourceInfo::release_tag`). `resolve` reports through a
//!   progress callback, stops a clone that stalls, and on Ctrl-C kills git,
//!   removes the partial `.clone-*` directory and returns
//!   `AnalyzeError::Interrupted` (the binary exits 130).
//! - `archive`: a local release archive (a path or `file://` URL) unpacked
//!   once into the cache (`unpack`), for `packsmith nix` and `repair --source`.
//! - `summary`: the one-screen, human summary of `RepoFacts` (`render`), for
//!   `packsmith analyze` and the Nix prompts.
//! - `view`, `detect`, `context` (`Ctx`), `support` (shared line, INI, TOML
//!   and JSON helpers).
//! - `cmake/`: a hand-written lexer and parser (no tree-sitter: the grammar is
//!   small, and line numbers stay exact on broken input). `walk` follows
//!   `add_subdirectory` and `include` from the top `CMakeLists.txt` (or
//!   `src/CMakeLists.txt` when none sits at the top), carrying the enclosing
//!   `if()` conditions; it does not read every `*.cmake` file. It reads `else(X)` as a
//!   repetition, conditions the rest of a file on X after
//!   `if(NOT X) return() endif()`, and walks a `foreach` over package names
//!   once per item. Computed directories are followed where the walk can
//!   know them: a `foreach` over literals or a `file(GLOB)` (`glob`,
//!   evaluated on the walk's file list, capped), and VTK-style module systems
//!   (`modules`: every `vtk.module` directory `vtk_module_find_modules` or
//!   `vtk_module_scan` names is read at `vtk_module_build`). `downloads` reads FetchContent, ExternalProject, CPM,
//!   `file(DOWNLOAD)` and `git clone` with the switch around each. `targets`
//!   reads the built targets and which packages are required (a
//!   `FATAL_ERROR` under `if(NOT X_FOUND)`, with `required_when` for
//!   further conditions). `steps` reads code generators (`bison_target`,
//!   `flex_target`) and copies into `$HOME`. `generator` reads the generator
//!   upstream configures with (presets, then CI files).
//! - `autotools/` (m4 args, probes, conditions), `meson/` (build files,
//!   options, wraps, `find_program`, `gnome.post_install`), `python/`
//!   (pyproject, setup.cfg, setup.py, PEP 508 requirements), `cargo` (also a
//!   Tauri app's `src-tauri/` and `Cargo.lock`), `golang`, `npm`.
//! - `makefile/`: a plain Makefile's libraries, pkg-config modules and build
//!   tools, with variables expanded and `ifeq`/`ifdef` decided from the
//!   Makefile's own defaults; included and sub-Makefiles (bounded); `man`
//!   the manual pages no Makefile installs; where the build writes under
//!   `$HOME`; `install_dest` where `make install` copies when no usual
//!   prefix variable says (a variable set under `ifdef`, or `$HOME`).
//! - `includes`: the system headers a plain-Makefile project's C and C++
//!   sources include outside every preprocessor condition.
//! - `lazarus` (a Lazarus `.lpi` project), `pascal_units` (units that dlopen
//!   their library), `gi` (GObject namespaces Python sources require).
//! - `sources`: languages from file extensions, `.gitmodules`.
//! - `layout`: read after the readers: the build root, whether the primary
//!   build system installs anything (and the install prefix variable), the
//!   public-header directory, the empty submodules the build needs.
//! - `versions` and `git`: tags → versions and their ordering; archive URLs
//!   through `packsmith_core::forge`. Git is read from the `.git` files
//!   (`packed-refs` included); only loose tags need a `git` command.
//!   `source::export_tag` writes a tag's tree elsewhere (`git archive`),
//!   `source::tag_for_version` finds the tag of a version. The
//!   probe runs on a thread during the walk.
//! - `license/`: SPDX identifiers from the clauses only that licence has,
//!   the matching line kept as evidence; `later` decides `-or-later` from the
//!   project's own text. An unknown licence file is `LicenseRef-unknown`.
//! - `readme`: the description, in tiers (the opening paragraph, the title's
//!   tagline, an Overview section), skipping badges, notices, instructions
//!   and tables of contents.
//! - `tree`: the file tree rendered within a character budget.
//!
//! Each fixture under `tests/fixtures/` has an insta snapshot of its whole
//! `RepoFacts`.

pub mod archive;
mod assemble;
mod autotools;
mod cargo;
mod cli;
pub mod cmake;
mod context;
mod detect;
mod error;
mod gi;
mod git;
mod golang;
mod includes;
mod layout;
mod lazarus;
mod license;
mod makefile;
mod meson;
mod npm;
mod pascal_units;
mod python;
mod readme;
pub mod source;
mod sources;
pub mod summary;
mod support;
pub mod tree;
pub mod versions;
pub mod view;

pub use assemble::{analyze_dir, analyze_dir_for};
pub use context::Ctx;
pub use error::AnalyzeError;
pub use packsmith_core::RepoFacts;
pub use view::RepoView;
