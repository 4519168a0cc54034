//! `--spack-version` as the user writes it: the Spack generation a recipe
//! is written and checked for.

use packsmith_spack_knowledge::target::TargetSpack;

use crate::exit::{CliError, Exit};

/// `0.23` or `1` (and the spellings `TargetSpack::parse` accepts).
pub fn spack_version(text: &str) -> Result<TargetSpack, CliError> {
    TargetSpack::parse(text).ok_or_else(|| {
        CliError::new(Exit::BadInput, format!("unknown Spack version `{text}`"))
            .hint("use --spack-version 0.23 or --spack-version 1")
    })
}
