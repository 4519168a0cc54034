//! What plain `make` builds: a Makefile whose first rule is an object
//! file or a pattern (`*.o: *.h Makefile`) makes no program when run
//! without a target, though its other rules link some. Those programs
//! (a rule whose recipe links with `-o` and does not compile with `-c`)
//! are the targets a recipe names, and where their `-o` writes them
//! (`-o ../$@`) is where its `install()` finds them.

use packsmith_core::{Evidence, Sourced};

/// The programs plain `make` leaves unbuilt, and the directory, relative
/// to the Makefile's, that their link lines write them to (when not the
/// Makefile's own).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct UnbuiltPrograms {
    pub programs: Vec<Sourced<String>>,
    pub written_to: Option<String>,
}

/// A rule line's targets, when the line is a rule (not a recipe line, an
/// indented line, a comment, an assignment such as `x := y` or `url = a:b`,
/// or a conditional).
pub(crate) fn rule_targets(line: &str) -> Option<Vec<&str>> {
    if line.starts_with(['\t', ' ', '#']) || line.trim().is_empty() {
        return None;
    }
    let (targets, rest) = line.split_once(':')?;
    if rest.starts_with('=') || targets.contains('=') || targets.trim().is_empty() {
        return None;
    }
    Some(targets.split_whitespace().collect())
}

/// Whether plain `make` would build `goal` as an object or a pattern: no
/// program comes of it.
fn builds_no_program(goal: &str) -> bool {
    goal.contains(['*', '%']) || goal.ends_with(".o")
}

/// Where a link line writes its output: `Some(dir)` for `-o dir/$@` or
/// `-o dir/<target>`, `Some("")` beside the Makefile, `None` when the
/// line is no link of `target`.
fn link_output(line: &str, target: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.contains(&"-c") {
        return None;
    }
    let out = words.windows(2).find(|w| w[0] == "-o").map(|w| w[1])?;
    let (dir, name) = out.rsplit_once('/').unwrap_or(("", out));
    (name == "$@" || name == target).then(|| dir.to_string())
}

/// A target name a user would build: not internal (`_name`), not a
/// special (`.PHONY`), not a file kind make derives.
fn program_name(target: &str) -> bool {
    !target.starts_with(['_', '.', '$'])
        && !builds_no_program(target)
        && !target.ends_with(".a")
        && !target.contains(".so")
}

/// The programs `text` (the Makefile at `file`) links but plain `make`
/// does not build, in the order the rules come.
pub fn unbuilt_programs(text: &str, file: &str) -> UnbuiltPrograms {
    let lines: Vec<&str> = text.lines().collect();
    let first_goal = lines.iter().find_map(|l| {
        rule_targets(l)?
            .into_iter()
            .find(|t| !t.starts_with('.') || t.contains('/'))
    });
    let mut found = UnbuiltPrograms::default();
    if !first_goal.is_some_and(builds_no_program) {
        return found;
    }
    let vars = plain_assignments(text);
    for (i, line) in lines.iter().enumerate() {
        let Some(targets) = rule_targets(line) else {
            continue;
        };
        let [target] = targets.as_slice() else {
            continue;
        };
        // `stringtie${EXE}` (EXE empty but on Windows) is the goal make
        // builds as `stringtie`: a goal names the file, not the rule text.
        let Some(goal) = expand(target, &vars).filter(|g| !g.is_empty()) else {
            continue;
        };
        let target = goal.as_str();
        if !program_name(target) {
            continue;
        }
        let recipe = lines[i + 1..].iter().take_while(|l| l.starts_with('\t'));
        let Some(dir) = recipe.into_iter().find_map(|l| link_output(l, target)) else {
            continue;
        };
        if !dir.is_empty() {
            found.written_to.get_or_insert(dir);
        }
        found.programs.push(Sourced::new(
            target.to_string(),
            Evidence::new(file, i as u32 + 1),
        ));
    }
    found
}

/// Where the link lines of a Makefile whose plain `make` does build its
/// programs write them, when that is another directory: `-o ${EXE}` with
/// `EXE = ${BIN_DIR}/mini` and `BIN_DIR = ../bin` is `../bin`. Plain
/// assignments are expanded; a directory that still names a variable (an
/// install prefix, a user's setting) is not told.
pub fn programs_written_elsewhere(text: &str) -> Option<String> {
    let vars = plain_assignments(text);
    let lines: Vec<&str> = text.lines().collect();
    lines.iter().enumerate().find_map(|(i, line)| {
        rule_targets(line)?;
        let recipe = lines[i + 1..].iter().take_while(|l| l.starts_with('\t'));
        recipe.into_iter().find_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            if words.contains(&"-c") {
                return None;
            }
            let out = words.windows(2).find(|w| w[0] == "-o").map(|w| w[1])?;
            let out = expand(out, &vars)?;
            let (dir, _) = out.rsplit_once('/')?;
            (!dir.is_empty() && !dir.starts_with('/') && !dir.contains('$') && dir != ".")
                .then(|| dir.to_string())
        })
    })
}

/// `NAME = value` lines outside recipes (`=`, `:=`, `?=`; the last wins,
/// as for make's unconditional assignments).
fn plain_assignments(text: &str) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with(['\t', '#'])) {
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        if name.ends_with('+') || name.contains(':') && !name.ends_with(':') {
            continue;
        }
        let name = name.trim_end_matches([':', '?']).trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            continue;
        }
        vars.retain(|(n, _)| n != name);
        vars.push((name.to_string(), value.trim().to_string()));
    }
    vars
}

/// `word` with `$(NAME)` and `${NAME}` replaced by their plain values, a
/// few levels deep; `None` when it does not settle.
fn expand(word: &str, vars: &[(String, String)]) -> Option<String> {
    let mut out = word.to_string();
    for _ in 0..8 {
        let Some(start) = out.find("$(").or_else(|| out.find("${")) else {
            return Some(out);
        };
        let close = if out[start + 1..].starts_with('(') {
            ')'
        } else {
            '}'
        };
        let end = start + out[start..].find(close)?;
        let name = &out[start + 2..end];
        let value = vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())?;
        out.replace_range(start..=end, value);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAKEFILE: &str = "CC = mpicc\n\
OBJS = main.o util.o\n\
\n\
*.o: *.h Makefile*\n\
\n\
.c.o:\n\
\t$(CC) $(CFLAGS) -c -o $@ $<\n\
\n\
.PHONY: libtool_core\n\
libtool_core: $(OBJS)\n\
\tar rcs libtool_core.a $^\n\
\n\
.PHONY: halo-finder\n\
halo-finder: $(OBJS)\n\
\t$(CXX) $(CXXFLAGS) -o ../$@ $^ -lm\n\
\n\
_halo-finder_hdf5: $(OBJS)\n\
\t$(CXX) -o ../halo-finder_hdf5 $^ -lhdf5\n\
\n\
find_parents: parents.o\n\
\t$(CC) $(CFLAGS) -o ../$@ $^ -lm\n\
\n\
clean:\n\
\trm -f *.o\n";

    #[test]
    fn a_first_rule_of_objects_leaves_the_linked_programs_unbuilt() {
        let found = unbuilt_programs(MAKEFILE, "src/Makefile");
        let names: Vec<&str> = found.programs.iter().map(|p| p.value.as_str()).collect();
        assert_eq!(names, ["halo-finder", "find_parents"]);
        assert_eq!(
            found.programs[0].evidence,
            Evidence::new("src/Makefile", 14)
        );
        assert_eq!(found.written_to.as_deref(), Some(".."));
    }

    #[test]
    fn a_program_linked_into_another_directory_through_variables_is_found_there() {
        let text = "BIN_DIR=../bin\nVARIANT = mini-serial\nEXE = ${BIN_DIR}/${VARIANT}\n\
                    DEFAULT: ${EXE}\n\n%.o: %.c\n\t${CC} -c $< -o $@\n\n\
                    ${EXE}: main.o\n\t${CC} -o ${EXE} main.o -lm\n";
        assert_eq!(programs_written_elsewhere(text).as_deref(), Some("../bin"));
        // Beside the Makefile, or into a prefix the user sets: not told.
        assert_eq!(
            programs_written_elsewhere("all: t\nt: t.o\n\t$(CC) -o t t.o\n"),
            None
        );
        let prefix = "all: t\nt: t.o\n\t$(CC) -o $(PREFIX)/bin/t t.o\n";
        assert_eq!(programs_written_elsewhere(prefix), None);
    }

    #[test]
    fn a_makefile_whose_first_goal_builds_its_programs_needs_no_targets() {
        let text = format!("all: halo-finder find_parents\n\n{MAKEFILE}");
        assert_eq!(
            unbuilt_programs(&text, "Makefile"),
            UnbuiltPrograms::default()
        );
        let beside = "*.o: *.h\n\ntool: tool.o\n\t$(CC) -o tool tool.o\n";
        let found = unbuilt_programs(beside, "Makefile");
        assert_eq!(found.programs.len(), 1);
        assert_eq!(found.written_to, None);
    }

    /// stringtie's shape (corpus-4 dev): the program's rule is written
    /// with a suffix variable, empty but on Windows; `make stringtie${EXE}`
    /// as a recipe's target is no rule make knows.
    #[test]
    fn a_program_target_written_with_variables_is_named_as_make_builds_it() {
        let text = "%.o: %.cpp\n\t$(CXX) -c $< -o $@\n\nifdef WINDOWS\n EXE = .exe\nelse\n EXE =\nendif\n\n\
                    stringtie${EXE}: stringtie.o\n\t${LINKER} -o $@ stringtie.o\n\n\
                    tool$(UNSET): tool.o\n\t$(CC) -o $@ tool.o\n";
        let found = unbuilt_programs(text, "Makefile");
        let names: Vec<&str> = found.programs.iter().map(|p| p.value.as_str()).collect();
        assert_eq!(names, ["stringtie"]);
    }
}
