//! What the compiler commands a build printed took from the host: a
//! header directory under the host's include tree (`-I/usr/include/eigen3`
//! for a header-only package), a library file named by its path
//! (`/usr/lib/x86_64-linux-gnu/libz.a`; a shared one is left to the ELF
//! reader), and a static archive linked by name (`-Wl,-Bstatic -lz`, `-l:libz.a`). None of these leaves a
//! `DT_NEEDED` entry, and a plain Makefile build writes no other record.
//! Only the lines of a compiler or linker are read; the judge decides
//! what lies outside the DAG.

use std::path::Path;

use packsmith_spack_knowledge::mapping::{library_stem, NameSource};

use super::shipped::{builds_shipped, split_cd};
use super::{Evidence, EvidenceSource, Observation};

/// Programs whose command lines are read (the last path component, a
/// cross prefix such as `x86_64-linux-gnu-` taken off).
const COMPILERS: &[&str] = &[
    "cc",
    "c++",
    "gcc",
    "g++",
    "clang",
    "clang++",
    "gfortran",
    "f77",
    "f90",
    "f95",
    "ld",
    "mpicc",
    "mpicxx",
    "mpic++",
    "mpif90",
    "mpifort",
    "icc",
    "icpc",
    "icx",
    "icpx",
    "ifort",
    "ifx",
    "nvcc",
    "nvc",
    "nvc++",
    "nvfortran",
];

/// Prefixes a build tool puts before the command it runs.
const RUNNER_PREFIXES: &[&str] = &["libtool: link: ", "libtool: compile: "];

/// The include tree whose sub-directories belong to one package each.
const HOST_INCLUDE: &str = "/usr/include/";

/// Sub-directories of the host include tree that belong to the compiler
/// or the C library, not to a package.
const COMPILER_INCLUDE_DIRS: &[&str] = &["c++", "x86_64-linux-gnu", "aarch64-linux-gnu", "linux"];

fn is_compiler(token: &str) -> bool {
    let name = token.rsplit('/').next().unwrap_or(token);
    let name = name.rsplit_once("-linux-gnu-").map_or(name, |(_, n)| n);
    // `gcc-12`, `g++-12`
    let name = name
        .rsplit_once('-')
        .filter(|(_, v)| v.chars().all(|c| c.is_ascii_digit()))
        .map_or(name, |(n, _)| n);
    COMPILERS.contains(&name)
}

/// The words of a compiler command, or `None` for any other line. CMake's
/// verbose Makefiles run a subdirectory's commands as `cd dir && g++ …`.
pub(super) fn compiler_words(line: &str) -> Option<Vec<&str>> {
    let (_, mut l) = split_cd(line);
    for p in RUNNER_PREFIXES {
        if let Some(rest) = l.strip_prefix(p) {
            l = rest.trim_start();
        }
    }
    let words: Vec<&str> = l.split_whitespace().collect();
    is_compiler(words.first()?).then_some(words)
}

/// The static archive `lib<name>.a` the linker takes for `-l<name>` under
/// `-Bstatic`: from a `-L` directory of the line if one holds it (the
/// build's own or a dependency's), else from the host's default
/// directories. `None` when a `-L` directory holds it or no host one does.
fn host_archive(name: &str, search: &[&str], default_dirs: &[&str]) -> Option<String> {
    let file = format!("lib{name}.a");
    if search.iter().any(|d| Path::new(d).join(&file).is_file()) {
        return None;
    }
    default_dirs
        .iter()
        .map(|d| Path::new(d).join(&file))
        .find(|p| p.is_file())
        .map(|p| p.to_string_lossy().into_owned())
}

/// The library name of a file (`/usr/lib/…/libz.a` → `z`): the
/// knowledge crate's reading of library file names, for `lib` files only.
fn library_name(path: &str) -> Option<&str> {
    let file = path.rsplit('/').next()?;
    file.starts_with("lib")
        .then(|| library_stem(file))
        .flatten()
}

/// What one compiler command took from the host: `(upstream, lookup,
/// path)` per use.
fn command_uses(words: &[&str], default_dirs: &[&str]) -> Vec<(String, NameSource, String)> {
    let search: Vec<&str> = words.iter().filter_map(|w| w.strip_prefix("-L")).collect();
    let mut uses = Vec::new();
    let mut is_static = false;
    let mut words = words.iter().skip(1).peekable();
    while let Some(&w) = words.next() {
        let include = match w {
            "-I" | "-isystem" => words.next().copied(),
            _ => w.strip_prefix("-I").or_else(|| w.strip_prefix("-isystem")),
        };
        if let Some(dir) = include {
            let sub = dir.strip_prefix(HOST_INCLUDE).unwrap_or("");
            let first = sub.split('/').next().unwrap_or("");
            if !first.is_empty() && !COMPILER_INCLUDE_DIRS.contains(&first) {
                uses.push((first.to_string(), NameSource::Pkgconfig, dir.to_string()));
            }
            continue;
        }
        for flag in w
            .strip_prefix("-Wl,")
            .map_or(vec![w], |f| f.split(',').collect())
        {
            match flag {
                "-Bstatic" | "-static" => is_static = true,
                "-Bdynamic" => is_static = false,
                _ => {}
            }
        }
        let by_name = match w.strip_prefix("-l:") {
            Some(file) => library_name(file),
            None => w.strip_prefix("-l").filter(|_| is_static),
        };
        if let Some(name) = by_name.filter(|n| !n.is_empty()) {
            if let Some(path) = host_archive(name, &search, default_dirs) {
                uses.push((name.to_string(), NameSource::Library, path));
            }
            continue;
        }
        // A shared library on a link line is the ELF reader's to judge (with
        // what an external's own link interface brings); an archive leaves
        // no other trace.
        if w.starts_with('/') && w.ends_with(".a") {
            if let Some(name) = library_name(w) {
                uses.push((name.to_string(), NameSource::Library, w.to_string()));
            }
        }
    }
    uses
}

/// Every host header directory and library file the compiler commands of
/// a build log name, once each, with the first command of a shipped part
/// that used it (else the first command: `shipped.rs`). `default_dirs`
/// are the linker's own directories, where `-Bstatic -l<name>` finds an
/// archive.
pub fn compiler_commands(text: &str, file: &str, default_dirs: &[&str]) -> Vec<Observation> {
    let mut out: Vec<Observation> = Vec::new();
    // Whether each observation's evidence is a shipped part's command.
    let mut shipped: Vec<bool> = Vec::new();
    for line in text.lines() {
        let Some(words) = compiler_words(line) else {
            continue;
        };
        let line_ships = std::cell::OnceCell::new();
        let ships = || *line_ships.get_or_init(|| builds_shipped(line));
        for (upstream, lookup, path) in command_uses(&words, default_dirs) {
            if let Some(at) = out.iter().position(|o| o.path == path) {
                if !shipped[at] && ships() {
                    out[at].evidence.entry = line.trim().to_string();
                    shipped[at] = true;
                }
                continue;
            }
            shipped.push(ships());
            out.push(Observation {
                upstream: Some(upstream),
                lookup,
                path,
                evidence: Evidence {
                    source: EvidenceSource::BuildCommand,
                    file: file.to_string(),
                    entry: line.trim().to_string(),
                },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn got(obs: &[Observation]) -> Vec<(&str, &str)> {
        obs.iter()
            .map(|o| (o.upstream.as_deref().unwrap(), o.path.as_str()))
            .collect()
    }

    #[test]
    fn host_include_directories_and_library_files_are_observations() {
        let log = "\
==> leak: Executing phase: 'build'
make -j2
g++ -I/usr/include/eigen3 -O2 -o leak leak.cpp
gcc -o tool tool.c /usr/lib/x86_64-linux-gnu/libbz2.a /usr/lib/x86_64-linux-gnu/libcurl.so -lm
cc -I/usr/include -I/usr/include/x86_64-linux-gnu -I/usr/include/c++/12 -o x x.c
echo -I/usr/include/hidden
";
        let obs = compiler_commands(log, "spack-build-out.txt", &[]);
        assert_eq!(
            got(&obs),
            [
                ("eigen3", "/usr/include/eigen3"),
                ("bz2", "/usr/lib/x86_64-linux-gnu/libbz2.a"),
            ]
        );
        assert_eq!(obs[0].lookup, NameSource::Pkgconfig);
        assert_eq!(obs[1].lookup, NameSource::Library);
        assert_eq!(obs[0].evidence.source, EvidenceSource::BuildCommand);
        assert_eq!(
            obs[0].evidence.entry,
            "g++ -I/usr/include/eigen3 -O2 -o leak leak.cpp"
        );
    }

    #[test]
    fn a_static_link_by_name_is_the_host_archive_unless_a_search_directory_holds_it() {
        let host = tempfile::tempdir().unwrap();
        let own = tempfile::tempdir().unwrap();
        std::fs::write(host.path().join("libz.a"), b"!<arch>\n").unwrap();
        std::fs::write(host.path().join("libfoo.a"), b"!<arch>\n").unwrap();
        std::fs::write(own.path().join("libfoo.a"), b"!<arch>\n").unwrap();
        let dirs = [host.path().to_str().unwrap()];
        let log = format!(
            "libtool: link: gcc -o leak leak.o -L{} -Wl,-Bstatic -lz -lfoo -Wl,-Bdynamic -lm\n\
             x86_64-linux-gnu-gcc-12 -o b b.o -l:libz.a\n\
             gcc -o c c.o -lz\n",
            own.path().display()
        );
        let obs = compiler_commands(&log, "log", &dirs);
        let archive = host.path().join("libz.a").display().to_string();
        // `-lfoo` is the build's own archive, `-lm` and the plain `-lz` are
        // dynamic (the ELF check sees them); `-l:libz.a` is the same path.
        assert_eq!(got(&obs), [("z", archive.as_str())]);
    }

    #[test]
    fn a_subdirectory_command_is_read_and_a_shipped_use_is_the_evidence_kept() {
        let log = "\
cd /s/spack-build-x/examples && /env/gcc/g++ -I/usr/include/eigen3 -o CMakeFiles/e.dir/e.cpp.o -c /s/spack-src/examples/e.cpp
cd /s/spack-build-x/src && /env/gcc/g++ -I/usr/include/eigen3 -o CMakeFiles/lib.dir/l.cpp.o -c /s/spack-src/src/l.cpp
";
        let obs = compiler_commands(log, "log", &[]);
        assert_eq!(got(&obs), [("eigen3", "/usr/include/eigen3")]);
        assert!(obs[0].evidence.entry.contains("spack-src/src/l.cpp"));
        // Used by examples alone, the example's command is the evidence.
        let first = log.lines().next().unwrap();
        let obs = compiler_commands(first, "log", &[]);
        assert_eq!(obs[0].evidence.entry, first);
    }

    #[test]
    fn lines_of_other_programs_are_not_read() {
        let log = "checking for gcc... gcc\n\
                   /usr/bin/install -c leak /usr/include/eigen3/x\n\
                   make: Entering directory '/usr/include/eigen3'\n";
        assert!(compiler_commands(log, "log", &[]).is_empty());
    }
}
