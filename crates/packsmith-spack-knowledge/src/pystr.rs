//! Python literals and layout helpers for rendered recipes.

/// A Python string literal for `text`, quoted as black leaves it: double
/// quotes unless single ones need fewer escapes (`'say "hi"'`).
pub fn py_str(text: &str) -> String {
    let doubles = text.matches('"').count();
    let singles = text.matches('\'').count();
    let quote = if doubles > singles { '\'' } else { '"' };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A tuple literal of strings: `("a", "b")`, `("a",)` for one element.
pub fn py_tuple(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| py_str(s)).collect();
    if inner.len() == 1 {
        format!("({},)", inner[0])
    } else {
        format!("({})", inner.join(", "))
    }
}

/// `type="build"` or `type=("build", "run")`.
pub fn py_types(types: &[String]) -> String {
    if types.len() == 1 {
        py_str(&types[0])
    } else {
        py_tuple(types)
    }
}

/// Text safe inside a triple-quoted docstring, on one logical paragraph.
pub fn docstring_text(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = flat.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    // A quote at the very end would run into the closing `"""` and end
    // the docstring one character early.
    if let Some(before) = out.strip_suffix('"') {
        // Escaped already when an odd run of backslashes precedes it.
        let backslashes = before.chars().rev().take_while(|c| *c == '\\').count();
        if backslashes % 2 == 0 {
            out.pop();
            out.push_str("\\\"");
        }
    }
    out
}

/// Wraps words to lines of at most `width` characters (a single long word
/// stays on its own line).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A one-line comment text: newlines flattened.
pub fn comment_text(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(py_str(r#"a "b" \c"#), r#"'a "b" \\c'"#);
        assert_eq!(py_str(r#"it's "b""#), r#"'it\'s "b"'"#);
        assert_eq!(py_str(r#"it's"#), r#""it's""#);
        assert_eq!(py_str(r#"a "b" 'c'"#), r#""a \"b\" 'c'""#);
        assert_eq!(py_str("x\ny"), r#""x\ny""#);
    }

    #[test]
    fn tuples_and_types() {
        assert_eq!(py_tuple(&["a".into()]), r#"("a",)"#);
        assert_eq!(py_types(&["build".into()]), r#""build""#);
        assert_eq!(
            py_types(&["build".into(), "run".into()]),
            r#"("build", "run")"#
        );
    }

    #[test]
    fn docstrings_cannot_close_early() {
        assert_eq!(docstring_text(r#"a """ b"#), r#"a \"\"\" b"#);
        assert_eq!(
            docstring_text(r#"make CFLAGS="-m32 -Oz" LDFLAGS="-m32""#),
            r#"make CFLAGS="-m32 -Oz" LDFLAGS="-m32\""#
        );
        assert_eq!(docstring_text(r#"ends with """"#), r#"ends with \"\"\""#);
        // A backslash of the text before the quote is doubled, not an escape.
        assert_eq!(docstring_text(r#"path C:\""#), r#"path C:\\\""#);
    }

    #[test]
    fn wrapping_keeps_words() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
    }
}
