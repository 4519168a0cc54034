//! Which build systems a repository has, and which one is primary.
//!
//! Every candidate file is scored by depth, so a top-level CMakeLists.txt
//! wins over a Makefile in a subdirectory no matter the walk order (SpackIt
//! picked whichever file its walk met first and rejected 155 CMake projects
//! as "makefile" or "autotools").

use crate::cargo::TAURI_DIR;
use crate::cmake::vars::{resolve_path, PathError};
use crate::view::{RepoFile, RepoView};
use packsmith_core::{BuildSystemFact, BuildSystemKind, Evidence};

/// Files that show a build system, most telling first within each kind.
const MARKERS: &[(BuildSystemKind, &[&str])] = &[
    (BuildSystemKind::Cmake, &["CMakeLists.txt"]),
    (BuildSystemKind::Meson, &["meson.build"]),
    (
        BuildSystemKind::Autotools,
        &["configure.ac", "configure.in", "configure", "Makefile.am"],
    ),
    (BuildSystemKind::Cargo, &["Cargo.toml"]),
    (BuildSystemKind::Go, &["go.mod"]),
    (
        BuildSystemKind::Python,
        &["pyproject.toml", "setup.py", "setup.cfg"],
    ),
    (BuildSystemKind::Npm, &["package.json"]),
    (
        BuildSystemKind::Makefile,
        &["GNUmakefile", "Makefile", "makefile"],
    ),
];

/// Deepest level at which a build file still says something about the
/// project itself (bindings in `python/`, `bindings/python/`).
const MAX_MARKER_DEPTH: u32 = 2;

/// Directory names whose build files belong to tests, examples or vendored
/// code rather than to the project.
const NOISE_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "example",
    "examples",
    "doc",
    "docs",
    "third_party",
    "thirdparty",
    "third-party",
    "external",
    "extern",
    "vendor",
    "deps",
    "benchmark",
    "benchmarks",
    "contrib",
    "tpl",
    "tpls",
    "packages",
    "subprojects",
];

/// Every build system found, shallowest evidence first.
pub fn detect(view: &RepoView) -> Vec<BuildSystemFact> {
    let found = detect_in(view, false);
    if !found.is_empty() {
        return found;
    }
    // Nothing outside test-, example- or bench-named directories: the one
    // there is the project's own (byte-unixbench keeps it in `UnixBench/`).
    detect_in(view, true)
}

/// [`detect`]'s search; `noise_too` also looks in test, example and
/// vendored directories.
fn detect_in(view: &RepoView, noise_too: bool) -> Vec<BuildSystemFact> {
    let mut found = Vec::new();
    for (kind, names) in MARKERS {
        let best = view
            .files()
            .iter()
            .filter(|f| f.depth <= MAX_MARKER_DEPTH && names.contains(&f.name()))
            .filter(|f| f.depth == 0 || noise_too || !in_noise_dir(f))
            .filter(|f| !is_autotools_generated_makefile(view, *kind, f))
            .min_by_key(|f| {
                let rank = names.iter().position(|n| *n == f.name()).unwrap_or(0);
                (f.depth, rank, in_accelerator_dir(f), f.rel.clone())
            });
        if let Some(file) = best {
            let reads_outside_tree = match kind {
                BuildSystemKind::Makefile => include_outside_tree(view, file),
                _ => None,
            };
            found.push(BuildSystemFact {
                kind: *kind,
                evidence: Evidence::file(file.rel.clone()),
                depth: file.depth,
                note: String::new(),
                reads_outside_tree,
            });
        }
    }
    if found.is_empty() && !noise_too {
        found.extend(named_makefile(view));
    }
    found.sort_by_key(|b| b.depth);
    found
}

/// Suffixes of `Makefile.<suffix>` files that are parts or other tools'
/// inputs (Autotools, includes, Windows and vendor make), not a whole
/// Makefile shipped under another name.
const NOT_A_WHOLE_MAKEFILE: &[&str] = &[
    "am", "in", "inc", "include", "common", "rules", "rule", "deps", "dep", "defs", "def",
    "config", "conf", "mk", "local", "bak", "orig", "old", "win", "win32", "win64", "msvc", "vc",
    "nmake", "mingw", "bcc", "wat", "dj", "os2", "dos", "amiga", "cygwin", "txt", "md",
];

/// With no build file make or any other tool looks for, a Makefile shipped
/// under another name (`src-mpi/Makefile.vanilla`, `Makefile.make`), which
/// the README says to copy or pass with `-f`: the build is that Makefile.
fn named_makefile(view: &RepoView) -> Option<BuildSystemFact> {
    let file = view
        .files()
        .iter()
        .filter(|f| f.depth <= MAX_MARKER_DEPTH && !in_noise_dir(f))
        .filter(|f| {
            let name = f.name();
            let suffix = name
                .strip_prefix("Makefile.")
                .or_else(|| name.strip_prefix("makefile."));
            suffix.is_some_and(|s| {
                !s.is_empty() && !NOT_A_WHOLE_MAKEFILE.contains(&s.to_ascii_lowercase().as_str())
            })
        })
        .min_by_key(|f| (f.depth, f.rel.clone()))?;
    Some(BuildSystemFact {
        kind: BuildSystemKind::Makefile,
        evidence: Evidence::file(file.rel.clone()),
        depth: file.depth,
        note: format!(
            "{}: a Makefile under another name (no file make looks for)",
            file.name()
        ),
        reads_outside_tree: include_outside_tree(view, file),
    })
}

/// The first path a Makefile `include`s that climbs out of the repository
/// (`include ../../hrldas/user_build_options` in noahmp's `src/Makefile`).
fn include_outside_tree(view: &RepoView, file: &RepoFile) -> Option<String> {
    let text = view.read_text(&file.rel, &mut Vec::new())?;
    text.text.lines().find_map(|line| {
        let line = line.trim_start();
        let rest = ["include ", "-include ", "sinclude "]
            .iter()
            .find_map(|word| line.strip_prefix(word))?;
        // A variable's value is not known, and an absolute path is the
        // system's (`/usr/share/mk/…`): neither counts.
        rest.split_whitespace()
            .filter(|path| !path.contains('$') && !path.starts_with('/'))
            .find(|path| resolve_path(file.dir(), path) == Err(PathError::Outside))
            .map(str::to_string)
    })
}

/// Words that mark a directory as tests, examples, benchmarks or docs
/// wherever they appear in its name (`unit_tests`, `perf_test`, `examples2`).
const NOISE_WORDS: &[&str] = &["test", "example", "bench", "demo", "sample", "tutorial"];

/// Directory names of a build for one accelerator's programming model.
const ACCELERATOR_WORDS: &[&str] = &["cuda", "hip", "opencl", "sycl", "offload", "gpu", "openacc"];

/// A build in a directory for one accelerator (`cuda/Makefile` beside
/// `openmp-threading/Makefile`, RSBench's layout): the portable build
/// beside it is the package's default.
fn in_accelerator_dir(file: &RepoFile) -> bool {
    file.dir().split('/').any(|part| {
        let part = part.to_ascii_lowercase();
        ACCELERATOR_WORDS.iter().any(|w| {
            part.split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| word == *w)
        })
    })
}

pub(crate) fn in_noise_dir(file: &RepoFile) -> bool {
    is_noise_dir(file.dir())
}

/// A directory of tests, examples, benchmarks, docs or vendored code.
pub(crate) fn is_noise_dir(dir: &str) -> bool {
    dir.split('/').any(|part| {
        let part = part.to_ascii_lowercase();
        NOISE_DIRS.contains(&part.as_str()) || NOISE_WORDS.iter().any(|w| part.contains(w))
    })
}

/// A Makefile next to configure/Makefile.am is Autotools output or glue, not
/// a separate build system.
fn is_autotools_generated_makefile(view: &RepoView, kind: BuildSystemKind, f: &RepoFile) -> bool {
    if kind != BuildSystemKind::Makefile {
        return false;
    }
    let sibling = |name: &str| {
        let rel = if f.dir().is_empty() {
            name.to_string()
        } else {
            format!("{}/{}", f.dir(), name)
        };
        view.exists(&rel)
    };
    sibling("Makefile.am") || sibling("configure.ac") || sibling("configure")
}

/// Python build backends that drive a native build system: with one of
/// these the project is a Python package even when CMakeLists.txt or
/// meson.build sits beside pyproject.toml.
const NATIVE_PYTHON_BACKENDS: &[&str] = &["scikit_build", "mesonpy", "py_build_cmake", "maturin"];

/// A native build reaching more CMake files than this is a project of its
/// own that also ships wheels (ADIOS2), not a Python package with a small
/// native extension.
const SMALL_NATIVE_BUILD_FILES: usize = 5;

/// Picks the primary build system and writes a note on each fact saying why.
/// `native_files` is how many CMake files the CMake reader followed.
pub fn choose_primary(
    systems: &mut [BuildSystemFact],
    python_backend: Option<&str>,
    native_files: usize,
) -> Option<BuildSystemKind> {
    let tauri = is_tauri_app(systems);
    let level = |s: &BuildSystemFact| {
        if tauri && s.kind == BuildSystemKind::Cargo {
            0
        } else {
            s.depth
        }
    };
    // A build that needs a larger project's tree is a last resort.
    let standalone = systems.iter().any(|s| s.reads_outside_tree.is_none());
    let candidate = |s: &BuildSystemFact| !standalone || s.reads_outside_tree.is_none();
    let min_depth = systems.iter().filter(|s| candidate(s)).map(level).min()?;
    let python_wraps_native = native_files <= SMALL_NATIVE_BUILD_FILES
        && python_backend.is_some_and(|b| NATIVE_PYTHON_BACKENDS.iter().any(|n| b.contains(n)));
    let primary = systems
        .iter()
        .filter(|s| candidate(s) && level(s) == min_depth)
        .min_by_key(|s| {
            let kind_rank = if python_wraps_native && s.kind == BuildSystemKind::Python {
                0
            } else {
                priority(s.kind)
            };
            // Nothing at the top: the build in the source directory is the
            // project's, one beside it (`pympirockstar/`, `demo/`) a binding
            // or an example.
            (min_depth > 0 && !in_source_dir(&s.evidence.file), kind_rank)
        })
        .map(|s| s.kind)?;
    for s in systems.iter_mut() {
        s.note = if s.kind == primary {
            if python_wraps_native && primary == BuildSystemKind::Python {
                format!(
                    "primary: the Python backend `{}` drives the native build",
                    python_backend.unwrap_or_default()
                )
            } else if tauri && primary == BuildSystemKind::Cargo {
                format!("primary: a Tauri app, its crate in {TAURI_DIR}/")
            } else {
                "primary".to_string()
            }
        } else if let Some(path) = s.reads_outside_tree.as_ref().filter(|_| standalone) {
            format!("secondary: it reads {path}, outside the repository")
        } else if tauri && s.kind == BuildSystemKind::Npm && s.depth == 0 {
            "secondary: the web frontend of the Tauri app".to_string()
        } else if level(s) > min_depth {
            format!("secondary: found {} level(s) down", s.depth)
        } else if min_depth > 0 {
            format!("secondary: {primary} takes precedence at the same depth")
        } else {
            format!("secondary: {primary} takes precedence at the top level")
        };
    }
    Some(primary)
}

/// [`choose_primary`] when the build system `part` is a part for other
/// builds rather than a build (`why`): primary only when nothing else is.
pub fn choose_primary_except(
    systems: &mut Vec<BuildSystemFact>,
    part: BuildSystemKind,
    why: &str,
    python_backend: Option<&str>,
    native_files: usize,
) -> Option<BuildSystemKind> {
    let (mut rest, mut parts): (Vec<_>, Vec<_>) = systems.drain(..).partition(|s| s.kind != part);
    let primary = choose_primary(&mut rest, python_backend, native_files);
    if primary.is_some() {
        for p in &mut parts {
            p.note = format!("secondary: {why}");
        }
    }
    rest.append(&mut parts);
    rest.sort_by_key(|b| b.depth);
    *systems = rest;
    primary.or_else(|| choose_primary(systems, python_backend, native_files))
}

/// The top level's `kind` build when the caller knows the package is that
/// build's (`why`: a `py-` name the top's Python project declares): primary
/// over every build beside it. None when no `kind` build sits at the top.
pub fn choose_asked_for(
    systems: &mut [BuildSystemFact],
    kind: BuildSystemKind,
    why: &str,
) -> Option<BuildSystemKind> {
    if !systems.iter().any(|s| s.kind == kind && s.depth == 0) {
        return None;
    }
    choose_asked_for_at_any_depth(systems, kind, why)
}

/// [`choose_asked_for`] for a `kind` build wherever it sits: the shallowest
/// is primary (the caller knows the package is that build's). None when
/// there is no `kind` build.
pub fn choose_asked_for_at_any_depth(
    systems: &mut [BuildSystemFact],
    kind: BuildSystemKind,
    why: &str,
) -> Option<BuildSystemKind> {
    let depth = systems
        .iter()
        .filter(|s| s.kind == kind)
        .map(|s| s.depth)
        .min()?;
    for s in systems.iter_mut() {
        let role = if s.kind == kind && s.depth == depth {
            "primary"
        } else {
            "secondary"
        };
        s.note = format!("{role}: {why}");
    }
    Some(kind)
}

/// A build file directly in `src/` or `source/` (any case).
fn in_source_dir(file: &str) -> bool {
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    matches!(dir.to_ascii_lowercase().as_str(), "src" | "source")
}

/// Tauri's layout: the app is the Cargo crate in `src-tauri/`, and the
/// package.json at the top only builds its web frontend. That crate then
/// counts as top level, so it wins over npm (a CMake or Meson build at the
/// top still wins over it).
fn is_tauri_app(systems: &[BuildSystemFact]) -> bool {
    let manifest = format!("{TAURI_DIR}/Cargo.toml");
    systems
        .iter()
        .any(|s| s.kind == BuildSystemKind::Npm && s.depth == 0)
        && systems
            .iter()
            .any(|s| s.kind == BuildSystemKind::Cargo && s.evidence.file == manifest)
}

/// Lower is preferred at the same depth: a generator (CMake, Meson) over the
/// Makefiles it may sit beside, and language-native manifests over a glue
/// Makefile.
fn priority(kind: BuildSystemKind) -> u8 {
    match kind {
        BuildSystemKind::Cmake => 1,
        BuildSystemKind::Meson => 2,
        BuildSystemKind::Autotools => 3,
        BuildSystemKind::Cargo => 4,
        BuildSystemKind::Go => 5,
        BuildSystemKind::Python => 6,
        BuildSystemKind::Npm => 7,
        BuildSystemKind::Makefile => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_cmake_wins_and_test_dirs_are_ignored() {
        let (_d, view) = crate::view::test_view(&[
            "CMakeLists.txt",
            "algorithms/unit_tests/Makefile",
            "python/setup.py",
            "examples/meson.build",
        ]);
        let mut found = detect(&view);
        let kinds: Vec<_> = found.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BuildSystemKind::Cmake, BuildSystemKind::Python]);
        assert_eq!(
            choose_primary(&mut found, None, 1),
            Some(BuildSystemKind::Cmake)
        );
        assert!(found[1].note.starts_with("secondary"));
    }

    /// noahmp: `src/Makefile` includes a file of the model it is built
    /// into (`../../hrldas/…`); the CMake build under `drivers/erf/` builds
    /// on its own, so it is primary although deeper. A Makefile that stays
    /// in the tree (`../common.mk` from `src/`) is no such case, and one that
    /// climbs out is still primary when it is all there is.
    #[test]
    fn a_makefile_that_reads_outside_the_repository_is_a_last_resort() {
        let (_d, view) = crate::view::test_view_of(&[
            (
                "src/Makefile",
                "include ../../hrldas/user_build_options\nall:\n",
            ),
            ("drivers/erf/CMakeLists.txt", "project(NoahMP)\n"),
        ]);
        let mut found = detect(&view);
        assert_eq!(
            choose_primary(&mut found, None, 1),
            Some(BuildSystemKind::Cmake)
        );
        let make = found
            .iter()
            .find(|b| b.kind == BuildSystemKind::Makefile)
            .unwrap();
        assert_eq!(
            make.reads_outside_tree.as_deref(),
            Some("../../hrldas/user_build_options")
        );
        assert!(
            make.note.contains("outside the repository"),
            "{}",
            make.note
        );

        let (_d, view) = crate::view::test_view_of(&[
            ("src/Makefile", "include ../common.mk\nall:\n"),
            ("common.mk", "CC ?= cc\n"),
            ("drivers/erf/CMakeLists.txt", "project(NoahMP)\n"),
        ]);
        let mut found = detect(&view);
        assert_eq!(
            choose_primary(&mut found, None, 1),
            Some(BuildSystemKind::Makefile)
        );

        let (_d, view) = crate::view::test_view_of(&[("Makefile", "-include ../site.mk\nall:\n")]);
        let mut found = detect(&view);
        assert!(found[0].reads_outside_tree.is_some());
        assert_eq!(
            choose_primary(&mut found, None, 0),
            Some(BuildSystemKind::Makefile)
        );
    }

    #[test]
    fn a_makefile_under_another_name_is_the_build_only_when_nothing_else_is() {
        let (_d, view) = crate::view::test_view(&[
            "README.md",
            "src-openmp/Makefile.vanilla",
            "src-mpi/Makefile.vanilla",
            "src-mpi/Makefile.inc",
            "examples/Makefile.gnu",
        ]);
        let found = detect(&view);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, BuildSystemKind::Makefile);
        assert_eq!(found[0].evidence.file, "src-mpi/Makefile.vanilla");
        assert_eq!(
            found[0].makefile_under_another_name(),
            Some("src-mpi/Makefile.vanilla")
        );
        // Parts and other tools' inputs are not a Makefile.
        let (_d, view) = crate::view::test_view(&["Makefile.in", "Makefile.win", "Makefile.inc"]);
        assert!(detect(&view).is_empty());
        // A build file a tool looks for wins: the named one is no candidate.
        let (_d, view) = crate::view::test_view(&["CMakeLists.txt", "Makefile.linux"]);
        let found = detect(&view);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, BuildSystemKind::Cmake);
        assert_eq!(found[0].makefile_under_another_name(), None);
    }

    #[test]
    fn autotools_makefile_is_not_a_separate_system() {
        let (_d, view) = crate::view::test_view(&["configure.ac", "Makefile.am", "Makefile"]);
        let kinds: Vec<_> = detect(&view).iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BuildSystemKind::Autotools]);
    }

    #[test]
    fn a_tauri_app_is_its_cargo_crate_not_its_frontend() {
        let (_d, view) = crate::view::test_view(&[
            "package.json",
            "package-lock.json",
            "src-tauri/Cargo.toml",
            "src-tauri/tauri.conf.json",
        ]);
        let mut found = detect(&view);
        assert_eq!(
            choose_primary(&mut found, None, 0),
            Some(BuildSystemKind::Cargo)
        );
        let note = |kind| &found.iter().find(|s| s.kind == kind).unwrap().note;
        assert_eq!(
            note(BuildSystemKind::Cargo),
            "primary: a Tauri app, its crate in src-tauri/"
        );
        assert_eq!(
            note(BuildSystemKind::Npm),
            "secondary: the web frontend of the Tauri app"
        );
        // A Cargo crate in any other directory leaves the npm project primary.
        let (_d, view) = crate::view::test_view(&["package.json", "native/Cargo.toml"]);
        let mut found = detect(&view);
        assert_eq!(
            choose_primary(&mut found, None, 0),
            Some(BuildSystemKind::Npm)
        );
    }

    #[test]
    fn python_backend_that_drives_cmake_makes_python_primary() {
        let (_d, view) = crate::view::test_view(&["CMakeLists.txt", "pyproject.toml"]);
        let mut found = detect(&view);
        let primary = choose_primary(&mut found, Some("scikit_build_core.build"), 1);
        assert_eq!(primary, Some(BuildSystemKind::Python));
        // A large CMake project that also builds wheels stays a CMake project.
        let primary = choose_primary(&mut found, Some("scikit_build_core.build"), 200);
        assert_eq!(primary, Some(BuildSystemKind::Cmake));
    }

    #[test]
    fn the_portable_build_wins_over_one_per_accelerator() {
        let (_d, view) = crate::view::test_view(&[
            "cuda/Makefile",
            "hip/Makefile",
            "openmp-offload/Makefile",
            "openmp-threading/Makefile",
            "sycl/Makefile",
        ]);
        let found = detect(&view);
        assert_eq!(found[0].evidence.file, "openmp-threading/Makefile");
        // With accelerator builds only, the first by name is still taken.
        let (_d, view) = crate::view::test_view(&["hip/Makefile", "cuda/Makefile"]);
        assert_eq!(detect(&view)[0].evidence.file, "cuda/Makefile");
    }

    #[test]
    fn a_build_only_in_a_bench_named_directory_is_the_projects() {
        let (_d, view) =
            crate::view::test_view(&["README.md", "UnixBench/Makefile", "UnixBench/src/a.c"]);
        let found = detect(&view);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].evidence.file, "UnixBench/Makefile");
        // Beside a real build it stays noise.
        let (_d, view) = crate::view::test_view(&["Makefile", "benchmarks/CMakeLists.txt"]);
        let found = detect(&view);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, BuildSystemKind::Makefile);
    }

    #[test]
    fn with_nothing_at_the_top_the_source_directory_build_wins() {
        // MPI-Rockstar's layout: the code's Makefile in src/, a Python
        // wrapper beside it.
        let (_d, view) =
            crate::view::test_view(&["src/Makefile", "pympirockstar/pyproject.toml", "README.md"]);
        let mut found = detect(&view);
        assert_eq!(
            choose_primary(&mut found, None, 0),
            Some(BuildSystemKind::Makefile)
        );
        let note = |kind| &found.iter().find(|s| s.kind == kind).unwrap().note;
        assert_eq!(
            note(BuildSystemKind::Python),
            "secondary: makefile takes precedence at the same depth"
        );
        // Without a source directory the kinds' own order still decides.
        let (_d, view) = crate::view::test_view(&["tools/Makefile", "bindings/pyproject.toml"]);
        let mut found = detect(&view);
        assert_eq!(
            choose_primary(&mut found, None, 0),
            Some(BuildSystemKind::Python)
        );
    }
}
