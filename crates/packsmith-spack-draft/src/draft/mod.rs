//! The deterministic first draft: a complete `package.py` rendered from a
//! [`SpackBrief`] alone, in Spack house style, for the target generation.
//!
//! Nothing is invented: a fact the brief lacks (a checksum, a homepage, a
//! version) becomes a `# FIXME:` line for the model or the user, never a
//! plausible-looking value.

mod directives;
mod install;
mod methods;
mod names;

use crate::brief::SpackBrief;
use packsmith_spack_knowledge::mapping::{NoKnowledge, SpackNames};

pub use install::render_install;
pub use names::{resolve_names, UnknownDependency};
pub use packsmith_spack_knowledge::imports::render_imports;
pub use packsmith_spack_knowledge::pystr::py_str;

/// How the draft is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftOptions {
    /// Dependencies found upstream that are optional and behind no option
    /// are written as commented-out `depends_on` lines.
    pub comment_optional_dependencies: bool,
    /// GitHub handles for `maintainers(...)`; none are written when empty.
    pub maintainers: Vec<String>,
    /// The first comment lines of the file, without `# `.
    pub header: Vec<String>,
}

impl Default for DraftOptions {
    fn default() -> Self {
        Self {
            comment_optional_dependencies: true,
            maintainers: Vec::new(),
            header: vec![
                "Drafted by packsmith from the project's build files.".into(),
                "Review every FIXME before publishing this recipe.".into(),
            ],
        }
    }
}

/// Renders the whole `package.py` (dependency names as the brief has them;
/// see [`render_recipe_with_names`]).
pub fn render_recipe(brief: &SpackBrief, options: &DraftOptions) -> String {
    render_recipe_with_names(brief, options, &NoKnowledge)
}

/// Renders the whole `package.py`, with every dependency name the knowledge
/// base `kb` does not hold resolved to the Spack name it stands for, or
/// commented out with the closest known names ([`resolve_names`]).
pub fn render_recipe_with_names(
    brief: &SpackBrief,
    options: &DraftOptions,
    kb: &dyn SpackNames,
) -> String {
    let (resolved, unknown) = resolve_names(brief, kb);
    let brief = &resolved;
    let mut out: Vec<String> = options
        .header
        .iter()
        .map(|l| {
            if l.is_empty() {
                "#".to_string()
            } else {
                format!("# {l}")
            }
        })
        .collect();
    if !out.is_empty() {
        out.push(String::new());
    }
    out.extend(render_imports(brief.target, &brief.base_classes));
    out.push(String::new());
    out.push(String::new());
    out.push(format!(
        "class {}({}):",
        brief.class_name,
        bases(brief).join(", ")
    ));
    let body = directives::render_body(brief, options, &unknown);
    out.extend(body);
    let methods = methods::render_methods(brief);
    if !methods.is_empty() {
        out.push(String::new());
        out.extend(methods);
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

fn bases(brief: &SpackBrief) -> Vec<String> {
    if brief.base_classes.is_empty() {
        vec!["Package".into()]
    } else {
        brief.base_classes.clone()
    }
}
