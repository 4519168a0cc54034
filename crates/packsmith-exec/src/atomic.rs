//! Write to a temporary file beside the target, then rename over it.

use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[error("could not write {path}: {source}")]
pub struct AtomicWriteError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Writes `contents` to `path` atomically: readers see the old file or the
/// whole new one, never a part. Parent directories are created.
pub fn atomic_write(path: &Path, contents: &[u8]) -> Result<(), AtomicWriteError> {
    let wrap = |source| AtomicWriteError {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(wrap)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(wrap)?;
    tmp.write_all(contents).map_err(wrap)?;
    tmp.as_file().sync_all().map_err(wrap)?;
    tmp.persist(path).map_err(|e| wrap(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_file_and_replaces_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sub/out.txt");
        atomic_write(&target, b"first").unwrap();
        atomic_write(&target, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "second");
        // No temporary files are left beside the target.
        let names: Vec<_> = std::fs::read_dir(target.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }
}
