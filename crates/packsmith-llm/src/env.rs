//! Every environment variable packsmith-llm reads, declared once. Values of
//! the key variables are wrapped in [`crate::Secret`] as soon as they are read.

/// Key for `openai:` models.
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";
/// Base URL for `openai:` models (default `https://api.openai.com/v1`).
pub const OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";
/// Key for `anthropic:` models.
pub const ANTHROPIC_API_KEY: &str = "ANTHROPIC_API_KEY";
/// Base URL for `anthropic:` models (default `https://api.anthropic.com/v1`).
pub const ANTHROPIC_BASE_URL: &str = "ANTHROPIC_BASE_URL";
/// Key for `openai-compat:` servers that want one (vLLM `--api-key`,
/// a LiteLLM master key); `[llm.endpoints.NAME] api_key_env` names others.
pub const PACKSMITH_COMPAT_API_KEY: &str = "PACKSMITH_COMPAT_API_KEY";
/// The model when `--model` is not given (`provider:name`).
pub const PACKSMITH_MODEL: &str = "PACKSMITH_MODEL";
/// The user-level config file instead of `~/.config/packsmith/packsmith.toml`.
pub const PACKSMITH_CONFIG: &str = "PACKSMITH_CONFIG";
/// Replay cache mode: `off`, `read-write` or `replay`.
pub const PACKSMITH_LLM_CACHE: &str = "PACKSMITH_LLM_CACHE";
/// Replay cache directory (default `<user cache>/packsmith/llm-replay`).
pub const PACKSMITH_LLM_CACHE_DIR: &str = "PACKSMITH_LLM_CACHE_DIR";

/// All of the above, for `doctor` and generated docs.
pub const ALL: &[&str] = &[
    OPENAI_API_KEY,
    OPENAI_BASE_URL,
    ANTHROPIC_API_KEY,
    ANTHROPIC_BASE_URL,
    PACKSMITH_COMPAT_API_KEY,
    PACKSMITH_MODEL,
    PACKSMITH_CONFIG,
    PACKSMITH_LLM_CACHE,
    PACKSMITH_LLM_CACHE_DIR,
];
