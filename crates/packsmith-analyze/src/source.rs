//! Where the repository comes from: a local path, read in place, or a git
//! URL, cloned once into the user cache and reused.

use crate::error::AnalyzeError;
use packsmith_core::SourceInfo;
use packsmith_exec::{run, CommandSpec};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// True when `given` should be treated as a git URL rather than a path.
pub fn is_git_url(given: &str) -> bool {
    ["https://", "http://", "git://", "ssh://", "file://", "git@"]
        .iter()
        .any(|p| given.starts_with(p))
}

/// Resolves `given` to a directory to analyse. URLs are cloned into
/// `<cache>/repos/<name>-<hash>`; a clone already there is reused (and its
/// tags refreshed when the network allows).
pub fn resolve(given: &str, cache: &Path) -> Result<(PathBuf, SourceInfo), AnalyzeError> {
    if !is_git_url(given) {
        let path = PathBuf::from(given);
        if !path.exists() {
            return Err(AnalyzeError::NotFound { path });
        }
        return Ok((
            path,
            SourceInfo {
                kind: "path".into(),
                given: given.into(),
                release_tag: None,
            },
        ));
    }
    let dest = clone_dir(given, cache);
    if dest.join(".git").exists() {
        // Best effort: offline users still get the clone they have.
        let _ = run(&git(&["-C"]).arg(&dest).args(["fetch", "--quiet", "--tags"]));
    } else {
        clone(given, &dest)?;
    }
    let release_tag = check_out_newest_release(&dest);
    Ok((
        dest,
        SourceInfo {
            kind: "git".into(),
            given: given.into(),
            release_tag,
        },
    ))
}

/// Puts a clone packsmith owns at its newest release tag (detached), as a
/// packager packages a release and not the default branch's head; the
/// release's archive is then the forge's own (see packsmith-spack's
/// `validate::upstream`). Without a release tag the clone stays as it is.
fn check_out_newest_release(dest: &Path) -> Option<String> {
    let probe = crate::versions::probe_git(dest).join().ok()?;
    let tag = crate::versions::from_git(probe, None).latest_tag?.tag;
    let out = run(&git(&["-C"])
        .arg(dest)
        .args(["checkout", "--quiet", "--detach"])
        .arg(format!("refs/tags/{tag}")))
    .ok()?;
    out.success().then_some(tag)
}

/// Clones and fetches may move a lot of data: a long timeout.
fn git(first: &[&str]) -> CommandSpec {
    crate::git::command(first, Duration::from_secs(900))
}

/// `<cache>/repos/<last path component>-<8 hex of the URL's hash>`.
fn clone_dir(url: &str, cache: &Path) -> PathBuf {
    let digest = Sha256::digest(url.as_bytes());
    let short: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let name: String = url
        .trim_end_matches('/')
        .trim_end_matches(".git")
        .rsplit(['/', ':'])
        .next()
        .unwrap_or("repo")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    cache.join("repos").join(format!("{name}-{short}"))
}

/// Clones into a temporary sibling, then renames, so an interrupted clone
/// never looks like a finished one.
fn clone(url: &str, dest: &Path) -> Result<(), AnalyzeError> {
    let fail = |reason: String| AnalyzeError::Clone {
        url: url.to_string(),
        reason,
    };
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
    let tmp = tempfile::Builder::new()
        .prefix(".clone-")
        .tempdir_in(parent)
        .map_err(|e| {
            fail(format!(
                "cannot create a directory in {}: {e}",
                parent.display()
            ))
        })?;
    let out =
        run(&git(&["clone", "--quiet", "--no-recurse-submodules", url])
            .arg(tmp.path().join("repo")))
        .map_err(|e| fail(e.to_string()))?;
    if !out.success() {
        let reason = if out.timed_out {
            "git clone timed out".to_string()
        } else {
            out.stderr
                .trim()
                .lines()
                .last()
                .unwrap_or("git clone failed")
                .to_string()
        };
        return Err(fail(reason));
    }
    std::fs::rename(tmp.path().join("repo"), dest)
        .map_err(|e| fail(format!("cannot move the clone to {}: {e}", dest.display())))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_in(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
            .args(["-c", "init.defaultBranch=main", "-c", "tag.gpgSign=false"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A URL's clone is analysed at its newest release, not at the default
    /// branch's head, and says so.
    #[test]
    fn a_cloned_url_is_put_at_its_newest_release_tag() {
        let upstream = tempfile::tempdir().unwrap();
        let up = upstream.path();
        git_in(up, &["init", "-q"]);
        std::fs::write(up.join("CMakeLists.txt"), "project(demo VERSION 1.0)\n").unwrap();
        git_in(up, &["add", "."]);
        git_in(up, &["commit", "-qm", "1.0"]);
        git_in(up, &["tag", "v1.0"]);
        std::fs::write(up.join("CMakeLists.txt"), "project(demo VERSION 1.1)\n").unwrap();
        git_in(up, &["commit", "-qam", "unreleased"]);
        let cache = tempfile::tempdir().unwrap();
        let url = format!("file://{}", up.display());
        let (dir, info) = resolve(&url, cache.path()).unwrap();
        assert_eq!(info.release_tag.as_deref(), Some("v1.0"));
        let text = std::fs::read_to_string(dir.join("CMakeLists.txt")).unwrap();
        assert!(text.contains("VERSION 1.0"), "{text}");
        // Reused from the cache: still at the release.
        let (_, again) = resolve(&url, cache.path()).unwrap();
        assert_eq!(again.release_tag.as_deref(), Some("v1.0"));
    }

    #[test]
    fn urls_and_paths_are_told_apart() {
        assert!(is_git_url("https://github.com/LLNL/zfp"));
        assert!(is_git_url("git@github.com:LLNL/zfp.git"));
        assert!(is_git_url("file:///srv/git/zfp.git"));
        assert!(!is_git_url("./zfp"));
        assert!(!is_git_url("/home/u/src/zfp"));
    }

    #[test]
    fn clone_dirs_are_stable_and_distinct() {
        let cache = Path::new("/c");
        let a = clone_dir("https://github.com/LLNL/zfp.git", cache);
        assert_eq!(a, clone_dir("https://github.com/LLNL/zfp.git", cache));
        assert!(a.to_string_lossy().starts_with("/c/repos/zfp-"));
        assert_ne!(a, clone_dir("https://gitlab.com/other/zfp", cache));
    }
}
