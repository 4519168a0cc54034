//! The few git facts analysis needs. HEAD and the origin URL are read from
//! the `.git` directory itself (no process to start); tags come from one
//! `git for-each-ref` through packsmith-exec, which peels annotated tags.

use packsmith_exec::{run, CommandSpec};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The git directory of a checkout: `.git/`, or the directory a `.git`
/// file points to (worktrees, submodules).
pub fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot = root.join(".git");
    if dot.is_dir() {
        return Some(dot);
    }
    let text = std::fs::read_to_string(&dot).ok()?;
    let target = text.strip_prefix("gitdir:")?.trim();
    let path = Path::new(target);
    Some(if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    })
}

/// Where shared refs, `packed-refs` and `config` live: the directory a
/// worktree's `commondir` file names, or the git directory itself.
fn common_dir(dir: &Path) -> PathBuf {
    std::fs::read_to_string(dir.join("commondir"))
        .ok()
        .map(|c| dir.join(c.trim()))
        .unwrap_or_else(|| dir.to_path_buf())
}

/// The commit HEAD points to, resolving one level of symbolic ref through
/// loose refs and packed-refs; falls back to `git rev-parse`.
pub fn head_commit(root: &Path) -> Option<String> {
    let from_files = || -> Option<String> {
        let dir = git_dir(root)?;
        let head = std::fs::read_to_string(dir.join("HEAD")).ok()?;
        let head = head.trim();
        let Some(reference) = head.strip_prefix("ref:").map(str::trim) else {
            return is_sha(head).then(|| head.to_string());
        };
        // Worktrees keep shared refs in the common directory.
        let common = common_dir(&dir);
        for base in [&dir, &common] {
            if let Ok(sha) = std::fs::read_to_string(base.join(reference)) {
                let sha = sha.trim();
                if is_sha(sha) {
                    return Some(sha.to_string());
                }
            }
        }
        let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
        packed.lines().find_map(|line| {
            let (sha, name) = line.split_once(' ')?;
            (name == reference && is_sha(sha)).then(|| sha.to_string())
        })
    };
    from_files().or_else(|| git(root, &["rev-parse", "HEAD"]).map(|s| s.trim().to_string()))
}

fn is_sha(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The URL of the `origin` remote, from the repository's config file.
pub fn origin_url(root: &Path) -> Option<String> {
    let common = common_dir(&git_dir(root)?);
    let config = std::fs::read_to_string(common.join("config")).ok()?;
    let mut in_origin = false;
    for line in config.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_origin = t.replace(' ', "") == "[remote\"origin\"]";
        } else if in_origin {
            if let Some((key, value)) = t.split_once('=') {
                if key.trim() == "url" {
                    let url = value.trim().to_string();
                    return (!url.is_empty()).then_some(url);
                }
            }
        }
    }
    None
}

/// Writes the tree of tag `tag` of the checkout at `root` into `dest` (a
/// new or empty directory): `git archive` into a tarball beside it, then
/// `tar` to unpack, so the checkout itself (its index, its work tree) is
/// not touched.
pub fn export_tag(root: &Path, tag: &str, dest: &Path) -> Result<(), crate::AnalyzeError> {
    let fail = |reason: String| crate::AnalyzeError::Export {
        root: root.to_path_buf(),
        tag: tag.to_string(),
        reason,
    };
    std::fs::create_dir_all(dest).map_err(|e| fail(format!("{}: {e}", dest.display())))?;
    let tarball = dest.with_extension("tar");
    let archive = command(&["-C"], Duration::from_secs(300))
        .arg(root)
        .args(["archive", "--format=tar", "-o"])
        .arg(&tarball)
        .arg(format!("refs/tags/{tag}"));
    let out = run(&archive).map_err(|e| fail(e.to_string()))?;
    if !out.success() {
        return Err(fail(last_line(&out.stderr, "git archive failed")));
    }
    let unpack = CommandSpec::new("tar")
        .arg("-xf")
        .arg(&tarball)
        .arg("-C")
        .arg(dest)
        .timeout(Duration::from_secs(300));
    let out = run(&unpack);
    let _ = std::fs::remove_file(&tarball);
    let out = out.map_err(|e| fail(e.to_string()))?;
    if !out.success() {
        return Err(fail(last_line(&out.stderr, "tar failed")));
    }
    Ok(())
}

fn last_line(text: &str, fallback: &str) -> String {
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or(fallback)
        .to_string()
}

/// A `git` command that never prompts for credentials, with a timeout.
pub(crate) fn command(args: &[&str], timeout: Duration) -> CommandSpec {
    CommandSpec::new("git")
        .args(args.iter().copied())
        .env("GIT_TERMINAL_PROMPT", "0")
        .timeout(timeout)
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let spec = command(&["-C"], Duration::from_secs(30))
        .arg(root)
        .args(args.iter().copied());
    let out = run(&spec).ok()?;
    out.success().then_some(out.stdout)
}

/// Every tag with the commit it points to (peeled for annotated tags).
/// A clone keeps its tags in `packed-refs` with peeled lines, which are read
/// directly; only loose tags (made or fetched later) need `git` itself,
/// because peeling them means reading objects.
pub fn tags(root: &Path) -> Vec<(String, String)> {
    if let Some(tags) = packed_tags(root) {
        return tags;
    }
    tags_from_git(root)
}

/// Tags from `packed-refs` when there are no loose tags and the file
/// records peeled commits; None when git must be asked.
fn packed_tags(root: &Path) -> Option<Vec<(String, String)>> {
    let common = common_dir(&git_dir(root)?);
    let loose = common.join("refs/tags");
    if std::fs::read_dir(&loose)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false)
    {
        return None;
    }
    let packed = match std::fs::read_to_string(common.join("packed-refs")) {
        Ok(text) => text,
        Err(_) => return Some(Vec::new()), // no tags at all
    };
    let header = packed.lines().next().unwrap_or("");
    if !header.starts_with('#') || !header.contains("peeled") {
        return None; // without peel lines an annotated tag's commit is unknown
    }
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut last_was_tag = false;
    for line in packed.lines().skip(1) {
        if let Some(peeled) = line.strip_prefix('^') {
            // The commit an annotated tag points to replaces the tag object.
            if let (true, Some(last)) = (last_was_tag, tags.last_mut()) {
                last.1 = peeled.trim().to_string();
            }
            continue;
        }
        last_was_tag = false;
        let Some((sha, name)) = line.split_once(' ') else {
            continue;
        };
        if let Some(tag) = name.strip_prefix("refs/tags/") {
            if is_sha(sha) {
                tags.push((tag.to_string(), sha.to_string()));
                last_was_tag = true;
            }
        }
    }
    Some(tags)
}

fn tags_from_git(root: &Path) -> Vec<(String, String)> {
    let Some(out) = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname:short) %(objectname) %(*objectname)",
            "refs/tags",
        ],
    ) else {
        return Vec::new();
    };
    out.lines()
        .filter_map(|line| {
            let mut parts = line.split_whitespace();
            let tag = parts.next()?.to_string();
            let object = parts.next()?.to_string();
            let peeled = parts.next().map(str::to_string);
            Some((tag, peeled.unwrap_or(object)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_head_and_origin_from_files() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        let sha = "0123456789abcdef0123456789abcdef01234567";
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(
            git.join("packed-refs"),
            format!("# pack-refs with: peeled\n{sha} refs/heads/main\n"),
        )
        .unwrap();
        std::fs::write(
            git.join("config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/LLNL/zfp.git\n",
        )
        .unwrap();
        assert_eq!(head_commit(dir.path()).as_deref(), Some(sha));
        assert_eq!(
            origin_url(dir.path()).as_deref(),
            Some("https://github.com/LLNL/zfp.git")
        );
    }

    #[test]
    fn packed_tags_are_peeled_without_running_git() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("refs/tags")).unwrap();
        let (a, b, c) = ("a".repeat(40), "b".repeat(40), "c".repeat(40));
        std::fs::write(
            git.join("packed-refs"),
            format!(
                "# pack-refs with: peeled fully-peeled sorted \n{a} refs/heads/main\n{b} refs/tags/v1.0\n^{c}\n{a} refs/tags/v0.9\n"
            ),
        )
        .unwrap();
        let tags = packed_tags(dir.path()).unwrap();
        assert_eq!(
            tags,
            vec![
                ("v1.0".to_string(), c.clone()),
                ("v0.9".to_string(), a.clone())
            ]
        );
        // A loose tag means git must be asked.
        std::fs::write(git.join("refs/tags/v2.0"), format!("{a}\n")).unwrap();
        assert_eq!(packed_tags(dir.path()), None);
    }
}
