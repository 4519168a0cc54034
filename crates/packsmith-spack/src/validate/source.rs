//! The source as Spack will fetch it: a reproducible release tarball in a
//! per-run `file://` mirror, and its sha256 for the `version()` directive.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::CommandSpec;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ValidateError;

/// Modification time stamped on every file of a packed tarball
/// (1980-01-01), so the same tree always gives the same checksum.
pub const FIXED_MTIME: u64 = 315_532_800;

/// A tarball in the run's mirror.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalSource {
    /// `file://<mirror>/<name>/<name>-<version>.tar.gz`, for `url =`.
    pub url: String,
    pub sha256: String,
    pub path: PathBuf,
    /// The mirror root (for `mirrors.yaml`).
    pub mirror: PathBuf,
    /// How it was made: `git archive` or `tar`.
    pub method: String,
}

fn check_component(what: &'static str, value: &str) -> Result<(), ValidateError> {
    let ok = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+'));
    if ok && !value.starts_with(['.', '-']) {
        Ok(())
    } else {
        Err(ValidateError::Invalid {
            what,
            value: value.to_string(),
            why: "use letters, digits, `.`, `_`, `-`, `+` only".into(),
        })
    }
}

pub(super) fn run_checked(spec: &CommandSpec, hint: &str) -> Result<(), ValidateError> {
    let out = packsmith_exec::run(spec).map_err(|e| ValidateError::Command {
        command: spec.display(),
        detail: e.to_string(),
        hint: hint.into(),
    })?;
    if out.success() {
        Ok(())
    } else {
        Err(ValidateError::Command {
            command: spec.display(),
            detail: format!(
                "exit {:?}{}: {}",
                out.code,
                if out.timed_out { " (timed out)" } else { "" },
                out.stderr.trim()
            ),
            hint: hint.into(),
        })
    }
}

/// sha256 of a file, hex.
pub fn sha256_file(path: &Path) -> Result<String, ValidateError> {
    let mut file = std::fs::File::open(path).map_err(|e| ValidateError::io("open", path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| ValidateError::io("read", path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Removes `tar` and its `.tar.gz` left by an earlier packing; returns the
/// `.tar.gz` path that [`gzip_reproducibly`] will write.
pub(super) fn clear_archive(tar: &Path) -> Result<PathBuf, ValidateError> {
    let gz = tar.with_extension("tar.gz");
    for stale in [tar, gz.as_path()] {
        if stale.exists() {
            std::fs::remove_file(stale).map_err(|e| ValidateError::io("remove", stale, e))?;
        }
    }
    Ok(gz)
}

/// `gzip -n` (no file name, no time stamp) replaces `tar` by `tar`.gz, so
/// the bytes depend on the tar alone, as a forge's archives do.
pub(super) fn gzip_reproducibly(tar: &Path) -> Result<(), ValidateError> {
    let spec = CommandSpec::new("gzip")
        .args(["-n", "-6", "-f"])
        .arg(tar)
        .timeout(Duration::from_secs(600));
    run_checked(&spec, "gzip must be installed")
}

/// A git command's trimmed output in `dir`; None when it fails or says
/// nothing.
pub(super) fn git_output(dir: &Path, args: &[&str]) -> Option<String> {
    let spec = CommandSpec::new("git")
        .args(args.iter().copied())
        .cwd(dir)
        .timeout(Duration::from_secs(60));
    let out = packsmith_exec::run(&spec).ok().filter(|o| o.success())?;
    Some(out.stdout.trim().to_string()).filter(|s| !s.is_empty())
}

/// True for the top of a git work tree whose tracked files are unchanged
/// (then `git archive HEAD` is exactly the tree on disk).
pub(super) fn clean_git_checkout(dir: &Path) -> bool {
    if !dir.join(".git").exists() {
        return false;
    }
    let spec = CommandSpec::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .cwd(dir)
        .timeout(Duration::from_secs(60));
    matches!(packsmith_exec::run(&spec), Ok(out) if out.success() && out.stdout.trim().is_empty())
}

/// Packs `dir` as `<mirror>/<name>/<name>-<version>.tar.gz` with a
/// `<name>-<version>/` prefix: `git archive HEAD | gzip -n` for a clean git
/// checkout (the checksum GitHub's archives have), otherwise a `tar` with
/// sorted names, numeric root ownership and a fixed mtime, gzipped with
/// `-n`. The same tree always yields the same sha256.
pub fn pack_local_source(
    dir: &Path,
    name: &str,
    version: &str,
    mirror: &Path,
) -> Result<LocalSource, ValidateError> {
    check_component("package name", name)?;
    check_component("version", version)?;
    let dir = std::fs::canonicalize(dir).map_err(|e| ValidateError::io("read", dir, e))?;
    let target_dir = mirror.join(name);
    std::fs::create_dir_all(&target_dir)
        .map_err(|e| ValidateError::io("create", &target_dir, e))?;
    let mirror = std::fs::canonicalize(mirror).map_err(|e| ValidateError::io("read", mirror, e))?;
    let target_dir = mirror.join(name);
    let stem = format!("{name}-{version}");
    let tar = target_dir.join(format!("{stem}.tar"));
    let gz = clear_archive(&tar)?;
    let method;
    if clean_git_checkout(&dir) {
        method = "git archive";
        let spec = CommandSpec::new("git")
            .args(["archive", "--format=tar"])
            .arg(format!("--prefix={stem}/"))
            .arg("-o")
            .arg(&tar)
            .arg("HEAD")
            .cwd(&dir)
            .timeout(Duration::from_secs(600));
        run_checked(&spec, "check that HEAD exists in the checkout")?;
    } else {
        method = "tar";
        let spec = CommandSpec::new("tar")
            .args([
                "--sort=name",
                "--owner=0",
                "--group=0",
                "--numeric-owner",
                "--format=gnu",
                "--exclude-vcs",
            ])
            .arg(format!("--mtime=@{FIXED_MTIME}"))
            .arg(format!("--transform=s,^\\.,{stem},"))
            .arg("-cf")
            .arg(&tar)
            .arg("-C")
            .arg(&dir)
            .arg(".")
            .timeout(Duration::from_secs(600));
        run_checked(&spec, "GNU tar 1.28 or newer is needed (--sort=name)")?;
    }
    gzip_reproducibly(&tar)?;
    let sha256 = sha256_file(&gz)?;
    Ok(LocalSource {
        url: format!("file://{}", gz.display()),
        sha256,
        path: gz,
        mirror,
        method: method.into(),
    })
}

/// Downloads a release archive once into `<mirror>/<name>/<file>` (skipped
/// when already there) and checksums it. Needs network, so it runs outside
/// the build sandbox.
pub fn archive_from_url(
    url: &str,
    name: &str,
    mirror: &Path,
) -> Result<LocalSource, ValidateError> {
    check_component("package name", name)?;
    let file = url
        .rsplit('/')
        .next()
        .filter(|f| !f.is_empty())
        .ok_or_else(|| ValidateError::Invalid {
            what: "archive URL",
            value: url.into(),
            why: "it does not end in a file name".into(),
        })?;
    check_component("archive file name", file)?;
    let dir = mirror.join(name);
    std::fs::create_dir_all(&dir).map_err(|e| ValidateError::io("create", &dir, e))?;
    let dest = dir.join(file);
    if !dest.exists() {
        let part = dir.join(format!("{file}.part"));
        let spec = CommandSpec::new("curl")
            .args(["-fsSL", "--retry", "2", "-o"])
            .arg(&part)
            .arg(url)
            .timeout(Duration::from_secs(900));
        run_checked(&spec, "check the URL and the network connection")?;
        std::fs::rename(&part, &dest).map_err(|e| ValidateError::io("rename", &part, e))?;
    }
    let sha256 = sha256_file(&dest)?;
    Ok(LocalSource {
        url: url.to_string(),
        sha256,
        path: dest,
        mirror: mirror.to_path_buf(),
        method: "download".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_is_reproducible_and_prefixed() {
        let src = tempfile::tempdir().unwrap();
        std::fs::write(src.path().join("CMakeLists.txt"), "project(x)\n").unwrap();
        std::fs::create_dir(src.path().join("src")).unwrap();
        std::fs::write(src.path().join("src/a.c"), "int a;\n").unwrap();
        let m1 = tempfile::tempdir().unwrap();
        let m2 = tempfile::tempdir().unwrap();
        let a = pack_local_source(src.path(), "demo", "1.0", m1.path()).unwrap();
        // Touch a file: mtimes must not matter.
        std::fs::write(src.path().join("src/a.c"), "int a;\n").unwrap();
        let b = pack_local_source(src.path(), "demo", "1.0", m2.path()).unwrap();
        assert_eq!(a.sha256, b.sha256);
        assert_eq!(a.method, "tar");
        assert!(a.url.starts_with("file:///"));
        assert!(a.url.ends_with("/demo/demo-1.0.tar.gz"));
        let list = packsmith_exec::run(&CommandSpec::new("tar").arg("-tzf").arg(&a.path)).unwrap();
        let names: Vec<&str> = list.stdout.lines().collect();
        assert!(names.iter().all(|n| n.starts_with("demo-1.0")), "{names:?}");
        assert!(names.contains(&"demo-1.0/src/a.c"), "{names:?}");
        assert_eq!(a.sha256, sha256_file(&a.path).unwrap());
    }

    #[test]
    fn bad_names_are_refused() {
        let m = tempfile::tempdir().unwrap();
        assert!(pack_local_source(m.path(), "../x", "1.0", m.path()).is_err());
        assert!(pack_local_source(m.path(), "x", "1 0", m.path()).is_err());
    }
}
