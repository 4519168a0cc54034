//! The Spack tools offered to the model beside the repository tools: look
//! up a package or virtual, show a related recipe, and run the static check
//! on a draft. The package being written is never looked up in the
//! knowledge base: its existing recipe would be the answer key.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use packsmith_agent::{clip_chars, Tool, ToolContext, ToolError};
use packsmith_core::chat::ToolSpec;

use super::references::compact_recipe;
use packsmith_spack_knowledge::check::{check_source, CheckOptions, Severity};
use packsmith_spack_knowledge::kb::{KnowledgeBase, NameIndex};
use packsmith_spack_knowledge::target::TargetSpack;

/// The knowledge base, shared by the tools of one run.
pub type SharedKb = Arc<Mutex<KnowledgeBase>>;

/// Lines of a recipe `show_recipe` returns.
const RECIPE_LINES: usize = 120;

/// A tool taking one `name` argument.
fn named_tool(name: &str, description: &str, about_name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        parameters: json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": about_name}},
            "required": ["name"],
            "additionalProperties": false
        }),
    }
}

fn name_arg(args: &Value) -> Result<String, ToolError> {
    args.get("name")
        .and_then(Value::as_str)
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ToolError::RespondToModel("give a package name in `name`".into()))
}

fn locked(kb: &SharedKb) -> Result<std::sync::MutexGuard<'_, KnowledgeBase>, ToolError> {
    kb.lock()
        .map_err(|_| ToolError::Fatal("internal: the knowledge base lock was poisoned".into()))
}

fn own_package(name: &str, target: &str) -> Result<(), ToolError> {
    if name == target {
        Err(ToolError::RespondToModel(format!(
            "`{name}` is the package you are writing; there is no recipe to look up"
        )))
    } else {
        Ok(())
    }
}

/// `spack_lookup(name)`: does Spack know this name, and what is it?
pub struct SpackLookup {
    pub kb: SharedKb,
    pub target: String,
}

impl Tool for SpackLookup {
    fn spec(&self) -> ToolSpec {
        named_tool(
            "spack_lookup",
            "Look up a Spack package or virtual by name: whether it exists, its variants, \
             recent versions and dependencies, or the providers of a virtual; suggests close \
             names when it does not exist.",
            "Spack package or virtual name, e.g. zlib-api",
        )
    }

    fn call(&self, args: &Value, _ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let name = name_arg(args)?;
        own_package(&name, &self.target)?;
        let kb = locked(&self.kb)?;
        let fail = |e: packsmith_spack_knowledge::kb::KbError| {
            ToolError::RespondToModel(format!("lookup failed: {e}"))
        };
        if let Some(p) = kb.show(&name).map_err(fail)? {
            let variants: Vec<String> = p
                .variants
                .iter()
                .map(|v| format!("{}={}", v.name, v.default.as_deref().unwrap_or("?")))
                .collect();
            let versions: Vec<&str> = p
                .versions
                .iter()
                .take(5)
                .map(|v| v.version.as_str())
                .collect();
            let deps: Vec<String> = p
                .dependencies
                .iter()
                .take(30)
                .map(|d| match &d.when {
                    Some(w) => format!("{} (when {w})", d.spec),
                    None => d.spec.clone(),
                })
                .collect();
            return Ok(clip_chars(
                &format!(
                    "package {}: build systems {}; versions {}; variants {}; depends on {}",
                    p.name,
                    p.build_systems,
                    versions.join(", "),
                    if variants.is_empty() {
                        "none".into()
                    } else {
                        variants.join(", ")
                    },
                    if deps.is_empty() {
                        "nothing".into()
                    } else {
                        deps.join(", ")
                    },
                ),
                3000,
            ));
        }
        let providers = kb.providers(&name).map_err(fail)?;
        if !providers.is_empty() {
            return Ok(format!(
                "`{name}` is a virtual package; depend on `{name}` itself. Providers: {}",
                providers.join(", ")
            ));
        }
        let hits = kb.search(&name, 5).map_err(fail)?;
        let names: Vec<String> = hits.into_iter().map(|h| h.name).collect();
        Ok(if names.is_empty() {
            format!("Spack has no package or virtual named `{name}`")
        } else {
            format!(
                "Spack has no package or virtual named `{name}`; close matches: {}",
                names.join(", ")
            )
        })
    }
}

/// `show_recipe(name)`: an existing recipe, for its style.
pub struct ShowRecipe {
    pub kb: SharedKb,
    pub target: String,
}

impl Tool for ShowRecipe {
    fn spec(&self) -> ToolSpec {
        named_tool(
            "show_recipe",
            &format!(
                "Show the package.py of an existing Spack package (at most {RECIPE_LINES} lines), \
                 to see how it declares variants, dependencies and build arguments."
            ),
            "Spack package name",
        )
    }

    fn call(&self, args: &Value, _ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let name = name_arg(args)?;
        own_package(&name, &self.target)?;
        let kb = locked(&self.kb)?;
        match kb
            .recipe_text(&name)
            .map_err(|e| ToolError::RespondToModel(format!("lookup failed: {e}")))?
        {
            Some(text) => Ok(compact_recipe(&text, RECIPE_LINES)),
            None => Err(ToolError::RespondToModel(format!(
                "Spack has no package named `{name}`; try spack_lookup"
            ))),
        }
    }
}

/// `check_recipe(text?)`: the static check, on the given text or on the
/// recipe being worked on.
pub struct CheckRecipe {
    pub spack: TargetSpack,
    pub names: Option<Arc<NameIndex>>,
    pub package: String,
}

impl Tool for CheckRecipe {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "check_recipe".into(),
            description: "Run packsmith's static check (syntax, imports, class name, versions, \
                          dependency names, spec syntax, variants) on a package.py. Without \
                          `text` it checks the current recipe."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "the complete package.py"}},
                "additionalProperties": false
            }),
        }
    }

    fn call(&self, args: &Value, ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let text = args
            .get("text")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| ctx.recipe.text.clone());
        let opts = CheckOptions {
            spack: self.spack,
            names: self.names.as_deref(),
            package: Some(&self.package),
        };
        let found = check_source(&text, "package.py", &opts);
        if found.is_empty() {
            return Ok("no problems found".into());
        }
        let errors = found
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let lines: Vec<String> = found.iter().map(|d| d.render("package.py")).collect();
        Ok(clip_chars(
            &format!("{errors} error(s):\n{}", lines.join("\n")),
            4000,
        ))
    }
}
