//! Running one (task, configuration) pair: the `packsmith spack|nix|repair`
//! subprocess in its own process group with a time limit, then its
//! `report.json` read into a journal record (with S_d/S_v for Spack; a
//! repair task has no ground truth to score against).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_agent::report::{RunReport, RunStatus};

use crate::config::{BenchConfig, Configuration};
use crate::error::{BenchError, Result};
use crate::journal::{ModelPath, Outcome, PairResult};
use crate::plan::{Pair, Plan};
use crate::score::{nix_reference, nix_scores, scored_recipe, spack_scores};
use crate::task::{RepairTask, Task};

/// `<out>/runs/<config>/<task>`.
pub fn pair_dir(out: &Path, pair: &Pair) -> PathBuf {
    out.join("runs").join(&pair.config).join(&pair.task)
}

/// The command line of a pair (after the executable).
pub fn pair_args(
    task: &Task,
    source: &Path,
    version: Option<&str>,
    c: &Configuration,
    config: &BenchConfig,
    dir: &Path,
) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let k = &c.knobs;
    let push = |a: &mut Vec<OsString>, flag: &str, v: String| {
        a.push(flag.into());
        a.push(v.into());
    };
    let human = matches!(task, Task::Spack(_)) && k.human_recipe();
    match task {
        Task::Spack(t) if human => {
            // `repair <human recipe> --source <tree>`: the recipe as the
            // ground truth has it, installed from the task's tree.
            let recipe = config
                .spack
                .ground_truth
                .as_deref()
                .and_then(|gt| ground_truth_recipe(gt, t))
                .unwrap_or_else(|| PathBuf::from(format!("<no ground truth for {}>", t.name)));
            a.push("repair".into());
            a.push(recipe.into());
            push(&mut a, "--name", t.name.clone());
            // The recipe's own version, which the task names (a sources
            // map's dated snapshot version is for the draft): a recipe
            // that fetches only from git (`version("master", branch=…)`)
            // has no URL to extrapolate another version's archive from.
            push(&mut a, "--version", t.version.clone());
            a.push("--source".into());
            a.push(source.into());
            a.extend(["--until", "install"].map(OsString::from));
        }
        Task::Spack(t) => {
            a.push("spack".into());
            a.push(source.into());
            push(&mut a, "--name", t.name.clone());
            push(
                &mut a,
                "--version",
                version.unwrap_or(&t.version).to_string(),
            );
        }
        Task::Nix(t) => {
            a.push("nix".into());
            a.push(source.into());
            if let Some(rev) = &t.rev {
                push(&mut a, "--rev", rev.clone());
            }
            // As the task names it: a snapshot directory's name says nothing.
            push(&mut a, "--name", t.pname.clone());
            // The package set the expression joins decides its builder.
            if !t.attr_path.is_empty() {
                push(&mut a, "--attr-path", t.attr_path.clone());
            }
            push(
                &mut a,
                "--version",
                version.unwrap_or(&t.version).to_string(),
            );
        }
        Task::Repair(t) => repair_head(&mut a, t, source),
    }
    a.push("--out".into());
    a.push(dir.into());
    a.push("--replace".into());
    // Always named: a pair without a model is the draft alone, whatever
    // local model the machine happens to hold.
    push(
        &mut a,
        "--model",
        k.model.clone().unwrap_or_else(|| "none".into()),
    );
    if let Some(n) = k.static_repairs {
        push(&mut a, "--static-repairs", n.to_string());
    }
    match task {
        Task::Spack(_) if human => repair_tail(&mut a, c, config),
        Task::Spack(_) => {
            if let Some(r) = &k.refs {
                push(&mut a, "--refs", r.clone());
            }
            if let Some(b) = &k.brief {
                push(&mut a, "--brief", b.clone());
            }
            if let Some(audit) = k.audit {
                a.push(if audit { "--audit" } else { "--no-audit" }.into());
            }
            if let Some(n) = k.max_attempts {
                push(&mut a, "--max-attempts", n.to_string());
            }
            if k.tools == Some(false) {
                a.push("--no-tools".into());
            }
            if k.draft == Some(false) {
                push(&mut a, "--draft", "none".into());
            }
            if k.variant_check == Some(false) {
                a.push("--no-variant-check".into());
            }
            mending_flags(&mut a, c);
            if let Some(s) = &config.spack.spack {
                push(&mut a, "--spack", s.clone());
            }
            a.extend(config.spack.extra_args.iter().map(OsString::from));
        }
        Task::Repair(_) => repair_tail(&mut a, c, config),
        Task::Nix(_) => {
            if let Some(n) = k.max_iterations {
                push(&mut a, "--max-iterations", n.to_string());
            }
            if let Some(n) = k.max_no_progress {
                push(&mut a, "--max-no-progress", n.to_string());
            }
            if let Some(n) = k.refine {
                push(&mut a, "--refine", n.to_string());
            }
            if k.tools == Some(false) {
                a.push("--no-tools".into());
            }
            if let Some(p) = &config.nix.nixpkgs {
                a.push("--nixpkgs".into());
                a.push(p.into());
            }
            a.extend(config.nix.extra_args.iter().map(OsString::from));
        }
    }
    a
}

/// `repair <broken> --name <package> --until <stage>`.
fn repair_head(a: &mut Vec<OsString>, t: &RepairTask, source: &Path) {
    a.push("repair".into());
    a.push(source.into());
    a.extend(["--name", &t.package, "--until", &t.until].map(OsString::from));
    // An install-stage task installs the packed source it names.
    if let (Some(tree), Some(version)) = (&t.source, &t.version) {
        a.extend(["--version", version].map(OsString::from));
        a.push("--source".into());
        a.push(tree.into());
    }
}

/// How a Spack recipe is mended, for `spack` and `repair` pairs alike.
fn mending_flags(a: &mut Vec<OsString>, c: &Configuration) {
    if let Some(m) = &c.knobs.repair_mode {
        a.extend(["--repair-mode", m].map(OsString::from));
    }
    if c.knobs.rules == Some(false) {
        a.push("--no-rules".into());
    }
}

/// A repair pair's knobs: the Spack ones that apply to mending a given
/// recipe (no references, brief, draft or variant check: the recipe is
/// given).
fn repair_tail(a: &mut Vec<OsString>, c: &Configuration, config: &BenchConfig) {
    let k = &c.knobs;
    if let Some(n) = k.max_attempts {
        a.extend(["--max-attempts".into(), n.to_string()].map(OsString::from));
    }
    if k.tools == Some(false) {
        a.push("--no-tools".into());
    }
    mending_flags(a, c);
    if let Some(audit) = k.audit {
        a.push(if audit { "--audit" } else { "--no-audit" }.into());
    }
    if let Some(s) = &config.spack.spack {
        a.extend(["--spack", s].map(OsString::from));
    }
    a.extend(config.spack.extra_args.iter().map(OsString::from));
}

/// The model replay cache settings for the children.
pub fn cache_env(config: &BenchConfig, out: &Path) -> Vec<(String, OsString)> {
    let mode = config.cache.mode.clone().unwrap_or_else(|| "off".into());
    let mut env = vec![("PACKSMITH_LLM_CACHE".to_string(), OsString::from(&mode))];
    if mode != "off" {
        let dir = match &config.cache.dir {
            Some(d) if d.is_absolute() => d.clone(),
            Some(d) => out.join(d),
            None => out.join("llm-cache"),
        };
        env.push(("PACKSMITH_LLM_CACHE_DIR".to_string(), dir.into()));
    }
    env
}

const PID_FILE: &str = "child.pid";

/// Kills what a killed runner left running in this pair directory: the
/// recorded process group and the groups its descendants started (Spack's
/// and Nix's processes run in groups of their own), if its leader still
/// has this directory on its command line (so a reused pid is never hit).
pub fn kill_stale(dir: &Path) {
    let Ok(text) = std::fs::read_to_string(dir.join(PID_FILE)) else {
        return;
    };
    let Ok(pid) = text.trim().parse::<i32>() else {
        return;
    };
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let needle = dir.as_os_str().as_encoded_bytes();
    if !cmdline.windows(needle.len().max(1)).any(|w| w == needle) {
        return;
    }
    // Found by the kill soak: killing the group alone left the children
    // that had sessions of their own running.
    packsmith_exec::stop_tree(pid.unsigned_abs());
}

/// Runs one pair to its journal record.
pub fn run_pair(plan: &Plan, out: &Path, pair: &Pair) -> Result<PairResult> {
    let task = plan
        .task(&pair.task)
        .ok_or_else(|| BenchError::bad_input(format!("plan has no task `{}`", pair.task)))?;
    let config = plan.config.configuration(&pair.config).ok_or_else(|| {
        BenchError::bad_input(format!("plan has no configuration `{}`", pair.config))
    })?;
    let source = plan
        .sources
        .get(&pair.task)
        .ok_or_else(|| BenchError::bad_input(format!("plan has no source for `{}`", pair.task)))?;
    let dir = pair_dir(out, pair);
    kill_stale(&dir);
    if dir.exists() {
        // A previous try of this pair died with the runner; start clean.
        std::fs::remove_dir_all(&dir).map_err(|e| BenchError::io("remove", &dir, e))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| BenchError::io("create", &dir, e))?;
    let version = plan.versions.get(&pair.task).map(String::as_str);
    let args = pair_args(task, source, version, config, &plan.config, &dir);
    let open = |name: &str| {
        let p = dir.join(name);
        std::fs::File::create(&p).map_err(|e| BenchError::io("create", &p, e))
    };
    // The pair's packsmith needs our whole environment (the model's keys).
    let mut spec = packsmith_exec::CommandSpec::new(&plan.packsmith_bin)
        .args(&args)
        .inherit_environment()
        .timeout(Duration::from_secs(plan.config.timeout_secs));
    for (key, value) in cache_env(&plan.config, out) {
        spec = spec.env(key, value);
    }
    let pid_file = dir.join(PID_FILE);
    let ended = packsmith_exec::run_to_files(
        &spec,
        open("stdout.log")?,
        open("stderr.log")?,
        &mut |pid| {
            let _ = std::fs::write(&pid_file, pid.to_string());
        },
    )
    .map_err(|e| {
        BenchError::environment(format!(
            "could not start {}: {e}",
            plan.packsmith_bin.display()
        ))
        .hint("check the packsmith executable (--packsmith-bin / PACKSMITH_BENCH_BIN)")
    })?;
    let _ = std::fs::remove_file(&pid_file);
    if ended.cancelled {
        // Not journaled: the next `bench run` runs this pair again.
        let _ = std::fs::remove_dir_all(&dir);
        return Err(BenchError::interrupted(format!(
            "interrupted (Ctrl-C) during {} × {}; its processes were stopped",
            pair.task, pair.config
        )));
    }
    let timed_out = ended.timed_out;
    let wall_ms = ended.duration.as_millis() as u64;
    let exit_code = ended.code;
    let run_dir = dir.strip_prefix(out).unwrap_or(&dir).display().to_string();
    let mut result = PairResult {
        index: pair.index,
        task: pair.task.clone(),
        config: pair.config.clone(),
        ecosystem: task.ecosystem(),
        outcome: Outcome::Crashed,
        status: None,
        reason: None,
        exit_code,
        wall_ms,
        run_dir,
        stages: Vec::new(),
        stages_passed: Vec::new(),
        attempts: 0,
        success_attempt: None,
        installed_by: None,
        model_path: None,
        failure_class: None,
        model_calls: 0,
        tool_calls: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cost_usd: 0.0,
        s_d: None,
        s_v: None,
        fidelity: None,
        nix_fidelity: None,
        scored: None,
        score_error: None,
        repair_class: task.repair_class().map(str::to_string),
        levels: None,
        smoke_job: None,
        review_open: Vec::new(),
    };
    let report = find_report(&dir, task.run_name()).map(|p| (read_report(&p), p));
    match report {
        Some((Ok(report), path)) => {
            absorb(&mut result, &report);
            let run_root = path.parent().unwrap_or(&dir).to_path_buf();
            score_task(&mut result, &report, &run_root, task, &plan.config);
        }
        Some((Err(e), _)) => result.reason = Some(e),
        None => {
            result.reason = Some(format!(
                "no report.json under {} (exit code {}); see stderr.log there",
                dir.display(),
                exit_code.map_or("none".into(), |c| c.to_string())
            ))
        }
    }
    if timed_out {
        result.outcome = Outcome::Timeout;
        result.failure_class = Some("timeout".into());
        result.success_attempt = None;
        result.reason = Some(format!("killed after {} s", plan.config.timeout_secs));
    } else if result.outcome == Outcome::Crashed {
        result.failure_class = Some("crashed".into());
    }
    Ok(result)
}

/// Replaces a finished pair's scores with ones computed now from the
/// report and recipes in `dir` (its run directory).
/// The run directory a report sits in.
fn run_root_of(report: &Path, dir: &Path) -> std::path::PathBuf {
    report.parent().unwrap_or(dir).to_path_buf()
}

pub(crate) fn score_pair_again(r: &mut PairResult, dir: &Path, task: &Task, config: &BenchConfig) {
    r.s_d = None;
    r.s_v = None;
    r.fidelity = None;
    r.nix_fidelity = None;
    r.scored = None;
    r.score_error = None;
    let report = match find_report(dir, task.run_name()).map(|p| (read_report(&p), p)) {
        Some((Ok(report), path)) => (report, path),
        Some((Err(e), _)) => {
            r.score_error = Some(e);
            return;
        }
        None => return,
    };
    let run_root = run_root_of(&report.1, dir);
    // Journals written before `installed_by` get it from the same report.
    if r.outcome == Outcome::Succeeded {
        (r.installed_by, r.model_path) = who_made_it(&report.0, r.success_attempt);
    }
    // Smoke-tested means a stand-alone test ran: reports written before
    // that rule counted a smoke stage that found nothing to test.
    if let (Some(levels), Some(rel)) = (r.levels.as_mut(), &report.0.final_recipe) {
        if let Ok(text) = std::fs::read_to_string(run_root_of(&report.1, dir).join(rel)) {
            let tested = packsmith_spack_knowledge::recipe::parse_recipe(&text, "package.py")
                .has_stand_alone_tests();
            if levels["smoke_tested"] == true && !tested {
                levels["smoke_tested"] = serde_json::Value::Bool(false);
            }
        }
    }
    score_task(r, &report.0, &run_root, task, config);
}

/// The scores of a pair's recipe, as its ecosystem measures them.
fn score_task(
    r: &mut PairResult,
    report: &RunReport,
    run_root: &Path,
    task: &Task,
    config: &BenchConfig,
) {
    let human = config
        .configuration(&r.config)
        .is_some_and(|c| c.knobs.human_recipe());
    match task {
        // The human recipe is the ground truth: nothing to score it against.
        Task::Spack(_) if human => {}
        Task::Spack(t) => score_into(r, report, run_root, t, config),
        Task::Nix(t) => score_nix_into(r, report, run_root, t, config),
        // No ground truth: the outcome (repaired or not) is the measure.
        Task::Repair(_) => {}
    }
}

/// The human recipe: `packages/<spack_dir>/` (spack-packages names
/// directories with `_`), else `packages/<name>/` (Spack 0.23 keeps `-`).
pub fn ground_truth_recipe(gt: &Path, task: &crate::task::SpackTask) -> Option<PathBuf> {
    [&task.spack_dir, &task.name]
        .into_iter()
        .map(|d| gt.join("packages").join(d).join("package.py"))
        .find(|p| p.is_file())
}

/// `<dir>/<run name>/report.json` (the task id, a repair task's package),
/// else the only `<dir>/*/report.json`.
fn find_report(dir: &Path, run_name: &str) -> Option<PathBuf> {
    let direct = dir.join(run_name).join("report.json");
    if direct.is_file() {
        return Some(direct);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("report.json"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    (found.len() == 1).then(|| found.remove(0))
}

fn read_report(path: &Path) -> std::result::Result<RunReport, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a run report: {e}", path.display()))
}

fn absorb(r: &mut PairResult, report: &RunReport) {
    r.outcome = if report.status == RunStatus::Succeeded {
        Outcome::Succeeded
    } else {
        Outcome::Failed
    };
    r.status = Some(report.status.as_str().to_string());
    r.reason = Some(report.reason.clone());
    r.stages = report.stages.clone();
    r.stages_passed = report
        .stages
        .iter()
        .filter(|s| {
            report
                .attempts
                .iter()
                .any(|a| a.stages.iter().any(|st| &st.name == *s && st.passed))
        })
        .cloned()
        .collect();
    r.attempts = report.attempts.len() as u32;
    r.levels = report.extras.get("levels").cloned();
    r.smoke_job = report.extras.get("smoke_job").cloned();
    r.review_open = report
        .extras
        .get("review")
        .and_then(|v| v["items"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter(|i| i["passed"] == false)
        .filter_map(|i| i["check"].as_str().map(str::to_string))
        .collect();
    r.success_attempt = report
        .attempts
        .iter()
        .find(|a| a.passed && !a.interrupted)
        .map(|a| a.attempt);
    if r.success_attempt.is_none() && r.outcome == Outcome::Succeeded {
        r.success_attempt = Some(r.attempts.max(1));
    }
    if r.outcome == Outcome::Succeeded {
        (r.installed_by, r.model_path) = who_made_it(report, r.success_attempt);
    }
    r.failure_class = if r.outcome == Outcome::Succeeded {
        None
    } else {
        report
            .attempts
            .iter()
            .rev()
            .find_map(|a| a.failure.as_ref().map(|f| f.class.clone()))
            .or_else(|| Some(report.status.as_str().to_string()))
    };
    r.model_calls = report.model_calls;
    r.tool_calls = report.tool_calls;
    r.prompt_tokens = report.usage.prompt_tokens;
    r.completion_tokens = report.usage.completion_tokens;
    r.cost_usd = report.cost_usd;
}

/// Who made the passing recipe (see `PairResult::installed_by`): the
/// attempts it descends from, through each attempt's `base`, and the model
/// calls among them.
fn who_made_it(report: &RunReport, success: Option<u32>) -> (Option<String>, Option<ModelPath>) {
    let Some(mut at) = success else {
        return (None, None);
    };
    let mut path = ModelPath::default();
    let mut seen = Vec::new();
    while let Some(a) = report.attempts.iter().find(|a| a.attempt == at) {
        if seen.contains(&at) {
            break;
        }
        seen.push(at);
        if a.model_calls > 0 {
            path.model_calls += a.model_calls;
            path.tokens += a.usage.total();
            path.seconds += a.duration_ms as f64 / 1000.0;
            let job = a.job.clone().unwrap_or_else(|| "rewrite".to_string());
            if !path.jobs.contains(&job) {
                path.jobs.push(job);
            }
        }
        match a.base {
            Some(b) => at = b,
            None => break,
        }
    }
    let by = if path.model_calls > 0 {
        "model"
    } else if success == Some(1) {
        "draft"
    } else {
        "rules"
    };
    (Some(by.to_string()), (path.model_calls > 0).then_some(path))
}

fn score_into(
    r: &mut PairResult,
    report: &RunReport,
    run_root: &Path,
    task: &crate::task::SpackTask,
    config: &BenchConfig,
) {
    let Some(gt) = &config.spack.ground_truth else {
        return;
    };
    let Some((which, rel)) = scored_recipe(report) else {
        return;
    };
    let Some(reference) = ground_truth_recipe(gt, task) else {
        r.score_error = Some(format!(
            "no ground truth at {}",
            gt.join("packages")
                .join(&task.spack_dir)
                .join("package.py")
                .display()
        ));
        return;
    };
    let release = config.spack.release.as_deref().unwrap_or("1");
    match spack_scores(&run_root.join(rel), &reference, release) {
        Ok(scores) => {
            r.s_d = scores.s_d;
            r.s_v = scores.s_v;
            r.fidelity = Some(scores.fidelity);
            r.scored = Some(which.to_string());
        }
        Err(e) => r.score_error = Some(e),
    }
}

/// The Nix fidelity score against nixpkgs' own expression, when the
/// configuration names where those are.
fn score_nix_into(
    r: &mut PairResult,
    report: &RunReport,
    run_root: &Path,
    task: &crate::task::NixTask,
    config: &BenchConfig,
) {
    let Some(dir) = &config.nix.reference else {
        return;
    };
    let Some((which, rel)) = scored_recipe(report) else {
        return;
    };
    let Some(reference) = nix_reference(dir, task) else {
        r.score_error = Some(format!(
            "no reference expression for {} under {}",
            task.attr_path,
            dir.display()
        ));
        return;
    };
    match nix_scores(&run_root.join(rel), &reference) {
        Ok(f) => {
            r.nix_fidelity = Some(f);
            r.scored = Some(which.to_string());
        }
        Err(e) => r.score_error = Some(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{baseline, BenchConfig};
    use crate::task::parse_tasks;

    fn args_of(task_line: &str, base: &str, config: &BenchConfig) -> String {
        let task = &parse_tasks(task_line, "t").unwrap()[0];
        let c = Configuration {
            name: base.into(),
            baseline: Some(base.into()),
            knobs: baseline(base).unwrap(),
        };
        pair_args(
            task,
            Path::new("/src/x"),
            None,
            &c,
            config,
            Path::new("/out/p"),
        )
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
    }

    #[test]
    fn nix_pairs_get_nix_flags_only() {
        let mut config = BenchConfig::load("vibenix").unwrap();
        config.nix.nixpkgs = Some("/nixpkgs".into());
        config.spack.spack = Some("/spack/env.sh".into());
        let line = r#"{"attr_path": "python3Packages.p", "package_name": "p", "pname": "p", "version": "1", "nixpkgs_base_commit": "c", "rev": "v1"}"#;
        let a = args_of(line, "vibenix", &config);
        assert_eq!(
            a,
            "nix /src/x --rev v1 --name p --attr-path python3Packages.p --version 1 --out /out/p --replace --model none --max-iterations 20 --max-no-progress 10 --refine 0 --nixpkgs /nixpkgs"
        );
    }

    #[test]
    fn spack_pairs_get_spack_flags_only() {
        let mut config = BenchConfig::load("spackit").unwrap();
        config.spack.spack = Some("/spack/env.sh".into());
        config.spack.extra_args = vec!["--no-sandbox".into()];
        let line = r#"{"name": "n", "spack_dir": "n", "version": "2.0"}"#;
        let a = args_of(line, "spackit", &config);
        assert_eq!(
            a,
            "spack /src/x --name n --version 2.0 --out /out/p --replace --model none --refs similar:2 --brief llm --audit --max-attempts 5 --no-tools --draft none --no-variant-check --spack /spack/env.sh --no-sandbox"
        );
        // packsmith: the command's own defaults; no model named is the draft alone.
        let a = args_of(line, "packsmith", &config);
        assert_eq!(
            a,
            "spack /src/x --name n --version 2.0 --out /out/p --replace --model none --spack /spack/env.sh --no-sandbox"
        );
    }

    /// The `human` baseline installs the ground truth's own recipe from the
    /// task's tree: `repair <gt>/packages/<dir>/package.py --source <tree>`.
    #[test]
    fn human_pairs_repair_the_ground_truths_recipe_from_the_tasks_tree() {
        let gt = tempfile::tempdir().unwrap();
        let recipe = gt.path().join("packages/n/package.py");
        std::fs::create_dir_all(recipe.parent().unwrap()).unwrap();
        std::fs::write(&recipe, "class N(CMakePackage):\n    pass\n").unwrap();
        let mut config = BenchConfig::load("human").unwrap();
        config.spack.spack = Some("/spack/env.sh".into());
        config.spack.ground_truth = Some(gt.path().to_path_buf());
        let line = r#"{"name": "n", "spack_dir": "n", "version": "2.0"}"#;
        let a = args_of(line, "human", &config);
        assert_eq!(
            a,
            format!(
                "repair {} --name n --version 2.0 --source /src/x --until install --out /out/p --replace --model none --max-attempts 1 --no-rules --spack /spack/env.sh",
                recipe.display()
            )
        );
        // A snapshot's dated version (from the sources map) is the draft's;
        // the human recipe installs the version it declares.
        let task = &parse_tasks(
            r#"{"name": "n", "spack_dir": "n", "version": "master"}"#,
            "t",
        )
        .unwrap()[0];
        let c = Configuration {
            name: "human".into(),
            baseline: Some("human".into()),
            knobs: baseline("human").unwrap(),
        };
        let a = pair_args(
            task,
            Path::new("/src/x"),
            Some("2026-03-06"),
            &c,
            &config,
            Path::new("/out/p"),
        );
        let at = a.iter().position(|x| x == "--version").unwrap();
        assert_eq!(a[at + 1], "master");
    }

    #[test]
    fn an_install_stage_repair_task_installs_its_source() {
        let line = REPAIR.replace(
            "\"until\": \"load\"",
            "\"until\": \"install\", \"source\": \"/r/src.tar.gz\", \"version\": \"1.2\"",
        );
        assert_eq!(
            args_for(&line, "[[configuration]]\nname = \"d\"\n", "/r/package.py"),
            "repair /r/package.py --name z --until install --version 1.2 --source /r/src.tar.gz --out /out/p --replace --model none --spack /spack/env.sh --no-sandbox"
        );
    }

    #[test]
    fn static_repairs_reach_both_commands() {
        let config = BenchConfig::parse(
            "[[configuration]]\nname = \"s0\"\nbaseline = \"zero-shot\"\nstatic_repairs = 0\n",
            "c.toml",
        )
        .unwrap();
        let spack = r#"{"name": "n", "spack_dir": "n", "version": "2.0"}"#;
        let nix = r#"{"attr_path": "p", "package_name": "p", "pname": "p", "version": "1", "nixpkgs_base_commit": "c", "rev": "v1"}"#;
        for line in [spack, nix] {
            let task = &parse_tasks(line, "t").unwrap()[0];
            let args: Vec<String> = pair_args(
                task,
                Path::new("/src/x"),
                None,
                &config.configurations[0],
                &config,
                Path::new("/out/p"),
            )
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
            let at = args.iter().position(|a| a == "--static-repairs");
            assert_eq!(at.map(|i| args[i + 1].as_str()), Some("0"), "{args:?}");
        }
    }

    const REPAIR: &str = r#"{"id": "z.missing_import.0", "package": "z", "class": "missing_import", "stage": "load", "until": "load", "broken": "/r/package.py", "original": "/r/original.py"}"#;

    /// The arguments of the first configuration of `toml` for `line`.
    fn args_for(line: &str, toml: &str, source: &str) -> String {
        let mut config = BenchConfig::parse(toml, "c.toml").unwrap();
        config.spack.spack = Some("/spack/env.sh".into());
        config.spack.extra_args = vec!["--no-sandbox".into()];
        config.nix.nixpkgs = Some("/nixpkgs".into());
        let task = &parse_tasks(line, "t").unwrap()[0];
        pair_args(
            task,
            Path::new(source),
            Some("9.9"),
            &config.configurations[0],
            &config,
            Path::new("/out/p"),
        )
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
    }

    #[test]
    fn repair_pairs_get_the_mending_knobs_only() {
        let every = "[[configuration]]\nname = \"r\"\nbaseline = \"spackit\"\nmodel = \"openai:m\"\nstatic_repairs = 2\nrepair_mode = \"rewrite\"\nrules = false\n";
        assert_eq!(
            args_for(REPAIR, every, "/r/package.py"),
            "repair /r/package.py --name z --until load --out /out/p --replace --model openai:m --static-repairs 2 --max-attempts 5 --no-tools --repair-mode rewrite --no-rules --audit --spack /spack/env.sh --no-sandbox"
        );
        // Command defaults: only what is always named; the default `until`.
        let line = REPAIR.replace(", \"until\": \"load\"", "");
        assert_eq!(
            args_for(&line, "[[configuration]]\nname = \"d\"\n", "/r/package.py"),
            "repair /r/package.py --name z --until concretize --out /out/p --replace --model none --spack /spack/env.sh --no-sandbox"
        );
        let knobs = "[[configuration]]\nname = \"k\"\naudit = false\ntools = true\nrules = true\nrepair_mode = \"edits\"\nmax_attempts = 1\n";
        assert_eq!(
            args_for(REPAIR, knobs, "/r/package.py"),
            "repair /r/package.py --name z --until load --out /out/p --replace --model none --max-attempts 1 --repair-mode edits --no-audit --spack /spack/env.sh --no-sandbox"
        );
    }

    #[test]
    fn spack_pairs_get_the_mending_knobs_and_nix_pairs_do_not() {
        let toml = "[[configuration]]\nname = \"r\"\nrepair_mode = \"edits\"\nrules = false\n";
        let spack = r#"{"name": "n", "spack_dir": "n", "version": "2.0"}"#;
        assert_eq!(
            args_for(spack, toml, "/src/x"),
            "spack /src/x --name n --version 9.9 --out /out/p --replace --model none --repair-mode edits --no-rules --spack /spack/env.sh --no-sandbox"
        );
        let nix = r#"{"attr_path": "p", "package_name": "p", "pname": "p", "version": "1", "nixpkgs_base_commit": "c"}"#;
        assert_eq!(
            args_for(nix, toml, "/src/x"),
            "nix /src/x --name p --attr-path p --version 9.9 --out /out/p --replace --model none --nixpkgs /nixpkgs"
        );
    }

    /// `packsmith repair` writes `<pair>/<package>/report.json`, not
    /// `<pair>/<task id>/`; it is found there even beside another run
    /// directory, and the record names the class but has no scores.
    #[test]
    fn a_repair_pairs_report_is_found_under_its_package() {
        let dir = tempfile::tempdir().unwrap();
        let task = &parse_tasks(REPAIR, "t").unwrap()[0];
        for d in ["z", "other"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
            std::fs::write(dir.path().join(d).join("report.json"), "{}").unwrap();
        }
        assert_eq!(
            find_report(dir.path(), task.run_name()),
            Some(dir.path().join("z/report.json"))
        );
        let mut config = BenchConfig::load("packsmith").unwrap();
        config.spack.ground_truth = Some(dir.path().to_path_buf());
        let mut r: PairResult =
            serde_json::from_str(r#"{"index": 0, "task": "z.missing_import.0", "config": "c", "ecosystem": "spack", "outcome": "succeeded", "wall_ms": 1, "run_dir": "", "attempts": 1, "model_calls": 0, "tool_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}"#).unwrap();
        let report: RunReport = serde_json::from_str(
            r#"{"schema": 1, "name": "z", "ecosystem": "spack", "model": "m", "status": "succeeded", "reason": "", "stages": ["load"], "attempts": [], "final_recipe": "package.py", "model_calls": 0, "tool_calls": 0, "usage": {"prompt_tokens": 0, "completion_tokens": 0}, "cost_usd": 0.0, "duration_ms": 0}"#,
        )
        .unwrap();
        score_task(&mut r, &report, dir.path(), task, &config);
        assert_eq!(
            (r.s_d, r.s_v, &r.scored, &r.score_error),
            (None, None, &None, &None)
        );
    }

    #[test]
    fn ground_truth_by_spack_dir_then_name() {
        let dir = tempfile::tempdir().unwrap();
        let task = match &parse_tasks(
            r#"{"name": "byte-lite", "spack_dir": "byte_lite", "version": "1"}"#,
            "t",
        )
        .unwrap()[0]
        {
            Task::Spack(t) => t.clone(),
            _ => unreachable!(),
        };
        assert_eq!(ground_truth_recipe(dir.path(), &task), None);
        let old = dir.path().join("packages/byte-lite");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("package.py"), "").unwrap();
        assert_eq!(
            ground_truth_recipe(dir.path(), &task),
            Some(old.join("package.py"))
        );
        let new = dir.path().join("packages/byte_lite");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(new.join("package.py"), "").unwrap();
        assert_eq!(
            ground_truth_recipe(dir.path(), &task),
            Some(new.join("package.py"))
        );
    }

    #[test]
    fn cache_env_defaults_under_out() {
        let mut config = BenchConfig::load("packsmith").unwrap();
        assert_eq!(cache_env(&config, Path::new("/o")).len(), 1);
        config.cache.mode = Some("replay".into());
        let env = cache_env(&config, Path::new("/o"));
        assert_eq!(env[1].1, OsString::from("/o/llm-cache"));
    }

    /// A report whose attempts are `(attempt, kind, base, model calls,
    /// passed)`.
    fn report_of(attempts: &[(u32, &str, Option<u32>, u32, bool)]) -> RunReport {
        let attempts: Vec<String> = attempts
            .iter()
            .map(|(n, kind, base, calls, passed)| {
                let base = base.map_or(String::new(), |b| format!(r#""base": {b}, "#));
                format!(
                    r#"{{"attempt": {n}, "kind": "{kind}", {base}"recipe_path": "p", "static_repairs": 0, "stages": [], "passed": {passed}, "stage_reached": "install", "model_calls": {calls}, "tool_calls": 0, "usage": {{"prompt_tokens": {}, "completion_tokens": 10}}, "cost_usd": 0.0, "duration_ms": 2500}}"#,
                    100 * calls
                )
            })
            .collect();
        serde_json::from_str(&format!(
            r#"{{"schema": 1, "name": "z", "ecosystem": "spack", "model": "m", "status": "succeeded", "reason": "", "stages": ["install"], "attempts": [{}], "model_calls": 0, "tool_calls": 0, "usage": {{"prompt_tokens": 0, "completion_tokens": 0}}, "cost_usd": 0.0, "duration_ms": 0}}"#,
            attempts.join(", ")
        ))
        .unwrap()
    }

    #[test]
    fn the_passing_recipe_is_credited_to_the_draft_the_rules_or_the_model() {
        let draft = report_of(&[(1, "draft", None, 0, true)]);
        assert_eq!(who_made_it(&draft, Some(1)), (Some("draft".into()), None));
        let rules = report_of(&[
            (1, "draft", None, 0, false),
            (2, "repair", Some(1), 0, true),
        ]);
        assert_eq!(who_made_it(&rules, Some(2)), (Some("rules".into()), None));
        // The model repaired attempt 2, the rules finished the job from it:
        // the model is on the way.
        let model = report_of(&[
            (1, "draft", None, 0, false),
            (2, "repair", Some(1), 1, false),
            (3, "repair", Some(2), 0, true),
        ]);
        let (by, path) = who_made_it(&model, Some(3));
        assert_eq!(by.as_deref(), Some("model"));
        let path = path.unwrap();
        assert_eq!((path.model_calls, path.tokens), (1, 110));
        assert!((path.seconds - 2.5).abs() < 1e-9);
        // No schema: a free rewrite; a structured answer names its job.
        assert_eq!(path.jobs, ["rewrite"]);
        let mut picked = model.clone();
        picked.attempts[1].job = Some("pick_package".into());
        let (_, path) = who_made_it(&picked, Some(3));
        assert_eq!(path.unwrap().jobs, ["pick_package"]);
        // A model attempt the passing recipe does not descend from is not
        // on the way (a rollback to the draft).
        let aside = report_of(&[
            (1, "draft", None, 0, false),
            (2, "repair", Some(1), 2, false),
            (3, "repair", Some(1), 0, true),
        ]);
        assert_eq!(who_made_it(&aside, Some(3)), (Some("rules".into()), None));
        assert_eq!(who_made_it(&aside, None), (None, None));
    }

    /// A smoke stage that tested nothing (no `test_*`, no
    /// `import_modules` in the passing recipe) is not `smoke_tested`,
    /// whatever the run's report said; a recipe with a test keeps it.
    #[test]
    fn rescoring_counts_only_recipes_with_tests_as_smoke_tested() {
        let dir = tempfile::tempdir().unwrap();
        let task = &parse_tasks(REPAIR, "t").unwrap()[0];
        let run = dir.path().join("z");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(
            run.join("report.json"),
            r#"{"schema": 1, "name": "z", "ecosystem": "spack", "model": "m", "status": "succeeded", "reason": "", "stages": ["load"], "attempts": [], "final_recipe": "package.py", "model_calls": 0, "tool_calls": 0, "usage": {"prompt_tokens": 0, "completion_tokens": 0}, "cost_usd": 0.0, "duration_ms": 0}"#,
        )
        .unwrap();
        let config = BenchConfig::load("packsmith").unwrap();
        let record = r#"{"index": 0, "task": "z.missing_import.0", "config": "c", "ecosystem": "spack", "outcome": "succeeded", "wall_ms": 1, "run_dir": "", "attempts": 1, "model_calls": 0, "tool_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "levels": {"installed": true, "smoke_tested": true, "review_clean": false}}"#;
        let plain = "from spack.package import *\n\n\nclass Z(Package):\n    pass\n";
        for (recipe, tested) in [
            (plain.to_string(), false),
            (
                format!("{plain}\n    def test_z_version(self):\n        pass\n"),
                true,
            ),
        ] {
            std::fs::write(run.join("package.py"), recipe).unwrap();
            let mut r: PairResult = serde_json::from_str(record).unwrap();
            score_pair_again(&mut r, dir.path(), task, &config);
            assert_eq!(r.levels.unwrap()["smoke_tested"], tested);
        }
    }
}
