//! `packsmith spack SOURCE`: analyze → brief → deterministic draft → real
//! Spack stages in the sandbox → model repairs, until the package installs
//! or the attempts run out. Everything lands in `<out>/<name>/`; with
//! `--contribute OUT`, a bundle for spack-packages lands in OUT.

mod contribute;
pub(crate) mod environment;
mod inputs;
mod variants;

use std::path::PathBuf;

use packsmith_agent::rundir::rewrite_report;
use packsmith_agent::{Agent, AgentOptions, CancelToken, RequestLog, RunReport, RunStatus, Task};
use packsmith_analyze::{analyze_dir, source};
use packsmith_core::chat::Usage;
use packsmith_core::RepoFacts;
use packsmith_llm::ChatModel;
use packsmith_spack::ecosystem::{PromptSettings, RepairMode, SpackEcosystem, Validation};
use packsmith_spack::prepare::{prepare_run, PreparedRun, RunInputs};
use packsmith_spack::validate::StageOptions;
use packsmith_spack_knowledge::brief::BriefOverrides;
use packsmith_spack_knowledge::draft::DraftOptions;
use packsmith_spack_knowledge::mapping::{NoKnowledge, SpackNames};
use packsmith_spack_knowledge::target::TargetSpack;

use super::optional_model::load_optional_model;
use crate::cli::{LoopFlags, SpackArgs};
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::progress::{note, render_summary, ProgressPrinter};

/// Ctrl-C (or SIGTERM) cancels the run: see [`packsmith_exec::install_cancel`].
pub(crate) fn cancel_on_signals() -> CancelToken {
    CancelToken::from_flag(packsmith_exec::install_cancel())
}

pub fn run(args: &SpackArgs) -> Result<Exit, CliError> {
    let cancel = cancel_on_signals();
    // A Spack query that Ctrl-C killed fails; that is an interruption.
    run_until_cancelled(args, &cancel).map_err(|e| e.unless_cancelled(cancel.is_cancelled()))
}

/// Maps the arguments onto the backend's steps and prints what happens:
/// analysis, Spack and its knowledge base, the prepared run, the prompts'
/// inputs, the loop, and what is added to the report after it.
fn run_until_cancelled(args: &SpackArgs, cancel: &CancelToken) -> Result<Exit, CliError> {
    let refs_mode = inputs::parse_refs(&args.refs)?;
    let (root, facts) = analyse(args)?;

    // Spack first: without it there is nothing to validate against.
    let environment::Located {
        setup,
        target,
        kb,
        names: names_index,
    } = environment::locate_all(
        args.run.spack.as_deref(),
        &args.run.spack_version,
        args.run.kb.as_deref(),
    )?;
    let names: &dyn SpackNames = match &names_index {
        Some(n) => n,
        None => &NoKnowledge,
    };
    let prepared = prepare_run(RunInputs {
        facts: &facts,
        source_root: &root,
        setup,
        target,
        names,
        overrides: BriefOverrides {
            name: args.name.clone(),
            version: args.version.clone(),
        },
        out: &args.run.out,
        replace: args.run.replace,
        no_sandbox: args.run.no_sandbox,
    })?;
    if args.run.no_sandbox {
        note("warning: --no-sandbox: recipes run with your rights");
    }
    for line in &prepared.notes {
        note(&format!("note: {line}"));
    }

    let (model, _) = load_optional_model(args.model.as_deref())?;
    let tools = tools_on(args, model.as_ref());
    let (references, refs_line) = inputs::references(
        refs_mode,
        &inputs::RefsInputs {
            kb: kb.as_ref(),
            facts: &facts,
            brief: &prepared.brief,
            seed: args.seed,
            embed_model: &args.embed_model,
        },
    )?;
    let (facts_title, facts_text, distill_usage, distill_cost) =
        inputs::facts_text(&args.brief, &facts, &prepared.brief, model.as_ref())?;
    note(&start_line(&prepared, &facts, target, tools, &refs_line));

    let validation = validation(args, &prepared);
    let prompts = PromptSettings {
        facts_title,
        facts: facts_text,
        tree: if args.brief == "raw" {
            String::new()
        } else {
            facts.tree.clone()
        },
        tools,
        ..PromptSettings::default()
    };
    let mode = repair_mode(&args.run.repair_mode, model.as_ref())?;
    let mut eco = SpackEcosystem::new(prepared.brief.clone(), prompts, validation.clone())
        .with_repair(mode, !args.run.no_rules)
        .with_source_root(root.clone());
    if args.draft == "none" {
        eco = eco.with_draft(None);
    } else if let Some(handle) = &args.maintainer {
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
        context: serde_json::json!({"source": args.source}),
    };
    let options = agent_options(&args.run, tools, cancel);
    let mut printer = ProgressPrinter::new(false);
    let mut report = Agent::run(&task, &eco, model.as_ref(), &options, &mut printer)
        .map_err(|e| CliError::new(Exit::Environment, e.to_string()))?;

    let distilled = record_distillation(&mut report, distill_usage, distill_cost);
    let hermetic = record_hermeticity(&mut report, &eco);
    let checked = !args.no_variant_check
        && !cancel.is_cancelled()
        && check_variants(args, &mut report, &eco, &validation, &prepared);
    let reviewed = packsmith_spack::review::record(&mut report, &prepared.run_dir);
    if distilled || hermetic || checked || reviewed {
        rewrite_report(&prepared.run_dir, &report)
            .map_err(|e| CliError::new(Exit::Environment, e.to_string()))?;
    }
    note(&render_summary(&report, &prepared.run_dir));
    let exit = match report.status {
        RunStatus::Succeeded => Exit::Success,
        RunStatus::Interrupted => Exit::Interrupted,
        _ => Exit::Failure,
    };
    if let Some(out) = &args.contribute {
        contribute::write(args, out, &prepared, &facts, exit)?;
    }
    Ok(exit)
}

/// The source tree (a path, or a clone in the cache) and its facts.
fn analyse(args: &SpackArgs) -> Result<(PathBuf, RepoFacts), CliError> {
    let (root, info) = source::resolve(&args.source, &cache_dir(), &mut |line| note(line))
        .map_err(|e| CliError::from_error(Exit::BadInput, &e))?;
    let facts = analyze_dir(&root, info).map_err(|e| CliError::from_error(Exit::BadInput, &e))?;
    Ok((root, facts))
}

/// `--repair-mode auto` picks structured edits for a local model and
/// whole-recipe rewrites for the rest.
pub(crate) fn repair_mode(choice: &str, model: &dyn ChatModel) -> Result<RepairMode, CliError> {
    match choice {
        "auto" => Ok(RepairMode::default_for(&model.id())),
        other => RepairMode::parse(other).ok_or_else(|| {
            CliError::new(Exit::BadInput, format!("unknown --repair-mode `{other}`"))
                .hint("use auto, edits or rewrite")
        }),
    }
}

/// Tools for the model: `--no-tools` off, `--tools` on, else on except for
/// a local model (a small model spends its budget on tool rounds).
fn tools_on(args: &SpackArgs, model: &dyn ChatModel) -> bool {
    tools_for(args.run.no_tools, args.run.tools, model)
}

/// `--no-tools` off, `--tools` on, else on except for a local model.
pub(crate) fn tools_for(no_tools: bool, tools: bool, model: &dyn ChatModel) -> bool {
    if no_tools {
        false
    } else {
        tools || !model.id().starts_with("local:")
    }
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
/// command line's stage options.
fn validation(args: &SpackArgs, prepared: &PreparedRun) -> Validation {
    Validation {
        setup: prepared.setup.clone(),
        sandbox: prepared.sandbox.clone(),
        mirror: Some(prepared.source.mirror.clone()),
        options: StageOptions {
            run_tests: args.test,
            ..StageOptions::default()
        },
        audit: !args.run.no_audit,
        install: true,
        hermeticity: !args.no_hermeticity_check,
        smoke: !args.no_smoke_test,
    }
}

/// The loop's options from the flags `spack` and `repair` share.
pub(crate) fn agent_options(flags: &LoopFlags, tools: bool, cancel: &CancelToken) -> AgentOptions {
    let mut options = AgentOptions::new(&flags.out);
    options.max_attempts = flags.max_attempts;
    options.max_static_repairs = flags.static_repairs;
    options.tools = tools;
    options.cancel = cancel.clone();
    options.request_log = if flags.log_prompts {
        RequestLog::Full
    } else {
        RequestLog::Digest
    };
    options
}

/// The tokens and cost of a `--brief llm` distillation count toward the
/// run: report.json counts every token and dollar served.
fn record_distillation(report: &mut RunReport, usage: Usage, cost_usd: f64) -> bool {
    if usage.total() == 0 {
        return false;
    }
    report.usage += usage;
    report.cost_usd += cost_usd;
    report.model_calls += 1;
    report.extras.insert(
        "facts_distillation".into(),
        serde_json::json!({"usage": usage, "cost_usd": cost_usd}),
    );
    true
}

/// What the hermeticity checks found and what was done about it, into the
/// report's extras.
fn record_hermeticity(report: &mut RunReport, eco: &SpackEcosystem) -> bool {
    let Some(extra) = eco.hermeticity_extra() else {
        return false;
    };
    report.extras.insert("hermeticity".into(), extra);
    true
}

/// The variant check on the recipe that passed, into the report's extras.
fn check_variants(
    args: &SpackArgs,
    report: &mut RunReport,
    eco: &SpackEcosystem,
    validation: &Validation,
    prepared: &PreparedRun,
) -> bool {
    if report.status != RunStatus::Succeeded {
        return false;
    }
    let Some(rel) = &report.final_recipe else {
        return false;
    };
    let recipe = std::fs::read_to_string(prepared.run_dir.join(rel)).unwrap_or_default();
    let attempt = report.best_attempt.unwrap_or(1);
    let checked = variants::check(
        validation,
        &prepared.brief.package,
        &recipe,
        &prepared.run_dir,
        attempt,
        eco.prepared_attempt(attempt, &recipe),
        args.variant_install,
    );
    report.extras.insert("variant_check".into(), checked);
    true
}
