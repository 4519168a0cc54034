//! Edits inside methods: CMake defines in `cmake_args`, configure
//! arguments in `configure_args`, a `flag_handler` for compiler flags, and
//! `filter_file` calls in `edit` (a Makefile package) or `patch`, and a
//! whole method a rule repair wrote (`add_method`).
//! A method that is missing is added at the end of the class; one whose
//! shape packsmith cannot follow (no final `return`) is refused with a
//! reason rather than edited blindly.

use super::locate::{MethodSpan, Reading};
use super::{breaks_syntax, py_literal, splice};
use crate::pystr::py_str;
use crate::recipe::RecipeTree;

fn method<'r>(reading: &'r Reading, name: &str) -> Option<&'r MethodSpan> {
    reading.class.methods.iter().find(|m| m.name == name)
}

/// Appends a method (its lines already indented for the class body).
fn append_method(source: &str, reading: &Reading, body: &str) -> String {
    let at = reading.class.end;
    let mut text = String::new();
    if !source[..at].ends_with('\n') {
        text.push('\n');
    }
    text.push('\n');
    text.push_str(body);
    splice(source, at..at, &text)
}

/// Adds `item` (an expression) to the list a method returns: into the
/// literal when it returns one, else `<name>.append(item)` before the
/// `return <name>`.
fn add_to_returned_list(
    source: &str,
    reading: &Reading,
    method_name: &str,
    item: &str,
) -> Result<String, String> {
    let indent = &reading.class.body_indent;
    let Some(m) = method(reading, method_name) else {
        let body = format!("{indent}def {method_name}(self):\n{indent}{indent}return [{item}]\n");
        return Ok(append_method(source, reading, &body));
    };
    let (ret_lines, expr) = m
        .final_return
        .clone()
        .ok_or_else(|| format!("{method_name} does not end with a return; use replace_line"))?;
    let returned = &source[expr.clone()];
    if returned.starts_with('[') && returned.ends_with(']') {
        let inner = returned[1..returned.len() - 1].trim_end();
        let sep = if inner.trim().is_empty() || inner.ends_with(',') {
            ""
        } else {
            ", "
        };
        let at = expr.start + 1 + inner.len();
        return Ok(splice(source, at..at, &format!("{sep}{item}")));
    }
    if !returned.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(format!(
            "{method_name} returns `{returned}`, not a list packsmith can extend; use replace_line"
        ));
    }
    let line = format!("{}{returned}.append({item})\n", m.body_indent);
    Ok(splice(source, ret_lines.start..ret_lines.start, &line))
}

/// MPI's compiler wrappers, which a define may name as its value.
const MPI_WRAPPER_VALUES: &[&str] = &[
    "self.spec[\"mpi\"].mpicc",
    "self.spec[\"mpi\"].mpicxx",
    "self.spec[\"mpi\"].mpifc",
];

/// The Python for a define's value: `self.run_tests`, a bool, an MPI
/// wrapper, or a string.
fn define_value(value: &serde_json::Value) -> Result<String, String> {
    match value.as_str() {
        Some("self.run_tests") => Ok("self.run_tests".into()),
        Some(v) if MPI_WRAPPER_VALUES.contains(&v) => Ok(v.into()),
        Some("ON") | Some("on") | Some("TRUE") => Ok("True".into()),
        Some("OFF") | Some("off") | Some("FALSE") => Ok("False".into()),
        _ => py_literal(value),
    }
}

fn check_define_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(format!("{name:?} is not a CMake variable name"));
    }
    Ok(())
}

/// Sets a define in `cmake_args`: added to the returned list, or, when the
/// method sets it already, the old setting removed and the new one added
/// (a model that means "change BUILD_TESTING" writes this, not a remove
/// and an add). The same setting again is refused: it would change nothing.
pub(super) fn add_cmake_define(
    source: &str,
    reading: &Reading,
    name: &str,
    value: &serde_json::Value,
) -> Result<String, String> {
    check_define_name(name)?;
    let value = define_value(value)?;
    let item = format!("self.define({}, {value})", py_str(name));
    let existing = defines_lines(source, reading, name).unwrap_or_default();
    if existing.is_empty() {
        return add_to_returned_list(source, reading, "cmake_args", &item);
    }
    if existing
        .iter()
        .any(|l| compact(&source[l.clone()]).contains(&compact(&item)))
    {
        return Err(format!(
            "cmake_args already sets {name} to {value}; this edit changes nothing"
        ));
    }
    let without = remove_cmake_define(source, reading, name)?;
    let tree = RecipeTree::parse(&without, "package.py");
    let reading = super::locate::read_tree(&tree)?;
    add_to_returned_list(&without, &reading, "cmake_args", &item)
}

/// `self.define_from_variant(name, variant)` into `cmake_args`; a method
/// that sets `name` already is left as it is (the maintainer's setting
/// wins), and said so.
pub(super) fn add_cmake_variant_define(
    source: &str,
    reading: &Reading,
    name: &str,
    variant: &str,
) -> Result<String, String> {
    check_define_name(name)?;
    if variant.is_empty()
        || !variant
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!("{variant:?} is not a variant name"));
    }
    let existing = defines_lines(source, reading, name).unwrap_or_default();
    if !existing.is_empty() {
        return Err(format!("cmake_args sets {name} already"));
    }
    let item = format!(
        "self.define_from_variant({}, {})",
        py_str(name),
        py_str(variant)
    );
    add_to_returned_list(source, reading, "cmake_args", &item)
}

fn compact(text: &str) -> String {
    text.split_whitespace().collect()
}

/// The line spans of `cmake_args` that mention `"NAME"` or `-DNAME`.
fn defines_lines(
    source: &str,
    reading: &Reading,
    name: &str,
) -> Option<Vec<std::ops::Range<usize>>> {
    let m = method(reading, "cmake_args")?;
    let quoted = [format!("\"{name}\""), format!("'{name}'")];
    let dash = format!("-D{name}");
    let mut out = Vec::new();
    let mut at = m.lines.start;
    for line in source[m.lines.clone()].split_inclusive('\n') {
        let is_def = line.trim_start().starts_with("def ");
        let hit = quoted.iter().any(|q| line.contains(q.as_str()))
            || line.match_indices(&dash).any(|(i, _)| {
                !line[i + dash.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            });
        if hit && !is_def {
            out.push(at..at + line.len());
        }
        at += line.len();
    }
    Some(out)
}

pub(super) fn remove_cmake_define(
    source: &str,
    reading: &Reading,
    name: &str,
) -> Result<String, String> {
    let lines = defines_lines(source, reading, name).ok_or("the recipe has no cmake_args")?;
    if lines.is_empty() {
        return Err(format!("cmake_args does not set {name}"));
    }
    for l in &lines {
        let line = source[l.clone()].trim();
        // A line that opens a call it does not close would break the file.
        if line.matches('(').count() != line.matches(')').count()
            || line.matches('[').count() != line.matches(']').count()
        {
            return Err(format!(
                "{name} is set over several lines ({line:?}); use replace_line"
            ));
        }
    }
    let mut text = source.to_string();
    for l in lines.into_iter().rev() {
        text = splice(&text, l, "");
    }
    Ok(text)
}

pub(super) fn add_configure_arg(
    source: &str,
    reading: &Reading,
    arg: &str,
) -> Result<String, String> {
    // Meson's configure step takes `-Doption=value` through meson_args.
    let meson = reading.class.bases.iter().any(|(b, _)| b == "MesonPackage")
        || method(reading, "meson_args").is_some();
    if meson && arg.starts_with("-D") && arg.contains('=') {
        return add_to_returned_list(source, reading, "meson_args", &py_str(arg));
    }
    if !arg.starts_with("--") && !arg.contains('=') {
        return Err(format!(
            "{arg:?} is not a configure argument (--with-x, --enable-y, VAR=value; -Dx=y for Meson)"
        ));
    }
    add_to_returned_list(source, reading, "configure_args", &py_str(arg))
}

pub(super) fn add_compiler_flag(
    source: &str,
    reading: &Reading,
    flag: &str,
    flags: &str,
    when: &str,
) -> Result<String, String> {
    if !matches!(
        flags,
        "cflags" | "cxxflags" | "fflags" | "cppflags" | "ldflags"
    ) {
        return Err(format!(
            "{flags:?} is not a flag kind (cflags, cxxflags, fflags, cppflags, ldflags)"
        ));
    }
    if !flag.starts_with('-') {
        return Err(format!("{flag:?} is not a compiler flag"));
    }
    crate::spec::parse(when).map_err(|e| format!("{when:?} is not a valid spec: {e}"))?;
    let test = if when.trim().is_empty() {
        format!("name == {}", py_str(flags))
    } else {
        format!(
            "name == {} and self.spec.satisfies({})",
            py_str(flags),
            py_str(when)
        )
    };
    let i = &reading.class.body_indent;
    let Some(handler) = method(reading, "flag_handler") else {
        let body = format!(
            "{i}def flag_handler(self, name, flags):\n\
             {i}{i}if {test}:\n\
             {i}{i}{i}flags.append({})\n\
             {i}{i}return (flags, None, None)\n",
            py_str(flag)
        );
        return Ok(append_method(source, reading, &body));
    };
    // A handler that ends by returning the list it was given (`return
    // (flags, None, None)`, as packsmith writes one) takes one more test
    // before that return; any other shape is the model's to rewrite.
    let returns_flags = handler
        .final_return
        .as_ref()
        .filter(|(_, expr)| {
            source[expr.clone()]
                .trim_start_matches('(')
                .trim_start()
                .starts_with("flags,")
        })
        .map(|(lines, _)| lines.start);
    let at = returns_flags.ok_or(
        "the recipe's flag_handler does not end with `return (flags, …)`; use replace_line",
    )?;
    let b = &handler.body_indent;
    let block = format!("{b}if {test}:\n{b}{i}flags.append({})\n", py_str(flag));
    Ok(splice(source, at..at, &block))
}

/// Spack's values a `filter_file` replacement may name, and the Python
/// for each.
const FILTER_PLACEHOLDERS: &[(&str, &str)] = &[
    ("prefix", "self.prefix"),
    ("spack_cc", "spack_cc"),
    ("spack_cxx", "spack_cxx"),
    ("spack_fc", "spack_fc"),
    ("spack_f77", "spack_f77"),
];

/// The Python for a replacement: a plain string, or an f-string when it
/// names one of [`FILTER_PLACEHOLDERS`] (other braces kept literal).
fn filter_replacement(repl: &str) -> Result<String, String> {
    // A placeholder's name without its braces is a plain word in the
    // build file (a small model wrote `spack_cc $< $@` for `python $< $@`).
    let bare = repl
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '{' || c == '}'))
        .find(|w| w.starts_with("spack_") && FILTER_PLACEHOLDERS.iter().any(|(n, _)| n == w));
    if let Some(word) = bare {
        return Err(format!(
            "`{word}` without braces is written as the word itself; {{{word}}} stands for \
             Spack's value"
        ));
    }
    let mut body = String::new();
    let mut placeholders = 0;
    let mut rest = repl;
    while let Some(c) = rest.chars().next() {
        if c == '{' {
            let close = rest.find('}');
            let named = close.and_then(|end| {
                FILTER_PLACEHOLDERS
                    .iter()
                    .find(|(name, _)| *name == &rest[1..end])
                    .map(|(_, py)| (end, py))
            });
            if let Some((end, py)) = named {
                body.push('{');
                body.push_str(py);
                body.push('}');
                placeholders += 1;
                rest = &rest[end + 1..];
                continue;
            }
        }
        match c {
            '{' => body.push_str("{{"),
            '}' => body.push_str("}}"),
            _ => body.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    if placeholders == 0 {
        return Ok(py_str(repl));
    }
    Ok(format!("f{}", py_str(&body)))
}

/// A regex as Python source: a raw string, as maintainers write them,
/// when one can hold it.
fn py_regex(regex: &str) -> String {
    if regex.contains(['"', '\n']) || regex.ends_with('\\') {
        py_str(regex)
    } else {
        format!("r\"{regex}\"")
    }
}

pub(super) fn add_filter_file(
    source: &str,
    reading: &Reading,
    file: &str,
    regex: &str,
    repl: &str,
    literal: bool,
) -> Result<String, String> {
    source_path(file)?;
    if regex.is_empty() {
        return Err("the text to find is empty".into());
    }
    if !literal {
        regex::Regex::new(regex).map_err(|e| format!("{regex:?} is not a valid regex: {e}"))?;
    }
    let (pattern, string) = if literal {
        (py_str(regex), ", string=True")
    } else {
        (py_regex(regex), "")
    };
    let call = format!(
        "filter_file({pattern}, {}, {}{string})",
        filter_replacement(repl)?,
        py_str(file)
    );
    // The same rewrite twice changes nothing the first did not.
    if source.lines().any(|l| l.trim() == call) {
        return Err(format!("the recipe already has {call}"));
    }
    Ok(add_phase_call(source, reading, &call))
}

/// `copy(from, to)` in the phase that edits the staged source: a build
/// file made from a template the project ships.
pub(super) fn add_copy_file(
    source: &str,
    reading: &Reading,
    from: &str,
    to: &str,
) -> Result<String, String> {
    for path in [from, to] {
        source_path(path)?;
    }
    if from == to {
        return Err(format!("copy_file copies {from:?} onto itself"));
    }
    let call = format!("copy({}, {})", py_str(from), py_str(to));
    Ok(add_phase_call(source, reading, &call))
}

/// `path` must name a file inside the staged source.
fn source_path(path: &str) -> Result<(), String> {
    if path.trim().is_empty() || path.starts_with('/') || path.split('/').any(|p| p == "..") {
        return Err(format!(
            "{path:?} is not a path inside the source (e.g. \"Makefile\", \"src/Makefile\")"
        ));
    }
    Ok(())
}

/// `call` appended to the phase that edits the staged source: `edit` for
/// a Makefile package, as Spack's recipes do; `patch` for any other. The
/// method is made when missing.
fn add_phase_call(source: &str, reading: &Reading, call: &str) -> String {
    let makefile = reading
        .class
        .bases
        .iter()
        .any(|(b, _)| b == "MakefilePackage");
    let (name, signature) = if makefile {
        ("edit", "self, spec, prefix")
    } else {
        ("patch", "self")
    };
    let Some(m) = method(reading, name) else {
        let i = &reading.class.body_indent;
        let body = format!("{i}def {name}({signature}):\n{i}{i}{call}\n");
        return append_method(source, reading, &body);
    };
    let at = m.lines.end;
    let newline = if source[..at].ends_with('\n') {
        ""
    } else {
        "\n"
    };
    splice(
        source,
        at..at,
        &format!("{newline}{}{call}\n", m.body_indent),
    )
}

/// The name of the method `text` defines: its first line that is not a
/// decorator, a comment or blank must be `def name(`.
fn defined_name(text: &str) -> Option<&str> {
    let def = text
        .lines()
        .map(str::trim)
        .find(|l| !(l.is_empty() || l.starts_with('@') || l.starts_with('#')))?;
    let rest = def
        .strip_prefix("def ")
        .or_else(|| def.strip_prefix("async def "))?;
    let name = rest.split('(').next()?.trim();
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (plain && rest.contains('(')).then_some(name)
}

/// `text` with its own base indentation (that of its first line)
/// replaced by `indent`; `None` when a line is indented less than the
/// first.
fn reindent(text: &str, indent: &str) -> Option<String> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    let base = &first[..first.len() - first.trim_start().len()];
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.trim().is_empty() {
            out.push('\n');
            continue;
        }
        out.push_str(indent);
        out.push_str(line.strip_prefix(base)?);
        out.push('\n');
    }
    Some(out)
}

pub(super) fn add_method(source: &str, reading: &Reading, text: &str) -> Result<String, String> {
    let name = defined_name(text).ok_or("the text does not define a method (`def name(…):`)")?;
    if method(reading, name).is_some() {
        return Err(format!(
            "{} has a method {name} already; use replace_line",
            reading.class.name
        ));
    }
    let body = reindent(text.trim_matches('\n'), &reading.class.body_indent)
        .ok_or("a line of the method is indented less than its first line")?;
    let out = append_method(source, reading, &body);
    if breaks_syntax(source, &out) {
        return Err(format!("the method {name} does not parse"));
    }
    Ok(out)
}
