//! One `packsmith nix` run as one library call: resolve the source
//! (`inputs`: the fetcher spec, the analysis, the package name, version
//! and revision, the nixpkgs pin, a Python sub-project), render the
//! deterministic draft with its hash prefetched where possible, run the
//! agent loop with [`NixEcosystem`], then write `nix-result.json` and the
//! report's `checks` table (`finish`, `checks`): a run that passed without
//! nixpkgs is `RunStatus::NotBuilt`. The caller turns flags into a
//! [`NixRequest`], calls [`run`], prints [`summary`] and maps the
//! [`Outcome`] to an exit code.
//!
//! Files: `request` (the request), `outcome` (`NixRun`, `Outcome`),
//! `inputs`, `finish`, `checks`, `summary` (the text shown before and after
//! the loop).

pub(crate) mod inputs;
mod outcome;
mod request;
mod summary;

use packsmith_agent::{Agent, AgentOptions, CancelToken, EventSink, Task};
use packsmith_analyze::summary::render as render_facts;
use packsmith_llm::ChatModel;

use crate::ecosystem::{prepare_draft, DraftInput, NixSettings};
use crate::NixEcosystem;

pub use crate::ecosystem::checks::NO_NIXPKGS;
pub use outcome::{NixRun, Outcome};
pub use packsmith_agent::RunError;
pub use request::NixRequest;
pub use summary::summary;

/// Runs `request` to its end: see the module docs. `model` repairs (a
/// stand-in that refuses when `has_model` is false: the run then stops at
/// the first failure that needs it); `say` gets each line the user should
/// see before the loop; `sink` the loop's events.
pub fn run(
    request: &NixRequest,
    model: &dyn ChatModel,
    has_model: bool,
    sink: &mut dyn EventSink,
    say: &mut dyn FnMut(&str),
    cancel: &CancelToken,
) -> Result<NixRun, RunError> {
    let config = request.config();
    let inputs = inputs::resolve(
        &inputs::Given {
            source: &request.source,
            rev: request.rev.as_deref(),
            name: request.name.as_deref(),
            version: request.version.as_deref(),
            attr_path: request.attr_path.as_deref(),
            cache_dir: &request.cache_dir,
        },
        say,
    )?;
    let pin = inputs::nixpkgs_pin(request.nixpkgs.as_deref(), &config)?;
    if let Some(note) = &inputs.analysis_note {
        say(&format!(
            "note: {note}; the draft uses the generic builder unless the model picks another"
        ));
    }
    if pin.is_none() {
        say(
            "note: no nixpkgs (no --nixpkgs and no <nixpkgs> in NIX_PATH): the recipe is parsed \
             and its hashes checked, but it cannot be evaluated or built here; the run ends \
             `not built` (exit 3) unless --allow-unbuilt is given",
        );
    }
    let draft = prepare_draft(
        &DraftInput {
            pname: &inputs.pname,
            version: &inputs.version,
            source: &inputs.source,
            rev: inputs.rev.as_ref(),
            facts: inputs.facts.as_ref(),
            prefetch: true,
            attr_path: request.attr_path.as_deref(),
            source_root: inputs.source_root.as_deref(),
            maintainers: &request.maintainers,
        },
        &config,
    )
    .map_err(|e| e.to_string());
    if let Ok(d) = &draft {
        say(&format!(
            "{} {}: {:?} template ({}), source hash: {}",
            inputs.pname,
            inputs.version,
            d.builder,
            d.chosen_by,
            summary::hash_line(&d.hash)
        ));
    }
    if !has_model {
        say(
            "note: no model (no --model, PACKSMITH_MODEL or packsmith.toml): the draft is checked, \
             and the run stops at the first failure that needs a model",
        );
    }

    let mut settings = NixSettings::new(config, pin);
    // What the build may see from the host, the built program may too.
    settings.runtime.extra_binds = request.sandbox_paths.clone();
    settings.tools_offered = request.tools;
    settings.project_question = has_model && request.project_summary;
    let facts_text = inputs
        .facts
        .as_ref()
        .map(render_facts)
        .unwrap_or_else(|| "(no analysis of the source)".into());
    let eco = NixEcosystem::new(settings, draft, facts_text).with_repo_facts(inputs.facts.clone());
    let empty = tempfile::tempdir()
        .map_err(|e| RunError::environment(format!("cannot create a temp dir: {e}")))?;
    let task = Task {
        name: inputs.pname.clone(),
        repo_root: inputs
            .repo_root
            .clone()
            .unwrap_or_else(|| empty.path().to_path_buf()),
        version: Some(inputs.version.clone()),
        references: Default::default(),
        context: serde_json::json!({ "source": request.source, "rev": request.rev }),
    };
    let options = agent_options(request, cancel);
    let report = Agent::run(&task, &eco, model, &options, sink).map_err(|e| {
        RunError::environment(e.to_string())
            .hint("check that the --out directory is writable (or pass --replace)")
    })?;
    let run_dir = request.out.join(&task.name);
    let result = eco.take_result().map_err(RunError::environment)?;
    let outcome = outcome::outcome(
        &report,
        &run_dir,
        request.allow_unbuilt,
        eco.environment_error().is_some(),
    );
    Ok(NixRun {
        report,
        run_dir,
        result,
        outcome,
    })
}

/// The loop's options: Nix's defaults with the request's limits.
fn agent_options(request: &NixRequest, cancel: &CancelToken) -> AgentOptions {
    let mut options = AgentOptions::nix_style(&request.out);
    options.max_attempts = request.max_iterations.max(1);
    options.max_no_progress = Some(request.max_no_progress.max(1));
    options.max_static_repairs = request.static_repairs;
    options.refine_rounds = request.refine;
    options.tools = request.tools;
    options.replace_existing = request.replace;
    options.cancel = cancel.clone();
    options
}
