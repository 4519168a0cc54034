#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The deterministic brief on the example project that ships with packsmith:
//! facts → variants, mapped dependencies with `when=`, language virtuals.

use packsmith_core::SourceInfo;
use packsmith_spack_draft::brief::{build_brief, render_brief, SpackBrief, VariantDefault};
use packsmith_spack_knowledge::mapping::NoKnowledge;
use packsmith_spack_knowledge::target::TargetSpack;
use std::path::Path;

fn heatsim_brief(target: TargetSpack) -> SpackBrief {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/heatsim");
    let facts = packsmith_analyze::analyze_dir(
        &root,
        SourceInfo {
            kind: "path".into(),
            given: "examples/heatsim".into(),
            release_tag: None,
        },
    )
    .unwrap();
    build_brief(&facts, target, &NoKnowledge)
}

fn dep<'a>(b: &'a SpackBrief, name: &str) -> &'a packsmith_spack_draft::brief::BriefDependency {
    b.dependencies
        .iter()
        .find(|d| d.spec.split(['@', '+', '~']).next() == Some(name))
        .unwrap_or_else(|| panic!("no dependency {name}: {:#?}", b.dependencies))
}

#[test]
fn heatsim_brief_for_spack_1() {
    let b = heatsim_brief(TargetSpack::V1);
    assert_eq!(b.package, "heatsim");
    assert_eq!(b.class_name, "Heatsim");
    assert_eq!(b.base_classes, ["CMakePackage", "CudaPackage"]);
    assert_eq!(b.cmake_constraint.as_deref(), Some("cmake@3.18:"));
    assert_eq!(b.language_virtuals, ["c", "cxx"]);
    assert_eq!(b.license.as_deref(), Some("BSD-3-Clause"));

    let variant = |name: &str| b.variants.iter().find(|v| v.name == name).unwrap();
    assert_eq!(variant("mpi").default, VariantDefault::Bool(false));
    assert_eq!(variant("openmp").default, VariantDefault::Bool(true));
    assert_eq!(variant("shared").option, "BUILD_SHARED_LIBS");
    assert!(variant("cuda").inherited, "CudaPackage brings +cuda");
    assert_eq!(variant("parallel_io").when.as_deref(), Some("+hdf5 +mpi"));
    assert_eq!(variant("precision").values, ["single", "double"]);

    // Conditions in CMakeLists.txt become when= specs on mapped names.
    assert_eq!(dep(&b, "zlib-api").when, None);
    assert_eq!(dep(&b, "mpi").when.as_deref(), Some("+mpi"));
    assert_eq!(dep(&b, "hdf5").spec, "hdf5@1.10:");
    assert_eq!(dep(&b, "hdf5").when.as_deref(), Some("+hdf5"));
    assert_eq!(dep(&b, "py-pybind11").when.as_deref(), Some("+python"));
    assert_eq!(dep(&b, "py-pybind11").types, ["build"]);
    // OpenMP is a compiler feature: a note, never a dependency.
    assert!(!b.dependencies.iter().any(|d| d.spec.contains("openmp")));
    assert!(b
        .notes
        .iter()
        .any(|n| n.message.starts_with("OpenMP: not a dependency")));

    let text = render_brief(&b);
    insta::assert_snapshot!("heatsim_brief_v1", text);
}

#[test]
fn spack_023_has_no_language_virtuals() {
    let b = heatsim_brief(TargetSpack::V0_23);
    assert!(b.language_virtuals.is_empty());
    assert_eq!(b.target, TargetSpack::V0_23);
}
