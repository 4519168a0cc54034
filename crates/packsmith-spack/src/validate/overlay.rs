//! One Spack repo and one config scope per attempt, so that a broken recipe
//! breaks only its own attempt (a syntax error in any `package.py` makes
//! every Spack command fail while that repo is configured).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use packsmith_exec::atomic_write;
use serde::{Deserialize, Serialize};

use super::ValidateError;

/// The files of one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// `<run>/attempts/NN`.
    pub dir: PathBuf,
    pub package: String,
    /// The repo's namespace, unique per run and attempt.
    pub namespace: String,
    /// `<dir>/repo`, holding `repo.yaml` and `packages/<name>/package.py`.
    pub repo: PathBuf,
    /// `<dir>/scope`, passed as `spack -C`.
    pub scope: PathBuf,
    pub recipe: PathBuf,
    /// `<dir>/logs`, one file per stage.
    pub logs: PathBuf,
}

fn write(path: &Path, text: &str) -> Result<(), ValidateError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ValidateError::io("create", parent, e))?;
    }
    atomic_write(path, text.as_bytes()).map_err(|e| ValidateError::Io {
        action: "write",
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// YAML double-quoted scalar.
fn yaml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A Python identifier fragment from any run id.
fn ident(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Spack's rule for package names: lower-case letters, digits, `-`, `_`.
fn check_package_name(package: &str) -> Result<(), ValidateError> {
    let valid = !package.is_empty()
        && package
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if valid {
        Ok(())
    } else {
        Err(ValidateError::Invalid {
            what: "Spack package name",
            value: package.into(),
            why: "Spack names are lower-case letters, digits and `-`".into(),
        })
    }
}

/// The repo namespace of attempt `number` of run `run_id`.
pub fn attempt_namespace(run_id: &str, number: u32) -> String {
    format!("packsmith_{}_a{number:02}", ident(run_id))
}

/// Writes attempt `number` of `run_dir` into `<run_dir>/attempts/NN`; see
/// [`prepare_attempt_in`].
pub fn prepare_attempt(
    run_dir: &Path,
    run_id: &str,
    number: u32,
    package: &str,
    recipe: &str,
    mirror: Option<&Path>,
) -> Result<Attempt, ValidateError> {
    let dir = run_dir.join("attempts").join(format!("{number:02}"));
    prepare_attempt_in(
        &dir,
        &attempt_namespace(run_id, number),
        package,
        recipe,
        mirror,
    )
}

/// Writes an attempt into `dir` (the attempt's own directory): the overlay
/// repo `namespace` with `recipe` as `packages/<package>/package.py`, and a
/// scope whose `repos.yaml` puts that repo in front of the configured
/// ones, whose `mirrors.yaml` adds the run's mirror, whose
/// `concretizer.yaml` turns reuse off so an edited recipe is really rebuilt,
/// and whose `packages.yaml` drops any external the site declares for the
/// package itself.
pub fn prepare_attempt_in(
    dir: &Path,
    namespace: &str,
    package: &str,
    recipe: &str,
    mirror: Option<&Path>,
) -> Result<Attempt, ValidateError> {
    check_package_name(package)?;
    std::fs::create_dir_all(dir).map_err(|e| ValidateError::io("create", dir, e))?;
    // Absolute, because `repos.yaml` names the repo from another directory.
    let dir = std::fs::canonicalize(dir).map_err(|e| ValidateError::io("read", dir, e))?;
    let repo = dir.join("repo");
    let scope = dir.join("scope");
    let logs = dir.join("logs");
    let recipe_path = repo.join("packages").join(package).join("package.py");
    write(
        &repo.join("repo.yaml"),
        &format!("repo:\n  namespace: {namespace}\n"),
    )?;
    write(&recipe_path, recipe)?;
    write(
        &scope.join("repos.yaml"),
        &format!("repos:\n- {}\n", yaml_str(&repo.display().to_string())),
    )?;
    write(
        &scope.join("concretizer.yaml"),
        "concretizer:\n  reuse: false\n",
    )?;
    // A site that declares the package itself as an external (Debian's fmt,
    // libpng, yaml-cpp, …) would otherwise "install" that copy and never
    // build the recipe: `::` replaces whatever lower scopes say of it.
    write(
        &scope.join("packages.yaml"),
        &format!("packages:\n  {package}::\n    buildable: true\n"),
    )?;
    if let Some(mirror) = mirror {
        write(
            &scope.join("mirrors.yaml"),
            &format!(
                "mirrors:\n  packsmith-run:\n    url: {}\n    binary: false\n",
                yaml_str(&format!("file://{}", mirror.display()))
            ),
        )?;
    }
    std::fs::create_dir_all(&logs).map_err(|e| ValidateError::io("create", &logs, e))?;
    Ok(Attempt {
        dir,
        package: package.into(),
        namespace: namespace.into(),
        repo,
        scope,
        recipe: recipe_path,
        logs,
    })
}

/// The most a recipe's package directory may hold to travel with it: a
/// Spack package directory holds a few patches, not a home directory.
const PACKAGE_DIR_FILES: usize = 200;
const PACKAGE_DIR_BYTES: u64 = 32 << 20;

/// The package directory of a recipe given by path (`packages/<name>/`
/// holding `package.py` and its patches), when it is one: the recipe is
/// named `package.py` and the directory is small.
pub fn package_dir_of(recipe: &Path) -> Option<PathBuf> {
    if recipe.file_name()? != "package.py" {
        return None;
    }
    let dir = std::fs::canonicalize(recipe).ok()?.parent()?.to_path_buf();
    let (mut files, mut bytes) = (0usize, 0u64);
    let mut todo = vec![dir.clone()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).ok()?.flatten() {
            let kind = entry.file_type().ok()?;
            files += 1;
            if kind.is_dir() {
                todo.push(entry.path());
            } else {
                bytes += entry.metadata().ok()?.len();
            }
            if files > PACKAGE_DIR_FILES || bytes > PACKAGE_DIR_BYTES {
                return None;
            }
        }
    }
    Some(dir)
}

fn copy_tree(from: &Path, to: &Path, top: bool) -> Result<(), ValidateError> {
    let entries = std::fs::read_dir(from).map_err(|e| ValidateError::io("read", from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| ValidateError::io("read", from, e))?;
        let name = entry.file_name();
        if (top && name == "package.py") || name == "__pycache__" {
            continue;
        }
        let path = entry.path();
        let target = to.join(&name);
        let kind = entry
            .file_type()
            .map_err(|e| ValidateError::io("read", &path, e))?;
        if kind.is_dir() {
            std::fs::create_dir_all(&target)
                .map_err(|e| ValidateError::io("create", &target, e))?;
            copy_tree(&path, &target, false)?;
        } else if kind.is_file() {
            std::fs::copy(&path, &target).map_err(|e| ValidateError::io("copy", &path, e))?;
        }
    }
    Ok(())
}

impl Attempt {
    /// Copies the files and directories of `from` (a package directory) but
    /// `package.py` and Python's bytecode next to the attempt's recipe.
    pub fn add_package_files(&self, from: &Path) -> Result<(), ValidateError> {
        let to = self
            .recipe
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.repo.clone());
        copy_tree(from, &to, true)
    }

    /// Puts `recipe` in place of the attempt's `package.py`; the repo and
    /// scope stay as they are. Python's cached bytecode of the old recipe
    /// goes: it is checked by the source's size and mtime in seconds, so a
    /// same-length fix within the second (`AutoToolsPackage` →
    /// `AutotoolsPackage`) would otherwise load the old class again.
    pub fn replace_recipe(&self, recipe: &str) -> Result<(), ValidateError> {
        if let Some(cache) = self.recipe.parent().map(|d| d.join("__pycache__")) {
            if cache.exists() {
                std::fs::remove_dir_all(&cache)
                    .map_err(|e| ValidateError::io("remove", &cache, e))?;
            }
        }
        write(&self.recipe, recipe)
    }
}

/// The attempt of a run last prepared, and the recipe in it: every stage
/// of an attempt, and the variant check after it, reuse it instead of
/// writing the overlay again; a recipe fixed within the attempt only
/// replaces `package.py`. One per run (attempts are known by number).
#[derive(Debug, Default)]
pub struct PreparedAttempts {
    last: Mutex<Option<Prepared>>,
    /// A package directory whose other files (patches) every attempt's
    /// package directory gets a copy of.
    package_files: Option<PathBuf>,
}

#[derive(Debug, Clone)]
struct Prepared {
    number: u32,
    recipe: String,
    attempt: Attempt,
}

impl PreparedAttempts {
    /// Attempts whose package directory also holds the files of `dir`
    /// other than `package.py` (a recipe's patches).
    pub fn with_package_files(dir: PathBuf) -> Self {
        Self {
            package_files: Some(dir),
            ..Self::default()
        }
    }

    /// Attempt `number` (in `dir`, repo `namespace`) holding `recipe`,
    /// prepared on first use.
    pub fn get_or_prepare(
        &self,
        number: u32,
        dir: &Path,
        namespace: &str,
        package: &str,
        recipe: &str,
        mirror: Option<&Path>,
    ) -> Result<Attempt, ValidateError> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = last.as_mut().filter(|p| p.number == number) {
            if p.recipe != recipe {
                p.attempt.replace_recipe(recipe)?;
                p.recipe = recipe.to_string();
                return Ok(p.attempt.clone());
            }
            if p.intact() {
                return Ok(p.attempt.clone());
            }
        }
        let attempt = prepare_attempt_in(dir, namespace, package, recipe, mirror)?;
        if let Some(files) = &self.package_files {
            attempt.add_package_files(files)?;
        }
        *last = Some(Prepared {
            number,
            recipe: recipe.to_string(),
            attempt: attempt.clone(),
        });
        Ok(attempt)
    }

    /// Attempt `number`, when it was the last prepared and still holds
    /// `recipe`.
    pub fn find(&self, number: u32, recipe: &str) -> Option<Attempt> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        last.as_ref()
            .filter(|p| p.number == number && p.recipe == recipe && p.intact())
            .map(|p| p.attempt.clone())
    }
}

impl Prepared {
    /// Whether `package.py` still holds the recipe: a stage runs the
    /// recipe's own code, which can write in the run directory, and an
    /// overlay changed behind our back is written again rather than reused.
    fn intact(&self) -> bool {
        std::fs::read_to_string(&self.attempt.recipe).is_ok_and(|text| text == self.recipe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_recipe_leaves_no_stale_bytecode() {
        let run = tempfile::tempdir().unwrap();
        let a = prepare_attempt(run.path(), "run-1", 1, "demo", "x = 1\n", None).unwrap();
        let cache = a.recipe.parent().unwrap().join("__pycache__");
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::write(cache.join("package.cpython-311.pyc"), b"old").unwrap();
        a.replace_recipe("x = 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&a.recipe).unwrap(), "x = 2\n");
        assert!(!cache.exists());
    }

    #[test]
    fn a_recipes_patches_travel_with_it_into_every_attempt() {
        let pkg = tempfile::tempdir().unwrap();
        std::fs::write(pkg.path().join("package.py"), "given = 1\n").unwrap();
        std::fs::write(pkg.path().join("fix.patch"), "--- a\n").unwrap();
        std::fs::create_dir(pkg.path().join("patches")).unwrap();
        std::fs::write(pkg.path().join("patches/old.patch"), "--- b\n").unwrap();
        let run = tempfile::tempdir().unwrap();
        let prepared = PreparedAttempts::with_package_files(pkg.path().to_path_buf());
        let a = prepared
            .get_or_prepare(1, &run.path().join("01"), "ns1", "demo", "x = 1\n", None)
            .unwrap();
        let dir = a.recipe.parent().unwrap();
        assert_eq!(std::fs::read_to_string(&a.recipe).unwrap(), "x = 1\n");
        assert_eq!(
            std::fs::read_to_string(dir.join("fix.patch")).unwrap(),
            "--- a\n"
        );
        assert!(dir.join("patches/old.patch").is_file());
    }

    #[test]
    fn only_a_small_package_directory_travels() {
        let pkg = tempfile::tempdir().unwrap();
        let recipe = pkg.path().join("package.py");
        std::fs::write(&recipe, "x = 1\n").unwrap();
        assert!(package_dir_of(&recipe).is_some());
        let other = pkg.path().join("mylib.py");
        std::fs::write(&other, "x = 1\n").unwrap();
        assert_eq!(package_dir_of(&other), None);
        for i in 0..=PACKAGE_DIR_FILES {
            std::fs::write(pkg.path().join(format!("f{i}")), "").unwrap();
        }
        assert_eq!(package_dir_of(&recipe), None);
    }

    #[test]
    fn attempts_are_separate_repos_and_scopes() {
        let run = tempfile::tempdir().unwrap();
        let a =
            prepare_attempt(run.path(), "run-1", 1, "demo", "x = 1\n", Some(run.path())).unwrap();
        let b = prepare_attempt(run.path(), "run-1", 2, "demo", "y = 2\n", None).unwrap();
        assert_ne!(a.namespace, b.namespace);
        assert_eq!(a.namespace, "packsmith_run_1_a01");
        assert_eq!(std::fs::read_to_string(&a.recipe).unwrap(), "x = 1\n");
        let repos = std::fs::read_to_string(a.scope.join("repos.yaml")).unwrap();
        assert!(repos.contains("attempts/01/repo"), "{repos}");
        assert!(a.scope.join("mirrors.yaml").exists());
        // The package's own externals are dropped in the attempt's scope.
        assert!(std::fs::read_to_string(a.scope.join("packages.yaml"))
            .unwrap()
            .contains("  demo::\n    buildable: true\n"));
        assert!(!b.scope.join("mirrors.yaml").exists());
        assert!(prepare_attempt(run.path(), "r", 3, "Bad Name", "", None).is_err());
    }

    /// Modification times of the files an attempt writes besides its recipe.
    fn overlay_times(a: &Attempt) -> Vec<std::time::SystemTime> {
        [
            a.repo.join("repo.yaml"),
            a.scope.join("repos.yaml"),
            a.scope.join("concretizer.yaml"),
            a.scope.join("mirrors.yaml"),
        ]
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .collect()
    }

    #[test]
    fn an_attempt_is_prepared_once_and_a_fixed_recipe_only_replaces_package_py() {
        let run = tempfile::tempdir().unwrap();
        let dir = run.path().join("attempts").join("01");
        let ns = attempt_namespace("run-1", 1);
        let cache = PreparedAttempts::default();
        let a = cache
            .get_or_prepare(1, &dir, &ns, "demo", "x = 1\n", Some(run.path()))
            .unwrap();
        let written = overlay_times(&a);
        // Files written again would get a later time, even on a coarse clock.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let again = cache
            .get_or_prepare(1, &dir, &ns, "demo", "x = 1\n", Some(run.path()))
            .unwrap();
        assert_eq!(again, a);
        let recipe_time = std::fs::metadata(&a.recipe).unwrap().modified().unwrap();
        let fixed = cache
            .get_or_prepare(1, &dir, &ns, "demo", "x = 2\n", Some(run.path()))
            .unwrap();
        assert_eq!(fixed, a);
        assert_eq!(std::fs::read_to_string(&a.recipe).unwrap(), "x = 2\n");
        assert!(std::fs::metadata(&a.recipe).unwrap().modified().unwrap() > recipe_time);
        assert_eq!(overlay_times(&a), written);
        assert_eq!(cache.find(1, "x = 2\n"), Some(a.clone()));
        assert_eq!(cache.find(1, "x = 1\n"), None);
        // A package.py changed behind the cache's back is not reused.
        std::fs::write(&a.recipe, "tampered\n").unwrap();
        assert_eq!(cache.find(1, "x = 2\n"), None);
        let restored = cache
            .get_or_prepare(1, &dir, &ns, "demo", "x = 2\n", Some(run.path()))
            .unwrap();
        assert_eq!(restored, a);
        assert_eq!(std::fs::read_to_string(&a.recipe).unwrap(), "x = 2\n");
        // The next attempt gets its own overlay.
        let dir2 = run.path().join("attempts").join("02");
        let b = cache
            .get_or_prepare(
                2,
                &dir2,
                &attempt_namespace("run-1", 2),
                "demo",
                "y\n",
                None,
            )
            .unwrap();
        assert_eq!(b.namespace, "packsmith_run_1_a02");
        assert!(b.dir.ends_with("attempts/02"));
        assert_eq!(cache.find(1, "x = 2\n"), None);
    }
}
