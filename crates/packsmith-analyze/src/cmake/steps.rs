//! Build steps that need something no `find_package` states plainly:
//! code generators a find module defines (`bison_target`, `flex_target`),
//! and JUCE's copy of built plugins into the user's home.

use super::lexer::Command;
use super::state::{Site, Walker};
use packsmith_core::{CmakeGenerator, CmakeHomeCopy};

/// Commands a find module defines that run its tool while building, and
/// the module's package name.
const GENERATOR_COMMANDS: &[(&str, &str)] = &[("bison_target", "BISON"), ("flex_target", "FLEX")];

/// Bounds a generated build's list (igraph has ten, one per parser).
const MAX_GENERATORS: usize = 64;

/// The package whose tool `command` runs, if it is a generator command.
pub fn generator_tool(command: &str) -> Option<&'static str> {
    GENERATOR_COMMANDS
        .iter()
        .find(|(c, _)| *c == command)
        .map(|(_, tool)| *tool)
}

/// Records a generator call. An `EXISTS` test of a path in the tree is
/// decided here: a project that ships pre-generated parsers in its release
/// tarballs tests for them, and the git checkout Nix and Spack build from
/// lacks them, so the generator runs.
pub fn generator(w: &mut Walker<'_, '_>, command: &str, site: Site) {
    if let Some(tool) = generator_tool(command) {
        record(w, tool, command, site);
    }
}

/// `execute_process(COMMAND ${Python_EXECUTABLE} gen.py …)`, or the same
/// in a custom command: a step that runs the program of a package some
/// `find_package` looks for, optionally or not, needs that package
/// wherever the step runs (libecpint generates its sources with Python),
/// so the lookup must not be switched off.
pub fn tool_run(w: &mut Walker<'_, '_>, command: &str, args: &[String], site: Site) {
    let programs = args
        .windows(2)
        .filter(|pair| pair[0] == "COMMAND")
        .filter_map(|pair| executable_package(&pair[1]));
    let mut tools: Vec<String> = Vec::new();
    for program in programs {
        let found = w
            .facts
            .find_packages
            .iter()
            .find(|fp| package_key(&fp.name) == program)
            .map(|fp| fp.name.clone());
        if let Some(name) = found.filter(|n| !tools.contains(n)) {
            tools.push(name);
        }
    }
    for tool in tools {
        record(w, &tool, command, site.clone());
    }
}

/// The package key of `${<Name>_EXECUTABLE}` (`python` for
/// `${Python3_EXECUTABLE}`), for a reference left unexpanded.
fn executable_package(word: &str) -> Option<String> {
    let name = word.strip_prefix("${")?.strip_suffix('}')?;
    let package = name.strip_suffix("_EXECUTABLE")?;
    Some(package_key(package))
}

/// A find_package name as its variables spell it: lower case, without a
/// major version or `Interp` (`Python3`, `PythonInterp`, `PYTHON` are all
/// `python`).
fn package_key(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let lower = lower.strip_suffix("interp").unwrap_or(&lower);
    lower
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .to_string()
}

/// Records that `tool`'s package runs in a build step (`command`).
fn record(w: &mut Walker<'_, '_>, tool: &str, command: &str, site: Site) {
    let mut conditions = Vec::new();
    for c in &site.conditions {
        match path_test(w, c) {
            Some(true) => {}
            Some(false) => return, // the tree ships what it would generate
            None => conditions.push(c.clone()),
        }
    }
    let known = w
        .facts
        .generators
        .iter()
        .any(|g| g.tool == tool && g.conditions == conditions);
    if known || w.facts.generators.len() >= MAX_GENERATORS {
        return;
    }
    w.facts.generators.push(CmakeGenerator {
        tool: tool.to_string(),
        command: command.to_string(),
        conditions,
        evidence: site.evidence,
    });
}

/// The truth of `EXISTS <path>` (or a negation of it) in this tree, when
/// the path resolves inside the repository; None for anything else.
fn path_test(w: &Walker<'_, '_>, cond: &str) -> Option<bool> {
    let c = cond.trim();
    if let Some(inner) = c.strip_prefix("NOT (").and_then(|r| r.strip_suffix(')')) {
        return path_test(w, inner).map(|b| !b);
    }
    if let Some(inner) = c.strip_prefix("NOT ") {
        return path_test(w, inner).map(|b| !b);
    }
    let path = c.strip_prefix("EXISTS ")?.trim().trim_matches('"');
    if path.is_empty() || path.contains([' ', '(', ')']) {
        return None; // a compound condition
    }
    let (_, rel) = w.condition_path(path)?;
    Some(w.ctx.view.exists(&rel) || w.ctx.view.is_dir(&rel))
}

/// `juce_add_plugin(… COPY_PLUGIN_AFTER_BUILD <value> …)` with a value
/// that is on: the build copies each plugin under `$HOME`. The copy can
/// be turned off from the command line when the value is a variable the
/// project lets a `-D` set (an option, a cache variable, or a default
/// under `if(NOT DEFINED …)`).
pub fn juce_plugin(w: &mut Walker<'_, '_>, cmd: &Command, args: &[String], site: Site) {
    if w.facts.home_copy.is_some() {
        return;
    }
    const KEY: &str = "COPY_PLUGIN_AFTER_BUILD";
    let Some(at) = args.iter().position(|a| a == KEY) else {
        return;
    };
    let raw = cmd
        .args
        .iter()
        .position(|a| a.text == KEY)
        .and_then(|i| cmd.args.get(i + 1))
        .map(|a| a.text.as_str());
    let variable = raw
        .and_then(|r| r.strip_prefix("${"))
        .and_then(|r| r.strip_suffix('}'))
        .filter(|v| !v.contains(['$', '{', '}']));
    // An option or cache variable is no plain variable: its default.
    let declared = variable.and_then(|v| {
        let option = w.facts.options.iter().find(|o| o.name == v);
        let cache = w.facts.cache_vars.iter().find(|c| c.name == v);
        option
            .and_then(|o| o.default.clone())
            .or_else(|| cache.map(|c| c.default.clone()))
    });
    let value = match args.get(at + 1) {
        Some(v) if v.contains("${") => declared,
        other => other.cloned(),
    };
    let on = value.is_some_and(|v| {
        ["TRUE", "ON", "YES", "Y", "1"]
            .iter()
            .any(|t| v.eq_ignore_ascii_case(t))
    });
    if !on {
        return;
    }
    let switch = variable.filter(|v| w.overridable(v)).map(str::to_string);
    w.facts.home_copy = Some(CmakeHomeCopy {
        switch,
        check: format!("juce_add_plugin {KEY}"),
        evidence: site.evidence,
    });
}
