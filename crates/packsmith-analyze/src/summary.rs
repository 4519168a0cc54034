//! The one-screen, human summary of `RepoFacts` (`--json` has everything).

use packsmith_core::{Language, RepoFacts};
use std::fmt::Write;

/// What a plain-Makefile build links, queries and runs, and what a
/// packager must add by hand.
fn make_line(m: &packsmith_core::MakefileFacts) -> String {
    let names = |items: &[packsmith_core::Sourced<String>]| -> String {
        items
            .iter()
            .map(|i| i.value.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut bits = vec![format!("{} Makefile(s) read", m.files.len())];
    if !m.libraries.is_empty() {
        bits.push(format!("links {}", names(&m.libraries)));
    }
    if !m.pkg_config_modules.is_empty() {
        bits.push(format!("pkg-config {}", names(&m.pkg_config_modules)));
    }
    if !m.tools.is_empty() {
        bits.push(format!("runs {}", names(&m.tools)));
    }
    if !m.uninstalled_man_pages.is_empty() {
        bits.push(format!(
            "manual pages not installed: {}",
            m.uninstalled_man_pages.join(" ")
        ));
    }
    if let Some(home) = &m.writes_home {
        bits.push(format!("writes under $(HOME) ({home})"));
    }
    bits.join(" · ")
}

/// At most this many rows in each list before "+N more".
const MAX_ROWS: usize = 8;

pub fn render(f: &RepoFacts) -> String {
    let mut out = String::new();
    let name = f
        .name
        .as_ref()
        .map(|n| n.value.as_str())
        .unwrap_or("(unnamed)");
    let version = f
        .versions
        .declared
        .as_ref()
        .map(|v| v.value.clone())
        .or_else(|| f.versions.latest_tag.as_ref().map(|t| t.version.clone()))
        .unwrap_or_default();
    let _ = writeln!(out, "{name} {version}");
    let mut systems: Vec<String> = f
        .build_systems
        .iter()
        .map(|b| {
            if Some(b.kind) == f.primary_build_system {
                format!("{} (primary, {})", b.kind, b.evidence)
            } else {
                format!("{} ({})", b.kind, b.evidence)
            }
        })
        .collect();
    if let Some(l) = &f.lazarus {
        let ws = l
            .widgetset
            .as_ref()
            .map(|w| format!(", widget set {} from {}", w.value, w.evidence))
            .unwrap_or_default();
        let loads = match l.dynamic_units.first() {
            Some(first) => {
                let units: Vec<&str> = l.dynamic_units.iter().map(|u| u.value.as_str()).collect();
                format!(
                    ", loads at run time: {} ({})",
                    units.join(", "),
                    first.evidence
                )
            }
            None => String::new(),
        };
        systems.push(format!("lazarus ({}{ws}{loads})", l.project_file));
    }
    let _ = writeln!(out, "  build systems: {}", systems.join(", "));
    let mut meta = Vec::new();
    if let Some(v) = &f.versions.declared {
        meta.push(format!("declared {} ({})", v.value, v.evidence));
    }
    if let Some(t) = &f.versions.latest_tag {
        meta.push(format!("latest tag {}", t.tag));
    }
    if let Some(c) = &f.versions.commit {
        meta.push(format!("commit {}", &c[..c.len().min(12)]));
    }
    if let Some(t) = &f.source.release_tag {
        meta.push(format!("clone checked out at release {t}"));
    }
    if let Some(l) = &f.license {
        meta.push(format!("license {} ({})", l.spdx, l.evidence));
    }
    if !meta.is_empty() {
        let _ = writeln!(out, "  {}", meta.join(" · "));
    }
    if let Some(h) = &f.homepage {
        let _ = writeln!(out, "  homepage: {}", h.value);
    }
    if let Some(url) = &f.versions.archive_url {
        let _ = writeln!(out, "  archive: {url}");
    }
    if let Some(d) = &f.description {
        let _ = writeln!(out, "  {}", clip(&d.value, 150));
    }

    let mut langs: Vec<(Language, bool)> = Vec::new();
    for l in &f.languages {
        let conditional = !l.conditions.is_empty();
        match langs.iter_mut().find(|(lang, _)| *lang == l.language) {
            Some(entry) => entry.1 &= conditional,
            None => langs.push((l.language, conditional)),
        }
    }
    langs.sort();
    if !langs.is_empty() {
        let list: Vec<String> = langs
            .iter()
            .map(|(l, cond)| {
                format!(
                    "{}{}",
                    lang_name(*l),
                    if *cond { " (conditional)" } else { "" }
                )
            })
            .collect();
        let _ = writeln!(out, "languages: {}", list.join(", "));
    }
    let mut feats: Vec<String> = Vec::new();
    for h in &f.features {
        let name = format!("{:?}", h.feature).to_lowercase();
        if !feats.contains(&name) {
            feats.push(name);
        }
    }
    if !feats.is_empty() {
        let _ = writeln!(out, "features: {}", feats.join(", "));
    }
    if let Some(c) = &f.cmake {
        let mut bits = Vec::new();
        if let Some(m) = &c.minimum_required {
            bits.push(format!("cmake >= {}", m.value));
        }
        if let Some(s) = c.cxx_standard.as_ref().filter(|s| !s.value.contains("${")) {
            bits.push(format!("C++{}", s.value));
        }
        if let Some(s) = &c.build_shared_libs {
            bits.push(format!("BUILD_SHARED_LIBS={}", s.value));
        }
        bits.push(match (&c.tests, &c.testing) {
            (Some(first), _) => format!("tests: yes ({first})"),
            (None, Some(_)) => "tests: enabled, none registered".to_string(),
            (None, None) => "tests: no".to_string(),
        });
        bits.push(format!(
            "installs: {}",
            if c.installs.is_some() { "yes" } else { "no" }
        ));
        if let Some(g) = c.generators.first() {
            let mut tools: Vec<String> = Vec::new();
            for g in &c.generators {
                let tool = g.tool.to_lowercase();
                if !tools.contains(&tool) {
                    tools.push(tool);
                }
            }
            bits.push(format!(
                "generates with: {} ({})",
                tools.join(", "),
                g.evidence
            ));
        }
        if let Some(copy) = &c.home_copy {
            bits.push(format!("copies into $HOME ({})", copy.evidence));
        }
        if let Some(g) = &c.upstream_generator {
            bits.push(format!(
                "upstream configures with: {} ({})",
                g.value, g.evidence
            ));
        }
        bits.push(format!("{} CMake file(s) read", c.files.len()));
        let _ = writeln!(out, "cmake: {}", bits.join(" · "));
    }

    if let Some(m) = &f.make {
        let _ = writeln!(out, "make: {}", make_line(m));
    }

    let options = option_rows(f);
    list_section(&mut out, "options", &options);
    let deps = dependency_rows(f);
    list_section(&mut out, "dependencies", &deps);
    let downloads: Vec<String> = f
        .downloads
        .iter()
        .map(|d| {
            format!(
                "{:?} {} {} ({})",
                d.kind,
                d.name,
                d.url.as_deref().unwrap_or(""),
                d.evidence
            )
        })
        .collect();
    list_section(
        &mut out,
        "downloads during the build (not allowed in Spack/Nix sandboxes)",
        &downloads,
    );
    let warnings: Vec<String> = f
        .warnings
        .iter()
        .map(|w| {
            if w.line > 0 {
                format!("{}:{}: {}", w.file, w.line, w.message)
            } else {
                format!("{}: {}", w.file, w.message)
            }
        })
        .collect();
    list_section(&mut out, "warnings", &warnings);
    out.push_str("(full facts with evidence: --json)\n");
    out
}

fn lang_name(l: Language) -> &'static str {
    match l {
        Language::C => "C",
        Language::Cxx => "C++",
        Language::Fortran => "Fortran",
        Language::Cuda => "CUDA",
        Language::Hip => "HIP",
        Language::Python => "Python",
        Language::Rust => "Rust",
        Language::Go => "Go",
        Language::JavaScript => "JavaScript",
        Language::Other => "other",
    }
}

fn when(conditions: &[String]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!(" when {}", conditions.join(" AND "))
    }
}

fn option_rows(f: &RepoFacts) -> Vec<String> {
    let mut rows = Vec::new();
    if let Some(c) = &f.cmake {
        for o in &c.options {
            rows.push(format!(
                "{}={}{}",
                o.name,
                o.default.as_deref().unwrap_or("OFF"),
                when(&o.conditions)
            ));
        }
        for v in &c.cache_vars {
            let choices = if v.choices.is_empty() {
                String::new()
            } else {
                format!(" [{}]", v.choices.join("|"))
            };
            rows.push(format!(
                "{}:{}={}{}",
                v.name, v.cache_type, v.default, choices
            ));
        }
    }
    if let Some(m) = &f.meson {
        for o in &m.options {
            rows.push(format!(
                "{} ({})={}",
                o.name,
                o.option_type,
                o.default.as_deref().unwrap_or("")
            ));
        }
    }
    if let Some(a) = &f.autotools {
        for arg in &a.args {
            rows.push(format!("--{}-{}", arg.kind, arg.name));
        }
    }
    rows
}

fn dependency_rows(f: &RepoFacts) -> Vec<String> {
    let mut rows = Vec::new();
    if let Some(c) = &f.cmake {
        for p in &c.find_packages {
            let version = p
                .version
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            let req = if p.required { " required" } else { "" };
            rows.push(format!(
                "{}{version}{req}{} ({})",
                p.name,
                when(&p.conditions),
                p.evidence
            ));
        }
        for p in &c.pkg_config {
            rows.push(format!(
                "pkg-config {}{} ({})",
                p.modules.join(" "),
                when(&p.conditions),
                p.evidence
            ));
        }
    }
    if let Some(m) = &f.meson {
        for d in &m.dependencies {
            rows.push(format!(
                "{} (required: {}) ({})",
                d.name, d.required, d.evidence
            ));
        }
    }
    if let Some(a) = &f.autotools {
        for p in &a.pkg_checks {
            rows.push(format!(
                "pkg-config {} ({})",
                p.modules.join(" "),
                p.evidence
            ));
        }
        for c in &a.checks {
            rows.push(format!(
                "{} {} ({})",
                c.macro_name,
                c.names.join(" "),
                c.evidence
            ));
        }
    }
    if let Some(p) = &f.python {
        for r in &p.dependencies {
            rows.push(format!(
                "python: {}{} ({})",
                r.name, r.specifier, r.evidence
            ));
        }
    }
    for (label, deps) in [
        ("cargo", f.cargo.as_ref().map(|c| &c.dependencies)),
        ("go", f.go.as_ref().map(|g| &g.dependencies)),
        ("npm", f.npm.as_ref().map(|n| &n.dependencies)),
    ] {
        for d in deps.into_iter().flatten() {
            rows.push(format!(
                "{label}: {} {} [{}]",
                d.name, d.requirement, d.kind
            ));
        }
    }
    rows
}

fn list_section(out: &mut String, title: &str, rows: &[String]) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title} ({}):", rows.len());
    for row in rows.iter().take(MAX_ROWS) {
        let _ = writeln!(out, "  {}", clip(row, 110));
    }
    if rows.len() > MAX_ROWS {
        let _ = writeln!(out, "  … +{} more", rows.len() - MAX_ROWS);
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        s.chars().take(max - 1).collect::<String>() + "…"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::{Evidence, MakefileFacts, Sourced};

    #[test]
    fn the_make_line_names_what_a_packager_adds_by_hand() {
        let m = MakefileFacts {
            files: vec!["Makefile".into()],
            libraries: vec![Sourced::new("jack".into(), Evidence::new("Makefile", 3))],
            uninstalled_man_pages: vec!["vi.1".into()],
            writes_home: Some(Evidence::new("Makefile", 289)),
            ..MakefileFacts::default()
        };
        assert_eq!(
            make_line(&m),
            "1 Makefile(s) read · links jack · manual pages not installed: vi.1 \
             · writes under $(HOME) (Makefile:289)"
        );
    }
}
