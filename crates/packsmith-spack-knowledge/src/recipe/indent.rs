//! Python's indentation rules, which tree-sitter's error recovery lets
//! pass: a line indented deeper than the one before when that one opens
//! no block (`unexpected indent`), a dedent to a depth no enclosing block
//! has, and a block opener with nothing indented after it. Spack refuses
//! such a recipe when it loads it (`IndentationError`), so the check must
//! too (a model's one-line edit at the wrong depth makes exactly this).

use super::SyntaxError;

/// The logical lines of `source` (brackets, strings and backslash
/// continuations joined), each as (1-based line, indentation width, ends
/// with `:`). Blank and comment-only lines are left out.
fn logical_lines(source: &str) -> Vec<(u32, usize, bool)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    // The open string's quote and whether it is triple.
    let mut string: Option<(char, bool)> = None;
    let mut continued = false;
    let mut last_code_char: Option<char> = None;
    let mut current: Option<(u32, usize)> = None;
    for (n, line) in source.lines().enumerate() {
        let line_no = u32::try_from(n + 1).unwrap_or(u32::MAX);
        let starts_logical = depth == 0 && string.is_none() && !continued;
        if starts_logical {
            let code = line.trim_start();
            if code.is_empty() || code.starts_with('#') {
                continue;
            }
            if let Some((l, w)) = current.take() {
                out.push((l, w, last_code_char == Some(':')));
            }
            let width = line
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .fold(0, |w, c| if c == '\t' { (w / 8 + 1) * 8 } else { w + 1 });
            current = Some((line_no, width));
            last_code_char = None;
        }
        continued = false;
        // A backslash at the end of a one-quote string carries it on.
        let mut string_carried = false;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            match string {
                Some((q, triple)) => {
                    if c == '\\' {
                        string_carried = i + 1 == chars.len();
                        i += 2;
                        continue;
                    }
                    if c == q {
                        if !triple {
                            string = None;
                        } else if chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q) {
                            string = None;
                            i += 3;
                            continue;
                        }
                    }
                }
                None => match c {
                    '#' => break,
                    '"' | '\'' => {
                        let triple = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
                        string = Some((c, triple));
                        last_code_char = Some(c);
                        i += if triple { 3 } else { 1 };
                        continue;
                    }
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => depth = depth.saturating_sub(1),
                    '\\' if i + 1 == chars.len() => continued = true,
                    _ => {}
                },
            }
            if string.is_none() && !c.is_whitespace() {
                last_code_char = Some(c);
            }
            i += 1;
        }
        // A one-quote string cannot run past its line.
        if matches!(string, Some((_, false))) && !string_carried {
            string = None;
        }
    }
    if let Some((l, w)) = current {
        out.push((l, w, last_code_char == Some(':')));
    }
    out
}

/// The first indentation error of `source`, as Python's tokenizer would
/// report it.
pub(super) fn indentation_error(source: &str) -> Option<SyntaxError> {
    let mut levels = vec![0usize];
    let mut opens_block = false;
    for (line, width, ends_with_colon) in logical_lines(source) {
        let top = *levels.last().unwrap_or(&0);
        let message = if width > top {
            if opens_block {
                levels.push(width);
                None
            } else {
                Some("unexpected indent (Python refuses this line's indentation)")
            }
        } else if opens_block {
            Some("expected an indented block after the line before")
        } else {
            while levels.last().is_some_and(|l| *l > width) {
                levels.pop();
            }
            (levels.last() != Some(&width))
                .then_some("unindent does not match any outer indentation level")
        };
        if let Some(message) = message {
            return Some(SyntaxError {
                line,
                col: 1,
                message: message.to_string(),
            });
        }
        opens_block = ends_with_colon;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_line(src: &str) -> Option<(u32, String)> {
        indentation_error(src).map(|e| (e.line, e.message))
    }

    #[test]
    fn a_line_at_the_wrong_depth_is_found() {
        let good = "from spack.package import *\n\n\nclass A(Package):\n    \"\"\"Doc\n  with an odd line.\"\"\"\n\n    # a comment\n    variant(\n        \"x\",\n  default=True,\n    )\n    x = [1,\n2]\n    def f(self):\n        if True:\n            return \\\n  1\n        return 2\n";
        assert_eq!(error_line(good), None);
        let unexpected = "class A(Package):\n    url = 'u'\ndepends_on('x')\n    version('1')\n";
        let (line, message) = error_line(unexpected).unwrap();
        assert_eq!(line, 4);
        assert!(message.starts_with("unexpected indent"), "{message}");
        let dedent = "class A(Package):\n    def f(self):\n        pass\n      x = 1\n";
        assert_eq!(error_line(dedent).map(|e| e.0), Some(4));
        let empty_block = "class A(Package):\n    def f(self):\n    x = 1\n";
        let (line, message) = error_line(empty_block).unwrap();
        assert_eq!(line, 3);
        assert!(
            message.starts_with("expected an indented block"),
            "{message}"
        );
        // A string carried on by a backslash, as breakdancer's regex is.
        let carried =
            "class A(Package):\n    def f(self):\n        x = \"a\\\n      b\"\n        y = 1\n";
        assert_eq!(error_line(carried), None);
        // A colon inside a string or a dict is no block opener.
        let colons = "x = {'a':\n  1}\ny = 'b:'\nz = 1\n";
        assert_eq!(error_line(colons), None);
    }
}
