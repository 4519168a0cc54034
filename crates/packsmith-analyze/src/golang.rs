//! Reader for golang build metadata (not yet written).

use crate::context::Ctx;
use packsmith_core::GoFacts;

/// Reads the golang facts of the repository, or None when it has none.
pub fn analyze(_ctx: &mut Ctx<'_>) -> Option<GoFacts> {
    None
}
