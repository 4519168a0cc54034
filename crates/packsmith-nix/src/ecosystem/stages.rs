//! Running the stages with the real Nix: `evaluate` (nix-instantiate of the
//! generated wrapper against the pinned nixpkgs) and `build` (nix-build of
//! the derivation, sandboxed), or only `parse` when there is no nixpkgs.
//! Each failure becomes a class and the last part of its log.

use std::time::Duration;

use packsmith_agent::{AttemptDir, EcosystemError, Failure, StageOutcome, StageSpec};

use crate::diagnose::{FailureKind, NixDiagnosis};
use crate::logs::LogView;
use crate::runner::{NixpkgsPin, StepResult, WorkDir};

use super::NixEcosystem;

pub const PARSE: &str = "parse";
pub const EVALUATE: &str = "evaluate";
pub const BUILD: &str = "build";

/// The Nix stages, carried typed in the loop's `StageSpec::detail` so
/// `run_stage` never matches on a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NixStage {
    /// `nix-instantiate --parse` only (no nixpkgs pin).
    Parse,
    Evaluate,
    Build,
}

impl NixStage {
    pub fn name(self) -> &'static str {
        match self {
            Self::Parse => PARSE,
            Self::Evaluate => EVALUATE,
            Self::Build => BUILD,
        }
    }

    /// The loop's spec of this stage with its time limit.
    pub fn spec(self, timeout_secs: u64) -> StageSpec {
        StageSpec::new(self.name(), timeout_secs).with_detail(self)
    }

    /// The typed stage a spec from [`NixStage::spec`] carries.
    pub fn of(spec: &StageSpec) -> Result<Self, EcosystemError> {
        spec.detail.get::<Self>().copied().ok_or_else(|| {
            EcosystemError::new(format!(
                "internal: the stage `{}` was not listed by the Nix backend",
                spec.name
            ))
        })
    }
}

/// The typed diagnosis a failure from a Nix stage carries, for the
/// backend's own repairs (trust on first use).
pub fn diagnosis_of(failure: &Failure) -> Option<&NixDiagnosis> {
    failure.detail.get::<NixDiagnosis>()
}

/// Lines of the log's end the model is shown (it pages back with a tool).
pub const EXCERPT_TAIL_LINES: usize = 60;
const EXCERPT_MAX_CHARS: usize = 8000;

/// The loop's failure class for a diagnosis.
pub fn class_of(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::InvalidHash => "invalid_hash",
        FailureKind::HashMismatch => "hash_mismatch",
        FailureKind::EvalError => "eval_error",
        FailureKind::DependencyFailure => "dependency_failure",
        FailureKind::BuildFailure => "build_failure",
        FailureKind::Timeout => "timeout",
        FailureKind::Unknown => "unknown",
    }
}

/// The classified headline, then the numbered end of the log.
pub fn excerpt(diagnosis: &NixDiagnosis, log: &str) -> String {
    let page = LogView::new(log).tail(EXCERPT_TAIL_LINES);
    let head = diagnosis.signature.trim();
    let mut text = String::new();
    if !head.is_empty() {
        text.push_str(&format!("classified: {head}\n"));
    }
    if page.more_before {
        text.push_str(&format!(
            "(last {} of {} lines)\n",
            page.last + 1 - page.first,
            page.total
        ));
    }
    text.push_str(&page.text);
    // Keep the end: that is where the error is.
    let chars = text.chars().count();
    if chars > EXCERPT_MAX_CHARS {
        text = text.chars().skip(chars - EXCERPT_MAX_CHARS).collect();
    }
    text
}

/// Signs in an evaluation log that nixpkgs itself could not be had: no
/// repair of the recipe can fix those.
const NIXPKGS_UNAVAILABLE: &[&str] = &[
    "unable to download 'https://github.com/NixOS/nixpkgs",
    "file 'nixpkgs' was not found",
];

impl NixEcosystem {
    pub(crate) fn work_dir(&self, dir: &AttemptDir) -> Result<WorkDir, EcosystemError> {
        let path = dir.path().join("nix");
        std::fs::create_dir_all(&path)
            .map_err(|e| EcosystemError::new(format!("cannot create {}: {e}", path.display())))?;
        let pin =
            self.settings.pin.clone().ok_or_else(|| {
                EcosystemError::new("internal: a Nix stage without a nixpkgs pin")
            })?;
        WorkDir::create(&path, &pin, self.call_scope())
            .map_err(|e| EcosystemError::new(e.to_string()))
    }

    fn outcome(&self, stage: &str, step: &StepResult) -> Result<StageOutcome, EcosystemError> {
        let duration_ms = step.duration_ms;
        if step.success {
            return Ok(StageOutcome {
                passed: true,
                duration_ms,
                log_path: step.log_path.clone(),
                failure: None,
                amended: None,
            });
        }
        let log = step
            .log_path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_else(|| step.log_tail.clone());
        if stage == EVALUATE {
            if let Some(sign) = NIXPKGS_UNAVAILABLE.iter().find(|s| log.contains(*s)) {
                let pin = match &self.settings.pin {
                    Some(NixpkgsPin::Rev { rev, .. }) => format!("nixpkgs {rev}"),
                    Some(NixpkgsPin::Path { path }) => format!("nixpkgs at {}", path.display()),
                    None => "nixpkgs".into(),
                };
                return Err(EcosystemError::new(format!(
                    "{pin} could not be used (the log says `{sign}…`); no change to the recipe \
                     can fix that. Pass --nixpkgs PATH to a local nixpkgs checkout, or run \
                     where the nixpkgs tarball can be downloaded"
                )));
            }
        }
        let diagnosis = step
            .diagnosis
            .clone()
            .unwrap_or_else(|| crate::diagnose::classify(step.step, &log, None));
        let mut failure =
            Failure::new(stage, class_of(diagnosis.kind()), excerpt(&diagnosis, &log))
                .with_detail(diagnosis.clone());
        failure.log_path = step.log_path.clone();
        self.state().diagnoses.push(diagnosis);
        Ok(StageOutcome {
            passed: false,
            duration_ms,
            log_path: step.log_path.clone(),
            failure: Some(failure),
            amended: None,
        })
    }

    pub(crate) fn run_parse(&self, text: &str) -> StageOutcome {
        let started = std::time::Instant::now();
        let result = self.parser.check(text);
        let duration_ms = started.elapsed().as_millis() as u64;
        match result {
            Ok(()) => StageOutcome {
                passed: true,
                duration_ms,
                log_path: None,
                failure: None,
                amended: None,
            },
            Err(message) => StageOutcome {
                passed: false,
                duration_ms,
                log_path: None,
                failure: Some(Failure::new(PARSE, "eval_error", message)),
                amended: None,
            },
        }
    }

    pub(crate) fn run_evaluate(
        &self,
        text: &str,
        dir: &AttemptDir,
    ) -> Result<StageOutcome, EcosystemError> {
        let work = self.work_dir(dir)?;
        work.write_package(text)
            .map_err(|e| EcosystemError::new(e.to_string()))?;
        let step = self
            .runner
            .evaluate(&work, None, &dir.log_path(EVALUATE))
            .map_err(|e| EcosystemError::new(e.to_string()))?;
        if step.success {
            if let Some(drv) = &step.drv_path {
                self.state().drvs.insert(text.to_string(), drv.clone());
            }
        }
        self.outcome(EVALUATE, &step)
    }

    pub(crate) fn run_build(
        &self,
        text: &str,
        dir: &AttemptDir,
    ) -> Result<StageOutcome, EcosystemError> {
        let work = self.work_dir(dir)?;
        let drv = self.state().drvs.get(text).cloned();
        let Some(drv) = drv else {
            return Err(EcosystemError::new(
                "internal: build stage without an evaluated derivation",
            ));
        };
        let step = self
            .runner
            .build(&work, &drv, &dir.log_path(BUILD))
            .map_err(|e| EcosystemError::new(e.to_string()))?;
        if step.success {
            let mut st = self.state();
            st.outputs.insert(text.to_string(), step.out_paths.clone());
            st.built.push(text.to_string());
        }
        self.outcome(BUILD, &step)
    }
}

/// A stage's default limit when the runner's is not set.
pub fn secs(d: Duration) -> u64 {
    d.as_secs().max(1)
}
