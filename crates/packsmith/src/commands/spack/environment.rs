//! The Spack a run validates with, the generation to write for, the
//! knowledge base that matches it, and the sandbox around its stages.

use std::path::{Path, PathBuf};

use packsmith_spack::validate::{
    Sandbox, SandboxPolicy, SpackSandboxPolicy, SpackSetup, ValidateError, NO_SPACK_HINT,
};
use packsmith_spack_knowledge::kb::{kb_dir, KnowledgeBase};
use packsmith_spack_knowledge::target::TargetSpack;

use crate::cli::SpackArgs;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};

/// One hint: the error's own (for a missing Spack, how to install and pass
/// one), else the general one.
fn spack_error(e: ValidateError) -> CliError {
    let hint = e.hint().unwrap_or_else(|| NO_SPACK_HINT.to_string());
    CliError::new(Exit::Environment, format!("cannot use Spack: {e}")).hint(hint)
}

/// `--spack` is an env script (`export SPACK_ROOT=…` lines) or a `spack`
/// executable; without it, `spack` on PATH.
pub fn locate_spack(args: &SpackArgs, scratch: &Path) -> Result<SpackSetup, CliError> {
    let setup = match &args.spack {
        // A set-up made by `packsmith setup spack` comes before PATH.
        None => match crate::commands::setup::default_env_file() {
            Some(env) => SpackSetup::from_env_script(&env, scratch),
            None => SpackSetup::from_path(scratch),
        },
        Some(path) => {
            let text = std::fs::read(path).map_err(|e| {
                CliError::new(
                    Exit::BadInput,
                    format!("cannot read --spack {}: {e}", path.display()),
                )
                .hint(NO_SPACK_HINT)
            })?;
            let is_script = String::from_utf8_lossy(&text[..text.len().min(64 * 1024)])
                .lines()
                .any(|l| l.trim_start().starts_with("export SPACK_ROOT="));
            if is_script {
                SpackSetup::from_env_script(path, scratch)
            } else {
                SpackSetup::from_binary(path, scratch)
            }
        }
    };
    setup.map_err(spack_error)
}

/// `--spack-version auto` asks Spack itself.
pub fn target_spack(args: &SpackArgs, setup: &SpackSetup) -> Result<TargetSpack, CliError> {
    if args.spack_version != "auto" {
        return crate::commands::kb::spack_version(&args.spack_version);
    }
    let line = setup.version().map_err(spack_error)?;
    TargetSpack::parse(line.split_whitespace().next().unwrap_or("")).ok_or_else(|| {
        CliError::new(
            Exit::Environment,
            format!("Spack reports version `{line}`, which packsmith does not know"),
        )
        .hint("pass --spack-version 0.23 or --spack-version 1")
    })
}

/// The knowledge base: `--kb`, else the one indexed from this Spack's own
/// package repository, else none (names are then not checked, and the
/// model gets no lookup tools).
pub fn knowledge_base(
    args: &SpackArgs,
    setup: &SpackSetup,
) -> Result<(Option<KnowledgeBase>, Option<String>), CliError> {
    if let Some(sel) = &args.kb {
        let kb = KnowledgeBase::select(&cache_dir(), Some(sel))?;
        return Ok((Some(kb), None));
    }
    let spack_root = setup.env.get("SPACK_ROOT").map(PathBuf::from).or_else(|| {
        setup
            .spack_bin
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
    });
    let dir = kb_dir(&cache_dir());
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
                .collect()
        })
        .unwrap_or_default();
    candidates.sort();
    for path in candidates {
        let Ok(kb) = KnowledgeBase::open(&path) else {
            continue;
        };
        let repo = kb.meta("repo_path").unwrap_or_default();
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if let Some(root) = &spack_root {
            if canonical(Path::new(&repo)).starts_with(canonical(root)) {
                return Ok((Some(kb), None));
            }
        }
    }
    Ok((
        None,
        Some(format!(
            "no knowledge base was indexed from this Spack's package repository (looked in {}); \
             dependency names are not checked and there are no lookup tools or references. \
             Run `packsmith kb index $SPACK_ROOT/var/spack/repos/builtin` once to add them",
            dir.display()
        )),
    ))
}

/// bubblewrap around every stage, writable only where Spack and the run
/// write; `--no-sandbox` runs without it.
pub fn sandbox(setup: &SpackSetup, run_dir: &Path, no_sandbox: bool) -> Result<Sandbox, CliError> {
    let paths = setup.probe_paths().map_err(spack_error)?;
    let mut writable = paths.writable();
    writable.push(run_dir.to_path_buf());
    let policy = SandboxPolicy::for_spack(
        writable,
        setup.read_only_roots(),
        run_dir.join("sandbox-home"),
    );
    let sandbox = Sandbox::new(policy, no_sandbox).map_err(|e| {
        CliError::new(Exit::Environment, format!("cannot set up the sandbox: {e}")).hint(
            "install bubblewrap and allow unprivileged user namespaces, or pass --no-sandbox \
             to run recipes unsandboxed (their code then runs with your rights)",
        )
    })?;
    if !no_sandbox {
        sandbox.probe().map_err(|e| {
            CliError::new(Exit::Environment, format!("the sandbox does not work here: {e}")).hint(
                "check that `bwrap --ro-bind / / true` works (user namespaces), or pass --no-sandbox",
            )
        })?;
    }
    Ok(sandbox)
}
