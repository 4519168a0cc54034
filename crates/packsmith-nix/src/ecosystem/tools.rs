//! The Nix backend's tools for the model: localized edits of the recipe
//! (each parsed before it is accepted), paging back through the build log,
//! package search over the pinned nixpkgs, "which package provides this
//! file" (nix-locate), and read-only file tools on a local nixpkgs. Every
//! output is bounded.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use packsmith_agent::{Tool, ToolContext, ToolError};
use packsmith_core::chat::ToolSpec;
use packsmith_exec::{CommandSpec, ExecError};
use serde_json::{json, Value};

use crate::edit::{view, Editor, SyntaxCheck};
use crate::logs::LogView;

use super::search::NixpkgsIndex;

fn usize_arg(args: &Value, key: &str) -> Result<Option<usize>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(|n| Some(n as usize)).ok_or_else(|| {
            ToolError::RespondToModel(format!("`{key}` must be a non-negative integer"))
        }),
    }
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::RespondToModel(format!("`{key}` must be a string")))
}

/// A syntax checker shared by the edit tools.
pub type SharedCheck = Arc<dyn SyntaxCheck + Send + Sync>;

struct Checked(SharedCheck);

impl SyntaxCheck for Checked {
    fn check(&self, text: &str) -> Result<(), String> {
        self.0.check(text)
    }
}

/// `view_recipe`: numbered lines of package.nix.
pub struct ViewRecipe;

impl Tool for ViewRecipe {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "view_recipe".into(),
            description: "Show package.nix with line numbers (optionally only lines from..to)."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "from": {"type": "integer", "description": "first line, 1-based"},
                    "to": {"type": "integer", "description": "last line"}
                },
                "additionalProperties": false
            }),
        }
    }

    fn call(&self, args: &Value, ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let from = usize_arg(args, "from")?.unwrap_or(1);
        let to = usize_arg(args, "to")?.unwrap_or(usize::MAX);
        let text = view(&ctx.recipe.text, Some((from, to)));
        if text.is_empty() {
            return Err(ToolError::RespondToModel(format!(
                "no lines in {from}..{to}; package.nix has {} lines",
                ctx.recipe.text.lines().count()
            )));
        }
        Ok(text)
    }
}

/// `replace_in_recipe`: replace the Nth occurrence of a text.
pub struct ReplaceInRecipe {
    pub check: SharedCheck,
}

impl Tool for ReplaceInRecipe {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "replace_in_recipe".into(),
            description: "Replace one occurrence of `old` with `new` in package.nix. `old` must \
                          match exactly (copy it from view_recipe). An edit whose result does \
                          not parse is refused and the file stays as it was."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "old": {"type": "string"},
                    "new": {"type": "string"},
                    "occurrence": {"type": "integer", "description": "which match, 1-based (default 1)"}
                },
                "required": ["old", "new"],
                "additionalProperties": false
            }),
        }
    }

    fn mutating(&self) -> bool {
        true
    }

    fn call(&self, args: &Value, ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let old = str_arg(args, "old")?;
        let new = str_arg(args, "new")?;
        let nth = usize_arg(args, "occurrence")?.unwrap_or(1);
        let edited = Editor::new(Checked(self.check.clone()))
            .replace_nth(&ctx.recipe.text, old, new, nth)
            .map_err(|e| ToolError::RespondToModel(e.to_string()))?;
        ctx.recipe.text = edited.text;
        Ok(format!(
            "edited; the lines around the change:\n{}",
            edited.summary
        ))
    }
}

/// `insert_in_recipe`: insert lines after a line number.
pub struct InsertInRecipe {
    pub check: SharedCheck,
}

impl Tool for InsertInRecipe {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "insert_in_recipe".into(),
            description: "Insert text after line `after_line` of package.nix (0 = at the top). \
                          Refused when the result does not parse."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "after_line": {"type": "integer"},
                    "text": {"type": "string"}
                },
                "required": ["after_line", "text"],
                "additionalProperties": false
            }),
        }
    }

    fn mutating(&self) -> bool {
        true
    }

    fn call(&self, args: &Value, ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let line = usize_arg(args, "after_line")?.unwrap_or(0);
        let text = str_arg(args, "text")?;
        let edited = Editor::new(Checked(self.check.clone()))
            .insert_after(&ctx.recipe.text, line, text)
            .map_err(|e| ToolError::RespondToModel(e.to_string()))?;
        ctx.recipe.text = edited.text;
        Ok(format!(
            "inserted; the lines around it:\n{}",
            edited.summary
        ))
    }
}

/// The log the model is currently repairing from; the ecosystem sets it
/// when it builds a repair request.
pub type CurrentLog = Arc<Mutex<Option<PathBuf>>>;

/// `read_build_log`: page back through the failing log.
pub struct ReadBuildLog {
    pub current: CurrentLog,
}

const LOG_PAGE: usize = 80;
const LOG_PAGE_MAX: usize = 200;

impl Tool for ReadBuildLog {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_build_log".into(),
            description: format!(
                "Read earlier parts of the failing Nix log you were shown the end of. \
                 `offset` is how many lines before the end the page ends (0 = the tail, \
                 {LOG_PAGE} = the page before it); lines are numbered."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "offset": {"type": "integer"},
                    "lines": {"type": "integer", "description": "page size (default 80, at most 200)"}
                },
                "additionalProperties": false
            }),
        }
    }

    fn call(&self, args: &Value, _ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let offset = usize_arg(args, "offset")?.unwrap_or(0);
        let n = usize_arg(args, "lines")?
            .unwrap_or(LOG_PAGE)
            .clamp(1, LOG_PAGE_MAX);
        let path = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| ToolError::RespondToModel("there is no failing log yet".into()))?;
        let text = std::fs::read_to_string(&path).map_err(|e| {
            ToolError::RespondToModel(format!("the log {} cannot be read: {e}", path.display()))
        })?;
        let page = LogView::new(&text).page(offset, n);
        if page.first == 0 {
            return Err(ToolError::RespondToModel(format!(
                "offset {offset} is past the start; the log has {} lines",
                page.total
            )));
        }
        Ok(format!(
            "lines {}-{} of {}{}\n{}",
            page.first,
            page.last,
            page.total,
            if page.more_before {
                " (earlier lines exist)"
            } else {
                ""
            },
            page.text
        ))
    }
}

/// `search_nixpkgs`: attribute paths and descriptions in the pinned nixpkgs.
pub struct SearchNixpkgs {
    pub index: Arc<NixpkgsIndex>,
}

impl Tool for SearchNixpkgs {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "search_nixpkgs".into(),
            description: "Search the nixpkgs this recipe is built against for packages: \
                          matches on attribute path, name and description. Use the attribute \
                          path as the function input."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
                "additionalProperties": false
            }),
        }
    }

    fn call(&self, args: &Value, _ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let q = str_arg(args, "query")?;
        let hits = self.index.search(q, 20).map_err(|e| {
            ToolError::RespondToModel(format!("the nixpkgs index is not available: {e}"))
        })?;
        if hits.is_empty() {
            return Ok(format!("no package in the pinned nixpkgs matches `{q}`"));
        }
        Ok(hits
            .iter()
            .map(|h| {
                let d: String = h.description.chars().take(120).collect();
                format!("{} ({} {}): {d}", h.attr, h.name, h.version)
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

/// `which_package_provides`: nix-locate over a nix-index database.
pub struct WhichPackageProvides {
    pub program: std::ffi::OsString,
}

impl Tool for WhichPackageProvides {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "which_package_provides".into(),
            description: "Which nixpkgs package provides a file, e.g. `bin/pkg-config` or \
                          `include/zlib.h` (needs a nix-index database)."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": false
            }),
        }
    }

    fn call(&self, args: &Value, _ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let path = str_arg(args, "path")?;
        let spec = CommandSpec::new(self.program.clone())
            .args(["--top-level", "--minimal", "--whole-name"])
            .arg(format!("/{}", path.trim_start_matches('/')))
            .timeout(Duration::from_secs(60));
        match packsmith_exec::run(&spec) {
            Err(ExecError::NotFound { .. }) => Err(ToolError::RespondToModel(
                "nix-locate is not installed here, so files cannot be looked up; use \
                 search_nixpkgs with the library or tool name instead"
                    .into(),
            )),
            Err(e) => Err(ToolError::RespondToModel(format!("nix-locate failed: {e}"))),
            Ok(o) if !o.success() => Err(ToolError::RespondToModel(format!(
                "nix-locate failed (is there a nix-index database? run `nix-index`): {}",
                o.stderr.trim()
            ))),
            Ok(o) => {
                let hits: Vec<&str> = o.stdout.lines().take(20).collect();
                if hits.is_empty() {
                    Ok(format!("no package provides `{path}`"))
                } else {
                    Ok(hits.join("\n"))
                }
            }
        }
    }
}

/// A tool under another name (the repository's file tools on nixpkgs).
pub struct Renamed {
    pub inner: Box<dyn Tool>,
    pub name: String,
    pub description: String,
}

impl Tool for Renamed {
    fn spec(&self) -> ToolSpec {
        let mut spec = self.inner.spec();
        spec.name = self.name.clone();
        spec.description = self.description.clone();
        spec
    }

    fn mutating(&self) -> bool {
        self.inner.mutating()
    }

    fn call(&self, args: &Value, ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        self.inner.call(args, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::FallbackParser;
    use packsmith_agent::Recipe;

    #[test]
    fn edits_change_the_recipe_and_broken_ones_are_refused() {
        let check: SharedCheck = Arc::new(FallbackParser);
        let mut recipe = Recipe::new("package.nix", "{ a }:\n{\n  x = 1;\n}\n");
        let mut ctx = ToolContext {
            recipe: &mut recipe,
        };
        let replace = ReplaceInRecipe {
            check: check.clone(),
        };
        replace
            .call(&json!({"old": "x = 1;", "new": "x = 2;"}), &mut ctx)
            .unwrap();
        assert!(ctx.recipe.text.contains("x = 2;"));
        let err = replace
            .call(&json!({"old": "x = 2;", "new": "x = {;"}), &mut ctx)
            .unwrap_err();
        assert!(err.to_string().contains("does not parse"), "{err}");
        assert!(ctx.recipe.text.contains("x = 2;"));
        InsertInRecipe { check }
            .call(&json!({"after_line": 2, "text": "  y = 3;"}), &mut ctx)
            .unwrap();
        assert_eq!(ctx.recipe.text, "{ a }:\n{\n  y = 3;\n  x = 2;\n}\n");
    }

    #[test]
    fn the_log_tool_pages_back_and_says_when_there_is_no_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("build.log");
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&log, text).unwrap();
        let current: CurrentLog = Arc::default();
        let tool = ReadBuildLog {
            current: current.clone(),
        };
        let mut recipe = Recipe::new("package.nix", "");
        let mut ctx = ToolContext {
            recipe: &mut recipe,
        };
        assert!(tool.call(&json!({}), &mut ctx).is_err());
        *current.lock().unwrap() = Some(log);
        let page = tool
            .call(&json!({"offset": 80, "lines": 10}), &mut ctx)
            .unwrap();
        assert!(page.starts_with("lines 11-20 of 100"), "{page}");
        assert!(tool.call(&json!({"offset": 100}), &mut ctx).is_err());
    }

    #[test]
    fn nix_locate_absent_is_a_clear_message() {
        let tool = WhichPackageProvides {
            program: "packsmith-no-such-nix-locate".into(),
        };
        let mut recipe = Recipe::new("package.nix", "");
        let mut ctx = ToolContext {
            recipe: &mut recipe,
        };
        let err = tool
            .call(&json!({"path": "include/zlib.h"}), &mut ctx)
            .unwrap_err();
        assert!(
            err.to_string().contains("nix-locate is not installed"),
            "{err}"
        );
    }
}
