//! What the installed package carries. A host dependency the build used
//! only for what the install does not ship is no leak of the package, and
//! flagging it fails maintainers' recipes that are right. Three shapes:
//! a program found at configure that the build never ran (CLI11's
//! Doxygen with its docs switched off, a `Python3` interpreter nothing
//! calls), and a library or header that only the compiler commands of
//! examples, tests or benchmarks used (nanoflann's examples built against
//! the host's Eigen), a test framework seen only at configure, or a library
//! file found at configure that no printed compiler command links. A finding with an installed file's `DT_NEEDED`, an
//! Autotools probe or a compiler command of a shipped part stays.

use super::commands::compiler_words;
use super::{EvidenceSource, UndeclaredDependency};

/// Words that open the name of a directory of parts no install ships
/// (`tests`, `unit_tests`, `examples2`, `benchmarks`, `demo`).
const UNSHIPPED_WORDS: &[&str] = &["test", "example", "bench", "demo", "sample", "tutorial"];

/// Spack packages of test frameworks: found at configure and seen nowhere
/// else (no installed file needs one, no shipped command names one), one
/// served the project's tests alone (libmcfp's Catch2 header).
const TEST_FRAMEWORKS: &[&str] = &[
    "catch2",
    "googletest",
    "doctest",
    "benchmark",
    "cmocka",
    "check",
    "cppunit",
    "cxxtest",
    "unity",
    "boost-test",
];

/// Directories Spack builds in: a command's path is read from below them.
const BUILD_ROOT_MARKS: &[&str] = &["spack-src", "spack-build"];

/// Source file endings a compiler command compiles.
const SOURCE_ENDINGS: &[&str] = &[
    ".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".f", ".F", ".f90", ".F90", ".cu",
];

/// The findings a shipped part of the install needs, and a note for each
/// one left out. `log` is the build log the observations came from.
pub(super) fn keep_shipped(
    findings: Vec<UndeclaredDependency>,
    log: Option<&str>,
) -> (Vec<UndeclaredDependency>, Vec<String>) {
    let mut kept = Vec::new();
    let mut notes = Vec::new();
    for f in findings {
        match unshipped_use(&f, log) {
            Some(why) => notes.push(format!("{}: {why}", f.headline())),
            None => kept.push(f),
        }
    }
    (kept, notes)
}

/// Why the finding `f` is no leak of the installed package, or None.
fn unshipped_use(f: &UndeclaredDependency, log: Option<&str>) -> Option<String> {
    let sources = || f.evidence.iter().map(|e| e.source);
    // A link probe stays unless the log's compiler commands show that
    // nothing links the library.
    if let (Some(names), Some(log)) = (probed_libraries(f), log) {
        let unlinked = links_any(log, &[], &names) == Some(false);
        return unlinked.then(|| {
            "a library probed at configure that no compiler command links and no installed file needs"
                .to_string()
        });
    }
    if sources().any(|s| matches!(s, EvidenceSource::Elf | EvidenceSource::ConfigureProbe)) {
        return None;
    }
    let commands: Vec<&str> = f
        .evidence
        .iter()
        .filter(|e| e.source == EvidenceSource::BuildCommand)
        .map(|e| e.entry.as_str())
        .collect();
    if !commands.is_empty() {
        return (!commands.iter().any(|c| builds_shipped(c))).then(|| {
            "used only to build parts the install does not ship (examples, tests, benchmarks)"
                .to_string()
        });
    }
    if f.package
        .as_deref()
        .is_some_and(|p| TEST_FRAMEWORKS.contains(&p))
    {
        return Some("a test framework found at configure that no shipped part uses".to_string());
    }
    let log = log?;
    if unlinked_library(f, log) {
        return Some(
            "a library found at configure that no compiler command links and no installed file needs"
                .to_string(),
        );
    }
    let programs_only = !f.paths.is_empty() && f.paths.iter().all(|p| is_program(p));
    (programs_only && !f.paths.iter().any(|p| runs_program(log, p)))
        .then(|| "found at configure and never run by the build".to_string())
}

/// A finding of library files only (`libbz2.so`, `libz.a`), seen only at
/// configure, in a log that prints its compiler commands (so a link would
/// show) where none names a file by path or by `-l<name>`. Henson's bundled
/// backward-cpp looks up libbz2, liblzma and libzstd and links them only
/// beside libdw; no installed file needs them (an `Elf` finding stays).
fn unlinked_library(f: &UndeclaredDependency, log: &str) -> bool {
    let configure_only = f.evidence.iter().all(|e| {
        matches!(
            e.source,
            EvidenceSource::CmakeCache | EvidenceSource::ConfigureOutput
        )
    });
    let names: Option<Vec<&str>> = f.paths.iter().map(|p| library_stem(p)).collect();
    let Some(names) = names.filter(|n| !n.is_empty()) else {
        return false;
    };
    if !configure_only {
        return false;
    }
    links_any(log, &f.paths, &names) == Some(false)
}

/// Whether a compiler command of `log` links one of `paths` or a library
/// of `names` (`-lz`, `-l:libz.so.1`); None when the log prints no
/// compiler command at all (a link would not show).
fn links_any(log: &str, paths: &[String], names: &[&str]) -> Option<bool> {
    let mut compiled = false;
    for words in log.lines().filter_map(compiler_words) {
        compiled = true;
        let links = words.iter().any(|w| {
            paths.iter().any(|p| w == p)
                || w.strip_prefix("-l").is_some_and(|l| names.contains(&l))
                || w.strip_prefix("-l:")
                    .is_some_and(|l| names.iter().any(|n| l.contains(n)))
        });
        if links {
            return Some(true);
        }
    }
    compiled.then_some(false)
}

/// The libraries of a finding seen only in Autotools link probes
/// (`checking for readline in -lreadline... yes`); None when any evidence
/// is something else (a header probe, an installed file's `DT_NEEDED`).
/// dmtcp probes readline for a test program its install never builds.
fn probed_libraries(f: &UndeclaredDependency) -> Option<Vec<&str>> {
    if !f.paths.is_empty() || f.evidence.is_empty() {
        return None;
    }
    f.evidence
        .iter()
        .map(|e| {
            if e.source != EvidenceSource::ConfigureProbe {
                return None;
            }
            let (_, rest) = e.entry.split_once(" in -l")?;
            let name = rest.split(['.', ' ']).next()?;
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// `bz2` of `/usr/lib/x86_64-linux-gnu/libbz2.so` (or `.so.1`, `.a`);
/// None for a path that is no library file.
fn library_stem(path: &str) -> Option<&str> {
    let file = path.rsplit('/').next()?.strip_prefix("lib")?;
    file.split_once(".so")
        .filter(|(_, rest)| rest.is_empty() || rest.starts_with('.'))
        .map(|(stem, _)| stem)
        .or_else(|| file.strip_suffix(".a"))
        .filter(|stem| !stem.is_empty())
}

/// A host program: a file directly in a `bin` or `sbin` directory.
fn is_program(path: &str) -> bool {
    path.rsplit_once('/')
        .is_some_and(|(dir, _)| dir.ends_with("/bin") || dir.ends_with("/sbin"))
}

/// Whether a command of the build log after configure runs the program
/// at `path`: by that path anywhere on a line, or by its name as the first
/// word of a command (`doxygen Doxyfile`, `cd docs && python3 gen.py`).
pub(super) fn runs_program(log: &str, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    // A log without Spack's phase lines is read whole.
    let start = log.lines().position(is_build_phase).unwrap_or(0);
    for line in log.lines().skip(start).filter(|l| !l.starts_with("-- ")) {
        let words = || line.split(|c: char| c.is_whitespace() || c == '\'' || c == '"');
        if words().any(|w| w == path) {
            return true;
        }
        let command_words = line
            .split(['&', ';', '|'])
            .filter_map(|segment| segment.split_whitespace().next());
        if command_words.into_iter().any(|w| w == name) {
            return true;
        }
    }
    false
}

/// Spack's line opening a phase after configure (`==> demo: Executing
/// phase: 'build'`).
fn is_build_phase(line: &str) -> bool {
    line.starts_with("==> ")
        && ["Executing phase: 'build'", "Executing phase: 'install'"]
            .iter()
            .any(|p| line.contains(p))
}

/// A build log line split into the directory a `cd dir && …` prefix moves
/// to (CMake's verbose Makefiles run a subdirectory's commands so) and the
/// command after it.
pub(super) fn split_cd(line: &str) -> (Option<&str>, &str) {
    let line = line.trim();
    match line.strip_prefix("cd ").and_then(|r| r.split_once("&&")) {
        Some((dir, command)) => (Some(dir.trim()), command.trim_start()),
        None => (None, line),
    }
}

/// Whether a compiler command builds a part the install may ship: its
/// working directory (`cd dir && …`), the sources it compiles and the file
/// it writes lie outside directories of examples, tests and benchmarks.
pub(super) fn builds_shipped(command: &str) -> bool {
    let (cd, command) = split_cd(command);
    let mut dirs: Vec<&str> = cd.into_iter().collect();
    let words: Vec<&str> = command.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        if SOURCE_ENDINGS.iter().any(|e| w.ends_with(e)) {
            dirs.push(parent(w));
        }
        if *w == "-o" {
            if let Some(out) = words.get(i + 1) {
                dirs.push(parent(out));
            }
        }
    }
    !dirs.iter().any(|d| names_unshipped_dir(d))
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Whether a directory below the build's roots is one of examples, tests
/// or benchmarks. CMake's target directories (`matrix_example.dir`) name
/// a target, not a part of the tree, and are not read.
fn names_unshipped_dir(dir: &str) -> bool {
    let parts: Vec<&str> = dir.split('/').collect();
    // Below the last build root; an absolute path outside every one is the
    // host's and says nothing, a relative one is read whole.
    let below = match parts
        .iter()
        .rposition(|p| BUILD_ROOT_MARKS.iter().any(|m| p.starts_with(m)))
    {
        Some(root) => root + 1,
        None if dir.starts_with('/') => parts.len(),
        None => 0,
    };
    parts[below..]
        .iter()
        .filter(|p| !p.ends_with(".dir"))
        .any(|p| {
            p.to_ascii_lowercase()
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| UNSHIPPED_WORDS.iter().any(|u| word.starts_with(u)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::hermetic::Evidence;

    const STAGE: &str = "/s/spack-stage-nanoflann-1.5.5-p2x";

    fn finding(paths: &[&str], evidence: &[(EvidenceSource, &str)]) -> UndeclaredDependency {
        UndeclaredDependency {
            package: Some("dep".into()),
            upstream: Vec::new(),
            paths: paths.iter().map(|p| p.to_string()).collect(),
            evidence: evidence
                .iter()
                .map(|(source, entry)| Evidence {
                    source: *source,
                    file: "f".into(),
                    entry: entry.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn commands_of_examples_and_tests_build_nothing_shipped() {
        let example = format!(
            "cd {STAGE}/spack-build-p2x/examples && g++ -I/usr/include/eigen3 -o CMakeFiles/matrix_example.dir/m.cpp.o -c {STAGE}/spack-src/examples/m.cpp"
        );
        assert!(!builds_shipped(&example));
        assert!(!builds_shipped(
            "gcc -I/usr/include/eigen3 -o unit_tests/a.o -c unit_tests/a.c"
        ));
        // The library's own sources, and a target only named like a test.
        let library = format!(
            "cd {STAGE}/spack-build-p2x/src && g++ -I/usr/include/eigen3 -o CMakeFiles/benchmark.dir/b.cc.o -c {STAGE}/spack-src/src/b.cc"
        );
        assert!(builds_shipped(&library));
        assert!(builds_shipped(
            "g++ -I/usr/include/eigen3 -O2 -o leak leak.cpp"
        ));
        // A stage directory named for a package (`spack-stage-googletest`)
        // or a word that only contains one (`attestation`) is no test.
        assert!(builds_shipped(
            "cd /s/spack-stage-googletest-1/spack-build-x/attestation && cc -c a.c -o a.o"
        ));
    }

    #[test]
    fn a_program_runs_when_a_build_command_calls_it() {
        let log = "==> x: Executing phase: 'cmake'\n-- Found Doxygen: /usr/bin/doxygen\n\
                   ==> x: Executing phase: 'build'\n[ 50%] Building CXX object a.o\n";
        assert!(!runs_program(log, "/usr/bin/doxygen"));
        let ran = format!("{log}cd /b/docs && doxygen Doxyfile\n");
        assert!(runs_program(&ran, "/usr/bin/doxygen"));
        let by_path = format!("{log}/usr/bin/python3 /s/gen.py --out x.h\n");
        assert!(runs_program(&by_path, "/usr/bin/python3"));
        // A log with no phase lines is read whole.
        assert!(runs_program("python3 gen.py\n", "/usr/bin/python3"));
    }

    /// dmtcp's shape (corpus-4 dev, Spack 0.23's recipe): `AC_CHECK_LIB`
    /// found readline for a test program the install never builds.
    #[test]
    fn a_library_probe_nothing_links_is_no_leak_and_a_header_probe_stays() {
        use EvidenceSource::*;
        let mut probe = finding(
            &[],
            &[(ConfigureProbe, "checking for readline in -lreadline... yes")],
        );
        probe.package = Some("readline".into());
        let log =
            "==> x: Executing phase: 'build'\ngcc -O2 -c src/a.c -o a.o\ngcc a.o -o prog -lm\n";
        let (kept, notes) = keep_shipped(vec![probe.clone()], Some(log));
        assert!(kept.is_empty(), "{kept:?}");
        assert!(notes[0].contains("probed at configure"), "{notes:?}");
        // Linked by a shipped command, or a log that prints no compiler
        // command (a link would not show): kept.
        let links = format!("{log}gcc b.o -o shell -lreadline -lhistory\n");
        assert_eq!(
            keep_shipped(vec![probe.clone()], Some(&links)).0,
            [probe.clone()]
        );
        let silent = "==> x: Executing phase: 'build'\n  CC a.o\n";
        assert_eq!(
            keep_shipped(vec![probe.clone()], Some(silent)).0,
            [probe.clone()]
        );
        // A header probe is no link probe: it stays whatever the log says.
        let header = finding(&[], &[(ConfigureProbe, "checking for zlib.h... yes")]);
        assert_eq!(keep_shipped(vec![header.clone()], Some(log)).0, [header]);
    }

    #[test]
    fn library_stems_come_from_library_files_only() {
        assert_eq!(
            library_stem("/usr/lib/x86_64-linux-gnu/libbz2.so"),
            Some("bz2")
        );
        assert_eq!(library_stem("/usr/lib/libz.so.1.2.13"), Some("z"));
        assert_eq!(library_stem("/usr/lib/libz.a"), Some("z"));
        assert_eq!(library_stem("/usr/include/zlib.h"), None);
        assert_eq!(library_stem("/usr/lib/libsomething.sod"), None);
    }

    #[test]
    fn only_findings_a_shipped_part_needs_are_kept() {
        use EvidenceSource::*;
        let log = "==> x: Executing phase: 'build'\nmake -j2\n";
        let example = "cd /s/spack-build-x/examples && g++ -I/usr/include/eigen3 -c /s/spack-src/examples/m.cpp -o m.o";
        let unused_tool = finding(
            &["/usr/bin/doxygen"],
            &[(ConfigureOutput, "-- Found Doxygen")],
        );
        let example_only = finding(
            &["/usr/share/eigen3/cmake", "/usr/include/eigen3"],
            &[
                (CmakeCache, "Eigen3_DIR:PATH=/usr/share/eigen3/cmake"),
                (BuildCommand, example),
            ],
        );
        let linked = finding(
            &["/usr/lib/libz.so.1"],
            &[
                (BuildCommand, example),
                (Elf, "lib/libx.so: NEEDED libz.so.1"),
            ],
        );
        let cached_library = finding(
            &["/usr/lib/libz.a"],
            &[(CmakeCache, "ZLIB_LIBRARY=/usr/lib/libz.a")],
        );
        let shipped = finding(
            &["/usr/include/eigen3"],
            &[(
                BuildCommand,
                "g++ -I/usr/include/eigen3 -c src/a.cpp -o src/a.o",
            )],
        );
        let probed = finding(
            &["/usr/include/zlib.h"],
            &[(ConfigureProbe, "checking for zlib.h... yes")],
        );
        let mut test_framework = finding(
            &["/usr/lib/cmake/Catch2"],
            &[(CmakeCache, "Catch2_DIR:PATH=/usr/lib/cmake/Catch2")],
        );
        test_framework.package = Some("catch2".into());
        let mut linked_framework = linked.clone();
        linked_framework.package = Some("googletest".into());
        let (kept, notes) = keep_shipped(
            vec![
                unused_tool,
                example_only,
                linked.clone(),
                cached_library.clone(),
                shipped.clone(),
                probed.clone(),
                test_framework,
                linked_framework.clone(),
            ],
            Some(log),
        );
        assert_eq!(
            kept,
            vec![
                linked,
                cached_library.clone(),
                shipped,
                probed,
                linked_framework
            ]
        );
        assert_eq!(notes.len(), 3);
        assert!(notes[0].contains("never run"), "{notes:?}");
        assert!(notes[1].contains("does not ship"), "{notes:?}");
        assert!(notes[2].contains("test framework"), "{notes:?}");
        // Without the build log, a tool found at configure stays.
        let tool = finding(
            &["/usr/bin/doxygen"],
            &[(ConfigureOutput, "-- Found Doxygen")],
        );
        assert_eq!(keep_shipped(vec![tool.clone()], None).0, vec![tool]);
        // A library found at configure: left out where the log's compiler
        // commands show it was never linked, kept where one links it by name.
        let compiles = format!("{log}g++ -O2 -c src/a.cpp -o a.o\ng++ a.o -o prog -lstdc++\n");
        let bz2 = finding(
            &["/usr/lib/x86_64-linux-gnu/libbz2.so"],
            &[(
                CmakeCache,
                "LIBBZ2_LIBRARY:FILEPATH=/usr/lib/x86_64-linux-gnu/libbz2.so",
            )],
        );
        let (kept, notes) =
            keep_shipped(vec![bz2.clone(), cached_library.clone()], Some(&compiles));
        assert!(kept.is_empty(), "{kept:?}");
        assert!(notes[0].contains("no compiler command links"), "{notes:?}");
        let links = format!("{compiles}g++ a.o -o prog2 -lbz2\n");
        assert_eq!(
            keep_shipped(vec![bz2.clone()], Some(&links)).0,
            vec![bz2.clone()]
        );
        let by_path = format!("{compiles}gcc a.o -o p3 /usr/lib/libz.a\n");
        assert_eq!(
            keep_shipped(vec![cached_library.clone()], Some(&by_path)).0,
            vec![cached_library]
        );
        // A header directory found at configure is no library file: it stays.
        let headers = finding(
            &["/usr/include"],
            &[(CmakeCache, "Boost_INCLUDE_DIR:PATH=/usr/include")],
        );
        assert_eq!(
            keep_shipped(vec![headers.clone()], Some(&compiles)).0,
            vec![headers]
        );
        // A tool the build ran stays.
        let ran = format!("{log}doxygen Doxyfile\n");
        let tool = finding(
            &["/usr/bin/doxygen"],
            &[(ConfigureOutput, "-- Found Doxygen")],
        );
        assert_eq!(keep_shipped(vec![tool.clone()], Some(&ran)).0, vec![tool]);
    }
}
