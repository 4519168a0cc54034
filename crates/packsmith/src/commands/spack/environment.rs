//! The Spack a run validates with, the generation to write for, and the
//! knowledge base that matches it, as the command line chose them.

use std::path::Path;

use packsmith_spack::knowledge::{knowledge_base_for, no_knowledge_base_note};
use packsmith_spack::validate::{SpackSetup, ValidateError, NO_SPACK_HINT};
use packsmith_spack_knowledge::kb::KnowledgeBase;
use packsmith_spack_knowledge::target::TargetSpack;

use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::progress::note;

/// One hint: the error's own (for a missing Spack, how to install and pass
/// one), else the general one.
fn spack_error(e: ValidateError) -> CliError {
    let hint = e.hint().unwrap_or_else(|| NO_SPACK_HINT.to_string());
    CliError::new(Exit::Environment, format!("cannot use Spack: {e}")).hint(hint)
}

/// `--spack` is an env script (`export SPACK_ROOT=…` lines) or a `spack`
/// executable; without it, `spack` on PATH.
pub fn locate_spack(spack: Option<&Path>, scratch: &Path) -> Result<SpackSetup, CliError> {
    let setup = match spack {
        // A set-up made by `packsmith setup spack` comes before PATH.
        None => match crate::commands::spack_default::default_env_file()? {
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
pub fn target_spack(spack_version: &str, setup: &SpackSetup) -> Result<TargetSpack, CliError> {
    if spack_version != "auto" {
        return crate::target_arg::spack_version(spack_version);
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
/// package repository (found by the backend), else none — said in a note
/// (names are then not checked, and the model gets no lookup tools).
pub fn knowledge_base(
    kb: Option<&str>,
    setup: &SpackSetup,
) -> Result<Option<KnowledgeBase>, CliError> {
    if let Some(sel) = kb {
        return Ok(Some(KnowledgeBase::select(&cache_dir(), Some(sel))?));
    }
    let kb = knowledge_base_for(&cache_dir(), setup);
    if kb.is_none() {
        note(&format!("note: {}", no_knowledge_base_note(&cache_dir())));
    }
    Ok(kb)
}

/// Spack, the generation it is, its knowledge base and the names in it:
/// what `spack` and `repair` locate before a run.
pub struct Located {
    pub setup: SpackSetup,
    pub target: TargetSpack,
    pub kb: Option<KnowledgeBase>,
    pub names: Option<packsmith_spack_knowledge::kb::NameIndex>,
}

pub fn locate_all(
    spack: Option<&Path>,
    spack_version: &str,
    kb: Option<&str>,
) -> Result<Located, CliError> {
    let setup = locate_spack(spack, &std::env::temp_dir())?;
    let target = target_spack(spack_version, &setup)?;
    let kb = knowledge_base(kb, &setup)?;
    let names = kb.as_ref().and_then(|k| k.names().ok());
    Ok(Located {
        setup,
        target,
        kb,
        names,
    })
}
