//! Recognises a Spack checkout and reads its version and generation.

use std::path::{Path, PathBuf};

use super::SetupError;

/// Spack's two package-repository layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// 0.x: the builtin repo inside the checkout.
    Legacy,
    /// 1.x: packages in a separate spack-packages repository.
    V1,
}

/// A Spack checkout that passed inspection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    pub root: PathBuf,
    pub version: String,
    pub generation: Generation,
}

/// Checks `root` is a Spack checkout and reads `spack_version` from
/// `lib/spack/spack/__init__.py`.
pub fn inspect_checkout(root: &Path) -> Result<Checkout, SetupError> {
    let init = root.join("lib/spack/spack/__init__.py");
    if !root.join("bin/spack").is_file() || !init.is_file() {
        return Err(SetupError::NotACheckout(root.to_path_buf()));
    }
    let root = root
        .canonicalize()
        .map_err(|_| SetupError::NotACheckout(root.to_path_buf()))?;
    let text = std::fs::read_to_string(&init).unwrap_or_default();
    let version = parse_version(&text).ok_or_else(|| SetupError::NotACheckout(root.clone()))?;
    let (major, minor) = major_minor(&version);
    if major == 0 && minor < 21 {
        return Err(SetupError::TooOld {
            path: root,
            found: version,
        });
    }
    let generation = if major >= 1 {
        Generation::V1
    } else {
        Generation::Legacy
    };
    Ok(Checkout {
        root,
        version,
        generation,
    })
}

/// The `spack_version = "0.23.1"` (or `__version__`) assignment.
pub(crate) fn parse_version(init_py: &str) -> Option<String> {
    init_py.lines().find_map(|line| {
        let line = line.trim();
        let rest = line
            .strip_prefix("spack_version")
            .or_else(|| line.strip_prefix("__version__"))?;
        let value = rest.trim_start().strip_prefix('=')?.trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        value
            .chars()
            .next()
            .filter(char::is_ascii_digit)
            .map(|_| value.to_string())
    })
}

fn major_minor(version: &str) -> (u32, u32) {
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let major = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let minor = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (major, minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_version_assignment() {
        let text = "#: PEP440 canonical\n__version__ = \"0.23.1\"\nspack_version_info = (0, 23)\n";
        assert_eq!(parse_version(text).as_deref(), Some("0.23.1"));
        assert_eq!(parse_version("spack_version_info = (1,)\n"), None);
    }

    #[test]
    fn a_plain_directory_is_not_a_checkout_and_old_spack_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = inspect_checkout(dir.path()).unwrap_err();
        assert!(matches!(err, SetupError::NotACheckout(_)), "{err}");
        assert!(err.to_string().contains("--from"), "{err}");
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        std::fs::create_dir_all(dir.path().join("lib/spack/spack")).unwrap();
        std::fs::write(dir.path().join("bin/spack"), "").unwrap();
        std::fs::write(
            dir.path().join("lib/spack/spack/__init__.py"),
            "spack_version = \"0.19.2\"\n",
        )
        .unwrap();
        let err = inspect_checkout(dir.path()).unwrap_err();
        assert!(matches!(err, SetupError::TooOld { .. }), "{err}");
        std::fs::write(
            dir.path().join("lib/spack/spack/__init__.py"),
            "__version__ = \"1.0.2\"\n",
        )
        .unwrap();
        assert_eq!(
            inspect_checkout(dir.path()).unwrap().generation,
            Generation::V1
        );
    }
}
