//! stub
use crate::context::Ctx;
use packsmith_core::PythonFacts;
pub fn analyze(_ctx: &mut Ctx<'_>) -> Option<PythonFacts> {
    None
}
