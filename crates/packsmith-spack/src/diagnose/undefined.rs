//! Names a compiler could not find (`Function 'sig' at (1) has no
//! IMPLICIT type`, `'PAGE' undeclared`), read from the whole build log:
//! the excerpt keeps the last errors, and the name that explains them is
//! often among the first.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Most names kept.
const MAX: usize = 12;

/// The language whose compiler reported a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceLanguage {
    Fortran,
    C,
    Cxx,
}

impl SourceLanguage {
    const ALL: [Self; 3] = [Self::Fortran, Self::C, Self::Cxx];

    /// The language whose compiler a Spack flag kind reaches.
    pub fn from_flags(flags: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.flags() == flags)
    }

    /// The flag kind (`flag_handler`'s `name`) its compiler takes.
    pub fn flags(self) -> &'static str {
        match self {
            Self::Fortran => "fflags",
            Self::C => "cflags",
            Self::Cxx => "cxxflags",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Fortran => "Fortran",
            Self::C => "C",
            Self::Cxx => "C++",
        }
    }

    /// The extensions of the files its compiler compiles (headers and
    /// included files are not).
    pub fn compiled_extensions(self) -> &'static [&'static str] {
        match self {
            Self::Fortran => &[
                "f", "F", "f90", "F90", "f95", "F95", "f03", "F03", "f08", "F08", "for", "f77",
            ],
            Self::C => &["c"],
            Self::Cxx => &["cc", "cpp", "cxx", "c++", "C"],
        }
    }
}

/// A name a compiler could not find, and its language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndefinedName {
    pub name: String,
    pub language: SourceLanguage,
}

/// Compilers' words for a name they cannot find (GCC quotes with `'` or,
/// in a UTF-8 locale, `‘’`).
static UNDEFINED: LazyLock<Vec<(Regex, SourceLanguage)>> = LazyLock::new(|| {
    let q = r"['‘`]([A-Za-z_]\w*)['’]";
    [
        (
            format!(r"(?:Function|Symbol) {q} at \(\d+\) has no IMPLICIT type"),
            SourceLanguage::Fortran,
        ),
        (
            format!(r"{q} was not declared in this scope"),
            SourceLanguage::Cxx,
        ),
        (format!(r"{q} undeclared"), SourceLanguage::C),
        (
            format!(r"implicit declaration of function {q}"),
            SourceLanguage::C,
        ),
    ]
    .into_iter()
    .filter_map(|(p, l)| Some((Regex::new(&p).ok()?, l)))
    .collect()
});

/// The names `log` says a compiler could not find, first seen first.
pub fn undefined_names(log: &str) -> Vec<UndefinedName> {
    let mut out: Vec<UndefinedName> = Vec::new();
    for line in log.lines() {
        for (re, language) in UNDEFINED.iter() {
            for c in re.captures_iter(line) {
                let found = UndefinedName {
                    name: c[1].to_string(),
                    language: *language,
                };
                if !out.contains(&found) && out.len() < MAX {
                    out.push(found);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_in_order_with_their_language() {
        let log = "Error: Symbol 'c1' at (1) has no IMPLICIT type; did you mean 'a1'?\n\
                   Error: Function 'sig' at (1) has no IMPLICIT type\n\
                   Error: Symbol 'c1' at (1) has no IMPLICIT type; did you mean 'a1'?\n\
                   main.c:3:9: error: ‘PAGE’ undeclared (first use in this function)\n\
                   a.cc:4:5: error: 'compute' was not declared in this scope\n\
                   b.c:1:1: warning: implicit declaration of function 'helper'\n\
                   make: *** [Makefile:3: all] Error 1\n";
        let found: Vec<(String, SourceLanguage)> = undefined_names(log)
            .into_iter()
            .map(|u| (u.name, u.language))
            .collect();
        assert_eq!(
            found,
            [
                ("c1".to_string(), SourceLanguage::Fortran),
                ("sig".to_string(), SourceLanguage::Fortran),
                ("PAGE".to_string(), SourceLanguage::C),
                ("compute".to_string(), SourceLanguage::Cxx),
                ("helper".to_string(), SourceLanguage::C),
            ]
        );
        assert!(undefined_names("make: *** Error 1").is_empty());
    }
}
