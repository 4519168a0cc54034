//! Journal records → per-configuration statistics and paired comparisons.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::mcnemar::mcnemar_exact;
use crate::journal::{ModelPath, Outcome, PairResult};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageRate {
    pub stage: String,
    /// Pairs where some attempt passed this stage, over n.
    pub rate: f64,
}

/// Repair pairs of one mutation class: how many the command repaired.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ClassRate {
    pub repaired: usize,
    pub total: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigStats {
    pub name: String,
    pub n: usize,
    pub succeeded: usize,
    pub success_rate: f64,
    pub stage_rates: Vec<StageRate>,
    /// Means over pairs whose recipe could be scored.
    pub mean_s_d: Option<f64>,
    pub mean_s_v: Option<f64>,
    pub scored: usize,
    pub mean_attempts_to_success: Option<f64>,
    /// Success rate after attempt 1..=K (K: the largest attempt count seen).
    pub cumulative_success: Vec<f64>,
    /// All model calls, prompt and completion.
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub mean_tokens: f64,
    pub cost_usd: f64,
    pub wall_s: f64,
    pub mean_wall_s: f64,
    pub timeouts: usize,
    pub crashed: usize,
    /// Failure class of each pair that did not succeed.
    pub failure_classes: BTreeMap<String, usize>,
    /// Repair pairs by mutation class (empty without repair tasks).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub repair_classes: BTreeMap<String, ClassRate>,
    /// Succeeded pairs by who made the passing recipe (`draft`, `rules`,
    /// `model`; `unknown` for journals written before the field).
    pub installed_by: BTreeMap<String, usize>,
    /// What the model spent on the paths of the pairs it made pass.
    pub model_path: ModelPath,
    /// Pairs the model made pass, by each job on their path (`recipe_edits`,
    /// `pick_package`, `rewrite`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_jobs: BTreeMap<String, usize>,
    /// Succeeded pairs whose install nothing derived tested and the model
    /// was asked for a smoke test, and those whose test it wrote.
    #[serde(default)]
    pub smoke_jobs: (usize, usize),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    pub a: String,
    pub b: String,
    /// Tasks both configurations ran.
    pub tasks: usize,
    pub both: usize,
    /// A succeeded, B did not.
    pub a_wins: usize,
    /// B succeeded, A did not.
    pub b_wins: usize,
    pub neither: usize,
    /// McNemar's exact two-sided p-value.
    pub p_value: f64,
}

fn mean(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Statistics of one configuration's results; `k` is the attempt axis.
pub fn config_stats(name: &str, results: &[&PairResult], k: u32) -> ConfigStats {
    let n = results.len();
    let nf = n.max(1) as f64;
    let succeeded = results
        .iter()
        .filter(|r| r.outcome == Outcome::Succeeded)
        .count();
    // Stage names in pipeline order: the longest lists first (a run without
    // the audit stage must not push it to the end), then first seen.
    let mut by_length: Vec<&&PairResult> = results.iter().collect();
    by_length.sort_by_key(|r| std::cmp::Reverse(r.stages.len()));
    let mut stages: Vec<String> = Vec::new();
    for r in by_length {
        for s in &r.stages {
            if !stages.contains(s) {
                stages.push(s.clone());
            }
        }
    }
    // A stage's rate is over the tasks of the ecosystems that have it, so a
    // mixed Spack + Nix set does not dilute either (a crashed pair lists no
    // stages but still counts against its ecosystem).
    let stage_rates = stages
        .into_iter()
        .map(|s| {
            let ecosystems: BTreeSet<_> = results
                .iter()
                .filter(|r| r.stages.contains(&s))
                .map(|r| r.ecosystem)
                .collect();
            let of_them = results
                .iter()
                .filter(|r| ecosystems.contains(&r.ecosystem))
                .count();
            let passed = results
                .iter()
                .filter(|r| r.stages_passed.contains(&s))
                .count();
            StageRate {
                stage: s,
                rate: passed as f64 / of_them.max(1) as f64,
            }
        })
        .collect();
    let scored: Vec<_> = results.iter().filter(|r| r.scored.is_some()).collect();
    let cumulative_success = (1..=k.max(1))
        .map(|i| {
            results
                .iter()
                .filter(|r| r.success_attempt.is_some_and(|a| a <= i))
                .count() as f64
                / nf
        })
        .collect();
    let mut failure_classes = BTreeMap::new();
    for r in results.iter().filter(|r| r.outcome != Outcome::Succeeded) {
        let class = r
            .failure_class
            .clone()
            .unwrap_or_else(|| r.outcome.as_str().to_string());
        *failure_classes.entry(class).or_insert(0) += 1;
    }
    let mut repair_classes: BTreeMap<String, ClassRate> = BTreeMap::new();
    for r in results {
        if let Some(class) = &r.repair_class {
            let c = repair_classes.entry(class.clone()).or_default();
            c.total += 1;
            c.repaired += usize::from(r.outcome == Outcome::Succeeded);
        }
    }
    let prompt_tokens = results.iter().map(|r| r.prompt_tokens).sum::<u64>();
    let completion_tokens = results.iter().map(|r| r.completion_tokens).sum::<u64>();
    let wall_s = results
        .iter()
        .map(|r| r.wall_ms as f64 / 1000.0)
        .sum::<f64>();
    let mut installed_by: BTreeMap<String, usize> = BTreeMap::new();
    let mut model_path = ModelPath::default();
    let mut model_jobs: BTreeMap<String, usize> = BTreeMap::new();
    let mut smoke_jobs = (0, 0);
    for r in results.iter().filter(|r| r.outcome == Outcome::Succeeded) {
        if let Some(job) = &r.smoke_job {
            smoke_jobs.0 += 1;
            smoke_jobs.1 += usize::from(job["written"] == true);
        }
        let by = r.installed_by.clone().unwrap_or_else(|| "unknown".into());
        *installed_by.entry(by).or_default() += 1;
        if let Some(p) = &r.model_path {
            model_path.model_calls += p.model_calls;
            model_path.tokens += p.tokens;
            model_path.seconds += p.seconds;
            for job in &p.jobs {
                *model_jobs.entry(job.clone()).or_default() += 1;
            }
        }
    }
    ConfigStats {
        installed_by,
        model_path,
        model_jobs,
        smoke_jobs,
        name: name.to_string(),
        n,
        succeeded,
        success_rate: succeeded as f64 / nf,
        stage_rates,
        mean_s_d: mean(scored.iter().filter_map(|r| r.s_d)),
        mean_s_v: mean(scored.iter().filter_map(|r| r.s_v)),
        scored: scored.len(),
        mean_attempts_to_success: mean(
            results
                .iter()
                .filter_map(|r| r.success_attempt.map(f64::from)),
        ),
        cumulative_success,
        prompt_tokens,
        completion_tokens,
        mean_tokens: (prompt_tokens + completion_tokens) as f64 / nf,
        cost_usd: results.iter().map(|r| r.cost_usd).sum(),
        wall_s,
        mean_wall_s: wall_s / nf,
        timeouts: results
            .iter()
            .filter(|r| r.outcome == Outcome::Timeout)
            .count(),
        crashed: results
            .iter()
            .filter(|r| r.outcome == Outcome::Crashed)
            .count(),
        failure_classes,
        repair_classes,
    }
}

/// Compares two configurations on the tasks both ran.
pub fn paired(a: &str, ra: &[&PairResult], b: &str, rb: &[&PairResult]) -> Paired {
    let sb: BTreeMap<&str, bool> = rb
        .iter()
        .map(|r| (r.task.as_str(), r.outcome == Outcome::Succeeded))
        .collect();
    let mut p = Paired {
        a: a.to_string(),
        b: b.to_string(),
        tasks: 0,
        both: 0,
        a_wins: 0,
        b_wins: 0,
        neither: 0,
        p_value: 1.0,
    };
    let mut seen = BTreeSet::new();
    for r in ra {
        let Some(&b_ok) = sb.get(r.task.as_str()) else {
            continue;
        };
        if !seen.insert(r.task.as_str()) {
            continue;
        }
        p.tasks += 1;
        match (r.outcome == Outcome::Succeeded, b_ok) {
            (true, true) => p.both += 1,
            (true, false) => p.a_wins += 1,
            (false, true) => p.b_wins += 1,
            (false, false) => p.neither += 1,
        }
    }
    p.p_value = mcnemar_exact(p.a_wins as u64, p.b_wins as u64);
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Ecosystem;

    use super::super::testing::pair as r;

    #[test]
    fn stats_count_what_they_say() {
        let rs = [
            r("a", Outcome::Succeeded, Some(1)),
            r("b", Outcome::Succeeded, Some(3)),
            r("c", Outcome::Failed, None),
            r("d", Outcome::Timeout, None),
        ];
        let refs: Vec<_> = rs.iter().collect();
        let s = config_stats("c", &refs, 3);
        assert_eq!((s.n, s.succeeded, s.timeouts), (4, 2, 1));
        assert_eq!(s.cumulative_success, [0.25, 0.25, 0.5]);
        assert_eq!(s.stage_rates[0].rate, 1.0);
        assert_eq!(s.stage_rates[1].rate, 0.5);
        assert_eq!(s.mean_attempts_to_success, Some(2.0));
        assert_eq!(s.mean_s_d, Some(0.5));
        assert_eq!(s.mean_s_v, None);
        assert_eq!(s.prompt_tokens, 400);
        assert_eq!(s.mean_tokens, 110.0);
        assert_eq!(s.failure_classes["compilation"], 2);
    }

    #[test]
    fn repairs_are_counted_by_class() {
        let class = |task: &str, o: Outcome, at: Option<u32>, c: &str| {
            let mut p = r(task, o, at);
            p.repair_class = Some(c.into());
            p
        };
        let rs = [
            class(
                "a.missing_import.0",
                Outcome::Succeeded,
                Some(1),
                "missing_import",
            ),
            class(
                "b.missing_import.0",
                Outcome::Timeout,
                None,
                "missing_import",
            ),
            class("a.wrong_base.0", Outcome::Succeeded, Some(2), "wrong_base"),
            r("spack-task", Outcome::Failed, None),
        ];
        let refs: Vec<_> = rs.iter().collect();
        let s = config_stats("c", &refs, 2);
        let got: Vec<_> = s
            .repair_classes
            .iter()
            .map(|(c, x)| (c.as_str(), x.repaired, x.total))
            .collect();
        assert_eq!(got, [("missing_import", 1, 2), ("wrong_base", 1, 1)]);
        assert_eq!(s.cumulative_success, [0.25, 0.5]);
        let plain = config_stats("c", &refs[3..], 1);
        assert!(plain.repair_classes.is_empty());
        let json = serde_json::to_value(&plain).unwrap();
        assert!(json.get("repair_classes").is_none());
    }

    #[test]
    fn stage_rates_are_per_ecosystem() {
        let mut nix = r("n", Outcome::Succeeded, Some(1));
        nix.ecosystem = Ecosystem::Nix;
        nix.stages = vec!["evaluate".into()];
        nix.stages_passed = vec!["evaluate".into()];
        let mut crashed = r("c", Outcome::Crashed, None);
        crashed.stages.clear();
        crashed.stages_passed.clear();
        let rs = [r("a", Outcome::Succeeded, Some(1)), crashed, nix];
        let refs: Vec<_> = rs.iter().collect();
        let s = config_stats("c", &refs, 1);
        let rate = |st: &str| s.stage_rates.iter().find(|x| x.stage == st).unwrap().rate;
        // Spack: one of two (the crashed pair counts); Nix: one of one.
        assert_eq!(rate("install"), 0.5);
        assert_eq!(rate("evaluate"), 1.0);
    }

    #[test]
    fn paired_counts_only_common_tasks() {
        let a = [
            r("t1", Outcome::Succeeded, Some(1)),
            r("t2", Outcome::Succeeded, Some(1)),
            r("t3", Outcome::Failed, None),
            r("only-a", Outcome::Succeeded, Some(1)),
        ];
        let b = [
            r("t1", Outcome::Succeeded, Some(1)),
            r("t2", Outcome::Failed, None),
            r("t3", Outcome::Failed, None),
        ];
        let p = paired(
            "A",
            &a.iter().collect::<Vec<_>>(),
            "B",
            &b.iter().collect::<Vec<_>>(),
        );
        assert_eq!(
            (p.tasks, p.both, p.a_wins, p.b_wins, p.neither),
            (3, 1, 1, 0, 1)
        );
        assert_eq!(p.p_value, 1.0);
    }
}
