//! What the edits read of one version of the recipe: the package class of
//! its [`RecipeTree`], with the byte spans of its bases, of its directive
//! calls (each argument too) and of its methods. Calls inside if/for/try
//! branches are left out: an edit there could not be sure it runs.

use crate::recipe::layout::{Call, ClassLayout, Method};
use crate::recipe::RecipeTree;

pub(super) use crate::recipe::layout::{indent_of, line_end, line_start};

/// A class-level call statement such as `depends_on("zlib", when="+z")`.
pub(super) type DirectiveCall = Call;

/// A method of the package class.
pub(super) type MethodSpan = Method;

/// What the edits read of one version of the recipe: the package class
/// of its tree, and its calls outside if/for/try branches.
#[derive(Debug, Clone)]
pub(super) struct Reading<'t> {
    pub class: &'t ClassLayout,
    pub directives: Vec<&'t DirectiveCall>,
}

/// Reads a parsed recipe; `Err` says why it cannot be edited.
pub(super) fn read_tree(tree: &RecipeTree) -> Result<Reading<'_>, String> {
    if !tree.parsed() {
        return Err("the recipe could not be parsed in time".into());
    }
    let package_name = tree
        .recipe()
        .class_name
        .as_deref()
        .ok_or("the recipe defines no package class")?;
    let class = tree
        .package_class()
        .ok_or_else(|| format!("class {package_name} not found"))?;
    Ok(Reading {
        class,
        directives: class.calls.iter().filter(|c| !c.in_branch).collect(),
    })
}
