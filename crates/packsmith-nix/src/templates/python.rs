//! Python: `buildPythonPackage` for a library (python-modules style, called
//! from `python3Packages`), `python3Packages.buildPythonApplication` for an
//! application (top-level style); `pyproject = true` with the build system
//! taken from the PEP 517 backend.

use super::{Draft, TemplateInput};
use crate::fetch::quote;
use crate::hash::FAKE_HASH_EXPR;

/// PEP 517 backend → nixpkgs Python attribute.
fn build_system(backend: Option<&str>) -> Option<&'static str> {
    let b = backend.unwrap_or("setuptools.build_meta");
    Some(match b.split(':').next().unwrap_or(b) {
        "setuptools.build_meta" => "setuptools",
        "hatchling.build" => "hatchling",
        "flit_core.buildapi" => "flit-core",
        "poetry.core.masonry.api" => "poetry-core",
        "pdm.backend" => "pdm-backend",
        "scikit_build_core.build" => "scikit-build-core",
        "mesonpy" => "meson-python",
        "maturin" => "maturin",
        "uv_build" => "uv-build",
        "whey" => "whey",
        _ => return None,
    })
}

pub(super) fn draft(input: &TemplateInput, application: bool) -> Draft {
    let fa = input.python_final_attrs;
    let (func, set) = if application {
        ("python3Packages.buildPythonApplication", "python3Packages")
    } else {
        ("buildPythonPackage", "")
    };
    let open = if fa {
        format!("{func} (finalAttrs: {{")
    } else {
        format!("{func} rec {{")
    };
    let close = if fa { "})" } else { "}" };
    let mut d = Draft::new(&open, close);
    d.input(if application {
        set
    } else {
        "buildPythonPackage"
    });
    let mut input = input.clone();
    if !fa {
        input.src = input.src.rec_style();
    }
    d.header(&input);
    d.block(["pyproject = true;"]);
    let backend = input.python_build_backend.as_deref();
    let system = build_system(backend);
    let name = system.unwrap_or("setuptools");
    let list = if application {
        format!("build-system = with python3Packages; [ {name} ];")
    } else {
        d.input(name);
        format!("build-system = [ {name} ];")
    };
    let mut block = vec![list];
    if system.is_none() {
        block.push(format!(
            "# FIXME: unknown build backend `{}`",
            backend.unwrap_or_default()
        ));
    }
    d.block(block);
    if name == "maturin" {
        // maturin builds a Rust extension: vendor the crates and use its hook.
        let (cargo_setup, vendor) = if application {
            (
                "python3Packages.rustPlatform",
                "python3Packages.rustPlatform",
            )
        } else {
            d.input("rustPlatform");
            ("rustPlatform", "rustPlatform")
        };
        let inherit = if fa {
            "inherit (finalAttrs) pname version src;"
        } else {
            "inherit pname version src;"
        };
        d.block([
            format!("cargoDeps = {vendor}.fetchCargoVendor {{"),
            format!("  {inherit}"),
            format!("  hash = {FAKE_HASH_EXPR};"),
            "};".to_string(),
        ]);
        d.block([format!(
            "nativeBuildInputs = with {cargo_setup}; [ cargoSetupHook maturinBuildHook ];"
        )]);
    }
    if !application {
        let module = input.pname.to_ascii_lowercase().replace(['-', '.'], "_");
        d.block([format!("pythonImportsCheck = [ {} ];", quote(&module))]);
    }
    d.meta(&input);
    d
}
