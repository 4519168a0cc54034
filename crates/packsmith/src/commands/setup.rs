//! `packsmith setup spack`: a thin front for the Spack backend's set-up
//! (`packsmith_spack::setup`): where the checkout comes from, where the
//! set-up goes, and what to tell the user.

use std::io::Write;
use std::path::{Path, PathBuf};

use packsmith_spack::setup::{
    check_specs, setup_spack, Generation, SetupError, SetupOptions, SpecCheck, BUILD_BACKENDS,
    CHECK_SPECS,
};

use super::spack_default::{default_env_file, default_prefix, record_env, user_config};
use crate::exit::{CliError, Exit};

#[derive(Debug, clap::Args)]
pub struct SetupArgs {
    #[command(subcommand)]
    pub what: SetupWhat,
}

#[derive(Debug, clap::Subcommand)]
pub enum SetupWhat {
    /// Make a Spack packsmith can use at once: its own config scope,
    /// clingo, compilers and the host's libraries as externals; `packsmith
    /// spack` then uses it with no --spack flag.
    Spack(SetupSpackArgs),
}

#[derive(Debug, clap::Args)]
pub struct SetupSpackArgs {
    /// A Spack checkout or a git URL to clone (default: `spack` on PATH).
    #[arg(long)]
    pub from: Option<String>,
    /// Where the set-up goes (default: the packsmith cache's `spack/`).
    #[arg(long)]
    pub prefix: Option<PathBuf>,
    /// Spack 1.x: a spack-packages checkout to use as the builtin package
    /// repository (default: a clone Spack made under ~/.spack, else Spack
    /// clones it on first use, which needs the network).
    #[arg(long, conflicts_with = "check")]
    pub packages: Option<PathBuf>,
    /// Set nothing up: concretize common packages (zlib-api, cmake, mpi,
    /// blas, lapack, boost, hdf5) with the existing set-up and say which
    /// would be built from source (a download each). Exits 1 if any would.
    #[arg(long, conflicts_with = "from")]
    pub check: bool,
}

pub fn run(args: &SetupArgs) -> Result<Exit, CliError> {
    let SetupWhat::Spack(args) = &args.what;
    if args.check {
        let env_file = match &args.prefix {
            Some(prefix) => Some(prefix.join("env.sh")).filter(|p| p.is_file()),
            None => default_env_file()?,
        };
        return check(env_file, args.prefix.as_deref());
    }
    // Ctrl-C stops the clone, Spack's detection or pip (each in its own
    // process group) instead of leaving them running without us.
    packsmith_exec::install_cancel();
    let prefix = args.prefix.clone().unwrap_or_else(default_prefix);
    let from = resolve_from(args.from.as_deref(), &prefix)?;
    let started = std::time::Instant::now();
    let report = setup_spack(&SetupOptions {
        from,
        prefix: prefix.clone(),
        packages: args.packages.clone(),
    })
    .map_err(setup_error)?;
    // Stdout closed (a pipe) is no reason to fail a finished set-up.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "Spack {} ({:?}) at {}",
        report.checkout.version,
        report.checkout.generation,
        report.checkout.root.display()
    );
    if let Some(repo) = &report.packages_repo {
        let _ = writeln!(out, "packages: {}", repo.display());
    } else if report.checkout.generation == Generation::V1 {
        let _ = writeln!(
            out,
            "packages: Spack's default (cloned from spack-packages on first use, which needs the \
             network; pass --packages <spack-packages checkout> to work offline)"
        );
    }
    let _ = match &report.spack_python {
        Some(py) => writeln!(out, "concretizer: clingo in {}", py.display()),
        None => writeln!(out, "concretizer: clingo from the system Python"),
    };
    let _ = match &report.style_tools {
        Ok(bin) => writeln!(
            out,
            "style tools (review gate): isort, black, flake8 in {}",
            bin.display()
        ),
        Err(why) => writeln!(
            out,
            "style tools (review gate): not installed ({why}); the review approximates Spack's \
             style until a rerun with network installs them"
        ),
    };
    let _ = match &report.build_backends {
        Ok(dir) => writeln!(
            out,
            "Python build backends from PyPI (for Debian's older ones): {} in {}",
            BUILD_BACKENDS
                .iter()
                .map(|(_, dist, version)| format!("{dist} {version}"))
                .collect::<Vec<_>>()
                .join(", "),
            dir.display()
        ),
        Err(why) => writeln!(
            out,
            "Python build backends: the system's ({why}); a project declaring a newer trove \
             classifier than they know, or a PEP 639 licence expression, fails to build until a \
             rerun with network installs them"
        ),
    };
    let _ = writeln!(
        out,
        "externals found by Spack ({}): {}",
        report.spack_externals.len(),
        report.spack_externals.join(" ")
    );
    let own: Vec<String> = report.own_externals.iter().map(|e| e.spec()).collect();
    let _ = writeln!(
        out,
        "externals found by packsmith ({}): {}",
        own.len(),
        own.join(" ")
    );
    // The last set-up is the default, wherever its prefix.
    let recorded = match user_config() {
        Some(config) => record_env(&config, &report.env_file)
            .map(|()| format!("; recorded in {} ([spack] env)", config.display())),
        None => Ok(String::new()),
    };
    let _ = writeln!(
        out,
        "env file: {} ({:.1}s); `packsmith spack`, `bench` and `doctor` use it by default{}",
        report.env_file.display(),
        started.elapsed().as_secs_f64(),
        recorded.as_deref().unwrap_or("")
    );
    recorded.map(|_| Exit::Success)
}

/// `--check`: each common spec, and what of its DAG would be built.
fn check(env_file: Option<PathBuf>, prefix: Option<&Path>) -> Result<Exit, CliError> {
    let Some(env_file) = env_file else {
        let prefix = prefix.map(Path::to_path_buf).unwrap_or_else(default_prefix);
        return Err(CliError::new(
            Exit::BadInput,
            format!("no Spack set up in {} (no env.sh)", prefix.display()),
        )
        .hint("run `packsmith setup spack --from <a Spack checkout or git URL>` first"));
    };
    let scratch = tempfile::tempdir().map_err(|e| {
        CliError::new(
            Exit::Environment,
            format!("cannot make a scratch directory: {e}"),
        )
    })?;
    let results = check_specs(&env_file, scratch.path(), CHECK_SPECS)?;
    let mut out = std::io::stdout().lock();
    let mut problems = 0;
    for (spec, result) in &results {
        let line = match result {
            SpecCheck::NothingToBuild => "ok: nothing to build (externals)".to_string(),
            SpecCheck::WouldBuild(nodes) => {
                problems += 1;
                let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
                format!(
                    "would build from source (a download each): {}",
                    names.join(" ")
                )
            }
            SpecCheck::Failed(why) => {
                problems += 1;
                format!("does not concretize: {why}")
            }
        };
        let _ = writeln!(out, "{spec:<9} {line}");
    }
    if problems == 0 {
        return Ok(Exit::Success);
    }
    let _ = writeln!(
        out,
        "{problems} of {} need more than the externals; `packsmith doctor` lists the distribution packages that would provide them",
        results.len()
    );
    Ok(Exit::Failure)
}

/// A directory is a checkout; a URL is cloned into the prefix; nothing
/// means the `spack` on PATH.
fn resolve_from(from: Option<&str>, prefix: &Path) -> Result<PathBuf, CliError> {
    match from {
        Some(f) if Path::new(f).is_dir() => Ok(PathBuf::from(f)),
        Some(url) if url.contains("://") || url.ends_with(".git") => clone(url, prefix),
        Some(other) => Err(CliError::new(
            Exit::BadInput,
            format!("--from {other} is neither a directory nor a git URL"),
        )
        .hint(
            "pass a Spack checkout directory or a git URL such as https://github.com/spack/spack",
        )),
        None => spack_on_path().ok_or_else(|| {
            CliError::new(Exit::BadInput, "no --from given and no `spack` on PATH")
                .hint("pass --from a Spack checkout or git URL")
        }),
    }
}

fn spack_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("spack"))
        .find(|p| p.is_file())
        .and_then(|bin| bin.canonicalize().ok())
        .and_then(|bin| bin.parent()?.parent().map(Path::to_path_buf))
}

/// Clones into `prefix/spack-src` (kept on reruns: a clone is not redone).
fn clone(url: &str, prefix: &Path) -> Result<PathBuf, CliError> {
    let dest = prefix.join("spack-src");
    if dest.join("bin/spack").is_file() {
        return Ok(dest);
    }
    std::fs::create_dir_all(prefix).map_err(|e| {
        CliError::new(
            Exit::Environment,
            format!("cannot create {}: {e}", prefix.display()),
        )
        .hint("pass a writable --prefix")
    })?;
    // Progress on stderr, a stall timeout, and no half-made clone left on
    // Ctrl-C: the same clone `packsmith analyze <url>` does.
    packsmith_analyze::source::clone_repo(
        url,
        &dest,
        packsmith_analyze::source::STALL_TIMEOUT,
        &["--depth", "1"],
        &mut |line| crate::progress::note(line),
    )
    .map_err(|e| {
        let code = match e {
            packsmith_analyze::AnalyzeError::Interrupted { .. } => Exit::Interrupted,
            _ => Exit::Environment,
        };
        CliError::new(code, format!("setup spack: {e}"))
            .hint("check the URL and the network, or pass --from a local Spack checkout")
    })?;
    Ok(dest)
}

fn setup_error(e: SetupError) -> CliError {
    let code = match e {
        SetupError::NotACheckout(_)
        | SetupError::TooOld { .. }
        | SetupError::PackagesForLegacy(_)
        | SetupError::NotAPackagesRepo(_) => Exit::BadInput,
        SetupError::Interrupted(_) => Exit::Interrupted,
        _ => Exit::Environment,
    };
    CliError::new(code, format!("setup spack: {e}"))
        .hint("fix the cause above and rerun; the previous set-up, if any, is untouched")
}
