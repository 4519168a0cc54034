//! Source spans of directive calls: where a call ends and where each of its
//! arguments sits, found by scanning the Python text from the call start the
//! recipe reader reported (strings and comments respected). The reader keeps
//! values, not byte ranges, and a mutation must edit exactly the bytes it
//! means.

use std::ops::Range;

/// One call `name(...)` in the source.
#[derive(Debug, Clone)]
pub(super) struct CallSpan {
    /// First byte of the function name.
    pub start: usize,
    /// One past the closing `)`.
    pub end: usize,
    pub args: Vec<ArgSpan>,
}

/// One argument; ranges hold code only (no surrounding blanks or comments).
#[derive(Debug, Clone)]
pub(super) struct ArgSpan {
    pub keyword: Option<Range<usize>>,
    pub value: Range<usize>,
}

impl CallSpan {
    /// The keyword argument `name=`.
    pub fn keyword(&self, source: &str, name: &str) -> Option<&ArgSpan> {
        self.args
            .iter()
            .find(|a| a.keyword.as_ref().and_then(|k| source.get(k.clone())) == Some(name))
    }

    /// The `index`-th positional argument.
    pub fn positional(&self, index: usize) -> Option<&ArgSpan> {
        self.args.iter().filter(|a| a.keyword.is_none()).nth(index)
    }

    /// A parameter by keyword, else by its position in the signature.
    pub fn param(&self, source: &str, name: &str, index: usize) -> Option<&ArgSpan> {
        self.keyword(source, name)
            .or_else(|| self.positional(index))
    }
}

/// Byte offset of a 1-based line and 1-based byte column.
pub(super) fn offset(source: &str, line: u32, col: u32) -> Option<usize> {
    let skip = usize::try_from(line.checked_sub(1)?).ok()?;
    let line_start = if skip == 0 {
        0
    } else {
        source.match_indices('\n').nth(skip - 1)?.0 + 1
    };
    let at = line_start + usize::try_from(col.checked_sub(1)?).ok()?;
    source.is_char_boundary(at).then_some(at)
}

/// 1-based line of a byte offset.
pub(super) fn line_of(source: &str, offset: usize) -> u32 {
    let before = source.get(..offset).unwrap_or(source);
    u32::try_from(before.matches('\n').count() + 1).unwrap_or(u32::MAX)
}

/// The call to `name` that starts at `line`/`col` (as the reader reports it).
pub(super) fn call_at(source: &str, line: u32, col: u32, name: &str) -> Option<CallSpan> {
    let start = offset(source, line, col)?;
    if !source.get(start..)?.starts_with(name) {
        return None;
    }
    let bytes = source.as_bytes();
    let mut i = start + name.len();
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if bytes.get(i) != Some(&b'(') {
        return None;
    }
    i += 1;
    let mut depth = 0usize;
    let mut args = Vec::new();
    // Code bytes of the argument being read: first and one-past-last.
    let mut code: Option<Range<usize>> = None;
    loop {
        let b = *bytes.get(i)?;
        let next = match b {
            b'"' | b'\'' => skip_string(bytes, i)?,
            b'#' => {
                i = source.get(i..)?.find('\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\n' | b'\\' => {
                i += 1;
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i + 1
            }
            b')' | b']' | b'}' if depth > 0 => {
                depth -= 1;
                i + 1
            }
            b')' => {
                args.extend(code.take().map(|r| arg(source, r)));
                return Some(CallSpan {
                    start,
                    end: i + 1,
                    args,
                });
            }
            b']' | b'}' => return None,
            b',' if depth == 0 => {
                args.extend(code.take().map(|r| arg(source, r)));
                i += 1;
                continue;
            }
            _ => i + 1,
        };
        code = Some(code.map_or(i..next, |r| r.start..next));
        i = next;
    }
}

/// Splits `key=value` from a plain value.
fn arg(source: &str, range: Range<usize>) -> ArgSpan {
    let text = source.get(range.clone()).unwrap_or("");
    let ident = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let starts_ident = text
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let after = text.get(ident..).unwrap_or("");
    let rest = after.trim_start();
    if starts_ident && rest.starts_with('=') && !rest.starts_with("==") {
        let value_text = rest.get(1..).unwrap_or("");
        let value_start = range.end - value_text.trim_start().len();
        return ArgSpan {
            keyword: Some(range.start..range.start + ident),
            value: value_start..range.end,
        };
    }
    ArgSpan {
        keyword: None,
        value: range,
    }
}

/// One past the end of the string literal whose opening quote is at `i`.
fn skip_string(bytes: &[u8], i: usize) -> Option<usize> {
    let quote = *bytes.get(i)?;
    let triple = bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote);
    let mut j = if triple { i + 3 } else { i + 1 };
    loop {
        match *bytes.get(j)? {
            // An escape also keeps `\"` from closing a raw string.
            b'\\' => j += 2,
            b'\n' if !triple => return None,
            b if b == quote => {
                if !triple {
                    return Some(j + 1);
                }
                if bytes.get(j + 1) == Some(&quote) && bytes.get(j + 2) == Some(&quote) {
                    return Some(j + 3);
                }
                j += 1;
            }
            _ => j += 1,
        }
    }
}

/// The content range of a plain one-line string literal (`"x"` or `'x'`:
/// no prefix, no escapes), so content offsets map 1:1 onto the source.
pub(super) fn plain_string(source: &str, value: &Range<usize>) -> Option<Range<usize>> {
    let text = source.get(value.clone())?;
    let quote = text.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let inner = text.get(1..text.len().checked_sub(1)?)?;
    let closed = text.len() >= 2 && text.ends_with(quote);
    let simple = !inner.contains([quote, '\\', '\n']);
    (closed && simple).then(|| value.start + 1..value.end - 1)
}

/// The first element of a tuple or list literal, or the value itself.
pub(super) fn first_item(source: &str, value: &Range<usize>) -> Option<Range<usize>> {
    let text = source.get(value.clone())?;
    if !text.starts_with(['(', '[']) {
        return Some(value.clone());
    }
    let inner = text.get(1..)?;
    let start = value.start + 1 + (inner.len() - inner.trim_start().len());
    let item = source.get(start..value.end)?;
    let end = item.find([',', ')', ']']).map_or(value.end, |e| start + e);
    let trimmed = source.get(start..end)?.trim_end().len();
    Some(start..start + trimmed)
}

/// The whole lines a call statement occupies, when nothing but blanks
/// precede it on its first line and nothing but blanks or a comment
/// follows it on its last. Also returns the indentation.
pub(super) fn statement_lines<'s>(
    source: &'s str,
    call: &CallSpan,
) -> Option<(Range<usize>, &'s str)> {
    let line_start = source.get(..call.start)?.rfind('\n').map_or(0, |n| n + 1);
    let indent = source.get(line_start..call.start)?;
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let tail = source.get(call.end..)?;
    let line_end = tail.find('\n').map_or(source.len(), |n| call.end + n + 1);
    let after = source.get(call.end..line_end)?.trim();
    (after.is_empty() || after.starts_with('#')).then_some((line_start..line_end, indent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_arguments_across_lines_strings_and_comments() {
        let src = "x = 1\n    depends_on(\n        \"a,(b\",  # c)\n        type=(\"build\", \"run\"),\n        when='+x',\n    )\n";
        let call = call_at(src, 2, 5, "depends_on").unwrap();
        assert_eq!(&src[call.start..call.end], &src[10..src.len() - 1]);
        assert_eq!(call.args.len(), 3);
        let spec = call.positional(0).unwrap();
        assert_eq!(&src[spec.value.clone()], "\"a,(b\"");
        let ty = call.keyword(src, "type").unwrap();
        assert_eq!(&src[ty.value.clone()], "(\"build\", \"run\")");
        let first = first_item(src, &ty.value).unwrap();
        assert_eq!(&src[first.clone()], "\"build\"");
        assert_eq!(&src[plain_string(src, &first).unwrap()], "build");
        let when = call.keyword(src, "when").unwrap();
        assert_eq!(&src[plain_string(src, &when.value).unwrap()], "+x");
        let (lines, indent) = statement_lines(src, &call).unwrap();
        assert_eq!(&src[lines], &src[6..]);
        assert_eq!(indent, "    ");
        assert_eq!(line_of(src, call.end), 6);
    }

    #[test]
    fn refuses_what_is_not_that_call() {
        assert!(call_at("variant(\"x\")", 1, 1, "depends_on").is_none());
        assert!(call_at("depends_on(\"x\"", 1, 1, "depends_on").is_none());
        assert!(call_at("depends_on(\"x\"]", 1, 1, "depends_on").is_none());
        assert!(offset("a\nb", 3, 1).is_none());
        let src = "depends_on(f\"{x}\", r'\\d'); y()";
        let call = call_at(src, 1, 1, "depends_on").unwrap();
        assert!(plain_string(src, &call.positional(0).unwrap().value).is_none());
        assert!(plain_string(src, &call.positional(1).unwrap().value).is_none());
        assert!(statement_lines(src, &call).is_none());
    }
}
