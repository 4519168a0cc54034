//! `packsmith spack SOURCE`: analyze → brief → deterministic draft → real
//! Spack stages in the sandbox → model repairs, until the package installs
//! or the attempts run out. Everything lands in `<out>/<name>/`.

mod environment;
mod inputs;
mod variants;

use std::path::{Path, PathBuf};

use packsmith_agent::rundir::{rewrite_report, REPORT_JSON, TRACE_FILE};
use packsmith_agent::{Agent, AgentOptions, CancelToken, RequestLog, RunStatus, Task};
use packsmith_analyze::{analyze_dir, source};
use packsmith_spack::ecosystem::{PromptSettings, SpackEcosystem, Validation};
use packsmith_spack::validate::{pack_local_source, StageOptions};
use packsmith_spack_knowledge::brief::build_brief;
use packsmith_spack_knowledge::mapping::{NoKnowledge, SpackNames};

use super::optional_model::load_optional_model;
use crate::cli::SpackArgs;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::progress::{note, render_summary, ProgressPrinter};

/// Ctrl-C (or SIGTERM) cancels the run: see [`packsmith_exec::install_cancel`].
fn cancel_on_signals() -> CancelToken {
    CancelToken::from_flag(packsmith_exec::install_cancel())
}

/// The run directory, emptied when `--replace` and refused when it holds
/// a run otherwise.
fn prepare_run_dir(out: &Path, name: &str, replace: bool) -> Result<PathBuf, CliError> {
    let dir = out.join(name);
    let holds_run = dir.join(TRACE_FILE).exists() || dir.join(REPORT_JSON).exists();
    if holds_run && !replace {
        return Err(CliError::new(
            Exit::BadInput,
            format!("{} already holds a run", dir.display()),
        )
        .hint("pass --replace to overwrite it, or choose another --out"));
    }
    if dir.exists() && replace {
        std::fs::remove_dir_all(&dir).map_err(|e| {
            CliError::new(
                Exit::Environment,
                format!("cannot remove {}: {e}", dir.display()),
            )
        })?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        CliError::new(
            Exit::Environment,
            format!("cannot create {}: {e}", dir.display()),
        )
        .hint("check that --out is writable")
    })?;
    std::fs::canonicalize(&dir)
        .map_err(|e| CliError::new(Exit::Environment, format!("{}: {e}", dir.display())))
}

pub fn run(args: &SpackArgs) -> Result<Exit, CliError> {
    let cancel = cancel_on_signals();
    let refs_mode = inputs::parse_refs(&args.refs)?;
    let (root, info) = source::resolve(&args.source, &cache_dir())
        .map_err(|e| CliError::new(Exit::BadInput, e.to_string()).hint(e.hint()))?;
    let facts = analyze_dir(&root, info)
        .map_err(|e| CliError::new(Exit::BadInput, e.to_string()).hint(e.hint()))?;

    // Spack first: without it there is nothing to validate against.
    let probe_scratch = std::env::temp_dir();
    let setup = environment::locate_spack(args, &probe_scratch)?;
    let target = environment::target_spack(args, &setup)?;
    let (kb, kb_note) = environment::knowledge_base(args, &setup)?;
    if let Some(n) = kb_note {
        note(&format!("note: {n}"));
    }
    let names_index = kb.as_ref().and_then(|k| k.names().ok());
    let names: &dyn SpackNames = match &names_index {
        Some(n) => n,
        None => &NoKnowledge,
    };

    let mut brief = build_brief(&facts, target, names);
    if let Some(n) = &args.name {
        brief.package = n.clone();
        brief.class_name = packsmith_spack_knowledge::brief::class_name(n);
    }
    if let Some(v) = &args.version {
        brief.fetch.version = Some(v.clone());
    }
    let Some(version) = brief.fetch.version.clone() else {
        return Err(CliError::new(
            Exit::BadInput,
            format!("no release version found in {}", root.display()),
        )
        .hint("pass --version X.Y.Z (the version to package)"));
    };

    let run_dir = prepare_run_dir(&args.out, &brief.package, args.replace)?;
    let mut setup = setup;
    setup.scratch = run_dir.clone();
    let src = pack_local_source(&root, &brief.package, &version, &run_dir.join("mirror")).map_err(
        |e| {
            let error = CliError::new(Exit::Environment, format!("cannot pack the source: {e}"));
            match e.hint() {
                Some(hint) => error.hint(hint),
                None => error,
            }
        },
    )?;
    brief.fetch.url = Some(src.url.clone());
    brief.fetch.sha256 = Some(src.sha256.clone());
    // A local tarball replaces any git source in the draft.
    brief.fetch.git = None;

    let sandbox = environment::sandbox(&setup, &run_dir, args.no_sandbox)?;
    if args.no_sandbox {
        note("warning: --no-sandbox: recipes run with your rights");
    }

    let (model, _) = load_optional_model(args.model.as_deref())?;
    let tools = if args.no_tools {
        false
    } else {
        args.tools || !model.id().starts_with("local:")
    };
    let (references, refs_line) = inputs::references(
        refs_mode,
        &inputs::RefsInputs {
            kb: kb.as_ref(),
            facts: &facts,
            brief: &brief,
            names,
            seed: args.seed,
            embed_model: &args.embed_model,
        },
    )?;
    let (facts_title, facts_text, distill_usage, distill_cost) =
        inputs::facts_text(&args.brief, &facts, &brief, model.as_ref())?;
    note(&format!(
        "{}: version {version}, Spack {target}, {}, sandbox {}, tools {}, {refs_line}",
        brief.package,
        facts
            .primary_build_system
            .map(|k| format!("{k:?}"))
            .unwrap_or_else(|| "no build system found".into()),
        if sandbox.is_sandboxed() {
            "bubblewrap"
        } else {
            "off"
        },
        if tools { "on" } else { "off" },
    ));

    let audit = !args.no_audit;
    let validation = Validation {
        setup: setup.clone(),
        sandbox: sandbox.clone(),
        mirror: Some(src.mirror.clone()),
        options: StageOptions {
            run_tests: args.test,
            ..StageOptions::default()
        },
        audit,
        install: true,
    };
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
    let mut eco = SpackEcosystem::new(brief.clone(), prompts, validation.clone());
    if args.draft == "none" {
        eco = eco.with_draft(None);
    }
    if let Some(kb) = kb {
        eco = eco.with_knowledge(kb);
    }

    let task = Task {
        name: brief.package.clone(),
        repo_root: root.clone(),
        version: Some(version.clone()),
        references,
        context: serde_json::json!({"source": args.source}),
    };
    let mut options = AgentOptions::new(&args.out);
    options.max_attempts = args.max_attempts;
    options.max_static_repairs = args.static_repairs;
    options.tools = tools;
    options.cancel = cancel.clone();
    options.request_log = if args.log_prompts {
        RequestLog::Full
    } else {
        RequestLog::Digest
    };
    let mut printer = ProgressPrinter::new(false);
    let mut report = Agent::run(&task, &eco, model.as_ref(), &options, &mut printer)
        .map_err(|e| CliError::new(Exit::Environment, e.to_string()))?;

    let mut changed = false;
    if distill_usage.total() > 0 {
        // Its cost too: report.json counts every token and dollar served.
        report.usage += distill_usage;
        report.cost_usd += distill_cost;
        report.model_calls += 1;
        report.extras.insert(
            "facts_distillation".into(),
            serde_json::json!({"usage": distill_usage, "cost_usd": distill_cost}),
        );
        changed = true;
    }
    let variant_check = !args.no_variant_check && !cancel.is_cancelled();
    if report.status == RunStatus::Succeeded && variant_check {
        if let Some(rel) = &report.final_recipe {
            let recipe = std::fs::read_to_string(run_dir.join(rel)).unwrap_or_default();
            let attempt = report.best_attempt.unwrap_or(1);
            let checked = variants::check(
                &validation,
                &brief.package,
                &recipe,
                &run_dir,
                attempt,
                args.variant_install,
            );
            report.extras.insert("variant_check".into(), checked);
            changed = true;
        }
    }
    if changed {
        rewrite_report(&run_dir, &report)
            .map_err(|e| CliError::new(Exit::Environment, e.to_string()))?;
    }
    note(&render_summary(&report, &run_dir));
    Ok(match report.status {
        RunStatus::Succeeded => Exit::Success,
        RunStatus::Interrupted => Exit::Interrupted,
        _ => Exit::Failure,
    })
}
