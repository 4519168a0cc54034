//! One `packsmith repair` run as one library call: start from the user's
//! broken `package.py` instead of a draft; the rules, then the model,
//! repair it until the real Spack reaches the last stage asked for.

use std::path::PathBuf;

use packsmith_agent::{Agent, CancelToken, EventSink, RunReport, Task};
use packsmith_core::RepoFacts;
use packsmith_llm::ChatModel;

use super::Located;
use super::{
    agent_options, names_or_none, repair_mode, tools_for, LoopSettings, RunError, SpackChoice,
};
use crate::ecosystem::{PromptSettings, RepairMode, SpackEcosystem, Validation};
use crate::prepare::{prepare_repair, PreparedRepair, RepairInputs, RepairSource};
use crate::validate::{package_dir_of, Stage, StageOptions};

/// Everything one `packsmith repair RECIPE` run needs, as plain data.
#[derive(Debug, Clone)]
pub struct RepairRequest {
    /// Where the recipe was read from (its patches sit beside it).
    pub recipe_path: PathBuf,
    pub recipe: String,
    pub package: String,
    /// The last stage: `load`, `audit`, `concretize` or `install`.
    pub until: String,
    pub version: Option<String>,
    /// A tree or archive that stands in for the recipe's download.
    pub source: Option<PathBuf>,
    /// `source` as a tree (an archive unpacked), where the edit repair
    /// finds the project's lines a failure names.
    pub source_root: Option<PathBuf>,
    /// The facts of `source`, for the rules that need the project's options.
    pub facts: Option<RepoFacts>,
    /// Spack, its generation and knowledge base, and the cache.
    pub spack: SpackChoice,
    pub hermeticity: bool,
    pub smoke: bool,
    pub audit: bool,
    pub run: LoopSettings,
}

/// A finished repair: its report and the run directory it is in.
pub struct RepairRun {
    pub report: RunReport,
    pub prepared: PreparedRepair,
}

/// The stage `until` names.
fn last_stage(until: &str) -> Stage {
    match until {
        "load" => Stage::Load,
        "audit" => Stage::Audit,
        "concretize" => Stage::Concretize,
        // Every stage after the install too (those switched off are not
        // in the list, and then nothing is cut).
        _ => Stage::Smoke,
    }
}

/// Runs `request` to its end; `say` gets the lines the user should see
/// before the loop, `sink` the loop's events.
pub fn repair(
    request: &RepairRequest,
    model: &dyn ChatModel,
    sink: &mut dyn EventSink,
    say: &mut dyn FnMut(&str),
    cancel: &CancelToken,
) -> Result<RepairRun, RunError> {
    let Located {
        setup,
        target,
        kb,
        names: names_index,
    } = request.spack.locate(say)?;
    let names = names_or_none(&names_index);
    let package = &request.package;
    let prepared = prepare_repair(RepairInputs {
        package,
        setup,
        target,
        names,
        out: &request.run.out,
        replace: request.run.replace,
        no_sandbox: request.run.no_sandbox,
        version: request.version.as_deref(),
        source: request.source.as_deref().map(|tree| RepairSource {
            tree,
            recipe: &request.recipe,
        }),
        facts: request.facts.as_ref(),
    })
    .map_err(|e| RunError::from_hint(&e))?;
    if let Some(source) = &prepared.source {
        say(&format!(
            "{package}: {} stands in for the recipe's archive ({}); installed without checking the recipe's checksum",
            request.source.as_deref().unwrap_or(std::path::Path::new("")).display(),
            source.path.display()
        ));
    }
    if request.run.no_sandbox {
        say("warning: --no-sandbox: recipes run with your rights");
    }

    let tools = tools_for(request.run.tools, model);
    let mode = repair_mode(&request.run.repair_mode, model)?;
    let install = request.until == "install";
    let validation = Validation {
        setup: prepared.setup.clone(),
        sandbox: prepared.sandbox.clone(),
        mirror: prepared.source.as_ref().map(|s| s.mirror.clone()),
        options: StageOptions {
            // Concretizing alone downloads nothing: the DAG may name
            // packages that would be built.
            offline: install,
            version: request.version.clone(),
            no_checksum: prepared.source.is_some(),
            ..StageOptions::default()
        },
        // `until audit` needs the audit, whatever `audit` says.
        audit: request.audit || request.until == "audit",
        install,
        hermeticity: install && request.hermeticity,
        smoke: install && request.smoke,
    };
    let prompts = PromptSettings {
        tools,
        ..PromptSettings::default()
    };
    let mut eco = SpackEcosystem::new(prepared.brief.clone(), prompts, validation)
        .with_repair(mode, request.run.rules)
        .with_start_recipe(request.recipe.clone())
        .with_last_stage(last_stage(&request.until));
    if let Some(root) = &request.source_root {
        eco = eco.with_source_root(root.clone());
    }
    // The recipe's patches beside it (`patch("fix.patch")`) load with it.
    if let Some(dir) = package_dir_of(&request.recipe_path) {
        eco = eco.with_package_files(dir);
    }
    if let Some(kb) = kb {
        eco = eco.with_knowledge(kb);
    }
    let how = match (model.id() == "none", request.run.rules, mode) {
        (true, false, _) => "nothing (no model, no rules)",
        (true, true, _) => "the rules",
        (false, false, RepairMode::Edits) => "the model's edits",
        (false, false, RepairMode::Rewrite) => "the model's rewrites",
        (false, true, RepairMode::Edits) => "the rules, then the model's edits",
        (false, true, RepairMode::Rewrite) => "the rules, then the model's rewrites",
    };
    say(&format!(
        "{package}: repairing {} until {}, Spack {target}, by {how}, sandbox {}",
        request.recipe_path.display(),
        request.until,
        if prepared.sandbox.is_sandboxed() {
            "bubblewrap"
        } else {
            "off"
        },
    ));
    let task = Task {
        name: package.clone(),
        repo_root: prepared.run_dir.clone(),
        version: None,
        references: Default::default(),
        context: serde_json::json!({"recipe": request.recipe_path.display().to_string()}),
    };
    let options = agent_options(&request.run, tools, cancel);
    let report = Agent::run(&task, &eco, model, &options, sink)
        .map_err(|e| RunError::environment(e.to_string()))?;
    Ok(RepairRun { report, prepared })
}
