//! `local:NAME` → a GGUF file: a model of [`crate::catalog`]'s table, or
//! an absolute path to any GGUF.

use std::path::{Path, PathBuf};

use crate::catalog::{find, known_names, models_dir};
use crate::LlmError;

/// Resolves `local:NAME` (the `local:` prefix is optional) to a GGUF path.
///
/// - a known short name (see [`crate::catalog::KNOWN_MODELS`]) → `<cache_dir>/models/<file>`;
/// - an absolute path (`local:/srv/models/x.gguf`) → that path.
///
/// Only the name is checked here; whether the file exists is checked when
/// the model is loaded, so that the error can say how to fetch it.
pub fn resolve_local_model(name: &str, cache_dir: &Path) -> Result<PathBuf, LlmError> {
    let bare = name.strip_prefix("local:").unwrap_or(name).trim();
    if bare.is_empty() {
        return Err(LlmError::Config(format!(
            "`{name}` names no local model\nhint: use local:<name> with one of {}, or local:/absolute/path/model.gguf",
            known_names()
        )));
    }
    let path = Path::new(bare);
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    if let Some(known) = find(bare) {
        return Ok(models_dir(cache_dir).join(known.file));
    }
    Err(LlmError::Config(format!(
        "unknown local model `{bare}`\nhint: known local models are {}; or give an absolute path, local:/path/to/model.gguf",
        known_names()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_resolve_under_the_models_dir() {
        let cache = Path::new("/cache");
        assert_eq!(
            resolve_local_model("local:qwen2.5-coder-1.5b", cache).unwrap(),
            Path::new("/cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
        );
        assert_eq!(
            resolve_local_model("smollm2-135m", cache).unwrap(),
            Path::new("/cache/models/smollm2-135m-instruct-q4_1.gguf")
        );
    }

    #[test]
    fn absolute_paths_pass_through() {
        assert_eq!(
            resolve_local_model("local:/srv/m/x.gguf", Path::new("/c")).unwrap(),
            Path::new("/srv/m/x.gguf")
        );
    }

    #[test]
    fn unknown_names_say_what_is_known() {
        let err = resolve_local_model("local:llama-70b", Path::new("/c"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown local model `llama-70b`"), "{err}");
        assert!(err.contains("qwen2.5-coder-1.5b"), "{err}");
        assert!(resolve_local_model("local:", Path::new("/c")).is_err());
    }
}
