//! What one Makefile line says about dependencies: the libraries it links
//! by name (`-lfoo`) and the pkg-config calls it makes.

/// Names linked with `-lfoo` in a flag list or command. `-l$(VAR)` names
/// nothing until make runs, so only literal names count.
pub(super) fn linked_libraries(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter_map(|w| w.strip_prefix("-l").map(str::to_string))
        .filter(|name| is_name(name))
        .collect()
}

/// Whether a recipe line runs the compiler or linker, whose `-l` flags
/// are libraries (elsewhere `-l` is any tool's option: `ls -l`, `wc -l`).
pub(super) fn is_link_command(recipe: &str) -> bool {
    const COMPILERS: &[&str] = &[
        "$(CC)", "${CC}", "$(CXX)", "${CXX}", "$(LD)", "${LD}", "$(LINK.", "gcc", "g++", "clang",
        "cc ", "c++ ",
    ];
    COMPILERS.iter().any(|c| recipe.contains(c))
}

/// The argument text of each pkg-config call in `text`: what follows
/// `pkg-config` (or a variable naming it, `$(PKG_CONFIG)`) up to the end
/// of the enclosing `$(shell …)`, backquotes or shell command.
/// `names_pkg_config` tells whether a variable holds the pkg-config program.
pub(super) fn pkg_config_calls(text: &str, names_pkg_config: impl Fn(&str) -> bool) -> Vec<&str> {
    let mut calls = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let after = if let Some(tail) = rest.strip_prefix("pkg-config") {
            let ends_word = tail.is_empty() || tail.starts_with(char::is_whitespace);
            ends_word.then_some(i + "pkg-config".len())
        } else if let Some(name) = variable_reference(rest) {
            names_pkg_config(name).then_some(i + name.len() + 3)
        } else {
            None
        };
        match after {
            Some(start) => {
                let len = command_length(&text[start..]);
                calls.push(&text[start..start + len]);
                i = start + len;
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    calls
}

/// `NAME` of a `$(NAME)` or `${NAME}` at the start of `text`.
fn variable_reference(text: &str) -> Option<&str> {
    let close = match text.get(..2)? {
        "$(" => ')',
        "${" => '}',
        _ => return None,
    };
    let name = &text[2..2 + text[2..].find(close)?];
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then_some(name)
}

/// Bytes of one shell command's arguments: up to an unmatched closing
/// parenthesis or brace (the end of `$(shell …)`), a backquote, a command
/// separator or a redirection, none of them counting inside quotes.
fn command_length(text: &str) -> usize {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '{' => depth += 1,
            ')' | '}' if depth == 0 => return i,
            ')' | '}' => depth -= 1,
            '`' | ';' | '|' | '&' | '\n' => return i,
            // `>=` and `<=` are version constraints; a lone one redirects.
            '>' | '<' if chars.peek().map(|&(_, n)| n) != Some('=') => return i,
            _ => {}
        }
    }
    text.len()
}

/// pkg-config options whose value may follow as the next word.
const OPTIONS_WITH_VALUE: &[&str] = &[
    "--atleast-version",
    "--exact-version",
    "--max-version",
    "--variable",
    "--define-variable",
];

/// The modules a pkg-config call's (expanded) arguments name, without
/// options and version constraints. None when no option asks anything:
/// then `pkg-config` was only mentioned (`$(error pkg-config not found)`).
pub(super) fn pkg_config_modules(args: &str) -> Option<Vec<String>> {
    let mut asks = false;
    let mut modules = Vec::new();
    let mut words = words(args).into_iter();
    while let Some(word) = words.next() {
        if word.starts_with("--") {
            asks = true;
            if OPTIONS_WITH_VALUE.contains(&word) {
                words.next();
            }
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        // `glib-2.0 >= 2.56`, `glib-2.0>=2.56`, `glib-2.0 >=2.56`: the
        // version after an operator is no module.
        let name_end = word.find(['<', '>', '=', '!']).unwrap_or(word.len());
        let (name, constraint) = word.split_at(name_end);
        if constraint
            .trim_start_matches(['<', '>', '=', '!'])
            .is_empty()
            && !constraint.is_empty()
        {
            words.next();
        }
        if is_name(name) && name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            modules.push(name.to_string());
        }
    }
    asks.then_some(modules)
}

/// Whitespace-separated words, quotes removed (`"a >= 1.2"` is three words).
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == '"' || c == '\'')
        .filter(|w| !w.is_empty())
        .collect()
}

/// A library or module name as written: no variable, path or option.
fn is_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.+-".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_library_names_only() {
        assert_eq!(
            linked_libraries("-L/opt/lib -lmnl -l$(NFQ) -lstdc++ '-lfoo' -Wl,-lbar -l"),
            ["mnl", "stdc++", "foo"]
        );
    }

    #[test]
    fn recipes_that_link() {
        assert!(is_link_command("$(VERBOSE) $(CC) -o $@ $^ $(LIBS)"));
        assert!(is_link_command("g++ $(CCFLAGS) -o app app.cpp"));
        assert!(!is_link_command("ls -l | wc -l"));
    }

    #[test]
    fn calls_end_with_their_shell_command() {
        let plain = |_: &str| false;
        assert_eq!(
            pkg_config_calls(
                "X = $(shell pkg-config --cflags --libs gtk+-3.0 libnotify)",
                plain
            ),
            [" --cflags --libs gtk+-3.0 libnotify"]
        );
        assert_eq!(
            pkg_config_calls(
                "\tcc `pkg-config --libs glib-2.0` -o x `pkg-config --cflags x11`",
                plain
            ),
            [" --libs glib-2.0", " --cflags x11"]
        );
        assert_eq!(
            pkg_config_calls(
                "$(shell pkg-config --libs $(DEPS) 2>/dev/null || echo -lz)",
                plain
            ),
            [" --libs $(DEPS) 2"]
        );
        // The definition of the program is no call; a reference to it is.
        let named = |n: &str| n == "PKG_CONFIG";
        assert_eq!(pkg_config_calls("PKG_CONFIG ?= pkg-config", named), [""]);
        assert_eq!(
            pkg_config_calls(
                "CFLAGS += $(shell $(PKG_CONFIG) --cflags \"a >= 1.2\")",
                named
            ),
            [" --cflags \"a >= 1.2\""]
        );
        assert!(pkg_config_calls("CFLAGS += $(shell $(OTHER) --cflags a)", named).is_empty());
        assert!(pkg_config_calls("dist: pkg-config.pc", plain).is_empty());
    }

    #[test]
    fn modules_without_options_or_versions() {
        assert_eq!(
            pkg_config_modules(" --cflags --libs --static gtk+-3.0 libnotify").unwrap(),
            ["gtk+-3.0", "libnotify"]
        );
        assert_eq!(
            pkg_config_modules(" --cflags \"glib-2.0 >= 2.56\" zlib>=1.2 x11 >=1.6").unwrap(),
            ["glib-2.0", "zlib", "x11"]
        );
        assert_eq!(
            pkg_config_modules(" --atleast-version 1.2 foo --variable=prefix bar 2").unwrap(),
            ["foo", "bar"]
        );
        assert_eq!(pkg_config_modules(" not found"), None);
        assert_eq!(pkg_config_modules(""), None);
    }
}
