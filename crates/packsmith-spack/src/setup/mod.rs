//! `packsmith setup spack`: one call from a Spack checkout to a Spack that
//! packsmith can use at once, isolated from the user's own configuration
//! (its own config scope, caches, concretizer and externals).

mod build_backends;
mod check;
mod checkout;
mod concretizer;
mod externals;
mod packages_repo;
mod python_sites;
mod scope;
mod status;
mod style_tools;
mod venv;

use std::path::{Path, PathBuf};

pub use build_backends::BUILD_BACKENDS;
pub use check::{check_specs, SpecCheck, CHECK_SPECS};
pub use checkout::{inspect_checkout, Checkout, Generation};
pub use externals::{detect_own_externals, OwnExternal};
pub use scope::{env_script, scope_files, STYLE_BIN_VAR};
pub use status::{inspect_setup, CommonExternal, SetupStatus, COMMON_EXTERNALS};
pub use style_tools::STYLE_TOOLS;

/// What went wrong setting Spack up; every message names the input and
/// says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0} is not a Spack checkout (no bin/spack and lib/spack/spack/__init__.py); pass --from a Spack git checkout")]
    NotACheckout(PathBuf),
    #[error("Spack {found} in {path} is too old: packsmith needs 0.21 or newer; check out a newer release")]
    TooOld { path: PathBuf, found: String },
    #[error(
        "no Python 3 found (tried {0}); install python3 (apt-get install python3 python3-venv)"
    )]
    NoPython(String),
    #[error("could not get clingo for Spack's concretizer: {0}; with no network, install a clingo wheel with pip into {1} by hand")]
    NoClingo(String, PathBuf),
    #[error("cannot write the set-up into {path}: {source}; pass a writable --prefix")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--packages {0} is for Spack 1.x; Spack 0.x keeps its packages in the checkout: leave --packages out")]
    PackagesForLegacy(PathBuf),
    #[error("{0} is not a spack-packages checkout (no repos/spack_repo/builtin with repo.yaml and packages/); pass --packages a clone of spack/spack-packages")]
    NotAPackagesRepo(PathBuf),
    #[error("`spack {args}` failed: {detail}")]
    Spack { args: String, detail: String },
    #[error("interrupted (Ctrl-C) during `spack {0}`; it was stopped and the previous set-up is unchanged")]
    Interrupted(String),
}

/// What to set up and where.
#[derive(Debug, Clone)]
pub struct SetupOptions {
    /// The Spack checkout.
    pub from: PathBuf,
    /// Directory holding the scope, caches, venv and env.sh.
    pub prefix: PathBuf,
    /// Spack 1.x: a spack-packages checkout (or its builtin repository) for
    /// the scope's `repos.yaml`; None looks for Spack's own clone.
    pub packages: Option<PathBuf>,
}

/// What the set-up made.
#[derive(Debug, Clone)]
pub struct SetupReport {
    pub checkout: Checkout,
    pub env_file: PathBuf,
    pub spack_python: Option<PathBuf>,
    /// The directory of Spack's style tools for the review gate, or why
    /// they could not be installed (the review then approximates).
    pub style_tools: Result<PathBuf, String>,
    /// The directory of the Python build backends from PyPI that stand for
    /// the system's, or why they could not be installed.
    pub build_backends: Result<PathBuf, String>,
    /// What packsmith's detection added (not already found by Spack).
    pub own_externals: Vec<OwnExternal>,
    pub spack_externals: Vec<String>,
    /// The builtin repository `repos.yaml` names (Spack 1.x), if any.
    pub packages_repo: Option<PathBuf>,
}

fn write_err(path: &Path) -> impl FnOnce(std::io::Error) -> SetupError + '_ {
    move |source| SetupError::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// The `packages/` directory of the builtin repository: spack-packages'
/// for Spack 1.x, the checkout's own for 0.x; `None` when neither is there.
fn builtin_packages_dir(checkout: &Checkout, packages_repo: Option<&Path>) -> Option<PathBuf> {
    let dir = match packages_repo {
        Some(repo) => repo.join("packages"),
        None => checkout.root.join("var/spack/repos/builtin/packages"),
    };
    dir.is_dir().then_some(dir)
}

/// Whether `packages` holds a recipe for `package` (1.x spells `a-b` as `a_b`).
fn has_recipe(packages: &Path, package: &str) -> bool {
    [package.to_string(), package.replace('-', "_")]
        .iter()
        .any(|d| packages.join(d).join("package.py").is_file())
}

/// Sets Spack up under `opts.prefix`. The scope is built in a temporary
/// directory and renamed into place, so an interrupted run leaves the
/// previous set-up working; a rerun refreshes compilers and externals.
pub fn setup_spack(opts: &SetupOptions) -> Result<SetupReport, SetupError> {
    let checkout = inspect_checkout(&opts.from)?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let packages_repo = packages_repo::locate_builtin(
        checkout.generation,
        opts.packages.as_deref(),
        home.as_deref(),
    )?;
    std::fs::create_dir_all(&opts.prefix).map_err(write_err(&opts.prefix))?;
    let prefix = opts
        .prefix
        .canonicalize()
        .map_err(write_err(&opts.prefix))?;
    let python = concretizer::system_python()?;
    let spack_python = concretizer::ensure_clingo(&prefix, &python)?;
    let style_tools = style_tools::ensure_style_tools(&prefix, &python);
    let build_backends = build_backends::ensure_build_backends(&prefix, &python);

    let scope_dir = prefix.join("scope");
    let tmp = prefix.join(format!(".scope.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(write_err(&tmp))?;
    let result = packages_repo
        .as_deref()
        .map_or(Ok(()), |repo| {
            std::fs::write(tmp.join("repos.yaml"), packages_repo::repos_yaml(repo))
                .map_err(write_err(&tmp))
        })
        .and_then(|()| build_scope(&checkout, &prefix, &tmp, spack_python.as_deref()));
    let spack_externals = match result {
        Ok(found) => found,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    // Spack's own detection wins; packsmith adds only what it missed, and
    // only packages this Spack has a recipe for (an external of a package
    // it lacks is never used, and would shadow a recipe under test).
    let builtin = builtin_packages_dir(&checkout, packages_repo.as_deref());
    let own: Vec<OwnExternal> =
        detect_own_externals(&prefix.join("python-sites"), build_backends.as_deref().ok())
            .into_iter()
            .filter(|e| !spack_externals.contains(&e.package))
            .filter(|e| {
                builtin
                    .as_deref()
                    .is_none_or(|dir| has_recipe(dir, &e.package))
            })
            .collect();
    scope::append_own_externals(&tmp, &own, &spack_externals).map_err(write_err(&tmp))?;
    swap_into_place(&tmp, &scope_dir)?;

    let env_file = prefix.join("env.sh");
    let script = env_script(
        &checkout.root,
        &prefix,
        spack_python.as_deref(),
        style_tools.as_deref().ok(),
    );
    packsmith_exec::atomic_write(&env_file, script.as_bytes()).map_err(|e| SetupError::Write {
        path: env_file.clone(),
        source: std::io::Error::other(e.to_string()),
    })?;
    Ok(SetupReport {
        checkout,
        env_file,
        spack_python,
        style_tools,
        build_backends,
        own_externals: own,
        spack_externals,
        packages_repo,
    })
}

/// `spack compiler find` and `spack external find` on a slow file system.
const SPACK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(900);

/// Writes the static files, then lets Spack find compilers and externals
/// into the temporary scope. Returns the packages Spack itself found.
fn build_scope(
    checkout: &Checkout,
    prefix: &Path,
    tmp: &Path,
    spack_python: Option<&Path>,
) -> Result<Vec<String>, SetupError> {
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    for (name, text) in scope_files(prefix, jobs, spack_python.is_some()) {
        let path = tmp.join(name);
        std::fs::write(&path, text).map_err(write_err(&path))?;
    }
    std::fs::create_dir_all(prefix.join("mirror")).map_err(write_err(prefix))?;
    let run = |args: &[&str]| -> Result<String, SetupError> {
        let mut cmd = packsmith_exec::CommandSpec::new(checkout.root.join("bin/spack"))
            .args(args.iter().copied())
            .env("SPACK_ROOT", &checkout.root)
            .env("SPACK_USER_CONFIG_PATH", tmp)
            .env("SPACK_USER_CACHE_PATH", prefix.join("cache"))
            .env("PATH", externals::system_path())
            .timeout(SPACK_TIMEOUT);
        if let Some(py) = spack_python {
            cmd = cmd.env("SPACK_PYTHON", py);
        }
        let out = packsmith_exec::run(&cmd).map_err(|e| SetupError::Spack {
            args: args.join(" "),
            detail: e.to_string(),
        })?;
        if out.cancelled {
            return Err(SetupError::Interrupted(args.join(" ")));
        }
        if !out.success() {
            let detail = if out.timed_out {
                format!("no answer in {} s", SPACK_TIMEOUT.as_secs())
            } else {
                out.stderr.trim().to_string()
            };
            return Err(SetupError::Spack {
                args: args.join(" "),
                detail,
            });
        }
        Ok(out.stdout)
    };
    run(&["compiler", "find", "--scope", "user"])?;
    let mut args = vec!["external", "find", "--not-buildable", "--scope", "user"];
    args.extend(externals::SPACK_DETECTABLE);
    run(&args)?;
    let text = std::fs::read_to_string(tmp.join("packages.yaml")).unwrap_or_default();
    Ok(scope::top_level_packages(&text))
}

/// Replaces `dest` by `tmp` with two renames; the old scope is removed
/// only once the new one is in place.
fn swap_into_place(tmp: &Path, dest: &Path) -> Result<(), SetupError> {
    let old = dest.with_extension("old");
    let _ = std::fs::remove_dir_all(&old);
    if dest.exists() {
        std::fs::rename(dest, &old).map_err(write_err(dest))?;
    }
    std::fs::rename(tmp, dest).map_err(write_err(dest))?;
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_external_is_kept_only_where_this_spack_has_its_recipe() {
        let root = tempfile::tempdir().unwrap();
        let packages = root.path().join("var/spack/repos/builtin/packages");
        for name in ["gmp", "netcdf_fortran"] {
            std::fs::create_dir_all(packages.join(name)).unwrap();
            std::fs::write(packages.join(name).join("package.py"), "").unwrap();
        }
        assert!(has_recipe(&packages, "gmp"));
        // Spack 1.x's directory spelling.
        assert!(has_recipe(&packages, "netcdf-fortran"));
        // A package this Spack lacks (givaro is new in 1.x) gets no external.
        assert!(!has_recipe(&packages, "givaro"));
        let checkout = Checkout {
            root: root.path().to_path_buf(),
            version: "0.23.0".into(),
            generation: Generation::Legacy,
        };
        assert_eq!(
            builtin_packages_dir(&checkout, None),
            Some(packages.clone())
        );
        // spack-packages' builtin repository for 1.x.
        let repo = root.path().join("spack-packages/repos/spack_repo/builtin");
        assert_eq!(builtin_packages_dir(&checkout, Some(&repo)), None);
        std::fs::create_dir_all(repo.join("packages")).unwrap();
        assert_eq!(
            builtin_packages_dir(&checkout, Some(&repo)),
            Some(repo.join("packages"))
        );
    }
}
