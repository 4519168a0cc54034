//! Reader for npm build metadata (not yet written).

use crate::context::Ctx;
use packsmith_core::NpmFacts;

/// Reads the npm facts of the repository, or None when it has none.
pub fn analyze(_ctx: &mut Ctx<'_>) -> Option<NpmFacts> {
    None
}
