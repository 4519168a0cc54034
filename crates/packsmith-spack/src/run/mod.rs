//! One `packsmith spack` run as one library call: analyze the source,
//! locate Spack and its knowledge base, prepare the run directory, pick
//! the prompts' inputs, and run the agent loop, whose `Ecosystem::finish`
//! hook adds the distillation's tokens, the hermeticity record, the
//! variant check and the review gate before the report is written, once
//! (`ecosystem/finish.rs`). The binary turns flags into a
//! [`SpackRequest`], calls [`run`], and prints.

pub mod environment;
mod inputs;
mod repair;

use std::path::PathBuf;

use packsmith_agent::{Agent, AgentOptions, CancelToken, EventSink, RequestLog, RunReport, Task};
use packsmith_analyze::{analyze_dir_for, source};
use packsmith_core::RepoFacts;
use packsmith_llm::{ChatModel, Config};
use packsmith_spack_draft::brief::BriefOverrides;
use packsmith_spack_draft::draft::DraftOptions;
use packsmith_spack_knowledge::target::TargetSpack;

use crate::ecosystem::{AfterRun, PromptSettings, RepairMode, SpackEcosystem, Validation};
use crate::prepare::{prepare_run, PreparedRun, RunInputs};
use crate::validate::StageOptions;

pub use environment::{locate_all, names_or_none, Located, SpackChoice, SpackLocation};
pub use packsmith_agent::RunError;
pub use repair::{repair, RepairRequest, RepairRun};

/// How the agent loop runs, as `spack` and `repair` share it.
#[derive(Debug, Clone)]
pub struct LoopSettings {
    pub out: PathBuf,
    pub replace: bool,
    pub no_sandbox: bool,
    pub max_attempts: u32,
    pub static_repairs: u32,
    /// `Some(false)` off, `Some(true)` on, `None`: on except for a local
    /// model (a small model spends its budget on tool rounds).
    pub tools: Option<bool>,
    pub log_prompts: bool,
    /// `auto`, `edits` or `rewrite`.
    pub repair_mode: String,
    pub rules: bool,
}

/// What validates the recipe besides load, concretize and install.
#[derive(Debug, Clone, Copy)]
pub struct Checks {
    /// `spack install --test=root`.
    pub run_tests: bool,
    pub audit: bool,
    pub hermeticity: bool,
    pub smoke: bool,
    pub variant_check: bool,
    /// The variant check installs each flipped spec, not only concretizes it.
    pub variant_install: bool,
}

/// Everything one `packsmith spack SOURCE` run needs, as plain data.
#[derive(Debug, Clone)]
pub struct SpackRequest {
    /// A directory, or a git URL cloned into the cache.
    pub source: String,
    /// Spack, its generation and knowledge base, and the cache.
    pub spack: SpackChoice,
    pub name: Option<String>,
    pub version: Option<String>,
    /// `--refs` (`similar:2`, `embedding:3`, `none`, …).
    pub refs: String,
    pub seed: u64,
    pub embed_model: String,
    /// The model configuration (for the embedder of `embedding:N`).
    pub llm_config: Config,
    /// `rules`, `raw` or `llm`.
    pub brief: String,
    /// Start from the deterministic draft (else the model writes the first).
    pub draft: bool,
    pub maintainer: Option<String>,
    pub run: LoopSettings,
    pub checks: Checks,
}

/// A finished run: its report as written, and what the caller needs for
/// what comes after it (the `--contribute` bundle).
pub struct SpackRun {
    pub report: RunReport,
    pub prepared: PreparedRun,
    pub facts: RepoFacts,
}

/// Runs `request` to its end: see the module docs. `say` gets each line
/// the user should see before and after the loop; `sink` the loop's
/// events.
pub fn run(
    request: &SpackRequest,
    model: &dyn ChatModel,
    sink: &mut dyn EventSink,
    say: &mut dyn FnMut(&str),
    cancel: &CancelToken,
) -> Result<SpackRun, RunError> {
    let refs_mode = inputs::parse_refs(&request.refs)?;
    let (root, facts) = analyse(request, say)?;

    // Spack first: without it there is nothing to validate against.
    let Located {
        setup,
        target,
        kb,
        names: names_index,
    } = request.spack.locate(say)?;
    let names = names_or_none(&names_index);
    let prepared = prepare_run(RunInputs {
        facts: &facts,
        source_root: &root,
        setup,
        target,
        names,
        overrides: BriefOverrides {
            name: request.name.clone(),
            version: request.version.clone(),
        },
        out: &request.run.out,
        replace: request.run.replace,
        no_sandbox: request.run.no_sandbox,
    })
    .map_err(|e| RunError::from_hint(&e))?;
    if request.run.no_sandbox {
        say("warning: --no-sandbox: recipes run with your rights");
    }
    for line in &prepared.notes {
        say(&format!("note: {line}"));
    }

    let tools = tools_for(request.run.tools, model);
    let (references, refs_line) = inputs::references(
        refs_mode,
        &inputs::RefsInputs {
            kb: kb.as_ref(),
            facts: &facts,
            brief: &prepared.brief,
            seed: request.seed,
            embed_model: &request.embed_model,
            llm_config: &request.llm_config,
        },
    )?;
    let (facts_title, facts_text, distill_usage, distill_cost) =
        inputs::facts_text(&request.brief, &facts, &prepared.brief, model)?;
    say(&start_line(&prepared, &facts, target, tools, &refs_line));

    let validation = validation(request, &prepared);
    let prompts = PromptSettings {
        facts_title,
        facts: facts_text,
        tree: if request.brief == "raw" {
            String::new()
        } else {
            facts.tree.clone()
        },
        tools,
        ..PromptSettings::default()
    };
    let mode = repair_mode(&request.run.repair_mode, model)?;
    let mut eco = SpackEcosystem::new(prepared.brief.clone(), prompts, validation.clone())
        .with_repair(mode, request.run.rules)
        .with_source_root(root.clone())
        .with_after_run(AfterRun {
            variant_check: request.checks.variant_check,
            variant_install: request.checks.variant_install,
            distillation: Some((distill_usage, distill_cost)),
        });
    if !request.draft {
        eco = eco.with_draft(None);
    } else if let Some(handle) = &request.maintainer {
        eco = eco.with_draft(Some(DraftOptions {
            maintainers: vec![handle.clone()],
            ..DraftOptions::default()
        }));
    }
    if let Some(kb) = kb {
        eco = eco.with_knowledge(kb);
    }
    let task = Task {
        name: prepared.brief.package.clone(),
        repo_root: root.clone(),
        version: Some(prepared.version.clone()),
        references,
        context: serde_json::json!({"source": request.source}),
    };
    let options = agent_options(&request.run, tools, cancel);
    let report = Agent::run(&task, &eco, model, &options, sink)
        .map_err(|e| RunError::environment(e.to_string()))?;

    Ok(SpackRun {
        report,
        prepared,
        facts,
    })
}

/// The source tree (a path, or a clone in the cache) and its facts.
fn analyse(
    request: &SpackRequest,
    say: &mut dyn FnMut(&str),
) -> Result<(PathBuf, RepoFacts), RunError> {
    let (root, info) = source::resolve(&request.source, &request.spack.cache_dir, &mut |line| {
        say(line)
    })
    .map_err(|e| RunError::from_hint_as(&e, true))?;
    let from_clone = info.kind == "git";
    let wanted = request.name.as_deref();
    let facts = analyze_dir_for(&root, info.clone(), wanted)
        .map_err(|e| RunError::from_hint_as(&e, true))?;
    // Packsmith's own clone has empty submodules; the recipe's git fetch
    // with submodules=True will not, so the run checks out those the build
    // needs before it packs the tree. A user's checkout is left as it is.
    let needed: Vec<String> = facts
        .downloads
        .iter()
        .filter(|d| d.is_required_submodule() && !d.present)
        .map(|d| d.name.clone())
        .collect();
    if !from_clone || needed.is_empty() {
        return Ok((root, facts));
    }
    match source::fetch_submodules(&root, &needed, &mut |line| say(line)) {
        Ok(()) => {
            let facts = analyze_dir_for(&root, info, wanted)
                .map_err(|e| RunError::from_hint_as(&e, true))?;
            Ok((root, facts))
        }
        Err(why) => {
            say(&format!(
                "warning: the submodules were not fetched ({why}); the install will lack them"
            ));
            Ok((root, facts))
        }
    }
}

/// `--repair-mode auto` picks structured edits for a local model and
/// whole-recipe rewrites for the rest.
pub fn repair_mode(choice: &str, model: &dyn ChatModel) -> Result<RepairMode, RunError> {
    match choice {
        "auto" => Ok(RepairMode::default_for(&model.id())),
        other => RepairMode::parse(other).ok_or_else(|| {
            RunError::bad_input(format!("unknown --repair-mode `{other}`"))
                .hint("use auto, edits or rewrite")
        }),
    }
}

/// Tools for the model: off or on as asked, else on except for a local
/// model (a small model spends its budget on tool rounds).
pub fn tools_for(asked: Option<bool>, model: &dyn ChatModel) -> bool {
    asked.unwrap_or_else(|| !model.id().starts_with("local:"))
}

/// The line that says what this run is about to do.
fn start_line(
    prepared: &PreparedRun,
    facts: &RepoFacts,
    target: TargetSpack,
    tools: bool,
    refs_line: &str,
) -> String {
    format!(
        "{}: version {}, Spack {target}, {}, sandbox {}, tools {}, {refs_line}",
        prepared.brief.package,
        prepared.version,
        facts
            .primary_build_system
            .map(|k| format!("{k:?}"))
            .unwrap_or_else(|| "no build system found".into()),
        if prepared.sandbox.is_sandboxed() {
            "bubblewrap"
        } else {
            "off"
        },
        if tools { "on" } else { "off" },
    )
}

/// How the stages run: the prepared Spack, sandbox and mirror, and the
/// request's checks.
fn validation(request: &SpackRequest, prepared: &PreparedRun) -> Validation {
    Validation {
        setup: prepared.setup.clone(),
        sandbox: prepared.sandbox.clone(),
        mirror: Some(prepared.source.mirror.clone()),
        options: StageOptions {
            run_tests: request.checks.run_tests,
            ..StageOptions::default()
        },
        audit: request.checks.audit,
        install: true,
        hermeticity: request.checks.hermeticity,
        smoke: request.checks.smoke,
    }
}

/// The loop's options from the settings `spack` and `repair` share.
pub fn agent_options(settings: &LoopSettings, tools: bool, cancel: &CancelToken) -> AgentOptions {
    let mut options = AgentOptions::new(&settings.out);
    options.max_attempts = settings.max_attempts;
    options.max_static_repairs = settings.static_repairs;
    options.tools = tools;
    options.cancel = cancel.clone();
    options.request_log = if settings.log_prompts {
        RequestLog::Full
    } else {
        RequestLog::Digest
    };
    options
}
