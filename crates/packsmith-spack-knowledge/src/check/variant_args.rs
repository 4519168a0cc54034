//! `variant()` arguments Spack refuses: no default or an empty-string one
//! (PS603, at load: "the default cannot be an empty string"), `values`
//! that do not fit the default (PS604: a values object such as
//! `any_combination_of(...)` beside its own `default=`/`multi=`, refused at
//! load; `multi=True` or string `values` on a boolean variant, refused by
//! `spack audit packages`), and reserved names (PS605).

use super::{Code, Diagnostic, Input};
use crate::recipe::layout::{Arg, Call};

/// `spack.directives.reserved_names` (0.23).
const RESERVED: &[&str] = &["patches", "dev_path"];

/// Helpers whose result carries its own `default`, `multi` and `validator`.
const VALUES_OBJECTS: &[&str] = &[
    "any_combination_of",
    "auto_or_any_combination_of",
    "disjoint_sets",
];

/// An argument by keyword or by its position in `variant(name, default,
/// description, values, multi, validator, when, sticky)`.
fn param<'c>(call: &'c Call, key: &str, index: usize) -> Option<&'c Arg> {
    call.keyword(key).or_else(|| call.positional().nth(index))
}

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    for call in input.layout.calls().filter(|c| c.name == "variant") {
        // `*args`/`**kwargs` hide what is passed.
        if call.positional().any(|a| a.text.starts_with('*')) {
            continue;
        }
        let name = call
            .positional()
            .next()
            .or_else(|| call.keyword("name"))
            .and_then(|a| a.lit.as_ref())
            .map(|l| l.value.as_str());
        let label = name.unwrap_or("?");
        let mut report = |code: Code, message: String| {
            out.push(Diagnostic::new(code, call.line, call.col, message));
        };
        if let Some(reserved) = name.filter(|n| RESERVED.contains(n)) {
            report(
                Code::ReservedVariant,
                format!("variant name `{reserved}` is reserved by Spack, which refuses the recipe when loading it; rename the variant"),
            );
        }
        let default = param(call, "default", 1);
        let values = param(call, "values", 3);
        let multi = param(call, "multi", 4);
        let values_object = values.and_then(|v| {
            VALUES_OBJECTS
                .iter()
                .find(|f| v.text.starts_with(&format!("{f}(")))
        });
        if let Some(object) = values_object {
            for (arg, key) in [
                (default, "default"),
                (multi, "multi"),
                (param(call, "validator", 5), "validator"),
            ] {
                if arg.is_some() {
                    report(
                        Code::VariantValues,
                        format!("variant `{label}` passes `{key}=` beside `values={object}(...)`, which sets its own; Spack refuses the recipe when loading it: remove `{key}=`"),
                    );
                }
            }
            continue;
        }
        // Literal values (or none): the default must come from the call.
        let literal_values = values.is_none_or(|v| v.text.starts_with(['(', '[']));
        match default {
            None if literal_values => report(
                Code::VariantNoDefault,
                format!("variant `{label}` has no default, which Spack refuses when loading the recipe; pass `default=`"),
            ),
            Some(d) if d.text == "None" && literal_values => report(
                Code::VariantNoDefault,
                format!("variant `{label}` has `default=None`, which Spack refuses when loading the recipe; pass a real default"),
            ),
            Some(d) if d.lit.as_ref().is_some_and(|l| l.value.is_empty()) => report(
                Code::VariantNoDefault,
                format!("variant `{label}` defaults to the empty string, which Spack refuses when loading the recipe (it could not be written on a command line); give a real default or drop the variant"),
            ),
            _ => {}
        }
        let bool_default = default.is_some_and(|d| matches!(d.text.as_str(), "True" | "False"));
        if !bool_default {
            continue;
        }
        if multi.is_some_and(|m| m.text == "True") && values.is_none() {
            report(
                Code::VariantValues,
                format!("variant `{label}` is boolean but `multi=True`; Spack cannot make its default (`spack audit packages` refuses it): drop `multi=True`"),
            );
        }
        if let Some(v) = values.filter(|v| v.text.starts_with(['(', '['])) {
            let has_bools = v.text.contains("True") || v.text.contains("False");
            if !has_bools {
                report(
                    Code::VariantValues,
                    format!("variant `{label}` defaults to `{}` but its values are `{}`; Spack's default check fails (`spack audit packages`): drop `values=` for a boolean variant, or give a default among the values", default.map_or("", |d| d.text.as_str()), v.text),
                );
            }
        }
    }
}
