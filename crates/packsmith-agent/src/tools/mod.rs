//! Tools the model may call: each a spec plus a handler, kept in a
//! [`ToolRegistry`]. A malformed call (broken JSON, unknown tool, wrong
//! arguments) or a failed handler becomes a message for the model, never a
//! crash; only [`ToolError::Fatal`] stops the run.

mod grep;
mod list_dir;
mod read_file;
mod repo;

use std::time::Instant;

use packsmith_core::chat::{ToolCall, ToolSpec};
use packsmith_llm::validate_tool_call;
use serde_json::Value;

use crate::recipe::Recipe;

pub use grep::Grep;
pub use list_dir::ListDir;
pub use read_file::ReadFile;
pub use repo::RepoRoot;

/// What a handler may touch besides its own state: the recipe being worked
/// on (mutating tools edit it; the loop takes the edited recipe as the
/// model's answer when the final reply carries none).
pub struct ToolContext<'a> {
    pub recipe: &'a mut Recipe,
}

/// The two kinds of tool error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// Bad arguments, a missing file, a failed edit: the model reads it and
    /// tries again.
    #[error("{0}")]
    RespondToModel(String),
    /// Our own bug or a broken environment: stops the run.
    #[error("{0}")]
    Fatal(String),
}

/// A tool: its spec and its handler.
pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;

    /// True for tools that change state (the recipe, files); these can be
    /// switched off with the loop's options.
    fn mutating(&self) -> bool {
        false
    }

    /// Runs the call. `args` passed the spec's schema.
    fn call(&self, args: &Value, ctx: &mut ToolContext<'_>) -> Result<String, ToolError>;
}

/// What one dispatched call came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The text sent back to the model.
    pub output: String,
    /// True when `output` is an error message.
    pub is_error: bool,
    pub mutating: bool,
    pub duration_ms: u64,
    /// Set for [`ToolError::Fatal`]: the loop stops.
    pub fatal: Option<String>,
}

impl ToolResult {
    /// A call refused before it ran.
    pub fn refused(output: String) -> Self {
        Self {
            output,
            is_error: true,
            mutating: false,
            duration_ms: 0,
            fatal: None,
        }
    }
}

/// The tools offered in a run.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Box<dyn Tool>>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The repository tools, confined to `root`.
    pub fn with_repo_tools(root: RepoRoot) -> Self {
        let mut r = Self::new();
        r.register(Box::new(ReadFile::new(root.clone())));
        r.register(Box::new(ListDir::new(root.clone())));
        r.register(Box::new(Grep::new(root)));
        r
    }

    /// Adds a tool; a later tool with the same name replaces the earlier.
    pub fn register(&mut self, tool: Box<dyn Tool>) {
        let name = tool.spec().name;
        self.tools.retain(|t| t.spec().name != name);
        self.tools.push(tool);
    }

    /// Drops the mutating tools.
    pub fn without_mutating(mut self) -> Self {
        self.tools.retain(|t| !t.mutating());
        self
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }

    /// The specs, or only those of the read-only tools.
    pub fn specs_of(&self, read_only: bool) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .filter(|t| !(read_only && t.mutating()))
            .map(|t| t.spec())
            .collect()
    }

    /// Whether the tool called `name` changes state.
    pub fn is_mutating(&self, name: &str) -> bool {
        self.tools
            .iter()
            .any(|t| t.spec().name == name && t.mutating())
    }

    /// Validates and runs one call.
    pub fn dispatch(&self, call: &ToolCall, ctx: &mut ToolContext<'_>) -> ToolResult {
        let start = Instant::now();
        let specs = self.specs();
        let mut result = match validate_tool_call(call, &specs) {
            Err(message) => ToolResult {
                output: message,
                is_error: true,
                mutating: false,
                duration_ms: 0,
                fatal: None,
            },
            Ok(args) => {
                // validate_tool_call found the spec, so the tool exists.
                let tool = self.tools.iter().find(|t| t.spec().name == call.name);
                match tool {
                    None => ToolResult {
                        output: format!("error: there is no tool named `{}`", call.name),
                        is_error: true,
                        mutating: false,
                        duration_ms: 0,
                        fatal: None,
                    },
                    Some(tool) => {
                        let mutating = tool.mutating();
                        match tool.call(&args, ctx) {
                            Ok(output) => ToolResult {
                                output,
                                is_error: false,
                                mutating,
                                duration_ms: 0,
                                fatal: None,
                            },
                            Err(ToolError::RespondToModel(m)) => ToolResult {
                                output: format!("error: {m}"),
                                is_error: true,
                                mutating,
                                duration_ms: 0,
                                fatal: None,
                            },
                            Err(ToolError::Fatal(m)) => ToolResult {
                                output: format!("error: the tool failed: {m}"),
                                is_error: true,
                                mutating,
                                duration_ms: 0,
                                fatal: Some(m),
                            },
                        }
                    }
                }
            }
        };
        result.duration_ms = start.elapsed().as_millis() as u64;
        result
    }
}

/// Reads an optional non-negative integer argument.
pub(crate) fn opt_usize(args: &Value, key: &str) -> Result<Option<usize>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(|n| Some(n as usize)).ok_or_else(|| {
            ToolError::RespondToModel(format!("`{key}` must be a non-negative integer"))
        }),
    }
}

/// Reads an optional string argument.
pub(crate) fn opt_str<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// True when the first 8 KiB hold a NUL byte.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|b| *b == 0)
}
