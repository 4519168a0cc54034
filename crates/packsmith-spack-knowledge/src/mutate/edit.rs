//! What every mutation class works with: the recipe in context and one
//! text edit. A leaf the class modules share, so they do not import each
//! other's files.

use std::collections::BTreeSet;
use std::ops::Range;

use super::span::{self, call_at, CallSpan};
use crate::recipe::ParsedRecipe;

/// What every class looks at.
pub(super) struct Ctx<'a> {
    pub source: &'a str,
    pub recipe: &'a ParsedRecipe,
    pub package: &'a str,
    pub known: &'a dyn Fn(&str) -> bool,
}

/// One way to break the recipe: replace `range` by `replacement`.
#[derive(Debug, Clone)]
pub(super) struct Edit {
    pub range: Range<usize>,
    pub replacement: String,
    pub description: String,
    /// 1-based line the change shows at.
    pub line: u32,
}

impl Edit {
    pub fn new(
        ctx: &Ctx,
        range: Range<usize>,
        replacement: impl Into<String>,
        description: String,
    ) -> Self {
        Edit {
            line: span::line_of(ctx.source, range.start),
            range,
            replacement: replacement.into(),
            description,
        }
    }

    pub fn apply(&self, source: &str) -> Option<String> {
        let before = source.get(..self.range.start)?;
        let after = source.get(self.range.end..)?;
        Some(format!("{before}{}{after}", self.replacement))
    }
}

impl Ctx<'_> {
    /// The calls to `name` at the reader's positions, once each (a loop
    /// body is read once per row), in source order.
    pub fn calls(
        &self,
        name: &str,
        positions: impl Iterator<Item = (u32, u32)>,
    ) -> Vec<((u32, u32), CallSpan)> {
        let positions: BTreeSet<(u32, u32)> = positions.collect();
        positions
            .into_iter()
            .filter_map(|(line, col)| Some(((line, col), call_at(self.source, line, col, name)?)))
            .collect()
    }

    pub fn dependency_calls(&self) -> Vec<CallSpan> {
        let deps = self.recipe.dependencies.iter().map(|d| (d.line, d.col));
        self.calls("depends_on", deps)
            .into_iter()
            .map(|(_, c)| c)
            .collect()
    }

    /// The bytes of a range (empty when it is not one).
    pub fn text(&self, range: &Range<usize>) -> &str {
        self.source.get(range.clone()).unwrap_or("")
    }
}
