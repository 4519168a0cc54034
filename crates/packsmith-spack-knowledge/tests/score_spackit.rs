//! SpackIt S_d / S_v reproduction and the added precision and semantic scores.

use packsmith_spack_knowledge::score::{
    inherited_dependencies, known_base_classes, score, ScoreDep, ScoreOptions, ScoreRecipe,
    SpackRelease,
};

fn dep(spec: &str, when: Option<&str>, types: &[&str]) -> ScoreDep {
    ScoreDep {
        spec: spec.into(),
        when: when.map(Into::into),
        types: types.iter().map(|t| t.to_string()).collect(),
    }
}

fn recipe(bases: &[&str], deps: Vec<ScoreDep>, keys: &[&str]) -> ScoreRecipe {
    ScoreRecipe {
        bases: bases.iter().map(|b| b.to_string()).collect(),
        dependencies: deps,
        define_keys: keys.iter().map(|k| k.to_string()).collect(),
        variants: Vec::new(),
        versions: Vec::new(),
        variant_defaults: Default::default(),
    }
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

/// The paper's FXdiv pair. Reference (spack-packages `fxdiv/package.py`,
/// `class Fxdiv(CMakePackage)`): c, cxx, cmake@3.5:, python, all build-only;
/// keys FXDIV_BUILD_TESTS, FXDIV_BUILD_BENCHMARKS.
///
/// Inherited removal drops nothing: CMakePackage declares `cmake` with
/// `when="build_system=cmake"`, which differs from the recipe's
/// unconditional `cmake@3.5:` in spec and condition, and the language
/// virtuals are not inherited. So 4 reference deps remain.
///
/// - c, cxx, cmake@3.5: each have an identical generated dep:
///   M = 0.6 + 0.2·(1/1) + 0.1·1 + 0.1·1 = 1.0
/// - python has no same-name candidate: 0
///
/// S_d = (1 + 1 + 1 + 0) / 4 = 0.75. (Dropping cmake by name would give
/// 2/3; treating c/cxx as inherited would give 1/2.)
/// S_v = |{tests, benchmarks}| / |{tests, benchmarks}| = 1.0; the third
/// generated key only lowers precision: 2/3.
#[test]
fn fxdiv_reproduces_the_paper() {
    let reference = recipe(
        &["CMakePackage"],
        vec![
            dep("c", None, &["build"]),
            dep("cxx", None, &["build"]),
            dep("cmake@3.5:", None, &["build"]),
            dep("python", None, &["build"]),
        ],
        &["FXDIV_BUILD_TESTS", "FXDIV_BUILD_BENCHMARKS"],
    );
    let generated = recipe(
        &["CMakePackage"],
        vec![
            dep("c", None, &["build"]),
            dep("cxx", None, &["build"]),
            dep("cmake@3.5:", None, &["build"]),
        ],
        &[
            "FXDIV_BUILD_TESTS",
            "FXDIV_BUILD_BENCHMARKS",
            "FXDIV_USE_INLINE_ASSEMBLY",
        ],
    );
    for release in [SpackRelease::V0_23, SpackRelease::V1] {
        let s = score(&reference, &generated, ScoreOptions { release });
        assert!(close(s.s_d, 0.75), "{s:?}");
        assert!(close(s.s_d_semantic, 0.75), "{s:?}");
        assert!(close(s.s_v, 1.0), "{s:?}");
        assert!(close(s.key_precision, 2.0 / 3.0), "{s:?}");
        assert_eq!(s.key_extras, 1);
        assert!(close(s.dep_precision, 1.0), "{s:?}");
        assert_eq!(s.deps.missing, [r#"depends_on("python", type="build")"#]);
        assert!(s.deps.inherited_reference.is_empty());
        assert_eq!(s.keys.extra, ["fxdiv_use_inline_assembly"]);
    }
}

#[test]
fn no_reference_keys_leaves_s_v_undefined() {
    let reference = recipe(&["CMakePackage"], vec![dep("zlib", None, &[])], &[]);
    let generated = recipe(&["CMakePackage"], vec![dep("zlib", None, &[])], &["FOO"]);
    let s = score(&reference, &generated, ScoreOptions::default());
    assert_eq!(s.s_v, None);
    assert!(close(s.key_precision, 0.0));
    assert_eq!(s.key_extras, 1);
}

#[test]
fn keys_compare_case_insensitively_after_trimming() {
    let reference = recipe(&[], vec![], &["BUILD_TESTING", "ENABLE_MPI"]);
    let generated = recipe(&[], vec![], &[" build_testing ", "Enable_Mpi"]);
    let s = score(&reference, &generated, ScoreOptions::default());
    assert!(close(s.s_v, 1.0));
}

/// A reference whose only deps are exact copies of inherited ones has no
/// own deps: SpackIt scores 0.0 (not undefined); the semantic score says None.
#[test]
fn no_own_reference_deps() {
    let reference = recipe(
        &["CMakePackage"],
        vec![dep("cmake", Some("build_system=cmake"), &["build"])],
        &[],
    );
    let generated = recipe(&["CMakePackage"], vec![dep("zlib", None, &[])], &[]);
    let s = score(&reference, &generated, ScoreOptions::default());
    assert!(close(s.s_d, 0.0));
    assert_eq!(s.s_d_semantic, None);
    assert_eq!(s.deps.inherited_reference.len(), 1);
    assert_eq!(
        s.deps.extra,
        [r#"depends_on("zlib", type=("build", "link"))"#]
    );
    assert!(close(s.dep_precision, 0.0));
}

/// Inherited removal is exact equality and per side's own bases.
#[test]
fn inherited_removal_is_exact_and_per_side() {
    let redeclared = dep(
        "ninja",
        Some("generator=ninja build_system=cmake"),
        &["build"],
    );
    let reference = recipe(
        &["CMakePackage"],
        vec![redeclared.clone(), dep("zlib", None, &[])],
        &[],
    );
    // The generated recipe is an AutotoolsPackage: its ninja stays.
    let generated = recipe(
        &["AutotoolsPackage"],
        vec![redeclared, dep("zlib", None, &[])],
        &[],
    );
    let s = score(&reference, &generated, ScoreOptions::default());
    assert_eq!(
        s.deps.inherited_reference.len(),
        1,
        "canonical order makes the conditions equal"
    );
    assert!(s.deps.inherited_generated.is_empty());
    assert!(close(s.s_d, 1.0));
    assert_eq!(s.deps.extra.len(), 1);
    assert!(close(s.dep_precision, 0.5));
}

/// Conditions differ: M = 0.6 + 0.2 + 0.1 (spec) + 0 = 0.9 textually; the
/// semantic score gives half credit because `+mpi` and no condition overlap.
#[test]
fn conditions_differ() {
    let reference = recipe(&[], vec![dep("mpi", Some("+mpi"), &[])], &[]);
    let generated = recipe(&[], vec![dep("mpi", None, &[])], &[]);
    let s = score(&reference, &generated, ScoreOptions::default());
    assert!(close(s.s_d, 0.9), "{s:?}");
    assert!(close(s.s_d_semantic, 0.95), "{s:?}");
}

/// Types differ: reference build+link, generated build only:
/// M = 0.6 + 0.2·(1/2) + 0.1 + 0.1 = 0.9. Precision normalises by the
/// generated side's one type: 0.6 + 0.2·1 + 0.2 = 1.0.
#[test]
fn types_differ() {
    let reference = recipe(&[], vec![dep("zlib", None, &["build", "link"])], &[]);
    let generated = recipe(&[], vec![dep("zlib", None, &["build"])], &[]);
    let s = score(&reference, &generated, ScoreOptions::default());
    assert!(close(s.s_d, 0.9), "{s:?}");
    assert!(close(s.dep_precision, 1.0), "{s:?}");
    // No `type=` means build+link, as in Spack.
    let generated = recipe(&[], vec![dep("zlib", None, &[])], &[]);
    assert!(close(
        score(&reference, &generated, ScoreOptions::default()).s_d,
        1.0
    ));
}

/// Textual spec comparison uses Spack's canonical form, so attribute order
/// does not matter; a different but compatible range loses γ textually and
/// half of it semantically.
#[test]
fn specs_compare_canonically_then_semantically() {
    let reference = recipe(
        &[],
        vec![
            dep("hdf5@1.10:+mpi~fortran", None, &[]),
            dep("cmake@3.5:", None, &["build"]),
        ],
        &[],
    );
    let generated = recipe(
        &[],
        vec![
            dep("hdf5~fortran+mpi@1.10:", None, &[]),
            dep("cmake@3.10:", None, &["build"]),
        ],
        &[],
    );
    let s = score(&reference, &generated, ScoreOptions::default());
    assert!(close(s.s_d, (1.0 + 0.9) / 2.0), "{s:?}");
    assert!(close(s.s_d_semantic, (1.0 + 0.95) / 2.0), "{s:?}");
}

/// Non-exclusive: one generated dep serves two reference deps of that name.
#[test]
fn best_match_is_non_exclusive() {
    let reference = recipe(
        &[],
        vec![dep("mpi", None, &[]), dep("mpi@3:", Some("+mpi3"), &[])],
        &[],
    );
    let generated = recipe(&[], vec![dep("mpi", None, &[])], &[]);
    let s = score(&reference, &generated, ScoreOptions::default());
    assert!(close(s.s_d, (1.0 + 0.8) / 2.0), "{s:?}");
}

#[test]
fn base_class_table_covers_the_common_classes() {
    let known: Vec<&str> = known_base_classes().collect();
    let mut sorted = known.clone();
    sorted.sort_by_key(|n| n.to_lowercase());
    assert_eq!(known, sorted, "keep the table sorted");
    for class in [
        "CMakePackage",
        "AutotoolsPackage",
        "MesonPackage",
        "PythonPackage",
        "CudaPackage",
        "ROCmPackage",
        "Package",
    ] {
        assert!(known.contains(&class), "{class}");
    }
    let cached = inherited_dependencies("CachedCMakePackage", SpackRelease::V1);
    assert!(
        cached.iter().any(|d| d.spec == "cmake"),
        "parents are included"
    );
    assert!(cached.iter().any(|d| d.spec == "cxx"));
    assert!(
        inherited_dependencies("CachedCMakePackage", SpackRelease::V0_23)
            .iter()
            .all(|d| d.spec != "cxx")
    );
    let cuda = inherited_dependencies("CudaPackage", SpackRelease::V1);
    assert!(cuda
        .iter()
        .any(|d| d.spec == "cuda@12.8:" && d.when.as_deref() == Some("cuda_arch=100")));
    // Every table entry must itself be a valid spec.
    for class in known {
        for release in [SpackRelease::V0_23, SpackRelease::V1] {
            for d in inherited_dependencies(class, release) {
                packsmith_spack_knowledge::spec::parse(&d.spec)
                    .unwrap_or_else(|e| panic!("{class}: {e}"));
                if let Some(w) = &d.when {
                    packsmith_spack_knowledge::spec::parse(w)
                        .unwrap_or_else(|e| panic!("{class}: {e}"));
                }
            }
        }
    }
}

#[test]
fn scores_serialise() {
    let s = score(
        &ScoreRecipe::default(),
        &ScoreRecipe::default(),
        ScoreOptions::default(),
    );
    let json = serde_json::to_value(&s).unwrap_or_default();
    assert_eq!(json["s_d"], 0.0);
    assert!(json["s_v"].is_null());
}
