//! Mutations about variants and the conditions that name them.

use super::edit::{Ctx, Edit};
use super::span::{plain_string, statement_lines, CallSpan};
use crate::base_classes::base_class;
// Variants builtin base classes declare: the check's own table.
use crate::check::variants::INHERITED;
use crate::recipe::{Value, Variant, VariantValues};
use crate::spec::{self, Spec, VariantValue};

/// The variant directives with their calls, in source order.
fn variant_calls<'r>(ctx: &Ctx<'r>) -> Vec<(&'r Variant, CallSpan)> {
    let calls = ctx.calls(
        "variant",
        ctx.recipe.variants.iter().map(|v| (v.line, v.col)),
    );
    calls
        .into_iter()
        .filter_map(|(at, call)| {
            let v = ctx.recipe.variants.iter().find(|v| (v.line, v.col) == at)?;
            Some((v, call))
        })
        .collect()
}

/// The literal name of a `variant(...)` call.
fn literal_name<'s>(ctx: &Ctx<'s>, call: &CallSpan) -> Option<&'s str> {
    let content = plain_string(ctx.source, &call.param(ctx.source, "name", 0)?.value)?;
    ctx.source.get(content)
}

/// The default argument as a plain string literal: its value range and content.
fn literal_default<'s>(
    ctx: &Ctx<'s>,
    call: &CallSpan,
) -> Option<(std::ops::Range<usize>, &'s str)> {
    let value = call.param(ctx.source, "default", 1)?.value.clone();
    let content = plain_string(ctx.source, &value)?;
    Some((value, ctx.source.get(content)?))
}

/// Removes a variant that some directive condition still names. Spack
/// loads the recipe but the solver refuses the unknown variant.
pub(super) fn undeclared(ctx: &Ctx) -> Vec<Edit> {
    let recipe = ctx.recipe;
    let local = |b: &str| recipe.local_bases.iter().any(|l| l == b);
    let mut inherited: Vec<&str> = Vec::new();
    for base in &recipe.bases {
        let short = base.rsplit('.').next().unwrap_or(base);
        // A base from another package may declare the same variant.
        if !local(short) && base_class(short).is_none() {
            return Vec::new();
        }
        if let Some((_, names)) = INHERITED.iter().find(|(b, _)| *b == short) {
            inherited.extend(names.iter());
        }
    }
    let calls = variant_calls(ctx);
    let names: Vec<Option<&str>> = calls.iter().map(|(_, c)| literal_name(ctx, c)).collect();
    // A variant named at run time (a loop) may declare anything.
    if names.iter().any(Option::is_none) {
        return Vec::new();
    }
    let names: Vec<&str> = names.into_iter().flatten().collect();
    calls
        .iter()
        .zip(&names)
        .filter(|(_, name)| names.iter().filter(|n| n == name).count() == 1)
        .filter(|(_, name)| !inherited.contains(name))
        .filter_map(|((variant, call), name)| {
            let condition = condition_naming(ctx, name, (variant.line, variant.col))?;
            let (lines, _) = statement_lines(ctx.source, call)?;
            let description =
                format!("variant(\"{name}\") removed; \"{condition}\" still names it");
            Some(Edit::new(ctx, lines, "", description))
        })
        .collect()
}

/// A directive condition (`when=`, `with when()`, a conflicts or requires
/// spec) on the package itself that names variant `name`, other than the
/// variant directive at `own`.
fn condition_naming(ctx: &Ctx, name: &str, own: (u32, u32)) -> Option<String> {
    let r = ctx.recipe;
    let mut conditions: Vec<(&Option<String>, (u32, u32))> = Vec::new();
    conditions.extend(r.dependencies.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(r.variants.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(r.conflicts.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(r.requires.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(r.provides.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(r.patches.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(r.resources.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(r.extends.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(r.licenses.iter().map(|d| (&d.when, (d.line, d.col))));
    conditions.extend(
        r.other_directives
            .iter()
            .map(|d| (&d.when, (d.line, d.col))),
    );
    let mut texts: Vec<&str> = conditions
        .into_iter()
        .filter(|(_, at)| *at != own)
        .filter_map(|(when, _)| when.as_deref())
        .collect();
    texts.extend(r.conflicts.iter().map(|c| c.spec.as_str()));
    texts.extend(
        r.requires
            .iter()
            .flat_map(|q| q.specs.iter().map(String::as_str)),
    );
    texts
        .into_iter()
        .find(|text| {
            spec::parse(text).is_ok_and(|s| {
                on_package(&s, ctx.package) && s.variants.iter().any(|v| v.name == name)
            })
        })
        .map(str::to_string)
}

/// The spec constrains the package itself: anonymous, or naming it.
fn on_package(spec: &Spec, package: &str) -> bool {
    spec.short_name().is_none_or(|n| n == package)
}

/// Moves a string default outside the variant's literal `values=`.
pub(super) fn bad_default(ctx: &Ctx) -> Vec<Edit> {
    variant_calls(ctx)
        .iter()
        .filter_map(|(variant, call)| {
            let Some(Value::Str(default)) = &variant.default else {
                return None;
            };
            let Some(VariantValues::Items(items)) = &variant.values else {
                return None;
            };
            let allowed = items
                .iter()
                .map(Value::as_str)
                .collect::<Option<Vec<&str>>>()?;
            let (value, text) = literal_default(ctx, call)?;
            if text != default || !allowed.contains(&text) {
                return None;
            }
            let mut chars = text.chars();
            let capital = chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())?;
            let wrong = [capital, format!("{text}s")]
                .into_iter()
                .find(|w| w != text && !allowed.contains(&w.as_str()))?;
            let description = format!(
                "variant(\"{}\") default \"{text}\" changed to \"{wrong}\", not among ({})",
                variant.name,
                allowed.join(", ")
            );
            let content = value.start + 1..value.end - 1;
            Some(Edit::new(ctx, content, wrong, description))
        })
        .collect()
}

/// Replaces a non-empty string default by `""`.
pub(super) fn empty_default(ctx: &Ctx) -> Vec<Edit> {
    variant_calls(ctx)
        .iter()
        .filter_map(|(variant, call)| {
            let (value, text) = literal_default(ctx, call)?;
            // "True"/"False" strings are booleans to Spack.
            let boolean = matches!(text.to_ascii_lowercase().as_str(), "true" | "false");
            if text.is_empty() || boolean {
                return None;
            }
            let description = format!(
                "variant(\"{}\") default \"{text}\" changed to \"\"",
                variant.name
            );
            Some(Edit::new(ctx, value, "\"\"", description))
        })
        .collect()
}

/// Adds the opposite of a `+v`/`~v` clause to a literal `when=`, so the
/// condition names the variant twice.
pub(super) fn never_when(ctx: &Ctx) -> Vec<Edit> {
    let r = ctx.recipe;
    let mut at: Vec<(&str, (u32, u32))> = Vec::new();
    at.extend(
        r.dependencies
            .iter()
            .map(|d| ("depends_on", (d.line, d.col))),
    );
    at.extend(r.variants.iter().map(|d| ("variant", (d.line, d.col))));
    at.extend(r.conflicts.iter().map(|d| ("conflicts", (d.line, d.col))));
    at.extend(r.requires.iter().map(|d| ("requires", (d.line, d.col))));
    at.extend(r.provides.iter().map(|d| ("provides", (d.line, d.col))));
    at.extend(r.patches.iter().map(|d| ("patch", (d.line, d.col))));
    at.extend(r.resources.iter().map(|d| ("resource", (d.line, d.col))));
    at.extend(r.extends.iter().map(|d| ("extends", (d.line, d.col))));
    at.extend(r.licenses.iter().map(|d| ("license", (d.line, d.col))));
    at.extend(
        r.other_directives
            .iter()
            .map(|d| (d.name.as_str(), (d.line, d.col))),
    );
    at.sort_by_key(|(_, pos)| *pos);
    at.dedup();
    at.into_iter()
        .filter_map(|(name, (line, col))| {
            let call = super::span::call_at(ctx.source, line, col, name)?;
            let content = plain_string(ctx.source, &call.keyword(ctx.source, "when")?.value)?;
            let when = ctx.text(&content);
            let parsed = spec::parse(when).ok()?;
            let clause = parsed.variants.iter().find(|v| {
                matches!(v.value, VariantValue::Bool(_))
                    && !v.propagate
                    && parsed.variants.iter().filter(|w| w.name == v.name).count() == 1
            })?;
            let VariantValue::Bool(on) = clause.value else {
                return None;
            };
            let opposite = format!("{}{}", if on { '~' } else { '+' }, clause.name);
            let end = content.start + clause.span.offset + clause.span.len;
            let description =
                format!("{name}(..., when=\"{when}\"): \"{opposite}\" added, so it never holds");
            Some(Edit::new(
                ctx,
                end..end,
                format!(" {opposite}"),
                description,
            ))
        })
        .collect()
}
