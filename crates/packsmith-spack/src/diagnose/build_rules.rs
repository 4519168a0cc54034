//! Build failures with a certain cause, recognised before the generic
//! network, sandbox, make and CMake rules would take them: a configure
//! that tried to download a dependency, a build with no install target,
//! and install rules that copy a source path the source lacks.

use std::sync::LazyLock;

use regex::Regex;

use super::excerpt::block;
use super::matching::{diagnosis, diagnosis_at, first_match, re};
use super::{Diagnosis, FailureClass};
use crate::validate::Stage;

/// A download step that failed (the name, when the line gives one).
static DOWNLOAD_FAILED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(?:Failed to clone repository: '([^']+)'|Build step for (\S+) failed|error: downloading '([^']+)' failed|Each download failed)",
    )
});
/// A download step that started: names only, never a failure by itself.
static DOWNLOAD_STEP: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"Performing download step \([^)]*\) for '([^']+)'"));
static CLONE: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"fatal: (?:unable to access|repository) '([^']+)'"));
static CLONING: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"^Cloning into '([^']+)'"));
static NO_INSTALL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"(No rule to make target '?install'?|ninja: error: unknown target 'install')")
});

/// CMake's `file INSTALL cannot find "<path>"`: the path follows on the
/// same line or, wrapped, on one of the next two.
static INSTALL_CANNOT_FIND: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"file INSTALL cannot find"));
static SOURCE_PATH: LazyLock<Option<Regex>> = LazyLock::new(|| re(r#""[^"]*/spack-src/([^"]+)""#));

/// The linker missing a library by `-l` name.
static CANNOT_FIND_LIB: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"\bld(?:\.\w+)?: cannot find -l([A-Za-z0-9_+.-]+?)(?::|\s|$)"));

/// gfortran's `Cannot open module file 'mod_pipe.mod'`: a module not
/// compiled yet.
static MISSING_MODULE: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"Cannot open module file '([A-Za-z0-9_]+)\.mod'"));

/// The project name in what a download step prints: `fmt-populate` →
/// `fmt`, a URL → its repository, `_deps/fmt-src` → `fmt`.
fn content_name(raw: &str) -> String {
    let raw = raw.trim_end_matches('/');
    let last = raw.rsplit('/').next().unwrap_or(raw);
    let last = last.strip_suffix(".git").unwrap_or(last);
    for suffix in ["-populate", "-src", "-subbuild"] {
        if let Some(stem) = last.strip_suffix(suffix) {
            return stem.to_string();
        }
    }
    last.to_string()
}

/// A configure that tried to download: FetchContent's and
/// ExternalProject's download steps, or a `git clone` that could not
/// reach its host.
pub fn configure_download(stage: Stage, lines: &[&str], build_lines: &[&str]) -> Option<Diagnosis> {
    let (hit, i) = match first_match(build_lines, &DOWNLOAD_FAILED) {
        Some((i, _)) => (build_lines, i),
        None => match first_match(lines, &DOWNLOAD_FAILED) {
            Some((i, _)) => (lines, i),
            None => {
                // A clone the configure runs itself.
                let (ci, _) = first_match(build_lines, &CLONING)?;
                let (fi, _) = first_match(&build_lines[ci..], &CLONE)?;
                (build_lines, ci + fi)
            }
        },
    };
    let mut names: Vec<String> = Vec::new();
    let mut push = |n: String| {
        if !n.is_empty() && !names.contains(&n) {
            names.push(n);
        }
    };
    for regex in [&DOWNLOAD_FAILED, &DOWNLOAD_STEP, &CLONE] {
        let Some(regex) = regex.as_ref() else {
            continue;
        };
        for l in hit {
            if let Some(c) = regex.captures(l) {
                if let Some(m) = (1..c.len()).find_map(|g| c.get(g)) {
                    push(content_name(m.as_str()));
                }
            }
        }
    }
    let mut excerpt: Vec<&str> = Vec::new();
    for l in hit.iter().filter(|l| {
        DOWNLOAD_FAILED.as_ref().is_some_and(|r| r.is_match(l))
            || DOWNLOAD_STEP.as_ref().is_some_and(|r| r.is_match(l))
            || CLONE.as_ref().is_some_and(|r| r.is_match(l))
            || l.contains("Could not resolve host")
    }) {
        if excerpt.len() < 6 && !excerpt.contains(l) {
            excerpt.push(l);
        }
    }
    for l in block(hit, i, 8, |l| !l.trim().is_empty()) {
        if !excerpt.contains(&l) {
            excerpt.push(l);
        }
    }
    let summary = format!(
        "configure-time download failed: {}",
        if names.is_empty() {
            hit[i].trim().to_string()
        } else {
            names.join(", ")
        }
    );
    let mut d = diagnosis(stage, FailureClass::ConfigureDownload, summary, excerpt);
    d.hint = Some(
        "the build downloads a dependency while CMake runs and Spack builds have no network: \
         depends_on() the Spack package for it and make the project use it (its own switch such \
         as <PROJ>_USE_SYSTEM_<X>, or -DFETCHCONTENT_TRY_FIND_PACKAGE_MODE=ALWAYS), with \
         -DFETCHCONTENT_FULLY_DISCONNECTED=ON"
            .into(),
    );
    d.names = names;
    Some(d)
}

/// `make install` or `ninja install` with no install target.
pub fn no_install_target(stage: Stage, lines: &[&str], build_lines: &[&str]) -> Option<Diagnosis> {
    let (hit, i) = match first_match(build_lines, &NO_INSTALL) {
        Some((i, _)) => (build_lines, i),
        None => (lines, first_match(lines, &NO_INSTALL)?.0),
    };
    let start = i.saturating_sub(2);
    let excerpt: Vec<&str> = hit[start..(i + 3).min(hit.len())].to_vec();
    let mut d = diagnosis(
        stage,
        FailureClass::NoInstallTarget,
        hit[i].trim().to_string(),
        excerpt,
    );
    d.hint = Some(
        "the build has no install rules: write an install(self, spec, prefix) method that copies \
         the executables to prefix.bin, the libraries to prefix.lib and the public headers to \
         prefix.include (find, install, install_tree, mkdirp)"
            .into(),
    );
    Some(d)
}

/// The source paths (relative to the source root) that the project's
/// install rules copy and the source does not have: CMake's `file INSTALL
/// cannot find "…/spack-src/cmake/hip"`. A path in the build directory is
/// not one: the build should have made it.
pub fn install_missing_sources(lines: &[&str]) -> Vec<String> {
    let (Some(cannot), Some(path)) = (INSTALL_CANNOT_FIND.as_ref(), SOURCE_PATH.as_ref()) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(at) = cannot.find(line) else {
            continue;
        };
        let rest = std::iter::once(&line[at.end()..]).chain(lines[i + 1..].iter().take(2).copied());
        if let Some(c) = rest.filter_map(|l| path.captures(l)).next() {
            let name = c[1].trim_end_matches('/').to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The hint for install rules that copy source paths the source lacks.
pub fn install_missing_hint(paths: &[String]) -> String {
    let list = paths
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "the project's install rules copy {list}, which this version's source does not have: \
         remove the path from the line of the CMake file that names it with filter_file, or \
         fetch a source that has it"
    )
}

/// A parallel build that used what it makes itself before it was made:
/// `ld: cannot find -lTwoBit` while the same log shows `libTwoBit.a` being
/// archived (or `libTwoBit.so` linked) by the project's own rules; or a
/// Fortran module that could not be opened while make ran other jobs (a
/// makefile that does not order its modules). A module of a dependency
/// reads the same: the serial build is tried once, and fails the same way.
pub fn parallel_build(stage: Stage, build_lines: &[&str]) -> Option<Diagnosis> {
    fortran_module_race(stage, build_lines)
        .or_else(|| library_race(stage, build_lines))
        .or_else(|| archive_race(stage, build_lines))
}

/// `ar: x.a: error reading y.o: file truncated` while make ran other jobs:
/// one job archived an object another was still writing (exonerate's
/// generated `c4_model_archive.a`, which its maintainers build serially).
fn archive_race(stage: Stage, build_lines: &[&str]) -> Option<Diagnosis> {
    let i = build_lines.iter().position(|l| {
        let l = l.trim_start();
        l.starts_with("ar: ")
            && [
                "file truncated",
                "malformed archive",
                "file format not recognized",
            ]
            .iter()
            .any(|m| l.contains(m))
    })?;
    if !build_lines
        .iter()
        .any(|l| l.contains("Waiting for unfinished jobs"))
    {
        return None;
    }
    let mut d = diagnosis_at(stage, FailureClass::ParallelBuild, build_lines, i, 0, 4);
    d.hint = Some(
        "a parallel make archived an object file another job was still writing: set \
         `parallel = False` in the package class"
            .into(),
    );
    Some(d)
}

fn fortran_module_race(stage: Stage, build_lines: &[&str]) -> Option<Diagnosis> {
    let (i, c) = first_match(build_lines, &MISSING_MODULE)?;
    let module = c.get(1)?.as_str().to_string();
    if !build_lines
        .iter()
        .any(|l| l.contains("Waiting for unfinished jobs"))
    {
        return None;
    }
    let mut d = diagnosis_at(stage, FailureClass::ParallelBuild, build_lines, i, 3, 6);
    d.hint = Some(format!(
        "a parallel make compiled a file that uses the Fortran module {module} before the \
         module was compiled: set `parallel = False` in the package class (if {module} belongs \
         to a dependency, declare that dependency instead)"
    ));
    d.names = vec![module];
    Some(d)
}

fn library_race(stage: Stage, build_lines: &[&str]) -> Option<Diagnosis> {
    let (i, c) = first_match(build_lines, &CANNOT_FIND_LIB)?;
    let lib = c.get(1)?.as_str().to_string();
    let archive = format!("lib{lib}.a");
    let linked = [format!("-o lib{lib}.so"), format!("-o {archive}")];
    let made = build_lines.iter().enumerate().any(|(k, l)| {
        k != i
            && ((l.contains(&archive) && (l.starts_with("ar ") || l.contains("/ar ")))
                || linked.iter().any(|o| l.contains(o.as_str())))
    });
    if !made {
        return None;
    }
    let mut d = diagnosis_at(stage, FailureClass::ParallelBuild, build_lines, i, 0, 4);
    d.hint = Some(format!(
        "the build makes lib{lib} itself but a parallel make linked against it first: set \
         `parallel = False` in the package class"
    ));
    d.names = vec![lib];
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_of_an_object_still_being_written_is_a_race() {
        let log = "ar -Sq c4_model_archive.a /s/codegen/a.o\n\
            ar: c4_model_archive.a: error reading b.o: file truncated\n\
            ** FATAL ERROR **: Problem adding to archive\n\
            make[2]: *** [Makefile:366: c4_model_archive.a] Error 1\n\
            make[2]: *** Waiting for unfinished jobs....\n";
        let lines: Vec<&str> = log.lines().collect();
        let d = parallel_build(Stage::Install, &lines).expect("a race");
        assert_eq!(d.class, FailureClass::ParallelBuild);
        assert!(d.hint.unwrap().contains("parallel = False"));
        // A serial build that reads a truncated object is no race.
        assert!(parallel_build(Stage::Install, &lines[..4]).is_none());
    }

    #[test]
    fn a_fortran_module_used_before_a_parallel_make_compiled_it_is_a_race() {
        let log = "gfortran -O2 -c mod_za.F90\n\
            gfortran -O2 -c mod_incupd.F90\n\
            mod_incupd.F90:140:11:\n\
            \n\
              140 |       use mod_pipe       ! HYCOM debugging interface\n\
                  |           1\n\
            Fatal Error: Cannot open module file 'mod_pipe.mod' for reading at (1): No such file or directory\n\
            compilation terminated.\n\
            make: *** [config/_:45: mod_incupd.o] Error 1\n\
            make: *** Waiting for unfinished jobs....\n";
        // A serial make that cannot open a module: a dependency's, not a race.
        race_unless(log, "mod_pipe", "Waiting");
    }

    /// `log` is a race on `name`, and is none without its lines holding
    /// `evidence`.
    fn race_unless(log: &str, name: &str, evidence: &str) {
        let lines: Vec<&str> = log.lines().collect();
        let d = parallel_build(Stage::Install, &lines).unwrap();
        assert_eq!(d.class, FailureClass::ParallelBuild);
        assert_eq!(d.names, [name]);
        assert!(d.hint.unwrap().contains("parallel = False"));
        let without: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.contains(evidence))
            .collect();
        assert!(parallel_build(Stage::Install, &without).is_none());
    }

    #[test]
    fn a_library_linked_before_the_build_made_it_is_a_parallel_build_race() {
        let log = "make -C kentsrc\n\
            gcc -g -I. -c twoBitNew.c -o twoBitNew.o\n\
            /spack/env/gcc/gcc cmd_line_opts.o common.o -o test_suite -lm -Lkentsrc -lTwoBit -fopenmp\n\
            /usr/bin/ld: cannot find -lTwoBit: No such file or directory\n\
            collect2: error: ld returned 1 exit status\n\
            make: *** [Makefile:40: test_suite] Error 1\n\
            ar rcs libTwoBit.a dystring.o dlist.o twoBitNew.o\n";
        // A library the build does not make is a missing dependency.
        race_unless(log, "TwoBit", "ar rcs");
        // Through the classifier, before the missing-dependency rule.
        let d = crate::diagnose::classify(Stage::Install, "==> Error: ProcessError", Some(log));
        assert_eq!(d.class, FailureClass::ParallelBuild, "{d:#?}");
    }

    #[test]
    fn install_rules_copying_a_source_path_the_source_lacks_are_read() {
        let log = [
            "CMake Error at cmake_install.cmake:84 (file):",
            "  file INSTALL cannot find",
            "  \"/stage/spack-stage-vecmem-1.23.0-x/spack-src/cmake/hip\":",
            "  No such file or directory.",
            "CMake Error at cmake_install.cmake:90 (file): file INSTALL cannot find \"/stage/spack-src/share/data/\"",
        ];
        assert_eq!(install_missing_sources(&log), ["cmake/hip", "share/data"]);
        // A file the build should have made, in the build directory.
        let built = [
            "  file INSTALL cannot find",
            "  \"/stage/spack-build-x/libfoo.so\":",
        ];
        assert!(install_missing_sources(&built).is_empty());
        assert!(install_missing_hint(&["cmake/hip".into()]).contains("`cmake/hip`"));
        // Through the classifier: no configure error, but a source file.
        let d = crate::diagnose::classify(
            Stage::Install,
            "==> Error: ProcessError: Command exited with status 2:",
            Some(&log.join("\n")),
        );
        assert_eq!(d.class, FailureClass::MissingSourceFile, "{d:#?}");
        assert_eq!(d.names, ["cmake/hip", "share/data"]);
        assert!(d.excerpt.contains("file INSTALL cannot find"), "{d:#?}");
        let other = crate::diagnose::classify(
            Stage::Install,
            "==> Error: ProcessError",
            Some("CMake Error at CMakeLists.txt:3 (message):\n  bad option"),
        );
        assert_eq!(other.class, FailureClass::CmakeConfigure);
    }

    #[test]
    fn content_names() {
        assert_eq!(content_name("fmt-populate"), "fmt");
        assert_eq!(content_name("https://github.com/fmtlib/fmt.git"), "fmt");
        assert_eq!(content_name("https://github.com/fmtlib/fmt.git/"), "fmt");
        assert_eq!(content_name("zstd_ext"), "zstd_ext");
    }
}
