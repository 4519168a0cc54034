//! A library file (`libz.so.1`, `libhdf5_serial.so.103`,
//! `libboost_filesystem.so.1.74.0`) → the Spack package or virtual that
//! provides it, for the hermeticity check's findings. The `[library]`
//! section of the curated table does the mapping; this module only turns
//! a file name into the keys to look up.

use super::{map_name, Mapping, MappingKind, NameSource, SpackNames};

/// `libz.so.1` → `z`, `libfoo.a` → `foo`, `ld-linux-x86-64.so.2` →
/// `ld-linux-x86-64`; `None` for a name that is no library file.
pub fn library_stem(file: &str) -> Option<&str> {
    let base = file.rsplit('/').next().unwrap_or(file);
    let stem = match base.find(".so") {
        Some(at) if base[at + 3..].is_empty() || base[at + 3..].starts_with('.') => &base[..at],
        _ => base.strip_suffix(".a")?,
    };
    let stem = stem.strip_prefix("lib").unwrap_or(stem);
    (!stem.is_empty()).then_some(stem)
}

/// The names to try for a stem, longest first: `hdf5_serial_hl` →
/// `hdf5_serial_hl`, `hdf5_serial`, `hdf5`; `python3.11` → `python`;
/// `boost_filesystem` → `boost`.
fn reductions(stem: &str) -> Vec<&str> {
    let mut out = vec![stem];
    let mut cur = stem;
    loop {
        let trimmed = cur.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        let next = if trimmed != cur && !trimmed.is_empty() {
            trimmed
        } else {
            match cur.rfind(['_', '-']) {
                Some(at) if at > 0 => &cur[..at],
                _ => break,
            }
        };
        out.push(next);
        cur = next;
    }
    out
}

/// Whether a stem is the dynamic loader, which is part of the C library.
fn is_loader(stem: &str) -> bool {
    stem.starts_with("ld-linux") || stem == "ld64" || stem.starts_with("ld-musl")
}

/// The Spack package (or virtual) a library file comes from: the curated
/// table for the stem or a shorter form of it, else the knowledge base for
/// the same forms. `kind` is `Compiler` for the C library and the
/// compiler's runtime, `Unmapped` when nothing knows the name.
pub fn map_library_file(file: &str, kb: &dyn SpackNames) -> Option<Mapping> {
    let stem = library_stem(file)?;
    if is_loader(stem) {
        let mut m = map_name("c", NameSource::Library, kb);
        m.upstream = file.to_string();
        return Some(m);
    }
    for key in reductions(stem) {
        let m = map_name(key, NameSource::Library, kb);
        if m.evidence.starts_with("curated table") {
            return Some(Mapping {
                upstream: file.to_string(),
                ..m
            });
        }
    }
    let known = reductions(stem)
        .into_iter()
        .map(|key| map_name(key, NameSource::Library, kb))
        .find(|m| m.kind != MappingKind::Unmapped);
    let m = known.unwrap_or_else(|| map_name(stem, NameSource::Library, kb));
    Some(Mapping {
        upstream: file.to_string(),
        ..m
    })
}

/// Whether the mapping says the file belongs to the compiler or C library.
pub fn is_system_runtime(m: &Mapping) -> bool {
    m.kind == MappingKind::Compiler
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::{Known, NoKnowledge};

    #[test]
    fn stems_of_library_files() {
        assert_eq!(library_stem("libz.so.1"), Some("z"));
        assert_eq!(library_stem("/usr/lib/x86_64-linux-gnu/libz.so"), Some("z"));
        assert_eq!(library_stem("libfoo.a"), Some("foo"));
        assert_eq!(
            library_stem("libboost_filesystem.so.1.74.0"),
            Some("boost_filesystem")
        );
        assert_eq!(library_stem("libsomething.socket"), None);
        assert_eq!(library_stem("zlib.h"), None);
    }

    fn spack(file: &str) -> Option<String> {
        map_library_file(file, &NoKnowledge).and_then(|m| m.spack)
    }

    #[test]
    fn library_files_map_to_spack_packages() {
        assert_eq!(spack("libz.so.1").as_deref(), Some("zlib-api"));
        assert_eq!(
            spack("libboost_filesystem.so.1.74.0").as_deref(),
            Some("boost")
        );
        assert_eq!(spack("libhdf5_serial.so.103").as_deref(), Some("hdf5"));
        assert_eq!(spack("libhdf5_serial_hl.so.100").as_deref(), Some("hdf5"));
        assert_eq!(spack("libmpi_cxx.so.40").as_deref(), Some("mpi"));
        assert_eq!(spack("libmpi.so.40").as_deref(), Some("mpi"));
        assert_eq!(spack("libopenblas.so.0").as_deref(), Some("blas"));
        assert_eq!(spack("libblas.so.3").as_deref(), Some("blas"));
        assert_eq!(spack("libfftw3_omp.so.3").as_deref(), Some("fftw-api"));
        // Single precision, and its threaded build.
        assert_eq!(spack("libfftw3f.so.3").as_deref(), Some("fftw-api"));
        assert_eq!(spack("libfftw3f_threads.so.3").as_deref(), Some("fftw-api"));
        assert_eq!(spack("libpython3.11.so.1.0").as_deref(), Some("python"));
        assert_eq!(spack("libbz2.so.1.0").as_deref(), Some("bzip2"));
    }

    #[test]
    fn the_c_library_and_compiler_runtime_are_no_dependency() {
        for f in [
            "libc.so.6",
            "libm.so.6",
            "libstdc++.so.6",
            "libgcc_s.so.1",
            "libgfortran.so.5",
            "ld-linux-x86-64.so.2",
            "libpthread.so.0",
        ] {
            let m = map_library_file(f, &NoKnowledge).unwrap();
            assert!(is_system_runtime(&m), "{f}: {m:?}");
        }
    }

    struct Kb;
    impl SpackNames for Kb {
        fn lookup(&self, name: &str) -> Known {
            match name {
                "libyaml" => Known::Package,
                _ => Known::Unknown,
            }
        }
    }

    #[test]
    fn unknown_stems_go_to_the_knowledge_base() {
        let m = map_library_file("libyaml-0.so.2", &Kb).unwrap();
        assert_eq!(m.spack.as_deref(), Some("libyaml"), "{m:?}");
        let m = map_library_file("libyaml.so.2", &Kb).unwrap();
        assert_eq!(
            (m.spack.as_deref(), m.kind),
            (Some("libyaml"), MappingKind::Package)
        );
        let m = map_library_file("libnosuch.so", &NoKnowledge).unwrap();
        assert_eq!(m.kind, MappingKind::Unmapped);
    }
}
