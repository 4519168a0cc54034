//! `list_dir(path?, depth?)`: the repository's tree, bounded in depth and
//! entries. Symlinks are shown but never followed; `.git` is skipped.

use std::path::Path;

use packsmith_core::chat::ToolSpec;
use serde_json::{json, Value};

use super::{opt_str, opt_usize, RepoRoot, Tool, ToolContext, ToolError};

pub const DEFAULT_DEPTH: usize = 1;
pub const MAX_DEPTH: usize = 4;
pub const MAX_ENTRIES: usize = 300;

pub struct ListDir {
    root: RepoRoot,
}

impl ListDir {
    pub fn new(root: RepoRoot) -> Self {
        Self { root }
    }
}

impl Tool for ListDir {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "list_dir".into(),
            description: format!(
                "List a directory of the project's source repository (directories end with /). \
                 depth 1 lists the directory itself (default), at most {MAX_DEPTH}."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "directory relative to the repository root (default: the root)"},
                    "depth": {"type": "integer", "description": "levels to descend, 1-4 (default 1)"}
                },
                "additionalProperties": false
            }),
        }
    }

    fn call(&self, args: &Value, _ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let rel = opt_str(args, "path").unwrap_or(".");
        let depth = opt_usize(args, "depth")?
            .unwrap_or(DEFAULT_DEPTH)
            .clamp(1, MAX_DEPTH);
        let dir = self.root.resolve(rel)?;
        if !dir.is_dir() {
            return Err(ToolError::RespondToModel(format!(
                "`{rel}` is a file; use read_file"
            )));
        }
        let mut lines = Vec::new();
        let mut omitted = 0usize;
        walk(&dir, &dir, depth, &mut lines, &mut omitted);
        let mut out = format!("{}/\n", self.root.display(&dir));
        for l in &lines {
            out.push_str(l);
            out.push('\n');
        }
        if omitted > 0 {
            out.push_str(&format!(
                "[{omitted} more entries not shown; list a subdirectory]\n"
            ));
        }
        Ok(out)
    }
}

fn walk(base: &Path, dir: &Path, depth: usize, lines: &mut Vec<String>, omitted: &mut usize) {
    let Ok(read) = std::fs::read_dir(dir) else {
        lines.push(format!("  (cannot read {})", dir.display()));
        return;
    };
    let mut entries: Vec<_> = read.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        if lines.len() >= MAX_ENTRIES {
            *omitted += 1;
            continue;
        }
        let path = entry.path();
        let rel = path
            .strip_prefix(base)
            .unwrap_or(&path)
            .display()
            .to_string();
        let indent = "  ".repeat(rel.matches('/').count() + 1);
        let shown = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            lines.push(format!("{indent}{shown} -> (symlink, not followed)"));
        } else if meta.is_dir() {
            lines.push(format!("{indent}{shown}/"));
            if depth > 1 {
                walk(base, &path, depth - 1, lines, omitted);
            }
        } else {
            lines.push(format!("{indent}{shown}  ({} bytes)", meta.len()));
        }
    }
}
