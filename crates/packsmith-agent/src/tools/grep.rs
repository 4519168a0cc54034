//! `grep(pattern, path?)`: regex search over the repository's text files,
//! bounded in hits per file and in total. Symlinks are not followed;
//! binary and very large files are skipped.

use std::path::Path;

use packsmith_core::chat::ToolSpec;
use serde_json::{json, Value};

use super::{looks_binary, opt_str, RepoRoot, Tool, ToolContext, ToolError};
use crate::text::clip_chars;

pub const MAX_HITS: usize = 50;
pub const MAX_HITS_PER_FILE: usize = 5;
pub const MAX_LINE_CHARS: usize = 200;
/// Files larger than this are skipped.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Files looked at per call, so a huge tree cannot stall the loop.
pub const MAX_FILES: usize = 20_000;

pub struct Grep {
    root: RepoRoot,
}

impl Grep {
    pub fn new(root: RepoRoot) -> Self {
        Self { root }
    }
}

struct Search {
    re: regex::Regex,
    hits: Vec<String>,
    more_hits: usize,
    files_seen: usize,
    files_capped: bool,
}

impl Tool for Grep {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "grep".into(),
            description: format!(
                "Search the project's source repository with a regular expression (Rust regex \
                 syntax). Returns `path:line: text`, at most {MAX_HITS_PER_FILE} hits per file \
                 and {MAX_HITS} in all."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "regular expression"},
                    "path": {"type": "string", "description": "file or directory to search, relative to the repository root (default: the root)"}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        }
    }

    fn call(&self, args: &Value, _ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        let pattern = opt_str(args, "pattern").unwrap_or("");
        if pattern.is_empty() {
            return Err(ToolError::RespondToModel("`pattern` is empty".into()));
        }
        let re = regex::RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| ToolError::RespondToModel(format!("bad pattern: {e}")))?;
        let rel = opt_str(args, "path").unwrap_or(".");
        let start = self.root.resolve(rel)?;
        let mut s = Search {
            re,
            hits: Vec::new(),
            more_hits: 0,
            files_seen: 0,
            files_capped: false,
        };
        if start.is_dir() {
            self.walk(&start, &mut s);
        } else {
            self.search_file(&start, &mut s);
        }
        if s.hits.is_empty() {
            return Ok(format!("no matches for `{pattern}` in {rel}"));
        }
        let mut out = s.hits.join("\n");
        out.push('\n');
        if s.more_hits > 0 {
            out.push_str(&format!(
                "[{} more matches not shown; narrow the pattern or the path]\n",
                s.more_hits
            ));
        }
        if s.files_capped {
            out.push_str(&format!("[stopped after {MAX_FILES} files]\n"));
        }
        Ok(out)
    }
}

impl Grep {
    fn walk(&self, dir: &Path, s: &mut Search) {
        let Ok(read) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = read.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            if entry.file_name() == ".git" {
                continue;
            }
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_symlink() {
                continue;
            }
            if ft.is_dir() {
                self.walk(&entry.path(), s);
            } else if ft.is_file() {
                if s.files_seen >= MAX_FILES {
                    s.files_capped = true;
                    return;
                }
                s.files_seen += 1;
                self.search_file(&entry.path(), s);
            }
        }
    }

    fn search_file(&self, path: &Path, s: &mut Search) {
        let too_big = std::fs::metadata(path).map_or(true, |m| m.len() > MAX_FILE_BYTES);
        if too_big {
            return;
        }
        let Ok(bytes) = std::fs::read(path) else {
            return;
        };
        if looks_binary(&bytes) {
            return;
        }
        let text = String::from_utf8_lossy(&bytes);
        let shown = self.root.display(path);
        let mut in_file = 0;
        for (i, line) in text.lines().enumerate() {
            if !s.re.is_match(line) {
                continue;
            }
            if in_file >= MAX_HITS_PER_FILE || s.hits.len() >= MAX_HITS {
                s.more_hits += 1;
                continue;
            }
            in_file += 1;
            s.hits.push(format!(
                "{shown}:{}: {}",
                i + 1,
                clip_chars(line.trim_end(), MAX_LINE_CHARS)
            ));
        }
    }
}
