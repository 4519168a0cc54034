//! `packsmith diagnose LOG [BUILD_LOG]`: why a Spack stage failed, by the
//! rules and, with `--model`, by the model's explain job.

use packsmith_spack::jobs::{diagnose_log, LogDiagnosis, LogView};
use packsmith_spack::validate::Stage;

use crate::cli::DiagnoseArgs;
use crate::commands::optional_model::load_optional_model;
use crate::exit::{CliError, Exit};
use crate::model_config::llm_error;
use crate::progress::{emit, json};

fn stage_of(text: &str) -> Result<Stage, CliError> {
    serde_json::from_value(serde_json::Value::String(text.to_string())).map_err(|_| {
        CliError::new(Exit::BadInput, format!("unknown stage `{text}`"))
            .hint("use load, audit, concretize, install or smoke")
    })
}

fn read(path: &std::path::Path) -> Result<String, CliError> {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| {
            CliError::new(
                Exit::BadInput,
                format!("cannot read {}: {e}", path.display()),
            )
            .hint("pass the log file of a failed stage")
        })
}

pub fn run(a: &DiagnoseArgs) -> Result<Exit, CliError> {
    let stage = stage_of(&a.stage)?;
    let log = read(&a.log)?;
    let build_log = a.build_log.as_deref().map(read).transpose()?;
    let model = match &a.model {
        Some(text) => match load_optional_model(Some(text))? {
            (model, true) => Some(model),
            (_, false) => None,
        },
        None => None,
    };
    let view = if a.whole {
        LogView::Whole
    } else {
        LogView::Reduced
    };
    let d =
        diagnose_log(stage, &log, build_log.as_deref(), model.as_deref(), view).map_err(|e| {
            llm_error(Exit::Environment, &e)
                .hint("`packsmith doctor` shows which models are usable")
        })?;
    if a.json {
        json(&d)?;
    } else {
        emit(&render(&d));
    }
    Ok(Exit::Success)
}

fn render(d: &LogDiagnosis) -> String {
    let mut t = format!(
        "{} failed: {} ({}) by the rules\n  {}\n",
        d.stage,
        serde_json::to_value(d.rules.class)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        d.rules.label,
        d.rules.summary
    );
    if !d.rules.names.is_empty() {
        t.push_str(&format!("  names: {}\n", d.rules.names.join(", ")));
    }
    t.push_str(&format!(
        "log: {} lines, {} bytes; reduced: {} lines, {} bytes\n",
        d.lines_in, d.bytes_in, d.reduced_lines, d.reduced_bytes
    ));
    if let Some(m) = &d.model {
        let said = match (&m.class, &m.cause, &m.refused) {
            (Some(class), Some(cause), _) => format!("{class}: {cause}"),
            (_, _, Some(why)) => format!("answer refused: {why}"),
            _ => "no answer".to_string(),
        };
        t.push_str(&format!(
            "model ({} log): {said} ({} tokens in, {} out, {:.1} s)\n",
            d.model_read.unwrap_or("reduced"),
            m.usage.prompt_tokens,
            m.usage.completion_tokens,
            m.seconds
        ));
    }
    t
}
