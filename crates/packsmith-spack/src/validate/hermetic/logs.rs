//! What a build's own records say it took: CMake's configure output
//! (`-- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so (found version …)`)
//! and the paths CMake cached (`ZLIB_LIBRARY_RELEASE:FILEPATH=/usr/…`,
//! `Boost_DIR:PATH=/usr/lib/…/cmake/Boost-1.74.0`). Every absolute path
//! is reported with the CMake package it belongs to; which of them lie
//! outside the DAG is decided by the caller. Meson's output names what it
//! found without a path (`Run-time dependency zlib found: YES 1.2.13`,
//! `Library m found: YES`): those are reported by name.

use packsmith_spack_knowledge::mapping::NameSource;

use super::{Evidence, EvidenceSource, Observation};

/// The upstream name and the first absolute path of a `-- Found X: …`
/// line; `None` for lines without a path (`Found Threads: TRUE`,
/// `Found OpenMP_C: -fopenmp`).
fn found_line(line: &str) -> Option<(String, String)> {
    let rest = line.trim_start().strip_prefix("-- Found ")?;
    let (name, value) = rest.split_once(": ")?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    // `MPI_C` and `Python3` name the package with a component or version.
    let path = value
        .split([' ', ';'])
        .find(|t| t.starts_with('/'))?
        .trim_end_matches([',', ')']);
    Some((name.to_string(), path.to_string()))
}

/// The package part of a per-language result (`MPI_C` → `MPI`).
fn package_of_found(name: &str) -> &str {
    for suffix in ["_C", "_CXX", "_Fortran"] {
        if let Some(base) = name.strip_suffix(suffix) {
            if !base.is_empty() {
                return base;
            }
        }
    }
    name
}

/// Every `-- Found X: /path` of a configure output.
pub fn configure_output(text: &str, file: &str) -> Vec<Observation> {
    text.lines()
        .filter_map(|line| {
            let (name, path) = found_line(line)?;
            Some(Observation {
                upstream: Some(package_of_found(&name).to_string()),
                lookup: NameSource::Cmake,
                path,
                evidence: Evidence {
                    source: EvidenceSource::ConfigureOutput,
                    file: file.to_string(),
                    entry: line.trim().to_string(),
                },
            })
        })
        .collect()
}

/// Cache-key endings that hold what `find_package`/`find_library` found.
const CACHE_SUFFIXES: &[&str] = &[
    "_LIBRARY_RELEASE",
    "_LIBRARY_DEBUG",
    "_LIBRARIES",
    "_LIBRARY",
    "_INCLUDE_DIRS",
    "_INCLUDE_DIR",
    "_EXECUTABLE",
    "_DIR",
];

/// `ZLIB_LIBRARY_RELEASE` → `ZLIB`; `None` for CMake's own keys and keys
/// without a known ending.
fn cache_package(key: &str) -> Option<&str> {
    if key.starts_with("CMAKE_") || key.starts_with("_") {
        return None;
    }
    CACHE_SUFFIXES
        .iter()
        .find_map(|s| key.strip_suffix(s))
        .filter(|p| !p.is_empty())
}

/// Every path-valued entry of a `CMakeCache.txt` that a find call set.
pub fn cmake_cache(text: &str, file: &str) -> Vec<Observation> {
    text.lines()
        .filter(|l| !l.starts_with("//") && !l.starts_with('#'))
        .filter_map(|line| {
            let (key_type, value) = line.split_once('=')?;
            let (key, kind) = key_type.split_once(':')?;
            if !matches!(kind, "FILEPATH" | "PATH" | "STRING") {
                return None;
            }
            let package = cache_package(key)?;
            let path = value.split(';').find(|p| p.starts_with('/'))?;
            if path.ends_with("-NOTFOUND") {
                return None;
            }
            Some(Observation {
                upstream: Some(package.to_string()),
                lookup: NameSource::Cmake,
                path: path.to_string(),
                evidence: Evidence {
                    source: EvidenceSource::CmakeCache,
                    file: file.to_string(),
                    entry: line.trim().to_string(),
                },
            })
        })
        .collect()
}

/// Meson's `Run-time dependency X found: YES …` (a pkg-config or CMake
/// lookup) and `Library X found: YES` (`find_library`) lines. A
/// dependency from a subproject or a fallback is the project's own and
/// says `from subproject`; `found: NO` took nothing.
pub fn meson_output(text: &str, file: &str) -> Vec<Observation> {
    text.lines()
        .filter_map(|line| {
            let l = line.trim();
            let (lookup, rest) = if let Some(r) = l
                .strip_prefix("Run-time dependency ")
                .or_else(|| l.strip_prefix("Build-time dependency "))
                .or_else(|| l.strip_prefix("Dependency "))
            {
                (NameSource::Pkgconfig, r)
            } else {
                (NameSource::Library, l.strip_prefix("Library ")?)
            };
            let (name, result) = rest.split_once(" found: ")?;
            if !result.starts_with("YES") || name.contains(' ') || name.is_empty() {
                return None;
            }
            Some(Observation {
                upstream: Some(name.to_string()),
                lookup,
                path: String::new(),
                evidence: Evidence {
                    source: EvidenceSource::ConfigureOutput,
                    file: file.to_string(),
                    entry: l.to_string(),
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Configure output of a CMake project as Spack logs it, written for
    /// this test (a zlib found on the host, Threads and OpenMP without a
    /// path, an MPI found per language, a package config directory).
    const CONFIGURE: &str = "\
==> demo: Executing phase: 'cmake'
-- The C compiler identification is GNU 12.2.0
-- Check for working C compiler: /spack/lib/spack/env/gcc/gcc - skipped
-- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so (found version \"1.2.13\")
-- Looking for pthread.h - found
-- Found Threads: TRUE
-- Found OpenMP_C: -fopenmp (found version \"4.5\")
-- Found MPI_C: /usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi.so (found version \"3.1\")
-- Found HDF5: /opt/s/linux/gcc-12.2.0/hdf5-1.14.3-aaaa/lib/libhdf5.so;/usr/lib/x86_64-linux-gnu/libz.so (found version \"1.14.3\")
-- Configuring done
";

    #[test]
    fn found_lines_with_paths_are_observations() {
        let obs = configure_output(CONFIGURE, "spack-build-out.txt");
        let got: Vec<(&str, &str)> = obs
            .iter()
            .map(|o| (o.upstream.as_deref().unwrap(), o.path.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("ZLIB", "/usr/lib/x86_64-linux-gnu/libz.so"),
                ("MPI", "/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi.so"),
                (
                    "HDF5",
                    "/opt/s/linux/gcc-12.2.0/hdf5-1.14.3-aaaa/lib/libhdf5.so"
                ),
            ]
        );
        assert_eq!(
            obs[0].evidence.entry,
            "-- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so (found version \"1.2.13\")"
        );
        assert_eq!(obs[0].evidence.source, EvidenceSource::ConfigureOutput);
    }

    #[test]
    fn meson_names_what_it_found() {
        let out = "\
The Meson build system
Run-time dependency zlib found: YES 1.2.13
Run-time dependency libzstd found: NO (tried pkgconfig and cmake)
Dependency fmt from subproject subprojects/fmt found: YES 10.2.1
Library m found: YES
Build-time dependency bison found: YES
";
        let obs = meson_output(out, "spack-build-out.txt");
        let got: Vec<(&str, NameSource)> = obs
            .iter()
            .map(|o| (o.upstream.as_deref().unwrap(), o.lookup))
            .collect();
        assert_eq!(
            got,
            [
                ("zlib", NameSource::Pkgconfig),
                ("m", NameSource::Library),
                ("bison", NameSource::Pkgconfig)
            ]
        );
        assert!(obs.iter().all(|o| o.path.is_empty()));
        assert_eq!(
            obs[0].evidence.entry,
            "Run-time dependency zlib found: YES 1.2.13"
        );
    }

    #[test]
    fn cache_entries_set_by_find_calls_are_observations() {
        let cache = "\
# This is the CMakeCache file.
//Path to a library.
ZLIB_LIBRARY_RELEASE:FILEPATH=/usr/lib/x86_64-linux-gnu/libz.so
ZLIB_LIBRARY_DEBUG:FILEPATH=ZLIB_LIBRARY_DEBUG-NOTFOUND
ZLIB_INCLUDE_DIR:PATH=/usr/include
Boost_DIR:PATH=/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0
CMAKE_INSTALL_PREFIX:PATH=/opt/s/demo-1.0-abc
CMAKE_C_COMPILER:FILEPATH=/spack/lib/spack/env/gcc/gcc
GTest_DIR:PATH=GTest_DIR-NOTFOUND
DEMO_ENABLE_X:BOOL=ON
";
        let obs = cmake_cache(cache, "CMakeCache.txt");
        let got: Vec<(&str, &str)> = obs
            .iter()
            .map(|o| (o.upstream.as_deref().unwrap(), o.path.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("ZLIB", "/usr/lib/x86_64-linux-gnu/libz.so"),
                ("ZLIB", "/usr/include"),
                ("Boost", "/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0"),
            ]
        );
        assert_eq!(obs[1].evidence.source, EvidenceSource::CmakeCache);
    }
}
