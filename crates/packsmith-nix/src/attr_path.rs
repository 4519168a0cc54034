//! The nixpkgs attribute a package will have (`python3Packages.foo`,
//! `foo`): which package set it joins, and so which builder family a
//! reviewer expects, and where in a repository holding several projects
//! the packaged one lives (`sourceRoot`).

use std::path::Path;

/// The package set an attribute path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageSet {
    /// `pkgs/by-name`: whatever builder the project's build system takes.
    TopLevel,
    /// `python3Packages.*`, `python313Packages.*`, `python3.pkgs.*`: a
    /// Python module, built with `buildPythonPackage`.
    Python,
}

/// The set of `attr` (`python313Packages.foo` → Python).
pub fn package_set(attr: &str) -> PackageSet {
    let Some((set, _)) = attr.rsplit_once('.') else {
        return PackageSet::TopLevel;
    };
    let python_set = set == "python3.pkgs"
        || set
            .strip_prefix("python")
            .and_then(|rest| rest.strip_suffix("Packages"))
            .is_some_and(|digits| digits.chars().all(|c| c.is_ascii_digit()));
    if python_set {
        PackageSet::Python
    } else {
        PackageSet::TopLevel
    }
}

/// The attribute's own name (`python3Packages.foo-bar` → `foo-bar`).
pub fn leaf(attr: &str) -> &str {
    attr.rsplit('.').next().unwrap_or(attr)
}

/// Whether two project names are one (`Foo_Bar`, `foo-bar`, `foo.bar`).
pub fn same_name(a: &str, b: &str) -> bool {
    normalized(a) == normalized(b)
}

/// Lower case, `-`, `_` and `.` dropped: `Foo_Bar` and `foo-bar` agree.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

fn is_python_project(dir: &Path) -> bool {
    dir.join("pyproject.toml").is_file() || dir.join("setup.py").is_file()
}

/// The directory, relative to `root`, of the Python project named `name`
/// in a repository holding several (a monorepo with one directory per
/// language, a collection of modules, a uv workspace). Looks one and two
/// levels down; prefers the directory named after the package, then one
/// its name ends with (`standard-sndhdr` → `sndhdr`), then `python`, then
/// the only candidate. When the top is itself a Python project (another
/// one: the caller checked its name), only a directory named after the
/// package will do. None when nothing decides.
pub fn python_subproject(root: &Path, name: &str) -> Option<String> {
    let top_is_python = is_python_project(root);
    let mut candidates = Vec::new();
    for first in subdirs(root) {
        let rel = first.file_name()?.to_string_lossy().into_owned();
        if is_python_project(&first) {
            candidates.push(rel.clone());
        }
        for second in subdirs(&first) {
            if is_python_project(&second) {
                let sub = second.file_name()?.to_string_lossy().into_owned();
                candidates.push(format!("{rel}/{sub}"));
            }
        }
    }
    let want = normalized(name);
    let last = |c: &String| normalized(c.rsplit('/').next().unwrap_or(c));
    let exact = candidates.iter().find(|c| last(c) == want);
    if top_is_python {
        return exact.cloned();
    }
    let pick = exact
        .or_else(|| {
            candidates
                .iter()
                .find(|c| !last(c).is_empty() && want.ends_with(&last(c)))
        })
        .or_else(|| candidates.iter().find(|c| last(c) == "python"))
        .or_else(|| (candidates.len() == 1).then(|| &candidates[0]));
    pick.cloned()
}

/// Directories under `dir`, hidden ones and the usual non-project ones
/// left out, sorted for a stable choice.
fn subdirs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter(|p| {
            let n = p.file_name().map(|n| n.to_string_lossy().into_owned());
            n.is_some_and(|n| {
                !n.starts_with('.') && !matches!(n.as_str(), "docs" | "doc" | "tests" | "test")
            })
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_sets_by_name() {
        assert_eq!(package_set("python3Packages.foo"), PackageSet::Python);
        assert_eq!(package_set("python313Packages.foo"), PackageSet::Python);
        assert_eq!(package_set("python3.pkgs.foo"), PackageSet::Python);
        assert_eq!(package_set("foo"), PackageSet::TopLevel);
        assert_eq!(package_set("ocamlPackages.foo"), PackageSet::TopLevel);
        assert_eq!(package_set("pythonFooPackages.foo"), PackageSet::TopLevel);
        assert_eq!(leaf("python3Packages.foo-bar"), "foo-bar");
    }

    fn tree(dirs: &[&str]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for p in dirs {
            let path = d.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        d
    }

    #[test]
    fn the_python_directory_of_a_monorepo() {
        let d = tree(&["go/go.mod", "python/pyproject.toml", "ruby/x.gemspec"]);
        assert_eq!(
            python_subproject(d.path(), "cucumber-expressions").as_deref(),
            Some("python")
        );
    }

    #[test]
    fn the_module_a_collection_names() {
        let d = tree(&[
            "aifc/pyproject.toml",
            "sndhdr/pyproject.toml",
            "scripts/x.rs",
        ]);
        assert_eq!(
            python_subproject(d.path(), "standard-sndhdr").as_deref(),
            Some("sndhdr")
        );
        let d = tree(&["bindings/python/setup.py", "CMakeLists.txt"]);
        assert_eq!(
            python_subproject(d.path(), "whatever").as_deref(),
            Some("bindings/python")
        );
    }

    #[test]
    fn a_python_top_or_an_undecided_choice_is_none() {
        // Another project at the top (a workspace): only the package's own
        // directory is taken.
        let d = tree(&[
            "pyproject.toml",
            "python/lance_namespace/pyproject.toml",
            "python/lance_namespace_urllib3_client/pyproject.toml",
        ]);
        assert_eq!(
            python_subproject(d.path(), "lance-namespace-urllib3-client").as_deref(),
            Some("python/lance_namespace_urllib3_client")
        );
        assert_eq!(python_subproject(d.path(), "python"), None);
        assert!(same_name("Foo_Bar", "foo-bar"));
        let d = tree(&["a/pyproject.toml", "b/setup.py"]);
        assert_eq!(python_subproject(d.path(), "other"), None);
    }
}
