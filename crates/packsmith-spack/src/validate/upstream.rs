//! The upstream's own release archives, reproduced offline from a clone:
//! GitHub serves a tag as `git archive --format=tar --prefix=<repo>-<v>/
//! <tag> | gzip -n`, so a clean checkout at that tag yields the very bytes a
//! user's Spack will download, and the recipe can carry the forge URL and
//! its sha256 while the run installs from the local mirror. Other forges put
//! the commit in the prefix or compress differently, so they keep the packed
//! `file://` tarball.

use std::path::Path;
use std::time::Duration;

use packsmith_core::forge::{Forge, ForgeRepo};
use packsmith_exec::CommandSpec;

use super::source::{
    clear_archive, git_output, gzip_reproducibly, run_checked, sha256_file, LocalSource,
};
use super::ValidateError;

/// One tag's archive on the forge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamRelease {
    pub url: String,
    pub tag: String,
    /// The archive's top directory, without the slash.
    pub prefix: String,
}

impl UpstreamRelease {
    /// The GitHub archive of `tag` for a repository whose remote is `remote`.
    pub fn github(remote: &str, tag: &str) -> Option<Self> {
        let repo = ForgeRepo::parse_remote(remote)?;
        if repo.forge != Forge::GitHub {
            return None;
        }
        Some(Self {
            url: repo.tag_archive_url(tag),
            tag: tag.to_string(),
            prefix: format!("{}-{}", repo.repo, github_ref_dir(tag)),
        })
    }
}

/// GitHub names an archive's directory after the ref with a leading `v`
/// dropped when a digit follows (`v1.2` → `1.2`, `vtk-9` stays).
fn github_ref_dir(tag: &str) -> &str {
    match tag.strip_prefix(['v', 'V']) {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest,
        _ => tag,
    }
}

/// The commit a revision names in `dir`, if git knows it.
fn commit_of(dir: &Path, rev: &str) -> Option<String> {
    git_output(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
}

/// Packs `release` into `<mirror>/<name>/<name>-<version>.tar.gz` (where
/// Spack's mirror layout looks for it) when `dir` is a clean checkout whose
/// HEAD is the tag; None otherwise, so the caller packs the tree as it is.
pub fn pack_upstream_release(
    dir: &Path,
    name: &str,
    version: &str,
    mirror: &Path,
    release: &UpstreamRelease,
) -> Result<Option<LocalSource>, ValidateError> {
    let head = commit_of(dir, "HEAD");
    if head.is_none()
        || head != commit_of(dir, &release.tag)
        || !super::source::clean_git_checkout(dir)
    {
        return Ok(None);
    }
    let target_dir = mirror.join(name);
    std::fs::create_dir_all(&target_dir)
        .map_err(|e| ValidateError::io("create", &target_dir, e))?;
    let mirror = std::fs::canonicalize(mirror).map_err(|e| ValidateError::io("read", mirror, e))?;
    let gz = archive_tag(
        dir,
        release,
        &mirror.join(name).join(format!("{name}-{version}.tar")),
    )?;
    Ok(Some(LocalSource {
        url: release.url.clone(),
        sha256: sha256_file(&gz)?,
        path: gz,
        mirror,
        method: "git archive of the upstream tag".into(),
    }))
}

/// The sha256 of `release`'s archive as the forge serves it, made in a
/// scratch directory and not kept (for the recipe's older versions).
pub fn upstream_release_sha256(
    dir: &Path,
    release: &UpstreamRelease,
) -> Result<String, ValidateError> {
    let scratch = tempfile::tempdir()
        .map_err(|e| ValidateError::io("create", Path::new("a temp directory"), e))?;
    let gz = archive_tag(dir, release, &scratch.path().join("release.tar"))?;
    sha256_file(&gz)
}

/// `git archive` of the tag into `tar`, then `gzip -n`: returns `tar`.gz.
fn archive_tag(
    dir: &Path,
    release: &UpstreamRelease,
    tar: &Path,
) -> Result<std::path::PathBuf, ValidateError> {
    let gz = clear_archive(tar)?;
    let spec = CommandSpec::new("git")
        .args(["archive", "--format=tar"])
        .arg(format!("--prefix={}/", release.prefix))
        .arg("-o")
        .arg(tar)
        .arg(format!("refs/tags/{}", release.tag))
        .cwd(dir)
        .timeout(Duration::from_secs(600));
    run_checked(&spec, "check that the tag exists in the checkout")?;
    gzip_reproducibly(tar)?;
    Ok(gz)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.org",
                "-c",
                "tag.gpgSign=false",
                "-c",
                "commit.gpgSign=false",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The archive is what `git archive | gzip -n` of the tag gives (the
    /// bytes GitHub serves), in Spack's mirror layout; a dirty tree or a
    /// HEAD past the tag is no release.
    #[test]
    fn a_clean_checkout_at_the_tag_reproduces_the_forge_archive() {
        let repo = tempfile::tempdir().unwrap();
        let dir = repo.path();
        git(dir, &["init", "-q"]);
        std::fs::write(dir.join("CMakeLists.txt"), "project(demo)\n").unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-qm", "one"]);
        git(dir, &["tag", "-a", "v1.0", "-m", "release"]);
        git(
            dir,
            &["remote", "add", "origin", "git@github.com:o/demo.git"],
        );
        let release = UpstreamRelease::github("git@github.com:o/demo.git", "v1.0").unwrap();

        let mirror = tempfile::tempdir().unwrap();
        let src = pack_upstream_release(dir, "demo", "1.0", mirror.path(), &release)
            .unwrap()
            .expect("a release");
        assert_eq!(
            src.url,
            "https://github.com/o/demo/archive/refs/tags/v1.0.tar.gz"
        );
        assert!(
            src.path.ends_with("demo/demo-1.0.tar.gz"),
            "{}",
            src.path.display()
        );
        let by_hand = std::process::Command::new("sh")
            .args([
                "-c",
                "git archive --format=tar --prefix=demo-1.0/ v1.0 | gzip -n | sha256sum",
            ])
            .current_dir(dir)
            .output()
            .unwrap();
        let by_hand = String::from_utf8_lossy(&by_hand.stdout);
        assert_eq!(by_hand.split_whitespace().next(), Some(src.sha256.as_str()));
        assert_eq!(upstream_release_sha256(dir, &release).unwrap(), src.sha256);

        std::fs::write(dir.join("CMakeLists.txt"), "project(demo) # edited\n").unwrap();
        assert_eq!(
            pack_upstream_release(dir, "demo", "1.0", mirror.path(), &release).unwrap(),
            None
        );
        git(dir, &["commit", "-qam", "two"]);
        assert_eq!(
            pack_upstream_release(dir, "demo", "1.0", mirror.path(), &release).unwrap(),
            None
        );
    }

    #[test]
    fn github_archives_are_named_as_github_names_them() {
        let r = UpstreamRelease::github("git@github.com:LLNL/zfp.git", "v1.0.1").unwrap();
        assert_eq!(
            r.url,
            "https://github.com/LLNL/zfp/archive/refs/tags/v1.0.1.tar.gz"
        );
        assert_eq!(r.prefix, "zfp-1.0.1");
        let r = UpstreamRelease::github("https://github.com/Kitware/VTK", "vtk-9.3").unwrap();
        assert_eq!(r.prefix, "VTK-vtk-9.3");
        assert_eq!(
            UpstreamRelease::github("https://gitlab.com/a/b", "v1"),
            None
        );
    }
}
