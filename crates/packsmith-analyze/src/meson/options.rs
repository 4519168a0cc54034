//! `meson.options` / `meson_options.txt`: the options a recipe maps to variants.

use super::lexer::{calls, tokenize, value, Val};
use crate::context::Ctx;
use crate::support::lines::LineIndex;
use packsmith_core::{Evidence, FeatureHint, MesonFacts, MesonOption};

pub fn read_options(ctx: &mut Ctx<'_>, facts: &mut MesonFacts) {
    // Meson ≥ 1.1 prefers meson.options when both exist.
    let Some(file) = ["meson.options", "meson_options.txt"]
        .into_iter()
        .find(|f| ctx.view.exists(f))
    else {
        return;
    };
    let Some(text) = ctx.read(file) else { return };
    facts.options_file = Some(file.to_string());
    let tokens = tokenize(&text);
    let lines = LineIndex::new(&text);
    for call in calls(&tokens).iter().filter(|c| c.name == "option") {
        let get = |key: &str| {
            call.args
                .iter()
                .find(|a| a.key.as_deref() == Some(key))
                .map(|a| value(&text, &tokens, a.value.clone()))
        };
        let Some(name) = call
            .args
            .iter()
            .find(|a| a.key.is_none())
            .map(|a| value(&text, &tokens, a.value.clone()).text())
        else {
            continue;
        };
        let evidence = Evidence::new(file, lines.line(tokens[call.at].start));
        let option_type = get("type").map(|v| v.text()).unwrap_or_default();
        if option_type.is_empty() {
            ctx.warn(file, evidence.line, format!("option '{name}' has no type"));
        }
        let choices = get("choices").map(|v| v.strings()).unwrap_or_default();
        let default = get("value")
            .map(|v| match v {
                Val::List(l) => format!("[{}]", l.join(", ")),
                other => other.text(),
            })
            .or_else(|| implied_default(&option_type, &choices));
        if let Some(feature) = crate::support::hints::feature_for_dependency(&name) {
            ctx.features.push(FeatureHint {
                feature,
                detail: format!("meson option '{name}'"),
                conditions: Vec::new(),
                evidence: evidence.clone(),
            });
        }
        facts.options.push(MesonOption {
            name,
            option_type,
            default,
            choices,
            description: get("description").map(|v| v.text()).unwrap_or_default(),
            evidence,
        });
    }
}

/// What Meson uses when `value:` is absent.
fn implied_default(option_type: &str, choices: &[String]) -> Option<String> {
    match option_type {
        "boolean" => Some("true".into()),
        "combo" => choices.first().cloned(),
        "string" => Some(String::new()),
        "feature" => Some("auto".into()),
        "array" => Some(format!("[{}]", choices.join(", "))),
        _ => None,
    }
}
