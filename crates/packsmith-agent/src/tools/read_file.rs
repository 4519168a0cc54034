//! `read_file(path, start_line?, max_lines?)`: numbered lines of a text
//! file in the repository, bounded in lines, line length and bytes.

use packsmith_core::chat::ToolSpec;
use serde_json::{json, Value};

use super::{looks_binary, opt_str, opt_usize, RepoRoot, Tool, ToolContext, ToolError};
use crate::text::clip_chars;

/// Lines returned when the model does not say.
pub const DEFAULT_LINES: usize = 200;
/// The most lines one call returns.
pub const MAX_LINES: usize = 400;
/// Each line is clipped to this many characters.
pub const MAX_LINE_CHARS: usize = 300;
/// The most bytes of output one call returns.
pub const MAX_BYTES: usize = 24 * 1024;
/// Files larger than this are not read.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

pub struct ReadFile {
    root: RepoRoot,
}

impl ReadFile {
    pub fn new(root: RepoRoot) -> Self {
        Self { root }
    }
}

impl Tool for ReadFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_file".into(),
            description: format!(
                "Read a text file of the project's source repository. Lines are numbered. \
                 Returns at most {MAX_LINES} lines per call (default {DEFAULT_LINES}); page with \
                 start_line."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "path relative to the repository root"},
                    "start_line": {"type": "integer", "description": "first line, 1-based (default 1)"},
                    "max_lines": {"type": "integer", "description": "number of lines (default 200)"}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        }
    }

    fn call(&self, args: &Value, _ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let rel = opt_str(args, "path").unwrap_or("");
        let start = opt_usize(args, "start_line")?.unwrap_or(1).max(1);
        let want = opt_usize(args, "max_lines")?
            .unwrap_or(DEFAULT_LINES)
            .clamp(1, MAX_LINES);
        let path = self.root.resolve(rel)?;
        if path.is_dir() {
            return Err(ToolError::RespondToModel(format!(
                "`{rel}` is a directory; use list_dir"
            )));
        }
        let size = std::fs::metadata(&path)
            .map_err(|e| ToolError::RespondToModel(format!("cannot read `{rel}`: {e}")))?
            .len();
        if size > MAX_FILE_BYTES {
            return Err(ToolError::RespondToModel(format!(
                "`{rel}` is {size} bytes, too large to read; use grep to find what you need"
            )));
        }
        let bytes = std::fs::read(&path)
            .map_err(|e| ToolError::RespondToModel(format!("cannot read `{rel}`: {e}")))?;
        if looks_binary(&bytes) {
            return Ok(format!(
                "`{rel}` is a binary file ({size} bytes); not shown"
            ));
        }
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        let total = lines.len();
        if total == 0 {
            return Ok(format!("`{rel}` is empty"));
        }
        if start > total {
            return Err(ToolError::RespondToModel(format!(
                "`{rel}` has {total} lines; start_line {start} is past the end"
            )));
        }
        let mut out = String::new();
        let mut last = start - 1;
        let mut clipped_lines = false;
        let mut hit_bytes = false;
        for (i, line) in lines.iter().enumerate().skip(start - 1).take(want) {
            let shown = clip_chars(line, MAX_LINE_CHARS);
            clipped_lines |= shown.len() != line.len();
            let numbered = format!("{:>5}| {shown}\n", i + 1);
            if out.len() + numbered.len() > MAX_BYTES {
                hit_bytes = true;
                break;
            }
            out.push_str(&numbered);
            last = i + 1;
        }
        if last < total {
            out.push_str(&format!(
                "[lines {start}-{last} of {total}{}; more with start_line={}]\n",
                if hit_bytes {
                    ", output limit reached"
                } else {
                    ""
                },
                last + 1
            ));
        } else {
            out.push_str(&format!("[lines {start}-{last} of {total}, end of file]\n"));
        }
        if clipped_lines {
            out.push_str(&format!(
                "[long lines clipped to {MAX_LINE_CHARS} characters]\n"
            ));
        }
        Ok(out)
    }
}
