//! The source lines a build failure names, as `file line N: `code``, for
//! the edit repair's `filter_file`: the lines a compiler error points at,
//! the build-file lines that run a program the shell could not find (in the
//! directory make was in), and the line of a Python project's metadata
//! that its build backend refused (the backend quotes the value, not the
//! file), and the CMake lines that install a source path the source
//! lacks. The model fills the edit; these say where.

use std::fmt;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::source_walk::walk_files;
use crate::diagnose::{install_missing_sources, program_not_found};

/// Most lines listed.
const MAX: usize = 3;

/// The files a Python build backend reads the project's metadata from.
const METADATA_FILES: [&str; 3] = ["pyproject.toml", "setup.cfg", "setup.py"];

/// Most entries of a source tree read for the CMake files that name a
/// path: a huge tree is not searched to its end.
const MAX_ENTRIES: usize = 20_000;

/// A value shorter than this matches too many lines to point at one.
const MIN_VALUE: usize = 6;

/// The build files make reads in a directory, the one it reads first: a
/// source with its `configure` makes `Makefile` from `Makefile.in`, and
/// `Makefile.am` matters only when automake runs again (no `configure`,
/// or a recipe that forces autoreconf).
const MAKEFILES: [&str; 4] = ["Makefile.in", "Makefile.am", "Makefile", "GNUmakefile"];
const MAKEFILES_AUTORECONF: [&str; 4] = ["Makefile.am", "Makefile.in", "Makefile", "GNUmakefile"];

/// One source line a failure names: its file (relative to the source
/// tree, as `filter_file` takes it), number and text when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorLine {
    pub file: String,
    pub line: usize,
    pub code: Option<String>,
    /// The part of the line at fault, when it is less than the line: the
    /// value a build backend refused.
    pub subject: Option<String>,
    /// The text an edit of the line replaces, when less than the line: a
    /// path in a statement that goes on past it, where rewriting the whole
    /// line invites a bracket that ends the statement early.
    pub target: Option<String>,
}

impl ErrorLine {
    fn new(file: &str, line: usize, code: Option<&str>) -> Self {
        Self {
            file: file.to_string(),
            line,
            code: code.map(|c| c.trim().to_string()).filter(|c| !c.is_empty()),
            subject: None,
            target: None,
        }
    }
}

impl fmt::Display for ErrorLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.code {
            Some(code) => write!(f, "{} line {}: `{code}`", self.file, self.line),
            None => write!(f, "{} line {}", self.file, self.line),
        }
    }
}

/// The lines `excerpt`'s errors name: compiler errors first, then the
/// build-file lines of `source` that run a program not found, then the
/// metadata lines holding a value a backend refused. `autoreconf`: the
/// recipe regenerates the Autotools files (`force_autoreconf`), so a
/// `Makefile.am` is what counts.
pub fn named(excerpt: &str, source: Option<&Path>, autoreconf: bool) -> Vec<ErrorLine> {
    let mut out = compiler_lines(excerpt);
    if let Some(root) = source {
        let mut more = tool_lines(excerpt, root, autoreconf);
        more.extend(metadata_lines(excerpt, root));
        more.extend(install_lines(excerpt, root));
        for line in more {
            if out.len() == MAX {
                break;
            }
            out.push(line);
        }
    }
    out
}

/// The lines compiler errors name (the file relative to the source tree,
/// read from `…/spack-src/<file>:<line>:<col>: error:`, and the code line
/// the compiler quotes).
fn compiler_lines(excerpt: &str) -> Vec<ErrorLine> {
    static AT: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"/spack-src/([^:\s]+):(\d+):(?:\d+:)? (?:fatal )?error:").ok()
    });
    let Some(at) = AT.as_ref() else {
        return Vec::new();
    };
    let lines: Vec<&str> = excerpt.lines().collect();
    let mut out: Vec<ErrorLine> = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(c) = at.captures(line) else { continue };
        let (file, number) = (&c[1], &c[2]);
        let place = (file.to_string(), number.to_string());
        if seen.contains(&place) {
            continue;
        }
        seen.push(place);
        let quoted = lines[i + 1..].iter().take(3).find_map(|l| {
            let (n, code) = l.trim_start().split_once(" | ")?;
            (n.trim() == number).then(|| code.trim().to_string())
        });
        out.push(ErrorLine::new(
            file,
            number.parse().unwrap_or(0),
            quoted.as_deref(),
        ));
        if out.len() == MAX {
            break;
        }
    }
    out
}

/// The lines of the makefiles in the directory make was in that run the
/// program the shell reported `command not found` for.
fn tool_lines(excerpt: &str, root: &Path, autoreconf: bool) -> Vec<ErrorLine> {
    static ENTERING: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"Entering directory '.*?/spack-src/?([^']*)'").ok());
    let Some(entering) = ENTERING.as_ref() else {
        return Vec::new();
    };
    // Each `not found` with the directory make was in; the excerpt may
    // repeat the error above the log's lines as its summary, before any.
    let mut dir = String::new();
    let mut found: Vec<(String, String)> = Vec::new();
    for line in excerpt.lines() {
        if let Some(c) = entering.captures(line) {
            dir = c[1].trim_end_matches('/').to_string();
        } else if let Some(program) = program_not_found(line.trim()) {
            found.push((dir.clone(), program.to_string()));
        }
    }
    let Some((dir, program)) = found
        .iter()
        .rev()
        .find(|(d, _)| !d.is_empty())
        .or(found.first())
        .cloned()
    else {
        return Vec::new();
    };
    let Ok(runs) = Regex::new(&format!(
        r"(?:^|[\s;&|(]){}(?:\s|$)",
        regex::escape(&program)
    )) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Spack runs autoreconf when the recipe forces it or the source has no
    // configure script.
    let regenerates = autoreconf || !root.join("configure").is_file();
    let order = if regenerates {
        MAKEFILES_AUTORECONF
    } else {
        MAKEFILES
    };
    for file in order {
        let relative = if dir.is_empty() {
            file.to_string()
        } else {
            format!("{dir}/{file}")
        };
        // Automake writes a Makefile.in again from its Makefile.am when
        // autoreconf runs: an edit there is lost.
        let regenerated = regenerates
            && file == "Makefile.in"
            && root.join(&relative).with_file_name("Makefile.am").is_file();
        if regenerated {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(&relative)) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if runs.is_match(line) && !line.trim_start().starts_with('#') {
                out.push(ErrorLine::new(&relative, i + 1, Some(line)));
            }
        }
    }
    out
}

/// The value an exception or `error:` line ends with: `ValueError:
/// Unknown classifier in field `project.classifiers`: Programming
/// Language :: Python :: 3.13` → `Programming Language :: Python :: 3.13`.
fn refused_values(excerpt: &str) -> Vec<&str> {
    static CAUSE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"^(?:[A-Za-z_][\w.]*(?:Error|Exception)|error): .*?: (\S.*)$").ok()
    });
    let Some(cause) = CAUSE.as_ref() else {
        return Vec::new();
    };
    excerpt
        .lines()
        .filter_map(|l| cause.captures(l.trim()).and_then(|c| c.get(1)))
        .map(|m| {
            m.as_str()
                .trim()
                .trim_end_matches('.')
                .trim_matches(['\'', '"', '`'])
        })
        .filter(|v| v.len() >= MIN_VALUE)
        .collect()
}

/// The lines of the project's top-level metadata files that hold a
/// refused value.
fn metadata_lines(excerpt: &str, root: &Path) -> Vec<ErrorLine> {
    let values = refused_values(excerpt);
    if values.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for file in METADATA_FILES {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if let Some(value) = values.iter().find(|v| line.contains(*v)) {
                let mut entry = ErrorLine::new(file, i + 1, Some(line));
                entry.subject = Some(value.to_string());
                out.push(entry);
            }
        }
    }
    out
}

/// The lines of the project's CMake files that name a source path its
/// install rules copy and the source lacks (`install(DIRECTORY
/// "${CMAKE_CURRENT_SOURCE_DIR}/cmake/hip"`), written from the source root
/// or from the CMake file's own directory.
fn install_lines(excerpt: &str, root: &Path) -> Vec<ErrorLine> {
    let missing = install_missing_sources(&excerpt.lines().collect::<Vec<_>>());
    if missing.is_empty() {
        return Vec::new();
    }
    // Each line with the first missing path it names: the lines are listed
    // in the error's order of paths, whatever order the walk found them in.
    let mut found: Vec<(usize, ErrorLine)> = Vec::new();
    walk_files(root, MAX_ENTRIES, |path| {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        if name != "CMakeLists.txt" && !name.ends_with(".cmake") {
            return false;
        }
        let (Ok(relative), Ok(text)) = (path.strip_prefix(root), std::fs::read_to_string(path))
        else {
            return false;
        };
        let file = relative.to_string_lossy().replace('\\', "/");
        // A relative path in a CMakeLists.txt is from its own directory; a
        // `.cmake` file runs in the directory of the one including it.
        let dir = match file.rsplit_once('/') {
            Some((d, _)) if name == "CMakeLists.txt" => d,
            _ => "",
        };
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim_start().starts_with('#') {
                continue;
            }
            let named = missing.iter().position(|m| {
                let local = (!dir.is_empty())
                    .then(|| m.strip_prefix(dir)?.strip_prefix('/'))
                    .flatten();
                names_path(line, m, true) || local.is_some_and(|l| names_path(line, l, false))
            });
            if let Some(k) = named {
                // The statement's lines after it, to its closing bracket:
                // what an edit of the one line must leave working.
                let mut open = 0i64;
                for (j, l) in lines.iter().enumerate().skip(i) {
                    if j > i && open <= 0 {
                        break;
                    }
                    open += l.matches('(').count() as i64 - l.matches(')').count() as i64;
                    let mut entry = ErrorLine::new(&file, j + 1, Some(l));
                    if j == i {
                        entry.target = path_argument(l, &missing[k]).filter(|a| {
                            a.len() < l.trim().len() && text.matches(a.as_str()).count() == 1
                        });
                    }
                    found.push((k, entry));
                }
            }
        }
        found.len() >= MAX * missing.len()
    });
    found.sort_by(|(a, x), (b, y)| (a, &x.file, x.line).cmp(&(b, &y.file, y.line)));
    found.into_iter().take(MAX).map(|(_, l)| l).collect()
}

/// The argument of `line` that holds `path` (`"${SRC}/cmake/hip"`, quotes
/// included), when it names the path from the source root.
fn path_argument(line: &str, path: &str) -> Option<String> {
    let (at, _) = line
        .match_indices(path)
        .find(|(at, _)| names_path(&line[*at..], path, true))?;
    let edge = |c: char| c.is_whitespace() || c == '(' || c == ')';
    let start = line[..at].rfind(edge).map_or(0, |i| i + 1);
    let end = line[at..].find(edge).map_or(line.len(), |i| at + i);
    Some(line[start..end].to_string())
}

/// `line` names `path` as a whole argument, or as the end of one when
/// `tail` (`${CMAKE_CURRENT_SOURCE_DIR}/cmake/hip`): never as the start of
/// a longer path (`hip/hip_runtime.h`).
fn names_path(line: &str, path: &str, tail: bool) -> bool {
    let token_end = |c: Option<char>| c.is_none_or(|c| matches!(c, '"' | ')' | ' ' | '\t'));
    line.match_indices(path).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let starts = before.is_none_or(|c| matches!(c, '"' | '(' | ' ' | '\t'))
            || (tail && before == Some('/'));
        let mut after = line[at + path.len()..].chars();
        let first = after.next();
        // `cmake/hip/`: the directory's contents.
        let ends = token_end(first) || (first == Some('/') && token_end(after.next()));
        starts && ends
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(lines: Vec<ErrorLine>) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_source_lines_a_compiler_error_names_are_read() {
        let excerpt = "/stage/spack-stage-clara-1.1.5-x/spack-src/third_party/catch.hpp:7274:45: error: size of array 'altStackMem' is not an integral constant-expression\n 7274 |     char FatalConditionHandler::altStackMem[SIGSTKSZ] = {};\n      |                                             ^~~~~~~~\n/stage/spack-stage-clara-1.1.5-x/spack-src/third_party/catch.hpp:7274:45: error: again\nmake[2]: *** [CMakeFiles/ClaraTests.dir/build.make:79: main.cpp.o] Error 1\n";
        assert_eq!(
            shown(named(excerpt, None, false)),
            ["third_party/catch.hpp line 7274: `char FatalConditionHandler::altStackMem[SIGSTKSZ] = {};`"]
        );
        assert!(named("make: *** [Makefile:69: install] Error 1", None, false).is_empty());
    }

    #[test]
    fn the_makefile_lines_that_run_a_program_not_found_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let generate = dir.path().join("blitz/generate");
        std::fs::create_dir_all(&generate).unwrap();
        std::fs::write(
            generate.join("Makefile.am"),
            "# python here is a comment\nstencil.cc: genstencils.py\n\tpython $< $@\n",
        )
        .unwrap();
        std::fs::write(
            generate.join("Makefile.in"),
            "PYTHONPATH = x\nstencil.cc: genstencils.py\n\tpython $< $@\n",
        )
        .unwrap();
        let excerpt = "/bin/bash: line 1: python: command not found\nmake[4]: Entering directory '{STAGE}/spack-stage-blitz-1.0.2-x/spack-src/blitz/generate'\npython genstencils.py ../../blitz/array/stencil-classes.cc\n/bin/bash: line 1: python: command not found\nmake[4]: *** [Makefile:624: ../../blitz/array/stencil-classes.cc] Error 127\n";
        // Without its configure, autoreconf runs and writes Makefile.in
        // again from Makefile.am: only Makefile.am is named.
        assert_eq!(
            shown(named(excerpt, Some(dir.path()), false)),
            ["blitz/generate/Makefile.am line 3: `python $< $@`"]
        );
        // With its configure, the source's Makefile.in is what make reads.
        std::fs::write(dir.path().join("configure"), "#!/bin/sh\n").unwrap();
        assert_eq!(
            shown(named(excerpt, Some(dir.path()), false))[0],
            "blitz/generate/Makefile.in line 3: `python $< $@`"
        );
        // A recipe that regenerates them: Makefile.am alone again.
        assert_eq!(
            shown(named(excerpt, Some(dir.path()), true)),
            ["blitz/generate/Makefile.am line 3: `python $< $@`"]
        );
        // Without a program not found, nothing is read.
        assert!(named(
            "make[4]: Entering directory '/s/spack-src/blitz/generate'\n",
            Some(dir.path()),
            false
        )
        .is_empty());
    }

    #[test]
    fn the_cmake_lines_that_install_a_missing_source_path_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("cmake")).unwrap();
        std::fs::create_dir_all(dir.path().join("share")).unwrap();
        std::fs::write(
            dir.path().join("cmake/vecmem-packaging.cmake"),
            "# installs cmake/hip\ninstall( DIRECTORY \"${CMAKE_CURRENT_SOURCE_DIR}/cmake/hip\"\n   \"${CMAKE_CURRENT_SOURCE_DIR}/cmake/hipster\"\n   DESTINATION x )\n",
        )
        .unwrap();
        // A file beside it whose paths start with the missing one's last part.
        std::fs::write(
            dir.path().join("cmake/FindHIPToolkit.cmake"),
            "find_path( HIP_INCLUDE_DIR\n   NAMES \"hip/hip_runtime.h\"\n   PATHS \"/opt/rocm/hip\" hip )\n",
        )
        .unwrap();
        // From a subdirectory's CMakeLists, the path is its own.
        std::fs::write(
            dir.path().join("share/CMakeLists.txt"),
            "install(DIRECTORY data DESTINATION share)\n",
        )
        .unwrap();
        let excerpt = "CMake Error at cmake_install.cmake:84 (file):\n  file INSTALL cannot find\n  \"/stage/spack-stage-vecmem-1.23.0-x/spack-src/cmake/hip\":\n  No such file or directory.\n  file INSTALL cannot find \"/stage/spack-src/share/data\"\n";
        assert_eq!(
            shown(named(excerpt, Some(dir.path()), false)),
            [
                "cmake/vecmem-packaging.cmake line 2: `install( DIRECTORY \"${CMAKE_CURRENT_SOURCE_DIR}/cmake/hip\"`",
                "cmake/vecmem-packaging.cmake line 3: `\"${CMAKE_CURRENT_SOURCE_DIR}/cmake/hipster\"`",
                "cmake/vecmem-packaging.cmake line 4: `DESTINATION x )`",
            ]
        );
        // An edit of the first line replaces the path's argument.
        let lines = named(excerpt, Some(dir.path()), false);
        assert_eq!(
            lines[0].target.as_deref(),
            Some("\"${CMAKE_CURRENT_SOURCE_DIR}/cmake/hip\"")
        );
        assert_eq!(lines[1].target, None);
        // A statement on one line is that line alone.
        let share = named(
            "file INSTALL cannot find \"/stage/spack-src/share/data\"",
            Some(dir.path()),
            false,
        );
        assert_eq!(
            shown(share),
            ["share/CMakeLists.txt line 1: `install(DIRECTORY data DESTINATION share)`"]
        );
        // Without the install error, no CMake file is read.
        assert!(named(
            "CMake Error at CMakeLists.txt:3 (find_package):",
            Some(dir.path()),
            false
        )
        .is_empty());
    }

    #[test]
    fn a_value_a_build_backend_refused_is_found_in_the_projects_metadata() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[project]\nname = \"demo\"\nclassifiers = [\n    \"Programming Language :: Python :: 3.12\",\n    \"Programming Language :: Python :: 3.13\",\n]\n",
        )
        .unwrap();
        let excerpt = "    File \"/site/hatchling/metadata/core.py\", line 979, in classifiers\n      raise ValueError(message)\n  ValueError: Unknown classifier in field `project.classifiers`: Programming Language :: Python :: 3.13\n";
        let lines = named(excerpt, Some(dir.path()), false);
        assert_eq!(
            shown(lines.clone()),
            ["pyproject.toml line 5: `\"Programming Language :: Python :: 3.13\",`"]
        );
        // The value at fault, apart from its line.
        assert_eq!(
            lines[0].subject.as_deref(),
            Some("Programming Language :: Python :: 3.13")
        );
        // A value too short to point at one line, or no metadata file.
        assert!(named("  ValueError: bad value: 3.13\n", Some(dir.path()), false).is_empty());
        let empty = tempfile::tempdir().unwrap();
        assert!(named(excerpt, Some(empty.path()), false).is_empty());
    }
}
