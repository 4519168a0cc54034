//! Edits inside methods: CMake defines in `cmake_args`, configure
//! arguments in `configure_args`, and a `flag_handler` for compiler flags.
//! A method that is missing is added at the end of the class; one whose
//! shape packsmith cannot follow (no final `return`) is refused with a
//! reason rather than edited blindly.

use super::locate::{MethodSpan, Reading};
use super::{py_literal, py_string, splice};

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

/// The Python for a define's value: `self.run_tests`, a bool, or a string.
fn define_value(value: &serde_json::Value) -> Result<String, String> {
    match value.as_str() {
        Some("self.run_tests") => Ok("self.run_tests".into()),
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

pub(super) fn add_cmake_define(
    source: &str,
    reading: &Reading,
    name: &str,
    value: &serde_json::Value,
) -> Result<String, String> {
    check_define_name(name)?;
    if defines_lines(source, reading, name).is_some_and(|l| !l.is_empty()) {
        return Err(format!(
            "cmake_args already sets {name}; remove_cmake_define first"
        ));
    }
    let item = format!("self.define({}, {})", py_string(name), define_value(value)?);
    add_to_returned_list(source, reading, "cmake_args", &item)
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
    if !arg.starts_with("--") && !arg.contains('=') {
        return Err(format!(
            "{arg:?} is not a configure argument (--with-x, --enable-y, VAR=value)"
        ));
    }
    add_to_returned_list(source, reading, "configure_args", &py_string(arg))
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
    if method(reading, "flag_handler").is_some() {
        return Err("the recipe has its own flag_handler; use replace_line".into());
    }
    let i = &reading.class.body_indent;
    let body = format!(
        "{i}def flag_handler(self, name, flags):\n\
         {i}{i}if name == {} and self.spec.satisfies({}):\n\
         {i}{i}{i}flags.append({})\n\
         {i}{i}return (flags, None, None)\n",
        py_string(flags),
        py_string(when),
        py_string(flag)
    );
    Ok(append_method(source, reading, &body))
}
