//! Reader for autotools build metadata (not yet written).

use crate::context::Ctx;
use packsmith_core::AutotoolsFacts;

/// Reads the autotools facts of the repository, or None when it has none.
pub fn analyze(_ctx: &mut Ctx<'_>) -> Option<AutotoolsFacts> {
    None
}
