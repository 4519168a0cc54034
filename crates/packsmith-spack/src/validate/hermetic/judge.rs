//! Judging what the build used: a host path (`/usr`, `/lib*`, `/bin`)
//! that is no prefix Spack built is mapped to the Spack package that
//! provides it (library file, or the name the build looked it up by) and
//! kept unless it is the compiler's or the C library's, the build
//! environment's, or the DAG holds it (by name, virtual or fallback: a
//! declared external at `/usr`).

use std::collections::BTreeMap;

use packsmith_spack_knowledge::mapping::{
    fallbacks_of, is_system_runtime, library_stem, map_library_file, map_name, Mapping,
    MappingKind, NameSource, SpackNames,
};

use super::{Dag, EvidenceSource, Observation, UndeclaredDependency};

/// Top-level directories of the host system: a path under one of these
/// that is no Spack prefix came from the host.
const HOST_ROOTS: &[&str] = &[
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin",
];

/// Tools of the build environment that no recipe declares: the build
/// takes nothing from them into the package.
const BUILD_ENVIRONMENT: &[&str] = &["git", "pkgconfig", "pkg-config", "pkgconf"];

fn is_host_path(path: &str) -> bool {
    HOST_ROOTS
        .iter()
        .any(|root| path == *root || path.starts_with(&format!("{root}/")))
}

/// Segments of a cache key between the package and the key's ending:
/// languages and parts (`MPI_C_HEADER_DIR`, `HDF5_HL_INCLUDE_DIR`).
const KEY_PARTS: &[&str] = &["C", "CXX", "Fortran", "HEADER", "HL", "ADDITIONAL_INCLUDE"];

/// A CMake name as logs and caches spell it (`MPI_C_HEADER` from
/// `MPI_C_HEADER_DIR`, `MPI_mpi_cxx` from `MPI_mpi_cxx_LIBRARY`): with
/// language, part and lower-case component segments taken off the end
/// until the table or the knowledge base knows it (`MPI`), else the
/// mapping of the whole. Other segments stay (`CLANG_FORMAT` is no Clang).
fn map_upstream(upstream: &str, kb: &dyn SpackNames) -> Mapping {
    let mut name = upstream;
    loop {
        let m = map_name(name, NameSource::Cmake, kb);
        if m.kind != MappingKind::Unmapped {
            return m;
        }
        let shorter = KEY_PARTS
            .iter()
            .find_map(|p| name.strip_suffix(p)?.strip_suffix('_'))
            .or_else(|| {
                let (head, last) = name.rsplit_once('_')?;
                // Components may hold dashes and pluses (`open-pal`, `mpi++`).
                last.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-+".contains(c))
                    .then_some(head)
            })
            .filter(|s| !s.is_empty());
        match shorter {
            Some(s) => name = s,
            None => return map_name(upstream, NameSource::Cmake, kb),
        }
    }
}

/// The Spack name a host path stands for, and the names under which the
/// DAG would hold it. `None` for the compiler, the C library and the
/// build environment (nothing to declare).
fn owner(obs: &Observation, kb: &dyn SpackNames) -> Option<(Option<String>, Vec<String>)> {
    let file = obs.path.rsplit('/').next().unwrap_or(&obs.path);
    let by_file = library_stem(file).and_then(|_| map_library_file(file, kb));
    if by_file.as_ref().is_some_and(is_system_runtime) {
        return None;
    }
    let by_upstream = obs.upstream.as_deref().map(|u| match obs.lookup {
        NameSource::Cmake => map_upstream(u, kb),
        // Meson names its special lookups (threads, openmp, dl) like
        // CMake's modules or plain libraries.
        other => [other, NameSource::Cmake, NameSource::Library]
            .into_iter()
            .map(|s| map_name(u, s, kb))
            .find(|m| m.kind != MappingKind::Unmapped)
            .unwrap_or_else(|| map_name(u, other, kb)),
    });
    if by_upstream
        .as_ref()
        .is_some_and(|m| matches!(m.kind, MappingKind::Compiler | MappingKind::None))
    {
        return None;
    }
    // A curated or known mapping wins over a guess.
    let mapping = [by_file, by_upstream]
        .into_iter()
        .flatten()
        .filter(|m| m.spack.is_some())
        .min_by_key(|m| u8::from(m.kind == MappingKind::Unmapped));
    // A cache entry of a name nobody knows that is no library
    // (`FOO_HEADER_DIR:PATH=/usr/include`) says too little to act on;
    // a library taken is seen in the ELF files anyway.
    let unknown = mapping
        .as_ref()
        .is_none_or(|m| m.kind == MappingKind::Unmapped);
    if unknown && obs.evidence.source == EvidenceSource::CmakeCache && library_stem(file).is_none()
    {
        return None;
    }
    // Likewise a configure probe or an include directory of a name nobody
    // knows (`-lnsl`, `-I/usr/include/tirpc` of an unmapped name): a library
    // linked is in the ELF files, a static archive keeps its file name.
    let weak = matches!(
        obs.evidence.source,
        EvidenceSource::ConfigureProbe | EvidenceSource::BuildCommand
    );
    if unknown && weak && library_stem(file).is_none() {
        return None;
    }
    // A guess the knowledge base does not confirm is no Spack package.
    let spack = if unknown && kb.knows_names() {
        None
    } else {
        mapping.as_ref().and_then(|m| m.spack.clone())
    };
    let mut aliases: Vec<String> = spack.iter().cloned().collect();
    if let Some(s) = &spack {
        aliases.extend(fallbacks_of(s));
    }
    if let Some(stem) = library_stem(file) {
        aliases.push(stem.to_string());
        aliases.push(format!("lib{stem}"));
    }
    if let Some(u) = &obs.upstream {
        aliases.push(u.to_ascii_lowercase());
    }
    if aliases
        .iter()
        .any(|a| BUILD_ENVIRONMENT.contains(&a.as_str()))
    {
        return None;
    }
    Some((spack, aliases))
}

/// What the judge makes of one observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Not from the host, or nothing to declare (the compiler, the C
    /// library, the build environment, a cache entry that says too little).
    Fine,
    /// From the host, and the DAG holds it under this name (`mpi`).
    InDag(String),
    /// From the host and outside the DAG: the Spack package that would
    /// provide it, when one is known.
    Undeclared(Option<String>),
}

/// Judges one observation against the DAG.
pub(super) fn verdict(obs: &Observation, dag: &Dag, kb: &dyn SpackNames) -> Verdict {
    let named_only = obs.path.is_empty() && obs.upstream.is_some();
    let dag_path = dag.built_path(&obs.path) || dag.in_own_external(&obs.path);
    if !named_only && (!is_host_path(&obs.path) || dag_path) {
        return Verdict::Fine;
    }
    let Some((package, aliases)) = owner(obs, kb) else {
        return Verdict::Fine;
    };
    // A declared external at /usr is part of the DAG; declared for the
    // build only, an installed file that needs it took the host's copy.
    let in_dag: Vec<String> = aliases.into_iter().filter(|a| dag.has(a)).collect();
    let linked = obs.evidence.source == EvidenceSource::Elf;
    match in_dag
        .iter()
        .find(|a| !linked || !dag.build_only.contains(*a))
    {
        Some(name) => Verdict::InDag(name.clone()),
        None if in_dag.is_empty() => Verdict::Undeclared(package),
        None => Verdict::Undeclared(package.or_else(|| in_dag.first().cloned())),
    }
}

/// The DAG name the lookup name of a log entry stands for (`MPI` of
/// `MPI_event_core_LIBRARY` → `mpi`), whatever the path it found.
pub(super) fn lookup_in_dag(obs: &Observation, dag: &Dag, kb: &dyn SpackNames) -> Option<String> {
    let by_name = Observation {
        path: String::new(),
        ..obs.clone()
    };
    match verdict(&by_name, dag, kb) {
        Verdict::InDag(name) => Some(name),
        _ => None,
    }
}

/// Judges observations against the DAG: the undeclared dependencies, one
/// per Spack package (or host path when none is known), in the order
/// first seen.
pub fn judge(
    observations: &[Observation],
    dag: &Dag,
    kb: &dyn SpackNames,
) -> Vec<UndeclaredDependency> {
    let undeclared = observations
        .iter()
        .filter_map(|obs| match verdict(obs, dag, kb) {
            Verdict::Undeclared(package) => Some((obs, package)),
            _ => None,
        });
    group(undeclared)
}

/// Undeclared observations grouped one finding per Spack package (or
/// host path when none is known), in the order first seen.
pub(super) fn group<'a>(
    undeclared: impl IntoIterator<Item = (&'a Observation, Option<String>)>,
) -> Vec<UndeclaredDependency> {
    let mut findings: Vec<UndeclaredDependency> = Vec::new();
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    for (obs, package) in undeclared {
        let key = package
            .clone()
            .or_else(|| (!obs.path.is_empty()).then(|| obs.path.clone()))
            .or_else(|| obs.upstream.clone())
            .unwrap_or_default();
        let at = *by_key.entry(key).or_insert_with(|| {
            findings.push(UndeclaredDependency {
                package: package.clone(),
                upstream: Vec::new(),
                paths: Vec::new(),
                evidence: Vec::new(),
            });
            findings.len() - 1
        });
        let f = &mut findings[at];
        if let Some(u) = &obs.upstream {
            if !f.upstream.contains(u) {
                f.upstream.push(u.clone());
            }
        }
        if !obs.path.is_empty() && !f.paths.contains(&obs.path) {
            f.paths.push(obs.path.clone());
        }
        if !f.evidence.contains(&obs.evidence) {
            f.evidence.push(obs.evidence.clone());
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::hermetic::Evidence;
    use crate::validate::hermetic::{autotools_probes, compiler_commands};
    use packsmith_spack_knowledge::mapping::NoKnowledge;

    fn obs(upstream: Option<&str>, path: &str, source: EvidenceSource, entry: &str) -> Observation {
        Observation {
            upstream: upstream.map(str::to_string),
            lookup: NameSource::Cmake,
            path: path.into(),
            evidence: Evidence {
                source,
                file: "f".into(),
                entry: entry.into(),
            },
        }
    }

    fn dag(names: &[&str], virtuals: &[&str]) -> Dag {
        Dag {
            names: names.iter().map(|s| s.to_string()).collect(),
            virtuals: virtuals.iter().map(|s| s.to_string()).collect(),
            built_hashes: ["hhhh".to_string()].into(),
            externals: BTreeMap::new(),
            providers: BTreeMap::new(),
            build_only: Default::default(),
        }
    }

    /// An installed file's `DT_NEEDED` of a host library under /lib.
    fn elf(file: &str) -> Observation {
        obs(
            None,
            &format!("/lib/x86_64-linux-gnu/{file}"),
            EvidenceSource::Elf,
            &format!("DT_NEEDED {file} → /lib/x86_64-linux-gnu/{file}"),
        )
    }

    fn observations() -> Vec<Observation> {
        vec![
            obs(
                Some("ZLIB"),
                "/usr/lib/x86_64-linux-gnu/libz.so",
                EvidenceSource::ConfigureOutput,
                "-- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so",
            ),
            obs(
                None,
                "/usr/lib/x86_64-linux-gnu/libz.so.1",
                EvidenceSource::Elf,
                "DT_NEEDED libz.so.1",
            ),
            obs(
                None,
                "/lib/x86_64-linux-gnu/libc.so.6",
                EvidenceSource::Elf,
                "DT_NEEDED libc.so.6",
            ),
            obs(
                None,
                "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                EvidenceSource::Elf,
                "x",
            ),
            obs(
                Some("PkgConfig"),
                "/usr/bin/pkg-config",
                EvidenceSource::ConfigureOutput,
                "x",
            ),
            obs(
                Some("Git"),
                "/usr/bin/git",
                EvidenceSource::ConfigureOutput,
                "x",
            ),
            obs(
                None,
                "/s/opt/gcc-12/fmt-10-hhhh/lib/libfmt.so.10",
                EvidenceSource::Elf,
                "DT_NEEDED libfmt.so.10",
            ),
            obs(
                Some("Boost"),
                "/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0",
                EvidenceSource::CmakeCache,
                "Boost_DIR:PATH=/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0",
            ),
        ]
    }

    #[test]
    fn host_libraries_outside_the_dag_are_findings_grouped_by_package() {
        let found = judge(&observations(), &dag(&["demo", "cmake"], &[]), &NoKnowledge);
        let heads: Vec<String> = found.iter().map(|f| f.headline()).collect();
        assert_eq!(
            heads,
            [
                "zlib-api (ZLIB): /usr/lib/x86_64-linux-gnu/libz.so, /usr/lib/x86_64-linux-gnu/libz.so.1",
                "boost (Boost): /usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0",
            ]
        );
        assert_eq!(found[0].evidence.len(), 2);
        assert_eq!(found[0].evidence[1].source, EvidenceSource::Elf);
    }

    #[test]
    fn a_declared_external_at_usr_is_no_finding() {
        // zlib external at /usr, reached as the zlib-api virtual.
        let found = judge(
            &observations(),
            &dag(&["demo", "zlib", "boost"], &["zlib-api"]),
            &NoKnowledge,
        );
        assert_eq!(found, Vec::new());
        // The provider's name alone (an older Spack) is enough too.
        let found = judge(
            &observations()[..2],
            &dag(&["demo", "zlib"], &[]),
            &NoKnowledge,
        );
        assert_eq!(found, Vec::new(), "{found:?}");
    }

    /// Seen on the corpus' human recipe of dineof: an external whose library
    /// stem is not its Spack name (libarpack of arpack-ng, libnetcdff of
    /// netcdf-fortran) is the external's, not an unknown package.
    #[test]
    fn a_library_named_unlike_its_external_package_is_no_finding() {
        // And givaro's libgmpxx is gmp's.
        let seen = [
            elf("libarpack.so.2"),
            elf("libnetcdff.so.7"),
            elf("libgmpxx.so.4"),
        ];
        let with = dag(&["dineof", "arpack-ng", "netcdf-fortran", "gmp"], &[]);
        assert_eq!(judge(&seen, &with, &NoKnowledge), Vec::new());
        let without = judge(&seen, &dag(&["dineof"], &[]), &NoKnowledge);
        let heads: Vec<String> = without.iter().map(|f| f.headline()).collect();
        assert_eq!(heads.len(), 3, "{heads:?}");
        assert!(heads[0].starts_with("arpack-ng"), "{heads:?}");
    }

    /// Seen on the draft of iptraf-ng (corpus-4 dev): a declared ncurses
    /// external, and the program links its wide-character libraries, which
    /// were "an unknown package"; likewise readline's libhistory.
    #[test]
    fn the_other_libraries_of_a_declared_external_are_no_finding() {
        let seen = [
            elf("libncursesw.so.6"),
            elf("libpanelw.so.6"),
            elf("libhistory.so.8"),
        ];
        let with = dag(&["iptraf-ng", "ncurses", "readline"], &[]);
        assert_eq!(judge(&seen, &with, &NoKnowledge), Vec::new());
        // Undeclared, they are named by their package, not left unknown.
        let without = judge(&seen, &dag(&["iptraf-ng"], &[]), &NoKnowledge);
        let heads: Vec<String> = without.iter().map(|f| f.headline()).collect();
        assert_eq!(heads.len(), 2, "{heads:?}");
        assert!(heads[0].starts_with("ncurses"), "{heads:?}");
        assert!(heads[1].starts_with("readline"), "{heads:?}");
        // pandaseq's draft: libtool declared for the build only, and its
        // library installed as the host's libltdl.
        let ltdl = [elf("libltdl.so.7")];
        let mut build_only = dag(&["pandaseq", "libtool"], &[]);
        assert_eq!(judge(&ltdl, &build_only, &NoKnowledge), Vec::new());
        build_only.build_only.insert("libtool".into());
        let heads: Vec<String> = judge(&ltdl, &build_only, &NoKnowledge)
            .iter()
            .map(|f| f.headline())
            .collect();
        assert_eq!(heads.len(), 1, "{heads:?}");
        assert!(heads[0].starts_with("libtool"), "{heads:?}");
    }

    /// Seen on spiral-software's maintainer recipe: FindUnixCommands' bash
    /// is the base system's, while the Python 3 it found beside it is
    /// still a tool the recipe does not declare.
    #[test]
    fn the_base_systems_shell_is_no_finding() {
        let seen = [
            obs(
                Some("UnixCommands"),
                "/usr/bin/bash",
                EvidenceSource::ConfigureOutput,
                "-- Found UnixCommands: /usr/bin/bash",
            ),
            obs(
                Some("Python3"),
                "/usr/bin/python3",
                EvidenceSource::ConfigureOutput,
                "-- Found Python3: /usr/bin/python3",
            ),
        ];
        let found = judge(
            &seen,
            &dag(&["spiral-software", "cmake"], &[]),
            &NoKnowledge,
        );
        let heads: Vec<String> = found.iter().map(|f| f.headline()).collect();
        assert_eq!(heads, ["python (Python3): /usr/bin/python3"]);
    }

    #[test]
    fn cache_keys_map_through_their_known_prefix() {
        let cache = [
            obs(
                Some("MPI_C_HEADER"),
                "/usr/lib/x86_64-linux-gnu/openmpi/include",
                EvidenceSource::CmakeCache,
                "MPI_C_HEADER_DIR:PATH=/usr/lib/x86_64-linux-gnu/openmpi/include",
            ),
            obs(
                Some("CLANG_FORMAT"),
                "/usr/bin/clang-format",
                EvidenceSource::CmakeCache,
                "CLANG_FORMAT_EXECUTABLE:FILEPATH=/usr/bin/clang-format",
            ),
            obs(
                Some("MPI_mpi_cxx"),
                "/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_cxx.so",
                EvidenceSource::CmakeCache,
                "MPI_mpi_cxx_LIBRARY:FILEPATH=/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_cxx.so",
            ),
            obs(
                Some("MPI_open-pal"),
                "/usr/lib/x86_64-linux-gnu/libopen-pal.so",
                EvidenceSource::CmakeCache,
                "MPI_open-pal_LIBRARY:FILEPATH=/usr/lib/x86_64-linux-gnu/libopen-pal.so",
            ),
            obs(
                Some("PKG_CONFIG"),
                "/usr/bin/pkg-config",
                EvidenceSource::CmakeCache,
                "PKG_CONFIG_EXECUTABLE:FILEPATH=/usr/bin/pkg-config",
            ),
        ];
        // MPI declared (openmpi external, the mpi virtual): nothing.
        assert_eq!(
            judge(&cache, &dag(&["demo", "openmpi"], &["mpi"]), &NoKnowledge),
            Vec::new()
        );
        // Not declared: MPI is the finding (`open-pal` a component of
        // it); the unknown tool and pkg-config are not.
        let found = judge(&cache, &dag(&["demo"], &[]), &NoKnowledge);
        let names: Vec<Option<&str>> = found.iter().map(|f| f.package.as_deref()).collect();
        assert_eq!(names, [Some("mpi")], "{found:#?}");
    }

    #[test]
    fn what_meson_found_by_name_is_judged_by_name() {
        let named = |name: &str, lookup: NameSource| Observation {
            upstream: Some(name.into()),
            lookup,
            path: String::new(),
            evidence: Evidence {
                source: EvidenceSource::ConfigureOutput,
                file: "f".into(),
                entry: format!("Run-time dependency {name} found: YES"),
            },
        };
        let obs = [
            named("zlib", NameSource::Pkgconfig),
            named("m", NameSource::Library),
            named("threads", NameSource::Pkgconfig),
            named("OpenMP", NameSource::Pkgconfig),
        ];
        let found = judge(&obs, &dag(&["demo"], &[]), &NoKnowledge);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].headline(), "zlib-api (zlib): found by name");
        assert_eq!(
            judge(&obs, &dag(&["demo", "zlib"], &["zlib-api"]), &NoKnowledge),
            Vec::new()
        );
    }

    #[test]
    fn probes_and_compiler_commands_are_judged_and_unknown_names_dropped() {
        let probes = autotools_probes(
            "checking for library containing gzopen... -lz\n\
             checking for library containing xdr_int... -lnsl\n\
             checking for sin in -lm... yes\n",
            "f",
        );
        let commands = compiler_commands(
            "g++ -I/usr/include/eigen3 -I/usr/include/nosuchthing -o a a.cpp\n",
            "f",
            &[],
        );
        let obs: Vec<Observation> = probes.into_iter().chain(commands).collect();
        let found = judge(&obs, &dag(&["demo"], &[]), &NoKnowledge);
        let headlines: Vec<String> = found.iter().map(|f| f.headline()).collect();
        assert_eq!(
            headlines,
            [
                "zlib-api (z): found by name",
                "eigen (eigen3): /usr/include/eigen3"
            ]
        );
        let declared = dag(&["demo", "zlib", "eigen"], &["zlib-api"]);
        assert_eq!(judge(&obs, &declared, &NoKnowledge), Vec::new());
    }
}
