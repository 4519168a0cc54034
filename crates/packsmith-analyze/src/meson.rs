//! Reader for meson build metadata (not yet written).

use crate::context::Ctx;
use packsmith_core::MesonFacts;

/// Reads the meson facts of the repository, or None when it has none.
pub fn analyze(_ctx: &mut Ctx<'_>) -> Option<MesonFacts> {
    None
}
