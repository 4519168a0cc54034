//! Build inputs and `cmakeFlags` for the stdenv templates, from the CMake
//! and Meson facts: which upstream packages the build requires, mapped to nixpkgs
//! attributes, split between build tools (`nativeBuildInputs`) and
//! libraries (`buildInputs`).

use packsmith_core::facts::{CmakeFacts, MesonFacts, MesonOption};
use serde::{Deserialize, Serialize};

/// Where a nixpkgs attribute goes in the derivation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Runs at build time (`nativeBuildInputs`).
    Native,
    /// Linked against (`buildInputs`).
    Build,
}

/// Upstream name (CMake package or pkg-config module, lower-cased) →
/// nixpkgs attribute. Kept here rather than shared with the Spack table:
/// packsmith-nix may not import packsmith-spack-knowledge, and the two
/// ecosystems disagree on granularity (one Spack `mpi` virtual vs nixpkgs'
/// `mpi` alias, OpenMP as a compiler runtime, …).
const NIXPKGS_NAMES: &[(&str, &str, Side)] = &[
    ("zlib", "zlib", Side::Build),
    ("hdf5", "hdf5", Side::Build),
    ("mpi", "mpi", Side::Build),
    ("openmp", "llvmPackages.openmp", Side::Build),
    ("boost", "boost", Side::Build),
    ("curl", "curl", Side::Build),
    ("libcurl", "curl", Side::Build),
    ("openssl", "openssl", Side::Build),
    ("png", "libpng", Side::Build),
    ("libpng", "libpng", Side::Build),
    ("jpeg", "libjpeg", Side::Build),
    ("bzip2", "bzip2", Side::Build),
    ("liblzma", "xz", Side::Build),
    ("libxml2", "libxml2", Side::Build),
    ("eigen3", "eigen", Side::Build),
    ("gtest", "gtest", Side::Build),
    ("fmt", "fmt", Side::Build),
    ("spdlog", "spdlog", Side::Build),
    ("sqlite3", "sqlite", Side::Build),
    ("sqlite", "sqlite", Side::Build),
    ("lapack", "lapack", Side::Build),
    ("blas", "blas", Side::Build),
    ("fftw3", "fftw", Side::Build),
    ("gsl", "gsl", Side::Build),
    ("tbb", "tbb", Side::Build),
    ("protobuf", "protobuf", Side::Build),
    ("yaml-cpp", "yaml-cpp", Side::Build),
    ("nlohmann_json", "nlohmann_json", Side::Build),
    ("catch2", "catch2_3", Side::Build),
    ("glib-2.0", "glib", Side::Build),
    ("libffi", "libffi", Side::Build),
    ("zstd", "zstd", Side::Build),
    ("lz4", "lz4", Side::Build),
    ("pybind11", "python3Packages.pybind11", Side::Build),
    ("cudatoolkit", "cudaPackages.cuda_cudart", Side::Build),
    ("pkgconfig", "pkg-config", Side::Native),
    ("doxygen", "doxygen", Side::Native),
    ("git", "git", Side::Native),
    ("bison", "bison", Side::Native),
    ("flex", "flex", Side::Native),
    ("python3", "python3", Side::Native),
    ("pythoninterp", "python3", Side::Native),
];

/// The nixpkgs attribute for an upstream name, if the table knows it.
pub(crate) fn nixpkgs_attr(upstream: &str) -> Option<(&'static str, Side)> {
    let key = upstream.to_ascii_lowercase();
    NIXPKGS_NAMES
        .iter()
        .find(|(name, _, _)| *name == key)
        .map(|(_, attr, side)| (*attr, *side))
}

/// What the build-system facts ask of the derivation.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DerivedInputs {
    pub native: Vec<String>,
    pub build: Vec<String>,
    /// `cmakeFlags` (or, for Meson, `mesonFlags`) elements, as Nix expressions.
    pub flags: Vec<String>,
}

/// Options a packaged build turns off: they run tests, examples or
/// benchmarks, or download during the build (no network in the sandbox).
fn packaged_off(option: &str) -> bool {
    let up = option.to_ascii_uppercase();
    ["TEST", "EXAMPLE", "BENCH", "DOWNLOAD", "FETCH"]
        .iter()
        .any(|w| up.contains(w))
}

fn is_on(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_uppercase().as_str(),
            "ON" | "TRUE" | "YES" | "1" | "Y"
        )
    })
}

/// Required dependencies always; those under `if(OPTION)` only when the
/// option is on by default, and then with the flag that keeps it on.
pub fn cmake_inputs(cmake: &CmakeFacts) -> DerivedInputs {
    let mut out = DerivedInputs::default();
    let default_of = |name: &str| {
        cmake
            .options
            .iter()
            .find(|o| o.name == name)
            .map(|o| is_on(o.default.as_deref()))
    };
    let mut wanted: Vec<(String, Vec<String>)> = Vec::new();
    for fp in &cmake.find_packages {
        // An unconditional find_package without REQUIRED is optional with
        // no option to turn it on: leave it out.
        if fp.required || !fp.conditions.is_empty() {
            wanted.push((fp.name.clone(), fp.conditions.clone()));
        }
    }
    for pc in &cmake.pkg_config {
        if !pc.required && pc.conditions.is_empty() {
            continue;
        }
        for module in &pc.modules {
            let name = module
                .split(['>', '<', '=', ' '])
                .next()
                .unwrap_or(module)
                .to_string();
            wanted.push((name, pc.conditions.clone()));
        }
        wanted.push(("pkgconfig".to_string(), pc.conditions.clone()));
    }
    for (name, conditions) in wanted {
        // Every condition must be a plain option that defaults to ON.
        let on = conditions
            .iter()
            .all(|c| default_of(c.trim()) == Some(true));
        if !on {
            continue;
        }
        let Some((attr, side)) = nixpkgs_attr(&name) else {
            continue;
        };
        let list = match side {
            Side::Native => &mut out.native,
            Side::Build => &mut out.build,
        };
        if !list.iter().any(|a| a == attr) {
            list.push(attr.to_string());
        }
        for c in &conditions {
            push_flag(&mut out.flags, c.trim(), true);
        }
    }
    for opt in &cmake.options {
        if packaged_off(&opt.name) && is_on(opt.default.as_deref()) {
            push_flag(&mut out.flags, &opt.name, false);
        }
    }
    if let Some(shared) = &cmake.build_shared_libs {
        if !is_on(Some(&shared.value)) {
            push_flag(&mut out.flags, "BUILD_SHARED_LIBS", true);
        }
    }
    out
}

/// The `mesonFlags` element that turns an option off: a `feature` option is
/// disabled, a `boolean` one false; other types keep upstream's default.
fn meson_off(option: &MesonOption) -> Option<String> {
    let default = option
        .default
        .as_deref()
        .unwrap_or_default()
        .trim_matches(['\'', '"']);
    match option.option_type.as_str() {
        "feature" if default != "disabled" => {
            Some(format!("(lib.mesonEnable \"{}\" false)", option.name))
        }
        "boolean" if default != "false" => {
            Some(format!("(lib.mesonBool \"{}\" false)", option.name))
        }
        _ => None,
    }
}

/// Meson: `dependency()` calls that are required outright and not under
/// an `if`; options for tests, examples, benchmarks, docs or downloads
/// turned off (documentation needs tools the sandbox may lack).
pub fn meson_inputs(meson: &MesonFacts) -> DerivedInputs {
    let mut out = DerivedInputs::default();
    for option in &meson.options {
        let name = option.name.to_ascii_uppercase();
        if packaged_off(&option.name) || name.contains("DOC") || name == "TESTS" {
            out.flags.extend(meson_off(option));
        }
    }
    for dep in &meson.dependencies {
        if dep.required.trim() != "true" || !dep.conditions.is_empty() {
            continue;
        }
        if let Some((attr, side)) = nixpkgs_attr(&dep.name) {
            let list = match side {
                Side::Native => &mut out.native,
                Side::Build => &mut out.build,
            };
            if !list.iter().any(|a| a == attr) {
                list.push(attr.to_string());
            }
        }
    }
    out
}

fn push_flag(flags: &mut Vec<String>, option: &str, value: bool) {
    let flag = format!("(lib.cmakeBool \"{option}\" {value})");
    if !flags.contains(&flag) {
        flags.push(flag);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_known_names_case_blind() {
        assert_eq!(nixpkgs_attr("ZLIB"), Some(("zlib", Side::Build)));
        assert_eq!(
            nixpkgs_attr("PkgConfig"),
            Some(("pkg-config", Side::Native))
        );
        assert_eq!(nixpkgs_attr("NoSuchThing"), None);
    }

    #[test]
    fn packaged_off_names() {
        assert!(packaged_off("FOO_BUILD_TESTS"));
        assert!(packaged_off("FOO_ENABLE_EXAMPLES"));
        assert!(!packaged_off("FOO_ENABLE_MPI"));
    }
}
