//! The repair benchmark's task set, made from the user's own Spack
//! checkout (nothing fetched is committed): real recipes broken by one
//! typed mutation each, every one kept only when the real Spack passes the
//! original and refuses the mutant at the stage its class predicts. The
//! original is the known fix.

mod pick;
mod verify;

use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::mutate::{mutate, MutationClass, PredictedStage};
use serde::{Deserialize, Serialize};

pub use pick::{candidate_packages, Candidate};
pub use verify::{first_failing_stage, CHECKED_STAGES};

use crate::validate::{Sandbox, SpackSetup, Stage, ValidateError};

/// One line of `tasks.jsonl`: the format `packsmith bench run` reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepairTaskLine {
    pub id: String,
    pub package: String,
    pub class: String,
    /// The stage the real Spack refused the mutant at.
    pub stage: String,
    /// The last stage a repair must pass: the one the mutant failed at.
    pub until: String,
    /// Relative to the task file's directory.
    pub broken: String,
    pub original: String,
    pub description: String,
}

/// What to make.
pub struct RepairSetOptions<'a> {
    /// `packages/` of a builtin repository.
    pub packages: &'a Path,
    pub out: &'a Path,
    /// Tasks wanted, spread evenly over `classes`.
    pub n: usize,
    pub seed: u64,
    pub classes: Vec<MutationClass>,
    /// Whether Spack knows a package name.
    pub known: &'a dyn Fn(&str) -> bool,
}

/// What was made and what was dropped, per class.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RepairSetSummary {
    pub tasks: usize,
    /// Originals that did not pass Spack themselves (not used).
    pub originals_failing: usize,
    /// class → (kept, dropped because Spack passed it or failed elsewhere).
    pub per_class: std::collections::BTreeMap<String, (usize, usize)>,
}

fn stage_matches(predicted: PredictedStage, actual: Stage) -> bool {
    matches!(
        (predicted, actual),
        (PredictedStage::Load, Stage::Load)
            | (PredictedStage::Audit, Stage::Audit)
            | (PredictedStage::Concretize, Stage::Concretize)
    )
}

/// SplitMix64: a seeded, dependency-free order.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Writes `<out>/tasks.jsonl`, `<out>/recipes/<id>/{package.py,original.py}`
/// and `<out>/summary.json`; `progress` hears one line per verdict.
pub fn build_repair_set(
    opts: &RepairSetOptions,
    setup: &SpackSetup,
    sandbox: &Sandbox,
    progress: &mut dyn FnMut(&str),
) -> Result<RepairSetSummary, ValidateError> {
    let mut rng = opts.seed;
    let mut packages = candidate_packages(opts.packages);
    // Fisher–Yates with the seeded generator.
    for i in (1..packages.len()).rev() {
        let j = (splitmix(&mut rng) % (i as u64 + 1)) as usize;
        packages.swap(i, j);
    }
    let per_class = opts.n.div_ceil(opts.classes.len().max(1));
    let scratch = opts.out.join("verify");
    let mut summary = RepairSetSummary::default();
    let mut lines: Vec<RepairTaskLine> = Vec::new();
    let mut passing: std::collections::HashMap<String, bool> = Default::default();
    for &class in &opts.classes {
        let mut kept = 0;
        let mut dropped = 0;
        for (i, cand) in packages.iter().enumerate() {
            if kept >= per_class {
                break;
            }
            let Some(m) = mutate(
                &cand.text,
                &cand.name,
                class,
                opts.known,
                splitmix(&mut rng),
            ) else {
                continue;
            };
            // The mutant first: it fails within seconds at load or audit,
            // while the original has to concretize.
            let id = format!("{}.{}", cand.name, class.slug());
            let ns = format!("psrep_m{i}_{}", class.slug().len() + lines.len());
            let actual =
                first_failing_stage(setup, sandbox, &scratch.join(&id), &ns, &cand.name, &m.text)?;
            let keep = actual.is_some_and(|s| stage_matches(class.predicted_stage(), s));
            progress(&format!(
                "{id}: {} ({})",
                match actual {
                    Some(s) => format!("fails at {}", s.as_str()),
                    None => "passes".into(),
                },
                if keep { "kept" } else { "dropped" }
            ));
            if !keep {
                dropped += 1;
                continue;
            }
            // The original must pass, or a repair could never succeed.
            let ok = match passing.get(&cand.name) {
                Some(ok) => *ok,
                None => {
                    let dir = scratch.join(format!("{}.original", cand.name));
                    let ns = format!("psrep_o{i}");
                    let ok =
                        first_failing_stage(setup, sandbox, &dir, &ns, &cand.name, &cand.text)?
                            .is_none();
                    if !ok {
                        summary.originals_failing += 1;
                        progress(&format!(
                            "{}: the original does not pass; skipped",
                            cand.name
                        ));
                    }
                    passing.insert(cand.name.clone(), ok);
                    ok
                }
            };
            if !ok {
                continue;
            }
            kept += 1;
            lines.push(write_task(
                opts.out,
                &id,
                cand,
                &m,
                actual.unwrap_or(Stage::Load),
            )?);
        }
        summary
            .per_class
            .insert(class.slug().to_string(), (kept, dropped));
    }
    summary.tasks = lines.len();
    let mut jsonl = String::new();
    for l in &lines {
        jsonl.push_str(&serde_json::to_string(l).unwrap_or_default());
        jsonl.push('\n');
    }
    write(&opts.out.join("tasks.jsonl"), &jsonl)?;
    write(
        &opts.out.join("summary.json"),
        &serde_json::to_string_pretty(&summary).unwrap_or_default(),
    )?;
    Ok(summary)
}

fn write(path: &Path, text: &str) -> Result<(), ValidateError> {
    packsmith_exec::atomic_write(path, text.as_bytes())
        .map_err(|e| ValidateError::io("write", path, std::io::Error::other(e.to_string())))
}

fn write_task(
    out: &Path,
    id: &str,
    cand: &Candidate,
    m: &packsmith_spack_knowledge::mutate::Mutant,
    stage: Stage,
) -> Result<RepairTaskLine, ValidateError> {
    let rel: PathBuf = Path::new("recipes").join(id);
    let dir = out.join(&rel);
    std::fs::create_dir_all(&dir).map_err(|e| ValidateError::io("create", &dir, e))?;
    write(&dir.join("package.py"), &m.text)?;
    write(&dir.join("original.py"), &cand.text)?;
    Ok(RepairTaskLine {
        id: id.to_string(),
        package: cand.name.clone(),
        class: m.class.slug().to_string(),
        stage: stage.as_str().to_string(),
        // Success is that stage passing again (the original passes
        // concretize too, so a repair is checked where it broke).
        until: stage.as_str().to_string(),
        broken: rel.join("package.py").to_string_lossy().into_owned(),
        original: rel.join("original.py").to_string_lossy().into_owned(),
        description: m.description.clone(),
    })
}
