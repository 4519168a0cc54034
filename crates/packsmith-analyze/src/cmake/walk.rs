//! Walks the parsed files the way a configure run would reach them:
//! follows `add_subdirectory` and `include`, tracks the enclosing
//! conditions, keeps plain variables for paths and versions, scans
//! function and macro bodies, and expands calls to user functions that
//! declare options or packages. Conditions are never evaluated: every
//! branch is visited and its facts carry the branch's condition.

use super::cond::{negate, render};
use super::extract;
use super::glob;
use super::lexer::{lex, Arg, Command};
use super::parser::{parse, Branch, BranchKind, LoopKind, Node};
use super::state::{FuncDef, ModuleQueue, Site, Walker};
use super::vars::{dir_value, resolve_path, split_list, PathError, Vars};
use crate::context::Ctx;
use packsmith_core::{CmakeFacts, Evidence};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Most CMake files read in one repository.
pub const MAX_FILES: usize = 4000;
/// Deepest chain of include / add_subdirectory.
const MAX_DEPTH: usize = 64;
/// Deepest chain of expanded user-function calls.
const MAX_CALL_DEPTH: usize = 4;
/// Commands walked inside expanded calls, over the whole repository.
const MAX_EXPANDED: usize = 200_000;
/// Items of a `foreach` tried when it drives add_subdirectory/include.
const MAX_LOOP_ITEMS: usize = 256;
/// "Not followed: uses variables" warnings kept per repository.
const MAX_UNRESOLVED_WARNINGS: usize = 20;
/// Values remembered per variable an `if` leaves without one value.
const MAX_ALTERNATIVES: usize = 1024;
/// Indexed paths `file(GLOB)` may look at over the whole repository.
const MAX_GLOB_SCANNED: usize = 500_000;

impl<'c, 'v> Walker<'c, 'v> {
    pub fn new(ctx: &'c mut Ctx<'v>) -> Self {
        Self {
            ctx,
            facts: CmakeFacts::default(),
            vars: Vars::new(),
            conds: Vec::new(),
            choices: Vec::new(),
            file: String::new(),
            in_def: 0,
            call_site: None,
            source_dir: String::new(),
            visited: HashSet::new(),
            include_stack: Vec::new(),
            functions: HashMap::new(),
            loops: Vec::new(),
            call_depth: 0,
            unrolling: 0,
            expanded: 0,
            unresolved_warnings: 0,
            limit_warned: false,
            defaults: HashSet::new(),
            alternatives: HashMap::new(),
            globbed: HashSet::new(),
            glob_budget: MAX_GLOB_SCANNED,
            modules: ModuleQueue::default(),
        }
    }

    /// Where a command's facts go, or None when they must be skipped: while
    /// expanding a call only commands that use the call's arguments give new
    /// facts (the rest were recorded when the definition was scanned).
    pub fn site(&self, cmd: &Command) -> Option<Site> {
        if let Some(call) = &self.call_site {
            if !cmd.args.iter().any(|a| a.text.contains("${")) {
                return None;
            }
            return Some(Site {
                evidence: call.clone(),
                conditions: self.conds.clone(),
            });
        }
        Some(Site {
            evidence: Evidence::new(&self.file, cmd.line),
            conditions: self.conds.clone(),
        })
    }

    /// Whether `-D<name>=…` on the command line sets the variable the
    /// build reads: an option, a cache variable, or a default under
    /// `if(NOT DEFINED <name>)`.
    pub fn overridable(&self, name: &str) -> bool {
        self.defaults.contains(name)
            || self.facts.options.iter().any(|o| o.name == name)
            || self.facts.cache_vars.iter().any(|v| v.name == name)
    }

    /// A path written in a condition (`"${CMAKE_CURRENT_SOURCE_DIR}/x"`),
    /// expanded, and the repository-relative path it names; None when it
    /// still uses unknown variables, leaves the repository or is the top.
    pub fn condition_path(&self, written: &str) -> Option<(String, String)> {
        let expanded = self.vars.expand(written.trim().trim_matches('"'));
        let rel = resolve_path("", &expanded).ok()?;
        (!rel.is_empty()).then_some((expanded, rel))
    }

    /// A name still holding `${…}` inside a function body is a parameter we
    /// cannot know; such facts are only recorded from expanded calls.
    pub fn name_ok(&self, name: &str) -> bool {
        !(name.is_empty() || (name.contains("${") && (self.in_def > 0 || self.call_site.is_some())))
    }

    /// Reads and walks the `CMakeLists.txt` of `dir` (empty: the top) as
    /// the top of the build.
    pub fn run_in(&mut self, dir: &str) {
        self.vars.set("CMAKE_CURRENT_SOURCE_DIR", dir_value(dir));
        self.vars.set("PROJECT_SOURCE_DIR", dir_value(dir));
        let root_file = if dir.is_empty() {
            "CMakeLists.txt".to_string()
        } else {
            format!("{dir}/CMakeLists.txt")
        };
        self.walk_file(&root_file, Some(dir.to_string()), 0);
    }

    /// The directory whose `CMakeLists.txt` is being walked.
    pub(super) fn source_dir(&self) -> &str {
        &self.source_dir
    }

    /// Whether a CMake file was read already (or is being read).
    pub(super) fn was_read(&self, rel: &str) -> bool {
        self.visited.contains(rel)
    }

    /// `new_dir` is Some for a directory's CMakeLists.txt (a new scope).
    pub(super) fn walk_file(&mut self, rel: &str, new_dir: Option<String>, at_line: u32) {
        if self.include_stack.iter().any(|f| f == rel) {
            let from = self.file.clone();
            self.ctx.warn(
                &from,
                at_line,
                format!("include cycle: {rel} is already being read; not read again"),
            );
            return;
        }
        if self.visited.contains(rel) {
            return;
        }
        if self.visited.len() >= MAX_FILES || self.include_stack.len() >= MAX_DEPTH {
            if !self.limit_warned {
                self.limit_warned = true;
                let from = self.file.clone();
                self.ctx.warn(
                    &from,
                    at_line,
                    format!(
                        "more than {MAX_FILES} CMake files or nesting deeper than {MAX_DEPTH}; \
                         {rel} and further files not read"
                    ),
                );
            }
            return;
        }
        self.visited.insert(rel.to_string());
        let Some(text) = self.ctx.read(rel) else {
            return;
        };
        let lexed = lex(&text);
        drop(text);
        let mut problems = lexed.problems;
        let nodes = parse(lexed.commands, &mut problems);
        for p in problems {
            self.ctx.warn(rel, p.line, p.message);
        }
        self.facts.files.push(rel.to_string());

        let saved_file = std::mem::replace(&mut self.file, rel.to_string());
        let saved_dir = self.source_dir.clone();
        let new_scope = new_dir.is_some();
        if let Some(dir) = new_dir {
            self.vars.push_scope();
            self.vars.set("CMAKE_CURRENT_SOURCE_DIR", dir_value(&dir));
            self.source_dir = dir;
        }
        let list_dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let saved_list_dir = self.vars.get("CMAKE_CURRENT_LIST_DIR").map(str::to_string);
        self.vars.set("CMAKE_CURRENT_LIST_DIR", dir_value(list_dir));
        self.include_stack.push(rel.to_string());
        // A file included from a function body is walked as plain code, so
        // the calls in it are expanded.
        let saved_in_def = std::mem::take(&mut self.in_def);

        self.walk_nodes(&nodes);
        if self.include_stack.len() == 1 {
            self.enter_unbuilt_modules();
        }

        self.in_def = saved_in_def;
        self.include_stack.pop();
        match saved_list_dir {
            Some(v) => self.vars.set("CMAKE_CURRENT_LIST_DIR", v),
            None => self.vars.unset("CMAKE_CURRENT_LIST_DIR"),
        }
        if new_scope {
            self.vars.pop_scope();
        }
        self.file = saved_file;
        self.source_dir = saved_dir;
    }

    fn walk_nodes(&mut self, nodes: &[Node]) {
        let base = self.conds.len();
        for node in nodes {
            if self.call_site.is_some() {
                self.expanded += 1;
                if self.expanded > MAX_EXPANDED {
                    return;
                }
            }
            match node {
                Node::Command(cmd) => self.command(cmd),
                Node::If(branches) => {
                    self.walk_if(branches);
                    // `if(NOT X) return() endif()`: the rest of this file
                    // (or function) runs only when the condition is false.
                    if let [b] = branches.as_slice() {
                        if !b.cond.is_empty() && ends_in_return(&b.body) {
                            let c = self.render_cond(&b.cond);
                            self.conds.push(negate(&c));
                        }
                    }
                }
                Node::Loop { kind, header, body } => {
                    let bound = match *kind {
                        LoopKind::Foreach => self.loop_items(&header.args),
                        _ => None,
                    };
                    match bound {
                        Some((var, items)) if unrolls(&var, &items, body) => {
                            self.walk_unrolled(&var, items, body);
                        }
                        // Remembered so `add_subdirectory(${v})` can be followed.
                        Some(bound) => {
                            self.loops.push(bound);
                            self.walk_nodes(body);
                            self.loops.pop();
                        }
                        None => self.walk_nodes(body),
                    }
                }
                Node::Function {
                    header,
                    is_macro,
                    body,
                } => self.define(header, *is_macro, body),
                Node::Block { body, .. } => {
                    self.vars.push_scope();
                    self.walk_nodes(body);
                    self.vars.pop_scope();
                }
            }
        }
        self.conds.truncate(base);
    }

    fn walk_if(&mut self, branches: &[Branch]) {
        let base = self.conds.len();
        let mut earlier: Vec<String> = Vec::new();
        // Per variable: value before the if, values the branches left, and
        // how many branches wrote it.
        let mut written: Vec<(String, Option<String>, Vec<Option<String>>)> = Vec::new();
        for b in branches {
            self.conds.truncate(base);
            self.conds.extend(earlier.iter().map(|c| negate(c)));
            // `else(NOT X)` repeats the if's condition (old CMake style);
            // it is no condition of its own.
            if !b.cond.is_empty() && b.kind != BranchKind::Else {
                let c = self.render_cond(&b.cond);
                self.conds.push(c.clone());
                earlier.push(c);
            }
            self.vars.begin_branch();
            self.walk_nodes(&b.body);
            for w in self.vars.end_branch() {
                match written.iter_mut().find(|(n, _, _)| *n == w.name) {
                    Some((_, _, afters)) => afters.push(w.after),
                    None => written.push((w.name, w.before, vec![w.after])),
                }
            }
        }
        self.conds.truncate(base);
        let has_else = branches.last().is_some_and(|b| b.kind == BranchKind::Else);
        for (name, before, afters) in written {
            let first = afters.first().cloned().flatten();
            let agree = afters.iter().all(|a| *a == afters[0]);
            let every_path = has_else && afters.len() == branches.len();
            // Keep a value only when every way through the if gives it (or
            // the if only fills in a variable that was unset); otherwise
            // it has no single static value and stays unexpanded.
            let ambiguous = !agree || (!every_path && before.is_some() && before != first);
            if ambiguous {
                self.remember_alternatives(&name, before.as_deref(), &afters);
                self.vars.set(&name, format!("${{{name}}}"));
            }
        }
    }

    /// Keeps the union of the values an ambiguous variable may hold.
    fn remember_alternatives(
        &mut self,
        name: &str,
        before: Option<&str>,
        afters: &[Option<String>],
    ) {
        let itself = format!("${{{name}}}");
        let mut seen = HashSet::new();
        let mut all = Vec::new();
        let values = std::iter::once(before).chain(afters.iter().map(Option::as_deref));
        for item in values.flatten().flat_map(split_list) {
            let items = if item == itself {
                self.alternatives.get(name).cloned().unwrap_or_default()
            } else {
                vec![item]
            };
            for i in items {
                if all.len() < MAX_ALTERNATIVES && seen.insert(i.clone()) {
                    all.push(i);
                }
            }
        }
        self.alternatives.insert(name.to_string(), all);
    }

    /// Expanded arguments with each variable an `if` left ambiguous
    /// (`${name}` as a whole item) replaced by every value it may hold.
    pub(super) fn possible_values(&self, args: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for a in args {
            let name = a.strip_prefix("${").and_then(|r| r.strip_suffix('}'));
            match name.and_then(|n| self.alternatives.get(n)) {
                Some(values) => out.extend(values.iter().cloned()),
                None => out.push(a.clone()),
            }
        }
        out
    }

    /// Inside an expanded call, parameters in a condition are replaced by
    /// the call's arguments (`KOKKOS_ENABLE_${NAME}` → `KOKKOS_ENABLE_CUDA`).
    fn render_cond(&self, args: &[Arg]) -> String {
        if self.call_site.is_none() && self.unrolling == 0 {
            return render(args);
        }
        let expanded: Vec<Arg> = args
            .iter()
            .map(|a| Arg {
                text: self.vars.expand(&a.text),
                kind: a.kind,
            })
            .collect();
        render(&expanded)
    }

    fn walk_unrolled(&mut self, var: &str, items: Vec<String>, body: &[Node]) {
        let before = self.vars.get(var).map(str::to_string);
        self.unrolling += 1;
        for item in items {
            self.vars.set(var, item);
            self.walk_nodes(body);
        }
        self.unrolling -= 1;
        match before {
            Some(v) => self.vars.set(var, v),
            None => self.vars.unset(var),
        }
    }

    /// The variable and items of `foreach(v a b c)`, `foreach(v IN ITEMS …)`
    /// or `foreach(v IN LISTS …)`; None for a `RANGE` loop.
    fn loop_items(&self, args: &[Arg]) -> Option<(String, Vec<String>)> {
        let var = args.first()?;
        let rest = &args[1..];
        let mut items = Vec::new();
        if rest
            .first()
            .is_some_and(|a| a.is_word("RANGE") || a.is_word("IN"))
        {
            if !rest.first().is_some_and(|a| a.is_word("IN")) {
                return None;
            }
            let mut mode = "";
            for a in &rest[1..] {
                if a.is_word("LISTS") || a.is_word("ITEMS") || a.is_word("ZIP_LISTS") {
                    mode = if a.text == "ZIP_LISTS" { "" } else { &a.text };
                    continue;
                }
                match mode {
                    "ITEMS" => items.extend(self.vars.expand_args(std::slice::from_ref(a))),
                    "LISTS" => {
                        let name = self.vars.expand(&a.text);
                        if let Some(v) = self.vars.get(&name) {
                            items.extend(split_list(v));
                        }
                    }
                    _ => {}
                }
            }
        } else {
            items = self.vars.expand_args(rest);
        }
        items.truncate(MAX_LOOP_ITEMS);
        Some((var.text.clone(), items))
    }

    /// The possible expansions of a path argument: one per item when it
    /// uses the variable of an enclosing foreach, each with whether the
    /// item came from `file(GLOB)`.
    fn path_candidates(&mut self, arg: &Arg) -> Vec<(String, bool)> {
        let found = self
            .loops
            .iter()
            .rev()
            .find(|(var, _)| arg.text.contains(&format!("${{{var}}}")))
            .cloned();
        match found {
            Some((var, items)) => items
                .into_iter()
                .map(|item| {
                    let globbed = self.globbed.contains(&item);
                    self.vars.push_scope();
                    self.vars.set(&var, item);
                    let v = self.vars.expand(&arg.text);
                    self.vars.pop_scope();
                    (v, globbed)
                })
                .collect(),
            None => vec![(self.vars.expand(&arg.text), false)],
        }
    }

    fn define(&mut self, header: &Command, is_macro: bool, body: &Rc<Vec<Node>>) {
        let Some(name) = header.args.first().map(|a| a.text.clone()) else {
            return;
        };
        let def = FuncDef {
            name: name.clone(),
            params: header.args[1..].iter().map(|a| a.text.clone()).collect(),
            body: Rc::clone(body),
            interesting: self.interesting(body),
        };
        self.functions
            .insert(name.to_ascii_lowercase(), Rc::new(def));
        if self.call_site.is_some() {
            return;
        }
        let what = if is_macro { "macro" } else { "function" };
        self.conds.push(format!("in {what} {name}"));
        self.in_def += 1;
        self.vars.push_scope();
        self.walk_nodes(body);
        self.vars.pop_scope();
        self.in_def -= 1;
        self.conds.pop();
    }

    /// Does a body declare facts (directly or through a known function)?
    fn interesting(&self, nodes: &[Node]) -> bool {
        nodes.iter().any(|n| match n {
            Node::Command(c) => {
                extract::declares_facts(c)
                    || self.functions.get(&c.name).is_some_and(|f| f.interesting)
            }
            Node::If(branches) => branches.iter().any(|b| self.interesting(&b.body)),
            Node::Loop { body, .. } | Node::Block { body, .. } => self.interesting(body),
            Node::Function { .. } => false,
        })
    }

    fn command(&mut self, cmd: &Command) {
        let args = self.vars.expand_args(&cmd.args);
        match cmd.name.as_str() {
            "set" => self.set(&args),
            "unset" => {
                if let Some(name) = args.first() {
                    self.vars.unset(name);
                }
            }
            "list" => self.list(&args),
            "string" => self.string(&args),
            "project" => {
                if let Some(name) = args.first() {
                    let dir = dir_value(&self.source_dir);
                    self.vars.set("PROJECT_NAME", name.clone());
                    self.vars.set("PROJECT_SOURCE_DIR", dir.clone());
                    self.vars.set(&format!("{name}_SOURCE_DIR"), dir);
                    if let Some(i) = args.iter().position(|a| a == "VERSION") {
                        if let Some(v) = args.get(i + 1) {
                            self.vars.set("PROJECT_VERSION", v.clone());
                            self.vars.set(&format!("{name}_VERSION"), v.clone());
                        }
                    }
                    if self.vars.get("CMAKE_PROJECT_NAME").is_none() {
                        self.vars.set_cache("CMAKE_PROJECT_NAME", name.clone());
                    }
                }
            }
            "include" => self.include(cmd, &args),
            "add_subdirectory" => self.add_subdirectory(cmd),
            "file" => self.file_glob(&args),
            "vtk_module_find_modules" | "vtk_module_scan" | "vtk_module_build" => {
                self.module_system(cmd, &args)
            }
            _ => {}
        }
        extract::command(self, cmd, &args);
        if self.in_def > 0 && self.call_site.is_none() {
            return; // calls inside a definition are expanded when it is called
        }
        let def = match self.functions.get(&cmd.name) {
            Some(def) if def.interesting && self.call_depth < MAX_CALL_DEPTH => Rc::clone(def),
            _ => return,
        };
        self.call(&def, cmd, &args);
    }

    /// Walks a user function's body with its parameters bound to the call's
    /// arguments; facts get the call site as evidence.
    fn call(&mut self, def: &FuncDef, cmd: &Command, args: &[String]) {
        if self.expanded > MAX_EXPANDED {
            return;
        }
        self.vars.push_scope();
        for (i, p) in def.params.iter().enumerate() {
            self.vars.set(p, args.get(i).cloned().unwrap_or_default());
        }
        for (i, a) in args.iter().enumerate() {
            self.vars.set(&format!("ARGV{i}"), a.clone());
        }
        self.vars.set("ARGC", args.len().to_string());
        self.vars.set("ARGV", args.join(";"));
        let argn = args.get(def.params.len()..).unwrap_or(&[]).join(";");
        self.vars.set("ARGN", argn);
        let outer = self.call_site.is_none();
        if outer {
            self.call_site = Some(Evidence::new(&self.file, cmd.line));
        }
        self.call_depth += 1;
        let body = Rc::clone(&def.body);
        self.walk_nodes(&body);
        self.call_depth -= 1;
        if outer {
            self.call_site = None;
        }
        self.vars.pop_scope();
        if self.expanded > MAX_EXPANDED && !self.limit_warned {
            self.limit_warned = true;
            let file = self.file.clone();
            self.ctx.warn(
                &file,
                cmd.line,
                format!(
                    "stopped expanding calls to user functions (like `{}`) after {MAX_EXPANDED} commands",
                    def.name
                ),
            );
        }
    }

    fn set(&mut self, args: &[String]) {
        let Some(name) = args.first() else { return };
        if let Some(i) = args.iter().position(|a| a == "CACHE") {
            self.vars.set_cache(name, args[1..i].join(";"));
            return;
        }
        let mut values = &args[1..];
        if values.last().is_some_and(|v| v == "PARENT_SCOPE") {
            return; // only the caller would see it
        }
        if values.is_empty() {
            self.vars.unset(name);
            return;
        }
        if values.len() > 1 && values.last().is_some_and(|v| v.is_empty()) {
            values = &values[..values.len() - 1];
        }
        let guard = format!("NOT DEFINED {name}");
        if self.conds.contains(&guard) {
            self.defaults.insert(name.clone());
        }
        self.vars.set(name, values.join(";"));
    }

    /// `string(TOUPPER|TOLOWER <in> <out>)`: the case a loop body builds its
    /// option names with (`IGRAPH_USE_INTERNAL_${NAME_UPPER}`).
    fn string(&mut self, args: &[String]) {
        let (Some(op), Some(input), Some(out)) = (args.first(), args.get(1), args.get(2)) else {
            return;
        };
        let value = match op.as_str() {
            "TOUPPER" => input.to_ascii_uppercase(),
            "TOLOWER" => input.to_ascii_lowercase(),
            _ => return,
        };
        if !input.contains("${") {
            self.vars.set(out, value);
        }
    }

    /// `list(APPEND|PREPEND|INSERT var …)`, enough for CMAKE_MODULE_PATH.
    fn list(&mut self, args: &[String]) {
        let (Some(op), Some(name)) = (args.first(), args.get(1)) else {
            return;
        };
        let old = self.vars.get(name).map(split_list).unwrap_or_default();
        let new: Vec<String> = match op.as_str() {
            "APPEND" => old.into_iter().chain(args[2..].iter().cloned()).collect(),
            "PREPEND" => args[2..].iter().cloned().chain(old).collect(),
            "INSERT" => {
                let at = args
                    .get(2)
                    .and_then(|i| i.parse::<usize>().ok())
                    .unwrap_or(0)
                    .min(old.len());
                let mut v = old;
                let items = args.get(3..).unwrap_or(&[]).to_vec();
                v.splice(at..at, items);
                v
            }
            _ => return,
        };
        self.vars.set(name, new.join(";"));
    }

    /// `file(GLOB …)` evaluated on the tree, so a loop over the result can
    /// be followed; the variable stays unknown when it cannot be.
    fn file_glob(&mut self, args: &[String]) {
        let Some(call) = glob::parse(args) else {
            return;
        };
        let found = glob::evaluate(
            self.ctx.view,
            &self.source_dir,
            &call,
            &mut self.glob_budget,
        );
        let Some(values) = found else {
            return;
        };
        self.globbed.extend(values.iter().cloned());
        self.vars.set(call.out, values.join(";"));
    }

    pub(super) fn warn_unresolved(&mut self, line: u32, what: String) {
        if self.unresolved_warnings < MAX_UNRESOLVED_WARNINGS {
            let file = self.file.clone();
            self.ctx.warn(
                &file,
                line,
                format!("{what} uses variables not known statically; not followed"),
            );
        }
        self.unresolved_warnings += 1;
    }

    fn include(&mut self, cmd: &Command, args: &[String]) {
        let Some(first) = cmd.args.first() else {
            return;
        };
        if self.call_site.is_some() {
            return;
        }
        let optional = args.iter().any(|a| a == "OPTIONAL");
        for (target, _) in self.path_candidates(first) {
            let module = !target.contains('/') && !target.ends_with(".cmake");
            if module {
                if let Some(found) = self.find_module(&target) {
                    self.walk_file(&found, None, cmd.line);
                }
                continue; // otherwise one of CMake's own modules
            }
            let list_dir = self
                .file
                .rsplit_once('/')
                .map_or("", |(d, _)| d)
                .to_string();
            let resolved = resolve_path(&self.source_dir, &target).map(|p| {
                if !self.ctx.view.exists(&p) {
                    if let Ok(q) = resolve_path(&list_dir, &target) {
                        if self.ctx.view.exists(&q) {
                            return q;
                        }
                    }
                }
                p
            });
            match resolved {
                Ok(p) if self.ctx.view.exists(&p) => self.walk_file(&p, None, cmd.line),
                Ok(p) if !optional => {
                    let file = self.file.clone();
                    let site = Site {
                        evidence: Evidence::new(&file, cmd.line),
                        conditions: self.conds.clone(),
                    };
                    super::targets::missing_path(self, &p, &format!("include({target})"), site);
                    self.ctx.warn(
                        &file,
                        cmd.line,
                        format!("include({target}): {p} is not in the repository"),
                    );
                }
                Err(PathError::Outside) if !optional => {
                    let file = self.file.clone();
                    self.ctx.warn(
                        &file,
                        cmd.line,
                        format!("include({target}) points outside the repository; not followed"),
                    );
                }
                _ => {}
            }
        }
    }

    /// `include(Foo)` → `<dir>/Foo.cmake` for the first CMAKE_MODULE_PATH
    /// entry inside the repository that has it.
    fn find_module(&self, module: &str) -> Option<String> {
        let path = self.vars.get("CMAKE_MODULE_PATH")?;
        split_list(path).into_iter().find_map(|dir| {
            let d = resolve_path(&self.source_dir, &dir).ok()?;
            let f = if d.is_empty() {
                format!("{module}.cmake")
            } else {
                format!("{d}/{module}.cmake")
            };
            self.ctx.view.exists(&f).then_some(f)
        })
    }

    fn add_subdirectory(&mut self, cmd: &Command) {
        let Some(first) = cmd.args.first() else {
            return;
        };
        if self.call_site.is_some() {
            return;
        }
        for (target, globbed) in self.path_candidates(first) {
            let file = self.file.clone();
            match resolve_path(&self.source_dir, &target) {
                Ok(dir) => {
                    let list = if dir.is_empty() {
                        "CMakeLists.txt".to_string()
                    } else {
                        format!("{dir}/CMakeLists.txt")
                    };
                    if self.ctx.view.exists(&list) {
                        self.walk_file(&list, Some(dir), cmd.line);
                    } else if globbed {
                        // A glob also lists files and directories without a
                        // build; the loop's own tests skip those.
                    } else if self.ctx.view.is_dir(&dir) {
                        let site = Site {
                            evidence: Evidence::new(&file, cmd.line),
                            conditions: self.conds.clone(),
                        };
                        super::targets::missing_path(
                            self,
                            &dir,
                            &format!("add_subdirectory({target})"),
                            site,
                        );
                        self.ctx.warn(
                            &file,
                            cmd.line,
                            format!("add_subdirectory({target}): {dir} has no CMakeLists.txt"),
                        );
                    } else {
                        let site = Site {
                            evidence: Evidence::new(&file, cmd.line),
                            conditions: self.conds.clone(),
                        };
                        super::targets::missing_path(
                            self,
                            &dir,
                            &format!("add_subdirectory({target})"),
                            site,
                        );
                        self.ctx.warn(
                            &file,
                            cmd.line,
                            format!("add_subdirectory({target}): directory {dir} does not exist"),
                        );
                    }
                }
                Err(PathError::Outside) => self.ctx.warn(
                    &file,
                    cmd.line,
                    format!(
                        "add_subdirectory({target}) points outside the repository; not followed"
                    ),
                ),
                Err(PathError::Unresolved) => {
                    self.warn_unresolved(cmd.line, format!("add_subdirectory({})", first.text));
                }
            }
        }
    }
}

impl Walker<'_, '_> {
    /// `<Name>_VERSION_MAJOR/MINOR[/PATCH]` set as plain numbers, for
    /// projects that do not pass VERSION to project().
    pub fn split_version(&self) -> Option<String> {
        let name = &self.facts.project.as_ref()?.name;
        [name.clone(), name.to_ascii_uppercase()]
            .iter()
            .find_map(|n| {
                let part = |p: &str| {
                    self.vars
                        .get(&format!("{n}_VERSION_{p}"))
                        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                        .map(str::to_string)
                };
                let (major, minor) = (part("MAJOR")?, part("MINOR")?);
                Some(match part("PATCH") {
                    Some(patch) => format!("{major}.{minor}.{patch}"),
                    None => format!("{major}.{minor}"),
                })
            })
    }
}

/// A loop whose body looks for packages by the loop variable
/// (`foreach(dep ${DEPS}) find_package(${dep})`, as igraph does for
/// its vendorable libraries) is walked once per item, so each
/// package is a fact with its own conditions. Loops that drive
/// `add_subdirectory`/`include` keep the path expansion instead.
fn unrolls(var: &str, items: &[String], body: &[Node]) -> bool {
    let reference = format!("${{{var}}}");
    let resolved = !items.is_empty() && items.iter().all(|i| !i.contains("${"));
    let finds = uses_in(body, &reference, &|c| extract::declares_facts(c));
    let follows = uses_in(body, &reference, &|c| {
        matches!(c.name.as_str(), "add_subdirectory" | "include")
    });
    resolved && finds && !follows
}

/// Whether a command matching `pred` anywhere in `body` (branches and
/// nested loops included, not definitions) has `reference` in its
/// arguments.
fn uses_in(body: &[Node], reference: &str, pred: &dyn Fn(&Command) -> bool) -> bool {
    body.iter().any(|n| match n {
        Node::Command(c) => pred(c) && c.args.iter().any(|a| a.text.contains(reference)),
        Node::If(branches) => branches.iter().any(|b| uses_in(&b.body, reference, pred)),
        Node::Loop { body, .. } | Node::Block { body, .. } => uses_in(body, reference, pred),
        Node::Function { .. } => false,
    })
}

/// Whether a branch body ends by leaving the file or function.
fn ends_in_return(body: &[Node]) -> bool {
    matches!(body.last(), Some(Node::Command(cmd)) if cmd.name == "return")
}
