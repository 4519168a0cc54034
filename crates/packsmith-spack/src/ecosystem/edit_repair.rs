//! Repair by structured edits. A small model picks a few typed edits
//! from a menu that fits the failure, with the candidate values packsmith
//! found (package names that exist, the recipe's variants, base classes),
//! under a grammar; packsmith applies them at exact positions and checks
//! the result before Spack runs. Before any model call, the rules try the
//! candidate edits themselves, cheapest first.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Mutex;

use packsmith_agent::{Failure, Recipe, STATIC_CHECK};
use packsmith_core::chat::{ChatMessage, ChatRequest, OutputSchema};
use packsmith_spack_knowledge::check::{check, CheckOptions, Code, Severity};
use packsmith_spack_knowledge::edit::candidates::{
    menu_ops, rule_candidates, Candidate, RuleInput,
};
use packsmith_spack_knowledge::edit::schema::{edit_schema, Menu};
use packsmith_spack_knowledge::edit::{apply_edits_to, parse_edit_list, EditOp, OpKind};
use packsmith_spack_knowledge::kb::NameIndex;
use packsmith_spack_knowledge::recipe::{RecipeTree, Value as RecipeValue, VariantValues};
use packsmith_spack_knowledge::target::TargetSpack;
use serde::{Deserialize, Serialize};

use crate::diagnose::{FailureClass, SourceLanguage};

use super::build_config::{self, Template};
use super::edit_losses;
use super::error_lines::{self, ErrorLine};
use super::preprocessor_choice::{self, Choices};
use super::prompts::{self, ExampleHints};
use super::recipe_statement;
use super::source_walk;
use super::stages::{class_name, diagnosis_of};
use super::RECIPE_FILE;

/// How a model repairs a recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairMode {
    /// The whole recipe, written again (strong API models, SpackIt).
    Rewrite,
    /// A short JSON list of typed edits (small local models).
    Edits,
}

impl RepairMode {
    /// The default for a model: edits for a local (`local:`) model, whose
    /// 1.5B-parameter kind reads well and writes Spack's API badly;
    /// rewrites for the rest.
    pub fn default_for(model_id: &str) -> Self {
        if model_id.starts_with("local:") {
            Self::Edits
        } else {
            Self::Rewrite
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "rewrite" => Some(Self::Rewrite),
            "edits" => Some(Self::Edits),
            _ => None,
        }
    }
}

/// Most edits in one answer: a repair is a small change.
pub const MAX_EDITS: usize = 3;

/// Most rule candidates offered to the model as whole answers.
const MAX_SUGGESTIONS: usize = 4;

/// Recipe lines shown whole up to this count; longer recipes are cut to
/// the lines the failure and the edits touch.
const WHOLE_RECIPE_LINES: usize = 60;

/// The directives a cut recipe still shows, with the `with when(...)`
/// blocks around them.
const DIRECTIVES_SHOWN: [&str; 4] = ["depends_on", "variant", "conflicts", "requires"];

/// What the rules and the model tried in this run, so no candidate is
/// tried twice and the model is told what did not help.
#[derive(Debug, Default)]
pub struct RuleLog {
    seen: Mutex<HashSet<String>>,
    tried: Mutex<Vec<String>>,
    /// Operations whose made-up example the model answered verbatim: it
    /// cannot fill them in, so they leave its menu for the rest of the run.
    copied: Mutex<HashSet<OpKind>>,
}

impl RuleLog {
    fn tried(&self) -> Vec<String> {
        self.tried.lock().map(|t| t.clone()).unwrap_or_default()
    }

    fn copied(&self) -> HashSet<OpKind> {
        self.copied.lock().map(|c| c.clone()).unwrap_or_default()
    }
}

/// What the edit repair needs of the backend.
pub struct EditContext<'a> {
    pub package: &'a str,
    pub spack: TargetSpack,
    pub names: Option<&'a NameIndex>,
    /// The source tree, when there is one: `filter_file` edits must name
    /// one of its files and text that occurs in it.
    pub source: Option<&'a Path>,
}

/// What the static check finds in one version of the recipe, as the edit
/// repair weighs it.
struct Tally {
    errors: usize,
    /// Directives the recipe repeats word for word (PS701): an edit that
    /// adds one changes nothing Spack sees, so it is refused before a run.
    repeats: usize,
}

impl EditContext<'_> {
    fn tally(&self, tree: &RecipeTree) -> Tally {
        let opts = CheckOptions {
            spack: self.spack,
            names: self.names,
            package: Some(self.package),
        };
        let found = check(tree, &opts);
        Tally {
            errors: found
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count(),
            repeats: found.iter().filter(|d| d.code == Code::Duplicate).count(),
        }
    }

    fn rule_input<'s>(&'s self, tree: &'s RecipeTree, names: &'s [String]) -> RuleInput<'s> {
        RuleInput {
            tree,
            package: self.package,
            spack: self.spack,
            names: self.names,
            failure_names: names,
        }
    }
}

/// Names the failure mentions: the diagnosis's (unknown packages, missing
/// ones) and Python's undefined names.
fn failure_names(failure: &Failure) -> Vec<String> {
    let mut out: Vec<String> = diagnosis_of(failure)
        .map(|d| d.names.clone())
        .unwrap_or_default();
    let mut rest = failure.excerpt.as_str();
    while let Some(at) = rest.find("name '") {
        let after = &rest[at + 6..];
        if let Some(end) = after.find('\'') {
            if after[end..].starts_with("' is not defined") {
                out.push(after[..end].to_string());
            }
            rest = &after[end..];
        } else {
            break;
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The failure's class: the backend's, also when the loop marks the
/// failure `unchanged` (the same recipe again: the same error, the same
/// edits fit).
fn class_of(failure: &Failure) -> String {
    diagnosis_of(failure).map_or_else(|| failure.class.clone(), class_name)
}

/// The rule candidates that apply to `recipe` and leave it with fewer
/// static-check errors (none, for a failure past the check), each with
/// the text it makes, best first.
fn usable_candidates(
    ctx: &EditContext,
    recipe: &RecipeTree,
    failure: &Failure,
) -> Vec<(Candidate, String)> {
    let names = failure_names(failure);
    let before = if failure.stage == STATIC_CHECK {
        ctx.tally(recipe).errors
    } else {
        1
    };
    rule_candidates(&ctx.rule_input(recipe, &names))
        .into_iter()
        .filter_map(|c| {
            let fixed = apply_edits_to(recipe, &c.edits).ok()?;
            let after = ctx.tally(&RecipeTree::parse(&fixed, RECIPE_FILE));
            (after.errors < before).then_some((c, fixed))
        })
        .collect()
}

/// The first usable rule candidate not tried before: the fixed text and
/// why.
pub fn rule_fix(
    ctx: &EditContext,
    log: &RuleLog,
    recipe: &str,
    failure: &Failure,
) -> Option<(String, String)> {
    let tree = RecipeTree::parse(recipe, RECIPE_FILE);
    for (candidate, fixed) in usable_candidates(ctx, &tree, failure) {
        let fresh = log
            .seen
            .lock()
            .map(|mut s| s.insert(fixed.clone()))
            .unwrap_or(false);
        if !fresh {
            continue;
        }
        let summary: Vec<String> = candidate.edits.iter().map(EditOp::summary).collect();
        if let Ok(mut t) = log.tried.lock() {
            t.push(summary.join(" "));
        }
        return Some((fixed, format!("rule: {}", candidate.why)));
    }
    None
}

/// Whole answers for the model to choose from: the usable rule
/// candidates not tried yet (with the rules off, all of them), each as
/// the JSON to answer with and why. A small model picks well from such a
/// list and writes edits of its own badly.
fn suggestions(
    ctx: &EditContext,
    log: &RuleLog,
    recipe: &RecipeTree,
    failure: &Failure,
) -> Vec<String> {
    let seen = log.seen.lock().map(|s| s.clone()).unwrap_or_default();
    usable_candidates(ctx, recipe, failure)
        .into_iter()
        .filter(|(_, fixed)| !seen.contains(fixed))
        .take(MAX_SUGGESTIONS)
        .enumerate()
        .map(|(i, (c, _))| {
            let edits: Vec<String> = c.edits.iter().map(EditOp::summary).collect();
            // The rules rank their candidates; the model is told which
            // they would try first.
            let rank = if i == 0 { "most likely: " } else { "" };
            format!("{{\"edits\": [{}]}} ({rank}{})", edits.join(", "), c.why)
        })
        .collect()
}

/// The recipe's variants as the prompt shows them: name, and the values
/// or kind a default must take.
fn variant_lines(recipe: &RecipeTree) -> Vec<String> {
    recipe
        .recipe()
        .variants
        .iter()
        .map(|v| match (&v.values, &v.default) {
            (Some(VariantValues::Items(items)), _) => {
                let values: Vec<String> = items.iter().map(|i| i.to_text()).collect();
                format!("{} (values: {})", v.name, values.join(", "))
            }
            (_, Some(RecipeValue::Bool(_))) | (None, None) => format!("{} (true or false)", v.name),
            _ => v.name.clone(),
        })
        .collect()
}

/// What the model is offered: the menu, the rules' own edits as examples
/// of their kinds, and the source lines the failure names.
struct Offer {
    menu: Menu,
    found: Vec<EditOp>,
    lines: Vec<ErrorLine>,
    templates: Vec<Template>,
    /// The macros one of which defines a name the compiler could not find.
    choices: Option<Choices>,
    build_tool: bool,
    recipe_line: Option<u32>,
}

impl Offer {
    fn found(&self, kind: OpKind) -> Option<&EditOp> {
        self.found.iter().find(|e| e.kind() == kind)
    }

    fn hints(&self) -> ExampleHints<'_> {
        ExampleHints {
            line: self.lines.iter().find(|l| l.code.is_some()),
            build_tool: self.build_tool,
            recipe_line: self.recipe_line,
        }
    }
}

/// The menu for a failure: the operations that fit and the values found.
fn menu_for(ctx: &EditContext, log: &RuleLog, recipe: &RecipeTree, failure: &Failure) -> Offer {
    let names = failure_names(failure);
    let candidates = rule_candidates(&ctx.rule_input(recipe, &names));
    let parsed = recipe.recipe();
    let mut menu = Menu {
        ops: menu_ops(&candidates, &class_of(failure)),
        dependencies: parsed.dependencies.iter().map(|d| d.name.clone()).collect(),
        variants: parsed.variants.iter().map(|v| v.name.clone()).collect(),
        current_bases: parsed.bases.clone(),
        max_edits: MAX_EDITS,
        ..Menu::default()
    };
    for c in &candidates {
        for e in &c.edits {
            match e {
                EditOp::RenameDependency { to, .. } => menu.packages.push(to.clone()),
                EditOp::AddVariant { name, .. } => menu.new_variants.push(name.clone()),
                EditOp::ChangeBaseClass { to, .. } => menu.base_classes.push(to.clone()),
                _ => {}
            }
        }
    }
    // A rename needs somewhere to go; without candidates it is not offered.
    if menu.packages.is_empty() {
        menu.ops.retain(|o| *o != OpKind::RenameDependency);
    }
    for list in [
        &mut menu.dependencies,
        &mut menu.variants,
        &mut menu.packages,
        &mut menu.new_variants,
        &mut menu.base_classes,
    ] {
        list.sort();
        list.dedup();
        list.retain(|s| !s.is_empty());
    }
    if menu.dependencies.is_empty() {
        menu.ops.retain(|o| *o != OpKind::RemoveDependency);
    }
    if menu.base_classes.is_empty() {
        menu.ops.retain(|o| *o != OpKind::ChangeBaseClass);
    }
    if parsed.imports.iter().any(|i| i.module == "spack.package") {
        menu.ops.retain(|o| *o != OpKind::AddSpackImport);
    }
    if menu.variants.is_empty() {
        menu.ops.retain(|o| *o != OpKind::SetVariantDefault);
    }
    // A `filter_file` edits a file the failure names, when it names any.
    let lines = if menu.ops.contains(&OpKind::FilterFile) {
        let autoreconf = parsed
            .attributes
            .iter()
            .any(|a| a.name == "force_autoreconf" && a.value == RecipeValue::Bool(true));
        error_lines::named(&failure.excerpt, ctx.source, autoreconf)
    } else {
        Vec::new()
    };
    for line in &lines {
        if !menu.files.contains(&line.file) {
            menu.files.push(line.file.clone());
        }
    }
    // A build tool whose package the recipe declares is not missing as a
    // package: the build calls it by another name (`python`, where the
    // package installs `python3`), so declaring it again is no repair.
    let declared = diagnosis_of(failure).is_some_and(|d| {
        d.class == FailureClass::MissingBuildTool
            && !d.names.is_empty()
            && d.names.iter().all(|n| menu.dependencies.contains(n))
    });
    if declared {
        menu.ops.retain(|o| *o != OpKind::AddDependency);
    }
    // A build file make includes and the source lacks: the templates the
    // project ships for it, to copy one of.
    let mut templates = Vec::new();
    if let (Some(d), Some(root)) = (diagnosis_of(failure), ctx.source) {
        if let (FailureClass::MissingBuildConfig, Some(target)) = (d.class, d.names.first()) {
            let mpi = parsed.dependencies.iter().any(|d| d.name == "mpi");
            let found = build_config::templates(root, target, mpi);
            menu.copy_to = vec![found.target];
            menu.templates = found.templates.iter().map(|t| t.path.clone()).collect();
            templates = found.templates;
        }
    }
    if templates.is_empty() {
        menu.ops.retain(|o| *o != OpKind::CopyFile);
    }
    // A name the source defines only under macros the build leaves unset:
    // which one to set is the whole job, so it is the only edit offered.
    let choices = match (diagnosis_of(failure), ctx.source) {
        (Some(d), Some(root)) if d.class == FailureClass::Compilation => {
            // A macro the recipe already passes did not help.
            let source = recipe.source();
            preprocessor_choice::find(&d.undefined, root, |flag| {
                source.contains(&format!("\"{flag}\""))
            })
        }
        _ => None,
    };
    if let Some(found) = &choices {
        menu.ops = vec![OpKind::AddCompilerFlag];
        menu.flag_values = found.choices.iter().map(|c| c.flag()).collect();
        menu.flag_kinds = vec![found.flags.to_string()];
    }
    let copied = log.copied();
    if menu.ops.iter().any(|o| !copied.contains(o)) {
        menu.ops.retain(|o| !copied.contains(o));
    }
    let found = candidates.into_iter().flat_map(|c| c.edits).collect();
    let build_tool =
        diagnosis_of(failure).is_some_and(|d| d.class == FailureClass::MissingBuildTool);
    Offer {
        menu,
        found,
        lines,
        templates,
        choices,
        build_tool,
        recipe_line: recipe_statement::named(recipe.source(), &failure.excerpt),
    }
}

/// The recipe with line numbers; a long one cut to its header, its
/// directives and the lines around `focus`. What is a header or a
/// directive line comes from the parsed recipe, not from the text.
fn numbered(recipe: &RecipeTree, focus: &[u32]) -> String {
    let lines: Vec<&str> = recipe.source().lines().collect();
    let parsed = recipe.recipe();
    let layout = recipe.layout();
    let mut landmarks: HashSet<u32> = HashSet::new();
    landmarks.extend(parsed.imports.iter().map(|i| i.line));
    landmarks.extend(parsed.methods.iter().map(|m| m.line));
    landmarks.extend(layout.classes.iter().map(|c| c.line));
    for call in layout.calls() {
        if DIRECTIVES_SHOWN.contains(&call.name.as_str()) {
            landmarks.insert(call.line);
        }
        landmarks.extend(call.when_stack.iter().map(|w| w.line));
    }
    let keep = |i: usize| {
        let n = (i + 1) as u32;
        lines.len() <= WHOLE_RECIPE_LINES
            || focus.iter().any(|f| n + 3 >= *f && n <= f + 3)
            || landmarks.contains(&n)
    };
    let mut out = String::new();
    let mut gap = false;
    for (i, line) in lines.iter().enumerate() {
        if keep(i) {
            out.push_str(&format!("{:>3}| {line}\n", i + 1));
            gap = false;
        } else if !gap {
            out.push_str("   | ...\n");
            gap = true;
        }
    }
    out
}

/// The lines a failure points at: the diagnostics' and the diagnosis's.
fn focus_lines(failure: &Failure) -> Vec<u32> {
    let mut out: Vec<u32> = failure.diagnostics.iter().filter_map(|d| d.line).collect();
    if let Some(line) = diagnosis_of(failure).and_then(|d| d.recipe_line) {
        out.push(line);
    }
    out
}

/// The request for an edit list repairing `recipe`.
pub fn edits_request(
    ctx: &EditContext,
    log: &RuleLog,
    recipe: &Recipe,
    failure: &Failure,
    seed: u64,
) -> ChatRequest {
    let tree = RecipeTree::parse(&recipe.text, RECIPE_FILE);
    let offer = menu_for(ctx, log, &tree, failure);
    let menu = &offer.menu;
    let mut focus = focus_lines(failure);
    focus.extend(offer.recipe_line);
    let excerpt: String = failure
        .excerpt
        .lines()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    let user = prompts::repair_edits(&prompts::EditsContext {
        package: ctx.package,
        stage: &failure.stage,
        class: &class_of(failure),
        excerpt: &packsmith_agent::clip_chars(&excerpt, 1500),
        recipe: &numbered(&tree, &focus),
        ops: menu
            .ops
            .iter()
            .map(|o| prompts::op_line(*o, menu, offer.found(*o), offer.hints()))
            .collect(),
        suggestions: suggestions(ctx, log, &tree, failure),
        error_lines: offer.lines.iter().map(ToString::to_string).collect(),
        templates: offer.templates.iter().map(ToString::to_string).collect(),
        choice_name: offer.choices.as_ref().map_or("", |c| c.name.as_str()),
        choices: offer
            .choices
            .iter()
            .flat_map(|c| c.choices.iter().map(ToString::to_string))
            .collect(),
        packages: &menu.packages,
        variants: &variant_lines(&tree),
        new_variants: &menu.new_variants,
        tried: &log.tried(),
    });
    let mut request = ChatRequest::new(
        Some(prompts::system_edits(ctx.spack)),
        vec![ChatMessage::user(user)],
    );
    request.output_schema = Some(OutputSchema {
        name: "recipe_edits".into(),
        schema: edit_schema(menu),
    });
    request.temperature = Some(0.2);
    request.max_tokens = Some(256);
    request.seed = Some(seed);
    request
}

/// Applies a model's edit list to `start`; the result must not have more
/// static-check errors than `start` had.
pub fn apply_answer(
    ctx: &EditContext,
    log: &RuleLog,
    start: &str,
    raw: &str,
) -> Result<String, String> {
    let mut list = parse_edit_list(raw)?;
    read_as_regex(ctx.source, &mut list.edits);
    if list.edits.is_empty() {
        return Err("the edit list is empty".into());
    }
    if list.edits.len() > MAX_EDITS {
        return Err(format!("at most {MAX_EDITS} edits, please"));
    }
    let summary = list
        .edits
        .iter()
        .map(EditOp::summary)
        .collect::<Vec<_>>()
        .join(" ");
    // Whatever happens to them, these edits go on the list of edits tried:
    // a refused answer is not asked for again with the same prompt, and an
    // applied one that did not fix the recipe is not proposed again.
    let start = RecipeTree::parse(start, RECIPE_FILE);
    let placeholders = prompts::placeholder_examples();
    let copied = list.edits.iter().find(|e| placeholders.contains(e));
    if let (Some(e), Ok(mut kinds)) = (copied, log.copied.lock()) {
        kinds.insert(e.kind());
    }
    let outcome = match (copied, list.edits.iter().find_map(prompts::unfilled)) {
        (Some(e), _) => Err(format!(
            "{} is the prompt's example, not a repair of this failure",
            e.summary()
        )),
        (None, Some(why)) => Err(why),
        (None, None) => Ok(()),
    }
    .and_then(|()| source_check(ctx.source, &list.edits))
    .and_then(|()| edit_losses::unbalanced_filter(&list.edits).map_or(Ok(()), Err))
    .and_then(|()| apply_edits_to(&start, &list.edits).map_err(|e| e.to_string()))
    .and_then(|fixed| {
        let before = ctx.tally(&start);
        let fixed_tree = RecipeTree::parse(&fixed, RECIPE_FILE);
        let after = ctx.tally(&fixed_tree);
        if after.errors > before.errors {
            // A small model rewrites a build file's line with replace_line.
            let recipe_only = if list
                .edits
                .iter()
                .any(|e| matches!(e, EditOp::ReplaceLine { .. }))
            {
                "; replace_line rewrites a line of the recipe (package.py) with Python, \
                 never a build file's: filter_file changes those"
            } else {
                ""
            };
            Err(format!(
                "the edits add static-check errors ({} before, {} after){recipe_only}",
                before.errors, after.errors
            ))
        } else if after.repeats > before.repeats {
            Err("the edits add a directive the recipe already has".into())
        } else {
            let lost =
                edit_losses::dropped_by_replace(start.recipe(), fixed_tree.recipe(), &list.edits);
            if lost.is_empty() {
                Ok(fixed)
            } else {
                Err(format!(
                    "replace_line overwrites {} of the recipe; to add a line, use the edit that \
                     adds it (add_dependency, …) and leave the other lines as they are",
                    lost.join(", ")
                ))
            }
        }
    });
    if let Ok(mut t) = log.tried.lock() {
        t.push(match &outcome {
            Ok(_) => summary,
            Err(why) => format!("{summary} (refused: {why})"),
        });
    }
    outcome
}

/// A `filter_file` text that does not occur as written but matches as a
/// regular expression is one: a small model writes `python.*` in the
/// field named `regex` and leaves `literal` at its default.
fn read_as_regex(source: Option<&Path>, edits: &mut [EditOp]) {
    let Some(root) = source else {
        return;
    };
    for edit in edits {
        let EditOp::FilterFile {
            file,
            regex,
            literal,
            ..
        } = edit
        else {
            continue;
        };
        let special = regex.contains(['.', '*', '+', '?', '[', '^', '$', '\\', '(', '|']);
        if !*literal || !special {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(&*file)) else {
            continue;
        };
        if !text.contains(regex.as_str())
            && regex::Regex::new(regex).is_ok_and(|r| r.is_match(&text))
        {
            *literal = false;
        }
    }
}

/// Every `filter_file` edit names a file of the source tree holding the
/// text it replaces (a small model copies the example's `Makefile` into a
/// CMake project). Without a source tree there is nothing to check.
fn source_check(source: Option<&Path>, edits: &[EditOp]) -> Result<(), String> {
    let Some(root) = source else {
        return Ok(());
    };
    for (i, edit) in edits.iter().enumerate() {
        if let EditOp::CopyFile { from, .. } = edit {
            if !root.join(from).is_file() {
                return Err(format!(
                    "edit {} (copy_file): the source has no file `{from}`{}",
                    i + 1,
                    top_files(root)
                ));
            }
            continue;
        }
        if let EditOp::AddCompilerFlag { flags, .. } = edit {
            let language = SourceLanguage::from_flags(flags);
            if let Some(language) = language.filter(|l| !has_sources(root, l.compiled_extensions()))
            {
                return Err(format!(
                    "edit {} (add_compiler_flag): the source has no {} file for {flags} to reach",
                    i + 1,
                    language.name()
                ));
            }
            continue;
        }
        let EditOp::FilterFile {
            file,
            regex,
            literal,
            ..
        } = edit
        else {
            continue;
        };
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).map_err(|_| {
            format!(
                "edit {} (filter_file): the source has no file `{file}`{}",
                i + 1,
                top_files(root)
            )
        })?;
        let found = if *literal {
            text.contains(regex.as_str())
        } else {
            // Python's and Rust's regexes agree on what such edits use;
            // one Rust cannot read is let through to Spack.
            regex::Regex::new(regex).map_or(true, |r| r.is_match(&text))
        };
        if !found {
            return Err(format!(
                "edit {} (filter_file): `{regex}` does not occur in `{file}`",
                i + 1
            ));
        }
    }
    Ok(())
}

/// Most entries read looking for a source file of a language.
const MAX_ENTRIES: usize = 20_000;

/// Whether the tree at `root` holds a file with one of `exts` (a flag for a
/// compiler the project never runs changes nothing: a small model answered
/// a Python package's failure with a Fortran flag, the menu's example).
fn has_sources(root: &Path, exts: &[&str]) -> bool {
    let mut found = false;
    let whole = source_walk::walk_files(root, MAX_ENTRIES, |path| {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        found = exts.contains(&ext);
        found
    });
    // Too large to tell: let Spack decide.
    found || !whole
}

/// `" (its top files: a, b, …)"`: what a model could name instead.
fn top_files(root: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.path().is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    if names.is_empty() {
        return String::new();
    }
    names.sort();
    names.truncate(12);
    format!(" (its top files: {})", names.join(", "))
}

/// The nudge after an edit list that changed nothing.
pub const UNCHANGED_EDITS: &str =
    "Those edits change nothing that fixes the error. Choose different edits from the list.";

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use packsmith_agent::Diagnostic;

    use super::*;

    const BROKEN: &str = r#"from spack.package import *


class Heatsim(CMakePackage):
    """A heat equation solver."""

    homepage = "https://example.org/heatsim"
    url = "https://example.org/heatsim-1.0.tar.gz"

    version("1.0", sha256="0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

    depends_on("cmake@3.16:", type="build")
    depends_on("zlib_api")
"#;

    fn names() -> NameIndex {
        NameIndex {
            packages: ["cmake", "zlib"]
                .into_iter()
                .map(String::from)
                .collect::<HashSet<_>>(),
            virtuals: HashMap::from([("zlib-api".to_string(), vec!["zlib".to_string()])]),
            ..Default::default()
        }
    }

    fn static_failure() -> Failure {
        Failure::from_diagnostics(vec![Diagnostic {
            severity: packsmith_agent::Severity::Error,
            code: "unknown-dependency".into(),
            message: "`zlib_api` is neither a package nor a virtual".into(),
            line: Some(13),
        }])
    }

    #[test]
    fn local_models_repair_by_edits_and_api_models_by_rewrites() {
        assert_eq!(
            RepairMode::default_for("local:qwen2.5-coder-1.5b"),
            RepairMode::Edits
        );
        assert_eq!(RepairMode::default_for("openai:gpt-5"), RepairMode::Rewrite);
        assert_eq!(RepairMode::parse("edits"), Some(RepairMode::Edits));
        assert_eq!(RepairMode::parse("patch"), None);
    }

    #[test]
    fn the_request_offers_the_menu_under_a_schema_and_the_numbered_recipe() {
        let idx = names();
        let ctx = context(&idx, None);
        let request = edits_request(
            &ctx,
            &RuleLog::default(),
            &Recipe::new("package.py", BROKEN),
            &static_failure(),
            3,
        );
        let schema = &request.output_schema.as_ref().expect("a schema").schema;
        let ops: Vec<&str> = schema["properties"]["edits"]["items"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["properties"]["op"]["const"].as_str().unwrap())
            .collect();
        assert!(
            ops.contains(&"rename_dependency") && ops.contains(&"replace_line"),
            "{ops:?}"
        );
        let user = &request.messages[0].content;
        assert!(user.contains(" 13|     depends_on(\"zlib_api\")"), "{user}");
        assert!(user.contains("Candidate package names: zlib-api"), "{user}");
        // The rule's fix, not tried yet, is offered whole, and is the
        // example of its kind.
        assert!(
            user.contains(r#"- {"edits": [{"op":"rename_dependency","from":"zlib_api","to":"zlib-api"}]} (most likely: "#),
            "{user}"
        );
        assert!(
            user.contains(r#"- {"op":"rename_dependency","from":"zlib_api","to":"zlib-api"}: "#),
            "{user}"
        );
        assert!(request.max_tokens.is_some_and(|m| m <= 256));
        assert_eq!(request.seed, Some(3));
    }

    #[test]
    fn answers_are_applied_or_refused_with_a_reason() {
        let idx = names();
        let ctx = context(&idx, None);
        let log = RuleLog::default();
        let fixed = apply_answer(
            &ctx,
            &log,
            BROKEN,
            r#"{"edits": [{"op": "rename_dependency", "from": "zlib_api", "to": "zlib-api"}]}"#,
        )
        .unwrap();
        assert!(fixed.contains("depends_on(\"zlib-api\")"));
        // The next prompt lists it among the edits tried.
        assert_eq!(log.tried().len(), 1);
        let worse = apply_answer(
            &ctx,
            &RuleLog::default(),
            BROKEN,
            r#"{"edits": [{"op": "add_dependency", "spec": "heatsim"}]}"#,
        );
        assert!(worse.unwrap_err().contains("add static-check errors"));
        // Refused answers are listed too, with the reason.
        let log = RuleLog::default();
        let _ = apply_answer(
            &ctx,
            &log,
            BROKEN,
            r#"{"edits": [{"op": "add_dependency", "spec": "heatsim"}]}"#,
        );
        assert!(
            log.tried()[0]
                .ends_with("(refused: the edits add static-check errors (1 before, 2 after))"),
            "{:?}",
            log.tried()
        );
        let wrong = apply_answer(
            &ctx,
            &RuleLog::default(),
            BROKEN,
            r#"{"edits": [{"op": "remove_dependency", "name": "boost"}]}"#,
        );
        assert!(wrong.unwrap_err().contains("no depends_on(\"boost\")"));
        assert!(apply_answer(&ctx, &RuleLog::default(), BROKEN, "I would rename it.").is_err());
        // A directive the recipe has, added again, changes nothing.
        let again = apply_answer(
            &ctx,
            &RuleLog::default(),
            BROKEN,
            r#"{"edits": [{"op": "add_conflicts", "spec": "%gcc@:7", "msg": "needs C++14"},
                {"op": "add_conflicts", "spec": "%gcc@:7", "msg": "needs C++14"}]}"#,
        );
        assert!(
            again.as_ref().unwrap_err().contains("already has"),
            "{again:?}"
        );
        // The prompt's made-up example, answered verbatim, was copied.
        let copied =
            r#"{"edits": [{"op": "add_conflicts", "spec": "%gcc@:8", "msg": "needs C++17"}]}"#;
        let err = apply_answer(&ctx, &RuleLog::default(), BROKEN, copied).unwrap_err();
        assert!(err.contains("the prompt's example"), "{err}");
        // A line's new text is left to fill; answered as is, it was copied.
        let unfilled = r#"{"edits": [{"op": "replace_line", "line": 12, "text": "<the statement as it should read>"}]}"#;
        let err = apply_answer(&ctx, &RuleLog::default(), BROKEN, unfilled).unwrap_err();
        assert!(err.contains("new text of line 12, to fill in"), "{err}");
        // A line added over the homepage drops it: refused, with what it drops.
        let over = apply_answer(
            &ctx,
            &RuleLog::default(),
            BROKEN,
            r#"{"edits": [{"op": "replace_line", "line": 7, "text": "    depends_on(\"zlib\")"}]}"#,
        );
        assert!(
            over.as_ref().unwrap_err().contains("overwrites homepage"),
            "{over:?}"
        );
    }

    #[test]
    fn a_filter_text_that_only_matches_as_a_regex_is_read_as_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Makefile.in"), "\tpython $< $@\n").unwrap();
        let filter = |regex: &str| EditOp::FilterFile {
            file: "Makefile.in".into(),
            regex: regex.into(),
            repl: "python3 $< $@".into(),
            literal: true,
        };
        let mut edits = vec![filter("python.*"), filter("python $< $@"), filter("perl.*")];
        read_as_regex(Some(dir.path()), &mut edits);
        let literals: Vec<bool> = edits
            .iter()
            .map(|e| matches!(e, EditOp::FilterFile { literal: true, .. }))
            .collect();
        // Found as written, or matching nothing either way: left literal.
        assert_eq!(literals, [false, true, true]);
        assert!(source_check(Some(dir.path()), &edits[..2]).is_ok());
    }

    #[test]
    fn a_build_file_line_written_into_the_recipe_is_refused_with_the_edit_that_fits() {
        let idx = names();
        let ctx = context(&idx, None);
        let answer =
            r#"{"edits": [{"op": "replace_line", "line": 11, "text": "    python3 $< $@"}]}"#;
        let err = apply_answer(&ctx, &RuleLog::default(), BROKEN, answer).unwrap_err();
        assert!(err.contains("add static-check errors"), "{err}");
        assert!(err.contains("filter_file changes those"), "{err}");
    }

    #[test]
    fn the_line_example_points_at_the_statement_the_failure_names() {
        let idx = names();
        let ctx = context(&idx, None);
        let fetch = Failure::new(
            "install",
            "fetch",
            "==> Error: FetchError: All fetchers failed for spack-stage-heatsim-\
             0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        );
        let request = edits_request(
            &ctx,
            &RuleLog::default(),
            &Recipe::new("package.py", BROKEN),
            &fetch,
            1,
        );
        let user = &request.messages[0].content;
        assert!(
            user.contains(
                r#"{"op": "replace_line", "line": 10, "text": "<the statement as it should read>"}"#
            ),
            "{user}"
        );
    }

    #[test]
    fn an_operation_whose_example_was_copied_leaves_the_menu() {
        let idx = names();
        let ctx = context(&idx, None);
        let offered = |log: &RuleLog| -> Vec<String> {
            let request = edits_request(
                &ctx,
                log,
                &Recipe::new("package.py", BROKEN),
                &Failure::new(
                    "install",
                    "compilation",
                    "error: 'auto_ptr' is not a member of 'std'",
                ),
                1,
            );
            let schema = &request.output_schema.as_ref().expect("a schema").schema;
            schema["properties"]["edits"]["items"]["oneOf"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["properties"]["op"]["const"].as_str().unwrap().to_string())
                .collect()
        };
        let log = RuleLog::default();
        assert!(offered(&log).contains(&"add_conflicts".to_string()));
        let copied =
            r#"{"edits": [{"op": "add_conflicts", "spec": "%gcc@:8", "msg": "needs C++17"}]}"#;
        assert!(apply_answer(&ctx, &log, BROKEN, copied).is_err());
        let now = offered(&log);
        assert!(!now.contains(&"add_conflicts".to_string()), "{now:?}");
        assert!(now.contains(&"add_compiler_flag".to_string()), "{now:?}");
    }

    #[test]
    fn a_rule_fix_is_tried_once() {
        let idx = names();
        let ctx = context(&idx, None);
        let log = RuleLog::default();
        let (fixed, why) = rule_fix(&ctx, &log, BROKEN, &static_failure()).expect("a rule");
        assert!(fixed.contains("depends_on(\"zlib-api\")"), "{fixed}");
        assert!(why.starts_with("rule: "));
        assert_eq!(log.tried().len(), 1);
        assert!(rule_fix(&ctx, &log, BROKEN, &static_failure()).is_none());
        // Once tried, it is no longer suggested to the model.
        let request = edits_request(
            &ctx,
            &log,
            &Recipe::new("package.py", BROKEN),
            &static_failure(),
            1,
        );
        let user = &request.messages[0].content;
        assert!(!user.contains("rules suggest"), "{user}");
        assert!(user.contains("already tried"), "{user}");
    }

    #[test]
    fn a_filter_file_must_name_a_file_of_the_source_and_text_in_it() {
        let src = tempfile::tempdir().unwrap();
        std::fs::write(
            src.path().join("CMakeLists.txt"),
            "project(h)\nadd_subdirectory(tests)\n",
        )
        .unwrap();
        let filter = |file: &str, regex: &str| EditOp::FilterFile {
            file: file.into(),
            regex: regex.into(),
            repl: "x".into(),
            literal: true,
        };
        let root = Some(src.path());
        let err = source_check(root, &[filter("Makefile", "CC = gcc")]).unwrap_err();
        assert!(
            err.contains("no file `Makefile`") && err.contains("CMakeLists.txt"),
            "{err}"
        );
        let err = source_check(root, &[filter("CMakeLists.txt", "CC = gcc")]).unwrap_err();
        assert!(err.contains("does not occur in `CMakeLists.txt`"), "{err}");
        assert!(source_check(root, &[filter("CMakeLists.txt", "add_subdirectory(tests)")]).is_ok());
        // A template to copy must be a file of the source.
        let copy = EditOp::CopyFile {
            from: "config.mk.template".into(),
            to: "config.mk".into(),
        };
        let err = source_check(root, std::slice::from_ref(&copy)).unwrap_err();
        assert!(err.contains("no file `config.mk.template`"), "{err}");
        std::fs::write(src.path().join("config.mk.template"), "FC = gfortran\n").unwrap();
        assert!(source_check(root, &[copy]).is_ok());
        // A flag for a compiler the project never runs.
        let flag = |flags: &str| EditOp::AddCompilerFlag {
            flag: "-fallow-argument-mismatch".into(),
            flags: flags.into(),
            when: "%gcc@10:".into(),
        };
        let err = source_check(root, &[flag("fflags")]).unwrap_err();
        assert!(err.contains("no Fortran file"), "{err}");
        std::fs::create_dir_all(src.path().join("src")).unwrap();
        std::fs::write(src.path().join("src/solver.F90"), "end\n").unwrap();
        assert!(source_check(root, &[flag("fflags")]).is_ok());
        assert!(source_check(root, &[flag("ldflags")]).is_ok());
        // No source tree (`packsmith repair`): nothing to check against.
        assert!(source_check(None, &[filter("Makefile", "CC = gcc")]).is_ok());
    }

    /// The edit repair's context for the test recipe.
    fn context<'a>(idx: &'a NameIndex, source: Option<&'a Path>) -> EditContext<'a> {
        EditContext {
            package: "heatsim",
            spack: TargetSpack::V0_23,
            names: Some(idx),
            source,
        }
    }

    /// The prompt and the schema of the edit repair of `failure` on a
    /// recipe the static check passes, with `source` as the source tree.
    fn edit_offer(source: &Path, failure: &Failure) -> (String, serde_json::Value) {
        let idx = names();
        let ctx = context(&idx, Some(source));
        let request = edits_request(
            &ctx,
            &RuleLog::default(),
            &Recipe::new("package.py", clean_recipe()),
            failure,
            1,
        );
        let schema = request.output_schema.expect("a schema").schema;
        (request.messages[0].content.clone(), schema)
    }

    /// BROKEN mended: no static-check finding, no candidate package.
    fn clean_recipe() -> String {
        BROKEN.replace("zlib_api", "zlib")
    }

    /// The schema of operation `op` in an edit list's schema.
    fn op_schema<'a>(schema: &'a serde_json::Value, op: &str) -> &'a serde_json::Value {
        schema["properties"]["edits"]["items"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["properties"]["op"]["const"] == op)
            .unwrap_or_else(|| panic!("{op} not offered"))
    }

    /// blitz's failure: make ran `python` in `blitz/generate`, where only
    /// `python3` is installed.
    fn tool_not_found(src: &Path) -> Failure {
        let generate = src.join("blitz/generate");
        std::fs::create_dir_all(&generate).unwrap();
        std::fs::write(
            generate.join("Makefile.in"),
            "stencil.cc: genstencils.py\n\tpython $< $@\n",
        )
        .unwrap();
        let excerpt = "make[4]: Entering directory '/s/spack-src/blitz/generate'\n/bin/bash: line 1: python: command not found\nmake[4]: *** [Makefile:624: stencil.cc] Error 127\n";
        super::super::stages::install_failure(FailureClass::MissingBuildTool, excerpt, &["python"])
    }

    #[test]
    fn a_build_tool_the_recipe_declares_is_not_offered_as_a_dependency_again() {
        let src = tempfile::tempdir().unwrap();
        let failure = tool_not_found(src.path());
        let idx = names();
        let ctx = context(&idx, Some(src.path()));
        let offered = |recipe: &str| {
            let request = edits_request(
                &ctx,
                &RuleLog::default(),
                &Recipe::new("package.py", recipe),
                &failure,
                1,
            );
            request.messages[0].content.contains("add_dependency")
        };
        let clean = clean_recipe();
        assert!(offered(&clean));
        let declared = clean.replacen(
            "    depends_on(",
            "    depends_on(\"python\", type=\"build\")\n    depends_on(",
            1,
        );
        assert_ne!(declared, clean);
        assert!(!offered(&declared));
    }

    #[test]
    fn the_examples_are_drawn_from_the_failure_and_left_to_fill() {
        let src = tempfile::tempdir().unwrap();
        let failure = tool_not_found(src.path());
        let (user, schema) = edit_offer(src.path(), &failure);
        // The filter_file example edits the line the failure names, not a
        // made-up `Makefile`; its replacement is the model's to write.
        assert!(
            user.contains(r#"{"op": "filter_file", "file": "blitz/generate/Makefile.in", "regex": "python $< $@", "repl": "<the text as it should read>"}"#),
            "{user}"
        );
        assert!(!user.contains("CC = gcc"), "{user}");
        // A program's name, not a compiler, is what the line needs.
        assert!(!user.contains("{spack_cc}"), "{user}");
        assert!(
            user.contains("with the name its package installs"),
            "{user}"
        );
        // A build tool is a build dependency; no package is made up.
        assert!(
            user.contains(r#"{"op": "add_dependency", "spec": "<package>", "type": ["build"]}"#),
            "{user}"
        );
        // The grammar only lets filter_file name the files the failure names.
        assert_eq!(
            op_schema(&schema, "filter_file")["properties"]["file"]["enum"],
            serde_json::json!(["blitz/generate/Makefile.in"])
        );
        let idx = names();
        let ctx = context(&idx, Some(src.path()));
        let clean = clean_recipe();
        // The example answered as it stands fills nothing in: refused.
        for (answer, why) in [
            (
                r#"{"op": "filter_file", "file": "blitz/generate/Makefile.in", "regex": "python $< $@", "repl": "<the text as it should read>"}"#,
                "to fill in",
            ),
            (
                r#"{"op": "filter_file", "file": "blitz/generate/Makefile.in", "regex": "python $< $@", "repl": "python $< $@"}"#,
                "with itself",
            ),
            (
                r#"{"op": "add_dependency", "spec": "<package>"}"#,
                "to fill in",
            ),
        ] {
            let err = apply_answer(
                &ctx,
                &RuleLog::default(),
                &clean,
                &format!(r#"{{"edits": [{answer}]}}"#),
            )
            .unwrap_err();
            assert!(err.contains(why), "{err}");
        }
        let fixed = apply_answer(
            &ctx,
            &RuleLog::default(),
            &clean,
            r#"{"edits": [{"op": "filter_file", "file": "blitz/generate/Makefile.in", "regex": "python $< $@", "repl": "python3 $< $@"}]}"#,
        )
        .expect("a filled-in edit applies");
        assert!(fixed.contains("python3 $< $@"), "{fixed}");
    }

    /// The edit offer for an install failure of `class` with `excerpt`,
    /// on a source holding the one build file `(path, text)`.
    fn offer_on_file(
        src: &Path,
        (path, text): (&str, &str),
        class: FailureClass,
        excerpt: &str,
    ) -> (String, serde_json::Value) {
        let file = src.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
        let failure = super::super::stages::install_failure(class, excerpt, &[]);
        edit_offer(src, &failure)
    }

    #[test]
    fn a_missing_install_path_is_offered_as_its_argument_in_the_statement() {
        let src = tempfile::tempdir().unwrap();
        let (user, _) = offer_on_file(
            src.path(),
            ("cmake/pack.cmake", "install( DIRECTORY \"${SRC}/cmake/hip\"\n   \"${SRC}/cmake/sycl\"\n   DESTINATION x )\n"),
            FailureClass::MissingSourceFile,
            "CMake Error at cmake_install.cmake:84 (file):\n  file INSTALL cannot find\n  \"/stage/spack-src/cmake/hip\":\n  No such file or directory.\n",
        );
        // The whole statement is shown; the example replaces the path alone.
        assert!(
            user.contains("- cmake/pack.cmake line 3: `DESTINATION x )`"),
            "{user}"
        );
        assert!(
            user.contains(r#"{"op": "filter_file", "file": "cmake/pack.cmake", "regex": "\"${SRC}/cmake/hip\"", "repl": "<the text as it should read>"}"#),
            "{user}"
        );
        let idx = names();
        let ctx = context(&idx, Some(src.path()));
        let fixed = apply_answer(
            &ctx,
            &RuleLog::default(),
            &clean_recipe(),
            r#"{"edits": [{"op": "filter_file", "file": "cmake/pack.cmake", "regex": "\"${SRC}/cmake/hip\"", "repl": ""}]}"#,
        )
        .expect("the path removed");
        assert!(fixed.contains("cmake/pack.cmake"), "{fixed}");
    }

    #[test]
    fn a_refused_value_keeps_the_made_up_example_and_names_its_file() {
        let src = tempfile::tempdir().unwrap();
        let (user, schema) = offer_on_file(
            src.path(),
            ("pyproject.toml", "[project]\nclassifiers = [\n    \"Programming Language :: Python :: 3.13\",\n]\n"),
            FailureClass::Compilation,
            "  ValueError: Unknown classifier in field `project.classifiers`: Programming Language :: Python :: 3.13\n",
        );
        assert!(
            user.contains("- pyproject.toml line 3: `\"Programming Language :: Python :: 3.13\",`"),
            "{user}"
        );
        assert!(user.contains(r#""regex": "CC = gcc""#), "{user}");
        assert_eq!(
            op_schema(&schema, "filter_file")["properties"]["file"]["enum"],
            serde_json::json!(["pyproject.toml"])
        );
    }

    #[test]
    fn several_templates_for_a_missing_build_file_are_the_models_to_choose_from() {
        let src = tempfile::tempdir().unwrap();
        let config = src.path().join("config");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            src.path().join("Makefile"),
            "include config/$(ARCH)_$(TYPE)\n",
        )
        .unwrap();
        // `sh` and `$(F90)` stand for compilers this machine has or may
        // have; one it lacks is not offered.
        std::fs::write(config.join("gnu_one"), "FC = sh\n").unwrap();
        std::fs::write(config.join("gnu_omp"), "FC = $(F90) -fopenmp\n").unwrap();
        std::fs::write(config.join("intel_one"), "FC = no-such-compiler-here\n").unwrap();
        let excerpt = "Makefile:1: config/_: No such file or directory\nmake: *** No rule to make target 'config/_'.  Stop.";
        let failure = super::super::stages::install_failure(
            FailureClass::MissingBuildConfig,
            excerpt,
            &["config/_"],
        );
        let (user, schema) = edit_offer(src.path(), &failure);
        assert!(
            user.contains(
                "- config/gnu_omp (`FC = $(F90) -fopenmp`)\n- config/gnu_one (`FC = sh`)\n"
            ),
            "{user}"
        );
        let copy = op_schema(&schema, "copy_file");
        assert_eq!(
            copy["properties"]["from"]["enum"],
            serde_json::json!(["config/gnu_omp", "config/gnu_one"])
        );
        assert_eq!(
            copy["properties"]["to"]["enum"],
            serde_json::json!(["config/_"])
        );
        let idx = names();
        let ctx = context(&idx, Some(src.path()));
        let clean = clean_recipe();
        let fixed = apply_answer(
            &ctx,
            &RuleLog::default(),
            &clean,
            r#"{"edits": [{"op": "copy_file", "from": "config/gnu_one", "to": "config/_"}]}"#,
        )
        .expect("a chosen template applies");
        let unfilled = apply_answer(
            &ctx,
            &RuleLog::default(),
            &clean,
            r#"{"edits": [{"op": "copy_file", "from": "<one of the templates listed>", "to": "config/_"}]}"#,
        );
        assert!(unfilled.unwrap_err().contains("to fill in"));
        assert!(
            fixed.contains("copy(\"config/gnu_one\", \"config/_\")"),
            "{fixed}"
        );
        // Without a source tree there is nothing to copy: not offered.
        let bare = EditContext {
            source: None,
            ..ctx
        };
        let request = edits_request(
            &bare,
            &RuleLog::default(),
            &Recipe::new("package.py", &clean),
            &failure,
            1,
        );
        assert!(!request.messages[0].content.contains("copy_file"));
    }

    #[test]
    fn a_name_defined_only_under_unset_macros_offers_those_macros_alone() {
        let src = tempfile::tempdir().unwrap();
        std::fs::write(
            src.path().join("stmt_fns.h"),
            "#if defined (EOS_7T)\n      sig(t,s)=c1\n#elif (EOS_17T)\n      sig(t,s)=c2\n#endif\n",
        )
        .unwrap();
        std::fs::write(
            src.path().join("mod_incupd.F90"),
            "#include \"stmt_fns.h\"\n",
        )
        .unwrap();
        let excerpt = "Error: Function 'sig' at (1) has no IMPLICIT type\nmake: *** [config/_:45: mod_incupd.o] Error 1";
        let failure =
            super::super::stages::install_failure(FailureClass::Compilation, excerpt, &[]);
        let (user, schema) = edit_offer(src.path(), &failure);
        assert!(
            user.contains("The source defines `sig` only where one of these macros is set")
                && user.contains("- -DEOS_7T (selects the definition at stmt_fns.h:2)\n- -DEOS_17T (selects the definition at stmt_fns.h:4)\n"),
            "{user}"
        );
        let items = schema["properties"]["edits"]["items"]["oneOf"]
            .as_array()
            .unwrap();
        assert_eq!(items.len(), 1, "the choice is the only edit offered");
        let flag = op_schema(&schema, "add_compiler_flag");
        assert_eq!(
            flag["properties"]["flag"]["enum"],
            serde_json::json!(["-DEOS_7T", "-DEOS_17T"])
        );
        assert_eq!(
            flag["properties"]["flags"]["enum"],
            serde_json::json!(["fflags"])
        );
        let idx = names();
        let ctx = context(&idx, Some(src.path()));
        let fixed = apply_answer(
            &ctx,
            &RuleLog::default(),
            &clean_recipe(),
            r#"{"edits": [{"op": "add_compiler_flag", "flag": "-DEOS_17T", "flags": "fflags", "when": ""}]}"#,
        )
        .expect("a chosen macro applies");
        assert!(fixed.contains("flags.append(\"-DEOS_17T\")"), "{fixed}");
        let unfilled = apply_answer(
            &ctx,
            &RuleLog::default(),
            &clean_recipe(),
            r#"{"edits": [{"op": "add_compiler_flag", "flag": "<one of the macros listed>", "flags": "fflags", "when": ""}]}"#,
        );
        assert!(unfilled.unwrap_err().contains("to fill in"));
        // With a macro of the chain passed, the choice is made: the usual
        // menu is back.
        let failed = Recipe::new("package.py", &fixed);
        let request = edits_request(&ctx, &RuleLog::default(), &failed, &failure, 1);
        assert!(!request.messages[0]
            .content
            .contains("(selects the definition"));
        let schema = request.output_schema.unwrap().schema;
        assert!(
            schema["properties"]["edits"]["items"]["oneOf"]
                .as_array()
                .unwrap()
                .len()
                > 1
        );
    }

    #[test]
    fn variants_are_shown_with_what_their_default_may_be() {
        let recipe = BROKEN.replace(
            "    depends_on(\"cmake",
            "    variant(\"build\", default=\"Ref\", values=(\"ref\", \"omp\"), description=\"b\")\n    variant(\"mpi\", default=True, description=\"m\")\n    depends_on(\"cmake",
        );
        assert_eq!(
            variant_lines(&RecipeTree::parse(&recipe, RECIPE_FILE)),
            ["build (values: ref, omp)", "mpi (true or false)"]
        );
    }

    #[test]
    fn a_long_recipe_is_cut_to_its_parsed_landmarks_and_the_focus() {
        // 70 comment lines push the recipe past the whole-recipe limit; a
        // comment that merely reads like a directive is not a landmark.
        let filler: String = (0..70).map(|i| format!("    # note {i}\n")).collect();
        let recipe = format!(
            "from spack.package import *\n\n\nclass Demo(CMakePackage):\n{filler}    \
             # depends_on(\"ghost\")\n    with when(\"+mpi\"):\n        \
             depends_on(\"mpi\")\n\n    def cmake_args(self):\n        return []\n"
        );
        let shown = numbered(&RecipeTree::parse(&recipe, RECIPE_FILE), &[40]);
        for kept in [
            "  1| from spack.package import *",
            "  4| class Demo(CMakePackage):",
            " 40|     # note 35",
            " 76|     with when(\"+mpi\"):",
            " 77|         depends_on(\"mpi\")",
            " 79|     def cmake_args(self):",
        ] {
            assert!(shown.contains(kept), "{kept:?} missing from\n{shown}");
        }
        assert!(!shown.contains("ghost"), "{shown}");
        assert!(!shown.contains("# note 60"), "{shown}");
    }
}
