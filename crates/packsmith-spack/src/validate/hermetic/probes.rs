//! What Autotools' configure found, as its `checking …` lines say: a
//! library probed (`checking for library containing gzopen... -lz`,
//! `checking for gzopen in -lz... yes`) or a header of one library
//! (`checking for zlib.h... yes`). A header or library the build only
//! probes leaves nothing in the installed ELF files (a `HAVE_ZLIB_H`
//! define, a static link), so these lines are the evidence. The names are
//! judged like Meson's: what the DAG does not hold came from the host.

use packsmith_core::headers::library_of_header;
use packsmith_spack_knowledge::mapping::NameSource;

use super::{Evidence, EvidenceSource, Observation};

/// The library a `checking …` line says configure found, if it found one.
fn probed_library(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("checking ")?;
    let (question, answer) = rest.rsplit_once("... ")?;
    let answer = answer.trim();
    let answer = answer.strip_prefix("(cached) ").unwrap_or(answer);
    // `checking for library containing gzopen... -lz`
    if question.starts_with("for library containing ") {
        let lib = answer.strip_prefix("-l")?;
        return (!lib.is_empty() && !lib.contains(' ')).then(|| lib.to_string());
    }
    if !answer.starts_with("yes") {
        return None;
    }
    // `checking for gzopen in -lz... yes`
    if let Some((_, lib)) = question.rsplit_once(" in -l") {
        return (!lib.is_empty() && !lib.contains(' ')).then(|| lib.to_string());
    }
    // `checking for zlib.h... yes`, `checking zlib.h usability... yes`
    let header = question
        .strip_prefix("for ")
        .or_else(|| question.strip_suffix(" usability"))
        .or_else(|| question.strip_suffix(" presence"))?;
    library_of_header(header.trim()).map(str::to_string)
}

/// Every library configure's `checking …` lines say it found, once each.
pub fn autotools_probes(text: &str, file: &str) -> Vec<Observation> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(lib) = probed_library(line) else {
            continue;
        };
        if seen.contains(&lib) {
            continue;
        }
        seen.push(lib.clone());
        out.push(Observation {
            upstream: Some(lib),
            lookup: NameSource::Library,
            path: String::new(),
            evidence: Evidence {
                source: EvidenceSource::ConfigureProbe,
                file: file.to_string(),
                entry: line.trim().to_string(),
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Configure output written for this test: a library found by search
    /// and by name, a header one library owns, headers and functions of the
    /// C library, and probes that found nothing.
    const CONFIGURE: &str = "\
checking for gcc... /spack/lib/spack/env/gcc/gcc
checking whether the C compiler works... yes
checking for library containing gzopen... -lz
checking for library containing clock_gettime... none required
checking for BZ2_bzopen in -lbz2... yes
checking for lzma_code in -llzma... no
checking for stdlib.h... yes
checking zlib.h usability... yes
checking zlib.h presence... yes
checking for zlib.h... yes
checking for hdf5.h... no
checking for library containing gzopen... (cached) -lz
";

    #[test]
    fn found_libraries_and_owned_headers_are_observations_by_name() {
        let obs = autotools_probes(CONFIGURE, ".spack/spack-build-out.txt");
        let got: Vec<&str> = obs.iter().map(|o| o.upstream.as_deref().unwrap()).collect();
        assert_eq!(got, ["z", "bz2"]);
        assert!(obs.iter().all(|o| o.path.is_empty()));
        assert_eq!(
            obs[0].evidence.entry,
            "checking for library containing gzopen... -lz"
        );
        assert_eq!(obs[0].evidence.source, EvidenceSource::ConfigureProbe);
    }

    #[test]
    fn a_header_probe_alone_names_its_library() {
        let obs = autotools_probes("checking for zlib.h... yes\n", "config.log");
        assert_eq!(obs.len(), 1);
        assert_eq!(obs[0].upstream.as_deref(), Some("z"));
        assert_eq!(obs[0].lookup, NameSource::Library);
    }

    #[test]
    fn probes_that_found_nothing_or_the_c_library_are_no_observation() {
        let text = "checking for lzma_code in -llzma... no\n\
                    checking for library containing dlopen... none required\n\
                    checking for stdio.h... yes\n\
                    checking for hdf5.h... no\n";
        assert!(autotools_probes(text, "x").is_empty());
    }
}
