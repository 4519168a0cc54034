//! What the edits read of one version of the recipe: the package class of
//! its [`RecipeTree`], with the byte spans of its bases, of its directive
//! calls (each argument too) and of its methods. Calls inside if/for/try
//! branches are left out: an edit there could not be sure it runs.

use crate::recipe::layout::{Attribute, Call, Method};
use crate::recipe::RecipeTree;

pub(super) use crate::recipe::layout::{indent_of, line_end, line_start};

/// A class-level call statement such as `depends_on("zlib", when="+z")`.
pub(super) type DirectiveCall = Call;

/// A method of the package class.
pub(super) type MethodSpan = Method;

/// A class-level assignment such as `parallel = False`.
pub(super) type AttributeSpan = Attribute;

/// The package class.
#[derive(Debug, Clone)]
pub(super) struct ClassSpan {
    pub name: String,
    /// Each base as written with its span.
    pub bases: Vec<(String, std::ops::Range<usize>)>,
    /// Where the class's last line ends.
    pub end: usize,
    pub body_indent: String,
    /// Where the line of the body's first statement starts.
    pub body_start: usize,
    /// The docstring's whole line(s), when the body opens with one.
    pub docstring: Option<std::ops::Range<usize>>,
    /// Assignments to plain names in the body (inside `with` blocks too).
    pub attributes: Vec<AttributeSpan>,
    pub directives: Vec<DirectiveCall>,
    pub methods: Vec<MethodSpan>,
}

/// What the edits read of one version of the recipe.
#[derive(Debug, Clone)]
pub(super) struct Reading {
    pub class: ClassSpan,
}

/// Parses and reads `source`; `Err` says why it cannot be edited.
pub(super) fn read(source: &str) -> Result<Reading, String> {
    read_tree(&RecipeTree::parse(source, "package.py"))
}

/// Reads a parsed recipe; `Err` says why it cannot be edited.
pub(super) fn read_tree(tree: &RecipeTree) -> Result<Reading, String> {
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
        class: ClassSpan {
            name: class.name.clone(),
            bases: class.bases.clone(),
            end: class.end,
            body_indent: class.body_indent.clone(),
            body_start: class.body_start,
            docstring: class.docstring.clone(),
            attributes: class.attributes.clone(),
            directives: class
                .calls
                .iter()
                .filter(|c| !c.in_branch)
                .cloned()
                .collect(),
            methods: class.methods.clone(),
        },
    })
}
