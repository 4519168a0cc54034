//! Reader for Meson: the top-level `project()`, options, `dependency()` calls
//! in every meson.build reached by `subdir()`, subprojects and wrap files.

mod build_files;
mod lexer;
mod options;
mod wraps;

use crate::context::Ctx;
use packsmith_core::MesonFacts;

/// Reads the meson facts of the repository, or None when it has none.
pub fn analyze(ctx: &mut Ctx<'_>) -> Option<MesonFacts> {
    if !ctx.view.exists("meson.build") {
        return None;
    }
    let mut facts = MesonFacts::default();
    build_files::read_tree(ctx, &mut facts);
    options::read_options(ctx, &mut facts);
    wraps::read_subprojects(ctx, &mut facts);
    Some(facts)
}
