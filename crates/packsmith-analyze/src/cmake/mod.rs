//! CMake reader: parses the CMake files a configure run would reach from the
//! top-level `CMakeLists.txt` and extracts what a packager needs, each fact
//! with its file, line and enclosing conditions.
//!
//! - [`lexer`]: cmake-language(7) tokens → flat command list
//! - [`parser`]: block structure (if/else, loops, functions, block)
//! - [`cond`]: readable conditions and their negations
//! - [`vars`]: variables, expansion, path resolution
//! - [`walk`]: following files, conditions, function calls
//! - [`glob`]: `file(GLOB)` evaluated on the tree, for loops over it
//! - [`modules`]: the module directories of a VTK-style module system
//! - [`extract`]: commands → facts
//! - [`features`]: feature hints and languages
//! - [`downloads`]: what a download fetches and the switch that turns it off
//! - [`targets`]: built targets and the paths a configure insists on
//! - [`steps`]: code generators and copies into the user's home
//! - [`generator`]: the generator upstream's presets or CI configure with

mod cond;
mod downloads;
mod extract;
mod features;
mod generator;
mod glob;
pub mod lexer;
mod modules;
pub mod parser;
mod state;
mod steps;
mod targets;
pub(crate) mod vars;
mod walk;

pub(crate) use downloads::upstream_name;

use crate::context::Ctx;
use crate::view::RepoView;
use packsmith_core::{BuildSystemFact, BuildSystemKind, CmakeFacts};

/// The directory whose `CMakeLists.txt` is the top of the build: the
/// repository's top when it has one; else, when no build file at all sits
/// at the top, the shallowest `CMakeLists.txt` outside tests and vendored
/// code (`src/`), which a recipe names in `root_cmakelists_dir`; a build
/// file that reads outside the repository is no build of its own.
/// `systems`: what `detect::detect` found in the tree.
pub(crate) fn cmake_root(view: &RepoView, systems: &[BuildSystemFact]) -> Option<String> {
    if view.exists("CMakeLists.txt") {
        return Some(String::new());
    }
    // A build that reads files outside the repository is not the
    // project's own (detect::choose_primary): it does not count here.
    let systems: Vec<_> = systems
        .iter()
        .filter(|s| s.reads_outside_tree.is_none())
        .collect();
    if systems.iter().any(|s| s.depth == 0) {
        return None;
    }
    let cmake = systems.iter().find(|s| s.kind == BuildSystemKind::Cmake)?;
    let min_depth = systems.iter().map(|s| s.depth).min()?;
    if cmake.depth != min_depth {
        return None;
    }
    let dir = cmake.evidence.file.rsplit_once('/')?.0;
    Some(dir.to_string())
}

/// Reads the CMake facts of the repository, or None when it has no
/// `CMakeLists.txt` at the top of its build ([`cmake_root`]).
pub fn analyze(ctx: &mut Ctx<'_>) -> Option<CmakeFacts> {
    let systems = crate::detect::detect(ctx.view);
    analyze_with(ctx, &systems)
}

/// [`analyze`] with the build systems the caller detected already.
pub(crate) fn analyze_with(ctx: &mut Ctx<'_>, systems: &[BuildSystemFact]) -> Option<CmakeFacts> {
    let root = cmake_root(ctx.view, systems)?;
    let mut walker = state::Walker::new(ctx);
    walker.run_in(&root);
    let choices = std::mem::take(&mut walker.choices);
    let fallback = walker.split_version();
    let mut facts = walker.facts;
    facts.upstream_generator = generator::upstream_generator(ctx, &root);
    if let Some(p) = facts.project.as_mut() {
        if p.version.is_none() {
            p.version = fallback;
        }
    }
    for (name, values) in choices {
        for var in facts.cache_vars.iter_mut().filter(|v| v.name == name) {
            var.choices.clone_from(&values);
        }
    }
    Some(facts)
}
