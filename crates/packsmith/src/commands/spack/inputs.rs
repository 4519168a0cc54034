//! What the prompts carry: reference recipes (`--refs`) and the facts
//! section (`--brief`).

use packsmith_agent::References;
use packsmith_core::chat::{ChatMessage, ChatRequest, Usage};
use packsmith_core::RepoFacts;
use packsmith_llm::ChatModel;
use packsmith_spack::brief::{render_brief, render_raw_facts, SpackBrief};
use packsmith_spack::ecosystem::references_from;
use packsmith_spack::kb::KnowledgeBase;
use packsmith_spack::mapping::SpackNames;
use packsmith_spack::retrieve::{RetrieveOptions, Retriever, Strategy, Target};

use crate::exit::{CliError, Exit};

/// Lines of each reference recipe kept.
const REFERENCE_LINES: usize = 80;
/// Characters of raw facts JSON in a prompt.
const RAW_FACTS_BUDGET: usize = 6000;

/// `--refs` parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefsMode {
    None,
    Strategy(Strategy, usize),
    Embedding(usize),
}

pub fn parse_refs(text: &str) -> Result<RefsMode, CliError> {
    let bad = || {
        CliError::new(Exit::BadInput, format!("unknown --refs `{text}`")).hint(
            "use none, random, random-build-system, similar:N or embedding:N (N from 1 to 10)",
        )
    };
    let (head, n) = match text.split_once(':') {
        Some((h, n)) => (h, n.parse::<usize>().map_err(|_| bad())?),
        None => (text, 2),
    };
    if !(1..=10).contains(&n) {
        return Err(bad());
    }
    Ok(match head {
        "none" => RefsMode::None,
        "random" => RefsMode::Strategy(Strategy::Random, n),
        "random-build-system" => RefsMode::Strategy(Strategy::RandomSameBuildSystem, n),
        "similar" => RefsMode::Strategy(Strategy::Similar, n),
        "embedding" => RefsMode::Embedding(n),
        _ => return Err(bad()),
    })
}

/// The references for the prompt, and a line saying what was picked.
pub fn references(
    mode: RefsMode,
    kb: Option<&KnowledgeBase>,
    facts: &RepoFacts,
    brief: &SpackBrief,
    names: &dyn SpackNames,
    seed: u64,
) -> Result<(References, String), CliError> {
    let (strategy, n) =
        match mode {
            RefsMode::None => return Ok((References::default(), "references: none".into())),
            RefsMode::Strategy(s, n) => (s, n),
            RefsMode::Embedding(_) => return Err(CliError::new(
                Exit::BadInput,
                "--refs embedding:N needs an embedded knowledge base, which this build cannot make",
            )
            .hint("use --refs similar:N")),
        };
    let Some(kb) = kb else {
        return Ok((
            References::default(),
            "references: none (no knowledge base)".into(),
        ));
    };
    let kb_err = crate::commands::kb::kb_error;
    let retriever = Retriever::load(kb).map_err(kb_err)?;
    let mut target = Target::from_facts(facts, names, brief.target);
    target.name = brief.package.clone();
    let retrieval = retriever
        .retrieve(
            &target,
            &RetrieveOptions {
                strategy,
                n,
                seed,
                exclude: vec![brief.package.clone()],
            },
        )
        .map_err(kb_err)?;
    let refs = references_from(kb, &retrieval, REFERENCE_LINES).map_err(kb_err)?;
    let names: Vec<&str> = refs.items.iter().map(|r| r.name.as_str()).collect();
    let line = format!(
        "references ({}): {}",
        strategy.as_str(),
        if names.is_empty() {
            "none found".to_string()
        } else {
            names.join(", ")
        }
    );
    Ok((refs, line))
}

/// The facts section of the prompts, its title, and the tokens a model
/// distillation cost (zero for rules and raw).
pub fn facts_text(
    mode: &str,
    facts: &RepoFacts,
    brief: &SpackBrief,
    model: &dyn ChatModel,
) -> Result<(String, String, Usage), CliError> {
    match mode {
        "raw" => Ok((
            "The project's build facts as JSON".into(),
            render_raw_facts(facts, RAW_FACTS_BUDGET),
            Usage::default(),
        )),
        "llm" => distill(facts, model),
        _ => Ok((
            "Facts from the build files".into(),
            render_brief(brief),
            Usage::default(),
        )),
    }
}

/// SpackIt's "LLM distillation": the model summarizes the raw facts into
/// what a packager needs.
fn distill(facts: &RepoFacts, model: &dyn ChatModel) -> Result<(String, String, Usage), CliError> {
    let request = ChatRequest::new(
        Some(
            "You summarize a software project's build facts for a Spack packager: build system, \
             required and optional dependencies, build options worth exposing as variants, and \
             anything unusual. Be brief and factual; use plain lines, no code."
                .into(),
        ),
        vec![ChatMessage::user(format!(
            "Build facts (JSON):\n{}",
            render_raw_facts(facts, RAW_FACTS_BUDGET)
        ))],
    );
    let reply = model.complete(&request).map_err(|e| {
        CliError::new(
            Exit::Environment,
            format!("--brief llm: the model failed: {e}"),
        )
        .hint("check the model with `packsmith doctor`, or use --brief rules")
    })?;
    Ok((
        "A summary of the build facts".into(),
        reply.content.trim().to_string(),
        reply.usage,
    ))
}
