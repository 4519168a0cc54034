//! Virtuals over providers: a concrete package that provides a Spack
//! virtual (`libelf` → `elf`, `openblas` → `blas` + `lapack`) is depended
//! on through the virtual, so concretization can take whichever provider a
//! site has. The knowledge base's `provides()` data decides when it is
//! there; the curated `data/virtual-providers.toml` otherwise, and for
//! bundles that provide many virtuals.

use super::{Known, SpackNames};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

const TABLE_TOML: &str = include_str!("../../data/virtual-providers.toml");

/// Language virtuals a compiler provides: never what a library lookup means.
const LANGUAGE_VIRTUALS: &[&str] = &["c", "cxx", "fortran"];

/// A provider of more virtuals than this is a bundle whose name alone does
/// not say which the project needs: left concrete unless curated.
const MOST_VIRTUALS: usize = 2;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Concrete {
    names: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    providers: BTreeMap<String, Vec<String>>,
    concrete: Concrete,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    // Compiled in and checked by a unit test: a parse failure is a
    // packsmith bug, so an empty table rather than a crash.
    TABLE.get_or_init(|| toml::from_str(TABLE_TOML).unwrap_or_default())
}

/// The virtuals to depend on instead of `package`, with why; `None` when
/// `package` should stay as it is.
pub fn virtuals_for(package: &str, kb: &dyn SpackNames) -> Option<(Vec<String>, String)> {
    let t = table();
    if t.concrete.names.iter().any(|n| n == package) {
        return None;
    }
    let from_kb: Vec<String> = kb
        .provided_by(package)
        .into_iter()
        .filter(|v| !LANGUAGE_VIRTUALS.contains(&v.as_str()))
        .collect();
    let curated = t.providers.get(package);
    let (virtuals, source) = match curated {
        Some(list) if from_kb.is_empty() => (list.clone(), "the curated provider table"),
        // Both: the curated choice, as far as this Spack knows it.
        Some(list) => (
            list.iter()
                .filter(|v| from_kb.contains(v))
                .cloned()
                .collect(),
            "the knowledge base's provides() and the curated provider table",
        ),
        None if (1..=MOST_VIRTUALS).contains(&from_kb.len()) => {
            (from_kb, "the knowledge base's provides()")
        }
        None => return None,
    };
    // A Spack that does not know the virtual keeps the concrete package.
    let virtuals: Vec<String> = virtuals
        .into_iter()
        .filter(|v| !kb.knows_names() || kb.lookup(v) == Known::Virtual)
        .collect();
    if virtuals.is_empty() {
        return None;
    }
    let why = format!(
        "`{package}` provides {} ({source}): depend on the virtual",
        virtuals
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Some((virtuals, why))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Kb(&'static [(&'static str, &'static [&'static str])]);
    impl SpackNames for Kb {
        fn lookup(&self, name: &str) -> Known {
            if self.0.iter().any(|(v, _)| *v == name) {
                Known::Virtual
            } else {
                Known::Package
            }
        }
        fn provided_by(&self, package: &str) -> Vec<String> {
            self.0
                .iter()
                .filter(|(_, p)| p.contains(&package))
                .map(|(v, _)| v.to_string())
                .collect()
        }
    }

    #[test]
    fn table_parses_and_is_sorted() {
        let t: Table = toml::from_str(TABLE_TOML).expect("parses");
        let keys: Vec<&String> = t.providers.keys().collect();
        let in_file: Vec<&str> = TABLE_TOML
            .split("[providers]")
            .nth(1)
            .unwrap()
            .split("[concrete]")
            .next()
            .unwrap()
            .lines()
            .filter(|l| l.contains('='))
            .map(|l| l.split('=').next().unwrap().trim())
            .collect();
        assert_eq!(keys.len(), in_file.len());
        let mut sorted = in_file.clone();
        sorted.sort();
        assert_eq!(in_file, sorted);
        let mut concrete = t.concrete.names.clone();
        concrete.sort();
        assert_eq!(concrete, t.concrete.names);
    }

    #[test]
    fn curated_without_a_knowledge_base() {
        let none = super::super::NoKnowledge;
        assert_eq!(virtuals_for("libelf", &none).unwrap().0, ["elf"]);
        assert_eq!(
            virtuals_for("openblas", &none).unwrap().0,
            ["blas", "lapack"]
        );
        assert_eq!(virtuals_for("zlib-ng", &none).unwrap().0, ["zlib-api"]);
        assert_eq!(virtuals_for("hdf5", &none), None);
        assert_eq!(virtuals_for("kokkos", &none), None);
    }

    #[test]
    fn the_knowledge_base_decides_when_it_is_there() {
        let kb = Kb(&[
            ("elf", &["elfutils", "libelf"]),
            ("blas", &["openblas", "intel-oneapi-mkl"]),
            ("lapack", &["openblas", "intel-oneapi-mkl"]),
            ("scalapack", &["intel-oneapi-mkl"]),
            ("fftw-api", &["intel-oneapi-mkl", "fftw"]),
            ("c", &["gcc"]),
            ("cxx", &["gcc"]),
            ("yaml-api", &["libfyaml"]),
            ("hdf5-api", &["hdf5"]),
            ("ld", &["binutils", "lld", "mold"]),
        ]);
        assert_eq!(virtuals_for("libelf", &kb).unwrap().0, ["elf"]);
        // A bundle: the curated choice, not all four.
        assert_eq!(
            virtuals_for("intel-oneapi-mkl", &kb).unwrap().0,
            ["blas", "lapack"]
        );
        // Not curated, one virtual in the knowledge base.
        let (v, why) = virtuals_for("libfyaml", &kb).unwrap();
        assert_eq!(v, ["yaml-api"]);
        assert!(why.contains("provides()"), "{why}");
        // Language virtuals, and names used concretely on purpose, stay.
        assert_eq!(virtuals_for("gcc", &kb), None);
        assert_eq!(virtuals_for("hdf5", &kb), None);
        assert_eq!(virtuals_for("binutils", &kb), None);
        let tools = Kb(&[("yacc", &["bison", "byacc"]), ("pkgconfig", &["pkgconf"])]);
        assert_eq!(virtuals_for("bison", &tools), None);
        assert_eq!(virtuals_for("pkgconf", &tools).unwrap().0, ["pkgconfig"]);
        // A Spack without the virtual keeps the provider.
        let old = Kb(&[("blas", &["openblas"])]);
        assert_eq!(virtuals_for("openblas", &old).unwrap().0, ["blas"]);
        assert_eq!(virtuals_for("libelf", &old), None);
    }
}
