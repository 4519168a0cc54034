//! The progress judgement of the Nix loop, without a model where the
//! answer is clear: a failure at an earlier stage than the accepted
//! attempt is a regression, the first build failure is the baseline, and
//! between two build failures the stdenv phase reached (or identical logs)
//! decides; only the rest goes to the model, with both logs cut from where
//! they diverge.

use packsmith_agent::{AttemptSnapshot, ProgressInput, ProgressVerdict};

use crate::logs::{compare_logs, prejudge, LogComparison, Verdict};

use super::stages::{BUILD, EVALUATE};

/// What the judgement came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    /// Not a build failure: no verdict, the loop repairs the candidate.
    Skip,
    Decided(ProgressVerdict, String),
    /// The model must compare these.
    Compare(LogComparison),
}

/// How far a failed attempt got: static check < evaluate < build.
fn rank(s: &AttemptSnapshot) -> u8 {
    match s.failure.as_ref().map(|f| f.stage.as_str()) {
        Some(BUILD) => 2,
        Some(EVALUATE) => 1,
        _ => 0,
    }
}

/// Classes that trust-on-first-use or a repair deal with; they say
/// nothing about how far the build itself got.
fn is_hash_failure(s: &AttemptSnapshot) -> bool {
    s.failure
        .as_ref()
        .is_some_and(|f| f.class == "hash_mismatch" || f.class == "invalid_hash")
}

fn read_log(s: &AttemptSnapshot) -> Option<String> {
    let path = s.failure.as_ref()?.log_path.as_ref()?;
    std::fs::read_to_string(path).ok()
}

fn verdict(v: Verdict) -> ProgressVerdict {
    match v {
        Verdict::Progress => ProgressVerdict::Progress,
        Verdict::Regress => ProgressVerdict::Regress,
        Verdict::Stagnation => ProgressVerdict::Stagnation,
        Verdict::BrokenLog => ProgressVerdict::BrokenLog,
    }
}

/// Judges `input.candidate` against the last accepted attempt.
/// `max_lines` caps each side of a log comparison.
pub fn judge(input: &ProgressInput, max_lines: usize) -> Judgement {
    let cand = &input.candidate;
    if cand.failure.is_none() || is_hash_failure(cand) {
        return Judgement::Skip;
    }
    let Some(acc) = &input.accepted else {
        return if rank(cand) == 2 {
            Judgement::Decided(
                ProgressVerdict::Progress,
                "the first build failure: it becomes the baseline".into(),
            )
        } else {
            Judgement::Skip
        };
    };
    match rank(cand).cmp(&rank(acc)) {
        std::cmp::Ordering::Less => {
            let stage = cand.failure.as_ref().map_or("", |f| f.stage.as_str());
            return Judgement::Decided(
                ProgressVerdict::Regress,
                format!(
                    "it fails at {stage} now; attempt {} got as far as the build",
                    acc.attempt
                ),
            );
        }
        std::cmp::Ordering::Greater => {
            return Judgement::Decided(
                ProgressVerdict::Progress,
                format!("it gets further than attempt {}", acc.attempt),
            )
        }
        std::cmp::Ordering::Equal => {}
    }
    if rank(cand) < 2 {
        return Judgement::Skip;
    }
    let Some(new) = read_log(cand).filter(|l| !l.trim().is_empty()) else {
        return Judgement::Decided(
            ProgressVerdict::BrokenLog,
            "the new build log is empty or could not be read".into(),
        );
    };
    let Some(previous) = read_log(acc) else {
        // The baseline's log is gone: nothing to compare with, move on.
        return Judgement::Decided(
            ProgressVerdict::Progress,
            format!("the log of attempt {} could not be read", acc.attempt),
        );
    };
    if let Some(pre) = prejudge(&previous, &new) {
        return Judgement::Decided(verdict(pre.verdict), pre.reason);
    }
    Judgement::Compare(compare_logs(&previous, &new, max_lines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_agent::{Failure, Recipe};

    fn snap(
        attempt: u32,
        stage: &str,
        class: &str,
        log: Option<&std::path::Path>,
    ) -> AttemptSnapshot {
        let mut f = Failure::new(stage, class, "x");
        f.log_path = log.map(|p| p.to_path_buf());
        AttemptSnapshot {
            attempt,
            recipe: Recipe::new("package.nix", ""),
            failure: Some(f),
            stages_passed: usize::from(stage == BUILD),
        }
    }

    #[test]
    fn stage_order_decides_without_logs() {
        let build = snap(2, BUILD, "build_failure", None);
        let eval = snap(3, EVALUATE, "eval_error", None);
        let first = judge(
            &ProgressInput {
                accepted: None,
                candidate: build.clone(),
            },
            50,
        );
        assert!(matches!(
            first,
            Judgement::Decided(ProgressVerdict::Progress, _)
        ));
        let back = judge(
            &ProgressInput {
                accepted: Some(build),
                candidate: eval.clone(),
            },
            50,
        );
        assert!(matches!(
            back,
            Judgement::Decided(ProgressVerdict::Regress, _)
        ));
        let none = judge(
            &ProgressInput {
                accepted: None,
                candidate: eval,
            },
            50,
        );
        assert_eq!(none, Judgement::Skip);
    }
}
