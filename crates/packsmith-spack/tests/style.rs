//! The review gate's style item with Spack's real style tools, which
//! `setup_spack` installs beside the Spack of PACKSMITH_TEST_SPACK: what
//! packsmith writes (a draft with a long variant description and a link
//! smoke test) passes isort, black and flake8 with Spack's configuration,
//! and a line black would rewrap does not. Skipped with a loud SKIPPED
//! line without PACKSMITH_TEST_SPACK or the tools (no network at set-up).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use packsmith_spack::review::review;
use packsmith_spack::style::StyleTools;
use packsmith_spack::validate::SpackSetup;
use packsmith_spack_knowledge::edit::smoke::{add_smoke_test, LinkCheck, SmokeTest};

fn tools_or_skip(test: &str) -> Option<StyleTools> {
    let run = tempfile::tempdir().unwrap();
    let found = crate::spack_real::test_spack_env()
        .and_then(|env| SpackSetup::from_env_script(&env, run.path()).map_err(|e| e.to_string()))
        .and_then(|setup| StyleTools::find(&setup.env));
    match found {
        Ok(tools) => Some(tools),
        Err(e) => {
            eprintln!("SKIPPED: no Spack style tools for {test} ({e}); set PACKSMITH_TEST_SPACK=/path/to/spack-checkout");
            None
        }
    }
}

const RECIPE: &str = r#"# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)

from spack.package import *


class Demo(CMakePackage):
    """A demo library."""

    homepage = "https://github.com/o/demo"
    url = "https://github.com/o/demo/archive/refs/tags/v1.0.tar.gz"

    license("MIT")

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    variant(
        "openmp",
        default=True,
        description="Whether demo will be built with shared-memory parallelism support using "
        "OpenMP. Turned ON by default.",
    )

    depends_on("cmake@3.16:", type="build")

    def cmake_args(self):
        return [self.define_from_variant("DEMO_OPENMP", "openmp")]
"#;

#[test]
fn what_packsmith_writes_passes_spacks_style_tools() {
    let Some(tools) = tools_or_skip("what_packsmith_writes_passes_spacks_style_tools") else {
        return;
    };
    // A C++ library whose mangled symbol makes the smoke test's lines long.
    let check = LinkCheck {
        library: "demo_with_a_rather_long_library_name".into(),
        lib_dir: "lib64".into(),
        header: "demo/detail/a_rather_long_header_name_for_the_demo_library.hpp".into(),
        symbol: "_ZN4demo6detail28a_rather_long_function_nameEv".into(),
        cxx: true,
        mpi: false,
    };
    let test = SmokeTest {
        links: vec![check],
        ..SmokeTest::default()
    };
    let recipe = add_smoke_test(RECIPE, &test).unwrap().unwrap();
    let found = tools.check(&recipe).unwrap();
    assert!(found.problems.is_empty(), "{:#?}\n{recipe}", found.problems);
    let items = review(&recipe, Some(true), Ok(&tools));
    let style = items.iter().find(|i| i.check == "style").unwrap();
    assert!(style.passed, "{style:?}");
    assert!(style.detail.contains("flake8"), "{style:?}");
}

#[test]
fn a_call_black_would_rewrap_fails_the_style_item() {
    let Some(tools) = tools_or_skip("a_call_black_would_rewrap_fails_the_style_item") else {
        return;
    };
    let long = RECIPE.replace(
        "        return [self.define_from_variant(\"DEMO_OPENMP\", \"openmp\")]\n",
        "        return [self.define_from_variant(\"DEMO_OPENMP_WITH_A_LONG_NAME\", \"openmp\"), self.define(\"X\", True)]\n",
    );
    let found = tools.check(&long).unwrap();
    assert!(
        found
            .problems
            .iter()
            .any(|p| p.contains("black would reformat line(s) ")),
        "{:#?}",
        found.problems
    );
    assert!(
        found.problems.iter().any(|p| p.contains("E501")),
        "{:#?}",
        found.problems
    );
    let unsorted = RECIPE.replace(
        "from spack.package import *\n",
        "import os\nfrom spack.package import *\nimport sys\n",
    );
    let found = tools.check(&unsorted).unwrap();
    assert!(
        found.problems.iter().any(|p| p.starts_with("isort")),
        "{:#?}",
        found.problems
    );
}
