//! A `package.py` parsed once: its text, its syntax tree, the recipe read
//! from that tree, and (on first use) the layout of its classes with the
//! byte spans edits need. The static check, the edits and the repairs all
//! take this one value instead of parsing the text again.

use std::sync::OnceLock;

use tree_sitter::Tree;

use super::layout::{self, ClassLayout, Layout};
use super::ParsedRecipe;

/// One version of a recipe's text, parsed.
pub struct RecipeTree {
    source: String,
    /// The file's own parse (not the recovered one: a diagnostic or an edit
    /// must point into the file as written); `None` when the file was too
    /// large or took too long to parse.
    tree: Option<Tree>,
    recipe: ParsedRecipe,
    layout: OnceLock<Layout>,
}

impl std::fmt::Debug for RecipeTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecipeTree")
            .field("path", &self.recipe.path)
            .field("bytes", &self.source.len())
            .field("parsed", &self.tree.is_some())
            .finish()
    }
}

impl RecipeTree {
    /// Parses `source` (named `path` in diagnostics). Never fails: syntax
    /// errors are in [`ParsedRecipe::syntax_errors`].
    pub fn parse(source: &str, path: &str) -> Self {
        let (recipe, tree) = super::parse::parse(source, path);
        RecipeTree {
            source: source.to_string(),
            tree,
            recipe,
            layout: OnceLock::new(),
        }
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// What the recipe declares.
    pub fn recipe(&self) -> &ParsedRecipe {
        &self.recipe
    }

    /// Whether the file was parsed at all (within the size and time limits).
    pub fn parsed(&self) -> bool {
        self.tree.is_some()
    }

    /// Every module-level class with its calls, methods and spans.
    pub fn layout(&self) -> &Layout {
        self.layout.get_or_init(|| {
            self.tree
                .as_ref()
                .map(|t| layout::walk(&self.source, t))
                .unwrap_or_default()
        })
    }

    /// The package class's layout: the class the recipe reader chose.
    pub fn package_class(&self) -> Option<&ClassLayout> {
        let name = self.recipe.class_name.as_deref()?;
        self.layout().class(name)
    }
}
