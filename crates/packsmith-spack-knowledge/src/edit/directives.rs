//! Edits of class-level statements: dependencies (added, removed, renamed,
//! commented out), variants, `when=`, conflicts, attributes, groups of
//! lines (`maintainers(…)`, language virtuals). New
//! directives go after the last one of their kind, at the class body's
//! indentation, so the recipe keeps Spack's usual order.

use super::locate::{indent_of, DirectiveCall, Reading};
use super::{breaks_syntax, py_literal, splice};
use crate::pystr::py_str;
use crate::spec::parse as parse_spec;
use crate::spec::Version;

/// The package a `depends_on` spec names (`zlib-api@1.2:` → `zlib-api`).
fn spec_package(spec: &str) -> Option<String> {
    parse_spec(spec).ok().and_then(|s| s.name.clone())
}

fn dependencies<'r>(reading: &'r Reading) -> impl Iterator<Item = &'r DirectiveCall> {
    reading
        .directives
        .iter()
        .copied()
        .filter(|d| d.name == "depends_on")
}

/// Where a new top-level directive goes: after the last of `after` kinds
/// found (in order of preference), else after the last directive, else
/// at the end of the class.
fn insertion_point(reading: &Reading, after: &[&str]) -> usize {
    let top: Vec<&DirectiveCall> = reading
        .directives
        .iter()
        .copied()
        .filter(|d| d.top_level)
        .collect();
    for kind in after {
        if let Some(d) = top.iter().rev().find(|d| d.name == *kind) {
            return d.lines.end;
        }
    }
    top.last().map_or(reading.class.end, |d| d.lines.end)
}

/// The leading whitespace of the line `at` is on.
fn line_indent(source: &str, at: usize) -> String {
    let start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    source[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
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

/// Inserts `name(args)` at `at` in black's layout (one line when it fits
/// in 99 columns); `new_group` puts a blank line before it, as the first
/// of its kind after another kind's block.
fn insert_call(
    source: &str,
    at: usize,
    indent: &str,
    (name, args): (&str, &[String]),
    new_group: bool,
) -> String {
    let mut text = String::new();
    if at > 0 && !source[..at].ends_with('\n') {
        text.push('\n');
    }
    if new_group {
        text.push('\n');
    }
    for line in crate::pylayout::call(indent, name, args) {
        text.push_str(&line);
        text.push('\n');
    }
    splice(source, at..at, &text)
}

/// True when the class has a top-level directive `name`.
fn has_directive(reading: &Reading, name: &str) -> bool {
    reading
        .directives
        .iter()
        .copied()
        .any(|d| d.top_level && d.name == name)
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
    let mut args = vec![py_str(spec)];
    match types {
        [] => {}
        [one] => args.push(format!("type={}", py_str(one))),
        many => {
            let list: Vec<String> = many.iter().map(|t| py_str(t)).collect();
            args.push(format!("type=({})", list.join(", ")));
        }
    }
    if let Some(w) = when {
        args.push(format!("when={}", py_str(w)));
    }
    // Beside the recipe's other lines on the same package (a version
    // constraint for newer releases goes under the one for older ones),
    // else after the last dependency.
    let beside = dependencies(reading)
        .filter(|d| d.top_level)
        .filter(|d| {
            d.first_literal()
                .and_then(|(s, _)| spec_package(s))
                .as_deref()
                == Some(name.as_str())
        })
        .last()
        .map(|d| (d.lines.end, line_indent(source, d.lines.start)));
    // Beside a line inside a `with` block, the new line is indented as it is.
    let (at, indent) = beside.unwrap_or_else(|| {
        (
            insertion_point(reading, &["depends_on", "variant", "version"]),
            reading.class.body_indent.clone(),
        )
    });
    let first = !has_directive(reading, "depends_on");
    Ok(insert_call(
        source,
        at,
        &indent,
        ("depends_on", &args),
        first,
    ))
}

pub(super) fn remove_dependency(
    source: &str,
    reading: &Reading,
    name: &str,
) -> Result<String, String> {
    let mut spans = dependency_spans(reading, name);
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
        .directives
        .iter()
        .copied()
        .find(|d| d.name == "variant" && d.first_literal().map(|(n, _)| n) == Some(name))
}

/// What `add_variant` declares.
pub(super) struct NewVariant<'a> {
    pub name: &'a str,
    pub default: &'a serde_json::Value,
    pub description: Option<&'a str>,
    pub values: &'a [String],
    pub when: Option<&'a str>,
}

pub(super) fn add_variant(
    source: &str,
    reading: &Reading,
    new: NewVariant<'_>,
) -> Result<String, String> {
    let NewVariant {
        name,
        default,
        description,
        values,
        when,
    } = new;
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
    if let Some(w) = when {
        check_spec(w, "the condition")?;
    }
    let description = description.unwrap_or(name).replace('\n', " ");
    let mut args = vec![py_str(name), format!("default={default_text}")];
    if !values.is_empty() {
        let list: Vec<String> = values.iter().map(|v| py_str(v)).collect();
        args.push(format!("values=({},)", list.join(", ")));
    }
    args.push(format!("description={}", py_str(&description)));
    if let Some(w) = when {
        args.push(format!("when={}", py_str(w)));
    }
    let at = insertion_point(reading, &["variant", "version"]);
    let first = !has_directive(reading, "variant");
    Ok(insert_call(
        source,
        at,
        &reading.class.body_indent,
        ("variant", &args),
        first,
    ))
}

/// The top-level `version(...)` calls with the version each names.
fn versions<'r>(reading: &'r Reading) -> impl Iterator<Item = (&'r DirectiveCall, &'r str)> {
    reading
        .directives
        .iter()
        .copied()
        .filter(|d| d.name == "version" && d.top_level)
        .filter_map(|d| d.first_literal().map(|(v, _)| (d, v)))
}

fn check_sha256(sum: &str) -> Result<(), String> {
    if sum.len() != 64 || !sum.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("{sum:?} is not a sha256 (64 hex digits)"));
    }
    Ok(())
}

pub(super) fn add_version(
    source: &str,
    reading: &Reading,
    version: &str,
    sha256: Option<&str>,
) -> Result<String, String> {
    let new = Version::parse(version).ok_or_else(|| format!("{version:?} is not a version"))?;
    if let Some(sum) = sha256 {
        check_sha256(sum)?;
    }
    if versions(reading).any(|(_, v)| v == version) {
        return Err(format!("version {version:?} is already declared"));
    }
    let indent = &reading.class.body_indent;
    let lines = match sha256 {
        Some(sum) => crate::pylayout::call(
            indent,
            "version",
            &[py_str(version), format!("sha256={}", py_str(sum))],
        ),
        None => vec![format!(
            "{indent}version({})  # FIXME: checksum",
            py_str(version)
        )],
    };
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // Newest first: before the first version older than this one (a
    // branch such as `develop` sorts above every number and stays first),
    // else after the last.
    let older = versions(reading)
        .find(|(_, v)| Version::parse(v).is_some_and(|old| old < new))
        .map(|(d, _)| d.lines.start);
    let at = match (older, versions(reading).next()) {
        (Some(at), _) => at,
        (None, Some(_)) => {
            let at = insertion_point(reading, &["version"]);
            if at > 0 && !source[..at].ends_with('\n') {
                text.insert(0, '\n');
            }
            at
        }
        (None, None) => return Ok(insert_first_version(source, reading, &text)),
    };
    Ok(splice(source, at..at, &text))
}

/// Directives Spack's order puts before the versions (after `homepage`
/// and `url`).
const BEFORE_VERSIONS: &[&str] = &["maintainers", "license"];

/// Inserts the first version's lines (`text`) where Spack's order wants
/// them: before the first directive that follows the versions (a
/// `variant`, a `depends_on`, …) when it is a statement of the class body
/// itself; else after the class's header (its attributes such as `url`,
/// and `maintainers` / `license`, before its first method); else after
/// the docstring; else first in the body. A blank line separates the new
/// line from the code before and after it.
fn insert_first_version(source: &str, reading: &Reading, text: &str) -> String {
    let class = reading.class;
    let in_body = |d: &&DirectiveCall| d.top_level && d.scope.is_empty();
    let first_method = class.methods.iter().map(|m| m.lines.start).min();
    let before_methods = |at: usize| first_method.is_none_or(|m| at < m);
    let following = reading
        .directives
        .iter()
        .copied()
        .filter(in_body)
        .find(|d| !BEFORE_VERSIONS.contains(&d.name.as_str()))
        .map(|d| d.lines.start)
        .filter(|at| before_methods(*at));
    let header = class
        .attributes
        .iter()
        .filter(|a| indent_of(source, a.lines.start) == class.body_indent)
        .map(|a| a.lines.clone())
        .chain(
            reading
                .directives
                .iter()
                .copied()
                .filter(in_body)
                .filter(|d| BEFORE_VERSIONS.contains(&d.name.as_str()))
                .map(|d| d.lines.clone()),
        )
        .filter(|r| before_methods(r.start))
        .map(|r| r.end)
        .max();
    let at = following
        .or(header)
        .or_else(|| class.docstring.as_ref().map(|d| d.end))
        .unwrap_or(class.body_start)
        .min(source.len());
    let mut new = String::new();
    if at > 0 && !source[..at].ends_with('\n') {
        new.push('\n');
    }
    // The line before is blank, or the class statement itself.
    let blank_before = at <= class.body_start || source[..at].ends_with("\n\n");
    if !blank_before {
        new.push('\n');
    }
    new.push_str(text);
    let next_line = source[at..].split('\n').next().unwrap_or("");
    if at < class.end && !next_line.trim().is_empty() {
        new.push('\n');
    }
    splice(source, at..at, &new)
}

pub(super) fn set_checksum(
    source: &str,
    reading: &Reading,
    version: &str,
    sha256: &str,
) -> Result<String, String> {
    check_sha256(sha256)?;
    let calls: Vec<&DirectiveCall> = versions(reading)
        .filter(|(_, v)| *v == version)
        .map(|(d, _)| d)
        .collect();
    if calls.is_empty() {
        return Err(format!("no version({version:?}) in the recipe"));
    }
    let mut spans: Vec<_> = calls
        .iter()
        .filter_map(|d| d.keyword("sha256"))
        .map(|a| a.value.clone())
        .collect();
    if spans.is_empty() {
        return Err(format!("version({version:?}) has no sha256="));
    }
    spans.sort_by_key(|r| std::cmp::Reverse(r.start));
    let mut text = source.to_string();
    for span in spans {
        text = splice(&text, span, &py_str(sha256));
    }
    Ok(text)
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
        .directives
        .iter()
        .copied()
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

/// Every `depends_on` of package `name`.
fn dependencies_on<'r>(reading: &'r Reading, name: &str) -> Vec<&'r DirectiveCall> {
    dependencies(reading)
        .filter(|d| {
            d.first_literal()
                .and_then(|(s, _)| spec_package(s))
                .as_deref()
                == Some(name)
        })
        .collect()
}

/// The spans of every `depends_on` of package `name`.
fn dependency_spans(reading: &Reading, name: &str) -> Vec<std::ops::Range<usize>> {
    dependencies_on(reading, name)
        .into_iter()
        .map(|d| d.lines.clone())
        .collect()
}

/// One statement's lines commented out: `# FIXME: <note>: ` before the
/// first line's text, `# ` before each later line's, each line's
/// indentation kept and its trailing blanks dropped.
fn comment_out(lines: &str, note: &str) -> String {
    let mut out = String::with_capacity(lines.len() + note.len() + 16);
    for (i, line) in lines.split_inclusive('\n').enumerate() {
        let newline = if line.ends_with('\n') { "\n" } else { "" };
        let code = line.trim_end();
        let body = code.trim_start();
        let indent = &code[..code.len() - body.len()];
        if i == 0 {
            out.push_str(&format!("{indent}# FIXME: {note}: {body}{newline}"));
        } else if body.is_empty() {
            out.push_str(newline);
        } else {
            out.push_str(&format!("{indent}# {body}{newline}"));
        }
    }
    out
}

pub(super) fn disable_dependency(
    source: &str,
    reading: &Reading,
    name: &str,
    note: &str,
) -> Result<String, String> {
    if note.trim().is_empty() || note.contains('\n') {
        return Err("the note must be one line of text".into());
    }
    let calls = dependencies_on(reading, name);
    if calls.is_empty() {
        return Err(format!("no depends_on({name:?}) in the recipe"));
    }
    // A block whose every statement would be commented out is left empty,
    // which Python refuses.
    let emptied = calls
        .iter()
        .any(|d| calls.iter().filter(|o| o.block == d.block).count() >= d.block.1);
    if emptied {
        return Err(format!(
            "commenting out depends_on({name:?}) would leave a block with no statement; \
             use replace_line"
        ));
    }
    let mut spans: Vec<_> = calls.iter().map(|d| d.lines.clone()).collect();
    spans.sort_by_key(|r| std::cmp::Reverse(r.start));
    let mut text = source.to_string();
    for span in spans {
        let commented = comment_out(&text[span.clone()], note.trim());
        text = splice(&text, span, &commented);
    }
    if breaks_syntax(source, &text) {
        return Err(format!(
            "commenting out depends_on({name:?}) would break the file; use replace_line"
        ));
    }
    Ok(text)
}

fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(super) fn set_attribute(
    source: &str,
    reading: &Reading,
    name: &str,
    value: &serde_json::Value,
) -> Result<String, String> {
    if !is_identifier(name) {
        return Err(format!("{name:?} is not an attribute name"));
    }
    if let Some(a) = reading.class.attributes.iter().find(|a| a.name == name) {
        return Err(format!(
            "{} sets {name} already (line {}); use replace_line",
            reading.class.name, a.line
        ));
    }
    let value = py_literal(value)?;
    let indent = &reading.class.body_indent;
    let line = format!("{indent}{name} = {value}\n");
    let first_version = reading
        .directives
        .iter()
        .copied()
        .find(|d| d.top_level && d.name == "version");
    // Before the versions (with a blank line between), else after the
    // docstring (with a blank line before), else first in the body.
    let (at, text) = match (first_version, &reading.class.docstring) {
        (Some(v), _) => (v.lines.start, format!("{line}\n")),
        (None, Some(doc)) => {
            let at = doc.end;
            let newline = if source[..at].ends_with('\n') {
                ""
            } else {
                "\n"
            };
            (at, format!("{newline}\n{line}"))
        }
        (None, None) => (reading.class.body_start, format!("{line}\n")),
    };
    Ok(splice(source, at..at, &text))
}

pub(super) fn set_attribute_value(
    source: &str,
    reading: &Reading,
    name: &str,
    value: &serde_json::Value,
) -> Result<String, String> {
    let literal = py_literal(value)?;
    let assignments: Vec<_> = reading
        .class
        .attributes
        .iter()
        .filter(|a| a.name == name)
        .collect();
    if assignments.is_empty() {
        return Err(format!(
            "{} sets no {name} at class level; use set_attribute",
            reading.class.name
        ));
    }
    if let Some(a) = assignments.iter().find(|a| a.value.is_empty()) {
        return Err(format!(
            "{name} on line {} is declared without a value; use replace_line",
            a.line
        ));
    }
    let mut spans: Vec<_> = assignments.iter().map(|a| a.value.clone()).collect();
    spans.sort_by_key(|r| std::cmp::Reverse(r.start));
    let mut text = source.to_string();
    for span in spans {
        text = splice(&text, span, &literal);
    }
    Ok(text)
}

pub(super) fn add_class_lines(
    source: &str,
    reading: &Reading,
    lines: &[String],
    before: &[String],
) -> Result<String, String> {
    if lines.is_empty() {
        return Err("no lines to add".into());
    }
    if lines.iter().any(|l| l.contains(['\n', '\r'])) {
        return Err("each line must be one line".into());
    }
    let class = reading.class;
    let indent = &class.body_indent;
    let group: String = lines
        .iter()
        .map(|l| match l.is_empty() {
            true => "\n".to_string(),
            false => format!("{indent}{l}\n"),
        })
        .collect();
    // Directly in the class body: neither under `with` nor in a branch
    // (`reading` holds no branch's calls).
    let anchor = before.iter().find_map(|name| {
        reading
            .directives
            .iter()
            .copied()
            .filter(|d| d.name == *name && d.top_level && d.scope.is_empty())
            .map(|d| d.lines.start)
            .min()
    });
    let first_method = || {
        class
            .methods
            .iter()
            .filter(|m| m.top_level)
            .map(|m| m.lines.start)
            .min()
    };
    match anchor.or_else(first_method) {
        // The blank line keeps the group apart from what follows it.
        Some(at) => Ok(splice(source, at..at, &format!("{group}\n"))),
        None => {
            let at = class.end;
            let newline = if source[..at].ends_with('\n') || at == 0 {
                ""
            } else {
                "\n"
            };
            Ok(splice(source, at..at, &format!("{newline}\n{group}")))
        }
    }
}
