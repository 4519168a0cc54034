//! Where the command line says Spack is, for the backend's own locating
//! (`packsmith_spack::run`): `--spack`, else the default
//! set-up `packsmith setup spack` recorded, with the cache directory and
//! notes printed as they come.

use std::path::Path;

use packsmith_spack::run::{self, SpackChoice, SpackLocation};
use packsmith_spack::validate::SpackSetup;
use packsmith_spack_knowledge::kb::KnowledgeBase;
use packsmith_spack_knowledge::target::TargetSpack;

use crate::env_vars::cache_dir;
use crate::exit::CliError;
use crate::progress::note;

/// `--spack` as given; without it, the default set-up's env file.
pub fn location(spack: Option<&Path>) -> Result<SpackLocation, CliError> {
    Ok(SpackLocation {
        explicit: spack.map(Path::to_path_buf),
        default_env: match spack {
            Some(_) => None,
            None => crate::commands::spack_default::default_env_file()?,
        },
    })
}

pub fn locate_spack(spack: Option<&Path>, scratch: &Path) -> Result<SpackSetup, CliError> {
    Ok(run::environment::locate_spack(&location(spack)?, scratch)?)
}

pub fn target_spack(spack_version: &str, setup: &SpackSetup) -> Result<TargetSpack, CliError> {
    Ok(run::environment::target_spack(spack_version, setup)?)
}

pub fn knowledge_base(
    kb: Option<&str>,
    setup: &SpackSetup,
) -> Result<Option<KnowledgeBase>, CliError> {
    Ok(run::environment::knowledge_base(
        kb,
        setup,
        &cache_dir(),
        &mut |l| note(l),
    )?)
}

/// The Spack, generation and knowledge base the loop flags name
/// (`--spack`, `--spack-version`, `--kb`).
pub fn choice(
    spack: Option<&Path>,
    spack_version: &str,
    kb: Option<&str>,
) -> Result<SpackChoice, CliError> {
    Ok(SpackChoice {
        location: location(spack)?,
        spack_version: spack_version.to_string(),
        kb: kb.map(str::to_string),
        cache_dir: cache_dir(),
    })
}
