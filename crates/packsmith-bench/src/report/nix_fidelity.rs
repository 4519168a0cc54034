//! Nix fidelity per configuration and per task (issue 17 item 4): how
//! close the generated expressions are to nixpkgs' own.

use packsmith_nix::fidelity::NixFidelity;
use serde::Serialize;

use super::fidelity::mean_of;
use crate::journal::PairResult;

/// A mean and how many pairs it is over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Mean {
    pub value: Option<f64>,
    pub n: usize,
}

fn mean(xs: impl Iterator<Item = Option<f64>>) -> Mean {
    let (value, n) = mean_of(xs);
    Mean { value, n }
}

fn rate(xs: impl Iterator<Item = bool>) -> Mean {
    mean(xs.map(|b| Some(f64::from(u8::from(b)))))
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigNixFidelity {
    pub name: String,
    /// Pairs whose expression was compared with nixpkgs'.
    pub scored: usize,
    pub builder_match: Mean,
    pub fetcher_match: Mean,
    pub native_recall: Mean,
    pub native_precision: Mean,
    pub build_recall: Mean,
    pub build_precision: Mean,
    /// `nativeCheckInputs`/`checkInputs`: what runs the tests.
    pub check_recall: Mean,
    pub check_precision: Mean,
    pub flags_recall: Mean,
    pub meta_recall: Mean,
    pub license_match: Mean,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskNixFidelity {
    pub task: String,
    pub config: String,
    pub fidelity: NixFidelity,
}

pub fn config_nix_fidelity(name: &str, results: &[&PairResult]) -> ConfigNixFidelity {
    let scored: Vec<&NixFidelity> = results
        .iter()
        .filter_map(|r| r.nix_fidelity.as_ref())
        .collect();
    let over = |f: fn(&NixFidelity) -> Option<f64>| mean(scored.iter().map(|s| f(s)));
    ConfigNixFidelity {
        name: name.to_string(),
        scored: scored.len(),
        builder_match: rate(scored.iter().map(|s| s.builder_match)),
        fetcher_match: rate(scored.iter().map(|s| s.fetcher_match)),
        native_recall: over(|s| s.native.recall),
        native_precision: over(|s| s.native.precision),
        build_recall: over(|s| s.build.recall),
        build_precision: over(|s| s.build.precision),
        check_recall: over(|s| s.check.recall),
        check_precision: over(|s| s.check.precision),
        flags_recall: over(|s| s.flags.recall),
        meta_recall: over(|s| s.meta.recall),
        license_match: mean(
            scored
                .iter()
                .map(|s| s.license_match.map(|b| f64::from(u8::from(b)))),
        ),
    }
}

pub fn task_nix_fidelity(name: &str, results: &[&PairResult]) -> Vec<TaskNixFidelity> {
    results
        .iter()
        .filter_map(|r| {
            r.nix_fidelity.as_ref().map(|f| TaskNixFidelity {
                task: r.task.clone(),
                config: name.to_string(),
                fidelity: f.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use packsmith_nix::fidelity::SetScore;

    use super::super::testing::pair;
    use super::*;
    use crate::journal::Outcome;

    fn scored(builder: bool, build_recall: Option<f64>) -> PairResult {
        let mut r = pair("t", Outcome::Failed, None);
        r.nix_fidelity = Some(NixFidelity {
            builder_match: builder,
            build: SetScore {
                recall: build_recall,
                ..SetScore::default()
            },
            license_match: Some(true),
            ..NixFidelity::default()
        });
        r
    }

    #[test]
    fn means_are_over_the_pairs_that_have_the_figure() {
        let rs = [
            scored(true, Some(1.0)),
            scored(false, Some(0.5)),
            scored(true, None),
            pair("unscored", Outcome::Succeeded, Some(1)),
        ];
        let refs: Vec<&PairResult> = rs.iter().collect();
        let c = config_nix_fidelity("c", &refs);
        assert_eq!(c.scored, 3);
        assert_eq!(c.builder_match.n, 3);
        assert!((c.builder_match.value.unwrap() - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(
            c.build_recall,
            Mean {
                value: Some(0.75),
                n: 2
            }
        );
        assert_eq!(c.native_recall, Mean { value: None, n: 0 });
        assert_eq!(c.license_match.value, Some(1.0));
        assert_eq!(task_nix_fidelity("c", &refs).len(), 3);
    }
}
