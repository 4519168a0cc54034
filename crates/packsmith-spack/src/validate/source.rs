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

/// The mirror, absolute, with `<name>/` made in it, once `name` and
/// `version` are safe as path components.
fn package_mirror(mirror: &Path, name: &str, version: &str) -> Result<PathBuf, ValidateError> {
    check_component("package name", name)?;
    check_component("version", version)?;
    let dir = mirror.join(name);
    std::fs::create_dir_all(&dir).map_err(|e| ValidateError::io("create", &dir, e))?;
    std::fs::canonicalize(mirror).map_err(|e| ValidateError::io("read", mirror, e))
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
    pack(dir, name, version, mirror, Packing::AsArchive)
}

/// Packs `dir` as [`pack_local_source`] does, always with `tar`: the tree
/// as checked out, git submodules included (what Spack's git fetcher with
/// `submodules=True` makes), where `git archive` would leave them empty.
pub fn pack_tree(
    dir: &Path,
    name: &str,
    version: &str,
    mirror: &Path,
) -> Result<LocalSource, ValidateError> {
    pack(dir, name, version, mirror, Packing::WorkTree)
}

/// How a tree is packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Packing {
    /// `git archive HEAD` for a clean checkout (a forge's archive), else `tar`.
    AsArchive,
    /// `tar` of the files on disk.
    WorkTree,
}

fn pack(
    dir: &Path,
    name: &str,
    version: &str,
    mirror: &Path,
    packing: Packing,
) -> Result<LocalSource, ValidateError> {
    let mirror = package_mirror(mirror, name, version)?;
    let dir = std::fs::canonicalize(dir).map_err(|e| ValidateError::io("read", dir, e))?;
    let target_dir = mirror.join(name);
    let stem = format!("{name}-{version}");
    let tar = target_dir.join(format!("{stem}.tar"));
    let gz = clear_archive(&tar)?;
    let method;
    if packing == Packing::AsArchive && clean_git_checkout(&dir) {
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

/// The archive kinds Spack reads, by the end of a URL's file name, and
/// how the packed `.tar.gz` becomes one (`None`: it already is).
const ARCHIVE_KINDS: &[(&str, Option<&str>)] = &[
    ("tar.gz", None),
    ("tgz", None),
    ("tar.bz2", Some("bzip2")),
    ("tbz2", Some("bzip2")),
    ("tar.xz", Some("xz")),
    ("txz", Some("xz")),
];

/// The archive extension of a source URL (`tar.bz2` for
/// `…/pcre2-10.44.tar.bz2`), as Spack names the file in a mirror; `tar.gz`
/// for a git source or a URL with no archive ending.
pub fn archive_extension(url: Option<&str>) -> Result<&'static str, ValidateError> {
    let Some(url) = url else {
        return Ok("tar.gz");
    };
    let path = url.split(['?', '#']).next().unwrap_or(url);
    if let Some((ext, _)) = ARCHIVE_KINDS
        .iter()
        .find(|(ext, _)| path.ends_with(&format!(".{ext}")))
    {
        return Ok(ext);
    }
    if path.ends_with(".zip") {
        return Ok("zip");
    }
    if path.ends_with(".tar") {
        return Err(ValidateError::Invalid {
            what: "source URL",
            value: url.into(),
            why: "a local tree can stand in for .tar.gz, .tar.bz2, .tar.xz and .zip archives only"
                .into(),
        });
    }
    Ok("tar.gz")
}

/// The archive kind of what `recipe` fetches for `version`: the version's
/// own `url=`, else the recipe's `url`; a git version (tag, commit,
/// branch) is mirrored as `.tar.gz`.
pub fn recipe_archive_extension(
    recipe: &str,
    version: &str,
) -> Result<&'static str, ValidateError> {
    let parsed = packsmith_spack_knowledge::recipe::parse_recipe(recipe, "package.py");
    let declared = parsed.versions.iter().find(|v| v.version == version);
    let git = declared.is_some_and(|v| v.tag.is_some() || v.commit.is_some() || v.branch.is_some());
    let url = declared
        .and_then(|v| v.url.as_deref())
        .or(parsed.url.as_deref())
        .filter(|_| !git);
    archive_extension(url)
}

/// Packs `dir` as the archive of `name@version` that Spack looks for in a
/// mirror, `<mirror>/<name>/<name>-<version>.<ext>`: for a recipe whose own
/// URL is another project's archive, this tree stands in for it (installed
/// with `--no-checksum`, the recipe's checksum being the upstream
/// archive's).
pub fn pack_as_archive(
    dir: &Path,
    name: &str,
    version: &str,
    mirror: &Path,
    ext: &str,
) -> Result<LocalSource, ValidateError> {
    let packed = if dir.is_file() {
        copy_tarball(dir, name, version, mirror)?
    } else {
        pack_local_source(dir, name, version, mirror)?
    };
    // `<dir>/<name>-<version>`: the packed file without `.tar.gz` (a
    // version's own dots are no extension).
    let gz = packed.path.display().to_string();
    let stem = gz.strip_suffix(".tar.gz").unwrap_or(&gz).to_string();
    let target = PathBuf::from(format!("{stem}.{ext}"));
    if ext == "zip" {
        zip_of_tarball(&packed.path, &target)?;
        return finished(packed, target);
    }
    let Some((_, recompress)) = ARCHIVE_KINDS.iter().find(|(e, _)| *e == ext) else {
        return Err(ValidateError::Invalid {
            what: "archive extension",
            value: ext.into(),
            why: "not one of tar.gz, tgz, tar.bz2, tbz2, tar.xz, txz, zip".into(),
        });
    };
    if let Some(tool) = recompress {
        let tar = PathBuf::from(format!("{stem}.tar"));
        let spec = CommandSpec::new("gzip")
            .args(["-d", "-f"])
            .arg(&packed.path)
            .timeout(Duration::from_secs(600));
        run_checked(&spec, "gzip must be installed")?;
        let spec = CommandSpec::new(*tool)
            .args(["-f", "-k"])
            .arg(&tar)
            .timeout(Duration::from_secs(900));
        run_checked(&spec, &format!("{tool} must be installed"))?;
        let made = PathBuf::from(format!(
            "{}.{}",
            tar.display(),
            if *tool == "xz" { "xz" } else { "bz2" }
        ));
        std::fs::remove_file(&tar).map_err(|e| ValidateError::io("remove", &tar, e))?;
        if made != target {
            std::fs::rename(&made, &target).map_err(|e| ValidateError::io("rename", &made, e))?;
        }
    } else if target != packed.path {
        std::fs::rename(&packed.path, &target)
            .map_err(|e| ValidateError::io("rename", &packed.path, e))?;
    }
    finished(packed, target)
}

/// The archive at `target`, made from `packed`.
fn finished(packed: LocalSource, target: PathBuf) -> Result<LocalSource, ValidateError> {
    let sha256 = sha256_file(&target)?;
    Ok(LocalSource {
        url: format!("file://{}", target.display()),
        sha256,
        path: target,
        mirror: packed.mirror,
        method: packed.method,
    })
}

/// A `.zip` with the tarball's one top directory, for a recipe whose
/// archive is one (fmt's releases): unpacked beside it, zipped with
/// `zip`, the tarball removed.
fn zip_of_tarball(tarball: &Path, target: &Path) -> Result<(), ValidateError> {
    let parent = target.parent().unwrap_or(Path::new("."));
    let work = tempfile::Builder::new()
        .prefix(".zip-")
        .tempdir_in(parent)
        .map_err(|e| ValidateError::io("create", parent, e))?;
    let untar = CommandSpec::new("tar")
        .arg("-xzf")
        .arg(tarball)
        .arg("-C")
        .arg(work.path())
        .timeout(Duration::from_secs(600));
    run_checked(&untar, "tar must be installed")?;
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("source.zip");
    let partial = parent.join(format!(".{name}.part.zip"));
    let zip = CommandSpec::new("zip")
        .args(["-q", "-r", "-X"])
        .arg(&partial)
        .arg(".")
        .cwd(work.path())
        .timeout(Duration::from_secs(900));
    run_checked(&zip, "zip must be installed (Debian: apt-get install zip)")?;
    std::fs::rename(&partial, target).map_err(|e| ValidateError::io("rename", &partial, e))?;
    std::fs::remove_file(tarball).map_err(|e| ValidateError::io("remove", tarball, e))
}

/// A `.tar.gz` the caller already has (a repair set's packed source),
/// copied into the mirror as `<name>/<name>-<version>.tar.gz`.
fn copy_tarball(
    archive: &Path,
    name: &str,
    version: &str,
    mirror: &Path,
) -> Result<LocalSource, ValidateError> {
    let mirror = package_mirror(mirror, name, version)?;
    let bytes = std::fs::read(archive).map_err(|e| ValidateError::io("read", archive, e))?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(ValidateError::Invalid {
            what: "source archive",
            value: archive.display().to_string(),
            why: "a source given as a file must be a .tar.gz (or pass the tree's directory)".into(),
        });
    }
    let path = mirror.join(name).join(format!("{name}-{version}.tar.gz"));
    packsmith_exec::atomic_write(&path, &bytes)
        .map_err(|e| ValidateError::io("write", &path, std::io::Error::other(e.to_string())))?;
    Ok(LocalSource {
        url: format!("file://{}", path.display()),
        sha256: sha256_file(&path)?,
        path,
        mirror,
        method: "copy".into(),
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
    fn a_tree_stands_in_for_the_archive_kind_the_recipe_fetches() {
        assert_eq!(archive_extension(None).unwrap(), "tar.gz");
        assert_eq!(
            archive_extension(Some("https://x.org/pcre2-10.44.tar.bz2")).unwrap(),
            "tar.bz2"
        );
        assert_eq!(
            archive_extension(Some("https://x.org/archive/v1.0.tar.gz?raw=1")).unwrap(),
            "tar.gz"
        );
        assert_eq!(
            archive_extension(Some("https://x.org/get.php?id=3")).unwrap(),
            "tar.gz"
        );
        assert_eq!(
            archive_extension(Some("https://x.org/a-1.0.zip")).unwrap(),
            "zip"
        );
        assert!(archive_extension(Some("https://x.org/a-1.0.tar")).is_err());
        let src = tempfile::tempdir().unwrap();
        std::fs::write(src.path().join("a.c"), "int a;\n").unwrap();
        for (ext, magic) in [
            ("tar.bz2", &b"BZh"[..]),
            ("tar.xz", &b"\xfd7zXZ"[..]),
            ("tgz", &b"\x1f\x8b"[..]),
            ("zip", &b"PK"[..]),
        ] {
            let m = tempfile::tempdir().unwrap();
            let a = pack_as_archive(src.path(), "demo", "1.0", m.path(), ext).unwrap();
            assert!(
                a.path.ends_with(format!("demo/demo-1.0.{ext}")),
                "{}",
                a.path.display()
            );
            let bytes = std::fs::read(&a.path).unwrap();
            assert!(bytes.starts_with(magic), "{ext}");
            assert_eq!(a.sha256, sha256_file(&a.path).unwrap());
            // Only the one archive is left.
            assert_eq!(std::fs::read_dir(m.path().join("demo")).unwrap().count(), 1);
        }
        // A packed source given as a file travels as it is, or recompressed.
        let m = tempfile::tempdir().unwrap();
        let packed = pack_local_source(src.path(), "demo", "1.0", m.path()).unwrap();
        let kept = tempfile::tempdir().unwrap();
        let copy = kept.path().join("src.tar.gz");
        std::fs::copy(&packed.path, &copy).unwrap();
        let m2 = tempfile::tempdir().unwrap();
        let a = pack_as_archive(&copy, "demo", "2.0", m2.path(), "tar.gz").unwrap();
        assert_eq!(a.sha256, packed.sha256);
        assert!(a.path.ends_with("demo/demo-2.0.tar.gz"));
        let b = pack_as_archive(&copy, "demo", "2.0", m2.path(), "tar.xz").unwrap();
        assert!(b.path.ends_with("demo/demo-2.0.tar.xz"));
        std::fs::write(kept.path().join("notes.txt"), "x").unwrap();
        assert!(pack_as_archive(
            &kept.path().join("notes.txt"),
            "demo",
            "2.0",
            m2.path(),
            "tar.gz"
        )
        .is_err());
    }

    #[test]
    fn bad_names_are_refused() {
        let m = tempfile::tempdir().unwrap();
        assert!(pack_local_source(m.path(), "../x", "1.0", m.path()).is_err());
        assert!(pack_local_source(m.path(), "x", "1 0", m.path()).is_err());
    }
}
