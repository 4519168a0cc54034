//! Every environment variable packsmith reads, declared once.

/// Overrides the cache directory (clones, knowledge bases, models).
pub const PACKSMITH_CACHE_DIR: &str = "PACKSMITH_CACHE_DIR";

/// The cache directory: `$PACKSMITH_CACHE_DIR`, else the platform's user
/// cache (`~/.cache/packsmith`), else `.packsmith-cache` here.
pub fn cache_dir() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os(PACKSMITH_CACHE_DIR).filter(|d| !d.is_empty()) {
        return dir.into();
    }
    dirs::cache_dir()
        .map(|d| d.join("packsmith"))
        .unwrap_or_else(|| ".packsmith-cache".into())
}

/// `packsmith bench run`: the executable each pair runs instead of this
/// one (tests use a stand-in that writes a report).
pub const PACKSMITH_BENCH_BIN: &str = "PACKSMITH_BENCH_BIN";
