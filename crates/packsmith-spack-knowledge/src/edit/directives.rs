//! Edits of class-level directives: dependencies, variants, `when=`,
//! conflicts. New directives go after the last one of their kind, at the
//! class body's indentation, so the recipe keeps Spack's usual order.

use super::locate::{DirectiveCall, Reading};
use super::{py_literal, splice};
use crate::pystr::py_str;
use crate::spec::parse as parse_spec;

/// The package a `depends_on` spec names (`zlib-api@1.2:` → `zlib-api`).
fn spec_package(spec: &str) -> Option<String> {
    parse_spec(spec).ok().and_then(|s| s.name.clone())
}

fn dependencies(reading: &Reading) -> impl Iterator<Item = &DirectiveCall> {
    reading
        .class
        .directives
        .iter()
        .filter(|d| d.name == "depends_on")
}

/// Where a new top-level directive goes: after the last of `after` kinds
/// found (in order of preference), else after the last directive, else
/// at the end of the class.
fn insertion_point(reading: &Reading, after: &[&str]) -> usize {
    let top: Vec<&DirectiveCall> = reading
        .class
        .directives
        .iter()
        .filter(|d| d.top_level)
        .collect();
    for kind in after {
        if let Some(d) = top.iter().rev().find(|d| d.name == *kind) {
            return d.lines.end;
        }
    }
    top.last().map_or(reading.class.end, |d| d.lines.end)
}

fn insert_line(source: &str, at: usize, indent: &str, line: &str) -> String {
    let mut text = String::new();
    if at > 0 && !source[..at].ends_with('\n') {
        text.push('\n');
    }
    text.push_str(indent);
    text.push_str(line);
    text.push('\n');
    splice(source, at..at, &text)
}

fn check_spec(spec: &str, what: &str) -> Result<(), String> {
    parse_spec(spec)
        .map(|_| ())
        .map_err(|e| format!("{what} {spec:?} is not a valid spec: {e}"))
}

pub(super) fn add_dependency(
    source: &str,
    reading: &Reading,
    spec: &str,
    when: Option<&str>,
    types: &[String],
) -> Result<String, String> {
    check_spec(spec, "the spec")?;
    let name = spec_package(spec).ok_or_else(|| format!("{spec:?} names no package"))?;
    if let Some(w) = when {
        check_spec(w, "the condition")?;
    }
    let exists = dependencies(reading).any(|d| {
        d.first_literal()
            .and_then(|(s, _)| spec_package(s))
            .as_deref()
            == Some(name.as_str())
            && d.keyword("when").and_then(|a| a.literal.as_deref()) == when
            && d.when_stack.is_empty()
    });
    if exists {
        return Err(format!("depends_on({name:?}) is already there"));
    }
    for t in types {
        if !matches!(t.as_str(), "build" | "link" | "run" | "test") {
            return Err(format!(
                "{t:?} is not a dependency type (build, link, run, test)"
            ));
        }
    }
    let mut call = format!("depends_on({}", py_str(spec));
    match types {
        [] => {}
        [one] => call.push_str(&format!(", type={}", py_str(one))),
        many => {
            let list: Vec<String> = many.iter().map(|t| py_str(t)).collect();
            call.push_str(&format!(", type=({})", list.join(", ")));
        }
    }
    if let Some(w) = when {
        call.push_str(&format!(", when={}", py_str(w)));
    }
    call.push(')');
    let at = insertion_point(reading, &["depends_on", "variant", "version"]);
    Ok(insert_line(source, at, &reading.class.body_indent, &call))
}

pub(super) fn remove_dependency(
    source: &str,
    reading: &Reading,
    name: &str,
) -> Result<String, String> {
    let mut spans: Vec<_> = dependencies(reading)
        .filter(|d| {
            d.first_literal()
                .and_then(|(s, _)| spec_package(s))
                .as_deref()
                == Some(name)
        })
        .map(|d| d.lines.clone())
        .collect();
    if spans.is_empty() {
        return Err(format!("no depends_on({name:?}) in the recipe"));
    }
    spans.sort_by_key(|r| std::cmp::Reverse(r.start));
    let mut text = source.to_string();
    for span in spans {
        text = splice(&text, span, "");
    }
    Ok(text)
}

pub(super) fn rename_dependency(
    source: &str,
    reading: &Reading,
    from: &str,
    to: &str,
) -> Result<String, String> {
    check_spec(to, "the new name")?;
    let mut places: Vec<std::ops::Range<usize>> = Vec::new();
    for d in dependencies(reading) {
        let Some((spec, range)) = d.first_literal() else {
            continue;
        };
        if spec_package(spec).as_deref() != Some(from) {
            continue;
        }
        // The name leads the spec; the literal's content starts after the quote.
        let content_start = source[range.clone()]
            .find(spec)
            .map(|off| range.start + off)
            .ok_or("the spec's text could not be located")?;
        let at = content_start + spec.find(from).unwrap_or(0);
        places.push(at..at + from.len());
    }
    if places.is_empty() {
        return Err(format!("no depends_on({from:?}) in the recipe"));
    }
    places.sort_by_key(|r| std::cmp::Reverse(r.start));
    let mut text = source.to_string();
    for p in places {
        text = splice(&text, p, to);
    }
    Ok(text)
}

fn variant<'r>(reading: &'r Reading, name: &str) -> Option<&'r DirectiveCall> {
    reading
        .class
        .directives
        .iter()
        .find(|d| d.name == "variant" && d.first_literal().map(|(n, _)| n) == Some(name))
}

pub(super) fn add_variant(
    source: &str,
    reading: &Reading,
    name: &str,
    default: &serde_json::Value,
    description: Option<&str>,
    values: &[String],
) -> Result<String, String> {
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        || name.is_empty()
    {
        return Err(format!("{name:?} is not a variant name"));
    }
    if variant(reading, name).is_some() {
        return Err(format!("variant {name:?} is already declared"));
    }
    let default_text = py_literal(default)?;
    if default.as_str() == Some("") {
        return Err("a variant's default cannot be an empty string".into());
    }
    if let (Some(d), false) = (default.as_str(), values.is_empty()) {
        if !values.iter().any(|v| v == d) {
            return Err(format!("the default {d:?} is not among the values"));
        }
    }
    let description = description.unwrap_or(name).replace('\n', " ");
    let mut call = format!("variant({}, default={default_text}", py_str(name));
    if !values.is_empty() {
        let list: Vec<String> = values.iter().map(|v| py_str(v)).collect();
        call.push_str(&format!(", values=({},)", list.join(", ")));
    }
    call.push_str(&format!(", description={})", py_str(&description)));
    let at = insertion_point(reading, &["variant", "version"]);
    Ok(insert_line(source, at, &reading.class.body_indent, &call))
}

pub(super) fn set_variant_default(
    source: &str,
    reading: &Reading,
    name: &str,
    default: &serde_json::Value,
) -> Result<String, String> {
    let v = variant(reading, name).ok_or_else(|| format!("no variant {name:?} in the recipe"))?;
    if default.as_str() == Some("") {
        return Err("a variant's default cannot be an empty string".into());
    }
    let literal = py_literal(default)?;
    match v.keyword("default") {
        Some(arg) => Ok(splice(source, arg.value.clone(), &literal)),
        None => {
            // After the name: `variant("x", default=…, …)`.
            let first = v.args.first().ok_or("the variant has no arguments")?;
            let at = first.whole.end;
            Ok(splice(source, at..at, &format!(", default={literal}")))
        }
    }
}

pub(super) fn set_when(
    source: &str,
    reading: &Reading,
    line: u32,
    when: Option<&str>,
) -> Result<String, String> {
    let d = reading
        .class
        .directives
        .iter()
        .find(|d| d.line == line)
        .ok_or_else(|| format!("no directive starts on line {line}"))?;
    if let Some(w) = when {
        check_spec(w, "the condition")?;
    }
    match (d.keyword("when"), when) {
        (Some(arg), Some(w)) => Ok(splice(source, arg.value.clone(), &py_str(w))),
        (Some(arg), None) => {
            // Remove `, when=…` with the separator before it.
            let before = source[..arg.whole.start].trim_end();
            let start = if before.ends_with(',') {
                before.len() - 1
            } else {
                arg.whole.start
            };
            Ok(splice(source, start..arg.whole.end, ""))
        }
        (None, Some(w)) => {
            let close = d.arg_list.end - 1;
            let inner = source[d.arg_list.start + 1..close].trim_end();
            let sep = if inner.is_empty() || inner.ends_with(',') {
                ""
            } else {
                ", "
            };
            let at = d.arg_list.start + 1 + inner.len();
            Ok(splice(source, at..at, &format!("{sep}when={}", py_str(w))))
        }
        (None, None) => Err(format!("the directive on line {line} has no when=")),
    }
}

pub(super) fn add_conflicts(
    source: &str,
    reading: &Reading,
    spec: &str,
    when: Option<&str>,
    msg: Option<&str>,
) -> Result<String, String> {
    check_spec(spec, "the spec")?;
    let mut call = format!("conflicts({}", py_str(spec));
    if let Some(w) = when {
        check_spec(w, "the condition")?;
        call.push_str(&format!(", when={}", py_str(w)));
    }
    if let Some(m) = msg {
        call.push_str(&format!(", msg={}", py_str(m)));
    }
    call.push(')');
    let at = insertion_point(reading, &["conflicts", "depends_on", "variant", "version"]);
    Ok(insert_line(source, at, &reading.class.body_indent, &call))
}
