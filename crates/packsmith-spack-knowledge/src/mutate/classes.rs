//! Candidate places for each mutation class, as text edits. Positions come
//! from the recipe reader (so nothing inside a string or comment is ever
//! taken for a directive); the bytes to change come from `span`.

use super::edit::{Ctx, Edit};
use super::names::{word_offsets, wrong_base_class, wrong_dependency_type, wrong_package_name};
use super::span::{self, first_item, plain_string, statement_lines, CallSpan};
use super::variants;
use super::MutationClass;
use crate::recipe::split_spec_head;

pub(super) fn candidates(ctx: &Ctx, class: MutationClass) -> Vec<Edit> {
    match class {
        MutationClass::WrongDependencyName => wrong_dependency_name(ctx),
        MutationClass::UndeclaredVariant => variants::undeclared(ctx),
        MutationClass::BadVariantDefault => variants::bad_default(ctx),
        MutationClass::MissingImport => missing_import(ctx),
        MutationClass::WrongBaseClass => wrong_base(ctx),
        MutationClass::NeverWhen => variants::never_when(ctx),
        MutationClass::SelfDependency => self_dependency(ctx),
        MutationClass::UnknownDirectiveKeyword => unknown_keyword(ctx),
        MutationClass::EmptyStringDefault => variants::empty_default(ctx),
        MutationClass::InvalidDependencyType => invalid_type(ctx),
        MutationClass::RemovedDependency => super::install::removed_dependency(ctx),
        MutationClass::RemovedDefine => super::install::removed_define(ctx),
        MutationClass::TestsOn => super::install::tests_on(ctx),
    }
}

fn wrong_dependency_name(ctx: &Ctx) -> Vec<Edit> {
    ctx.dependency_calls()
        .iter()
        .filter_map(|call| {
            let content = plain_string(ctx.source, &call.param(ctx.source, "spec", 0)?.value)?;
            let (name, _) = split_spec_head(ctx.text(&content));
            // A leading blank would shift the name; such specs are left alone.
            if name.is_empty() || !ctx.text(&content).starts_with(&name) {
                return None;
            }
            let wrong = wrong_package_name(&name, ctx.known)?;
            let at = content.start..content.start + name.len();
            let description = format!("depends_on(\"{name}\") renamed to \"{wrong}\"");
            Some(Edit::new(ctx, at, wrong, description))
        })
        .collect()
}

fn missing_import(ctx: &Ctx) -> Vec<Edit> {
    const LINE: &str = "from spack.package import *";
    ctx.recipe
        .imports
        .iter()
        .filter(|i| i.module == "spack.package" && i.names == ["*"])
        .filter_map(|i| {
            let start = span::offset(ctx.source, i.line, 1)?;
            let rest = ctx.source.get(start..)?;
            let end = rest.find('\n').map_or(ctx.source.len(), |n| start + n + 1);
            let tail = ctx.text(&(start..end)).trim().strip_prefix(LINE)?.trim();
            // Only a statement alone on its line, so the removal is whole.
            (tail.is_empty() || tail.starts_with('#'))
                .then(|| Edit::new(ctx, start..end, "", format!("`{LINE}` removed")))
        })
        .collect()
}

fn wrong_base(ctx: &Ctx) -> Vec<Edit> {
    let (Some(line), Some(name)) = (ctx.recipe.class_line, &ctx.recipe.class_name) else {
        return Vec::new();
    };
    let Some(start) = span::offset(ctx.source, line, 1) else {
        return Vec::new();
    };
    let end = ctx
        .source
        .get(start..)
        .and_then(|r| r.find('\n'))
        .map_or(ctx.source.len(), |n| start + n);
    let header = ctx.text(&(start..end));
    // Bases follow `class Name(` on the header line.
    let Some(open) = header
        .find(&format!("class {name}"))
        .and_then(|at| header.get(at..)?.find('(').map(|p| at + p + 1))
    else {
        return Vec::new();
    };
    let bases = header.get(open..).unwrap_or("");
    ctx.recipe
        .bases
        .iter()
        .filter_map(|base| {
            let short = base.rsplit('.').next().unwrap_or(base);
            let wrong = wrong_base_class(short)?;
            // A file that defines or imports the wrong name would accept it.
            if !word_offsets(ctx.source, wrong).is_empty() {
                return None;
            }
            let at = start + open + *word_offsets(bases, short).first()?;
            let description = format!("base class `{short}` misspelt `{wrong}`");
            Some(Edit::new(ctx, at..at + short.len(), wrong, description))
        })
        .take(1)
        .collect()
}

fn self_dependency(ctx: &Ctx) -> Vec<Edit> {
    let package = ctx.package;
    let valid = !package.is_empty()
        && package
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Vec::new();
    }
    ctx.dependency_calls()
        .iter()
        .filter_map(|call| {
            let (lines, indent) = statement_lines(ctx.source, call)?;
            let line = format!("{indent}depends_on(\"{package}\")");
            let after = span::line_of(ctx.source, call.start);
            let mut edit = if ctx.text(&lines).ends_with('\n') {
                Edit::new(
                    ctx,
                    lines.end..lines.end,
                    format!("{line}\n"),
                    String::new(),
                )
            } else {
                let mut e = Edit::new(
                    ctx,
                    lines.end..lines.end,
                    format!("\n{line}"),
                    String::new(),
                );
                e.line += 1;
                e
            };
            edit.description =
                format!("depends_on(\"{package}\") added after the depends_on on line {after}");
            Some(edit)
        })
        .collect()
}

fn unknown_keyword(ctx: &Ctx) -> Vec<Edit> {
    let rename = |calls: Vec<CallSpan>, directive: &str, from: &str, to: &str| -> Vec<Edit> {
        calls
            .iter()
            .filter_map(|call| {
                let keyword = call.keyword(ctx.source, from)?.keyword.clone()?;
                let description = format!("{directive}(..., {from}=...) written {to}=");
                Some(Edit::new(ctx, keyword, to, description))
            })
            .collect()
    };
    let edits = rename(ctx.dependency_calls(), "depends_on", "type", "types");
    if !edits.is_empty() {
        return edits;
    }
    let variants = ctx.recipe.variants.iter().map(|v| (v.line, v.col));
    let calls = ctx
        .calls("variant", variants)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    rename(calls, "variant", "description", "desc")
}

fn invalid_type(ctx: &Ctx) -> Vec<Edit> {
    ctx.dependency_calls()
        .iter()
        .filter_map(|call| {
            let value = &call.keyword(ctx.source, "type")?.value;
            let content = plain_string(ctx.source, &first_item(ctx.source, value)?)?;
            let right = ctx.text(&content);
            let wrong = wrong_dependency_type(right)?;
            let description = format!("dependency type \"{right}\" misspelt \"{wrong}\"");
            Some(Edit::new(ctx, content, wrong, description))
        })
        .collect()
}
