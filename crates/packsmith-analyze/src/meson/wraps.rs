//! Subprojects: `subprojects/*.wrap` files and `subproject()` calls, as
//! things Meson may download (a recipe must vendor or replace them).

use crate::context::Ctx;
use crate::support::ini;
use packsmith_core::{DownloadFact, DownloadKind, Evidence, MesonFacts};

pub fn read_subprojects(ctx: &mut Ctx<'_>, facts: &mut MesonFacts) {
    let wraps: Vec<String> = ctx
        .view
        .files()
        .iter()
        .filter(|f| f.dir() == "subprojects" && f.name().ends_with(".wrap"))
        .map(|f| f.rel.clone())
        .collect();
    for file in wraps {
        let Some(text) = ctx.read(&file) else {
            continue;
        };
        let name = file
            .trim_start_matches("subprojects/")
            .trim_end_matches(".wrap")
            .to_string();
        let entries = ini::parse(&text);
        let Some(section) = entries
            .iter()
            .map(|e| e.section.as_str())
            .find(|s| s.starts_with("wrap-"))
            .map(str::to_string)
        else {
            ctx.warn(&file, 0, "wrap file without a [wrap-*] section");
            continue;
        };
        let url_entry = ini::get(&entries, &section, "source_url")
            .or_else(|| ini::get(&entries, &section, "url"));
        let pin = ["source_hash", "revision"]
            .iter()
            .find_map(|k| ini::get(&entries, &section, k))
            .map(|e| e.joined());
        if !facts.subprojects.contains(&name) {
            facts.subprojects.push(name.clone());
        }
        ctx.downloads.push(DownloadFact {
            kind: DownloadKind::MesonSubproject,
            name,
            url: url_entry.map(|e| e.joined()),
            pin,
            conditions: Vec::new(),
            evidence: Evidence::new(&file, url_entry.map_or(0, |e| e.line)),
            upstream: None,
            switch: None,
            required_by: None,
            present: false,
            compiled: false,
        });
    }
    // subproject() calls with neither a wrap nor a bundled directory.
    for name in facts.subprojects.clone() {
        let dir = format!("subprojects/{name}");
        let wrapped = ctx.view.exists(&format!("{dir}.wrap"));
        if !wrapped && !ctx.view.is_dir(&dir) {
            ctx.warn(
                "meson.build",
                0,
                format!("subproject '{name}' has no wrap file and no subprojects/{name} directory"),
            );
        }
    }
}
