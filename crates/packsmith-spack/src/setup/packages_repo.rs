//! Where Spack 1.x finds its builtin packages: a spack-packages checkout
//! given with `--packages`, else one Spack itself cloned earlier. Spack 0.x
//! keeps them inside the checkout, so there is nothing to find.

use std::path::{Path, PathBuf};

use super::{Generation, SetupError};

/// The builtin repository inside a spack-packages checkout.
const BUILTIN_IN_CHECKOUT: &str = "repos/spack_repo/builtin";

/// The builtin repository the set-up's `repos.yaml` names, or None where
/// Spack's own default applies (0.x, or 1.x with no local copy found: it
/// then clones spack-packages on first use, which needs the network).
pub(crate) fn locate_builtin(
    generation: Generation,
    given: Option<&Path>,
    home: Option<&Path>,
) -> Result<Option<PathBuf>, SetupError> {
    match (generation, given) {
        (Generation::Legacy, Some(dir)) => Err(SetupError::PackagesForLegacy(dir.to_path_buf())),
        (Generation::Legacy, None) => Ok(None),
        (Generation::V1, Some(dir)) => builtin_repo_in(dir)
            .map(Some)
            .ok_or_else(|| SetupError::NotAPackagesRepo(dir.to_path_buf())),
        (Generation::V1, None) => Ok(home.and_then(spack_clone_under)),
    }
}

/// `dir` as a spack-packages checkout, or as its builtin repository.
fn builtin_repo_in(dir: &Path) -> Option<PathBuf> {
    [dir.join(BUILTIN_IN_CHECKOUT), dir.to_path_buf()]
        .into_iter()
        .find(|d| d.join("repo.yaml").is_file() && d.join("packages").is_dir())
        .and_then(|d| d.canonicalize().ok())
}

/// A spack-packages clone Spack 1.x made under `~/.spack/package_repos/`.
fn spack_clone_under(home: &Path) -> Option<PathBuf> {
    let mut clones: Vec<PathBuf> = std::fs::read_dir(home.join(".spack/package_repos"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    clones.sort();
    clones.iter().find_map(|c| builtin_repo_in(c))
}

/// `repos.yaml` naming only that repository (two colons: Spack's default
/// git-backed entry would otherwise be merged in and fetched).
pub(crate) fn repos_yaml(builtin: &Path) -> String {
    format!("repos::\n  builtin: {}\n", builtin.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packages_checkout(root: &Path) -> PathBuf {
        let builtin = root.join(BUILTIN_IN_CHECKOUT);
        std::fs::create_dir_all(builtin.join("packages/zlib")).unwrap();
        std::fs::write(builtin.join("repo.yaml"), "repo:\n  namespace: builtin\n").unwrap();
        builtin
    }

    #[test]
    fn a_given_checkout_or_its_builtin_repo_is_found() {
        let tmp = tempfile::tempdir().unwrap();
        let builtin = packages_checkout(tmp.path()).canonicalize().unwrap();
        for given in [tmp.path(), builtin.as_path()] {
            let found = locate_builtin(Generation::V1, Some(given), None).unwrap();
            assert_eq!(found.as_deref(), Some(builtin.as_path()));
        }
        assert_eq!(
            repos_yaml(&builtin),
            format!("repos::\n  builtin: {}\n", builtin.display())
        );
    }

    #[test]
    fn a_directory_without_packages_is_refused_and_legacy_needs_none() {
        let tmp = tempfile::tempdir().unwrap();
        let err = locate_builtin(Generation::V1, Some(tmp.path()), None).unwrap_err();
        assert!(matches!(err, SetupError::NotAPackagesRepo(_)), "{err}");
        let err = locate_builtin(Generation::Legacy, Some(tmp.path()), None).unwrap_err();
        assert!(matches!(err, SetupError::PackagesForLegacy(_)), "{err}");
        assert_eq!(
            locate_builtin(Generation::Legacy, None, None).unwrap(),
            None
        );
    }

    #[test]
    fn spack_s_own_clone_under_home_is_used_when_none_is_given() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(
            locate_builtin(Generation::V1, None, Some(home.path())).unwrap(),
            None
        );
        let clone = home.path().join(".spack/package_repos/fncqgg4");
        let builtin = packages_checkout(&clone).canonicalize().unwrap();
        let found = locate_builtin(Generation::V1, None, Some(home.path())).unwrap();
        assert_eq!(found, Some(builtin));
    }
}
