//! Variants: every variant a condition or `define_from_variant` names must
//! be declared (by the recipe, a local base class, or a builtin base
//! class), and a default must be one of the allowed values.

use std::collections::HashSet;

use super::specs::parse_at;
use super::{Code, Diagnostic, Input};
use crate::base_classes::builtin_module;
use crate::recipe::layout::StrLit;
use crate::recipe::{DefineHow, Value, VariantValues};
use crate::spec::Spec;

/// Variants builtin base classes declare (both generations agree).
pub(crate) const INHERITED: &[(&str, &[&str])] = &[
    ("CMakePackage", &["build_type", "generator", "ipo"]),
    ("CachedCMakePackage", &["build_type", "generator", "ipo"]),
    ("CudaPackage", &["cuda", "cuda_arch"]),
    ("IntelOneApiLibraryPackage", &["envmods"]),
    ("IntelOneApiLibraryPackageWithSdk", &["envmods"]),
    ("IntelOneApiPackage", &["envmods"]),
    ("IntelOneApiStaticLibraryList", &["envmods"]),
    ("MesonPackage", &["buildtype", "default_library", "strip"]),
    ("ROCmPackage", &["rocm", "amdgpu_target"]),
];

/// Variants every package has, or keys Spack treats specially.
const SPECIAL: &[&str] = &["build_system", "patches", "dev_path", "commit", "namespace"];

/// Declared variant names, or None when a base class outside the file
/// and outside the builtin build systems may declare more.
fn declared(input: &Input) -> Option<HashSet<String>> {
    let dynamic = input
        .layout
        .calls()
        .any(|c| c.name == "variant" && c.positional().next().is_none_or(|a| a.lit.is_none()));
    if dynamic {
        return None;
    }
    let mut names: HashSet<String> = input
        .recipe
        .variants
        .iter()
        .map(|v| v.name.clone())
        .collect();
    names.extend(
        input
            .layout
            .calls()
            .filter(|c| c.name == "variant")
            .filter_map(|c| c.positional().next()?.lit.as_ref().map(|l| l.value.clone())),
    );
    names.extend(SPECIAL.iter().map(|s| s.to_string()));
    for class in &input.layout.classes {
        for base in class.base_names() {
            let short = base.rsplit('.').next().unwrap_or(base);
            if input.layout.classes.iter().any(|c| c.name == short) {
                continue;
            }
            // A base from elsewhere may declare variants we cannot see.
            builtin_module(short)?;
            if let Some((_, vs)) = INHERITED.iter().find(|(b, _)| *b == short) {
                names.extend(vs.iter().map(|v| v.to_string()));
            }
        }
    }
    Some(names)
}

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    defaults(input, out);
    let Some(declared) = declared(input) else {
        return;
    };
    let package = input.opts.package;
    let mut conditions: Vec<&StrLit> = Vec::new();
    let mut seen_with: HashSet<(u32, u32)> = HashSet::new();
    for call in input.layout.calls() {
        for lit in &call.when_stack {
            if seen_with.insert((lit.line, lit.col)) {
                conditions.push(lit);
            }
        }
        if let Some(lit) = call.keyword("when").and_then(|a| a.lit.as_ref()) {
            conditions.push(lit);
        }
        if matches!(call.name.as_str(), "conflicts" | "requires") {
            conditions.extend(call.positional().filter_map(|a| a.lit.as_ref()));
        }
    }
    for lit in conditions {
        // Syntax errors were reported by the spec rule already.
        let mut sink = Vec::new();
        let Some(spec) = parse_at(lit, &mut sink) else {
            continue;
        };
        if !is_root(&spec, package) {
            continue;
        }
        for v in &spec.variants {
            if !declared.contains(&v.name) {
                let offset = v.span.offset;
                let (line, col) = lit.at(offset);
                out.push(Diagnostic::new(
                    Code::UndeclaredVariant,
                    line,
                    col,
                    format!(
                        "`{}` in `{}` names variant `{}`, which this recipe does not declare",
                        v, lit.value, v.name
                    ),
                ));
            }
        }
    }
    for key in &input.recipe.define_keys {
        if !matches!(
            key.how,
            DefineHow::DefineFromVariant | DefineHow::FromVariant
        ) {
            continue;
        }
        if let Some(variant) = &key.variant {
            if !declared.contains(variant) {
                out.push(Diagnostic::new(
                    Code::UndeclaredVariant,
                    key.line,
                    key.col,
                    format!("`define_from_variant(\"{}\", \"{variant}\")` names variant `{variant}`, which this recipe does not declare", key.key),
                ));
            }
        }
    }
}

/// The condition constrains the package itself: anonymous, or naming it.
fn is_root(spec: &Spec, package: Option<&str>) -> bool {
    match spec.short_name() {
        None => true,
        Some(name) => package == Some(name),
    }
}

fn defaults(input: &Input, out: &mut Vec<Diagnostic>) {
    for v in &input.recipe.variants {
        let (Some(Value::Str(default)), Some(VariantValues::Items(items))) =
            (&v.default, &v.values)
        else {
            continue;
        };
        let Some(allowed) = items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
        else {
            continue;
        };
        let multi = v.multi.as_ref().is_some_and(Value::is_truthy_literal);
        let picked: Vec<&str> = if multi {
            default.split(',').map(str::trim).collect()
        } else {
            vec![default.as_str()]
        };
        if let Some(bad) = picked.iter().find(|d| !allowed.iter().any(|a| a == *d)) {
            out.push(Diagnostic::new(
                Code::VariantDefault,
                v.line,
                v.col,
                format!(
                    "variant `{}` defaults to `{bad}`, which is not among its values ({})",
                    v.name,
                    allowed.join(", ")
                ),
            ));
        }
    }
}
