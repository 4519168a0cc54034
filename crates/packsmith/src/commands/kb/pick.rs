//! `packsmith kb pick`: the dependencies the draft leaves out because no
//! rule names them in Spack, with the knowledge base's candidates, and a
//! model's checked pick when `--model` is given.

use packsmith_spack::jobs::{unresolved_picks, JobError, UnresolvedPick};
use packsmith_spack_draft::brief::{build_brief_with, BriefOverrides};

use super::output::{emit, json, load_facts, open};
use crate::cli::KbPickArgs;
use crate::commands::optional_model::load_optional_model;
use crate::exit::{CliError, Exit};
use crate::model_config::llm_error;
use crate::target_arg::spack_version;

pub fn pick(a: &KbPickArgs) -> Result<Exit, CliError> {
    let spack = spack_version(&a.spack_version)?;
    let model = match &a.model {
        Some(text) => match load_optional_model(Some(text))? {
            (model, true) => Some(model),
            (_, false) => None,
        },
        None => None,
    };
    let facts = load_facts(&a.target)?;
    let kb = open(&a.select)?;
    let names = kb.names()?;
    let brief = build_brief_with(&facts, spack, &names, &BriefOverrides::default());
    let root = a.target.is_dir().then_some(a.target.as_path());
    let picks =
        unresolved_picks(&brief, root, &names, &kb, model.as_deref()).map_err(|e| match e {
            JobError::Kb(e) => CliError::from(e),
            JobError::Model(e) => llm_error(Exit::Environment, &e)
                .hint("`packsmith doctor` shows which models are usable"),
        })?;
    if a.select.json {
        json(&picks)?;
    } else {
        emit(&render(&brief.package, &picks));
    }
    Ok(Exit::Success)
}

fn render(package: &str, picks: &[UnresolvedPick]) -> String {
    if picks.is_empty() {
        return format!("every dependency of `{package}` the build looks for has a Spack name");
    }
    let mut t = format!(
        "{} dependencies of `{package}` have no Spack name a rule could find:\n",
        picks.len()
    );
    for p in picks {
        t.push_str(&format!(
            "\n{} ({:?}, {}, {})\n",
            p.upstream,
            p.source,
            p.location,
            if p.required { "required" } else { "optional" }
        ));
        if p.candidates.is_empty() {
            t.push_str("  no candidate in the knowledge base\n");
        }
        for c in &p.candidates {
            t.push_str(&format!("  {:<28} {}\n", c.name, c.why));
        }
        if let Some(pick) = &p.pick {
            let said = match (&pick.package, &pick.refused) {
                (Some(name), _) => format!("picked `{name}`"),
                (None, Some(why)) => format!("answer refused: {why}"),
                (None, None) if pick.answer.is_empty() => "not asked (no candidate)".into(),
                (None, None) => "none of them".into(),
            };
            t.push_str(&format!(
                "  model: {said} ({} tokens in, {} out, {:.1} s)\n",
                pick.usage.prompt_tokens, pick.usage.completion_tokens, pick.seconds
            ));
        }
    }
    t
}
