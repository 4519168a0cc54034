//! Repairs by rule: from the static check's findings on a recipe and the
//! names a failed Spack stage mentions, the edit lists that would fix it,
//! most likely first. The caller tries them cheapest-first (static check,
//! then Spack) and asks a model only when none helps; the same candidates
//! become the model's menu.

use super::locate::{self, Reading};
use super::{EditOp, OpKind};
use crate::base_classes::BASE_CLASSES;
use crate::check::{
    check, directive_keywords, quoted_words, CheckOptions, Code, Diagnostic, DEPENDENCY_TYPES,
};
use crate::kb::query::edit_distance;
use crate::kb::NameIndex;
use crate::mapping::SpackNames;
use crate::mapping::{fix_name, NameFix};
use crate::recipe::{ParsedRecipe, RecipeTree, Value, VariantValues};
use crate::spec::{parse as parse_spec, VariantValue};
use crate::target::TargetSpack;

/// One repair to try.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub edits: Vec<EditOp>,
    /// Why, for the trace and the model's "tried" list.
    pub why: String,
}

/// What the rules read.
pub struct RuleInput<'a> {
    /// The recipe, parsed once for the check, the rules and the edits.
    pub tree: &'a RecipeTree,
    pub package: &'a str,
    pub spack: TargetSpack,
    pub names: Option<&'a NameIndex>,
    /// Names a failed stage mentions: unknown packages, undefined Python
    /// names, variants Spack did not find.
    pub failure_names: &'a [String],
}

/// The check's errors on the recipe.
pub fn check_errors(input: &RuleInput) -> Vec<Diagnostic> {
    let opts = CheckOptions {
        spack: input.spack,
        names: input.names,
        package: Some(input.package),
    };
    check(input.tree, &opts)
        .into_iter()
        .filter(|d| d.severity == crate::check::Severity::Error)
        .collect()
}

/// Every candidate repair, best first, without duplicates.
pub fn rule_candidates(input: &RuleInput) -> Vec<Candidate> {
    let recipe = input.tree.recipe();
    let reading = locate::read_tree(input.tree).ok();
    let mut out: Vec<Candidate> = Vec::new();
    for d in check_errors(input) {
        out.extend(for_diagnostic(input, recipe, reading.as_ref(), &d));
    }
    for name in input.failure_names {
        out.extend(for_failure_name(input, recipe, name));
    }
    let mut seen = Vec::new();
    out.retain(|c| {
        let fresh = !seen.contains(&c.edits);
        if fresh {
            seen.push(c.edits.clone());
        }
        fresh
    });
    out
}

fn one(edit: EditOp, why: impl Into<String>) -> Candidate {
    Candidate {
        edits: vec![edit],
        why: why.into(),
    }
}

fn for_diagnostic(
    input: &RuleInput,
    recipe: &ParsedRecipe,
    reading: Option<&Reading>,
    d: &Diagnostic,
) -> Vec<Candidate> {
    match d.code {
        Code::MissingImport => missing_import(recipe, d),
        Code::UnknownDependency => unknown_dependencies(input, recipe),
        Code::SelfDependency => vec![one(
            EditOp::RemoveDependency {
                name: input.package.to_string(),
            },
            "a package cannot depend on itself",
        )],
        Code::BadSpec => reading.map_or_else(Vec::new, |r| repeated_variant(r, d.line)),
        Code::UndeclaredVariant => undeclared_variants(input.tree.source(), recipe, d.line),
        Code::VariantDefault | Code::VariantNoDefault | Code::VariantValues => {
            variant_defaults(recipe, d.line)
        }
        Code::DirectiveArguments => reading.map_or_else(Vec::new, |r| {
            let mut out = misspelt_keyword(input.tree.source(), r, d.line);
            out.extend(misspelt_dependency_type(input.tree.source(), r, d.line));
            out
        }),
        _ => Vec::new(),
    }
}

/// `from spack.package import *` when the recipe lacks it, else a base
/// class that is neither imported nor defined renamed to the closest
/// builtin class.
fn missing_import(recipe: &ParsedRecipe, d: &Diagnostic) -> Vec<Candidate> {
    let mut out = Vec::new();
    if !recipe.imports.iter().any(|i| i.module == "spack.package") {
        out.push(one(
            EditOp::AddSpackImport {},
            "the recipe does not import spack.package",
        ));
    }
    for base in &recipe.bases {
        if d.message.contains(&format!("`{base}`"))
            && crate::base_classes::base_class(base).is_none()
        {
            out.extend(closest_base_classes(base, recipe));
        }
    }
    out
}

/// The builtin classes close to a misspelt `base`: the one the recipe's
/// own methods and attributes point at first (`cmake_args` → CMake,
/// `pypi` → Python, …), then by edit distance.
fn closest_base_classes(base: &str, recipe: &ParsedRecipe) -> Vec<Candidate> {
    let lower = base.to_ascii_lowercase();
    let limit = (lower.len() / 2).max(3);
    let evidence = class_evidence(recipe);
    let mut scored: Vec<(bool, usize, &str)> = BASE_CLASSES
        .iter()
        .map(|c| {
            let d = edit_distance(&lower, &c.name.to_ascii_lowercase());
            (evidence != Some(c.name), d, c.name)
        })
        .filter(|(_, d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(3)
        .map(|(_, _, name)| {
            one(
                EditOp::ChangeBaseClass {
                    from: base.to_string(),
                    to: name.to_string(),
                },
                format!("`{base}` is no Spack class; `{name}` is"),
            )
        })
        .collect()
}

/// The build-system class a recipe's own methods or attributes belong to.
fn class_evidence(recipe: &ParsedRecipe) -> Option<&'static str> {
    let has = |m: &str| recipe.has_method(m);
    let attr = |a: &str| recipe.attributes.iter().any(|x| x.name == a);
    if has("cmake_args") {
        Some("CMakePackage")
    } else if has("configure_args") || has("autoreconf") {
        Some("AutotoolsPackage")
    } else if has("meson_args") {
        Some("MesonPackage")
    } else if attr("pypi") || has("install_options") || has("config_settings") {
        Some("PythonPackage")
    } else if attr("cran") || attr("bioc") {
        Some("RPackage")
    } else if has("edit") || attr("build_targets") || attr("install_targets") {
        Some("MakefilePackage")
    } else {
        None
    }
}

/// A name Spack does not know, renamed to what it stands for or to the
/// closest known names.
fn rename_unknown(input: &RuleInput, name: &str) -> Vec<Candidate> {
    let Some(names) = input.names.map(|n| n as &dyn SpackNames) else {
        return Vec::new();
    };
    let targets: Vec<(String, String)> = match fix_name(name, names) {
        NameFix::Known => Vec::new(),
        NameFix::Resolved { name: to, evidence } => vec![(to, evidence)],
        NameFix::Unresolved { closest } => closest
            .into_iter()
            .map(|c| (c, "the closest known name".to_string()))
            .collect(),
    };
    targets
        .into_iter()
        .map(|(to, why)| {
            one(
                EditOp::RenameDependency {
                    from: name.to_string(),
                    to: to.clone(),
                },
                format!("Spack knows no `{name}`; `{to}` ({why})"),
            )
        })
        .collect()
}

fn unknown_dependencies(input: &RuleInput, recipe: &ParsedRecipe) -> Vec<Candidate> {
    let Some(names) = input.names.map(|n| n as &dyn SpackNames) else {
        return Vec::new();
    };
    recipe
        .dependencies
        .iter()
        .filter(|d| !d.name.is_empty() && fix_name(&d.name, names) != NameFix::Known)
        .flat_map(|d| rename_unknown(input, &d.name))
        .collect()
}

/// `when="+x ~x"`: one of the two settings dropped (either may be meant).
fn repeated_variant(reading: &Reading, line: u32) -> Vec<Candidate> {
    let Some(d) = reading.directives.iter().copied().find(|d| d.line == line) else {
        return Vec::new();
    };
    let Some(when) = d.keyword("when").and_then(|a| a.literal.clone()) else {
        return Vec::new();
    };
    let settings = variant_settings(&when);
    let mut out = Vec::new();
    for (i, (name, ..)) in settings.iter().enumerate() {
        let Some(first) = settings[..i].iter().position(|(n, ..)| n == name) else {
            continue;
        };
        // The setting written first is the likelier intent: a second one
        // is usually the slip.
        for (drop, which) in [
            (i, "the setting written first"),
            (first, "the later setting"),
        ] {
            let (_, start, end) = &settings[drop];
            let kept = format!("{}{}", &when[..*start], &when[*end..]);
            let kept = kept.split_whitespace().collect::<Vec<_>>().join(" ");
            let why = format!(
                "`{when}` sets variant `{name}` twice and can never hold; keeps {which}, `{kept}`"
            );
            out.push(one(
                EditOp::SetWhen {
                    line,
                    when: (!kept.is_empty()).then_some(kept),
                },
                why,
            ));
        }
    }
    out
}

/// The variant settings of a spec string with their byte ranges:
/// `+x`, `~x`, `-x` (after a space) and `x=value`.
fn variant_settings(spec: &str) -> Vec<(String, usize, usize)> {
    let bytes = spec.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let sigil = c == b'+' || c == b'~' || (c == b'-' && (i == 0 || bytes[i - 1] == b' '));
        if sigil {
            let start = i;
            i += 1;
            while i < bytes.len() && ident(bytes[i]) {
                i += 1;
            }
            if i > start + 1 {
                out.push((spec[start + 1..i].to_string(), start, i));
            }
            continue;
        }
        if c.is_ascii_alphabetic() && (i == 0 || bytes[i - 1] == b' ') {
            let start = i;
            while i < bytes.len() && ident(bytes[i]) {
                i += 1;
            }
            if bytes.get(i) == Some(&b'=') {
                let name = spec[start..i].to_string();
                while i < bytes.len() && bytes[i] != b' ' {
                    i += 1;
                }
                out.push((name, start, i));
            }
            continue;
        }
        i += 1;
    }
    out
}

/// Variants used in specs on `line` that the recipe does not declare:
/// declared, boolean and off (or with the value used).
fn undeclared_variants(source: &str, recipe: &ParsedRecipe, line: u32) -> Vec<Candidate> {
    let declared: Vec<&str> = recipe.variants.iter().map(|v| v.name.as_str()).collect();
    let text = source
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    let mut out = Vec::new();
    for literal in quoted_words(text) {
        let Ok(spec) = parse_spec(&literal) else {
            continue;
        };
        for v in &spec.variants {
            if declared.contains(&v.name.as_str())
                || out
                    .iter()
                    .any(|c: &Candidate| c.why.contains(&format!("`{}`", v.name)))
            {
                continue;
            }
            let default = match &v.value {
                VariantValue::Bool(_) => serde_json::Value::Bool(false),
                VariantValue::Values(vals) => match vals.first() {
                    Some(first) => serde_json::Value::String(first.clone()),
                    None => continue,
                },
            };
            out.push(one(
                EditOp::AddVariant {
                    name: v.name.clone(),
                    default,
                    description: Some(format!("Enable {}", v.name)),
                    values: Vec::new(),
                    when: None,
                },
                format!("variant `{}` is used but not declared", v.name),
            ));
        }
    }
    out
}

/// A variant whose default Spack refuses: each allowed value as the
/// default, the one closest to the bad default first; a boolean default
/// when it has no values.
fn variant_defaults(recipe: &ParsedRecipe, line: u32) -> Vec<Candidate> {
    let Some(v) = recipe
        .variants
        .iter()
        .filter(|v| v.line <= line)
        .max_by_key(|v| v.line)
    else {
        return Vec::new();
    };
    let bad = v
        .default
        .as_ref()
        .and_then(|d| match d {
            Value::Str(s) => Some(s.to_ascii_lowercase()),
            _ => None,
        })
        .unwrap_or_default();
    let mut values: Vec<String> = match &v.values {
        Some(VariantValues::Items(items)) => items
            .iter()
            .filter_map(|i| match i {
                Value::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    values.sort_by_key(|s| edit_distance(&s.to_ascii_lowercase(), &bad));
    let mut out: Vec<Candidate> = values
        .into_iter()
        .take(3)
        .map(|val| {
            one(
                EditOp::SetVariantDefault {
                    name: v.name.clone(),
                    default: serde_json::Value::String(val.clone()),
                },
                format!("variant `{}` needs a default among its values", v.name),
            )
        })
        .collect();
    if out.is_empty() {
        out.push(one(
            EditOp::SetVariantDefault {
                name: v.name.clone(),
                default: serde_json::Value::Bool(false),
            },
            format!("variant `{}` needs a real default", v.name),
        ));
    }
    out
}

/// A keyword the directive on `line` does not take, renamed to the
/// closest one it does.
fn misspelt_keyword(source: &str, reading: &Reading, line: u32) -> Vec<Candidate> {
    let Some(d) = reading.directives.iter().copied().find(|d| d.line == line) else {
        return Vec::new();
    };
    let Some(allowed) = directive_keywords(&d.name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for arg in &d.args {
        let Some(key) = arg.keyword.as_deref() else {
            continue;
        };
        if allowed.contains(&key) {
            continue;
        }
        let Some(best) = allowed
            .iter()
            .min_by_key(|a| edit_distance(a, key))
            .filter(|a| edit_distance(a, key) <= 3)
        else {
            continue;
        };
        let start = arg.whole.start;
        let line_start = locate::line_start(source, start);
        let line_end = locate::line_end(source, start);
        let old = source[line_start..line_end].trim_end_matches('\n');
        let col = start - line_start;
        let new = format!("{}{best}{}", &old[..col], &old[col + key.len()..]);
        out.push(one(
            EditOp::ReplaceLine {
                line: u32::try_from(source[..start].matches('\n').count() + 1).unwrap_or(line),
                end_line: None,
                text: new,
            },
            format!("`{}` takes no `{key}=`; `{best}=` is meant", d.name),
        ));
    }
    out
}

/// A dependency type Spack does not know on `line`, replaced by the
/// closest one it does (`buid` → `build`).
fn misspelt_dependency_type(source: &str, reading: &Reading, line: u32) -> Vec<Candidate> {
    let Some(d) = reading.directives.iter().copied().find(|d| d.line == line) else {
        return Vec::new();
    };
    let Some(arg) = d.keyword("type") else {
        return Vec::new();
    };
    let value = &source[arg.value.clone()];
    let mut fixed = value.to_string();
    for t in quoted_words(value) {
        if DEPENDENCY_TYPES.contains(&t.as_str()) {
            continue;
        }
        let Some(best) = DEPENDENCY_TYPES.iter().min_by_key(|k| edit_distance(k, &t)) else {
            continue;
        };
        fixed = fixed.replacen(&format!("\"{t}\""), &format!("\"{best}\""), 1);
        fixed = fixed.replacen(&format!("'{t}'"), &format!("'{best}'"), 1);
    }
    if fixed == value {
        return Vec::new();
    }
    let start = locate::line_start(source, arg.value.start);
    let end = locate::line_end(source, arg.value.end);
    let whole = &source[start..end];
    if whole.matches('\n').count() > 1 {
        return Vec::new();
    }
    let text = format!(
        "{}{fixed}{}",
        &source[start..arg.value.start],
        source[arg.value.end..end].trim_end_matches('\n')
    );
    vec![one(
        EditOp::ReplaceLine {
            line: u32::try_from(source[..start].matches('\n').count() + 1).unwrap_or(line),
            end_line: None,
            text,
        },
        format!("`{value}` holds a dependency type Spack does not know"),
    )]
}

/// A name a failed stage reported: an unknown package renamed, an
/// undefined class name replaced by the closest builtin class.
fn for_failure_name(input: &RuleInput, recipe: &ParsedRecipe, name: &str) -> Vec<Candidate> {
    if recipe.bases.iter().any(|b| b == name) {
        return closest_base_classes(name, recipe);
    }
    if recipe.dependencies.iter().any(|d| d.name == name) {
        return rename_unknown(input, name);
    }
    Vec::new()
}

/// The operations that fit a failure, for a model's menu: those of the
/// candidates plus the ones its kind of failure usually needs, and always
/// `replace_line` as the escape hatch. The kinds only rule repairs use
/// ([`OpKind::rule_only`]) are never on it.
pub fn menu_ops(candidates: &[Candidate], failure_class: &str) -> Vec<OpKind> {
    let mut ops: Vec<OpKind> = candidates
        .iter()
        .flat_map(|c| c.edits.iter().map(EditOp::kind))
        .filter(|k| !k.rule_only())
        .collect();
    let usual: &[OpKind] = match failure_class {
        "unknown_package" => &[OpKind::RenameDependency, OpKind::RemoveDependency],
        "constraint" => &[
            OpKind::SetVariantDefault,
            OpKind::SetWhen,
            OpKind::AddConflicts,
            OpKind::RemoveDependency,
        ],
        "missing_dependency" | "undeclared_dependency" => &[
            OpKind::AddDependency,
            OpKind::AddCmakeDefine,
            OpKind::AddConfigureArg,
        ],
        // Declared and still not run: the build calls it by another name.
        "missing_build_tool" => &[OpKind::AddDependency, OpKind::FilterFile],
        "cmake_configure" | "configure_download" => &[
            OpKind::AddCmakeDefine,
            OpKind::RemoveCmakeDefine,
            OpKind::AddDependency,
        ],
        "compiler_compat" | "compilation" => &[
            OpKind::AddCompilerFlag,
            OpKind::AddConflicts,
            OpKind::FilterFile,
        ],
        "no_install_target" | "missing_source_file" => &[OpKind::FilterFile],
        // A build file made from one of the project's templates.
        "missing_build_config" => &[OpKind::CopyFile],
        "syntax" => &[OpKind::AddSpackImport, OpKind::ChangeBaseClass],
        _ => &[],
    };
    ops.extend_from_slice(usual);
    ops.push(OpKind::ReplaceLine);
    ops.sort();
    ops.dedup();
    ops
}
