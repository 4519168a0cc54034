//! Known compiler-compatibility errors and the flag that every Spack
//! maintainer adds for them: newer compilers turned old, widespread code
//! patterns into errors (gfortran ≥ 10 argument mismatches, g++ friend
//! declarations with default arguments). A small table of rules; the
//! diagnosis names the rules that matched, and the repair adds their flags
//! through `flag_handler` for the compiler range.

use std::sync::LazyLock;

use regex::Regex;

use super::excerpt::block;
use super::matching::{diagnosis, re};
use super::rules::is_compiler_error;
use super::{Diagnosis, FailureClass};
use crate::validate::Stage;

/// One known error and its flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompatRule {
    /// Stable name, carried in the diagnosis's `names`.
    pub id: &'static str,
    /// What the compiler prints.
    pattern: &'static str,
    /// The `flag_handler` flag list the flag goes to (`fflags`, `cxxflags`).
    pub flags: &'static str,
    pub flag: &'static str,
    /// The compilers that need it, as a spec (`%gcc@10:`).
    pub when: &'static str,
    /// Why, for the recipe's comment and the report.
    pub why: &'static str,
    /// The rule holds only when every compiler error of the build is one
    /// it matches: a generic pattern must not hide a real error beside it.
    pub sole: bool,
}

/// A link that wants the MPI C++ bindings: one error, a flag for each MPI.
const MPI_CXX_BINDINGS: &str = r"undefined reference to .(?:ompi_mpi_cxx_|MPI::)";

/// The table, most common first.
pub const COMPAT_RULES: &[CompatRule] = &[
    CompatRule {
        id: "gfortran-argument-mismatch",
        pattern: r"Error: (?:Type|Rank) mismatch between actual argument at \(1\) and actual argument at \(2\)",
        flags: "fflags",
        flag: "-fallow-argument-mismatch",
        when: "%gcc@10:",
        why: "gfortran 10 and later refuse calls whose arguments differ in type or rank",
        sole: false,
    },
    CompatRule {
        id: "gcc-friend-default-argument",
        pattern: r"error: friend declaration of .* specifies default arguments and isn.t a definition",
        flags: "cxxflags",
        flag: "-fpermissive",
        when: "%gcc@12:",
        why: "g++ refuses a friend declaration with default arguments that is not a definition",
        sole: false,
    },
    CompatRule {
        id: "gcc-permissive",
        // Any other error g++ would let pass under -fpermissive (pointer and
        // integer compared, activeharmony): it says so in brackets.
        pattern: r": error: .*\[-fpermissive\]\s*$",
        flags: "cxxflags",
        flag: "-fpermissive",
        when: "%gcc",
        why: "g++ turns code it accepts under -fpermissive (old, non-conforming C++) into errors",
        sole: true,
    },
    CompatRule {
        id: "gcc-no-common",
        // A global a header defines without `extern`, in every object that
        // includes it: GCC 10 stopped merging such tentative definitions.
        pattern: r"multiple definition of .[^']+'; \S+: first defined here",
        flags: "cflags",
        flag: "-fcommon",
        when: "%gcc@10:",
        why: "gcc 10 and later no longer merge a global that headers define in every object (-fno-common)",
        sole: false,
    },
    CompatRule {
        id: "openmpi-cxx-bindings",
        pattern: MPI_CXX_BINDINGS,
        flags: "cxxflags",
        flag: "-DOMPI_SKIP_MPICXX",
        when: "^openmpi",
        why: "C++ code that includes mpi.h gets Open MPI's C++ bindings, which a C link lacks",
        sole: false,
    },
    CompatRule {
        id: "mpich-cxx-bindings",
        pattern: MPI_CXX_BINDINGS,
        flags: "cxxflags",
        flag: "-DMPICH_SKIP_MPICXX",
        when: "^mpich",
        why: "C++ code that includes mpi.h gets MPICH's C++ bindings, which a C link lacks",
        sole: false,
    },
];

static PATTERNS: LazyLock<Vec<(CompatRule, Option<Regex>)>> =
    LazyLock::new(|| COMPAT_RULES.iter().map(|r| (*r, re(r.pattern))).collect());

/// The rule named `id`.
pub fn compat_rule(id: &str) -> Option<&'static CompatRule> {
    COMPAT_RULES.iter().find(|r| r.id == id)
}

/// A build that failed on known compatibility errors: every rule that
/// matched, in table order, and the block around the first hit.
pub fn compiler_compat(stage: Stage, build_lines: &[&str]) -> Option<Diagnosis> {
    let mut first: Option<usize> = None;
    let mut ids: Vec<String> = Vec::new();
    for (rule, regex) in PATTERNS.iter() {
        let Some(regex) = regex else { continue };
        // A flag an earlier rule already adds is not added twice.
        let same_flag = ids
            .iter()
            .filter_map(|id| compat_rule(id))
            .any(|r| r.flags == rule.flags && r.flag == rule.flag);
        if same_flag {
            continue;
        }
        if rule.sole && has_other_compiler_error(build_lines, regex) {
            continue;
        }
        if let Some(i) = build_lines.iter().position(|l| regex.is_match(l)) {
            first = Some(first.map_or(i, |f| f.min(i)));
            ids.push(rule.id.to_string());
        }
    }
    let i = first?;
    let start = i.saturating_sub(6);
    let mut excerpt: Vec<&str> = build_lines[start..i].to_vec();
    excerpt.extend(block(build_lines, i, 6, |l| !l.trim().is_empty()));
    let mut d = diagnosis(
        stage,
        FailureClass::CompilerCompat,
        build_lines[i].trim().to_string(),
        excerpt,
    );
    let hints: Vec<String> = ids
        .iter()
        .filter_map(|id| compat_rule(id))
        .map(|r| format!("{} to {} when {}", r.flag, r.flags, r.when))
        .collect();
    d.hint = Some(format!(
        "a known compiler-compatibility error: add {} in flag_handler",
        hints.join(", ")
    ));
    d.names = ids;
    Some(d)
}

/// A compiler error (`file:line:col: error: …`) that `regex` does not match.
fn has_other_compiler_error(build_lines: &[&str], regex: &Regex) -> bool {
    build_lines
        .iter()
        .any(|l| is_compiler_error(l.trim_start()) && !regex.is_match(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for (rule, regex) in PATTERNS.iter() {
            assert!(regex.is_some(), "{}", rule.id);
        }
    }

    #[test]
    fn both_rules_and_nothing_else() {
        let log = [
            "mm.f90:5:12:",
            "Error: Rank mismatch between actual argument at (1) and actual argument at (2) (scalar and rank-1)",
            "fr.cpp:2:14: error: friend declaration of 'int area(const Box&, int)' specifies default arguments and isn't a definition [-fpermissive]",
        ];
        let d = compiler_compat(Stage::Install, &log).unwrap();
        assert_eq!(
            d.names,
            ["gfortran-argument-mismatch", "gcc-friend-default-argument"]
        );
        assert!(compiler_compat(Stage::Install, &["error: 'x' was not declared"]).is_none());
    }

    #[test]
    fn an_error_gxx_would_pass_under_permissive_gets_the_flag_once() {
        let log = [
            "code_generator.cxx:577:37: error: ISO C++ forbids comparison between pointer and integer [-fpermissive]",
            "  577 |         while (head < tail && (head == '\\0' || isspace(*head))) {",
        ];
        let d = compiler_compat(Stage::Install, &log).unwrap();
        assert_eq!(d.names, ["gcc-permissive"]);
        assert_eq!(compat_rule("gcc-permissive").unwrap().flag, "-fpermissive");
        // The friend declaration's own rule already adds -fpermissive.
        let log = [
            "fr.cpp:2:14: error: friend declaration of 'int area(const Box&, int)' specifies default arguments and isn't a definition [-fpermissive]",
            "x.cpp:3:1: error: ISO C++ forbids comparison between pointer and integer [-fpermissive]",
        ];
        let d = compiler_compat(Stage::Install, &log).unwrap();
        assert_eq!(d.names, ["gcc-friend-default-argument"]);
        // Beside an error the flag does not excuse, it is no such failure.
        let log = [
            "tiny.cpp:5:17: error: invalid conversion from 'const char*' to 'int' [-fpermissive]",
            "tiny.cpp:6:12: error: 'undeclared_helper' was not declared in this scope",
        ];
        assert!(compiler_compat(Stage::Install, &log).is_none());
        // A warning that names the flag is no error.
        let warning = ["x.cpp:3:1: warning: narrowing conversion [-fpermissive]"];
        assert!(compiler_compat(Stage::Install, &warning).is_none());
    }

    #[test]
    fn a_global_defined_in_every_object_gets_common_symbols_back() {
        // recorder's header defines function pointers without `extern`.
        let log = [
            "/usr/bin/ld: .libs/librecorder_la-recorder-utils.o:/stage/spack-src/lib/../include/recorder.h:180: multiple definition of `__real_creat64'; .libs/librecorder_la-recorder-hdf5.o:/stage/spack-src/lib/../include/recorder.h:180: first defined here",
            "collect2: error: ld returned 1 exit status",
        ];
        let d = compiler_compat(Stage::Install, &log).unwrap();
        assert_eq!(d.names, ["gcc-no-common"]);
        assert_eq!(compat_rule("gcc-no-common").unwrap().flag, "-fcommon");
        // The message without its second object is no such error.
        let other = ["ld: a.o: multiple definition of `main'"];
        assert!(compiler_compat(Stage::Install, &other).is_none());
    }

    #[test]
    fn mpi_cxx_bindings_missing_at_the_link_are_skipped_for_either_mpi() {
        // p3dfft3's test programs, linked with mpicc against a C++ library.
        let log = [
            "/usr/bin/ld: ../../build/libp3dfft.3.a(init.o): in function `MPI::Op::Init(void (*)(void const*, void*, int, MPI::Datatype const&), bool)':",
            "/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi/ompi/mpi/cxx/op_inln.h:121: undefined reference to `ompi_mpi_cxx_op_intercept'",
            "collect2: error: ld returned 1 exit status",
        ];
        let d = compiler_compat(Stage::Install, &log).unwrap();
        assert_eq!(d.names, ["openmpi-cxx-bindings", "mpich-cxx-bindings"]);
        // Another undefined reference is no such error.
        let other = ["main.c:(.text+0x5): undefined reference to `gzopen'"];
        assert!(compiler_compat(Stage::Install, &other).is_none());
    }
}
