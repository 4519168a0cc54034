//! The fuzz targets: one per reader of untrusted input (or per input
//! format, where several readers share it).

mod analyze;
mod bench;
mod nix;
mod spack;

use crate::harness::Target;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Every target, in a stable order.
pub fn all_targets() -> Vec<Target> {
    let mut all = analyze::targets();
    all.extend(spack::targets());
    all.extend(nix::targets());
    all.extend(bench::targets());
    all
}

/// A hash of what a reader reported: the corpus keeps inputs that give a
/// new one.
pub(crate) fn signature(parts: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    parts.hash(&mut h);
    h.finish()
}

/// Input bytes as the readers that take `&str` see them (files are read
/// lossily everywhere packsmith reads them).
pub(crate) fn text(input: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(input)
}

/// Writes a scratch input file. A plain write: the file lives in a temp
/// directory and is rewritten thousands of times a second (no fsync).
pub(crate) fn put(root: &std::path::Path, rel: &str, input: &[u8]) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let _ = std::fs::write(path, input);
}
