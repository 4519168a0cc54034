//! Python source laid out as Spack's style check wants it (black at 99
//! columns with `skip_magic_trailing_comma`, flake8's line length): a call
//! or list on one line when it fits; else its contents on one indented line
//! between the brackets (black's right-hand split, no trailing comma);
//! else one element per line with a trailing comma; and a string too long
//! for its line split at spaces into adjacent literals (black leaves those
//! as written). The drafter and the recipe editor both write through
//! it, so what they add passes `spack style` as it stands.

/// Spack's formatter (black) and flake8 wrap at 99 columns.
pub const LINE_WIDTH: usize = 99;

fn width(s: &str) -> usize {
    s.chars().count()
}

/// A call `name(args)` at `indent` in black's layout (see the module).
pub fn call(indent: &str, name: &str, args: &[String]) -> Vec<String> {
    bracketed(indent, &format!("{name}("), args, ")")
}

/// A call as an element of an exploded call or list: with the element's
/// comma after its closing parenthesis, counted in the width.
fn call_element(indent: &str, name: &str, args: &[String]) -> Vec<String> {
    bracketed(indent, &format!("{name}("), args, "),")
}

/// `target = [items]` at `indent` in black's layout.
pub fn list_assignment(indent: &str, target: &str, items: &[String]) -> Vec<String> {
    bracketed(indent, &format!("{target} = ["), items, "]")
}

/// `open` + the elements + `close`: on one line, else the elements on one
/// line between the brackets, else one per line.
fn bracketed(indent: &str, open: &str, args: &[String], close: &str) -> Vec<String> {
    let one = format!("{indent}{open}{}{close}", args.join(", "));
    if width(&one) <= LINE_WIDTH {
        return vec![one];
    }
    let inner = format!("{indent}    ");
    let hugged = format!("{inner}{}", args.join(", "));
    if !args.is_empty() && width(&hugged) <= LINE_WIDTH {
        return vec![
            format!("{indent}{open}"),
            hugged,
            format!("{indent}{close}"),
        ];
    }
    let mut lines = vec![format!("{indent}{open}")];
    for arg in args {
        lines.extend(item(&inner, arg));
    }
    // A sole argument split into adjacent literals takes no trailing comma
    // (black removes it).
    if let [only] = args {
        let split = lines.len() > 2 && !lines[lines.len() - 1].trim_start().starts_with(')');
        if split && as_call(only).is_none() {
            if let Some(last) = lines.last_mut() {
                last.pop();
            }
        }
    }
    lines.push(format!("{indent}{close}"));
    lines
}

/// One element of an exploded call or list, with its trailing comma: as it
/// is when it fits, else a call inside it exploded in turn, else a long
/// string split at spaces.
pub fn item(indent: &str, element: &str) -> Vec<String> {
    let line = format!("{indent}{element},");
    if width(&line) <= LINE_WIDTH {
        return vec![line];
    }
    if let Some((name, args)) = as_call(element) {
        return call_element(indent, name, &args);
    }
    split_string(indent, element).unwrap_or_else(|| vec![line])
}

/// `name(a, b)` → (`name`, [`a`, `b`]) when `element` is one call whose
/// arguments split at top-level commas.
fn as_call(element: &str) -> Option<(&str, Vec<String>)> {
    let open = element.find('(')?;
    let name = &element[..open];
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if !plain || !element.ends_with(')') {
        return None;
    }
    let inner = &element[open + 1..element.len() - 1];
    let args = split_top_level(inner)?;
    (!args.is_empty()).then_some((name, args))
}

/// The characters of Python text outside its string literals, with their
/// byte offsets (the quotes themselves left out too); `in_string` says,
/// at the end, whether a literal was left open.
pub(crate) struct CodeChars<'a> {
    chars: std::str::CharIndices<'a>,
    quote: Option<char>,
    escaped: bool,
}

impl CodeChars<'_> {
    pub(crate) fn in_string(&self) -> bool {
        self.quote.is_some()
    }
}

pub(crate) fn code_chars(text: &str) -> CodeChars<'_> {
    CodeChars {
        chars: text.char_indices(),
        quote: None,
        escaped: false,
    }
}

impl Iterator for CodeChars<'_> {
    type Item = (usize, char);

    fn next(&mut self) -> Option<(usize, char)> {
        loop {
            let (i, c) = self.chars.next()?;
            match self.quote {
                Some(q) => {
                    if self.escaped {
                        self.escaped = false;
                    } else if c == '\\' {
                        self.escaped = true;
                    } else if c == q {
                        self.quote = None;
                    }
                }
                None if c == '"' || c == '\'' => self.quote = Some(c),
                None => return Some((i, c)),
            }
        }
    }
}

/// Splits at commas outside brackets and string literals; None when the
/// brackets or quotes do not balance (the text is then left alone).
fn split_top_level(text: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut chars = code_chars(text);
    for (i, c) in chars.by_ref() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    if depth != 0 || chars.in_string() {
        return None;
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last.to_string());
    }
    Some(parts)
}

/// `key="long text"` or `"long text"` as adjacent literals split at
/// spaces, each line within the width (a word longer than a line stays
/// whole); the last line carries the comma. None for anything else.
fn split_string(indent: &str, element: &str) -> Option<Vec<String>> {
    let (key, literal) = match element.split_once('=') {
        Some((k, rest))
            if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            (format!("{k}="), rest)
        }
        _ => (String::new(), element),
    };
    let quote = literal.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    let body = literal.strip_prefix(quote)?.strip_suffix(quote)?;
    let escaped_quote = format!("\\{quote}");
    if body.replace(&escaped_quote, "").contains(quote) {
        return None;
    }
    let mut pieces: Vec<String> = Vec::new();
    let mut current = String::new();
    // Words keep their following space, so the pieces join back exactly;
    // room is left for the key, two quotes and a comma.
    let room = LINE_WIDTH.saturating_sub(width(indent) + width(&key) + 3);
    for word in body.split_inclusive(' ') {
        if !current.is_empty() && width(&current) + width(word) > room {
            pieces.push(std::mem::take(&mut current));
        }
        current.push_str(word);
    }
    pieces.push(current);
    if pieces.len() < 2 {
        return None;
    }
    let last = pieces.len() - 1;
    let lines = pieces
        .iter()
        .enumerate()
        .map(|(n, piece)| {
            let key = if n == 0 { key.as_str() } else { "" };
            let comma = if n == last { "," } else { "" };
            format!("{indent}{key}{}{comma}", requote(piece, quote))
        })
        .collect();
    Some(lines)
}

/// One piece of a split literal quoted as black leaves it: a single-quoted
/// piece with no double quote in it becomes double-quoted.
fn requote(piece: &str, quote: char) -> String {
    if quote == '\'' && !piece.contains('"') {
        format!("\"{}\"", piece.replace("\\'", "'"))
    } else {
        format!("{quote}{piece}{quote}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_fit(lines: &[String]) -> bool {
        lines.iter().all(|l| width(l) <= LINE_WIDTH)
    }

    #[test]
    fn a_short_call_stays_on_one_line() {
        let args = vec!["\"x\"".to_string(), "default=True".to_string()];
        assert_eq!(
            call("    ", "variant", &args),
            ["    variant(\"x\", default=True)"]
        );
    }

    #[test]
    fn a_long_description_is_split_into_adjacent_literals() {
        let description = "Whether QuEST will be built with shared-memory parallelism support \
                           using OpenMP. Turned ON by default and more words to pass the width.";
        let args = vec![
            "\"openmp\"".to_string(),
            "default=True".to_string(),
            format!("description=\"{description}\""),
        ];
        let lines = call("    ", "variant", &args);
        assert!(all_fit(&lines), "{lines:#?}");
        assert_eq!(lines[0], "    variant(");
        assert!(lines[3].starts_with("        description=\"Whether QuEST"));
        assert!(lines[4].starts_with("        \""), "{lines:#?}");
        assert_eq!(lines.last().unwrap(), "    )");
        // The literals join back to the text.
        let joined: String = lines[3..lines.len() - 1]
            .iter()
            .map(|l| {
                let l = l
                    .trim()
                    .trim_start_matches("description=")
                    .trim_end_matches(',');
                l.trim_matches('"').to_string()
            })
            .collect();
        assert_eq!(joined, description);
    }

    #[test]
    fn a_long_list_element_that_is_a_call_is_exploded() {
        let element =
            "self.define_from_variant(\"CO_SIM_IO_BUILD_PYTHON_MPI4PY_INTERFACE\", \"mpi4py_interface_xyz\")";
        // The arguments fit on one line between the parentheses.
        assert_eq!(
            item("            ", element),
            [
                "            self.define_from_variant(",
                "                \"CO_SIM_IO_BUILD_PYTHON_MPI4PY_INTERFACE\", \"mpi4py_interface_xyz\"",
                "            ),",
            ]
        );
        // They do not: one per line, each with its comma.
        let longer = element.replace(
            "\"mpi4py_interface_xyz\"",
            "\"co_sim_io_build_python_mpi4py_interface\"",
        );
        assert_eq!(
            item("            ", &longer),
            [
                "            self.define_from_variant(",
                "                \"CO_SIM_IO_BUILD_PYTHON_MPI4PY_INTERFACE\",",
                "                \"co_sim_io_build_python_mpi4py_interface\",",
                "            ),",
            ]
        );
    }

    #[test]
    fn commas_inside_strings_and_brackets_do_not_split() {
        assert_eq!(
            split_top_level("\"a, b\", f(1, 2), [3, 4]").unwrap(),
            ["\"a, b\"", "f(1, 2)", "[3, 4]"]
        );
        assert_eq!(split_top_level("\"open"), None);
        assert_eq!(split_top_level("f(1"), None);
    }

    #[test]
    fn a_sole_split_string_argument_has_no_trailing_comma() {
        let text = format!("\"{}\"", "word ".repeat(30).trim_end());
        let lines = call("        ", "f.write", &[text]);
        assert!(lines.len() > 3, "{lines:#?}");
        assert!(lines[lines.len() - 2].ends_with('"'), "{lines:#?}");
        assert!(lines[1].ends_with('"'), "{lines:#?}");
        assert_eq!(lines.last().unwrap(), "        )");
    }

    #[test]
    fn a_list_is_hugged_before_it_is_exploded() {
        let short = vec!["self.define(\"A\", True)".to_string()];
        assert_eq!(
            list_assignment("        ", "args", &short),
            ["        args = [self.define(\"A\", True)]"]
        );
        let many: Vec<String> = (0..6)
            .map(|i| format!("self.define(\"OPTION_{i}\", True)"))
            .collect();
        let lines = list_assignment("        ", "args", &many);
        assert_eq!(lines.len(), 8, "{lines:#?}");
        assert_eq!(lines.last().unwrap(), "        ]");
        assert!(lines[1].ends_with(','), "{lines:#?}");
    }

    #[test]
    fn a_single_quoted_description_is_split_with_black_s_quotes() {
        let text = "Extra pre-processor definitions (use as `-DMI_EXTRA_CPPDEFS=\\\"opt1=val1;opt2=val2\\\"`) and more";
        let element = format!(
            "description={}",
            crate::pystr::py_str(&text.replace("\\\"", "\""))
        );
        assert!(element.starts_with("description='"), "{element}");
        let lines = item("        ", &element);
        assert!(lines.len() >= 2, "{lines:#?}");
        assert!(lines.iter().all(|l| width(l) <= LINE_WIDTH), "{lines:#?}");
        assert!(lines[0].starts_with("        description=\""), "{lines:#?}");
        assert!(lines.last().unwrap().ends_with("',"), "{lines:#?}");
    }

    #[test]
    fn a_call_element_counts_its_comma() {
        // 99 columns without the comma, 100 with it.
        let element = "self.define(\"CMAKE_DISABLE_FIND_PACKAGE_BZip2\", self.spec.satisfies(\"~support_libbz2\"))";
        assert_eq!(width(&format!("            {element}")), 99);
        let lines = item("            ", element);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert_eq!(lines[2], "            ),");
    }

    #[test]
    fn a_word_longer_than_the_line_stays_whole() {
        let long = "x".repeat(120);
        let lines = item("    ", &format!("\"{long}\""));
        assert_eq!(lines, [format!("    \"{long}\",")]);
    }
}
