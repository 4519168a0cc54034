//! CMake reader (not yet written).

use crate::context::Ctx;
use packsmith_core::CmakeFacts;

/// Reads the CMake facts of the repository, or None when it has none.
pub fn analyze(_ctx: &mut Ctx<'_>) -> Option<CmakeFacts> {
    None
}
