//! Spack fidelity per configuration and per task (issue 13 item 5): the
//! hermeticity result beside install success, and how close the recipe's
//! dependencies and variants are to the human recipe's.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::journal::PairResult;

/// The validation stage whose result decides "hermetic".
const HERMETICITY: &str = "hermeticity";
const INSTALL: &str = "install";

/// What the hermeticity check said of one pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hermetic {
    /// An attempt installed and passed the check.
    Passed,
    /// Some attempt installed, none passed the check.
    Failed,
    /// No attempt installed.
    NotReached,
    /// The run did not check (`--no-hermeticity-check`, or Nix).
    NotChecked,
}

impl Hermetic {
    pub fn of(r: &PairResult) -> Hermetic {
        let passed = |s: &str| r.stages_passed.iter().any(|x| x == s);
        if !r.stages.iter().any(|x| x == HERMETICITY) {
            Hermetic::NotChecked
        } else if passed(HERMETICITY) {
            Hermetic::Passed
        } else if passed(INSTALL) {
            Hermetic::Failed
        } else {
            Hermetic::NotReached
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Hermetic::Passed => "hermetic",
            Hermetic::Failed => "not hermetic",
            Hermetic::NotReached => "not installed",
            Hermetic::NotChecked => "not checked",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigFidelity {
    pub name: String,
    pub n: usize,
    /// Pairs whose run had the hermeticity stage.
    pub hermeticity_checked: usize,
    pub hermetic_installs: usize,
    /// Tasks where an install passed and its hermeticity check did not.
    pub installed_not_hermetic: Vec<String>,
    /// Means over the pairs whose recipe was scored and has the figure.
    pub dep_recall: Option<f64>,
    pub dep_recall_n: usize,
    pub dep_precision: Option<f64>,
    pub dep_precision_n: usize,
    pub variant_recall: Option<f64>,
    pub variant_recall_n: usize,
    /// Recall and precision over each recipe's default configuration.
    pub default_dep_recall: Option<f64>,
    pub default_dep_recall_n: usize,
    pub default_dep_precision: Option<f64>,
    pub default_dep_precision_n: usize,
    /// Test-only dependencies over the scored pairs, by package: the human
    /// recipes', the generated ones', and those both have.
    pub test_deps_reference: usize,
    pub test_deps_generated: usize,
    pub test_deps_shared: usize,
}

/// One pair's line in the per-task table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskFidelity {
    pub task: String,
    pub config: String,
    pub outcome: String,
    pub hermetic: Hermetic,
    pub dep_recall: Option<f64>,
    pub dep_precision: Option<f64>,
    pub variant_recall: Option<f64>,
    pub deps_missing: Vec<String>,
    pub deps_extra: Vec<String>,
}

/// Mean and count of the values present.
pub(super) fn mean_of(xs: impl Iterator<Item = Option<f64>>) -> (Option<f64>, usize) {
    let (sum, n) = xs.flatten().fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    ((n > 0).then(|| sum / n as f64), n)
}

pub fn config_fidelity(name: &str, results: &[&PairResult]) -> ConfigFidelity {
    let hermetic: Vec<Hermetic> = results.iter().map(|r| Hermetic::of(r)).collect();
    let scored: Vec<_> = results.iter().filter_map(|r| r.fidelity.as_ref()).collect();
    let (dep_recall, dep_recall_n) = mean_of(scored.iter().map(|f| f.dep_recall));
    let (dep_precision, dep_precision_n) = mean_of(scored.iter().map(|f| f.dep_precision));
    let (variant_recall, variant_recall_n) = mean_of(scored.iter().map(|f| f.variant_recall));
    let (default_dep_recall, default_dep_recall_n) =
        mean_of(scored.iter().map(|f| f.default_dep_recall));
    let (default_dep_precision, default_dep_precision_n) =
        mean_of(scored.iter().map(|f| f.default_dep_precision));
    let mut shared = 0;
    for f in &scored {
        let generated: BTreeSet<&String> = f.test_deps_generated.iter().collect();
        shared += f
            .test_deps_reference
            .iter()
            .filter(|d| generated.contains(d))
            .count();
    }
    ConfigFidelity {
        name: name.to_string(),
        n: results.len(),
        hermeticity_checked: hermetic
            .iter()
            .filter(|h| **h != Hermetic::NotChecked)
            .count(),
        hermetic_installs: hermetic.iter().filter(|h| **h == Hermetic::Passed).count(),
        installed_not_hermetic: results
            .iter()
            .zip(&hermetic)
            .filter(|(_, h)| **h == Hermetic::Failed)
            .map(|(r, _)| r.task.clone())
            .collect(),
        dep_recall,
        dep_recall_n,
        dep_precision,
        dep_precision_n,
        variant_recall,
        variant_recall_n,
        default_dep_recall,
        default_dep_recall_n,
        default_dep_precision,
        default_dep_precision_n,
        test_deps_reference: scored.iter().map(|f| f.test_deps_reference.len()).sum(),
        test_deps_generated: scored.iter().map(|f| f.test_deps_generated.len()).sum(),
        test_deps_shared: shared,
    }
}

/// The per-task lines of the pairs that were scored or checked.
pub fn task_fidelity(name: &str, results: &[&PairResult]) -> Vec<TaskFidelity> {
    results
        .iter()
        .filter(|r| r.fidelity.is_some() || Hermetic::of(r) != Hermetic::NotChecked)
        .map(|r| {
            let f = r.fidelity.clone().unwrap_or_default();
            TaskFidelity {
                task: r.task.clone(),
                config: name.to_string(),
                outcome: r.outcome.as_str().to_string(),
                hermetic: Hermetic::of(r),
                dep_recall: f.dep_recall,
                dep_precision: f.dep_precision,
                variant_recall: f.variant_recall,
                deps_missing: f.deps_missing,
                deps_extra: f.deps_extra,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use packsmith_spack_knowledge::score::Fidelity;

    use super::super::testing::pair;
    use super::*;
    use crate::journal::Outcome;

    fn checked(task: &str, outcome: Outcome, passed: &[&str]) -> PairResult {
        let mut r = pair(task, outcome, (outcome == Outcome::Succeeded).then_some(1));
        r.stages = ["load", "install", "hermeticity"]
            .map(String::from)
            .to_vec();
        r.stages_passed = passed.iter().map(|s| s.to_string()).collect();
        r
    }

    fn scored(mut r: PairResult, recall: Option<f64>, tests: (&[&str], &[&str])) -> PairResult {
        r.fidelity = Some(Fidelity {
            dep_recall: recall,
            dep_precision: Some(1.0),
            test_deps_reference: tests.0.iter().map(|s| s.to_string()).collect(),
            test_deps_generated: tests.1.iter().map(|s| s.to_string()).collect(),
            ..Fidelity::default()
        });
        r
    }

    #[test]
    fn hermeticity_is_read_from_the_stages() {
        let all = ["load", "install", "hermeticity"];
        assert_eq!(
            Hermetic::of(&checked("a", Outcome::Succeeded, &all)),
            Hermetic::Passed
        );
        assert_eq!(
            Hermetic::of(&checked("b", Outcome::Failed, &all[..2])),
            Hermetic::Failed
        );
        assert_eq!(
            Hermetic::of(&checked("c", Outcome::Failed, &all[..1])),
            Hermetic::NotReached
        );
        // The helper's runs have no hermeticity stage.
        assert_eq!(
            Hermetic::of(&pair("d", Outcome::Succeeded, Some(1))),
            Hermetic::NotChecked
        );
    }

    #[test]
    fn configuration_figures_count_only_what_was_measured() {
        let all = ["load", "install", "hermeticity"];
        let rs = [
            scored(
                checked("a", Outcome::Succeeded, &all),
                Some(1.0),
                (&["googletest"], &["googletest"]),
            ),
            scored(
                checked("leaky", Outcome::Failed, &all[..2]),
                Some(0.5),
                (&["catch2"], &[]),
            ),
            // Scored, with a reference that has no link/run dependency.
            scored(checked("c", Outcome::Failed, &all[..1]), None, (&[], &[])),
            pair("unchecked", Outcome::Succeeded, Some(1)),
        ];
        let refs: Vec<&PairResult> = rs.iter().collect();
        let c = config_fidelity("c", &refs);
        assert_eq!((c.n, c.hermeticity_checked, c.hermetic_installs), (4, 3, 1));
        assert_eq!(c.installed_not_hermetic, ["leaky"]);
        assert_eq!((c.dep_recall, c.dep_recall_n), (Some(0.75), 2));
        assert_eq!((c.dep_precision, c.dep_precision_n), (Some(1.0), 3));
        assert_eq!((c.variant_recall, c.variant_recall_n), (None, 0));
        assert_eq!(
            (
                c.test_deps_reference,
                c.test_deps_generated,
                c.test_deps_shared
            ),
            (2, 1, 1)
        );
        let rows = task_fidelity("c", &refs);
        // The unchecked, unscored pair has no line.
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[1].hermetic, Hermetic::Failed);
        assert_eq!(rows[1].dep_recall, Some(0.5));
    }
}
