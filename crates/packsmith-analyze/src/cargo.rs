//! Reader for cargo build metadata (not yet written).

use crate::context::Ctx;
use packsmith_core::CargoFacts;

/// Reads the cargo facts of the repository, or None when it has none.
pub fn analyze(_ctx: &mut Ctx<'_>) -> Option<CargoFacts> {
    None
}
