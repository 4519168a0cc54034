//! Honest progress on stderr while the agent runs: one line per stage per
//! attempt, one per model call, and a closing summary. Ecosystem-neutral:
//! it reads only the loop's events and report.

use std::io::Write;
use std::path::Path;

use packsmith_agent::{AgentEvent, AttemptKind, CallPurpose, EventSink, RunReport, RunStatus};

/// Prints events as lines on stderr.
pub struct ProgressPrinter {
    quiet: bool,
    /// What attempt 1's recipe is, when it is not the deterministic draft
    /// (`packsmith repair` starts from the user's recipe).
    first_recipe: Option<&'static str>,
}

impl ProgressPrinter {
    pub fn new(quiet: bool) -> Self {
        Self {
            quiet,
            first_recipe: None,
        }
    }

    /// Names attempt 1's recipe (`the recipe given`) instead of the draft.
    pub fn with_first_recipe(mut self, label: &'static str) -> Self {
        self.first_recipe = Some(label);
        self
    }
}

/// A command's result on stdout.
pub fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = writeln!(out, "{}", text.trim_end());
}

/// A command's result as pretty JSON on stdout.
pub fn json<T: serde::Serialize>(value: &T) -> Result<(), crate::exit::CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| {
        crate::exit::CliError::new(
            crate::exit::Exit::Failure,
            format!("could not encode JSON: {e}"),
        )
    })?;
    emit(&text);
    Ok(())
}

/// One line on stderr, outside the event stream (notes, warnings, the
/// closing summary).
pub fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn secs(ms: u64) -> String {
    format!("{:.1}s", ms as f64 / 1000.0)
}

fn kind_label(kind: AttemptKind, base: Option<u32>) -> String {
    match (kind, base) {
        (AttemptKind::Draft, _) => "deterministic draft, no model".into(),
        (AttemptKind::ModelDraft, Some(b)) => {
            format!("model completes the draft (after attempt {b})")
        }
        (AttemptKind::ModelDraft, None) => "model writes the first draft".into(),
        (AttemptKind::Repair, Some(b)) => format!("model repairs attempt {b}"),
        (AttemptKind::Repair, None) => "model repair".into(),
        (AttemptKind::Refine, _) => "refinement".into(),
    }
}

fn purpose_label(purpose: CallPurpose) -> &'static str {
    match purpose {
        CallPurpose::Project => "project",
        CallPurpose::Draft => "draft",
        CallPurpose::Repair => "repair",
        CallPurpose::StaticRepair => "static fix",
        CallPurpose::ToolRound => "tool round",
        CallPurpose::Progress => "progress",
        CallPurpose::Evaluate => "evaluate",
        CallPurpose::Optimize => "optimize",
    }
}

/// One line for an event, or None for events not worth a line.
pub fn event_line(event: &AgentEvent) -> Option<String> {
    Some(match event {
        AgentEvent::RunStarted {
            name,
            ecosystem,
            model,
            max_attempts,
            stages,
        } => format!(
            "packsmith {ecosystem} {name}: model {model}, up to {max_attempts} attempts, stages {}",
            stages.join(" → ")
        ),
        AgentEvent::AttemptStarted {
            attempt,
            kind,
            base,
        } => format!("attempt {attempt}: {}", kind_label(*kind, *base)),
        AgentEvent::ModelCall {
            usage,
            latency_ms,
            cached,
            tool_calls,
            error,
            purpose,
            ..
        } => {
            let what = purpose_label(*purpose);
            match error {
                Some(e) => format!("  model {what:<11} failed after {}: {e}", secs(*latency_ms)),
                None => format!(
                    "  model {what:<11} {} in + {} out tokens, {}{}{}",
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    secs(*latency_ms),
                    if *tool_calls > 0 {
                        format!(", {tool_calls} tool call(s)")
                    } else {
                        String::new()
                    },
                    if *cached { " (replayed)" } else { "" }
                ),
            }
        }
        AgentEvent::ToolCall {
            name, ok, error, ..
        } => match error {
            Some(e) if !ok => format!("    tool {name}: {e}"),
            _ => format!("    tool {name}"),
        },
        AgentEvent::StaticCheck {
            round,
            errors,
            warnings,
            ..
        } => {
            if *errors == 0 {
                format!("  static check   ok ({warnings} warning(s))")
            } else {
                format!("  static check   {errors} error(s) (round {round}); to the rules, then the model")
            }
        }
        AgentEvent::StageFinished {
            stage,
            passed,
            duration_ms,
            failure_class,
            ..
        } => {
            if *passed {
                format!("  {stage:<14} ok      {}", secs(*duration_ms))
            } else {
                format!(
                    "  {stage:<14} FAILED  {}  {}",
                    secs(*duration_ms),
                    failure_class.as_deref().unwrap_or("unknown")
                )
            }
        }
        AgentEvent::Progress {
            verdict,
            rolled_back,
            reason,
            ..
        } => format!(
            "  progress: {verdict:?}{}: {reason}",
            if *rolled_back { ", rolled back" } else { "" }
        ),
        AgentEvent::Note { message } => format!("note: {message}"),
        AgentEvent::StageStarted { .. }
        | AgentEvent::AttemptFinished { .. }
        | AgentEvent::RunFinished { .. } => return None,
    })
}

impl EventSink for ProgressPrinter {
    fn event(&mut self, event: &AgentEvent) {
        if self.quiet {
            return;
        }
        let line = match (event, self.first_recipe) {
            (
                AgentEvent::AttemptStarted {
                    attempt,
                    kind: AttemptKind::Draft,
                    ..
                },
                Some(label),
            ) => Some(format!("attempt {attempt}: {label}, no model")),
            _ => event_line(event),
        };
        if let Some(line) = line {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{line}");
        }
    }
}

/// The closing summary: each attempt's stage, tokens and time, the totals,
/// and where the recipe is.
pub fn render_summary(report: &RunReport, run_dir: &Path) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "\n{}: {} ({})\n",
        report.name,
        report.status.as_str(),
        report.reason
    ));
    out.push_str(
        "  attempt  kind          reached          result                  tokens     time\n",
    );
    for a in &report.attempts {
        let result = if a.passed {
            "passed".to_string()
        } else {
            a.failure
                .as_ref()
                .map(|f| f.class.clone())
                .unwrap_or_else(|| "failed".into())
        };
        out.push_str(&format!(
            "  {:>7}  {:<12}  {:<15}  {:<22}  {:>7}  {:>7}\n",
            a.attempt,
            format!("{:?}", a.kind).to_ascii_lowercase(),
            a.stage_reached,
            result,
            a.usage.total(),
            secs(a.duration_ms),
        ));
    }
    out.push_str(&format!(
        "  total: {} model call(s), {} tokens ({} in, {} out), {} tool call(s), {}, ${:.4}\n",
        report.model_calls,
        report.usage.total(),
        report.usage.prompt_tokens,
        report.usage.completion_tokens,
        report.tool_calls,
        secs(report.duration_ms),
        report.cost_usd
    ));
    match (&report.final_recipe, &report.best_recipe) {
        (Some(r), _) => out.push_str(&format!("  recipe: {}\n", run_dir.join(r).display())),
        (None, Some(r)) => out.push_str(&format!(
            "  best attempt (did not pass): {}\n",
            run_dir.join(r).display()
        )),
        (None, None) => {}
    }
    out.push_str(&format!(
        "  report: {}\n",
        run_dir.join("report.md").display()
    ));
    if report.status == RunStatus::Interrupted {
        out.push_str(
            "  the run was interrupted; everything finished so far is in the run directory\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_lines_say_what_happened() {
        let ok = event_line(&AgentEvent::StageFinished {
            attempt: 1,
            stage: "concretize".into(),
            passed: true,
            duration_ms: 12_300,
            failure_class: None,
            log_path: None,
        })
        .unwrap_or_default();
        assert_eq!(ok, "  concretize     ok      12.3s");
        let failed = event_line(&AgentEvent::StageFinished {
            attempt: 2,
            stage: "install".into(),
            passed: false,
            duration_ms: 40_000,
            failure_class: Some("compilation".into()),
            log_path: None,
        })
        .unwrap_or_default();
        assert!(failed.contains("FAILED") && failed.ends_with("compilation"));
    }
}
