use std::collections::BTreeSet;

use super::*;
use crate::check::{check_source, CheckOptions};
use crate::target::TargetSpack;

/// A 0.23 recipe of the usual shape. A directive in the docstring and one
/// in a comment must never be taken for real ones.
const FOO: &str = r#"# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)

from spack.package import *


class Foo(CMakePackage):
    """Foo solves bar problems; build it +mpi for depends_on("mpi", type="build")."""

    homepage = "https://example.org/foo"
    url = "https://example.org/foo/foo-1.0.tar.gz"

    version("1.1", sha256="1111111111111111111111111111111111111111111111111111111111111111")
    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    variant("mpi", default=True, description="Build with MPI support")
    variant("shared", default=True, description="Build shared libraries")
    variant(
        "precision", default="double", values=("single", "double"), description="Floating point"
    )
    variant("backend", default="openmp", values=("serial", "openmp"), description="Backend")

    depends_on("cmake@3.18:", type="build")
    depends_on("zlib-api")
    depends_on("mpi", when="+mpi")
    depends_on("hdf5+mpi", when="+mpi ~shared")
    depends_on("py-numpy", type=("build", "run"), when="@1.1:")
    # depends_on("boost", when="+mpi", type="build")

    conflicts("precision=single", when="@:1.0")

    def cmake_args(self):
        return [
            self.define_from_variant("FOO_ENABLE_MPI", "mpi"),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            self.define_from_variant("FOO_PRECISION", "precision"),
        ]
"#;

/// No dependency, no string default, no condition: no place for most classes.
const BARE: &str = r#"from spack.package import *


class Foo(Package):
    """Foo."""

    homepage = "https://example.org/foo"
    url = "https://example.org/foo/foo-1.0.tar.gz"

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    variant("docs", default=False, description="Build the manual")

    def install(self, spec, prefix):
        make("install")
"#;

/// A 1.x recipe: no `spack.package` star import, a base without a typo.
const V1: &str = r#"from spack_repo.builtin.build_systems.r import RPackage

from spack.package import version


class RFoo(RPackage):
    """Foo for R."""

    cran = "foo"

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")
"#;

fn known(name: &str) -> bool {
    ["cmake", "zlib-api", "mpi", "hdf5", "py-numpy", "foo"].contains(&name)
}

fn run(source: &str, class: MutationClass, choice: u64) -> Option<Mutant> {
    mutate(source, "foo", class, &known, choice)
}

fn must(source: &str, class: MutationClass, choice: u64) -> Mutant {
    let m = run(source, class, choice).unwrap_or_else(|| panic!("no {class} mutant"));
    assert_eq!(m.class, class);
    assert!(
        parse_recipe(&m.text, "package.py").syntax_errors.is_empty(),
        "{class} mutant does not parse:\n{}",
        m.text
    );
    assert!(valid::still_python(&m.text), "{class}: {}", m.description);
    assert_ne!(m.text, source);
    m
}

/// The lines only the original has and those only the mutant has, after
/// the common head and tail.
fn diff(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    (own(&a[head..a.len() - tail]), own(&b[head..b.len() - tail]))
}

/// Asserts one mutant's line change: `removed` → `added`, at `line`.
fn changes(m: &Mutant, removed: &[&str], added: &[&str], line: u32) {
    let (r, a) = diff(FOO, &m.text);
    assert_eq!(r, removed, "{}: {}", m.class, m.description);
    assert_eq!(a, added, "{}: {}", m.class, m.description);
    assert_eq!(m.line, line, "{}: {}", m.class, m.description);
}

fn changed(line: &str) -> Vec<&str> {
    vec![line]
}

#[test]
fn slugs_are_the_serde_names() {
    assert_eq!(MutationClass::ALL.len(), 10);
    for class in MutationClass::ALL {
        let json = serde_json::to_string(class).unwrap();
        assert_eq!(json, format!("\"{}\"", class.slug()));
        assert_eq!(MutationClass::from_slug(class.slug()), Some(*class));
    }
    assert_eq!(MutationClass::from_slug("nope"), None);
    let stage = serde_json::to_string(&MutationClass::UndeclaredVariant.predicted_stage());
    assert_eq!(stage.unwrap(), "\"audit\"");
    assert_eq!(
        MutationClass::SelfDependency.predicted_stage(),
        PredictedStage::Load
    );
}

#[test]
fn wrong_dependency_name_respells_one_literal_name() {
    use MutationClass::WrongDependencyName as C;
    let m = must(FOO, C, 0);
    changes(
        &m,
        &changed(r#"    depends_on("cmake@3.18:", type="build")"#),
        &changed(r#"    depends_on("Cmake@3.18:", type="build")"#),
        24,
    );
    assert_eq!(m.description, r#"depends_on("cmake") renamed to "Cmake""#);
    let m = must(FOO, C, 1);
    changes(
        &m,
        &changed(r#"    depends_on("zlib-api")"#),
        &changed(r#"    depends_on("zlib_api")"#),
        25,
    );
    let m = must(FOO, C, 2);
    assert!(m.text.contains(r#"    depends_on("MPI", when="+mpi")"#));
    // A name already known is not wrong: the next spelling is taken.
    let also = |n: &str| known(n) || n == "zlib_api";
    let m = mutate(FOO, "foo", C, &also, 1).unwrap();
    assert!(m.text.contains(r#"    depends_on("Zlib-api")"#));
    // Five real depends_on: the docstring and the comment do not count.
    assert_eq!(must(FOO, C, 5).text, must(FOO, C, 0).text);
    assert!(run(BARE, C, 0).is_none());
}

#[test]
fn undeclared_variant_removes_a_used_variant_whole() {
    use MutationClass::UndeclaredVariant as C;
    let m = must(FOO, C, 0);
    changes(
        &m,
        &changed(r#"    variant("mpi", default=True, description="Build with MPI support")"#),
        &[],
        17,
    );
    assert_eq!(
        m.description,
        r#"variant("mpi") removed; "+mpi" still names it"#
    );
    let m = must(FOO, C, 1);
    assert!(!m.text.contains(r#"variant("shared""#));
    assert!(m.description.contains("+mpi ~shared"), "{}", m.description);
    // The three-line variant goes as a whole; `conflicts` names it.
    let m = must(FOO, C, 2);
    changes(
        &m,
        &[
            "    variant(",
            r#"        "precision", default="double", values=("single", "double"), description="Floating point""#,
            "    )",
        ],
        &[],
        19,
    );
    // `backend` is named by no condition, `define_from_variant` is no condition.
    assert_eq!(must(FOO, C, 3).text, must(FOO, C, 0).text);
    assert!(run(BARE, C, 0).is_none());
}

#[test]
fn undeclared_variant_skips_inherited_and_unparsable_removals() {
    use MutationClass::UndeclaredVariant as C;
    // `cuda` comes from CudaPackage too; removing the only statement of a
    // `with` block would not parse.
    let src = FOO
        .replace(
            "class Foo(CMakePackage):",
            "class Foo(CMakePackage, CudaPackage):",
        )
        .replace(
            r#"    variant("mpi", default=True"#,
            r#"    variant("cuda", default=True, description="CUDA")
    with when("@1.1:"):
        variant("mpi", default=True"#,
        )
        .replace(r#"when="@1.1:")"#, r#"when="+cuda")"#);
    let m = must(&src, C, 0);
    assert!(m.text.contains(r#"variant("mpi""#));
    assert!(!m.text.contains(r#"variant("shared""#), "{}", m.description);
    // A base from another package may declare any variant.
    let src = FOO.replace(
        "class Foo(CMakePackage):",
        "class Foo(CMakePackage, FooBase):",
    );
    assert!(run(&src, C, 0).is_none());
}

#[test]
fn bad_variant_default_leaves_the_values() {
    use MutationClass::BadVariantDefault as C;
    let m = must(FOO, C, 0);
    changes(
        &m,
        &changed(
            r#"        "precision", default="double", values=("single", "double"), description="Floating point""#,
        ),
        &changed(
            r#"        "precision", default="Double", values=("single", "double"), description="Floating point""#,
        ),
        20,
    );
    let m = must(FOO, C, 1);
    assert!(m
        .text
        .contains(r#"variant("backend", default="Openmp", values=("serial", "openmp")"#));
    // The capitalised default is already a value: a plural instead.
    let src = FOO.replace(
        r#"("serial", "openmp")"#,
        r#"("serial", "openmp", "Openmp")"#,
    );
    let m = must(&src, C, 1);
    assert!(m.text.contains(r#"default="openmps""#), "{}", m.description);
    assert!(run(BARE, C, 0).is_none());
}

#[test]
fn missing_import_removes_the_star_import_only() {
    use MutationClass::MissingImport as C;
    let m = must(FOO, C, 0);
    changes(&m, &changed("from spack.package import *"), &[], 5);
    assert_eq!(must(FOO, C, 7).text, m.text);
    assert!(run(V1, C, 0).is_none());
}

#[test]
fn wrong_base_class_misspells_the_build_system() {
    use MutationClass::WrongBaseClass as C;
    let m = must(FOO, C, 0);
    changes(
        &m,
        &changed("class Foo(CMakePackage):"),
        &changed("class Foo(CmakePackage):"),
        8,
    );
    let m = must(BARE, C, 3);
    assert!(m.text.contains("class Foo(BasePackage):"));
    let src = FOO.replace(
        "class Foo(CMakePackage):",
        "class Foo(ROCmPackage, CMakePackage):",
    );
    assert!(must(&src, C, 0)
        .text
        .contains("class Foo(RocmPackage, CMakePackage):"));
    assert!(run(V1, C, 0).is_none());
}

#[test]
fn never_when_adds_the_opposite_clause() {
    use MutationClass::NeverWhen as C;
    let m = must(FOO, C, 0);
    changes(
        &m,
        &changed(r#"    depends_on("mpi", when="+mpi")"#),
        &changed(r#"    depends_on("mpi", when="+mpi ~mpi")"#),
        26,
    );
    let m = must(FOO, C, 1);
    changes(
        &m,
        &changed(r#"    depends_on("hdf5+mpi", when="+mpi ~shared")"#),
        &changed(r#"    depends_on("hdf5+mpi", when="+mpi ~mpi ~shared")"#),
        27,
    );
    // `when="@1.1:"` and `when="@:1.0"` name no variant.
    assert_eq!(must(FOO, C, 2).text, must(FOO, C, 0).text);
    assert!(run(BARE, C, 0).is_none());
}

#[test]
fn self_dependency_follows_a_depends_on() {
    use MutationClass::SelfDependency as C;
    let m = must(FOO, C, 0);
    changes(&m, &[], &changed(r#"    depends_on("foo")"#), 25);
    assert!(m
        .text
        .contains("    depends_on(\"cmake@3.18:\", type=\"build\")\n    depends_on(\"foo\")\n"));
    let m = must(FOO, C, 4);
    changes(&m, &[], &changed(r#"    depends_on("foo")"#), 29);
    assert!(run(BARE, C, 0).is_none());
}

#[test]
fn unknown_directive_keyword_renames_type_else_description() {
    use MutationClass::UnknownDirectiveKeyword as C;
    let m = must(FOO, C, 0);
    changes(
        &m,
        &changed(r#"    depends_on("cmake@3.18:", type="build")"#),
        &changed(r#"    depends_on("cmake@3.18:", types="build")"#),
        24,
    );
    let m = must(FOO, C, 1);
    assert!(m
        .text
        .contains(r#"depends_on("py-numpy", types=("build", "run"), when="@1.1:")"#));
    let m = must(BARE, C, 0);
    assert!(m
        .text
        .contains(r#"variant("docs", default=False, desc="Build the manual")"#));
    assert!(run(V1, C, 0).is_none());
}

#[test]
fn empty_string_default_blanks_a_string_default() {
    use MutationClass::EmptyStringDefault as C;
    let m = must(FOO, C, 1);
    changes(
        &m,
        &changed(
            r#"    variant("backend", default="openmp", values=("serial", "openmp"), description="Backend")"#,
        ),
        &changed(
            r#"    variant("backend", default="", values=("serial", "openmp"), description="Backend")"#,
        ),
        22,
    );
    assert!(must(FOO, C, 0)
        .text
        .contains(r#""precision", default="", values"#));
    assert!(run(BARE, C, 0).is_none());
}

#[test]
fn invalid_dependency_type_misspells_the_first_type() {
    use MutationClass::InvalidDependencyType as C;
    let m = must(FOO, C, 0);
    changes(
        &m,
        &changed(r#"    depends_on("cmake@3.18:", type="build")"#),
        &changed(r#"    depends_on("cmake@3.18:", type="buid")"#),
        24,
    );
    let m = must(FOO, C, 1);
    assert!(m.text.contains(r#"type=("buid", "run")"#));
    let src = FOO.replace(r#"type=("build", "run")"#, r#"type="run""#);
    assert!(must(&src, C, 1)
        .text
        .contains(r#"depends_on("py-numpy", type="rn""#));
    assert!(run(BARE, C, 0).is_none());
}

#[test]
fn broken_or_classless_sources_give_nothing() {
    let broken = FOO.replace("def cmake_args(self):", "def cmake_args(self:");
    let classless = "from spack.package import *\n\nX = 1\n";
    for class in MutationClass::ALL {
        assert!(run(&broken, *class, 0).is_none(), "{class}");
        assert!(run(classless, *class, 0).is_none(), "{class}");
    }
}

fn codes(text: &str) -> BTreeSet<String> {
    let opts = CheckOptions {
        spack: TargetSpack::V0_23,
        names: None,
        package: Some("foo"),
    };
    check_source(text, "package.py", &opts)
        .into_iter()
        .map(|d| d.code.to_string())
        .collect()
}

/// What the static check adds over the original, per class. Without a
/// name index the check cannot judge dependency names, and it has no rule
/// for a misspelt base class under a star import.
#[test]
fn the_static_check_flags_what_it_has_rules_for() {
    assert!(codes(FOO).is_empty(), "{:?}", codes(FOO));
    let expected: &[(MutationClass, &[&str])] = &[
        (MutationClass::WrongDependencyName, &[]),
        (MutationClass::UndeclaredVariant, &["PS601"]),
        (MutationClass::BadVariantDefault, &["PS602"]),
        (MutationClass::MissingImport, &["PS101"]),
        (MutationClass::WrongBaseClass, &[]),
        (MutationClass::NeverWhen, &["PS501"]),
        (MutationClass::SelfDependency, &["PS403"]),
        (MutationClass::UnknownDirectiveKeyword, &["PS801"]),
        // `""` is also outside `values=("single", "double")`.
        (MutationClass::EmptyStringDefault, &["PS602", "PS603"]),
        (MutationClass::InvalidDependencyType, &["PS801"]),
    ];
    for (class, want) in expected {
        let m = must(FOO, *class, 0);
        let got: Vec<String> = codes(&m.text).into_iter().collect();
        assert_eq!(got, *want, "{class}: {}", m.description);
    }
}

/// A recipe with what the install-stage classes take: fixed defines, a
/// test switch, an appended define, link dependencies and build tools.
const INSTALLABLE: &str = r#"from spack.package import *


class Bar(CMakePackage):
    """Bar."""

    homepage = "https://example.org/bar"
    url = "https://example.org/bar/bar-2.0.tar.gz"

    version("2.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    variant("mpi", default=False, description="MPI")

    depends_on("cmake@3.16:", type="build")
    depends_on("zlib-api")
    depends_on("mpi", when="+mpi")
    depends_on("py-numpy", type=("build", "run"))

    def cmake_args(self):
        args = [
            self.define("BAR_JUST_INSTALL", True),
            self.define("BAR_BUILD_TESTS", self.run_tests),
            self.define_from_variant("BAR_MPI", "mpi"),
            self.define("CMAKE_CXX_STANDARD", "17"),  # the compiler's business
        ]
        args.append(self.define("CMAKE_DISABLE_FIND_PACKAGE_Doxygen", True))
        return args
"#;

#[test]
fn install_classes_take_whole_lines_a_build_needs() {
    let classes = MutationClass::INSTALL;
    for class in classes {
        assert_eq!(class.predicted_stage(), PredictedStage::Install);
        assert_eq!(MutationClass::from_slug(class.slug()), Some(*class));
        assert!(!MutationClass::ALL.contains(class), "{class}");
    }
    use MutationClass::{RemovedDefine, RemovedDependency, TestsOn};
    // Dependencies: zlib-api and py-numpy (link, run), never cmake (build
    // only) nor mpi (conditional).
    let m = run(INSTALLABLE, RemovedDependency, 0).unwrap();
    assert!(!m.text.contains("depends_on(\"zlib-api\")"), "{}", m.text);
    assert_eq!(m.description, r#"depends_on("zlib-api") removed"#);
    let m = run(INSTALLABLE, RemovedDependency, 1).unwrap();
    assert!(!m.text.contains("py-numpy"));
    assert_eq!(
        run(INSTALLABLE, RemovedDependency, 2).unwrap().text,
        run(INSTALLABLE, RemovedDependency, 0).unwrap().text
    );
    // Fixed defines: the install switch and the appended lookup switch;
    // not the test switch, not a variant's, not the compiler's standard.
    let m = run(INSTALLABLE, RemovedDefine, 0).unwrap();
    assert!(!m.text.contains("BAR_JUST_INSTALL"), "{}", m.text);
    assert!(m.text.contains("BAR_BUILD_TESTS"));
    let m = run(INSTALLABLE, RemovedDefine, 1).unwrap();
    assert!(!m.text.contains("args.append"), "{}", m.text);
    assert!(m.text.contains("        return args"), "{}", m.text);
    assert_eq!(
        run(INSTALLABLE, RemovedDefine, 2).unwrap().text,
        run(INSTALLABLE, RemovedDefine, 0).unwrap().text
    );
    // The tests' switch on for good.
    let m = run(INSTALLABLE, TestsOn, 0).unwrap();
    assert!(
        m.text.contains(r#"self.define("BAR_BUILD_TESTS", True),"#),
        "{}",
        m.text
    );
    assert_eq!(
        m.description,
        "BAR_BUILD_TESTS set to True instead of self.run_tests"
    );
    // Each mutant still loads: the static check finds nothing new.
    for class in classes {
        let m = run(INSTALLABLE, *class, 0).unwrap();
        assert_eq!(codes(&m.text), codes(INSTALLABLE), "{class}");
    }
    assert!(run(BARE, RemovedDefine, 0).is_none());
    assert!(run(BARE, TestsOn, 0).is_none());
}
