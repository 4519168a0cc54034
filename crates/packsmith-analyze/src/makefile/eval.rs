//! Reads Makefiles the way make parses them, as far as dependencies need:
//! logical lines (comments and `\` continuations), variables, conditionals
//! decided where the Makefile's own defaults decide them, and `include`.
//! A conditional that depends on the machine (`$(shell uname)`) counts
//! both ways: either branch may be the one a build takes.

use super::scan;
use crate::view::join;
use packsmith_core::{Evidence, Sourced};
use std::collections::HashMap;

/// Deepest nesting of variable references followed.
const MAX_EXPANSION_DEPTH: u8 = 10;

/// The longest value a variable keeps or an expansion makes: far above a
/// real Makefile's, and a bound on a `+=` repeated thousands of times,
/// which would otherwise cost time quadratic in the file's length.
const MAX_VALUE: usize = 64 * 1024;

/// Reads an included file: given its path relative to the repository
/// root, its text, or None when it is absent or not to be read.
pub(super) type Include<'a> = dyn FnMut(&str) -> Option<String> + 'a;

/// What the Makefiles of one make invocation asked for.
#[derive(Debug, Default)]
pub(super) struct Findings {
    pub libraries: Vec<Sourced<String>>,
    pub modules: Vec<Sourced<String>>,
    pub uses_pkg_config: bool,
}

/// One make invocation: the state of its variables and conditionals
/// while its Makefile and the files it includes are read.
#[derive(Debug)]
pub(super) struct Evaluation {
    /// Directory make runs in, relative to the repository root (`""` at
    /// the top): `include` names are relative to it.
    dir: String,
    vars: HashMap<String, Variable>,
    branches: Vec<Branch>,
    /// Whether the last rule line still owns the tab-indented lines.
    in_rule: bool,
    libraries: Vec<Library>,
    /// Rules read outside any branch the defaults leave out, in order.
    rules: Vec<RuleSeen>,
    /// Assignment values and prerequisites of live lines: where a target
    /// is asked for.
    live_mentions: String,
    /// Lines of branches the defaults leave out (`ifdef GRAPHIC_TESTS`).
    dead_text: String,
    /// pkg-config arguments as written; expanded once every variable has
    /// its final value, as make expands a recipe or a recursive variable.
    calls: Vec<Sourced<String>>,
}

/// A library as found, with where: a variable's value, a rule's recipe,
/// or elsewhere (a target-specific variable).
#[derive(Debug)]
struct Library {
    found: Sourced<String>,
    origin: Origin,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Variable(String),
    Recipe(usize),
    Other,
}

/// A rule's targets as written and the variables its recipe references.
#[derive(Debug, Default)]
struct RuleSeen {
    targets: String,
    recipe_refs: Vec<String>,
}

#[derive(Debug, Clone)]
struct Variable {
    /// As written for `=`, expanded already for `:=`.
    text: String,
    /// False when part of the value is only known once make runs
    /// (`$(shell …)`, `!=`).
    known: bool,
}

/// Whether a condition holds, for a build with the Makefile's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Truth {
    Yes,
    No,
    Unknown,
}

impl Truth {
    fn from_bool(b: bool) -> Self {
        if b {
            Self::Yes
        } else {
            Self::No
        }
    }

    fn not(self) -> Self {
        match self {
            Self::Yes => Self::No,
            Self::No => Self::Yes,
            Self::Unknown => Self::Unknown,
        }
    }

    fn and(self, other: Self) -> Self {
        match (self, other) {
            (Self::No, _) | (_, Self::No) => Self::No,
            (Self::Yes, Self::Yes) => Self::Yes,
            _ => Self::Unknown,
        }
    }

    fn or(self, other: Self) -> Self {
        self.not().and(other.not()).not()
    }
}

/// One open `ifeq … [else …] endif`.
#[derive(Debug, Clone, Copy)]
struct Branch {
    /// Whether the branch being read is taken.
    current: Truth,
    /// Whether some earlier branch of the same conditional was taken.
    earlier: Truth,
}

/// A value with the parts only make can compute left out.
struct Expanded {
    text: String,
    known: bool,
}

impl Evaluation {
    pub(super) fn new(dir: &str) -> Self {
        Self {
            dir: dir.to_string(),
            vars: HashMap::new(),
            branches: Vec::new(),
            in_rule: false,
            libraries: Vec::new(),
            rules: Vec::new(),
            live_mentions: String::new(),
            dead_text: String::new(),
            calls: Vec::new(),
        }
    }

    /// Reads `text`, the Makefile at `file`, and what it includes.
    pub(super) fn read(&mut self, file: &str, text: &str, include: &mut Include<'_>) {
        let mut lines = logical_lines(text).into_iter();
        while let Some((line_no, line)) = lines.next() {
            let evidence = Evidence::new(file, line_no);
            if line.starts_with('\t') && self.in_rule {
                if self.live() {
                    self.read_recipe(&line, &evidence);
                }
                continue;
            }
            let line = line.trim();
            if line.is_empty() || self.conditional(line) {
                continue;
            }
            if let Some(name) = line.strip_prefix("define ") {
                // A multi-line value: kept as one line of words.
                let body: Vec<String> = lines
                    .by_ref()
                    .map(|(_, l)| l)
                    .take_while(|l| l.trim() != "endef")
                    .collect();
                if self.live() {
                    let name = name.trim().trim_end_matches(['=', ':', '?', '+', '!']);
                    self.assign(name.trim_end(), "=", &body.join(" "));
                }
                continue;
            }
            if !self.live() {
                if self.dead_text.len() < MAX_VALUE {
                    self.dead_text.push_str(line);
                    self.dead_text.push('\n');
                }
                continue;
            }
            self.read_statement(line, &evidence, include);
        }
    }

    /// Everything found, pkg-config arguments expanded with the final
    /// values of the variables they use.
    pub(super) fn finish(mut self) -> Findings {
        let off = self.rules_of_options_left_off();
        let libraries = std::mem::take(&mut self.libraries)
            .into_iter()
            .filter(|l| match &l.origin {
                Origin::Recipe(i) => !off.contains(i),
                Origin::Variable(name) => !self.only_in_rules(name, &off),
                Origin::Other => true,
            })
            .map(|l| l.found)
            .collect();
        let mut findings = Findings {
            libraries,
            ..Findings::default()
        };
        for call in &self.calls {
            let args = self.expand(&call.value, 0).text;
            if let Some(modules) = scan::pkg_config_modules(&args) {
                findings.uses_pkg_config = true;
                findings.modules.extend(
                    modules
                        .into_iter()
                        .map(|m| Sourced::new(m, call.evidence.clone())),
                );
            }
        }
        findings
    }

    /// The rules only an option the defaults leave off asks for: each of
    /// their targets is named in a branch left out (`GRAPHIC_BINS =
    /// $(PROGDIR)/ubgears` under `ifdef GRAPHIC_TESTS`) and nowhere live;
    /// the default goal never is one.
    fn rules_of_options_left_off(&self) -> Vec<usize> {
        let default_goal = self
            .rules
            .iter()
            .position(|r| !r.targets.starts_with('.') && !r.targets.contains('%'));
        self.rules
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                Some(*i) != default_goal
                    && !r.targets.is_empty()
                    && r.targets.split_whitespace().all(|t| {
                        names_word(&self.dead_text, t) && !names_word(&self.live_mentions, t)
                    })
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Whether the variable `name` is used only by recipes of the rules
    /// `off`: referenced by some recipe, all of them off, and by no live
    /// value or prerequisite.
    fn only_in_rules(&self, name: &str, off: &[usize]) -> bool {
        let named = |text: &str| {
            text.contains(&format!("$({name})")) || text.contains(&format!("${{{name}}}"))
        };
        let mut users = self
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.recipe_refs.iter().any(|v| v == name))
            .map(|(i, _)| i)
            .peekable();
        users.peek().is_some() && users.all(|i| off.contains(&i)) && !named(&self.live_mentions)
    }

    fn read_recipe(&mut self, line: &str, evidence: &Evidence) {
        let rule = self.rules.len().checked_sub(1);
        if let Some(r) = rule.and_then(|i| self.rules.get_mut(i)) {
            r.recipe_refs.extend(referenced_names(line));
        }
        if scan::is_link_command(line) {
            let origin = rule.map_or(Origin::Other, Origin::Recipe);
            self.note_libraries(line, evidence, origin);
        }
        self.note_pkg_config(line, evidence);
    }

    /// An assignment, an `include`, or a rule line.
    fn read_statement(&mut self, line: &str, evidence: &Evidence, include: &mut Include<'_>) {
        if let Some(names) = include_names(line) {
            self.in_rule = false;
            self.include(names, include);
            return;
        }
        if let Some((name, op, value)) = assignment(line) {
            self.in_rule = false;
            self.mention(value);
            self.note_libraries(value, evidence, Origin::Variable(name.to_string()));
            self.note_pkg_config(value, evidence);
            self.assign(name, op, value);
            return;
        }
        if let Some((targets, after)) = line.split_once(':') {
            self.in_rule = true;
            self.mention(after);
            // `prog: LDLIBS += -lz`: a variable for one target's recipe.
            if let Some((_, _, value)) = assignment(after.trim()) {
                self.note_libraries(value, evidence, Origin::Other);
            }
            self.rules.push(RuleSeen {
                targets: targets.trim().to_string(),
                recipe_refs: Vec::new(),
            });
            self.note_pkg_config(line, evidence);
        }
    }

    /// Records live text that may ask for a target.
    fn mention(&mut self, text: &str) {
        if self.live_mentions.len() < MAX_VALUE {
            self.live_mentions.push_str(text);
            self.live_mentions.push('\n');
        }
    }

    fn note_libraries(&mut self, text: &str, evidence: &Evidence, origin: Origin) {
        for name in scan::linked_libraries(text) {
            self.libraries.push(Library {
                found: Sourced::new(name, evidence.clone()),
                origin: origin.clone(),
            });
        }
    }

    fn note_pkg_config(&mut self, text: &str, evidence: &Evidence) {
        let vars = &self.vars;
        // A variable that names the program holds a short value; a long
        // one (a flag list) is not searched at every reference to it.
        let names_pkg_config = |name: &str| {
            let squashed = name.replace('_', "").to_ascii_uppercase();
            squashed.ends_with("PKGCONFIG")
                || vars.get(name).is_some_and(|v| {
                    v.text.len() < 256
                        && v.text.split_whitespace().any(|w| w.ends_with("pkg-config"))
                })
        };
        for args in scan::pkg_config_calls(text, names_pkg_config) {
            // The same call again adds nothing (and would be expanded again).
            if !self.calls.iter().any(|c| c.value == args) {
                self.calls
                    .push(Sourced::new(args.to_string(), evidence.clone()));
            }
        }
    }

    fn include(&mut self, names: &str, include: &mut Include<'_>) {
        let names = self.expand(names, 0);
        if !names.known {
            return; // `-include $(OBJS:.o=.d)`: generated dependency files
        }
        for name in names.text.split_whitespace() {
            let path = join(&self.dir, name);
            if let Some(text) = include(&path) {
                let saved_rule = std::mem::replace(&mut self.in_rule, false);
                self.read(&path, &text, include);
                self.in_rule = saved_rule;
            }
        }
    }

    /// `NAME op value`. Under a conditional that may go either way, a
    /// value adds to the variable instead of replacing it: both are
    /// possible afterwards.
    fn assign(&mut self, name: &str, op: &str, value: &str) {
        let new = match op {
            ":=" | "::=" | ":::=" => {
                let e = self.expand(value, 0);
                Variable {
                    text: e.text,
                    known: e.known,
                }
            }
            "!=" => Variable {
                text: String::new(),
                known: false,
            },
            _ => Variable {
                text: value.to_string(),
                known: true,
            },
        };
        let uncertain = self.branches.iter().any(|b| b.current == Truth::Unknown);
        match (self.vars.get_mut(name), op) {
            (Some(_), "?=") => {}
            (Some(old), _) if op == "+=" || uncertain => {
                if old.text.len() + new.text.len() < MAX_VALUE {
                    old.text.push(' ');
                    old.text.push_str(&new.text);
                    old.known &= new.known;
                } else {
                    old.known = false;
                }
            }
            _ => {
                self.vars.insert(name.to_string(), new);
            }
        }
    }

    /// Handles a conditional directive; says whether `line` was one.
    fn conditional(&mut self, line: &str) -> bool {
        let (word, rest) = split_word(line);
        match word {
            "ifeq" | "ifneq" | "ifdef" | "ifndef" => {
                let truth = self.condition(word, rest);
                self.branches.push(Branch {
                    current: truth,
                    earlier: truth,
                });
            }
            "else" => {
                let (word, rest) = split_word(rest);
                let truth = if word.is_empty() {
                    Truth::Yes
                } else {
                    self.condition(word, rest)
                };
                if let Some(b) = self.branches.last_mut() {
                    b.current = b.earlier.not().and(truth);
                    b.earlier = b.earlier.or(truth);
                }
            }
            "endif" => {
                self.branches.pop();
            }
            _ => return false,
        }
        true
    }

    fn condition(&self, directive: &str, rest: &str) -> Truth {
        match directive {
            "ifeq" => self.equal(rest),
            "ifneq" => self.equal(rest).not(),
            "ifdef" => self.defined(rest),
            "ifndef" => self.defined(rest).not(),
            _ => Truth::Unknown,
        }
    }

    /// `(a,b)`, `"a" "b"` or `'a' 'b'`, compared after expansion.
    fn equal(&self, args: &str) -> Truth {
        let Some((a, b)) = comparison_operands(args) else {
            return Truth::Unknown;
        };
        let (a, b) = (self.expand(a, 0), self.expand(b, 0));
        if !(a.known && b.known) {
            return Truth::Unknown;
        }
        Truth::from_bool(a.text.trim() == b.text.trim())
    }

    /// make's `ifdef`: the variable has a non-empty value.
    fn defined(&self, name: &str) -> Truth {
        match self.vars.get(name.trim()) {
            None => Truth::No,
            Some(v) if !v.text.trim().is_empty() => Truth::Yes,
            Some(v) if v.known => Truth::No,
            Some(_) => Truth::Unknown,
        }
    }

    fn live(&self) -> bool {
        self.branches.iter().all(|b| b.current != Truth::No)
    }

    /// Replaces variable references by their values. A variable the
    /// Makefile never sets is empty, as in make; functions, substitution
    /// references and automatic variables are left out as unknown.
    fn expand(&self, text: &str, depth: u8) -> Expanded {
        let mut out = Expanded {
            text: String::new(),
            known: true,
        };
        if depth > MAX_EXPANSION_DEPTH {
            out.known = false;
            return out;
        }
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.text.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let Some(open) = after.chars().next() else {
                rest = after;
                break;
            };
            if open == '$' {
                out.text.push('$');
                rest = &after[1..];
                continue;
            }
            let close = match open {
                '(' => ')',
                '{' => '}',
                _ => {
                    out.known = false; // `$@`, `$<`: automatic variables
                    rest = &after[open.len_utf8()..];
                    continue;
                }
            };
            let Some(len) = matching_close(&after[1..], open, close) else {
                out.known = false;
                rest = "";
                break;
            };
            let inner = &after[1..1 + len];
            rest = &after[len + 2..];
            match self.vars.get(inner) {
                Some(var) if is_variable_name(inner) => {
                    let value = self.expand(&var.text, depth + 1);
                    if out.text.len() + value.text.len() > MAX_VALUE {
                        out.known = false;
                        break;
                    }
                    out.text.push_str(&value.text);
                    out.known &= var.known && value.known;
                }
                None if is_variable_name(inner) => {}
                _ => out.known = false,
            }
        }
        out.text.push_str(rest);
        out
    }
}

/// Whether `text` holds `word` as a whole word (between blanks, `=`,
/// `:` or `,`).
fn names_word(text: &str, word: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || matches!(c, '=' | ':' | ','))
        .any(|w| w == word)
}

/// Variable names referenced as `$(NAME)` or `${NAME}` in `text`.
pub(super) fn referenced_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        let after = &rest[at + 1..];
        let close = match after.chars().next() {
            Some('(') => ')',
            Some('{') => '}',
            _ => {
                rest = after;
                continue;
            }
        };
        let Some(end) = after.find(close) else { break };
        let name = &after[1..end];
        if is_variable_name(name) {
            out.push(name.to_string());
        }
        rest = &after[end..];
    }
    out
}

/// Lines as make reads them, with their first physical line number:
/// `\`-newline joins lines, `#` starts a comment (not `\#`).
pub(crate) fn logical_lines(text: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(u32, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let (start, mut joined) = pending.take().unwrap_or((line_no, String::new()));
        match raw.strip_suffix('\\') {
            Some(head) => {
                joined.push_str(head);
                joined.push(' ');
                pending = Some((start, joined));
            }
            None => {
                joined.push_str(raw);
                out.push((start, strip_comment(&joined)));
            }
        }
    }
    out.extend(pending.map(|(n, l)| (n, strip_comment(&l))));
    out
}

fn strip_comment(line: &str) -> String {
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        if c == '#' && prev != '\\' {
            return line[..i].to_string();
        }
        prev = c;
    }
    line.to_string()
}

/// The first word and the rest, trimmed.
fn split_word(line: &str) -> (&str, &str) {
    let line = line.trim();
    let end = line
        .find(|c: char| c.is_whitespace() || c == '(')
        .unwrap_or(line.len());
    (&line[..end], line[end..].trim())
}

/// The file names of `include`, `-include` or `sinclude`.
fn include_names(line: &str) -> Option<&str> {
    let (word, rest) = split_word(line);
    matches!(word, "include" | "-include" | "sinclude").then_some(rest)
}

/// `[override|export|private] NAME op value`, op one of `=`, `:=`, `::=`,
/// `:::=`, `?=`, `+=`, `!=`. A target-specific assignment
/// (`prog: LIBS += -lz`) is no plain assignment: its name holds a colon.
fn assignment(line: &str) -> Option<(&str, &str, &str)> {
    let eq = line.find('=')?;
    let head = &line[..eq];
    let name_end = head.trim_end_matches([':', '?', '+', '!']).len();
    let op = &line[name_end..=eq];
    let mut name = head[..name_end].trim();
    while let Some(rest) = ["override ", "export ", "private "]
        .iter()
        .find_map(|p| name.strip_prefix(p))
    {
        name = rest.trim_start();
    }
    let valid =
        is_variable_name(name) || (name.contains('$') && !name.contains(char::is_whitespace));
    (valid && !name.contains(':')).then(|| (name, op, line[eq + 1..].trim()))
}

fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// The two operands of `ifeq`/`ifneq`.
fn comparison_operands(args: &str) -> Option<(&str, &str)> {
    if let Some(inner) = args.strip_prefix('(') {
        let len = matching_close(inner, '(', ')')?;
        let inner = &inner[..len];
        let comma = top_level_comma(inner)?;
        return Some((&inner[..comma], &inner[comma + 1..]));
    }
    let quoted = |s: &str| -> Option<(usize, usize)> {
        let q = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let end = s[1..].find(q)? + 1;
        Some((1, end))
    };
    let (s, e) = quoted(args)?;
    let a = &args[s..e];
    let tail = args[e + 1..].trim_start();
    let (s2, e2) = quoted(tail)?;
    Some((a, &tail[s2..e2]))
}

/// Byte length of `text` up to the `close` that ends an already opened
/// `open`, nested pairs skipped.
fn matching_close(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
    }
    None
}

fn top_level_comma(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '{' => depth += 1,
            ')' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `files[0]` with the others includable.
    fn evaluate(files: &[(&str, &str)]) -> Findings {
        let mut eval = Evaluation::new("");
        let mut include = |path: &str| {
            files
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| t.to_string())
        };
        eval.read(files[0].0, files[0].1, &mut include);
        eval.finish()
    }

    fn values(items: &[Sourced<String>]) -> Vec<&str> {
        items.iter().map(|s| s.value.as_str()).collect()
    }

    /// A `+=` repeated thousands of times stops growing its variable at
    /// the bound, and what it then holds is marked unknown.
    #[test]
    fn a_variable_stops_growing_at_the_bound() {
        let text = "LIBS += -lsomething-long\n".repeat(8000);
        let mut eval = Evaluation::new("");
        eval.read("Makefile", &text, &mut |_: &str| None);
        let libs = &eval.vars["LIBS"];
        assert!(libs.text.len() < MAX_VALUE, "{}", libs.text.len());
        assert!(!libs.known);
    }

    #[test]
    fn continued_lines_and_comments() {
        let lines = logical_lines("A = 1 \\\n\t-lfoo # note\n# B = -lbar\nC = \\# x\n");
        assert_eq!(
            lines,
            [
                (1, "A = 1  \t-lfoo ".to_string()),
                (3, String::new()),
                (4, "C = \\# x".to_string())
            ]
        );
    }

    #[test]
    fn assignments_in_their_forms() {
        assert_eq!(assignment("LIBS = -lz"), Some(("LIBS", "=", "-lz")));
        assert_eq!(
            assignment("override LDFLAGS+=-lmnl"),
            Some(("LDFLAGS", "+=", "-lmnl"))
        );
        assert_eq!(assignment("CC ?= gcc"), Some(("CC", "?=", "gcc")));
        assert_eq!(assignment("X ::= y"), Some(("X", "::=", "y")));
        assert_eq!(assignment("prog: LIBS += -lz"), None);
        assert_eq!(assignment("all: demo"), None);
    }

    #[test]
    fn libraries_from_assignments_and_link_lines() {
        let f = evaluate(&[(
            "Makefile",
            "override LDFLAGS+=-lnetfilter_queue -lnfnetlink \\\n\t-lmnl\n\
             LIBS = -L/opt/x/lib -l$(EXTRA) -lm\n\
             app: app.o\n\t$(CC) -o $@ $^ -lasound\n\tls -l | wc -l\n",
        )]);
        assert_eq!(
            values(&f.libraries),
            ["netfilter_queue", "nfnetlink", "mnl", "m", "asound"]
        );
        assert_eq!(f.libraries[2].evidence, Evidence::new("Makefile", 1));
        assert_eq!(f.libraries[4].evidence, Evidence::new("Makefile", 5));
        assert!(!f.uses_pkg_config);
    }

    #[test]
    fn libraries_only_an_option_left_off_links_are_not_the_builds() {
        // byte-unixbench: ubgears is built only with GRAPHIC_TESTS defined.
        let makefile = "GL_LIBS = -lGL -lXext -lX11\nPROGDIR = ./pgms\n\
             ifdef GRAPHIC_TESTS\nGRAPHIC_BINS = $(PROGDIR)/ubgears\nelse\nGRAPHIC_BINS =\nendif\n\
             BINS = $(PROGDIR)/dhry $(GRAPHIC_BINS)\nLIBS = -lm\n\
             all: $(BINS)\n\
             $(PROGDIR)/dhry: dhry.c\n\t$(CC) -o $@ dhry.c $(LIBS)\n\
             $(PROGDIR)/ubgears: ubgears.c\n\t$(CC) -o $(PROGDIR)/ubgears ubgears.c $(GL_LIBS) -lXi\n";
        let f = evaluate(&[("Makefile", makefile)]);
        assert_eq!(values(&f.libraries), ["m"]);
        // With the option on, the libraries are the build's.
        let on = format!("GRAPHIC_TESTS = defined\n{makefile}");
        let f = evaluate(&[("Makefile", &on)]);
        assert_eq!(values(&f.libraries), ["GL", "Xext", "X11", "m", "Xi"]);
        // A variable another live value uses stays, wherever its recipes are.
        let chained = makefile.replace("LIBS = -lm", "LIBS = -lm $(GL_LIBS)");
        let f = evaluate(&[("Makefile", &chained)]);
        assert_eq!(values(&f.libraries), ["GL", "Xext", "X11", "m"]);
    }

    #[test]
    fn pkg_config_modules_in_every_spelling() {
        let f = evaluate(&[(
            "Makefile",
            "PKG_CONFIG ?= pkg-config\n\
             A = $(shell pkg-config --cflags --libs gtk+-3.0 libnotify)\n\
             B = `pkg-config --libs glib-2.0`\n\
             C += $(shell $(PKG_CONFIG) --cflags \"x11 >= 1.6\" xext)\n\
             all:\n\tcc -o all all.c $$(pkg-config --libs --static zlib)\n",
        )]);
        assert!(f.uses_pkg_config);
        assert_eq!(
            values(&f.modules),
            ["gtk+-3.0", "libnotify", "glib-2.0", "x11", "xext", "zlib"]
        );
        assert_eq!(f.modules[4].evidence, Evidence::new("Makefile", 4));
    }

    /// batticonplus' shape: the modules sit in a variable that conditionals
    /// on the Makefile's own switches fill after the call is written.
    #[test]
    fn modules_from_a_variable_filled_by_decided_conditionals() {
        let f = evaluate(&[(
            "Makefile",
            "WITH_GTK3 = 1\nWITH_NOTIFY = 1\nWITH_APPINDICATOR = 0\nPKG_CONFIG ?= pkg-config\n\
             CFLAGS += $(shell $(PKG_CONFIG) --cflags $(PKG_DEPS))\n\
             ifeq ($(WITH_GTK3), 0)\nPKG_DEPS = gtk+-2.0\nelse\nPKG_DEPS = gtk+-3.0\nendif\n\
             ifeq ($(WITH_NOTIFY),1)\nPKG_DEPS += libnotify\nendif\n\
             ifeq ($(WITH_APPINDICATOR),1)\nPKG_DEPS += ayatana-appindicator3-0.1\nendif\n\
             LIBS += $(shell $(PKG_CONFIG) --libs $(PKG_DEPS)) -lm\n",
        )]);
        assert_eq!(
            values(&f.modules),
            ["gtk+-3.0", "libnotify", "gtk+-3.0", "libnotify"]
        );
        assert_eq!(f.modules[0].evidence, Evidence::new("Makefile", 5));
    }

    #[test]
    fn conditionals_the_defaults_decide_and_those_they_do_not() {
        let f = evaluate(&[(
            "Makefile",
            "ifeq ($(OS),Windows_NT)\nLIBS += -lws2_32\nelse ifeq ($(UNAME),Darwin)\nLIBS += -lobjc\nelse\nLIBS += -lrt2\nendif\n\
             ifdef USE_SSL\nLIBS += -lssl\nendif\n\
             ifndef NO_Z\nLIBS += -lz\nendif\n\
             UNAME_S := $(shell uname -s)\n\
             ifeq ($(UNAME_S),Linux)\nLIBS += -lasound\nelse\nLIBS += -lportaudio\nendif\n\
             ifneq ($(MAKECMDGOALS),clean)\nLIBS += -lx\nendif\n",
        )]);
        assert_eq!(
            values(&f.libraries),
            ["rt2", "z", "asound", "portaudio", "x"]
        );
    }

    #[test]
    fn included_files_are_read_in_place() {
        let f = evaluate(&[
            ("Makefile", "include config.mk\n-include $(OBJS:.o=.d)\n-include missing.mk\nall:\n\t$(CC) -o x x.c $(LIBS)\n"),
            ("config.mk", "X11LIBS = -lX11\nLIBS = ${X11LIBS} -lfontconfig -lXft\n"),
        ]);
        assert_eq!(values(&f.libraries), ["X11", "fontconfig", "Xft"]);
        assert_eq!(f.libraries[2].evidence, Evidence::new("config.mk", 2));
    }

    #[test]
    fn target_specific_libraries_count() {
        let f = evaluate(&[(
            "Makefile",
            "prog: LDLIBS += -lz
prog: prog.o
",
        )]);
        assert_eq!(values(&f.libraries), ["z"]);
    }

    #[test]
    fn include_paths_resolve_against_the_make_directory() {
        assert_eq!(join("", "./config.mk"), "config.mk");
        assert_eq!(join("src", "../common.mk"), "common.mk");
        assert_eq!(join("src", "mk/rules.mk"), "src/mk/rules.mk");
    }

    #[test]
    fn tab_lines_outside_a_rule_are_statements() {
        let f = evaluate(&[(
            "Makefile",
            "ifeq ($(STATIC), 1)\n\toverride LDFLAGS += -lstatic_only\nendif\n\
             ifeq ($(X),)\n\toverride LDFLAGS += -lmnl\nendif\n",
        )]);
        assert_eq!(values(&f.libraries), ["mnl"]);
    }

    #[test]
    fn a_mention_of_pkg_config_is_no_query() {
        let f = evaluate(&[(
            "Makefile",
            "check:\n\t@which pkg-config || echo \"pkg-config not found\"\n",
        )]);
        assert!(!f.uses_pkg_config);
        assert!(f.modules.is_empty());
    }
}
