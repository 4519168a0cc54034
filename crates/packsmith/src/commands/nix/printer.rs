//! Progress on stderr: one line per stage per attempt, plus progress
//! verdicts and notes (hash fixes, rollbacks).

use std::io::Write;

use packsmith_agent::{AgentEvent, AttemptKind, EventSink};

#[derive(Default)]
pub struct Printer {
    kind: Option<AttemptKind>,
}

fn kind_name(k: Option<AttemptKind>) -> &'static str {
    match k {
        Some(AttemptKind::Draft) => "draft",
        Some(AttemptKind::ModelDraft) => "model draft",
        Some(AttemptKind::Repair) => "repair",
        Some(AttemptKind::Refine) => "refine",
        None => "",
    }
}

impl EventSink for Printer {
    fn event(&mut self, event: &AgentEvent) {
        let line = match event {
            AgentEvent::AttemptStarted { kind, .. } => {
                self.kind = Some(*kind);
                return;
            }
            AgentEvent::StageFinished {
                attempt,
                stage,
                passed,
                duration_ms,
                failure_class,
                ..
            } => format!(
                "attempt {attempt:>2} ({}): {stage:<8} {} ({:.1}s)",
                kind_name(self.kind),
                if *passed {
                    "passed".to_string()
                } else {
                    format!(
                        "FAILED: {}",
                        failure_class.as_deref().unwrap_or("unclassified")
                    )
                },
                *duration_ms as f64 / 1000.0
            ),
            AgentEvent::StaticCheck {
                attempt, errors, ..
            } if *errors > 0 => format!(
                "attempt {attempt:>2} ({}): parse    FAILED: {errors} syntax error(s)",
                kind_name(self.kind)
            ),
            AgentEvent::Progress {
                attempt,
                verdict,
                against,
                rolled_back,
                reason,
            } => format!(
                "attempt {attempt:>2}: {verdict:?}{} — {reason}{}",
                against
                    .map(|a| format!(" vs attempt {a}"))
                    .unwrap_or_default(),
                if *rolled_back { " (rolled back)" } else { "" }
            ),
            AgentEvent::Note { message } => format!("note: {message}"),
            _ => return,
        };
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}
