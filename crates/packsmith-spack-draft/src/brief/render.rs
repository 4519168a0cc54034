//! The brief as text for a prompt or a person, and the raw facts for the
//! comparison SpackIt made ("raw" metadata instead of a distillation).

use super::{SpackBrief, VariantDefault};
use packsmith_core::RepoFacts;
use std::fmt::Write;

/// Renders the brief as a compact, line-oriented text.
pub fn render_brief(b: &SpackBrief) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "package: {} (class {}) for Spack {}",
        b.package, b.class_name, b.target
    );
    let _ = writeln!(out, "base classes: {}", b.base_classes.join(", "));
    if let Some(d) = &b.description {
        let _ = writeln!(out, "description: {d}");
    }
    if let Some(h) = &b.homepage {
        let _ = writeln!(out, "homepage: {h}");
    }
    if let Some(l) = &b.license {
        let _ = writeln!(out, "license: {l}");
    } else if let Some(file) = &b.unrecognised_license {
        let _ = writeln!(
            out,
            "license: not recognised in {file} (read it, name its SPDX id)"
        );
    }
    let f = &b.fetch;
    let _ = writeln!(
        out,
        "source: version {} · url {} · git {} · tag {}{}",
        f.version.as_deref().unwrap_or("?"),
        f.url.as_deref().unwrap_or("-"),
        f.git.as_deref().unwrap_or("-"),
        f.tag.as_deref().unwrap_or("-"),
        if f.submodules {
            " · needs submodules"
        } else {
            ""
        }
    );
    if !b.language_virtuals.is_empty() {
        let _ = writeln!(
            out,
            "languages (depends_on type=build): {}",
            b.language_virtuals.join(", ")
        );
    }
    if let Some(c) = &b.cmake_constraint {
        let _ = writeln!(out, "cmake: depends_on(\"{c}\", type=\"build\")");
    }
    if !b.variants.is_empty() {
        let _ = writeln!(out, "variants:");
        for v in &b.variants {
            let default = match &v.default {
                VariantDefault::Bool(x) => if *x { "True" } else { "False" }.to_string(),
                VariantDefault::Str(s) => format!("\"{s}\""),
            };
            let values = if v.values.is_empty() {
                String::new()
            } else {
                format!(" values={:?}", v.values)
            };
            let when = v
                .when
                .as_deref()
                .map(|w| format!(" when=\"{w}\""))
                .unwrap_or_default();
            let inherited = if v.inherited {
                " (inherited from a base class)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "  {} default={default}{values}{when} ← {} ({}){inherited}: {}",
                v.name, v.option, v.evidence, v.description
            );
        }
    }
    if !b.dependencies.is_empty() {
        let _ = writeln!(out, "dependencies:");
        for d in &b.dependencies {
            let when = d
                .when
                .as_deref()
                .map(|w| format!(" when=\"{w}\""))
                .unwrap_or_default();
            let types = if d.types.is_empty() {
                String::new()
            } else {
                format!(" type={:?}", d.types)
            };
            let _ = writeln!(
                out,
                "  {}{when}{types} ← {} ({})",
                d.spec, d.upstream, d.evidence
            );
        }
    }
    if !b.optional_dependencies.is_empty() {
        let names: Vec<&str> = b
            .optional_dependencies
            .iter()
            .map(|d| d.spec.as_str())
            .collect();
        let _ = writeln!(
            out,
            "optional upstream (not declared): {}",
            names.join(", ")
        );
    }
    if !b.defines.is_empty() {
        let _ = writeln!(out, "cmake_args:");
        for d in &b.defines {
            match (&d.variant, &d.value) {
                (Some(v), _) => {
                    let _ = writeln!(out, "  self.define_from_variant(\"{}\", \"{v}\")", d.key);
                }
                (None, Some(value)) => {
                    let _ = writeln!(out, "  self.define(\"{}\", {value})", d.key);
                }
                (None, None) => {}
            }
        }
    }
    for n in &b.notes {
        let at = n
            .evidence
            .as_ref()
            .map(|e| format!(" ({e})"))
            .unwrap_or_default();
        let _ = writeln!(out, "note: {}{at}", n.message);
    }
    out
}

/// The build-system facts as JSON, cut to `budget` characters: what a
/// "raw metadata" configuration puts in the prompt.
pub fn render_raw_facts(facts: &RepoFacts, budget: usize) -> String {
    let value = serde_json::json!({
        "name": facts.name,
        "build_systems": facts.build_systems,
        "cmake": facts.cmake,
        "autotools": facts.autotools,
        "meson": facts.meson,
        "python": facts.python,
        "languages": facts.languages,
        "features": facts.features,
        "downloads": facts.downloads,
        "versions": facts.versions,
    });
    let text = serde_json::to_string(&value).unwrap_or_default();
    if text.len() <= budget {
        text
    } else {
        let mut cut = budget;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… (cut at {budget} characters)", &text[..cut])
    }
}
