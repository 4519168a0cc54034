//! Libraries a `Makefile.am` links by name with no configure lookup:
//! `librecorder_la_LDFLAGS = -lpthread -lhdf5` builds against the host's
//! HDF5 though configure.ac never asks for it. Each such `-lname` of a
//! link variable (`*_LDADD`, `*_LIBADD`, `*_LDFLAGS`, `LIBS`) outside an
//! Automake conditional, in the build's own directories (not tests or
//! examples), is recorded as a required check of that library; a library
//! the tree builds itself (`lib_LTLIBRARIES = libfoo.la`) is not.

use crate::context::Ctx;
use crate::detect::in_noise_dir;
use crate::makefile::logical_lines;
use packsmith_core::{AutotoolsCheck, AutotoolsFacts, Evidence};

/// The macro name the checks carry: where they were read.
pub const FROM_MAKEFILE_AM: &str = "Makefile.am";

/// Variables whose `-l` words are libraries the build links.
fn is_link_variable(name: &str) -> bool {
    ["_LDADD", "_LIBADD", "_LDFLAGS"]
        .iter()
        .any(|s| name.ends_with(s))
        || matches!(name, "LIBS" | "LDADD" | "AM_LDFLAGS")
}

/// Reads every `Makefile.am` of the build into `facts.checks`.
pub fn read(ctx: &mut Ctx<'_>, facts: &mut AutotoolsFacts) {
    let files: Vec<String> = ctx
        .view
        .files()
        .iter()
        .filter(|f| f.name() == "Makefile.am" && !in_noise_dir(f))
        .map(|f| f.rel.clone())
        .collect();
    let texts: Vec<(String, String)> = files
        .into_iter()
        .filter_map(|f| ctx.read(&f).map(|t| (f, t)))
        .collect();
    let built: Vec<String> = texts.iter().flat_map(|(_, t)| built_libraries(t)).collect();
    for (file, text) in &texts {
        for (name, line) in linked_by_name(text) {
            let known = facts
                .checks
                .iter()
                .any(|c| c.names.iter().any(|n| n == &name));
            if known || built.contains(&name) {
                continue;
            }
            facts.checks.push(AutotoolsCheck {
                macro_name: FROM_MAKEFILE_AM.into(),
                names: vec![name],
                function: None,
                required: true,
                conditions: Vec::new(),
                evidence: Evidence::new(file.clone(), line),
            });
        }
    }
}

/// `-lname` words of link variables outside `if COND … endif`, with the
/// line each is on, first mention only.
fn linked_by_name(text: &str) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut depth = 0usize;
    // A Makefile.am is read as make reads it: continuations joined,
    // comments gone.
    for (no, line) in logical_lines(text) {
        let trimmed = line.trim();
        let word = trimmed.split_whitespace().next().unwrap_or("");
        match word {
            "if" => depth += 1,
            "endif" => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > 0 || line.starts_with('\t') {
            continue;
        }
        let Some((name, value)) = trimmed.split_once('=') else {
            continue;
        };
        let name = name.trim_end_matches(['+', ':']).trim();
        if !is_link_variable(name) {
            continue;
        }
        let value = value.split('#').next().unwrap_or("");
        for lib in value
            .split_whitespace()
            .filter_map(|w| w.strip_prefix("-l"))
        {
            let plain = !lib.is_empty()
                && lib
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '.'));
            if plain && !out.iter().any(|(n, _)| n == lib) {
                out.push((lib.to_string(), no));
            }
        }
    }
    out
}

/// `libfoo.la` / `libfoo.a` a `*_LTLIBRARIES` or `*_LIBRARIES` line builds
/// → `foo`.
fn built_libraries(text: &str) -> Vec<String> {
    logical_lines(text)
        .into_iter()
        .filter_map(|(_, line)| {
            let (name, value) = line.split_once('=')?;
            let name = name.trim_end_matches(['+', ':']).trim();
            name.ends_with("LIBRARIES").then(|| value.to_string())
        })
        .flat_map(|value| {
            value
                .split_whitespace()
                .filter_map(|w| {
                    let file = w.rsplit('/').next()?;
                    let stem = file
                        .strip_suffix(".la")
                        .or_else(|| file.strip_suffix(".a"))?;
                    Some(stem.strip_prefix("lib").unwrap_or(stem).to_string())
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// recorder's `lib/Makefile.am` (corpus-4 dev): HDF5 linked by name,
    /// never looked up by configure.ac.
    #[test]
    fn libraries_linked_by_name_outside_conditionals_are_read() {
        let text = "lib_LTLIBRARIES = librecorder.la libreader.la\n\
                    librecorder_la_SOURCES = recorder-hdf5.c\n\
                    librecorder_la_LDFLAGS = -lpthread -lhdf5 -version-info 0:0:0\n\
                    librecorder_la_LIBADD = -lreader \\\n    -lz # compression\n\
                    if HAVE_MPI\n  tool_LDADD = -lmpi\nendif\n\
                    check_PROGRAMS = t\n\
                    \tgcc -o x -lfoo\n";
        let linked: Vec<String> = linked_by_name(text).into_iter().map(|(n, _)| n).collect();
        assert_eq!(linked, ["pthread", "hdf5", "reader", "z"]);
        assert_eq!(linked_by_name(text)[3].1, 4);
        assert_eq!(built_libraries(text), ["recorder", "reader"]);
    }

    #[test]
    fn read_records_checks_for_libraries_nothing_else_names() {
        let am = "lib_LTLIBRARIES = libx.la\nlibx_la_LIBADD = -lx -lhdf5 -lm\n";
        let (_dir, view) = crate::view::test_view_of(&[
            ("configure.ac", "AC_INIT([x], [1.0])\n"),
            ("lib/Makefile.am", am),
            ("tests/Makefile.am", "t_LDADD = -lcheck\n"),
        ]);
        let mut ctx = Ctx::new(&view);
        let mut facts = AutotoolsFacts {
            checks: vec![AutotoolsCheck {
                macro_name: "AC_CHECK_LIB".into(),
                names: vec!["m".into()],
                function: Some("cos".into()),
                required: true,
                conditions: Vec::new(),
                evidence: Evidence::new("configure.ac", 1),
            }],
            ..AutotoolsFacts::default()
        };
        read(&mut ctx, &mut facts);
        let added: Vec<(&str, &str)> = facts.checks[1..]
            .iter()
            .map(|c| (c.names[0].as_str(), c.evidence.file.as_str()))
            .collect();
        assert_eq!(added, [("hdf5", "lib/Makefile.am")]);
        assert!(facts.checks[1].required && facts.checks[1].conditions.is_empty());
    }
}
