//! A program the build runs that is not in the build environment: Spack's
//! own refusal to generate a `configure` the source lacks (it names the
//! packages: autoconf, automake, libtool, m4), or a shell's `command not
//! found` for a build tool a Spack package provides, which make reports as
//! exit status 127. Either way the recipe must declare the package as a
//! build dependency; `names` holds the Spack packages.

use std::sync::LazyLock;

use regex::Regex;

use super::excerpt::block;
use super::matching::{diagnosis, diagnosis_at, first_match, re};
use super::{Diagnosis, FailureClass};
use crate::validate::Stage;

/// Spack's `AutotoolsPackage` when the source has no `configure`.
static GENERATE_CONFIGURE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"Cannot generate configure: missing dependencies: ([A-Za-z0-9_, -]+?)\.?\s*$")
});
/// bash's `…: python: command not found`, dash's `…: 1: python: not found`,
/// make's own `make: python: Command not found`.
static NOT_FOUND: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"(?:^|:\s)([A-Za-z][\w.+-]*): (?:[Cc]ommand )?not found\s*$"));

/// Build tools by the program a build runs, and the Spack package that
/// provides each. Only these are read from a `command not found`: a
/// configure probing for an optional program prints the same words.
const TOOLS: &[(&str, &str)] = &[
    ("autoreconf", "autoconf"),
    ("autoconf", "autoconf"),
    ("autoheader", "autoconf"),
    ("automake", "automake"),
    ("aclocal", "automake"),
    ("libtoolize", "libtool"),
    ("m4", "m4"),
    ("perl", "perl"),
    ("python", "python"),
    ("python3", "python"),
    ("bison", "bison"),
    ("yacc", "bison"),
    ("flex", "flex"),
    ("lex", "flex"),
    ("pkg-config", "pkgconfig"),
    ("cmake", "cmake"),
    ("ninja", "ninja"),
    ("meson", "meson"),
    ("doxygen", "doxygen"),
    ("git", "git"),
    ("help2man", "help2man"),
    ("makeinfo", "texinfo"),
    ("gperf", "gperf"),
    ("swig", "swig"),
];

/// libtool's refusal to run with macros of another release:
/// `libtool: Version mismatch error.  This is libtool 2.4.7 …, but the`.
static LIBTOOL_MISMATCH: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"libtool: Version mismatch error\.\s+This is libtool (\S+)"));

/// The packages that regenerate an Autotools build.
pub const AUTOTOOLS: [&str; 4] = ["autoconf", "automake", "libtool", "m4"];

/// Programs that a package may install under another name only (Debian's
/// Python, the external here, has `python3` and no `python`).
const OTHER_NAMES: &[(&str, &str)] =
    &[("python", "python3"), ("yacc", "bison -y"), ("lex", "flex")];

/// How far after `command not found` make's `Error 127` may come.
const MAKE_ERROR_WINDOW: usize = 4;

/// The program a shell or make line reports `not found`, whatever the
/// program (the edit repair reads it too, to find where the build runs it).
pub fn program_not_found(line: &str) -> Option<&str> {
    let c = NOT_FOUND.as_ref()?.captures(line)?;
    c.get(1).map(|m| m.as_str())
}

fn package_of(program: &str) -> Option<&'static str> {
    TOOLS
        .iter()
        .find(|(p, _)| *p == program)
        .map(|(_, package)| *package)
}

/// Spack's list, or the build tools a failed make step could not run.
pub fn missing_build_tool(stage: Stage, lines: &[&str], build_lines: &[&str]) -> Option<Diagnosis> {
    if let Some((i, c)) = first_match(lines, &GENERATE_CONFIGURE) {
        let names: Vec<String> = c[1]
            .split(',')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        let excerpt = block(lines, i, 8, |l| !l.starts_with("==> "));
        let mut d = diagnosis(
            stage,
            FailureClass::MissingBuildTool,
            lines[i].trim().to_string(),
            excerpt,
        );
        d.hint = Some(format!(
            "the source has no generated configure script, so Spack must run autoreconf: \
             declare {} with type=\"build\"",
            names.join(", ")
        ));
        d.names = names;
        return Some(d);
    }
    let mut names: Vec<String> = Vec::new();
    let mut programs: Vec<String> = Vec::new();
    let mut first = None;
    for (i, line) in build_lines.iter().enumerate() {
        let Some(program) = program_not_found(line) else {
            continue;
        };
        let Some(package) = package_of(program) else {
            continue;
        };
        let failed = build_lines
            .iter()
            .skip(i)
            .take(MAKE_ERROR_WINDOW + 1)
            .any(|l| l.contains("Error 127"));
        if !failed {
            continue;
        }
        first.get_or_insert(i);
        if !programs.iter().any(|p| p == program) {
            programs.push(program.to_string());
        }
        if !names.iter().any(|n| n == package) {
            names.push(package.to_string());
        }
    }
    let i = first?;
    let mut d = diagnosis_at(stage, FailureClass::MissingBuildTool, build_lines, i, 2, 8);
    let renames: Vec<String> = programs
        .iter()
        .filter_map(|p| OTHER_NAMES.iter().find(|(from, _)| from == p))
        .map(|(from, to)| format!("`{to}` for `{from}`"))
        .collect();
    let rename = if renames.is_empty() {
        String::new()
    } else {
        format!(" ({})", renames.join(", "))
    };
    d.hint = Some(format!(
        "the build runs {} and the build environment has no such program: declare the package \
         that provides it ({}) with type=\"build\"; if it is declared and the program still is \
         not found, make the build call it by the name that package installs{rename}, with \
         filter_file on the build file that runs it",
        programs.join(", "),
        names.join(", ")
    ));
    d.names = names;
    Some(d)
}

/// A source whose generated Autotools files come from another libtool
/// than the one the build runs (a release archive made with an older one):
/// only regenerating them (`force_autoreconf`) makes them agree.
pub fn stale_autotools(stage: Stage, build_lines: &[&str]) -> Option<Diagnosis> {
    let (i, c) = first_match(build_lines, &LIBTOOL_MISMATCH)?;
    let here = c.get(1)?.as_str().to_string();
    let mut d = diagnosis_at(stage, FailureClass::StaleAutotools, build_lines, i, 1, 6);
    d.hint = Some(format!(
        "the source's generated build files were made with another libtool than this one \
         ({here}): regenerate them with `force_autoreconf = True` and declare {} with \
         type=\"build\"",
        AUTOTOOLS.join(", ")
    ));
    d.names = AUTOTOOLS.iter().map(|t| t.to_string()).collect();
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::classify;

    #[test]
    fn libtool_refusing_anothers_macros_is_stale_autotools() {
        let log = "/bin/bash ../libtool  --tag=CXX   --mode=compile g++ -c -o globals.lo globals.cpp\n\
            libtool: Version mismatch error.  This is libtool 2.4.7 Debian-2.4.7-7~deb12u1, but the\n\
            libtool: definition of this LT_INIT comes from libtool 2.4.6.\n\
            libtool: You should recreate aclocal.m4 with macros from libtool 2.4.7 Debian-2.4.7-7~deb12u1\n\
            libtool: and run autoconf again.\n\
            make[1]: *** [Makefile:549: globals.lo] Error 63\n";
        let d = classify(Stage::Install, "==> Error: ProcessError", Some(log));
        assert_eq!(d.class, FailureClass::StaleAutotools, "{d:#?}");
        assert_eq!(d.names, AUTOTOOLS);
        assert!(d.hint.unwrap().contains("force_autoreconf = True"));
    }

    /// Spack 0.23 installing an Autotools recipe from a git export of a tag.
    const GENERATE: &str = "==> Installing lwgrp-1.0.5-abc\n\
        ==> No binary for lwgrp-1.0.5-abc found: installing from source\n\
        ==> Error: RuntimeError: Cannot generate configure: missing dependencies: autoconf, automake, libtool.\n\
        \n\
        Please add the following lines to the package:\n\
        \n\
        \x20   depends_on(\"autoconf\", type=\"build\", when=\"@1.0.5 build_system=autotools\")\n\
        \x20   depends_on(\"automake\", type=\"build\", when=\"@1.0.5 build_system=autotools\")\n\
        \x20   depends_on(\"libtool\", type=\"build\", when=\"@1.0.5 build_system=autotools\")\n\
        \n\
        Update the version (when=\"@1.0.5\") as needed.\n";

    /// make running a generator script the build environment cannot run.
    const PYTHON: &str = "make[4]: Entering directory '/stage/spack-src/blitz/generate'\n\
        python genstencils.py ../../blitz/array/stencil-classes.cc\n\
        /bin/bash: line 1: python: command not found\n\
        make[4]: *** [Makefile:624: ../../blitz/array/stencil-classes.cc] Error 127\n\
        make[4]: Leaving directory '/stage/spack-src/blitz/generate'\n";

    #[test]
    fn spacks_refusal_to_generate_configure_names_the_autotools() {
        let d = classify(Stage::Install, GENERATE, None);
        assert_eq!(d.class, FailureClass::MissingBuildTool, "{d:#?}");
        assert_eq!(d.names, ["autoconf", "automake", "libtool"]);
        assert!(
            d.excerpt.contains("Please add the following lines"),
            "{}",
            d.excerpt
        );
    }

    #[test]
    fn a_build_tool_make_could_not_run_is_named_by_its_package() {
        let d = classify(Stage::Install, "==> Error: ProcessError", Some(PYTHON));
        assert_eq!(d.class, FailureClass::MissingBuildTool, "{d:#?}");
        assert_eq!(d.names, ["python"]);
        assert!(d.hint.unwrap().contains("`python3` for `python`"));
        // dash's wording, and make's own.
        for line in [
            "/bin/sh: 1: bison: not found",
            "make: bison: Command not found",
        ] {
            let log = format!("{line}\nmake: *** [Makefile:9: parse.c] Error 127\n");
            let d = classify(Stage::Install, "==> Error: ProcessError", Some(&log));
            assert_eq!(d.names, ["bison"], "{line}: {d:#?}");
        }
    }

    #[test]
    fn a_probe_that_did_not_fail_the_build_or_an_unknown_program_is_no_build_tool() {
        // configure probing an optional program, the build failing later.
        let probe = "./configure: line 12: doxygen: command not found\n\
            checking for gcc... gcc\n\
            x.c:1:10: fatal error: foo.h: No such file or directory\n\
            make: *** [Makefile:3: x.o] Error 1\n";
        let lines: Vec<&str> = probe.lines().collect();
        assert!(missing_build_tool(Stage::Install, &[], &lines).is_none());
        // A program no Spack package is known to provide.
        let own = "/bin/bash: line 1: ./mkdefs: command not found\nmake: *** [all] Error 127\n";
        let lines: Vec<&str> = own.lines().collect();
        assert!(missing_build_tool(Stage::Install, &[], &lines).is_none());
    }
}
