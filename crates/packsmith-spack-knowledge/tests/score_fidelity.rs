//! Fidelity to the human recipe (issue 13 item 5): package-level recall and
//! precision of link/run dependencies, test-only dependencies apart, and
//! variant recall, read from recipe text through the recipe reader.

use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::score::{score, Fidelity, ScoreOptions, ScoreRecipe};

fn fidelity(reference: &str, generated: &str) -> Fidelity {
    let read = |text: &str, path: &str| ScoreRecipe::from_recipe(&parse_recipe(text, path));
    score(
        &read(reference, "ref/package.py"),
        &read(generated, "gen/package.py"),
        ScoreOptions::default(),
    )
    .fidelity
}

/// A human recipe in the shape of Spack's: build tools, a virtual, a
/// dependency behind a variant, one with a version range, a test-only one.
const REFERENCE: &str = r#"
from spack.package import *

class Quillo(CMakePackage):
    """Quillo reads quill files."""
    homepage = "https://example.org/quillo"
    variant("mpi", default=False, description="MPI support")
    variant("shared-libs", default=True, description="Shared libraries")
    variant("docs", default=False, description="Documentation")
    depends_on("c", type="build")
    depends_on("cmake@3.16:", type="build")
    depends_on("zlib-api")
    depends_on("hdf5@1.12:")
    depends_on("hdf5+mpi", when="+mpi")
    depends_on("mpi", when="+mpi")
    depends_on("lapack")
    depends_on("py-numpy", type=("build", "run"))
    depends_on("googletest", type="test")
"#;

#[test]
fn providers_count_for_their_virtual_and_build_tools_do_not_count() {
    let generated = r#"
from spack.package import *

class Quillo(CMakePackage):
    variant("mpi", default=False, description="MPI")
    variant("shared_libs", default=True, description="Shared")
    variant("tests", default=False, description="Tests")
    depends_on("cxx", type="build")
    depends_on("ninja", type="build")
    depends_on("zlib")
    depends_on("hdf5@1.14")
    depends_on("openblas")
    depends_on("mpi", when="+mpi")
    depends_on("boost")
"#;
    let f = fidelity(REFERENCE, generated);
    // zlib stands for zlib-api, openblas for lapack; hdf5@1.14 is inside
    // 1.12:. py-numpy is missing. Build tools are no one's business here.
    assert_eq!(f.deps_found, ["hdf5", "lapack", "mpi", "zlib-api"]);
    assert_eq!(f.deps_missing, ["py-numpy"]);
    assert_eq!(f.deps_extra, ["boost"]);
    assert_eq!(f.dep_recall, Some(4.0 / 5.0));
    assert_eq!(f.dep_precision, Some(4.0 / 5.0));
    // Test-only dependencies are apart from both figures.
    assert_eq!(f.test_deps_reference, ["googletest"]);
    assert!(f.test_deps_generated.is_empty());
    // `shared-libs` and `shared_libs` are one variant; `docs` is missing.
    assert_eq!(f.variant_recall, Some(2.0 / 3.0));
    assert_eq!(f.variants_missing, ["docs"]);
    assert_eq!(f.variants_extra, ["tests"]);
}

#[test]
fn disjoint_versions_of_one_package_are_not_the_same_dependency() {
    let reference = r#"
class A(CMakePackage):
    depends_on("fmt@10:")
"#;
    let old = r#"
class A(CMakePackage):
    depends_on("fmt@8")
"#;
    let f = fidelity(reference, old);
    assert_eq!(f.dep_recall, Some(0.0));
    assert_eq!(f.dep_precision, Some(0.0));
    assert_eq!(f.deps_missing, ["fmt"]);
    assert_eq!(f.deps_extra, ["fmt"]);
    let any = r#"
class A(CMakePackage):
    depends_on("fmt")
"#;
    assert_eq!(fidelity(reference, any).dep_recall, Some(1.0));
}

#[test]
fn nothing_to_measure_is_none_not_zero() {
    let header_only = r#"
class A(CMakePackage):
    depends_on("cmake@3.5:", type="build")
"#;
    let f = fidelity(header_only, header_only);
    assert_eq!(f.dep_recall, None);
    assert_eq!(f.dep_precision, None);
    assert_eq!(f.variant_recall, None);
    // A generated recipe that adds a library the human one lacks has
    // precision 0 while recall stays unmeasured.
    let with_lib = r#"
class A(CMakePackage):
    depends_on("zlib-api")
"#;
    let f = fidelity(header_only, with_lib);
    assert_eq!(f.dep_recall, None);
    assert_eq!(f.dep_precision, Some(0.0));
}

#[test]
fn extends_is_a_run_dependency() {
    let reference = r#"
class PyA(PythonPackage):
    extends("python")
    depends_on("py-setuptools", type="build")
"#;
    let generated = r#"
class PyA(PythonPackage):
    depends_on("python@3.8:", type=("build", "run"))
    depends_on("py-setuptools", type="build")
"#;
    let f = fidelity(reference, generated);
    assert_eq!(f.dep_recall, Some(1.0), "{f:?}");
    assert_eq!(f.dep_precision, Some(1.0), "{f:?}");
}

#[test]
fn dependencies_of_other_releases_do_not_count() {
    // The human recipe keeps boost for its old releases only.
    let reference = r#"
class YamlThing(CMakePackage):
    version("0.8.0", sha256="0" * 64)
    version("0.5.3", sha256="1" * 64)
    depends_on("boost@:1.66", when="@0.5.0:0.5.3")
    depends_on("zlib-api", when="@0.6:")
"#;
    let packaged = |v: &str| {
        format!(
            "class YamlThing(CMakePackage):\n    version(\"{v}\", sha256=\"{}\")\n    depends_on(\"zlib-api\")\n",
            "0".repeat(64)
        )
    };
    let f = fidelity(reference, &packaged("0.8.0"));
    assert_eq!(f.deps_found, ["zlib-api"]);
    assert!(f.deps_missing.is_empty(), "{f:?}");
    assert_eq!(f.dep_recall, Some(1.0));
    // Packaging the old release, boost counts and zlib-api does not.
    let f = fidelity(reference, &packaged("0.5.3"));
    assert_eq!(f.deps_missing, ["boost"]);
    assert_eq!(f.deps_extra, ["zlib-api"]);
}

/// The default configuration: what a plain `spack install` of each recipe
/// pulls in, each `when=` decided by the recipe's own variant defaults on
/// Linux. An opt-in feature the human recipe does not offer (examples,
/// readline support) is no extra there; a default-on one still counts.
#[test]
fn the_default_configuration_counts_what_a_plain_install_pulls_in() {
    let reference = r#"
class Quillo(CMakePackage):
    variant("mpi", default=True, description="MPI")
    variant("build_type", default="Release", values=("Release", "Debug"), description="Type")
    depends_on("zlib-api")
    depends_on("mpi", when="+mpi")
    depends_on("valgrind", when="build_type=Debug")
    depends_on("libunwind", when="platform=darwin")
    depends_on("hip", when="+rocm")
"#;
    let generated = r#"
class Quillo(CMakePackage):
    variant("examples", default=False, description="Examples")
    variant("readline", default=False, description="Readline")
    variant("tools", default=True, description="Tools")
    depends_on("zlib-api")
    depends_on("eigen", when="+examples")
    depends_on("readline", when="+readline")
    depends_on("ncurses", when="+tools")
"#;
    let f = fidelity(reference, generated);
    // Declared anywhere: mpi, valgrind, libunwind, hip are missing; eigen,
    // readline, ncurses are extra.
    assert_eq!(f.dep_recall, Some(1.0 / 5.0), "{f:?}");
    assert_eq!(f.dep_precision, Some(1.0 / 4.0), "{f:?}");
    // By default the human recipe pulls zlib-api and mpi, the generated
    // one zlib-api and ncurses.
    assert_eq!(f.default_dep_recall, Some(0.5), "{f:?}");
    assert_eq!(f.default_dep_precision, Some(0.5), "{f:?}");
    assert_eq!(f.default_deps_missing, ["mpi"]);
    assert_eq!(f.default_deps_extra, ["ncurses"]);
}
