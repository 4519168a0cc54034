//! `bench rescore DIR`: every finished pair's scores computed again from
//! its run directory, for when the scorer has changed since the run (or the
//! ground truth was not given then). Outcomes, attempts and tokens stay as
//! they were; only S_d, S_v, the fidelity figures and who made the passing
//! recipe (`installed_by`, for journals written before it) are replaced, and
//! `smoke_tested` is withdrawn from a recipe with no stand-alone test. The
//! journal is rewritten whole, through a temporary file and a rename.

use std::path::{Path, PathBuf};

use crate::error::{BenchError, Result};
use crate::journal;
use crate::pair::score_pair_again;
use crate::plan::Plan;

/// Where the references are, when not as the plan says (a committed plan
/// names them by placeholders).
#[derive(Debug, Clone, Default)]
pub struct RescoreOptions {
    pub ground_truth: Option<PathBuf>,
    pub nix_reference: Option<PathBuf>,
}

/// How many pairs were scored again, and how many of those got a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rescored {
    pub pairs: usize,
    pub scored: usize,
}

pub fn rescore(dir: &Path, o: &RescoreOptions) -> Result<Rescored> {
    let mut plan = Plan::read(dir)?;
    if let Some(g) = &o.ground_truth {
        plan.config.spack.ground_truth = Some(g.clone());
    }
    if let Some(r) = &o.nix_reference {
        plan.config.nix.reference = Some(r.clone());
    }
    let path = journal::journal_path(dir);
    let contents = journal::read(&path)?;
    let header = contents.header.ok_or_else(|| {
        BenchError::bad_input(format!("{} has no header line", path.display()))
            .hint("pass the --out directory of a `packsmith bench run`")
    })?;
    let mut results: Vec<_> = contents.results.into_values().collect();
    results.sort_by_key(|r| r.index);
    let mut scored = 0;
    for r in &mut results {
        let Some(task) = plan.task(&r.task) else {
            continue;
        };
        score_pair_again(r, &dir.join(&r.run_dir), task, &plan.config);
        scored += usize::from(r.scored.is_some());
    }
    journal::rewrite(&path, &header, &results)?;
    Ok(Rescored {
        pairs: results.len(),
        scored,
    })
}
