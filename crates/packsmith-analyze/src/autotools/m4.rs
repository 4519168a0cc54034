//! An m4-aware scanner for configure.ac: finds macro calls at any nesting
//! (inside quoted actions too), with their arguments and byte offsets.
//!
//! It follows m4's rules where they matter for reading: `[`/`]` quote, so
//! commas and parentheses inside quotes do not split arguments; `dnl` and `#`
//! start comments outside quotes; leading unquoted whitespace of an argument
//! is dropped.

/// One macro invocation.
#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    /// Byte offset of the macro name in the scanned text.
    pub offset: usize,
    pub args: Vec<Arg>,
    /// False when the closing `)` was never found (end of file reached).
    pub closed: bool,
}

/// One argument as written (quotes kept), trimmed.
#[derive(Debug, Clone)]
pub struct Arg {
    pub raw: String,
    pub offset: usize,
}

impl Arg {
    /// The argument with one level of quotes removed and whitespace trimmed,
    /// which is what the macro sees.
    pub fn value(&self) -> String {
        unquote(&self.raw)
    }
}

impl Call {
    /// The unquoted value of argument `i`, or "" when absent.
    pub fn arg(&self, i: usize) -> String {
        self.args.get(i).map(Arg::value).unwrap_or_default()
    }

    /// The raw text of argument `i`, or "" when absent.
    pub fn raw(&self, i: usize) -> &str {
        self.args.get(i).map_or("", |a| a.raw.as_str())
    }
}

/// Removes one level of `[`…`]` quoting everywhere in `s`, then trims.
pub fn unquote(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '[' => {
                if depth > 0 {
                    out.push(c);
                }
                depth += 1;
            }
            ']' if depth > 0 => {
                depth -= 1;
                if depth > 0 {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out.trim().to_string()
}

/// All macro calls in `text`, in order of appearance, nested ones included.
pub fn scan(text: &str) -> Vec<Call> {
    let mut out = Vec::new();
    scan_into(text, 0, &mut out);
    out
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Skips to the end of the line (the newline itself is kept).
fn skip_line(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i] != b'\n' {
        i += 1;
    }
    i
}

fn scan_into(text: &str, base: usize, out: &mut Vec<Call>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'#' {
            i = skip_line(bytes, i);
            continue;
        }
        if !is_ident_start(b) || (i > 0 && is_ident(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let name = &text[start..i];
        if name == "dnl" {
            i = skip_line(bytes, i);
            continue;
        }
        if i < bytes.len() && bytes[i] == b'(' {
            let (args, end, closed) = parse_args(text, i + 1);
            let call_index = out.len();
            out.push(Call {
                name: name.to_string(),
                offset: base + start,
                args: Vec::new(),
                closed,
            });
            // Nested calls (actions, AS_HELP_STRING) come after their parent.
            for (raw, off) in &args {
                scan_into(raw, base + off, out);
            }
            out[call_index].args = args
                .into_iter()
                .map(|(raw, off)| Arg {
                    raw: raw.to_string(),
                    offset: base + off,
                })
                .collect();
            i = end;
        } else if looks_like_macro(name) {
            out.push(Call {
                name: name.to_string(),
                offset: base + start,
                args: Vec::new(),
                closed: true,
            });
        }
    }
}

/// Argument-less words worth reporting: `AC_PROG_CC`, `LT_INIT`, `AX_MPI`.
fn looks_like_macro(name: &str) -> bool {
    ["AC_", "AM_", "LT_", "AX_", "ACX_", "PKG_", "AS_"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Parses arguments starting just after `(`. Returns the trimmed argument
/// slices with their offsets, the index after `)`, and whether `)` was found.
fn parse_args(text: &str, from: usize) -> (Vec<(&str, usize)>, usize, bool) {
    let bytes = text.as_bytes();
    let mut args = Vec::new();
    let mut quote = 0usize;
    let mut parens = 0usize;
    let mut i = from;
    let mut arg_start = from;
    while i < bytes.len() {
        let b = bytes[i];
        if quote == 0 {
            match b {
                b'#' => {
                    i = skip_line(bytes, i);
                    continue;
                }
                b'd' if text[i..].starts_with("dnl")
                    && (i == 0 || !is_ident(bytes[i - 1]))
                    && !bytes.get(i + 3).is_some_and(|&c| is_ident(c)) =>
                {
                    i = skip_line(bytes, i);
                    continue;
                }
                b'[' => quote += 1,
                b'(' => parens += 1,
                b')' if parens > 0 => parens -= 1,
                b')' => {
                    args.push(trimmed(text, arg_start, i));
                    return (args, i + 1, true);
                }
                b',' if parens == 0 => {
                    args.push(trimmed(text, arg_start, i));
                    arg_start = i + 1;
                }
                _ => {}
            }
        } else {
            match b {
                b'[' => quote += 1,
                b']' => quote -= 1,
                _ => {}
            }
        }
        i += 1;
    }
    args.push(trimmed(text, arg_start, bytes.len()));
    (args, bytes.len(), false)
}

fn trimmed(text: &str, start: usize, end: usize) -> (&str, usize) {
    let s = &text[start..end];
    let lead = s.len() - s.trim_start().len();
    (s.trim(), start + lead)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_args_and_nesting() {
        let text = "dnl AC_NOPE([x])\nAC_INIT([foo], [1.0],\n  [bugs@x.org]) # AC_NOT\nAC_ARG_ENABLE([mpi],\n  AS_HELP_STRING([--enable-mpi], [use MPI (default, no)]),\n  [], [enable_mpi=no])\nAC_PROG_CC\n";
        let calls = scan(text);
        let names: Vec<_> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["AC_INIT", "AC_ARG_ENABLE", "AS_HELP_STRING", "AC_PROG_CC"]
        );
        assert_eq!(calls[0].arg(2), "bugs@x.org");
        assert_eq!(calls[1].args.len(), 4);
        assert_eq!(calls[2].arg(1), "use MPI (default, no)");
        assert_eq!(calls[1].arg(3), "enable_mpi=no");
        assert_eq!(
            &text[calls[2].offset..calls[2].offset + 14],
            "AS_HELP_STRING"
        );
    }

    #[test]
    fn unterminated_call_does_not_panic() {
        let calls = scan("AC_INIT([foo], [1.0]\n");
        assert!(!calls[0].closed);
        assert_eq!(calls[0].arg(1), "1.0");
    }
}
