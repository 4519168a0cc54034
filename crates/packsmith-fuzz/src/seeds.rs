//! Seed corpora: the real files the repository's tests already hold, read
//! at run time (never copied), chosen by name.

use std::path::Path;

/// Directories that hold no seeds (build output, VCS data).
const SKIPPED: &[&str] = &["target", ".git", "node_modules"];

/// Every file under `root` whose path (relative, `/`-separated) `keep`
/// accepts, sorted by path so the corpus order is stable.
pub fn files(root: &Path, keep: impl Fn(&str) -> bool) -> Vec<Vec<u8>> {
    let mut found: Vec<(String, Vec<u8>)> = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if !SKIPPED.contains(&name.as_str()) {
                    stack.push((e.path(), path));
                }
            } else if kind.is_file() && keep(&path) {
                if let Ok(bytes) = std::fs::read(e.path()) {
                    found.push((path, bytes));
                }
            }
        }
    }
    found.sort();
    found.into_iter().map(|(_, b)| b).collect()
}

/// Files named exactly `name` anywhere in the repository.
pub fn named(root: &Path, name: &str) -> Vec<Vec<u8>> {
    files(root, |p| p.rsplit('/').next() == Some(name))
}

/// Files under a test fixture directory (`…/tests/…`) ending in `suffix`.
pub fn test_files(root: &Path, suffix: &str) -> Vec<Vec<u8>> {
    files(root, |p| p.contains("/tests/") && p.ends_with(suffix))
}

/// The body of an insta snapshot (after its `---` header).
pub fn snapshot_body(snap: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(snap);
    match text.splitn(3, "---\n").nth(2) {
        Some(body) => body.as_bytes().to_vec(),
        None => snap.to_vec(),
    }
}

/// The double-quoted string literals of `text` (spec strings in recipes).
pub fn string_literals(text: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for line in text.split(|b| *b == b'\n') {
        let quotes: Vec<usize> = line
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'"')
            .map(|(i, _)| i)
            .collect();
        for pair in quotes.chunks_exact(2) {
            let s = &line[pair[0] + 1..pair[1]];
            if !s.is_empty() {
                out.push(s.to_vec());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_snapshot_bodies() {
        let lits = string_literals(b"depends_on(\"zlib@1.2:\", when=\"+z\")\nx = \"\"\n");
        assert_eq!(lits, vec![b"+z".to_vec(), b"zlib@1.2:".to_vec()]);
        let body = snapshot_body(b"---\nsource: x\nexpression: y\n---\n{ a = 1; }\n");
        assert_eq!(body, b"{ a = 1; }\n");
    }
}
