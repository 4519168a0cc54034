//! setup.cfg: `[metadata]`, `[options]`, extras and console scripts.

use super::requirement::parse as parse_req;
use super::{fill, fill_sourced};
use crate::context::Ctx;
use crate::support::ini::{self, IniEntry};
use packsmith_core::{Evidence, PythonEntryPoint, PythonExtra, PythonFacts};

pub fn read(ctx: &mut Ctx<'_>, file: &str, facts: &mut PythonFacts) {
    let Some(text) = ctx.read(file) else { return };
    let entries = ini::parse(&text);
    if !entries
        .iter()
        .any(|e| e.section == "metadata" || e.section.starts_with("options"))
    {
        return; // only tool settings (flake8, pytest): not packaging metadata
    }
    facts.files.push(file.to_string());
    let get = |k: &str| ini::get(&entries, "metadata", k);
    let value = |e: Option<&IniEntry>| e.map(IniEntry::joined);
    let ev = |e: &IniEntry| Evidence::new(file, e.line);
    if let Some(e) = get("name") {
        fill_sourced(
            &mut facts.name,
            &mut facts.name_evidence,
            Some(e.joined()),
            ev(e),
        );
    }
    if let Some(e) = get("version") {
        let v = e.joined();
        if v.starts_with("attr:") || v.starts_with("file:") {
            if !facts.dynamic.iter().any(|d| d == "version") {
                facts.dynamic.push("version".into());
            }
            ctx.warn(
                file,
                e.line,
                format!("version is read at build time (`{v}`)"),
            );
        } else {
            fill_sourced(
                &mut facts.version,
                &mut facts.version_evidence,
                Some(v),
                ev(e),
            );
        }
    }
    fill(&mut facts.license, value(get("license")));
    fill(
        &mut facts.homepage,
        value(get("url").or_else(|| get("home_page"))),
    );
    fill(&mut facts.description, value(get("description")));
    fill(
        &mut facts.requires_python,
        value(ini::get(&entries, "options", "python_requires")),
    );
    if let Some(e) = ini::get(&entries, "options", "install_requires") {
        for (line, no) in &e.values {
            facts
                .dependencies
                .extend(parse_req(line, Evidence::new(file, *no)));
        }
    }
    // Fetched by setuptools before the build (see setup_py.rs).
    if let Some(e) = ini::get(&entries, "options", "setup_requires") {
        for (line, no) in &e.values {
            facts
                .build_requires
                .extend(parse_req(line, Evidence::new(file, *no)));
        }
    }
    for e in entries
        .iter()
        .filter(|e| e.section == "options.extras_require")
    {
        facts.extras.push(PythonExtra {
            name: e.key.clone(),
            requirements: e
                .values
                .iter()
                .filter_map(|(l, no)| parse_req(l, Evidence::new(file, *no)))
                .collect(),
        });
    }
    for e in entries
        .iter()
        .filter(|e| e.section == "options.entry_points")
    {
        let kind = match e.key.as_str() {
            "console_scripts" => "console",
            "gui_scripts" => "gui",
            _ => continue,
        };
        for (line, no) in &e.values {
            if let Some((name, target)) = line.split_once('=') {
                facts.scripts.push(PythonEntryPoint {
                    name: name.trim().to_string(),
                    kind: kind.into(),
                    target: target.trim().to_string(),
                    evidence: Evidence::new(file, *no),
                });
            }
        }
    }
}
