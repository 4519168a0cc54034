//! A release archive on this machine (`packsmith nix ./demo-1.0.tar.gz`,
//! `file:///…/demo-1.0.tar.gz`, `packsmith repair --source demo-1.0.tar.gz`):
//! a Nix recipe fetches it by URL, and an unpacked copy in the cache is
//! what the analysis and the model's repository tools read.

use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_core::archive::strip_archive_suffix;
use packsmith_exec::CommandSpec;
use sha2::{Digest, Sha256};

/// The archive a path or `file://` URL names, if it is one.
pub fn local_archive(given: &str) -> Option<PathBuf> {
    let path = Path::new(given.strip_prefix("file://").unwrap_or(given));
    (path.is_file() && strip_archive_suffix(&path.to_string_lossy()).is_some())
        .then(|| path.to_path_buf())
}

/// `demo-1.0.tar.gz` → `demo-1.0`.
pub fn archive_stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    strip_archive_suffix(&name).unwrap_or(&name).to_string()
}

/// `demo-tool-1.0` → (`demo-tool`, `1.0`): the name ends where a `-` is
/// followed by a digit.
pub fn split_name_version(stem: &str) -> (Option<String>, Option<String>) {
    let cut = stem
        .char_indices()
        .find(|&(i, c)| c == '-' && stem[i + 1..].starts_with(|d: char| d.is_ascii_digit()));
    match cut {
        Some((i, _)) if i > 0 => (Some(stem[..i].to_string()), Some(stem[i + 1..].to_string())),
        _ => (None, None),
    }
}

/// Unpacks `archive` once into `<cache>/archives/<stem>-<8 hex of its
/// sha256>` (kept for the next run) and returns the tree to read: the
/// archive's single top directory, or the unpacked directory itself.
pub fn unpack(archive: &Path, cache: &Path) -> Result<PathBuf, String> {
    let bytes = std::fs::read(archive).map_err(|e| format!("cannot read it: {e}"))?;
    let digest = Sha256::digest(&bytes);
    let short: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let dest = cache
        .join("archives")
        .join(format!("{}-{short}", archive_stem(archive)));
    if !dest.is_dir() {
        // Unpacked beside the destination, then renamed: an interrupted run
        // never leaves a half-unpacked tree where the next run looks.
        let parent = dest.parent().unwrap_or(cache);
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        let tmp = tempfile::tempdir_in(parent).map_err(|e| format!("cannot unpack: {e}"))?;
        let tar = CommandSpec::new("tar")
            .arg("-xf")
            .arg(archive)
            .arg("-C")
            .arg(tmp.path())
            .timeout(Duration::from_secs(600));
        let out = packsmith_exec::run(&tar).map_err(|e| format!("cannot run tar: {e}"))?;
        if !out.success() {
            return Err(format!(
                "tar could not unpack it: {}",
                out.stderr.trim().lines().last().unwrap_or("")
            ));
        }
        let kept = tmp.keep();
        if let Err(e) = std::fs::rename(&kept, &dest) {
            let _ = std::fs::remove_dir_all(&kept);
            if !dest.is_dir() {
                return Err(format!(
                    "cannot move the unpacked tree to {}: {e}",
                    dest.display()
                ));
            }
        }
    }
    Ok(single_top_directory(&dest).unwrap_or(dest))
}

/// The only entry of `dir`, when that entry is a directory.
fn single_top_directory(dir: &Path) -> Option<PathBuf> {
    let mut entries = std::fs::read_dir(dir).ok()?.filter_map(Result::ok);
    let first = entries.next()?;
    (entries.next().is_none() && first.path().is_dir()).then(|| first.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_is_unpacked_once_to_its_top_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let tree = tmp.path().join("demo-1.0");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(tree.join("CMakeLists.txt"), "project(demo)\n").unwrap();
        let archive = tmp.path().join("demo-1.0.tar.gz");
        let status = std::process::Command::new("tar")
            .arg("-czf")
            .arg(&archive)
            .arg("-C")
            .arg(tmp.path())
            .arg("demo-1.0")
            .status()
            .unwrap();
        assert!(status.success());

        assert_eq!(
            local_archive(&archive.display().to_string()),
            Some(archive.clone())
        );
        let url = format!("file://{}", archive.display());
        assert_eq!(local_archive(&url), Some(archive.clone()));
        assert_eq!(local_archive(&tree.display().to_string()), None);
        assert_eq!(archive_stem(&archive), "demo-1.0");

        let cache = tmp.path().join("cache");
        let root = unpack(&archive, &cache).unwrap();
        assert_eq!(root.file_name().unwrap(), "demo-1.0");
        assert!(root.join("CMakeLists.txt").is_file());
        // The second run reuses the unpacked tree.
        assert_eq!(unpack(&archive, &cache).unwrap(), root);
        let unpacked = std::fs::read_dir(cache.join("archives")).unwrap().count();
        assert_eq!(unpacked, 1);
    }

    #[test]
    fn an_archive_stem_splits_where_a_dash_meets_a_digit() {
        assert_eq!(
            split_name_version("demo-tool-1.0"),
            (Some("demo-tool".into()), Some("1.0".into()))
        );
        assert_eq!(split_name_version("demo"), (None, None));
    }

    #[test]
    fn a_file_that_is_not_an_archive_is_refused_by_tar() {
        let tmp = tempfile::tempdir().unwrap();
        let fake = tmp.path().join("broken.tar.gz");
        std::fs::write(&fake, "not an archive").unwrap();
        let err = unpack(&fake, &tmp.path().join("cache")).unwrap_err();
        assert!(err.contains("tar could not unpack it"), "{err}");
    }
}
