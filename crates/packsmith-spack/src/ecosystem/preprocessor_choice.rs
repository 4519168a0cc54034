//! A name the compiler cannot find that the source defines only under
//! preprocessor conditions the build leaves unset: HYCOM defines its
//! equation of state `sig` once under each of `EOS_7T`, `EOS_9T`,
//! `EOS_12T` and `EOS_17T`, and its build script passes one with `-D`.
//! Which one is the project's user's choice, not a rule's: the macros that
//! select a definition are listed for the model to pick one, each with the
//! line it selects.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::diagnose::{SourceLanguage, UndefinedName};

use super::source_walk::walk_files;

/// Most entries read looking for a definition.
const MAX_ENTRIES: usize = 20_000;

/// Files larger than this are not read (generated tables, data).
const MAX_FILE_BYTES: u64 = 2 << 20;

/// Most macros offered.
const MAX_CHOICES: usize = 12;

/// One macro that selects a definition of the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub macro_name: String,
    /// Every macro its `#if`/`#elif` chain tests: one of them passed
    /// already made that chain's choice.
    pub alternatives: Vec<String>,
    /// The definition it selects, relative to the source root, and its line.
    pub file: String,
    pub line: usize,
}

impl Choice {
    /// The compiler flag that sets it.
    pub fn flag(&self) -> String {
        format!("-D{}", self.macro_name)
    }
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (selects the definition at {}:{})",
            self.flag(),
            self.file,
            self.line
        )
    }
}

/// The name the compiler could not find, the flag kind its language
/// takes, and the macros, one of which defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choices {
    pub name: String,
    pub flags: &'static str,
    pub choices: Vec<Choice>,
}

/// The files of a language that may define a name, how a line defines one, and what a comment is.
trait Definitions {
    fn may_define(self, ext: &str) -> bool;
    fn definition_patterns(self, name: &str) -> Vec<Regex>;
    fn continuation_pattern(self, name: &str) -> Option<Regex>;
    fn continues(self, line: &str) -> bool;
    fn comment(self, line: &str) -> bool;
}

impl Definitions for SourceLanguage {
    /// A file the compiler compiles, or one it includes.
    fn may_define(self, ext: &str) -> bool {
        let included: &[&str] = match self {
            Self::Fortran => &["h", "inc", "fi", "fh"],
            Self::C => &["h"],
            Self::Cxx => &["h", "hh", "hpp", "hxx"],
        };
        self.compiled_extensions().contains(&ext) || included.contains(&ext)
    }

    /// A Fortran statement function, procedure or initialized entity; a C
    /// or C++ macro or function body.
    fn definition_patterns(self, name: &str) -> Vec<Regex> {
        let n = regex::escape(name);
        let patterns = match self {
            Self::Fortran => vec![
                format!(r"(?i)^\s*{n}\s*\([^)]*\)\s*="),
                format!(r"(?i)\b(function|subroutine)\s+{n}\b"),
                format!(r"(?i)::(.*,)?\s*{n}\s*="),
            ],
            Self::C | Self::Cxx => vec![
                format!(r"^\s*#\s*define\s+{n}\b"),
                format!(r"^[A-Za-z_][\w\s\*&:<>,]*\b{n}\s*\([^;]*$"),
            ],
        };
        patterns.iter().filter_map(|p| Regex::new(p).ok()).collect()
    }

    /// An entity a continued Fortran declaration initializes on a line of
    /// its own (`real, parameter :: &` then `c1=-1.36E-01, &`).
    fn continuation_pattern(self, name: &str) -> Option<Regex> {
        match self {
            Self::Fortran => {
                Regex::new(&format!(r"(?i)^\s*&?\s*{}\s*=[^=]", regex::escape(name))).ok()
            }
            Self::C | Self::Cxx => None,
        }
    }

    /// Whether the statement on `line` goes on on the next one: a Fortran
    /// line whose code (before any `!` comment) ends with `&`.
    fn continues(self, line: &str) -> bool {
        match self {
            Self::Fortran => line
                .split('!')
                .next()
                .is_some_and(|code| code.trim_end().ends_with('&')),
            Self::C | Self::Cxx => false,
        }
    }

    fn comment(self, line: &str) -> bool {
        let t = line.trim_start();
        match self {
            Self::Fortran => t.starts_with('!'),
            Self::C | Self::Cxx => t.starts_with("//") || t.starts_with("/*") || t.starts_with('*'),
        }
    }
}

/// The choices for the first of `undefined` (a failure's names, in the
/// order the compiler reported them) that the source defines only under
/// macros the build did not set; `passed` tells a flag the recipe already
/// passes, which did not help and is not offered again.
pub fn find(
    undefined: &[UndefinedName],
    root: &Path,
    passed: impl Fn(&str) -> bool,
) -> Option<Choices> {
    undefined.iter().find_map(|u| {
        let mut choices = choices_for(root, &u.name, u.language)?;
        choices.retain(|c| !c.alternatives.iter().any(|m| passed(&format!("-D{m}"))));
        (!choices.is_empty()).then(|| Choices {
            name: u.name.clone(),
            flags: u.language.flags(),
            choices,
        })
    })
}

/// Where a line stands among the conditions around it.
enum Guard {
    /// Outside every condition, or under one that sets no macro (an
    /// `#else`, an `#ifndef`): the name is defined whatever is set.
    Open,
    /// Under the macros the innermost condition's branch tests, and every
    /// macro its chain tests.
    Macros(Vec<String>, Vec<String>),
}

/// The macros selecting `name`'s definitions in `root`; `None` when the
/// source defines it nowhere, or somewhere no macro selects.
fn choices_for(root: &Path, name: &str, language: SourceLanguage) -> Option<Vec<Choice>> {
    let patterns = language.definition_patterns(name);
    let mut choices: Vec<Choice> = Vec::new();
    let mut open = false;
    walk_files(root, MAX_ENTRIES, |path| {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_FILE_BYTES);
        if !language.may_define(ext) || !small {
            return false;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            return false;
        };
        let relative = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        for (line, guard) in definitions(&text, name, language, &patterns) {
            match guard {
                Guard::Open => open = true,
                Guard::Macros(macros, alternatives) => {
                    for macro_name in macros {
                        if !choices.iter().any(|c| c.macro_name == macro_name) {
                            choices.push(Choice {
                                macro_name,
                                alternatives: alternatives.clone(),
                                file: relative.clone(),
                                line,
                            });
                        }
                    }
                }
            }
        }
        open
    });
    choices.truncate(MAX_CHOICES);
    (!open && !choices.is_empty()).then_some(choices)
}

/// A branch's macros and its chain's index.
type Branch = (Vec<String>, usize);

/// The lines of `text` defining `name` (1-based), each with its guard.
fn definitions(
    text: &str,
    name: &str,
    language: SourceLanguage,
    patterns: &[Regex],
) -> Vec<(usize, Guard)> {
    // Each open condition: its branch's macros (`None` for a branch that
    // sets none) and its chain's index in `chains`, every macro it tests.
    let mut stack: Vec<(Option<Vec<String>>, usize)> = Vec::new();
    let mut chains: Vec<Vec<String>> = Vec::new();
    let mut found: Vec<(usize, Option<Branch>)> = Vec::new();
    let continuation = language.continuation_pattern(name);
    // The code line before goes on on this one (comments and directives
    // between them do not break a continued statement).
    let mut continued = false;
    for (i, line) in text.lines().enumerate() {
        if let Some((directive, condition)) = directive(line) {
            match directive {
                "if" | "ifdef" | "ifndef" => {
                    let macros = if directive == "ifndef" {
                        None
                    } else {
                        tested(condition)
                    };
                    chains.push(macros.clone().unwrap_or_default());
                    stack.push((macros, chains.len() - 1));
                }
                "elif" => {
                    if let Some((top, chain)) = stack.last_mut() {
                        *top = tested(condition);
                        chains[*chain].extend(top.clone().unwrap_or_default());
                    }
                }
                "else" => {
                    if let Some((top, _)) = stack.last_mut() {
                        *top = None;
                    }
                }
                "endif" => {
                    stack.pop();
                }
                _ => {}
            }
            // A `#define` is a definition; the other directives are not.
            if directive != "define" {
                continue;
            }
        }
        let comment = language.comment(line) || line.trim().is_empty();
        let defines = line.contains(name)
            && !comment
            && (patterns.iter().any(|p| p.is_match(line))
                || (continued && continuation.as_ref().is_some_and(|c| c.is_match(line))));
        if !comment {
            continued = language.continues(line);
        }
        if defines {
            let guard = match stack.last() {
                Some((Some(macros), chain)) => Some((macros.clone(), *chain)),
                _ => None,
            };
            found.push((i + 1, guard));
        }
    }
    // A chain's macros are known once the file is read: its later
    // branches count too.
    found
        .into_iter()
        .map(|(line, guard)| {
            let guard = match guard {
                Some((macros, chain)) => Guard::Macros(macros, chains[chain].clone()),
                None => Guard::Open,
            };
            (line, guard)
        })
        .collect()
}

/// A preprocessor line's directive and the rest.
fn directive(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    Some((&rest[..end], rest[end..].trim()))
}

/// The macros a condition tests set: `defined (A)`, `defined B`, `(C)`;
/// `None` when it negates or compares (`!defined A`, `X > 2`), as no
/// single `-D` selects such a branch.
fn tested(condition: &str) -> Option<Vec<String>> {
    static IDENT: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"[A-Za-z_]\w*").ok());
    let condition = condition.split("//").next().unwrap_or(condition);
    let condition = condition.split("/*").next().unwrap_or(condition);
    if condition.contains(['!', '<', '>', '=']) {
        return None;
    }
    let macros: Vec<String> = IDENT
        .as_ref()?
        .find_iter(condition)
        .map(|m| m.as_str().to_string())
        .filter(|m| m != "defined")
        .collect();
    (!macros.is_empty()).then_some(macros)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::undefined_names;

    /// HYCOM's shape: `sig` defined once per equation of state, each under
    /// its own macro of one `#if`/`#elif` chain.
    const STMT_FNS: &str = "      integer, parameter :: &
#if defined (EOS_SIG0)
        sigver=1
#elif defined (EOS_SIG2)
        sigver=2
#endif
      real    sig,tofsig
#if defined (EOS_12T)
! --- coefficients for 12-term rational function sig() at rpdb.
#elif defined (EOS_7T)
      sig(t,s)=(c1+c3*s)
#elif defined (EOS_9T)
      sig(t,s)=(c1+s*c8)
#elif (EOS_17T)
      sig(  t,s) = sig_n(t,s)*sig_q(t,s) - 1000.0
#endif
# if defined (EOS_SIG0)
      real, parameter :: pref=   0.d0
# elif defined (EOS_SIG2)
      real, parameter :: pref=2000.d4
# endif
# if defined (EOS_SIG0)
      real, parameter :: &
         c1=-1.36471E-01,   & !const. coefficent
         c2= 4.68181E-02
# elif defined (EOS_SIG2)
! --- coefficients for sigma-2
      real, parameter :: &
         c1= 9.77093E+00,   & !const. coefficent
         c2= 4.68181E-02
# endif
      if (c2 == 0.0) c2x=1.0
";

    const ERROR: &str =
        "  265 |                 th3d(i,j,k,n) = sig(temp(i,j,k,n),saln(i,j,k,n))-thbase
      |                                1
Error: Function 'sig' at (1) has no IMPLICIT type
make: *** [config/_:45: mod_incupd.o] Error 1";

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn macros(found: &Choices) -> Vec<&str> {
        found
            .choices
            .iter()
            .map(|c| c.macro_name.as_str())
            .collect()
    }

    #[test]
    fn a_fortran_function_defined_per_macro_offers_those_macros() {
        let dir = tree(&[("stmt_fns.h", STMT_FNS), ("mod_incupd.F90", "")]);
        let found = find(&undefined_names(ERROR), dir.path(), |_| false).expect("choices");
        assert_eq!(found.name, "sig");
        assert_eq!(found.flags, "fflags");
        assert_eq!(macros(&found), ["EOS_7T", "EOS_9T", "EOS_17T"]);
        assert_eq!(
            found.choices[0].to_string(),
            "-DEOS_7T (selects the definition at stmt_fns.h:11)"
        );
    }

    #[test]
    fn a_parameter_defined_per_macro_is_found_too() {
        let dir = tree(&[("stmt_fns.h", STMT_FNS)]);
        let error = "Error: Symbol 'pref' at (1) has no IMPLICIT type";
        let found = find(&undefined_names(error), dir.path(), |_| false).expect("choices");
        assert_eq!(macros(&found), ["EOS_SIG0", "EOS_SIG2"]);
    }

    #[test]
    fn an_entity_a_continued_declaration_initializes_is_found() {
        let dir = tree(&[("stmt_fns.h", STMT_FNS)]);
        let error = "Error: Symbol 'c1' at (1) has no IMPLICIT type; did you mean 'a1'?";
        let found = find(&undefined_names(error), dir.path(), |_| false).expect("choices");
        assert_eq!(macros(&found), ["EOS_SIG0", "EOS_SIG2"]);
        // An assignment outside a declaration is no definition.
        let text = "#ifdef A\n      x = 1\n      c3 = 2.0\n#endif\n";
        let dir = tree(&[("calc.F90", text)]);
        let error = "Error: Symbol 'c3' at (1) has no IMPLICIT type";
        assert_eq!(find(&undefined_names(error), dir.path(), |_| false), None);
    }

    #[test]
    fn a_macro_whose_chain_already_has_its_choice_is_not_offered() {
        // c1 is also defined straight under EOS_12T, an alternative of the
        // EOS_7T the recipe passes: only the inner sigma choice is left.
        let text = format!("{STMT_FNS}#if defined (EOS_7T)\n#elif (EOS_12T)\n      real, parameter :: c1=1.0\n#endif\n");
        let dir = tree(&[("stmt_fns.h", &text)]);
        let error = "Error: Symbol 'c1' at (1) has no IMPLICIT type";
        let found = find(&undefined_names(error), dir.path(), |_| false).unwrap();
        assert_eq!(macros(&found), ["EOS_SIG0", "EOS_SIG2", "EOS_12T"]);
        let found = find(&undefined_names(error), dir.path(), |f| f == "-DEOS_7T").unwrap();
        assert_eq!(macros(&found), ["EOS_SIG0", "EOS_SIG2"]);
    }

    #[test]
    fn a_name_whose_macros_are_all_passed_gives_way_to_the_next() {
        let dir = tree(&[("stmt_fns.h", STMT_FNS)]);
        let log = "Error: Function 'sig' at (1) has no IMPLICIT type\n\
                   Error: Symbol 'pref' at (1) has no IMPLICIT type";
        let passed = ["-DEOS_7T", "-DEOS_9T", "-DEOS_17T"];
        let found = find(&undefined_names(log), dir.path(), |f| passed.contains(&f)).unwrap();
        assert_eq!(found.name, "pref");
        // One macro of sig's chain passed made that chain's choice.
        let found = find(&undefined_names(log), dir.path(), |f| f == "-DEOS_9T").unwrap();
        assert_eq!(found.name, "pref");
    }

    #[test]
    fn a_name_also_defined_outside_any_condition_is_not_a_choice() {
        let dir = tree(&[
            ("stmt_fns.h", STMT_FNS),
            ("other.F90", "      sig(t,s)=0.0\n"),
        ]);
        assert_eq!(find(&undefined_names(ERROR), dir.path(), |_| false), None);
    }

    #[test]
    fn a_definition_under_else_or_a_negated_condition_is_not_a_choice() {
        for guard in ["#ifdef A\n#else\n", "#ifndef A\n", "#if !defined(A)\n"] {
            let text = format!("{guard}int compute(int x) {{\n#endif\n");
            let dir = tree(&[("lib.c", &text)]);
            let error = "main.c:3:5: error: implicit declaration of function ‘compute’";
            assert_eq!(
                find(&undefined_names(error), dir.path(), |_| false),
                None,
                "{guard}"
            );
        }
    }

    #[test]
    fn a_c_macro_defined_per_platform_offers_the_platforms() {
        let text = "#ifdef USE_LINUX\n#define PAGE 4096\n#elif defined(USE_BSD)\n#define PAGE 8192\n#endif\n";
        let dir = tree(&[("config.h", text)]);
        let error = "main.c:3:9: error: ‘PAGE’ undeclared (first use in this function)";
        let found = find(&undefined_names(error), dir.path(), |_| false).expect("choices");
        assert_eq!(found.flags, "cflags");
        assert_eq!(macros(&found), ["USE_LINUX", "USE_BSD"]);
    }

    #[test]
    fn a_name_the_source_never_defines_has_no_choices() {
        let dir = tree(&[("stmt_fns.h", STMT_FNS)]);
        let error = "Error: Function 'rho' at (1) has no IMPLICIT type";
        assert_eq!(find(&undefined_names(error), dir.path(), |_| false), None);
        assert_eq!(
            find(&undefined_names("make: *** Error 1"), dir.path(), |_| false),
            None
        );
    }
}
