//! The static check: linter-style diagnostics for a `package.py` in
//! milliseconds, before Spack is started. The bar is zero false alarms on
//! the real builtin repositories: a rule that cannot be sure stays quiet
//! (or warns) rather than report an error.

mod class_body;
mod codes;
mod fetch;
mod imports;
mod markdown;
mod names;
mod self_dependency;
mod signatures;
mod specs;
mod variant_args;
pub(crate) mod variants;
mod version_args;

use serde::Serialize;

pub use codes::{Code, Severity};
pub use markdown::{strip_markdown, Cleaned};
pub use names::spack_class_name;
pub use signatures::{directive_keywords, quoted_words, DEPENDENCY_TYPES};

use crate::kb::NameIndex;
use crate::recipe::layout::Layout;
use crate::recipe::{ParsedRecipe, RecipeTree};
use crate::target::TargetSpack;

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl Diagnostic {
    pub fn new(code: Code, line: u32, col: u32, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.severity(),
            line,
            col,
            message: message.into(),
        }
    }

    /// `file:line:col: error[PS501] bad-spec: message`.
    pub fn render(&self, file: &str) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        format!(
            "{file}:{}:{}: {sev}[{}] {}: {}",
            self.line,
            self.col,
            self.code,
            self.code.slug(),
            self.message
        )
    }
}

#[derive(Debug, Clone, Copy)]
pub struct CheckOptions<'a> {
    pub spack: TargetSpack,
    /// Package and virtual names; without them, dependency names are not checked.
    pub names: Option<&'a NameIndex>,
    /// The package name the class must match (`None`: skip that rule).
    pub package: Option<&'a str>,
}

/// Everything the rules look at.
pub(crate) struct Input<'a> {
    pub recipe: &'a ParsedRecipe,
    pub layout: &'a Layout,
    pub opts: &'a CheckOptions<'a>,
}

/// Checks recipe text; diagnostics sorted by position.
pub fn check_source(source: &str, path: &str, opts: &CheckOptions) -> Vec<Diagnostic> {
    check(&RecipeTree::parse(source, path), opts)
}

/// Checks a parsed recipe; diagnostics sorted by position.
pub fn check(tree: &RecipeTree, opts: &CheckOptions) -> Vec<Diagnostic> {
    let source = tree.source();
    let recipe = tree.recipe();
    let mut out = Vec::new();
    markdown::check(source, recipe, &mut out);
    for e in &recipe.syntax_errors {
        out.push(Diagnostic::new(
            Code::Syntax,
            e.line,
            e.col,
            e.message.clone(),
        ));
    }
    if !recipe.is_spack_recipe() {
        out.push(Diagnostic::new(
            Code::NotARecipe,
            1,
            1,
            "no Spack package class found (expected `class Name(SomePackage):`)",
        ));
        sort(&mut out);
        return out;
    }
    let input = Input {
        recipe,
        layout: tree.layout(),
        opts,
    };
    specs::check(&input, &mut out);
    // A syntax error hides part of the class from the tree, so rules that
    // reason about what is absent (imports, class, versions, variants)
    // would raise false alarms; the syntax error comes first anyway.
    if recipe.syntax_errors.is_empty() {
        imports::check(&input, &mut out);
        names::check(&input, &mut out);
        fetch::check(&input, &mut out);
        variants::check(&input, &mut out);
        // What Python or Spack refuses call by call while loading the class.
        signatures::check(&input, &mut out);
        self_dependency::check(&input, &mut out);
        class_body::check(&input, &mut out);
        variant_args::check(&input, &mut out);
        version_args::check(&input, &mut out);
    }
    sort(&mut out);
    out
}

fn sort(out: &mut [Diagnostic]) {
    out.sort_by_key(|d| (d.line, d.col, d.code));
}

/// The package name Spack would give `path`: the directory of a
/// `package.py` (v2 repos' `py_foo` and `_3dtk` folded back to `py-foo`, `3dtk`).
pub fn package_name_for(path: &std::path::Path) -> Option<String> {
    if path.file_name()? != "package.py" {
        return None;
    }
    let dir = path.parent()?.file_name()?.to_str()?;
    Some(crate::kb::layout::package_name_from_dir(dir))
}
