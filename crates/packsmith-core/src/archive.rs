//! Release-archive file names: the one list of suffixes that name an
//! archive (`.tar.gz`, `.zip`, …), read by Nix's fetchers and by the
//! unpacking of a local archive for analysis.

const ARCHIVE_SUFFIXES: &[&str] = &[
    ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tar.zst", ".tar", ".zip",
];

/// A file or URL path without its release-archive suffix (`.tar.gz`,
/// `.zip`, …); `None` when it names no archive.
pub fn strip_archive_suffix(path: &str) -> Option<&str> {
    ARCHIVE_SUFFIXES.iter().find_map(|s| path.strip_suffix(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_suffixes_are_stripped() {
        assert_eq!(strip_archive_suffix("demo-1.0.tar.gz"), Some("demo-1.0"));
        assert_eq!(strip_archive_suffix("x/demo.zip"), Some("x/demo"));
        assert_eq!(strip_archive_suffix("demo-1.0"), None);
    }
}
