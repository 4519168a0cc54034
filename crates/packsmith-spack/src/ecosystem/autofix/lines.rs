//! Line-level helpers every rule repair writes with: lines joined back as
//! the recipe had them, a method appended to a class that runs to the end
//! of the file.

/// Lines split from `text` joined again, ending with a newline when `text`
/// did: what every line-editing rule writes back.
pub(crate) fn rejoin<S: AsRef<str>>(lines: &[S], text: &str) -> String {
    let mut out = lines
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Whether the class body runs to the end of the file, so a method can be
/// appended to it.
pub(crate) fn class_runs_to_end(text: &str) -> bool {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with(' ') || l.starts_with('\t'))
}

pub(crate) fn append_method(text: &str, method: &[String]) -> String {
    let mut out = text.trim_end().to_string();
    out.push_str("\n\n");
    out.push_str(&method.join("\n"));
    out.push('\n');
    out
}
