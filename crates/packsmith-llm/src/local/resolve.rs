//! `local:NAME` → a GGUF file: a short table of models packsmith knows how
//! to obtain (scripts/fetch-models.sh assembles them from PyPI), or an
//! absolute path to any GGUF.

use std::path::{Path, PathBuf};

use crate::LlmError;

/// A model packsmith knows by a short name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownModel {
    /// What the user writes after `local:`.
    pub name: &'static str,
    /// The file name under `<cache>/models/`.
    pub file: &'static str,
    /// What `scripts/fetch-models.sh` takes to fetch it.
    pub fetch_target: &'static str,
    pub description: &'static str,
}

/// Models with a short name, sorted by name.
// keep-sorted start
pub const KNOWN_MODELS: &[KnownModel] = &[
    KnownModel {
        name: "all-minilm-l6-v2",
        file: "all-minilm-l6-v2-f32.gguf",
        fetch_target: "minilm",
        description: "all-MiniLM-L6-v2 sentence embeddings, F32 (87 MB); for LocalEmbedder",
    },
    KnownModel {
        name: "qwen2.5-coder-1.5b",
        file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        fetch_target: "qwen",
        description: "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1.1 GB); native tool calls",
    },
    KnownModel {
        name: "smollm2-135m",
        file: "smollm2-135m-instruct-q4_1.gguf",
        fetch_target: "smollm2",
        description: "SmolLM2-135M-Instruct, Q4_1 (98 MB); fast, for tests; emulated tool calls",
    },
];
// keep-sorted end

/// The directory local models live in: `<cache_dir>/models`.
pub fn models_dir(cache_dir: &Path) -> PathBuf {
    cache_dir.join("models")
}

/// Resolves `local:NAME` (the `local:` prefix is optional) to a GGUF path.
///
/// - a known short name (see [`KNOWN_MODELS`]) → `<cache_dir>/models/<file>`;
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
    let lower = bare.to_ascii_lowercase();
    if let Some(known) = KNOWN_MODELS.iter().find(|m| m.name == lower) {
        return Ok(models_dir(cache_dir).join(known.file));
    }
    Err(LlmError::Config(format!(
        "unknown local model `{bare}`\nhint: known local models are {}; or give an absolute path, local:/path/to/model.gguf",
        known_names()
    )))
}

/// The known model whose file is at `path`, if any (to say how to fetch it).
pub fn known_model_for_path(path: &Path) -> Option<&'static KnownModel> {
    let file = path.file_name()?.to_str()?;
    KNOWN_MODELS.iter().find(|m| m.file == file)
}

fn known_names() -> String {
    KNOWN_MODELS
        .iter()
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
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

    #[test]
    fn known_files_are_recognised() {
        let p = Path::new("/x/models/smollm2-135m-instruct-q4_1.gguf");
        assert_eq!(
            known_model_for_path(p).map(|m| m.name),
            Some("smollm2-135m")
        );
        assert!(known_model_for_path(Path::new("/x/other.gguf")).is_none());
    }
}
