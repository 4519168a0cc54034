//! The Spack a run validates with, the generation to write for, and the
//! knowledge base that matches it, as the request names them.

use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::kb::{KnowledgeBase, NameIndex};
use packsmith_spack_knowledge::mapping::{NoKnowledge, SpackNames};
use packsmith_spack_knowledge::target::TargetSpack;

use super::RunError;
use crate::knowledge::{knowledge_base_for, no_knowledge_base_note};
use crate::validate::{SpackSetup, ValidateError, NO_SPACK_HINT};

/// Where Spack is: `--spack` (an env script with `export SPACK_ROOT=…`
/// lines, or a `spack` executable), else the default set-up's env file
/// (`packsmith setup spack`), else `spack` on PATH.
#[derive(Debug, Clone, Default)]
pub struct SpackLocation {
    pub explicit: Option<PathBuf>,
    pub default_env: Option<PathBuf>,
}

/// One hint: the error's own (for a missing Spack, how to install and pass
/// one), else the general one.
fn spack_error(e: ValidateError) -> RunError {
    let hint = e.hint().unwrap_or_else(|| NO_SPACK_HINT.to_string());
    RunError::environment(format!("cannot use Spack: {e}")).hint(hint)
}

pub fn locate_spack(at: &SpackLocation, scratch: &Path) -> Result<SpackSetup, RunError> {
    let setup = match &at.explicit {
        // A set-up made by `packsmith setup spack` comes before PATH.
        None => match &at.default_env {
            Some(env) => SpackSetup::from_env_script(env, scratch),
            None => SpackSetup::from_path(scratch),
        },
        Some(path) => {
            let text = std::fs::read(path).map_err(|e| {
                RunError::bad_input(format!("cannot read --spack {}: {e}", path.display()))
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

/// `0.23` or `1`; `auto` asks Spack itself.
pub fn target_spack(spack_version: &str, setup: &SpackSetup) -> Result<TargetSpack, RunError> {
    if spack_version != "auto" {
        return TargetSpack::parse(spack_version).ok_or_else(|| {
            RunError::bad_input(format!("unknown Spack version `{spack_version}`"))
                .hint("use --spack-version 0.23 or --spack-version 1")
        });
    }
    let line = setup.version().map_err(spack_error)?;
    TargetSpack::parse(line.split_whitespace().next().unwrap_or("")).ok_or_else(|| {
        RunError::environment(format!(
            "Spack reports version `{line}`, which packsmith does not know"
        ))
        .hint("pass --spack-version 0.23 or --spack-version 1")
    })
}

/// The knowledge base: `kb` (a path or label), else the one indexed from
/// this Spack's own package repository, else none — said in a note (names
/// are then not checked, and the model gets no lookup tools).
pub fn knowledge_base(
    kb: Option<&str>,
    setup: &SpackSetup,
    cache_dir: &Path,
    say: &mut dyn FnMut(&str),
) -> Result<Option<KnowledgeBase>, RunError> {
    if let Some(sel) = kb {
        return KnowledgeBase::select(cache_dir, Some(sel))
            .map(Some)
            .map_err(|e| RunError::from_hint(&e));
    }
    let kb = knowledge_base_for(cache_dir, setup);
    if kb.is_none() {
        say(&format!("note: {}", no_knowledge_base_note(cache_dir)));
    }
    Ok(kb)
}

/// Which Spack, generation and knowledge base a run uses, as the request
/// names them, and the cache they live in.
#[derive(Debug, Clone, Default)]
pub struct SpackChoice {
    pub location: SpackLocation,
    /// `0.23`, `1` or `auto`.
    pub spack_version: String,
    /// A knowledge base (path or label); `None`: the one of this Spack.
    pub kb: Option<String>,
    pub cache_dir: PathBuf,
}

impl SpackChoice {
    /// [`locate_all`] for this choice.
    pub fn locate(&self, say: &mut dyn FnMut(&str)) -> Result<Located, RunError> {
        locate_all(
            &self.location,
            &self.spack_version,
            self.kb.as_deref(),
            &self.cache_dir,
            say,
        )
    }
}

/// Spack, the generation it is, its knowledge base and the names in it:
/// what `spack`, `repair` and `update` locate before a run.
pub struct Located {
    pub setup: SpackSetup,
    pub target: TargetSpack,
    pub kb: Option<KnowledgeBase>,
    pub names: Option<NameIndex>,
}

pub fn locate_all(
    at: &SpackLocation,
    spack_version: &str,
    kb: Option<&str>,
    cache_dir: &Path,
    say: &mut dyn FnMut(&str),
) -> Result<Located, RunError> {
    let setup = locate_spack(at, &std::env::temp_dir())?;
    let target = target_spack(spack_version, &setup)?;
    let kb = knowledge_base(kb, &setup, cache_dir, say)?;
    let names = kb.as_ref().and_then(|k| k.names().ok());
    Ok(Located {
        setup,
        target,
        kb,
        names,
    })
}

/// The names a run checks dependencies against: the knowledge base's,
/// else none (every name is then taken as written).
pub fn names_or_none(index: &Option<NameIndex>) -> &dyn SpackNames {
    match index {
        Some(n) => n,
        None => &NoKnowledge,
    }
}
