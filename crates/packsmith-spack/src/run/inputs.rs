//! What the prompts carry: reference recipes (`--refs`) and the facts
//! section (`--brief`).

use crate::ecosystem::references_from;
use packsmith_agent::References;
use packsmith_core::chat::{ChatMessage, ChatRequest, Usage};
use packsmith_core::Hint;
use packsmith_core::RepoFacts;
use packsmith_llm::{build_embedder, redact, ChatModel, Config, Embedder, ModelSpec};
use packsmith_spack_draft::brief::{render_brief, render_raw_facts, SpackBrief};
use packsmith_spack_draft::query::retrieve_by_embedding;
use packsmith_spack_knowledge::kb::KnowledgeBase;
use packsmith_spack_knowledge::retrieve::{RefsMode, RetrieveOptions, Retriever, Strategy};

use super::RunError;

/// Lines of each reference recipe kept.
const REFERENCE_LINES: usize = 80;
/// Characters of raw facts JSON in a prompt.
const RAW_FACTS_BUDGET: usize = 6000;

pub fn parse_refs(text: &str) -> Result<RefsMode, RunError> {
    let mode = RefsMode::parse(text).map_err(RunError::bad_input)?;
    if !(mode.strategy == Strategy::None || (1..=10).contains(&mode.n)) {
        return Err(RunError::bad_input(format!(
            "--refs `{text}`: use between 1 and 10 references"
        )));
    }
    Ok(mode)
}

/// What retrieval needs besides the target.
pub struct RefsInputs<'a> {
    pub kb: Option<&'a KnowledgeBase>,
    pub facts: &'a RepoFacts,
    /// The run's one brief: the target of retrieval is the package the
    /// draft writes.
    pub brief: &'a SpackBrief,
    pub seed: u64,
    /// `--embed-model`, for `embedding:N`.
    pub embed_model: &'a str,
    /// The model configuration the embedder is built from.
    pub llm_config: &'a Config,
}

/// The references for the prompt, and a line saying what was picked.
pub fn references(mode: RefsMode, input: &RefsInputs) -> Result<(References, String), RunError> {
    if mode.strategy == Strategy::None {
        return Ok((References::default(), "references: none".into()));
    }
    let Some(kb) = input.kb else {
        return Ok((
            References::default(),
            "references: none (no knowledge base)".into(),
        ));
    };
    let opts = RetrieveOptions {
        strategy: mode.strategy,
        n: mode.n,
        seed: input.seed,
        exclude: vec![input.brief.package.clone()],
    };
    let retrieval = if mode.strategy == Strategy::Embedding {
        let embedder = embedder(input.embed_model, input.llm_config)?;
        retrieve_by_embedding(kb, embedder.as_ref(), input.brief, &opts)
            .map_err(|e| RunError::from_hint(&e))?
    } else {
        let retriever = Retriever::load(kb).map_err(|e| RunError::from_hint(&e))?;
        retriever
            .retrieve(
                &packsmith_spack_draft::query::retrieval_target(input.brief, input.facts),
                &opts,
            )
            .map_err(|e| RunError::from_hint(&e))?
    };
    let refs =
        references_from(kb, &retrieval, REFERENCE_LINES).map_err(|e| RunError::from_hint(&e))?;
    let names: Vec<&str> = refs.items.iter().map(|r| r.name.as_str()).collect();
    let line = format!(
        "references ({}): {}",
        mode.strategy.as_str(),
        if names.is_empty() {
            "none found".to_string()
        } else {
            names.join(", ")
        }
    );
    Ok((refs, line))
}

/// A model-layer error with credentials redacted from message and hint.
fn model_error(err: &dyn Hint, bad_input: bool) -> RunError {
    let e = RunError::from_hint_as(err, bad_input);
    RunError {
        message: redact(&e.message),
        hint: e.hint.as_deref().map(redact),
        bad_input,
    }
}

fn embedder(model: &str, config: &Config) -> Result<Box<dyn Embedder>, RunError> {
    let spec: ModelSpec = model.parse().map_err(|e| model_error(&e, true))?;
    build_embedder(&spec, config).map_err(|e| {
        model_error(&e, false)
            .hint("`packsmith doctor` shows which models are usable; --embed-model picks another")
    })
}

/// The facts section of the prompts, its title, and the tokens and US
/// dollars a model distillation cost (zero for rules and raw).
pub fn facts_text(
    mode: &str,
    facts: &RepoFacts,
    brief: &SpackBrief,
    model: &dyn ChatModel,
) -> Result<(String, String, Usage, f64), RunError> {
    match mode {
        "raw" => Ok((
            "The project's build facts as JSON".into(),
            render_raw_facts(facts, RAW_FACTS_BUDGET),
            Usage::default(),
            0.0,
        )),
        "llm" => distill(facts, model),
        _ => Ok((
            "Facts from the build files".into(),
            render_brief(brief),
            Usage::default(),
            0.0,
        )),
    }
}

/// SpackIt's "LLM distillation": the model summarizes the raw facts into
/// what a packager needs.
fn distill(
    facts: &RepoFacts,
    model: &dyn ChatModel,
) -> Result<(String, String, Usage, f64), RunError> {
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
        RunError::environment(format!(
            "--brief llm: the model failed: {}",
            redact(&e.to_string())
        ))
        .hint("check the model with `packsmith doctor`, or use --brief rules")
    })?;
    Ok((
        "A summary of the build facts".into(),
        reply.content.trim().to_string(),
        reply.usage,
        reply.cost_usd.unwrap_or(0.0),
    ))
}
