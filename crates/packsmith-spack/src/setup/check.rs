//! `packsmith setup spack --check`: concretize a handful of packages most
//! HPC recipes need and say which would be built from source — each such
//! node is a download, so offline it is a failure waiting to happen.

use std::path::Path;
use std::time::Duration;

use crate::validate::{parse_spec_install_status, SpackSetup, ToBuild, ValidateError};

/// What `--check` concretizes: a compression library, a build tool, MPI,
/// BLAS/LAPACK, Boost and HDF5 — the dependencies of most HPC codes.
pub const CHECK_SPECS: &[&str] = &[
    "zlib-api", "cmake", "mpi", "blas", "lapack", "boost", "hdf5",
];

/// One spec's concretization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecCheck {
    /// Everything is external or installed.
    NothingToBuild,
    /// These nodes would be built from source.
    WouldBuild(Vec<ToBuild>),
    /// Spack could not concretize it (its last error line).
    Failed(String),
}

/// Concretizes each of `specs` with the set-up in `env_file`.
pub fn check_specs(
    env_file: &Path,
    scratch: &Path,
    specs: &[&str],
) -> Result<Vec<(String, SpecCheck)>, ValidateError> {
    let setup = SpackSetup::from_env_script(env_file, scratch)?;
    let mut results = Vec::new();
    for spec in specs {
        let command = setup
            .command(["spec", "-I", spec])
            .timeout(Duration::from_secs(300));
        let out = packsmith_exec::run(&command).map_err(|e| ValidateError::Command {
            command: command.display(),
            detail: e.to_string(),
            hint: "run the command yourself to see why Spack does not start".into(),
        })?;
        let result = if !out.success() {
            let last = out
                .stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no output")
                .trim()
                .to_string();
            SpecCheck::Failed(last)
        } else {
            // gcc-runtime is copied from the compiler, not downloaded.
            let nodes: Vec<ToBuild> = parse_spec_install_status(&out.stdout)
                .into_iter()
                .filter(|n| n.name != "gcc-runtime")
                .collect();
            if nodes.is_empty() {
                SpecCheck::NothingToBuild
            } else {
                SpecCheck::WouldBuild(nodes)
            }
        };
        results.push((spec.to_string(), result));
    }
    Ok(results)
}
