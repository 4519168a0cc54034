//! One failed stage's log diagnosed both ways: by the rules (class, names,
//! excerpt) and, with a model, by the explain job from the reduced log (or
//! the whole log, to measure what the reduction costs): what
//! `packsmith diagnose` prints and the explain benchmark scores.

use packsmith_llm::{ChatModel, LlmError};
use serde::Serialize;

use super::explain_failure::{explain_failure, Explanation};
use crate::diagnose::{classify, reduce_log, FailureClass};
use crate::validate::Stage;

/// What the model reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogView {
    Reduced,
    Whole,
}

#[derive(Debug, Clone, Serialize)]
pub struct RulesVerdict {
    pub class: FailureClass,
    /// The class in SpackIt's labels, the model's answer set.
    pub label: &'static str,
    pub summary: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LogDiagnosis {
    pub stage: Stage,
    pub rules: RulesVerdict,
    pub lines_in: usize,
    pub bytes_in: usize,
    /// The reduced log's size.
    pub reduced_lines: usize,
    pub reduced_bytes: usize,
    /// What the model read: `reduced` or `whole`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_read: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<Explanation>,
}

/// Diagnoses `log` (and Spack's build log beside it, when there is one)
/// of a failed `stage`; asks `model` when given.
pub fn diagnose_log(
    stage: Stage,
    log: &str,
    build_log: Option<&str>,
    model: Option<&dyn ChatModel>,
    view: LogView,
) -> Result<LogDiagnosis, LlmError> {
    let d = classify(stage, log, build_log);
    let whole = match build_log {
        Some(b) => format!("{log}\n{b}"),
        None => log.to_string(),
    };
    let reduced = reduce_log(&whole);
    let (model_read, model) = match model {
        Some(m) => {
            let (name, text) = match view {
                LogView::Reduced => ("reduced", reduced.text.as_str()),
                LogView::Whole => ("whole", whole.as_str()),
            };
            (Some(name), Some(explain_failure(m, stage.as_str(), text)?))
        }
        None => (None, None),
    };
    Ok(LogDiagnosis {
        stage,
        rules: RulesVerdict {
            class: d.class,
            label: d.class.spackit_label(),
            summary: d.summary,
            names: d.names,
        },
        lines_in: reduced.lines_in,
        bytes_in: reduced.bytes_in,
        reduced_lines: reduced.lines_out,
        reduced_bytes: reduced.text.len(),
        model_read,
        model,
    })
}
