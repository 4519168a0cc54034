//! The meson.build files: `project()`, `dependency()`, `subproject()`,
//! `add_languages()`, followed through `subdir()` with `if` conditions.

use super::lexer::{calls, method_calls, tokenize, value, FnCall, Tok, Token, Val};
use crate::context::Ctx;
use crate::support::hints::feature_for_dependency;
use crate::support::lines::LineIndex;
use packsmith_core::{
    Evidence, FeatureHint, FeatureKind, Language, LanguageUse, MesonDependency, MesonFacts,
    MesonProgram,
};
use std::collections::{HashSet, VecDeque};

/// Most meson.build files read through `subdir()`.
const MAX_BUILD_FILES: usize = 300;

/// One file being read, with what it needs to report evidence.
struct FileScan<'t> {
    file: String,
    text: &'t str,
    tokens: Vec<Token>,
    lines: LineIndex,
}

impl FileScan<'_> {
    fn arg(&self, call: &FnCall, key: &str) -> Option<Val> {
        let a = call.args.iter().find(|a| a.key.as_deref() == Some(key))?;
        Some(value(self.text, &self.tokens, a.value.clone()))
    }

    fn positional(&self, call: &FnCall) -> Vec<Val> {
        call.args
            .iter()
            .filter(|a| a.key.is_none())
            .map(|a| value(self.text, &self.tokens, a.value.clone()))
            .collect()
    }

    fn evidence(&self, call: &FnCall) -> Evidence {
        Evidence::new(&self.file, self.lines.line(self.tokens[call.at].start))
    }
}

pub fn read_tree(ctx: &mut Ctx<'_>, facts: &mut MesonFacts) {
    let mut queue: VecDeque<(String, Vec<String>)> = VecDeque::from([(String::new(), Vec::new())]);
    let mut seen = HashSet::new();
    while let Some((dir, inherited)) = queue.pop_front() {
        let file = if dir.is_empty() {
            "meson.build".to_string()
        } else {
            format!("{dir}/meson.build")
        };
        if !seen.insert(file.clone()) || !ctx.view.exists(&file) {
            continue;
        }
        if seen.len() > MAX_BUILD_FILES {
            ctx.warn(
                &file,
                0,
                format!("more than {MAX_BUILD_FILES} meson.build files; the rest not read"),
            );
            break;
        }
        let Some(text) = ctx.read(&file) else {
            continue;
        };
        let scan = FileScan {
            tokens: tokenize(&text),
            lines: LineIndex::new(&text),
            file: file.clone(),
            text: &text,
        };
        facts.files.push(file);
        post_install_programs(&scan, facts);
        let conds = conditions(&scan, &inherited);
        for (call, conditions) in calls(&scan.tokens).iter().zip(conds) {
            match call.name.as_str() {
                "project" if dir.is_empty() && facts.project_evidence.is_none() => {
                    read_project(ctx, &scan, call, facts);
                }
                "dependency" => read_dependency(ctx, &scan, call, conditions, facts),
                "subproject" => {
                    if let Some(Val::Str(name)) = scan.positional(call).first() {
                        if !facts.subprojects.contains(name) {
                            facts.subprojects.push(name.clone());
                        }
                    }
                }
                "add_languages" => {
                    let optional = scan
                        .arg(call, "required")
                        .is_some_and(|v| v.text() != "true");
                    let mut conditions = conditions;
                    if optional {
                        conditions.push("add_languages(required: false)".into());
                    }
                    for v in scan.positional(call) {
                        for lang in v.strings() {
                            add_language(
                                ctx,
                                facts,
                                &lang,
                                "meson add_languages",
                                &conditions,
                                scan.evidence(call),
                            );
                        }
                    }
                }
                "find_program" => {
                    let required = scan
                        .arg(call, "required")
                        .map_or_else(|| "true".to_string(), |v| v.text());
                    // find_program('a', 'b') tries each name: the first is the tool.
                    if let Some(name) = scan
                        .positional(call)
                        .first()
                        .and_then(|v| v.strings().into_iter().next())
                    {
                        facts.programs.push(MesonProgram {
                            name,
                            required,
                            evidence: scan.evidence(call),
                        });
                    }
                }
                "import" => {
                    if let Some(Val::Str(m)) = scan.positional(call).first() {
                        if !facts.modules.contains(m) {
                            facts.modules.push(m.clone());
                        }
                        if m == "python" || m == "python3" {
                            ctx.features.push(FeatureHint {
                                feature: FeatureKind::Python,
                                detail: format!("import('{m}')"),
                                conditions,
                                evidence: scan.evidence(call),
                            });
                        }
                    }
                }
                "subdir" => {
                    if let Some(Val::Str(sub)) = scan.positional(call).first() {
                        let child = join(&dir, sub);
                        if ctx.view.exists(&format!("{child}/meson.build")) {
                            queue.push_back((child, conditions));
                        } else {
                            let ev = scan.evidence(call);
                            ctx.warn(
                                &ev.file,
                                ev.line,
                                format!("subdir('{sub}') has no {child}/meson.build"),
                            );
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// The programs `gnome.post_install()` runs for the switches it is given
/// (Meson looks each up at configure time; the icon cache's must exist).
fn post_install_programs(scan: &FileScan<'_>, facts: &mut MesonFacts) {
    const PROGRAMS: &[(&str, &str)] = &[
        ("glib_compile_schemas", "glib-compile-schemas"),
        ("gtk_update_icon_cache", "gtk-update-icon-cache"),
        ("update_desktop_database", "update-desktop-database"),
    ];
    for call in method_calls(&scan.tokens, "post_install") {
        for (switch, program) in PROGRAMS {
            if scan.arg(&call, switch).is_some_and(|v| v.text() == "true") {
                facts.programs.push(MesonProgram {
                    name: program.to_string(),
                    required: "true".into(),
                    evidence: scan.evidence(&call),
                });
            }
        }
    }
}

fn join(dir: &str, sub: &str) -> String {
    let sub = sub.trim_matches('/');
    if dir.is_empty() {
        sub.to_string()
    } else {
        format!("{dir}/{sub}")
    }
}

fn read_project(ctx: &mut Ctx<'_>, scan: &FileScan<'_>, call: &FnCall, facts: &mut MesonFacts) {
    let evidence = scan.evidence(call);
    let positional = scan.positional(call);
    facts.project = positional.first().map(Val::text);
    for v in positional.iter().skip(1) {
        for lang in v.strings() {
            add_language(ctx, facts, &lang, "meson project", &[], evidence.clone());
        }
    }
    facts.version = scan.arg(call, "version").map(|v| {
        if let Val::Expr(e) = &v {
            ctx.warn(
                &evidence.file,
                evidence.line,
                format!("project version is computed (`{e}`), recorded as written"),
            );
        }
        v.text()
    });
    facts.license = scan.arg(call, "license").map(|v| v.text());
    facts.meson_version = scan.arg(call, "meson_version").map(|v| v.text());
    facts.project_evidence = Some(evidence);
}

fn read_dependency(
    ctx: &mut Ctx<'_>,
    scan: &FileScan<'_>,
    call: &FnCall,
    conditions: Vec<String>,
    facts: &mut MesonFacts,
) {
    let Some(first) = scan.positional(call).into_iter().next() else {
        return;
    };
    let name = first.text();
    if name.is_empty() {
        return;
    }
    let evidence = scan.evidence(call);
    if let Some(feature) = feature_for_dependency(&name) {
        ctx.features.push(FeatureHint {
            feature,
            detail: format!("dependency('{name}')"),
            conditions: conditions.clone(),
            evidence: evidence.clone(),
        });
    }
    facts.dependencies.push(MesonDependency {
        name,
        version: scan.arg(call, "version").map(|v| v.text()),
        required: scan
            .arg(call, "required")
            .map_or_else(|| "true".to_string(), |v| v.text()),
        fallback: scan.arg(call, "fallback").map(|v| v.text()),
        conditions,
        evidence,
    });
}

fn add_language(
    ctx: &mut Ctx<'_>,
    facts: &mut MesonFacts,
    token: &str,
    how: &str,
    conditions: &[String],
    evidence: Evidence,
) {
    if !facts.languages.iter().any(|l| l == token) {
        facts.languages.push(token.to_string());
    }
    let language = Language::from_token(token).unwrap_or(Language::Other);
    if language == Language::Cuda {
        ctx.features.push(FeatureHint {
            feature: FeatureKind::Cuda,
            detail: format!("{how}('cuda')"),
            conditions: conditions.to_vec(),
            evidence: evidence.clone(),
        });
    }
    ctx.languages.push(LanguageUse {
        language,
        how: how.to_string(),
        conditions: conditions.to_vec(),
        evidence,
    });
}

/// The `if` conditions around each call of the file, in call order,
/// each list starting with the conditions inherited through `subdir()`.
fn conditions(scan: &FileScan<'_>, inherited: &[String]) -> Vec<Vec<String>> {
    let call_at: Vec<usize> = calls(&scan.tokens).iter().map(|c| c.at).collect();
    let mut out = Vec::with_capacity(call_at.len());
    let mut stack: Vec<String> = Vec::new();
    let mut next_call = 0;
    let mut statement_start = true;
    for (i, t) in scan.tokens.iter().enumerate() {
        while next_call < call_at.len() && call_at[next_call] == i {
            let mut c = inherited.to_vec();
            c.extend(stack.iter().cloned());
            out.push(c);
            next_call += 1;
        }
        if statement_start {
            if let Tok::Ident(kw) = &t.tok {
                match kw.as_str() {
                    "if" => stack.push(rest_of_line(scan, i + 1)),
                    "elif" => {
                        let prev = stack.pop().unwrap_or_default();
                        stack.push(format!("not ({prev}) and {}", rest_of_line(scan, i + 1)));
                    }
                    "else" => {
                        let prev = stack.pop().unwrap_or_default();
                        stack.push(format!("not ({prev})"));
                    }
                    "endif" => {
                        stack.pop();
                    }
                    _ => {}
                }
            }
        }
        statement_start = t.tok == Tok::Newline;
    }
    // Calls after the last token (none in practice) get the open conditions.
    while out.len() < call_at.len() {
        out.push(inherited.to_vec());
    }
    out
}

/// Source text from token `from` to the end of the statement.
fn rest_of_line(scan: &FileScan<'_>, from: usize) -> String {
    let end = scan.tokens[from..]
        .iter()
        .position(|t| t.tok == Tok::Newline)
        .map_or(scan.tokens.len(), |p| from + p);
    if from >= end {
        return String::new();
    }
    let text = &scan.text[scan.tokens[from].start..scan.tokens[end - 1].end];
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
