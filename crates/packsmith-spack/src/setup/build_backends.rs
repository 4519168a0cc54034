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
pub const BUILD_BACKENDS: &[(&str, &str, &str)] = &[
    ("py-hatchling", "hatchling", "1.29.0"),
    ("py-hatch-vcs", "hatch-vcs", "0.5.0"),
    ("py-flit-core", "flit_core", "3.12.0"),
];

/// The directory holding the pinned backends and what they import, made
/// when missing or stale; or why not (nothing is left half-made then).
pub(crate) fn ensure_build_backends(prefix: &Path, python: &Path) -> Result<PathBuf, String> {
    let dir = prefix.join("build-backends");
    if holds_pins(&dir) {
        return Ok(dir);
    }
    let tmp = prefix.join(format!(".build-backends.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let pins: Vec<String> = BUILD_BACKENDS
        .iter()
        .map(|(_, dist, version)| format!("{dist}=={version}"))
        .collect();
    let mut args: Vec<&OsStr> = vec![OsStr::new("--no-compile"), OsStr::new("--target")];
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
    BUILD_BACKENDS.iter().all(|(_, dist, version)| {
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
        for (_, dist, version) in BUILD_BACKENDS {
            let name = dist.replace('-', "_");
            std::fs::create_dir_all(dir.path().join(format!("{name}-{version}.dist-info")))
                .unwrap();
        }
        assert!(holds_pins(dir.path()));
        std::fs::remove_dir_all(dir.path().join("hatch_vcs-0.5.0.dist-info")).unwrap();
        std::fs::create_dir_all(dir.path().join("hatch_vcs-0.4.0.dist-info")).unwrap();
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
