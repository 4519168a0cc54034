//! The model configuration every command reads (packsmith.toml and the
//! environment) and model-layer errors as the user sees them, with
//! credentials redacted.

use packsmith_core::Hint;
use packsmith_llm::{redact, Config};

use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};

/// packsmith.toml and the environment, with `local:` models looked up in
/// packsmith's cache directory.
pub fn load_config() -> Result<Config, CliError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let mut config = Config::load(&cwd).map_err(|e| llm_error(Exit::BadInput, &e))?;
    config.local.cache_dir = cache_dir();
    Ok(config)
}

/// A model-layer error (`LlmError`, `EmbeddingError`) for the user: its
/// message and hint from the error, credentials redacted from both.
pub fn llm_error(code: Exit, error: &dyn Hint) -> CliError {
    let mut e = CliError::from_error(code, error);
    e.message = redact(&e.message);
    e.hint = e.hint.as_deref().map(redact);
    e
}
