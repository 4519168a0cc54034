//! Walks a source tree's files, hidden directories (`.git`) left out, up
//! to a number of entries: the checks that look for a file of a kind stop
//! at a bound a huge tree cannot push past.

use std::path::Path;

/// Calls `visit` on each file under `root` until it returns `true`, or
/// `max_entries` entries were read. Returns `false` when the walk stopped
/// at the bound (the tree is too large to tell), `true` otherwise.
pub fn walk_files(root: &Path, max_entries: usize, mut visit: impl FnMut(&Path) -> bool) -> bool {
    let mut stack = vec![root.to_path_buf()];
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        // The same order on every machine, so what is found first is too.
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            seen += 1;
            if seen > max_entries {
                return false;
            }
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            match entry.file_type() {
                Ok(t) if t.is_dir() && !hidden => stack.push(path),
                Ok(t) if t.is_file() && visit(&path) => return true,
                _ => {}
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_files_outside_hidden_directories_and_stops_at_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/sub")).unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        for f in ["a.c", "src/b.f90", "src/sub/c.h", ".git/HEAD"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let mut names = Vec::new();
        assert!(walk_files(dir.path(), 100, |p| {
            names.push(p.file_name().unwrap().to_string_lossy().into_owned());
            false
        }));
        names.sort();
        assert_eq!(names, ["a.c", "b.f90", "c.h"]);
        assert!(!walk_files(dir.path(), 2, |_| false));
    }
}
