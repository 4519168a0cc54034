//! Just enough of Nix's lexical grammar to read a package expression's
//! attribute values: identifiers (dotted paths joined), plain and indented
//! strings (their literal text, interpolations dropped), brackets, `=` and
//! `;`. Comments are skipped; anything else is one `Other` token. It never
//! fails: an unterminated string or comment ends at the end of the text.

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `lib.cmakeBool`, `python3Packages.setuptools`, `finalAttrs`.
    Ident(String),
    /// A string's literal text; each `${…}` becomes `…`.
    Str(String),
    Open(char),
    Close(char),
    Eq,
    Semi,
    Other,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'\'' | b'-')
}

/// Skips a `${ … }` starting at `i` (at the `$`); returns the index after it.
fn skip_interpolation(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// A `"…"` string from `i` (after the quote): its text and the next index.
fn plain_string(b: &[u8], mut i: usize) -> (String, usize) {
    let mut out = Vec::new();
    while i < b.len() {
        match b[i] {
            b'"' => return (String::from_utf8_lossy(&out).into_owned(), i + 1),
            b'\\' if i + 1 < b.len() => {
                out.push(b[i + 1]);
                i += 2;
            }
            b'$' if b.get(i + 1) == Some(&b'{') => {
                out.extend_from_slice("…".as_bytes());
                i = skip_interpolation(b, i);
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), i)
}

/// A `''…''` string from `i` (after the opening quotes).
fn indented_string(b: &[u8], mut i: usize) -> (String, usize) {
    let mut out = Vec::new();
    while i < b.len() {
        if b[i] == b'\'' && b.get(i + 1) == Some(&b'\'') {
            // `'''`, `''$` and `''\x` are escapes, not the end.
            match b.get(i + 2) {
                Some(b'\'') | Some(b'$') => {
                    out.push(b[i + 2]);
                    i += 3;
                }
                Some(b'\\') => {
                    out.extend_from_slice(b.get(i + 3..i + 4).unwrap_or_default());
                    i += 4;
                }
                _ => return (String::from_utf8_lossy(&out).into_owned(), i + 2),
            }
        } else if b[i] == b'$' && b.get(i + 1) == Some(&b'{') {
            out.extend_from_slice("…".as_bytes());
            i = skip_interpolation(b, i);
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), i)
}

pub(crate) fn tokens(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                let (s, next) = plain_string(b, i + 1);
                out.push(Tok::Str(s));
                i = next;
            }
            b'\'' if b.get(i + 1) == Some(&b'\'') => {
                let (s, next) = indented_string(b, i + 2);
                out.push(Tok::Str(s));
                i = next;
            }
            b'(' | b'[' | b'{' => {
                out.push(Tok::Open(c as char));
                i += 1;
            }
            b')' | b']' | b'}' => {
                out.push(Tok::Close(c as char));
                i += 1;
            }
            b';' => {
                out.push(Tok::Semi);
                i += 1;
            }
            b'=' if b.get(i + 1) == Some(&b'=') => {
                out.push(Tok::Other);
                i += 2;
            }
            b'=' => {
                out.push(Tok::Eq);
                i += 1;
            }
            _ if is_ident_start(c) => {
                let start = i;
                loop {
                    while i < b.len() && is_ident_char(b[i]) {
                        i += 1;
                    }
                    // A dotted path goes on; `a.${x}` or `a."b"` end it.
                    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(|&n| is_ident_start(n)) {
                        i += 1;
                    } else {
                        break;
                    }
                }
                out.push(Tok::Ident(text[start..i].to_string()));
            }
            _ => {
                // One token per character; multi-byte UTF-8 stays whole.
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push(Tok::Other);
                i += len;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(text: &str) -> Vec<String> {
        tokens(text)
            .into_iter()
            .filter_map(|t| match t {
                Tok::Ident(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn dotted_paths_strings_and_comments() {
        let t = tokens(
            "a = [ python3Packages.setuptools ]; # comment [ b ]\n/* c */ d = \"-DX=${lib.boolToString y}\";",
        );
        assert_eq!(t[0], Tok::Ident("a".into()));
        assert_eq!(t[3], Tok::Ident("python3Packages.setuptools".into()));
        assert!(t.contains(&Tok::Str("-DX=…".into())), "{t:?}");
        assert_eq!(idents("x # y\n z"), ["x", "z"]);
    }

    #[test]
    fn indented_strings_keep_their_escapes_inside() {
        let t = tokens("p = ''\n  echo '''quoted''' ''${HOME}\n  ${x}\n'';\nq = 1;");
        let Tok::Str(s) = &t[2] else { panic!("{t:?}") };
        assert!(
            s.contains("'quoted'") && s.contains("${HOME}") && s.contains('…'),
            "{s}"
        );
        assert_eq!(t[3], Tok::Semi);
        assert_eq!(t[4], Tok::Ident("q".into()));
    }

    #[test]
    fn unterminated_input_ends_quietly() {
        assert_eq!(tokens("\"abc").len(), 1);
        assert_eq!(tokens("''abc").len(), 1);
        assert!(tokens("/* never closed").is_empty());
        assert!(!tokens("é ü ${").is_empty());
    }
}
