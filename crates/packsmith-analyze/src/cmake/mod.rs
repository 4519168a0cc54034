//! CMake reader: parses the CMake files a configure run would reach from the
//! top-level `CMakeLists.txt` and extracts what a packager needs, each fact
//! with its file, line and enclosing conditions.
//!
//! - [`lexer`]: cmake-language(7) tokens → flat command list
//! - [`parser`]: block structure (if/else, loops, functions, block)
//! - [`cond`]: readable conditions and their negations
//! - [`vars`]: variables, expansion, path resolution
//! - [`walk`]: following files, conditions, function calls
//! - [`extract`]: commands → facts
//! - [`features`]: feature hints and languages

mod cond;
mod extract;
mod features;
pub mod lexer;
pub mod parser;
mod vars;
mod walk;

use crate::context::Ctx;
use packsmith_core::CmakeFacts;

/// Reads the CMake facts of the repository, or None when it has no
/// top-level `CMakeLists.txt`.
pub fn analyze(ctx: &mut Ctx<'_>) -> Option<CmakeFacts> {
    if !ctx.view.exists("CMakeLists.txt") {
        return None;
    }
    let mut walker = walk::Walker::new(ctx);
    walker.run("CMakeLists.txt");
    let choices = std::mem::take(&mut walker.choices);
    let fallback = walker.split_version();
    let mut facts = walker.facts;
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
