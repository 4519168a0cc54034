//! Libraries an external brings with it. A host library the DAG accounts
//! for (Debian's `libmpi.so.40` of an `openmpi` external at `/usr`) needs
//! others (`libopen-pal.so.40` → `libevent_core`, `libhwloc`): those are
//! the external's dependencies, which the package cannot declare. They
//! reach the package's records when the external's own lookup lists them
//! (FindMPI caches `MPI_event_core_LIBRARY`, `MPI_hwloc_LIBRARY`, …) and,
//! without `--as-needed`, as direct `DT_NEEDED` entries of files linked
//! with that list.
//!
//! The rule, so that a library the package uses itself stays a finding:
//! a host library in the `DT_NEEDED` closure of a library the DAG accepts
//! is the external's when
//! - a log entry (cache, configure output) found it through the lookup
//!   of the same DAG package (`MPI_…` → `mpi`): the external's config
//!   listed it. A lookup of the package's own (`ZLIB_LIBRARY`) stays a
//!   finding even when the external needs that library too;
//! - an ELF file of the package needs it directly and such a log entry
//!   of the external lists the same file: the link line came from the
//!   external's list. A direct `DT_NEEDED` no external's lookup listed is
//!   the package's own link (`-lz` beside MPI) and stays a finding, even
//!   when the external needs that library too: the files alone cannot
//!   tell an `-lz` of the package's from one of MPI's link line.
//!
//! The accepted library itself counts as reached (an ELF need of
//! `libopen-pal.so.40` that the judge cannot name, while the cache's
//! `MPI_open-pal_LIBRARY` names the same file). Each observation that is
//! the external's is left out of the findings and becomes a note of the
//! report; a finding with nothing left is dropped.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::mapping::{library_stem, SpackNames};

use super::judge::{group, lookup_in_dag, verdict, Verdict};
use super::{read_dynamic, resolve_needed, Dag, EvidenceSource, Observation, UndeclaredDependency};

/// Library files whose `DT_NEEDED` entries are read, at most: the
/// closure of a few externals is some dozens.
const MAX_LIBRARIES: usize = 500;

/// The libraries of the machine, as the dynamic linker finds them.
pub trait LibraryGraph {
    /// The file a path names, links followed (`libopen-pal.so` →
    /// `libopen-pal.so.40.30.2`), so two names of one file compare equal.
    fn canonical(&self, path: &Path) -> PathBuf;
    /// The libraries `library` needs, where the loader finds them.
    fn needed(&self, library: &Path) -> Vec<PathBuf>;
}

/// The host's files, read with the check's own ELF reader.
pub struct HostLibraries<'a> {
    pub default_dirs: &'a [&'a str],
}

impl LibraryGraph for HostLibraries<'_> {
    fn canonical(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }

    fn needed(&self, library: &Path) -> Vec<PathBuf> {
        let Some(info) = read_dynamic(library) else {
            return Vec::new();
        };
        let origin = library.parent().unwrap_or(library);
        info.needed
            .iter()
            .filter_map(|n| resolve_needed(n, &info, origin, self.default_dirs))
            .collect()
    }
}

/// For each library reached from a root: the DAG names whose roots reach
/// it, each with the library that needs it on the first path found (a
/// root itself is reached by its own name, needed by itself).
type Closure = BTreeMap<PathBuf, BTreeMap<String, PathBuf>>;

/// The `DT_NEEDED` closure of `roots` (canonical file → the DAG name
/// that accepts it), breadth first, each file read once.
fn closure(roots: &BTreeMap<PathBuf, String>, graph: &dyn LibraryGraph) -> Closure {
    let mut needs_of: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    let mut out = Closure::new();
    for (root, owner) in roots {
        let own = out.entry(root.clone()).or_default();
        own.entry(owner.clone()).or_insert_with(|| root.clone());
        let mut seen = BTreeSet::from([root.clone()]);
        let mut queue = VecDeque::from([root.clone()]);
        while let Some(lib) = queue.pop_front() {
            if !needs_of.contains_key(&lib) {
                if needs_of.len() >= MAX_LIBRARIES {
                    break;
                }
                let needs = graph
                    .needed(&lib)
                    .iter()
                    .map(|p| graph.canonical(p))
                    .collect();
                needs_of.insert(lib.clone(), needs);
            }
            for next in needs_of.get(&lib).cloned().unwrap_or_default() {
                if seen.insert(next.clone()) {
                    let by = out.entry(next.clone()).or_default();
                    by.entry(owner.clone()).or_insert_with(|| lib.clone());
                    queue.push_back(next);
                }
            }
        }
    }
    out
}

/// The canonical library file an observation names; `None` for a
/// directory, a header or a name.
fn library_file(obs: &Observation, graph: &dyn LibraryGraph) -> Option<PathBuf> {
    library_stem(&obs.path)?;
    Some(graph.canonical(Path::new(&obs.path)))
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Why an observation is the external's: the DAG name and the library
/// that needs it (none when the DAG accepts the file itself).
#[derive(Debug, Clone)]
struct Excuse {
    owner: String,
    needed_by: Option<PathBuf>,
}

/// The excuse of `file` under `owner`, when `owner`'s closure holds it.
fn reached_by(reached: &Closure, file: &Path, owner: String) -> Option<Excuse> {
    let by = reached.get(file)?.get(&owner)?;
    let needed_by = (by != file).then(|| by.clone());
    Some(Excuse { owner, needed_by })
}

/// Judges observations as `judge` does, then leaves out the libraries
/// the DAG's externals bring (see the module's rule). Returns the
/// findings and a note per observation left out.
pub fn judge_with_closure(
    observations: &[Observation],
    dag: &Dag,
    kb: &dyn SpackNames,
    graph: &dyn LibraryGraph,
) -> (Vec<UndeclaredDependency>, Vec<String>) {
    let verdicts: Vec<Verdict> = observations.iter().map(|o| verdict(o, dag, kb)).collect();
    if !verdicts.iter().any(|v| matches!(v, Verdict::Undeclared(_))) {
        return (Vec::new(), Vec::new());
    }
    let roots: BTreeMap<PathBuf, String> = observations
        .iter()
        .zip(&verdicts)
        .filter_map(|(o, v)| match v {
            Verdict::InDag(name) => Some((library_file(o, graph)?, name.clone())),
            _ => None,
        })
        .collect();
    let reached = closure(&roots, graph);
    let listed = listed_by_externals(observations, &reached, dag, kb, graph);
    let mut undeclared = Vec::new();
    let mut notes = Vec::new();
    for (obs, v) in observations.iter().zip(verdicts) {
        let Verdict::Undeclared(package) = v else {
            continue;
        };
        match excuse(obs, &listed, &reached, dag, kb, graph) {
            Some(e) => notes.push(note(obs, &e, dag)),
            None => undeclared.push((obs, package)),
        }
    }
    (group(undeclared), notes)
}

/// The library files an external's own lookup listed (a log entry whose
/// lookup name the DAG holds, `MPI_hwloc_LIBRARY`), in that external's
/// closure, with the excuse.
fn listed_by_externals(
    observations: &[Observation],
    reached: &Closure,
    dag: &Dag,
    kb: &dyn SpackNames,
    graph: &dyn LibraryGraph,
) -> BTreeMap<PathBuf, Excuse> {
    observations
        .iter()
        .filter(|o| o.evidence.source != EvidenceSource::Elf)
        .filter_map(|o| {
            let file = library_file(o, graph)?;
            let excuse = reached_by(reached, &file, lookup_in_dag(o, dag, kb)?)?;
            Some((file, excuse))
        })
        .collect()
}

/// Why an undeclared observation is the external's, if it is: a log entry
/// of the external's lookup in its closure, or a direct `DT_NEEDED` of a
/// file such an entry lists.
fn excuse(
    obs: &Observation,
    listed: &BTreeMap<PathBuf, Excuse>,
    reached: &Closure,
    dag: &Dag,
    kb: &dyn SpackNames,
    graph: &dyn LibraryGraph,
) -> Option<Excuse> {
    let file = library_file(obs, graph)?;
    if obs.evidence.source == EvidenceSource::Elf {
        return listed.get(&file).cloned();
    }
    reached_by(reached, &file, lookup_in_dag(obs, dag, kb)?)
}

/// `libevent_core.so: needed by libopen-pal.so.40.30.2 of mpi (openmpi,
/// external at /usr); not the package's (CMakeCache.txt: MPI_…)`.
fn note(obs: &Observation, excuse: &Excuse, dag: &Dag) -> String {
    let name = file_name(Path::new(&obs.path));
    let owner = dag.describe(&excuse.owner);
    let how = match &excuse.needed_by {
        Some(by) => format!("needed by {} of {owner}", file_name(by)),
        None => format!("listed by {owner}"),
    };
    format!("{name}: {how}; not the package's ({})", obs.evidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::hermetic::{cmake_cache, Evidence, DEFAULT_LIBRARY_DIRS};
    use packsmith_spack_knowledge::mapping::{Known, NameSource, NoKnowledge};

    /// A made-up machine: each library and what it needs; `.so` dev
    /// links name their versioned file.
    struct FakeGraph {
        links: BTreeMap<&'static str, &'static str>,
        needs: BTreeMap<&'static str, Vec<&'static str>>,
    }

    impl LibraryGraph for FakeGraph {
        fn canonical(&self, path: &Path) -> PathBuf {
            let p = path.to_string_lossy();
            PathBuf::from(self.links.get(p.as_ref()).copied().unwrap_or(&p))
        }

        fn needed(&self, library: &Path) -> Vec<PathBuf> {
            let l = library.to_string_lossy();
            let needs = self.needs.get(l.as_ref()).cloned().unwrap_or_default();
            needs.into_iter().map(PathBuf::from).collect()
        }
    }

    const LIB: &str = "/usr/lib/x86_64-linux-gnu";

    /// Debian's Open MPI as it is laid out: libmpi → libopen-pal →
    /// libevent_core, libhwloc, libz.
    fn openmpi_machine() -> FakeGraph {
        let links = [
            (
                "/usr/lib/x86_64-linux-gnu/libmpi.so",
                "/usr/lib/x86_64-linux-gnu/libmpi.so.40",
            ),
            (
                "/usr/lib/x86_64-linux-gnu/libopen-pal.so",
                "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40",
            ),
            (
                "/usr/lib/x86_64-linux-gnu/libevent_core.so",
                "/usr/lib/x86_64-linux-gnu/libevent_core-2.1.so.7",
            ),
            (
                "/usr/lib/x86_64-linux-gnu/libhwloc.so",
                "/usr/lib/x86_64-linux-gnu/libhwloc.so.15",
            ),
            (
                "/usr/lib/x86_64-linux-gnu/libz.so",
                "/usr/lib/x86_64-linux-gnu/libz.so.1",
            ),
        ];
        let needs = [
            (
                "/usr/lib/x86_64-linux-gnu/libmpi.so.40",
                vec![
                    "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40",
                    "/lib/x86_64-linux-gnu/libc.so.6",
                ],
            ),
            (
                "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40",
                vec![
                    "/usr/lib/x86_64-linux-gnu/libhwloc.so.15",
                    "/usr/lib/x86_64-linux-gnu/libevent_core-2.1.so.7",
                    "/usr/lib/x86_64-linux-gnu/libz.so.1",
                ],
            ),
            (
                "/usr/lib/x86_64-linux-gnu/libhwloc.so.15",
                vec!["/usr/lib/x86_64-linux-gnu/libopen-pal.so.40"],
            ),
        ];
        FakeGraph {
            links: links.into_iter().collect(),
            needs: needs.into_iter().collect(),
        }
    }

    /// A knowledge base that knows libevent, as Spack's does: the file
    /// `libevent_core.so` then maps to `libevent`, not to MPI.
    struct KnowsLibevent;

    impl SpackNames for KnowsLibevent {
        fn lookup(&self, name: &str) -> Known {
            match name {
                "mpi" | "zlib-api" => Known::Virtual,
                "libevent" | "hwloc" | "openmpi" | "zlib" => Known::Package,
                _ => Known::Unknown,
            }
        }
    }

    /// The DAG of a CMake package using the external Open MPI.
    fn openmpi_dag() -> Dag {
        Dag::parse(
            r#"{"spec": {"nodes": [
              {"name": "demo", "hash": "hhhh", "dependencies": [
                {"name": "openmpi", "hash": "o", "parameters": {"virtuals": ["mpi"]}},
                {"name": "cmake", "hash": "c", "parameters": {"virtuals": []}}]},
              {"name": "openmpi", "hash": "o", "external": {"path": "/usr"}},
              {"name": "cmake", "hash": "c", "external": {"path": "/usr"}}]}}"#,
        )
        .unwrap()
    }

    /// The cache FindMPI leaves when the MPI's link line lists its own
    /// dependencies, as in issue 44.
    fn mpi_cache() -> String {
        format!(
            "MPI_C_LIB_NAMES:STRING=mpi;open-pal;hwloc;event_core\n\
             MPI_mpi_LIBRARY:FILEPATH={LIB}/libmpi.so\n\
             MPI_open-pal_LIBRARY:FILEPATH={LIB}/libopen-pal.so\n\
             MPI_hwloc_LIBRARY:FILEPATH={LIB}/libhwloc.so\n\
             MPI_event_core_LIBRARY:FILEPATH={LIB}/libevent_core.so\n"
        )
    }

    fn elf(file: &str, needed: &str) -> Observation {
        Observation {
            upstream: None,
            lookup: NameSource::Library,
            path: format!("{LIB}/{needed}"),
            evidence: Evidence {
                source: EvidenceSource::Elf,
                file: file.into(),
                entry: format!("DT_NEEDED {needed}"),
            },
        }
    }

    fn packages(found: &[UndeclaredDependency]) -> Vec<String> {
        found.iter().map(|f| f.headline()).collect()
    }

    #[test]
    fn an_external_mpis_own_libraries_in_the_cache_are_no_findings() {
        let obs = cmake_cache(&mpi_cache(), "CMakeCache.txt");
        assert_eq!(obs.len(), 4, "{obs:#?}");
        let dag = openmpi_dag();
        let nothing = FakeGraph {
            links: BTreeMap::new(),
            needs: BTreeMap::new(),
        };
        // Which of them the judge alone calls the package's depends on
        // what the names map to: with Spack's names, libevent_core.so is
        // libevent; without, MPI_event_core is MPI's.
        let cases: [(&dyn SpackNames, &[&str]); 2] = [
            (&KnowsLibevent, &["libhwloc.so", "libevent_core.so"]),
            (&NoKnowledge, &["libhwloc.so"]),
        ];
        for (kb, dropped) in cases {
            let (alone, _) = judge_with_closure(&obs, &dag, kb, &nothing);
            assert_eq!(alone.len(), dropped.len(), "{alone:#?}");
            let (found, notes) = judge_with_closure(&obs, &dag, kb, &openmpi_machine());
            assert_eq!(packages(&found), Vec::<String>::new());
            let noted: Vec<&str> = notes.iter().filter_map(|n| n.split(':').next()).collect();
            assert_eq!(noted, dropped, "{notes:#?}");
        }
        let (_, notes) = judge_with_closure(&obs, &dag, &KnowsLibevent, &openmpi_machine());
        assert_eq!(
            notes[1],
            format!(
                "libevent_core.so: needed by libopen-pal.so.40 of mpi (openmpi, external at /usr); \
                 not the package's (CMakeCache.txt: MPI_event_core_LIBRARY:FILEPATH={LIB}/libevent_core.so)"
            )
        );
        // Without MPI in the DAG, everything MPI brings is a finding.
        let bare =
            Dag::parse(r#"{"spec": {"nodes": [{"name": "demo", "hash": "hhhh"}]}}"#).unwrap();
        let (found, notes) = judge_with_closure(&obs, &bare, &KnowsLibevent, &openmpi_machine());
        assert_eq!(
            packages(&found),
            [
                format!("mpi (MPI_mpi, MPI_open-pal): {LIB}/libmpi.so, {LIB}/libopen-pal.so"),
                format!("hwloc (MPI_hwloc): {LIB}/libhwloc.so"),
                format!("libevent (MPI_event_core): {LIB}/libevent_core.so"),
            ]
        );
        assert_eq!(notes, Vec::<String>::new());
    }

    #[test]
    fn direct_links_the_external_listed_are_its_own_and_the_rest_stay() {
        let mut obs = cmake_cache(&mpi_cache(), "CMakeCache.txt");
        // Linked with MPI_C_LIBRARIES, no --as-needed.
        for needed in [
            "libmpi.so.40",
            "libopen-pal.so.40",
            "libevent_core-2.1.so.7",
            "libz.so.1",
        ] {
            obs.push(elf("bin/demo", needed));
        }
        let (found, notes) =
            judge_with_closure(&obs, &openmpi_dag(), &KnowsLibevent, &openmpi_machine());
        // libz is in libopen-pal's closure, but no MPI lookup listed it:
        // the package's own link.
        assert_eq!(packages(&found), [format!("zlib-api: {LIB}/libz.so.1")]);
        assert!(
            notes.iter().any(|n| n
                .starts_with("libevent_core-2.1.so.7: needed by libopen-pal.so.40")
                && n.ends_with("(bin/demo: DT_NEEDED libevent_core-2.1.so.7)")),
            "{notes:#?}"
        );
        // Nor is the package's own lookup of zlib excused.
        let mut own = obs.clone();
        own.extend(cmake_cache(
            &format!("ZLIB_LIBRARY_RELEASE:FILEPATH={LIB}/libz.so\n"),
            "CMakeCache.txt",
        ));
        let (found, _) =
            judge_with_closure(&own, &openmpi_dag(), &KnowsLibevent, &openmpi_machine());
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].evidence.len(), 2, "{found:#?}");
    }

    #[test]
    fn a_direct_link_outside_every_closure_stays_a_finding() {
        // libhwloc needed directly, but nothing in the DAG is accepted:
        // no closure, a finding.
        let obs = [elf("lib/libdemo.so", "libhwloc.so.15")];
        let (found, notes) =
            judge_with_closure(&obs, &openmpi_dag(), &KnowsLibevent, &openmpi_machine());
        assert_eq!(packages(&found), [format!("hwloc: {LIB}/libhwloc.so.15")]);
        assert!(notes.is_empty());
    }

    #[test]
    fn the_closure_stops_at_cycles_and_is_bounded() {
        let graph = openmpi_machine();
        let roots = BTreeMap::from([(
            PathBuf::from(format!("{LIB}/libmpi.so.40")),
            "mpi".to_string(),
        )]);
        let reached = closure(&roots, &graph);
        let names: Vec<String> = reached.keys().map(|p| file_name(p)).collect();
        // The root is reached by its own name; libhwloc's need of
        // libopen-pal loops back and ends there.
        assert_eq!(
            names,
            [
                "libc.so.6",
                "libevent_core-2.1.so.7",
                "libhwloc.so.15",
                "libmpi.so.40",
                "libopen-pal.so.40",
                "libz.so.1"
            ]
        );
        assert_eq!(
            reached[&PathBuf::from(format!("{LIB}/libz.so.1"))]["mpi"],
            PathBuf::from(format!("{LIB}/libopen-pal.so.40"))
        );

        // A chain without end is read MAX_LIBRARIES files deep, no more.
        struct Endless;
        impl LibraryGraph for Endless {
            fn canonical(&self, path: &Path) -> PathBuf {
                path.to_path_buf()
            }
            fn needed(&self, library: &Path) -> Vec<PathBuf> {
                vec![library.join("x")]
            }
        }
        let roots = BTreeMap::from([(PathBuf::from("/usr/lib/libroot.so"), "r".to_string())]);
        assert_eq!(closure(&roots, &Endless).len(), MAX_LIBRARIES + 1);
    }

    /// Real files of this machine: Debian's Open MPI and libxml2.
    #[test]
    fn real_host_libraries_of_an_external_are_no_findings() {
        let host = HostLibraries {
            default_dirs: DEFAULT_LIBRARY_DIRS,
        };
        let pal = Path::new(LIB).join("libopen-pal.so.40");
        let xml = Path::new(LIB).join("libxml2.so.2");
        if !pal.exists() || !Path::new(LIB).join("libevent_core.so").exists() || !xml.exists() {
            eprintln!("SKIPPED: no Debian Open MPI (libopenmpi-dev) and libxml2 under {LIB}");
            return;
        }
        // The dev link and the soname are one file.
        assert_eq!(
            host.canonical(&Path::new(LIB).join("libopen-pal.so")),
            host.canonical(&pal)
        );
        let mut obs = cmake_cache(&mpi_cache(), "CMakeCache.txt");
        obs.push(elf("bin/demo", "libmpi.so.40"));
        obs.push(elf("bin/demo", "libopen-pal.so.40"));
        let (found, notes) = judge_with_closure(&obs, &openmpi_dag(), &KnowsLibevent, &host);
        assert_eq!(packages(&found), Vec::<String>::new(), "{notes:#?}");
        // libhwloc and libevent_core by the cache, libopen-pal as a
        // direct need the cache lists (libmpi and the cache's libopen-pal
        // the judge accepts as MPI's by name).
        let noted: Vec<&str> = notes.iter().filter_map(|n| n.split(':').next()).collect();
        assert_eq!(
            noted,
            ["libhwloc.so", "libevent_core.so", "libopen-pal.so.40"],
            "{notes:#?}"
        );

        // libxml2 external: the liblzma it needs, listed as LIBXML2's,
        // is its own; the package's own lzma lookup is not.
        let dag = Dag::parse(
            r#"{"spec": {"nodes": [{"name": "demo", "hash": "hhhh", "dependencies": [{"name": "libxml2", "hash": "x"}]},
                {"name": "libxml2", "hash": "x", "external": {"path": "/usr"}}]}}"#,
        )
        .unwrap();
        let cache = format!(
            "LIBXML2_LIBRARY:FILEPATH={LIB}/libxml2.so\nLIBXML2_lzma_LIBRARY:FILEPATH={LIB}/liblzma.so.5\n"
        );
        let obs = cmake_cache(&cache, "CMakeCache.txt");
        let (found, notes) = judge_with_closure(&obs, &dag, &NoKnowledge, &host);
        assert_eq!(packages(&found), Vec::<String>::new(), "{notes:#?}");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        let mut own = obs;
        own.extend(cmake_cache(
            &format!("LIBLZMA_LIBRARY:FILEPATH={LIB}/liblzma.so\n"),
            "CMakeCache.txt",
        ));
        let (found, _) = judge_with_closure(&own, &dag, &NoKnowledge, &host);
        assert_eq!(
            packages(&found),
            [format!("xz (LIBLZMA): {LIB}/liblzma.so")]
        );
    }
}
