//! Spec strings in directives: syntax (exact column), dependency names
//! against the knowledge base, language virtuals, duplicates.

use std::collections::HashMap;

use super::{Code, Diagnostic, Input};
use crate::mapping::{fix_name, Known, NameFix, SpackNames};
use crate::recipe::layout::{Call, StrLit};
use crate::spec::{self, Spec};
use crate::target::TargetSpack;

/// Directives whose `when=` is a spec (calls of other names are left alone:
/// a recipe may define helpers with a `when` argument of its own).
const DIRECTIVES: &[&str] = &[
    "can_splice",
    "conflicts",
    "depends_on",
    "extends",
    "license",
    "patch",
    "provides",
    "redistribute",
    "requires",
    "resource",
    "variant",
];

const LANGUAGE_VIRTUALS: &[&str] = &["c", "cxx", "fortran"];

/// The spec-valued positional arguments of a directive.
fn positional_specs(call: &Call) -> Vec<&StrLit> {
    let take = match call.name.as_str() {
        "depends_on" | "conflicts" | "extends" | "can_splice" => 1,
        "requires" | "provides" => usize::MAX,
        _ => 0,
    };
    call.positional()
        .take(take)
        .filter_map(|a| a.lit.as_ref())
        .collect()
}

/// Parses a spec string, reporting a syntax error at its exact position.
pub(super) fn parse_at(lit: &StrLit, out: &mut Vec<Diagnostic>) -> Option<Spec> {
    match spec::parse(&lit.value) {
        Ok(s) => {
            twice_named_variant(lit, &s, out);
            Some(s)
        }
        Err(e) => {
            let (line, col) = lit.at(e.offset);
            out.push(Diagnostic::new(
                Code::BadSpec,
                line,
                col,
                format!("invalid spec `{}`: {}", lit.value, e.message),
            ));
            None
        }
    }
}

/// `+x ~x` (or `x=a x=b`) in one spec: Spack refuses the recipe when it
/// loads it ("Cannot specify variant \"x\" twice"); such a `when=` could
/// never hold anyway.
fn twice_named_variant(lit: &StrLit, parsed: &Spec, out: &mut Vec<Diagnostic>) {
    for (i, v) in parsed.variants.iter().enumerate() {
        if parsed.variants[..i].iter().any(|w| w.name == v.name) {
            let (line, col) = lit.at(v.span.offset);
            out.push(Diagnostic::new(
                Code::BadSpec,
                line,
                col,
                format!(
                    "invalid spec `{}`: variant `{}` is given twice, which Spack refuses when \
                     loading the recipe; keep one value (a condition on both can never hold)",
                    lit.value, v.name
                ),
            ));
            return;
        }
    }
}

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    let mut seen_when: HashMap<(u32, u32), ()> = HashMap::new();
    let mut seen: HashMap<String, (u32, u32)> = HashMap::new();
    for call in input.layout.calls() {
        if !DIRECTIVES.contains(&call.name.as_str()) {
            continue;
        }
        for lit in &call.when_stack {
            // A `with when()` block holds many calls: parse its condition once.
            if seen_when.insert((lit.line, lit.col), ()).is_none() {
                if let Some(parsed) = parse_at(lit, out) {
                    condition_name(input, lit, &parsed, out);
                }
            }
        }
        if let Some(lit) = call.keyword("when").and_then(|a| a.lit.as_ref()) {
            if let Some(parsed) = parse_at(lit, out) {
                condition_name(input, lit, &parsed, out);
            }
        }
        for (i, lit) in positional_specs(call).into_iter().enumerate() {
            let Some(parsed) = parse_at(lit, out) else {
                continue;
            };
            if i == 0 && matches!(call.name.as_str(), "depends_on" | "extends") {
                dependency_name(input, lit, &parsed, out);
            }
            if i == 0 && call.name == "depends_on" {
                language_of_build_type(input, call, lit, &parsed, out);
            }
        }
        if matches!(
            call.name.as_str(),
            "depends_on" | "conflicts" | "provides" | "requires"
        ) && input.recipe.syntax_errors.is_empty()
        {
            let key = format!(
                "{}|{}|{}|{:?}|{:?}",
                call.class,
                call.name,
                call.args
                    .iter()
                    .map(|a| format!("{:?}={}", a.keyword, a.text))
                    .collect::<Vec<_>>()
                    .join(","),
                call.when_stack
                    .iter()
                    .map(|w| w.value.as_str())
                    .collect::<Vec<_>>(),
                call.scope
            );
            if let Some((line, _)) = seen.get(&key) {
                out.push(Diagnostic::new(
                    Code::Duplicate,
                    call.line,
                    call.col,
                    format!("`{}` repeats the directive on line {line} with the same arguments and condition", call.name),
                ));
            } else {
                seen.insert(key, (call.line, call.col));
            }
        }
    }
}

/// A condition is on the package itself, so it names no other package:
/// `when="mpi"` (or a model's `when="self.run_tests"`) is refused by
/// `spack audit packages` ("wrong 'when=' condition"); a condition on a
/// dependency is written `^mpi`.
fn condition_name(input: &Input, lit: &StrLit, parsed: &Spec, out: &mut Vec<Diagnostic>) {
    let Some(name) = parsed.short_name() else {
        return;
    };
    let own = match (input.opts.package, input.recipe.class_name.as_deref()) {
        (Some(package), _) => name == package,
        (None, Some(class)) => super::names::spack_class_name(name) == class,
        (None, None) => true,
    };
    if own {
        return;
    }
    let message = if lit.value.starts_with("self.") {
        format!(
            "`when=\"{}\"` is Python, not a condition: Spack reads it as the package `{name}` \
             and its audit refuses it; a dependency only the tests need is `type=\"test\"` with \
             no `when=`",
            lit.value
        )
    } else {
        format!(
            "`when=\"{}\"` names `{name}`: a condition is on the package itself and names no \
             package (`@1.2:`, `+x`); a condition on a dependency is written `^{name}`. Spack's \
             audit refuses it",
            lit.value
        )
    };
    out.push(Diagnostic::new(Code::BadSpec, lit.line, lit.col, message));
}

/// `depends_on("cxx")` of any type but `build`: Spack refuses the recipe at
/// load ("languages must be of 'build' type"). A virtual Spack 0.23 does
/// not know is PS402's other message already.
fn language_of_build_type(
    input: &Input,
    call: &crate::recipe::layout::Call,
    lit: &StrLit,
    parsed: &Spec,
    out: &mut Vec<Diagnostic>,
) {
    let Some(name) = parsed.short_name() else {
        return;
    };
    let unknown_here = input.opts.spack == TargetSpack::V0_23
        && input
            .opts
            .names
            .is_none_or(|n| n.lookup(name) == Known::Unknown);
    if !LANGUAGE_VIRTUALS.contains(&name) || unknown_here {
        return;
    }
    let types = call.keyword("type").map(|a| {
        a.text
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ',')
            .collect::<String>()
    });
    if types.as_deref().map(|t| t.trim_matches(',')) != Some("build") {
        out.push(Diagnostic::new(
            Code::LanguageVirtual,
            lit.line,
            lit.col,
            format!("`depends_on(\"{name}\")` must be of type \"build\" only (Spack refuses any other type for a language); write `depends_on(\"{name}\", type=\"build\")`"),
        ));
    }
}

fn dependency_name(input: &Input, lit: &StrLit, parsed: &Spec, out: &mut Vec<Diagnostic>) {
    let Some(name) = parsed.short_name() else {
        return;
    };
    // The package itself is no dependency: PS403 says so.
    if input.opts.package == Some(name) {
        return;
    }
    let names = input.opts.names;
    let known = names.map(|n| n.lookup(name));
    if input.opts.spack == TargetSpack::V0_23
        && LANGUAGE_VIRTUALS.contains(&name)
        && known.is_none_or(|k| k == Known::Unknown)
    {
        out.push(Diagnostic::new(
            Code::LanguageVirtual,
            lit.line,
            lit.col,
            format!("`depends_on(\"{name}\")`: Spack 0.23 has no `{name}` language virtual; remove it (the compiler is implied)"),
        ));
        return;
    }
    if let (Some(names), Some(Known::Unknown)) = (names, known) {
        let hint = match fix_name(name, names) {
            NameFix::Resolved { name, evidence } => {
                format!("; did you mean `{name}`? ({evidence})")
            }
            NameFix::Unresolved { closest } => match closest.split_first() {
                Some((first, [])) => format!("; did you mean `{first}`?"),
                Some((first, rest)) => format!(
                    "; did you mean `{first}`? (also close: {})",
                    rest.iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "; no known name is close: package it first, or drop the dependency".into(),
            },
            NameFix::Known => String::new(),
        };
        out.push(Diagnostic::new(
            Code::UnknownDependency,
            lit.line,
            lit.col,
            format!("`{name}` is neither a package nor a virtual in the knowledge base{hint}"),
        ));
    }
}
