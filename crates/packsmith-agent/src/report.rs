//! `report.json` and `report.md`: every attempt with the stage it reached,
//! its failure class, tokens, time and cost, and how the run ended.

use std::collections::BTreeMap;

use packsmith_core::chat::Usage;
use serde::{Deserialize, Serialize};

use crate::failure::Failure;
use crate::history::AttemptKind;
use crate::recipe::ProgressVerdict;

/// How a run ended. While a run is under way, `report.json` says
/// `interrupted`: if the process dies, that is what it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// A recipe passed every stage.
    Succeeded,
    /// The attempt limit was reached.
    AttemptsExhausted,
    /// Too many consecutive attempts without progress.
    NoProgress,
    /// The token or cost budget ran out.
    BudgetExhausted,
    /// Cancelled (Ctrl-C), or the process died mid-run.
    Interrupted,
    /// The model or the backend failed in a way a retry cannot fix.
    Failed,
    /// Every check that could run here passed, but the recipe was never
    /// built (Nix without nixpkgs). The loop never ends so; the Nix
    /// command sets it afterwards, so it is never taken for `succeeded`.
    NotBuilt,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Succeeded => "succeeded",
            Self::AttemptsExhausted => "attempts_exhausted",
            Self::NoProgress => "no_progress",
            Self::BudgetExhausted => "budget_exhausted",
            Self::Interrupted => "interrupted",
            Self::Failed => "failed",
            Self::NotBuilt => "not_built",
        }
    }
}

/// One stage of one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageRecord {
    pub name: String,
    pub passed: bool,
    /// Cut off by the user (Ctrl-C) while it ran: neither passed nor a
    /// failure of the recipe.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    pub duration_ms: u64,
    /// Relative to the run directory when it lies inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_path: Option<String>,
}

/// One attempt as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    pub attempt: u32,
    pub kind: AttemptKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<u32>,
    /// The recipe file, relative to the run directory.
    pub recipe_path: String,
    /// Static-check repair rounds spent in this attempt.
    pub static_repairs: u32,
    pub stages: Vec<StageRecord>,
    pub passed: bool,
    /// The failing stage (or `static_check`), or the last stage when passed.
    pub stage_reached: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<ProgressVerdict>,
    #[serde(default)]
    pub rolled_back: bool,
    /// The model job whose structured answer made this recipe: the name of
    /// the request's output schema (`recipe_edits`, `pick_package`); none for the
    /// draft, a rule's repair or a free rewrite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// True when the run was cut off during this attempt.
    #[serde(default)]
    pub interrupted: bool,
    pub model_calls: u32,
    pub tool_calls: u32,
    pub usage: Usage,
    pub cost_usd: f64,
    pub duration_ms: u64,
}

impl AttemptRecord {
    /// Stages passed, for ranking attempts.
    pub fn stages_passed(&self) -> usize {
        self.stages.iter().filter(|s| s.passed).count()
    }
}

/// The whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Format version of this file.
    pub schema: u32,
    pub name: String,
    pub ecosystem: String,
    pub model: String,
    pub status: RunStatus,
    /// One sentence: why the run stopped.
    pub reason: String,
    pub stages: Vec<String>,
    pub attempts: Vec<AttemptRecord>,
    /// The recipe that passed, relative to the run directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_recipe: Option<String>,
    /// The attempt that got furthest (the passing one on success).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_attempt: Option<u32>,
    /// When nothing passed: the best attempt's recipe, copied as
    /// `best-attempt.<file>` so it is never taken for a working one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_recipe: Option<String>,
    pub model_calls: u32,
    pub tool_calls: u32,
    pub usage: Usage,
    pub cost_usd: f64,
    pub duration_ms: u64,
    /// What the backend's command added after the loop (a variant check,
    /// the tokens of a facts distillation), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extras: BTreeMap<String, serde_json::Value>,
}

pub const REPORT_SCHEMA: u32 = 1;

impl RunReport {
    /// The short human summary, `report.md`.
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "# {} ({})\n\n**{}** — {}\n\nModel `{}`; {} model calls, {} tool calls, {} prompt + {} \
             completion tokens, ${:.4}, {:.1} s.\n\n",
            self.name,
            self.ecosystem,
            self.status.as_str(),
            self.reason,
            self.model,
            self.model_calls,
            self.tool_calls,
            self.usage.prompt_tokens,
            self.usage.completion_tokens,
            self.cost_usd,
            self.duration_ms as f64 / 1000.0
        );
        match (&self.final_recipe, &self.best_recipe) {
            (Some(p), _) => s.push_str(&format!("Recipe: `{p}`\n\n")),
            (None, Some(p)) => s.push_str(&format!(
                "No recipe passed. Best attempt (did NOT pass): `{p}`\n\n"
            )),
            (None, None) if self.attempts.is_empty() => s.push_str("No recipe was produced.\n\n"),
            (None, None) => s.push_str("No recipe passed; every attempt is under `attempts/`.\n\n"),
        }
        s.push_str("| # | kind | reached | result | class | tokens | time s | cost $ |\n");
        s.push_str("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for a in &self.attempts {
            let result = if a.interrupted {
                "interrupted"
            } else if a.passed {
                "passed"
            } else {
                "failed"
            };
            let mut class = a
                .failure
                .as_ref()
                .map(|f| f.class.clone())
                .unwrap_or_default();
            if let Some(v) = a.verdict.filter(|v| *v != ProgressVerdict::Progress) {
                class.push_str(&format!(
                    " ({v:?}{})",
                    if a.rolled_back { ", rolled back" } else { "" }
                ));
            }
            s.push_str(&format!(
                "| {} | {:?} | {} | {result} | {class} | {} | {:.1} | {:.4} |\n",
                a.attempt,
                a.kind,
                a.stage_reached,
                a.usage.total(),
                a.duration_ms as f64 / 1000.0,
                a.cost_usd
            ));
        }
        for (name, value) in &self.extras {
            s.push_str(&crate::extras_markdown::section(name, value));
        }
        s
    }
}
