//! The repair benchmark's task set, made from the user's own Spack
//! checkout (nothing fetched is committed): real recipes broken by one
//! typed mutation each, every one kept only when the real Spack passes the
//! original and refuses the mutant at the stage its class predicts. The
//! original is the known fix.

mod install;
mod pick;
mod verify;

use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::mutate::{mutate, MutationClass, PredictedStage};
use serde::{Deserialize, Serialize};

pub use install::{install_candidates, InstallCandidate, InstallSource, Verdict};
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
    /// An install-stage task's source: a `.tar.gz` relative to the task
    /// file, installed as `version` (`packsmith repair --source --version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
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
    /// Sources of packages (by name) the install-stage classes may break:
    /// only those packages become install-stage tasks.
    pub sources: &'a std::collections::BTreeMap<String, InstallSource>,
    /// The knowledge base the hermeticity check maps host files with.
    pub names: &'a dyn packsmith_spack_knowledge::mapping::SpackNames,
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
            | (PredictedStage::Install, Stage::Install | Stage::Hermeticity)
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
    let mut installable = install_candidates(opts.packages, opts.sources);
    for i in (1..installable.len()).rev() {
        let j = (splitmix(&mut rng) % (i as u64 + 1)) as usize;
        installable.swap(i, j);
    }
    let mut archives: std::collections::HashMap<String, PathBuf> = Default::default();
    for &class in &opts.classes {
        let mut kept = 0;
        let mut dropped = 0;
        let install = class.predicted_stage() == PredictedStage::Install;
        let pool: Vec<(&Candidate, Option<&InstallCandidate>)> = if install {
            installable.iter().map(|c| (&c.recipe, Some(c))).collect()
        } else {
            packages.iter().map(|c| (c, None)).collect()
        };
        for (i, (cand, inst)) in pool.into_iter().enumerate() {
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
            let id = format!("{}.{}", cand.name, class.slug());
            // The source is packed once per package, before any verdict.
            let archive: Option<PathBuf> = match inst {
                Some(c) => {
                    if !archives.contains_key(&c.recipe.name) {
                        let packed = install::packed_source(opts.out, c)?;
                        archives.insert(c.recipe.name.clone(), packed);
                    }
                    archives.get(&c.recipe.name).cloned()
                }
                None => None,
            };
            let verdict = |dir: &Path, ns: &str, text: &str| match (inst, &archive) {
                (Some(c), Some(archive)) => {
                    let check = install::InstallCheck {
                        candidate: c,
                        archive,
                        names: opts.names,
                    };
                    install::first_failing_stage_installed(setup, sandbox, dir, ns, text, &check)
                }
                _ => first_failing_stage(setup, sandbox, dir, ns, &cand.name, text)
                    .map(|s| s.map_or(Verdict::Passes, Verdict::FailsAt)),
            };
            // The original must pass, or a repair could never succeed; an
            // install-stage original is checked first (its install is paid
            // once per package), a load-stage mutant first (it fails in
            // seconds, while the original has to concretize).
            let original_ok = |passing: &mut std::collections::HashMap<String, bool>,
                               summary: &mut RepairSetSummary,
                               progress: &mut dyn FnMut(&str)|
             -> Result<bool, ValidateError> {
                if let Some(ok) = passing.get(&cand.name) {
                    return Ok(*ok);
                }
                let dir = scratch.join(format!("{}.original", cand.name));
                let ns = format!("psrep_o{i}{}", if install { "i" } else { "" });
                let ok = verdict(&dir, &ns, &cand.text)? == Verdict::Passes;
                if !ok {
                    summary.originals_failing += 1;
                    progress(&format!(
                        "{}: the original does not pass; skipped",
                        cand.name
                    ));
                }
                passing.insert(cand.name.clone(), ok);
                Ok(ok)
            };
            if install && !original_ok(&mut passing, &mut summary, progress)? {
                continue;
            }
            let ns = format!("psrep_m{i}_{}", class.slug().len() + lines.len());
            let actual = verdict(&scratch.join(&id), &ns, &m.text)?;
            let failed_at = match actual {
                Verdict::FailsAt(s) => Some(s),
                _ => None,
            };
            let keep = failed_at.is_some_and(|s| stage_matches(class.predicted_stage(), s));
            progress(&format!(
                "{id}: {} ({})",
                match actual {
                    Verdict::FailsAt(s) => format!("fails at {}", s.as_str()),
                    Verdict::TimedOut(s) => format!("runs past its limit at {}", s.as_str()),
                    Verdict::Passes => "passes".into(),
                },
                if keep { "kept" } else { "dropped" }
            ));
            if !keep {
                dropped += 1;
                continue;
            }
            if !install && !original_ok(&mut passing, &mut summary, progress)? {
                continue;
            }
            kept += 1;
            let mut line = write_task(opts.out, &id, cand, &m, failed_at.unwrap_or(Stage::Load))?;
            if let Some(c) = inst {
                install_task(opts.out, &mut line, c, &archives)?;
            }
            lines.push(line);
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
        until: until_for(stage).to_string(),
        broken: rel.join("package.py").to_string_lossy().into_owned(),
        original: rel.join("original.py").to_string_lossy().into_owned(),
        description: m.description.clone(),
        source: None,
        version: None,
    })
}

/// The `packsmith repair --until` that checks a repair where the mutant
/// broke: that stage passing again (the original passes concretize too).
/// The hermeticity check and the smoke test are part of `--until install`,
/// not stages of their own.
fn until_for(stage: Stage) -> &'static str {
    match stage {
        Stage::Hermeticity | Stage::Smoke => Stage::Install.as_str(),
        other => other.as_str(),
    }
}

/// An install-stage task also names its packed source and version, and
/// its recipe directory holds the package's patches.
fn install_task(
    out: &Path,
    line: &mut RepairTaskLine,
    c: &InstallCandidate,
    archives: &std::collections::HashMap<String, PathBuf>,
) -> Result<(), ValidateError> {
    let dir = out.join("recipes").join(&line.id);
    for entry in std::fs::read_dir(&c.dir).map_err(|e| ValidateError::io("read", &c.dir, e))? {
        let entry = entry.map_err(|e| ValidateError::io("read", &c.dir, e))?;
        let name = entry.file_name();
        if name == "package.py" || !entry.path().is_file() {
            continue;
        }
        let to = dir.join(&name);
        std::fs::copy(entry.path(), &to).map_err(|e| ValidateError::io("copy", &to, e))?;
    }
    let archive = archives
        .get(&c.recipe.name)
        .ok_or_else(|| ValidateError::Invalid {
            what: "packed source",
            value: c.recipe.name.clone(),
            why: "no archive was packed for it".into(),
        })?;
    line.source = archive
        .strip_prefix(out)
        .ok()
        .map(|p| p.to_string_lossy().into_owned());
    line.version = Some(c.source.version.clone());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_stops_at_a_stage_packsmith_repair_takes() {
        // `--until` takes the Spack stages; a mutant the hermeticity check
        // refuses is repaired when `--until install` passes (that runs it).
        for stage in Stage::ALL {
            assert_eq!(until_for(stage), stage.as_str());
        }
        assert_eq!(until_for(Stage::Hermeticity), "install");
    }
}
