//! Finding the `packages/` directory of a Spack package repository from
//! whatever the user points at: a Spack checkout, a spack-packages
//! checkout, a repo directory with `repo.yaml`, or `packages/` itself.

use std::path::{Path, PathBuf};

use super::KbError;

/// A located package repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoLayout {
    /// The directory holding `<name>/package.py`.
    pub packages: PathBuf,
    /// `namespace:` from `repo.yaml`, else the repo directory's name.
    pub namespace: String,
}

/// Known places of the builtin repository below a checkout root.
const BUILTIN_SUBDIRS: &[&str] = &[
    "var/spack/repos/builtin",
    "repos/spack_repo/builtin",
    "spack_repo/builtin",
];

pub fn locate(path: &Path) -> Result<RepoLayout, KbError> {
    if !path.exists() {
        return Err(KbError::NoRepo {
            path: path.to_path_buf(),
            why: "it does not exist".to_string(),
        });
    }
    let path = if path.file_name().is_some_and(|n| n == "repo.yaml") {
        path.parent().unwrap_or(path)
    } else {
        path
    };
    let mut candidates: Vec<PathBuf> = BUILTIN_SUBDIRS.iter().map(|s| path.join(s)).collect();
    candidates.push(path.to_path_buf());
    for repo in &candidates {
        let yaml = repo.join("repo.yaml");
        if yaml.is_file() {
            let sub = subdirectory(&yaml).unwrap_or_else(|| "packages".to_string());
            let packages = repo.join(sub);
            if packages.is_dir() {
                return Ok(RepoLayout {
                    namespace: namespace(&yaml).unwrap_or_else(|| dir_name(repo)),
                    packages,
                });
            }
        }
    }
    // `packages/` itself, with or without a repo.yaml beside it.
    if looks_like_packages_dir(path) {
        let parent = path.parent().unwrap_or(path);
        let yaml = parent.join("repo.yaml");
        return Ok(RepoLayout {
            packages: path.to_path_buf(),
            namespace: namespace(&yaml).unwrap_or_else(|| dir_name(parent)),
        });
    }
    Err(KbError::NoRepo {
        path: path.to_path_buf(),
        why: "no repo.yaml with a packages/ directory, nor <name>/package.py files, under it"
            .to_string(),
    })
}

fn looks_like_packages_dir(path: &Path) -> bool {
    std::fs::read_dir(path)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .take(64)
                .any(|e| e.path().join("package.py").is_file())
        })
        .unwrap_or(false)
}

fn dir_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_string())
}

/// A `key: value` line of repo.yaml (the file is tiny; no YAML parser needed).
fn yaml_value(yaml: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(yaml).ok()?;
    text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(key)?.strip_prefix(':')?;
        let value = rest.trim().trim_matches(|c| c == '"' || c == '\'');
        (!value.is_empty()).then(|| value.to_string())
    })
}

fn namespace(yaml: &Path) -> Option<String> {
    yaml_value(yaml, "namespace")
}

fn subdirectory(yaml: &Path) -> Option<String> {
    yaml_value(yaml, "subdirectory")
}

/// Every `<dir>/package.py` below `packages`, sorted by package name.
pub fn recipe_files(packages: &Path) -> Result<Vec<(String, PathBuf)>, KbError> {
    let rd = std::fs::read_dir(packages).map_err(|source| KbError::Io {
        path: packages.to_path_buf(),
        source,
    })?;
    let mut out: Vec<(String, PathBuf)> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter_map(|dir| {
            let file = dir.join("package.py");
            let name = package_name_from_dir(dir.file_name()?.to_str()?);
            file.is_file().then_some((name, file))
        })
        .collect();
    out.sort();
    Ok(out)
}

/// The package name for a directory: v2 repos (`spack_repo`) store
/// `py-numpy` as `py_numpy` and `7zip` as `_7zip`.
pub fn package_name_from_dir(dir: &str) -> String {
    let dir = dir
        .strip_prefix('_')
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or(dir);
    dir.replace('_', "-")
}
