//! Reader for Go modules: go.mod, `package main` directories, vendor/, go.sum.

use crate::context::Ctx;
use packsmith_core::{Evidence, GoFacts, ManifestDependency};

/// Most `.go` files whose package clause is read.
const MAX_GO_FILES: usize = 5000;

/// Reads the go facts of the repository, or None when it has none.
pub fn analyze(ctx: &mut Ctx<'_>) -> Option<GoFacts> {
    if !ctx.view.exists("go.mod") {
        return None;
    }
    let mut facts = GoFacts {
        file: "go.mod".into(),
        has_vendor_dir: ctx.view.is_dir("vendor"),
        has_sum: ctx.view.exists("go.sum"),
        ..GoFacts::default()
    };
    if let Some(text) = ctx.read("go.mod") {
        read_go_mod(ctx, &text, &mut facts);
    }
    facts.binaries = main_packages(ctx);
    Some(facts)
}

fn read_go_mod(ctx: &mut Ctx<'_>, text: &str, facts: &mut GoFacts) {
    let mut block: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let (code, comment) = match raw.split_once("//") {
            Some((c, m)) => (c.trim(), m.trim()),
            None => (raw.trim(), ""),
        };
        if code.is_empty() {
            continue;
        }
        if code == ")" {
            block = None;
            continue;
        }
        let (verb, rest) = match &block {
            Some(b) => (b.as_str(), code),
            None => {
                let (v, r) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
                let r = r.trim();
                if r == "(" {
                    block = Some(v.to_string());
                    continue;
                }
                (v, r)
            }
        };
        let unquote = |s: &str| s.trim_matches('"').to_string();
        match verb {
            "module" => {
                facts.module = Some(unquote(rest));
                facts.module_evidence = Some(Evidence::new("go.mod", line_no));
            }
            "go" => facts.go_version = Some(rest.to_string()),
            "toolchain" => facts.toolchain = Some(rest.to_string()),
            "require" => {
                let mut parts = rest.split_whitespace();
                let (Some(name), Some(version)) = (parts.next(), parts.next()) else {
                    ctx.warn("go.mod", line_no, format!("unreadable require: {rest}"));
                    continue;
                };
                let indirect = comment.split(';').any(|c| c.trim() == "indirect");
                facts.dependencies.push(ManifestDependency {
                    name: unquote(name),
                    requirement: version.to_string(),
                    kind: if indirect { "indirect" } else { "normal" }.into(),
                    condition: None,
                    evidence: Evidence::new("go.mod", line_no),
                });
            }
            "replace" => facts
                .replaces
                .push(rest.split_whitespace().collect::<Vec<_>>().join(" ")),
            _ => {}
        }
    }
    if facts.module.is_none() {
        ctx.warn("go.mod", 0, "no module directive");
    }
}

/// Directories of this module whose Go files declare `package main`.
fn main_packages(ctx: &mut Ctx<'_>) -> Vec<String> {
    // Nested modules (their own go.mod) and ignored directories are not ours.
    let nested: Vec<String> = ctx
        .view
        .named("go.mod")
        .filter(|f| f.depth > 0)
        .map(|f| format!("{}/", f.dir()))
        .collect();
    let files: Vec<(String, String)> = ctx
        .view
        .files()
        .iter()
        .filter(|f| f.name().ends_with(".go") && !f.name().ends_with("_test.go"))
        .filter(|f| {
            !f.dir().split('/').any(|seg| {
                seg == "vendor" || seg == "testdata" || seg.starts_with('.') || seg.starts_with('_')
            })
        })
        .filter(|f| !nested.iter().any(|n| f.rel.starts_with(n)))
        .map(|f| (f.rel.clone(), f.dir().to_string()))
        .collect();
    if files.len() > MAX_GO_FILES {
        ctx.warn(
            ".",
            0,
            format!("more than {MAX_GO_FILES} Go files; main packages searched in the first ones"),
        );
    }
    let mut out: Vec<String> = Vec::new();
    for (rel, dir) in files.into_iter().take(MAX_GO_FILES) {
        let dir = if dir.is_empty() { ".".to_string() } else { dir };
        if out.contains(&dir) {
            continue;
        }
        let Some(text) = ctx.read(&rel) else { continue };
        if package_clause(&text) == Some("main") {
            out.push(dir);
        }
    }
    out.sort();
    out
}

/// The package name of a Go file (after comments and build constraints).
fn package_clause(text: &str) -> Option<&str> {
    let mut in_block = false;
    for line in text.lines() {
        let mut l = line.trim();
        if in_block {
            match l.find("*/") {
                Some(e) => {
                    in_block = false;
                    l = l[e + 2..].trim();
                }
                None => continue,
            }
        }
        if l.starts_with("/*") {
            match l.find("*/") {
                Some(e) => l = l[e + 2..].trim(),
                None => {
                    in_block = true;
                    continue;
                }
            }
        }
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        return l
            .strip_prefix("package")
            .filter(|r| r.starts_with(char::is_whitespace))
            .and_then(|r| r.split_whitespace().next());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::package_clause;

    #[test]
    fn package_after_comments() {
        let src = "// Copyright\n//go:build linux\n\n/* doc\n more */\npackage main // cmd\n";
        assert_eq!(package_clause(src), Some("main"));
        assert_eq!(package_clause("packagex\n"), None);
    }
}
