//! Python build backends newer than the distribution's, from PyPI, in a
//! directory of their own under the prefix (`pip install --target`).
//! Debian 12's hatchling 1.12 knows no trove classifier newer than 2022, so
//! every project declaring `Programming Language :: Python :: 3.13` fails to
//! build with it, whoever wrote the recipe; a Spack that builds its own
//! `py-hatchling` has a current one. Likewise flit_core. Optional: offline
//! the set-up keeps the system's backends and says so.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::venv::pip_install;

/// Spack package, distribution and the version installed: pinned, so every
/// set-up builds alike (the newest the 2026 spack-packages repository has).
/// hatch-vcs comes along because the system's would bring its own old
/// hatchling onto the build's path beside this one. Debian 12's flit_core
/// 3.8 cannot read the version of a package whose `__init__` imports its
/// own subpackages by absolute name, which 3.9 fixed (pypdf asks for 3.9).
/// Its setuptools 66 refuses a PEP 639 licence expression
/// (`license = "MIT"`), which needs 77; 80.9 is the last with
/// `pkg_resources`, which older `setup.py` files still import. Its
/// setuptools-scm 7.1 ignores `version_file`, which 8 reads.
pub const BUILD_BACKENDS: &[(&str, &str, &str)] = &[
    ("py-hatchling", "hatchling", "1.29.0"),
    ("py-hatch-vcs", "hatch-vcs", "0.5.0"),
    ("py-flit-core", "flit_core", "3.12.0"),
    ("py-setuptools", "setuptools", "80.9.0"),
    ("py-setuptools-scm", "setuptools-scm", "9.2.2"),
];

/// What the backends import, pinned too and installed with `--no-deps`, so
/// a set-up made next year holds the same files (pip would otherwise take
/// each one's newest). trove-classifiers is PyPI's newest: hatchling checks
/// every classifier against it.
const BACKEND_REQUIREMENTS: &[(&str, &str)] = &[
    ("packaging", "26.2"),
    ("pathspec", "1.1.1"),
    ("pluggy", "1.6.0"),
    ("trove-classifiers", "2026.9.21.13"),
];

/// Every distribution the directory holds, at its pinned version.
fn pins() -> impl Iterator<Item = (&'static str, &'static str)> {
    BUILD_BACKENDS
        .iter()
        .map(|(_, dist, version)| (*dist, *version))
        .chain(BACKEND_REQUIREMENTS.iter().copied())
}

/// The directory holding the pinned backends and what they import, made
/// when missing or stale; or why not (nothing is left half-made then).
pub(crate) fn ensure_build_backends(prefix: &Path, python: &Path) -> Result<PathBuf, String> {
    let dir = prefix.join("build-backends");
    if holds_pins(&dir) {
        return Ok(dir);
    }
    let tmp = prefix.join(format!(".build-backends.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let pins: Vec<String> = pins()
        .map(|(dist, version)| format!("{dist}=={version}"))
        .collect();
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("--no-compile"),
        OsStr::new("--no-deps"),
        OsStr::new("--target"),
    ];
    args.push(tmp.as_os_str());
    args.extend(pins.iter().map(OsStr::new));
    if let Err(why) = pip_install(python, args) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(format!(
            "pip install --target {} failed: {why}",
            pins.join(" ")
        ));
    }
    super::swap_into_place(&tmp, &dir).map_err(|e| e.to_string())?;
    Ok(dir)
}

/// Whether `dir` holds each pinned distribution at its version.
fn holds_pins(dir: &Path) -> bool {
    pins().all(|(dist, version)| {
        let name = dist.replace('-', "_");
        dir.join(format!("{name}-{version}.dist-info")).is_dir()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_with_every_pin_is_kept_and_one_missing_a_pin_is_not() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!holds_pins(dir.path()));
        for (dist, version) in pins() {
            let name = dist.replace('-', "_");
            std::fs::create_dir_all(dir.path().join(format!("{name}-{version}.dist-info")))
                .unwrap();
        }
        assert!(holds_pins(dir.path()));
        std::fs::remove_dir_all(dir.path().join("hatch_vcs-0.5.0.dist-info")).unwrap();
        std::fs::create_dir_all(dir.path().join("hatch_vcs-0.4.0.dist-info")).unwrap();
        assert!(!holds_pins(dir.path()));
        // A backend's own requirement is a pin as much as the backend.
        std::fs::remove_dir_all(dir.path().join("hatch_vcs-0.4.0.dist-info")).unwrap();
        std::fs::create_dir_all(dir.path().join("hatch_vcs-0.5.0.dist-info")).unwrap();
        assert!(holds_pins(dir.path()));
        std::fs::remove_dir_all(dir.path().join("packaging-26.2.dist-info")).unwrap();
        assert!(!holds_pins(dir.path()));
    }

    /// pip that cannot reach an index fails cleanly: an error naming the
    /// pins, and no directory left behind.
    #[test]
    fn a_failed_pip_leaves_nothing_behind() {
        let prefix = tempfile::tempdir().unwrap();
        let err = ensure_build_backends(prefix.path(), Path::new("/bin/false")).unwrap_err();
        assert!(err.contains("hatchling==1.29.0"), "{err}");
        let left: Vec<_> = std::fs::read_dir(prefix.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
