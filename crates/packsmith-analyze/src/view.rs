//! A read-only, bounded view of a repository's files.
//!
//! The walk never follows directory symlinks (so symlink loops cannot hang it),
//! caps the number of files and the depth, and turns every unreadable entry
//! into a warning instead of an error. Reads are capped too: a build file is
//! never worth more than [`MAX_READ_BYTES`].

use packsmith_core::AnalysisWarning;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes read from any one file.
pub const MAX_READ_BYTES: u64 = 4 * 1024 * 1024;
/// The most files indexed; beyond that the walk stops with a warning.
pub const MAX_FILES: usize = 400_000;
/// The deepest directory level visited.
pub const MAX_DEPTH: u32 = 48;

/// Directories that never hold build logic a packager needs.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "__pycache__",
    ".tox",
    ".venv",
    ".mypy_cache",
    ".pytest_cache",
];

/// One regular file (or symlink to one) below the root. No size is kept:
/// a stat per file would cost more than the whole rest of the walk, and
/// reads are capped anyway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFile {
    /// Path relative to the root, `/`-separated.
    pub rel: String,
    /// Number of directories above it below the root (0 = top level).
    pub depth: u32,
}

impl RepoFile {
    /// The file name (last path component).
    pub fn name(&self) -> &str {
        self.rel.rsplit('/').next().unwrap_or(&self.rel)
    }

    /// The directory part (`""` for top-level files).
    pub fn dir(&self) -> &str {
        match self.rel.rfind('/') {
            Some(i) => &self.rel[..i],
            None => "",
        }
    }
}

/// The path, so sorted slices of files and of directories are searched
/// alike.
impl AsRef<str> for RepoFile {
    fn as_ref(&self) -> &str {
        &self.rel
    }
}

/// The result of reading a file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    pub text: String,
    /// True when the file was longer than [`MAX_READ_BYTES`].
    pub truncated: bool,
}

/// A walked repository: its files sorted by path, read lazily.
#[derive(Debug, Clone)]
pub struct RepoView {
    root: PathBuf,
    files: Vec<RepoFile>,
    dirs: Vec<String>,
}

impl RepoView {
    /// Walks `root`. Problems below the root become `warnings`.
    pub fn walk(root: &Path, warnings: &mut Vec<AnalysisWarning>) -> Self {
        let mut view = Self {
            root: root.to_path_buf(),
            files: Vec::new(),
            dirs: Vec::new(),
        };
        let mut stack: Vec<(PathBuf, String, u32)> = vec![(root.to_path_buf(), String::new(), 0)];
        while let Some((dir, rel_dir, depth)) = stack.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(err) => {
                    warnings.push(AnalysisWarning::new(
                        display_rel(&rel_dir),
                        0,
                        format!("directory not readable, skipped: {err}"),
                    ));
                    continue;
                }
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let rel = if rel_dir.is_empty() {
                    name.clone()
                } else {
                    format!("{rel_dir}/{name}")
                };
                let Ok(meta) = entry.file_type() else {
                    continue;
                };
                if meta.is_dir() {
                    if SKIPPED_DIRS.contains(&name.as_str()) {
                        continue;
                    }
                    if depth + 1 > MAX_DEPTH {
                        warnings.push(AnalysisWarning::new(
                            rel,
                            0,
                            format!("deeper than {MAX_DEPTH} levels, not visited"),
                        ));
                        continue;
                    }
                    view.dirs.push(rel.clone());
                    stack.push((entry.path(), rel, depth + 1));
                } else if meta.is_file() || meta.is_symlink() {
                    // Symlinks are indexed only when they resolve to a regular
                    // file; directory symlinks are never followed (no loops).
                    // Plain files need no stat: the directory entry says enough.
                    if meta.is_symlink() {
                        match std::fs::metadata(entry.path()) {
                            Ok(m) if m.is_file() => {}
                            _ => continue, // dangling, looping or a directory
                        }
                    }
                    if view.files.len() >= MAX_FILES {
                        warnings.push(AnalysisWarning::new(
                            display_rel(&rel_dir),
                            0,
                            format!("more than {MAX_FILES} files; the rest were not indexed"),
                        ));
                        view.sort();
                        return view;
                    }
                    view.files.push(RepoFile { rel, depth });
                }
            }
        }
        view.sort();
        view
    }

    fn sort(&mut self) {
        self.files.sort_by(|a, b| a.rel.cmp(&b.rel));
        self.dirs.sort();
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// All indexed files, sorted by relative path.
    pub fn files(&self) -> &[RepoFile] {
        &self.files
    }

    /// All visited directories (relative), sorted.
    pub fn dirs(&self) -> &[String] {
        &self.dirs
    }

    /// The file at `rel`, if indexed.
    pub fn get(&self, rel: &str) -> Option<&RepoFile> {
        self.files
            .binary_search_by(|f| f.rel.as_str().cmp(rel))
            .ok()
            .map(|i| &self.files[i])
    }

    /// True when `rel` names an indexed file.
    pub fn exists(&self, rel: &str) -> bool {
        self.get(rel).is_some()
    }

    /// True when `rel` names a visited directory.
    pub fn is_dir(&self, rel: &str) -> bool {
        self.dirs.binary_search_by(|d| d.as_str().cmp(rel)).is_ok()
    }

    /// Files whose name equals `name`, anywhere in the tree.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a RepoFile> + 'a {
        self.files.iter().filter(move |f| f.name() == name)
    }

    /// Reads a file as text. Binary files (a NUL byte in the first 8 KiB) and
    /// unreadable files give `None` and a warning; non-UTF-8 text is decoded
    /// lossily with a warning; files over [`MAX_READ_BYTES`] are cut there.
    pub fn read_text(&self, rel: &str, warnings: &mut Vec<AnalysisWarning>) -> Option<FileText> {
        let path = self.root.join(rel);
        let mut bytes = Vec::new();
        let read = std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_READ_BYTES + 1).read_to_end(&mut bytes));
        if let Err(err) = read {
            warnings.push(AnalysisWarning::new(rel, 0, format!("not readable: {err}")));
            return None;
        }
        let truncated = bytes.len() as u64 > MAX_READ_BYTES;
        if truncated {
            bytes.truncate(MAX_READ_BYTES as usize);
            warnings.push(AnalysisWarning::new(
                rel,
                0,
                format!("larger than {MAX_READ_BYTES} bytes; only the start was read"),
            ));
        }
        if bytes[..bytes.len().min(8192)].contains(&0) {
            warnings.push(AnalysisWarning::new(
                rel,
                0,
                "binary content (NUL bytes), not read as text",
            ));
            return None;
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(err) => {
                let bytes = err.into_bytes();
                let line = 1 + bytes
                    .iter()
                    .take(first_invalid_utf8(&bytes))
                    .filter(|&&b| b == b'\n')
                    .count() as u32;
                warnings.push(AnalysisWarning::new(
                    rel,
                    line,
                    "not valid UTF-8; invalid bytes replaced",
                ));
                String::from_utf8_lossy(&bytes).into_owned()
            }
        };
        Some(FileText { text, truncated })
    }
}

fn first_invalid_utf8(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(err) => err.valid_up_to(),
    }
}

fn display_rel(rel: &str) -> String {
    if rel.is_empty() {
        ".".to_string()
    } else {
        rel.to_string()
    }
}

/// A repository of empty files at `paths`, for tests.
/// `dir/name` relative to the repository root, with `.` and `..` resolved.
pub(crate) fn join(dir: &str, name: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

#[cfg(test)]
pub(crate) fn test_view(paths: &[&str]) -> (tempfile::TempDir, RepoView) {
    let files: Vec<(&str, &str)> = paths.iter().map(|p| (*p, "x")).collect();
    test_view_of(&files)
}

/// A repository holding `files` (path, text), and its view.
#[cfg(test)]
pub(crate) fn test_view_of(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoView) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let view = RepoView::walk(dir.path(), &mut Vec::new());
    (dir, view)
}
