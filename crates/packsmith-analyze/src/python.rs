//! Reader for python build metadata (not yet written).

use crate::context::Ctx;
use packsmith_core::PythonFacts;

/// Reads the python facts of the repository, or None when it has none.
pub fn analyze(_ctx: &mut Ctx<'_>) -> Option<PythonFacts> {
    None
}
