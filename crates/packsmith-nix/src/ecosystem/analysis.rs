//! Failure analysis when nothing built: the deterministic first guess
//! (crate::analysis) and, when a model is at hand, its explanation and its
//! pick from the same fixed category list. An answer without a valid
//! category keeps the first guess's category.

use packsmith_agent::{AttemptKind, AttemptRecord, STATIC_CHECK};
use packsmith_core::chat::{ChatMessage, ChatRequest};
use packsmith_core::RepoFacts;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::analysis::{first_guess, FailureCategory, FirstGuess};
use crate::diagnose::NixDiagnosis;

use super::prompts;
use super::stages::class_of;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureAnalysis {
    pub category: FailureCategory,
    /// For the user: why it does not build and what would be needed.
    pub explanation: String,
    /// The deterministic guess, kept beside the model's pick.
    pub first_guess: FirstGuess,
    /// True when the explanation (and category) came from the model.
    pub by_model: bool,
}

/// The category's name as written in files (`needs_lock_file`).
pub fn category_name(c: FailureCategory) -> String {
    serde_json::to_value(c)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "other".into())
}

/// The analysis without a model.
pub fn deterministic(diagnoses: &[NixDiagnosis], facts: Option<&RepoFacts>) -> FailureAnalysis {
    let guess = first_guess(diagnoses, facts);
    FailureAnalysis {
        category: guess.category,
        explanation: format!("{}: {}", guess.category.describe(), guess.reason),
        first_guess: guess,
        by_model: false,
    }
}

/// The analysis when every recipe the model wrote failed the static check.
/// The logs then describe only the deterministic draft, and a guess from
/// them would blame the package for the model's syntax.
pub fn no_valid_nix(attempts: &[AttemptRecord]) -> Option<FailureAnalysis> {
    let written: Vec<&AttemptRecord> = attempts
        .iter()
        .filter(|a| a.kind != AttemptKind::Draft)
        .collect();
    let last = written.last()?;
    if !written.iter().all(|a| a.stage_reached == STATIC_CHECK) {
        return None;
    }
    let error = last
        .failure
        .as_ref()
        .and_then(|f| f.excerpt.lines().next())
        .unwrap_or("no message");
    let reason = format!(
        "none of the {} recipe(s) the model wrote parses (attempt {}: {error}); try a larger \
         model, or start from the draft the run kept",
        written.len(),
        last.attempt
    );
    let category = FailureCategory::NoValidNix;
    Some(FailureAnalysis {
        category,
        explanation: format!("{}: {reason}", category.describe()),
        first_guess: FirstGuess { category, reason },
        by_model: false,
    })
}

/// The request asking a model to explain, with the last failures.
pub fn request(
    name: &str,
    diagnoses: &[NixDiagnosis],
    facts: &str,
    guess: &FirstGuess,
) -> ChatRequest {
    let failures: Vec<String> = diagnoses
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(|d| {
            let ex: String = d.excerpt.chars().take(1500).collect();
            format!("[{}] {}\n{ex}", class_of(d.kind()), d.signature)
        })
        .collect();
    let categories: Vec<_> = FailureCategory::ALL
        .iter()
        .map(|c| json!({"name": category_name(*c), "describe": c.describe()}))
        .collect();
    let user = prompts::render(
        "analysis",
        json!({
            "name": name, "failures": failures.join("\n\n"), "facts": facts,
            "guess": category_name(guess.category), "guess_reason": guess.reason,
            "categories": categories,
        }),
    );
    let mut r = ChatRequest::new(
        Some("You explain why a package could not be built with Nix.".into()),
        vec![ChatMessage::user(user)],
    );
    r.temperature = Some(0.0);
    r
}

/// Reads the model's answer; keeps `base` unless the answer explains and
/// names a category from the list.
pub fn read_answer(answer: &str, base: FailureAnalysis) -> FailureAnalysis {
    let mut category = None;
    let mut explanation = Vec::new();
    for line in answer.lines() {
        let t = line.trim();
        if let Some(rest) = t
            .strip_prefix("CATEGORY:")
            .or_else(|| t.strip_prefix("Category:"))
        {
            let name = rest.trim().trim_matches('`').to_ascii_lowercase();
            category = FailureCategory::ALL
                .iter()
                .copied()
                .find(|c| category_name(*c) == name);
        } else {
            explanation.push(line);
        }
    }
    let explanation = explanation.join("\n").trim().to_string();
    // Without a listed category the answer did not follow the format
    // (a small model's "NONE", a refusal): keep the deterministic one.
    let Some(category) = category.filter(|_| !explanation.is_empty()) else {
        return base;
    };
    FailureAnalysis {
        category,
        explanation,
        first_guess: base.first_guess,
        by_model: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_agent::Failure;
    use packsmith_core::chat::Usage;

    fn attempt(n: u32, kind: AttemptKind, stage: &str) -> AttemptRecord {
        AttemptRecord {
            attempt: n,
            kind,
            base: None,
            recipe_path: format!("attempts/{n}/package.nix"),
            static_repairs: 0,
            stages: Vec::new(),
            passed: false,
            stage_reached: stage.into(),
            failure: Some(Failure::new(stage, stage, format!("error {n}\nmore"))),
            verdict: None,
            rolled_back: false,
            job: None,
            interrupted: false,
            model_calls: 1,
            tool_calls: 0,
            usage: Usage::default(),
            cost_usd: 0.0,
            duration_ms: 0,
        }
    }

    #[test]
    fn only_unparsable_model_recipes_mean_no_valid_nix() {
        let draft = attempt(1, AttemptKind::Draft, "evaluate");
        let bad = |n| attempt(n, AttemptKind::Repair, STATIC_CHECK);
        let a = no_valid_nix(&[draft.clone(), bad(2), bad(3)]).unwrap();
        assert_eq!(a.category, FailureCategory::NoValidNix);
        assert!(
            a.explanation.contains("none of the 2 recipe(s)"),
            "{}",
            a.explanation
        );
        assert!(
            a.explanation.contains("attempt 3: error 3"),
            "{}",
            a.explanation
        );
        assert!(!a.by_model);
        // One model recipe that got past the parser: the logs are about it.
        let evaluated = attempt(3, AttemptKind::Repair, "evaluate");
        assert_eq!(no_valid_nix(&[draft.clone(), bad(2), evaluated]), None);
        // No model recipe at all: the draft's logs are the evidence.
        assert_eq!(no_valid_nix(&[draft]), None);
        assert!(!FailureCategory::ALL.contains(&FailureCategory::NoValidNix));
    }

    #[test]
    fn the_models_category_is_taken_only_from_the_list() {
        let base = deterministic(&[], None);
        assert_eq!(base.category, FailureCategory::Other);
        let a = read_answer(
            "It needs Cargo.lock.\nCATEGORY: needs_lock_file",
            base.clone(),
        );
        assert_eq!(a.category, FailureCategory::NeedsLockFile);
        assert_eq!(a.explanation, "It needs Cargo.lock.");
        assert!(a.by_model);
        assert_eq!(
            read_answer("Odd.\nCATEGORY: cosmic_rays", base.clone()),
            base
        );
        assert_eq!(read_answer("NONE", base.clone()), base);
        assert_eq!(read_answer("", base.clone()), base);
    }
}
