//! Python: `buildPythonPackage` for a library (python-modules style, called
//! from `python3Packages`), `python3Packages.buildPythonApplication` for an
//! application (top-level style); `pyproject = true` with the build system
//! taken from the PEP 517 backend.

use packsmith_core::PythonRequirement;

use super::{Draft, TemplateInput};
use crate::fetch::quote;
use crate::hash::FAKE_HASH_EXPR;

/// Distributions whose nixpkgs attribute is not their normalised name.
const RENAMED: &[(&str, &str)] = &[
    ("opencv-python", "opencv4"),
    ("opencv-python-headless", "opencv4"),
    ("opencv-contrib-python", "opencv4"),
    ("pyqt5", "pyqt5"),
    ("tensorflow-cpu", "tensorflow"),
    ("msgpack-python", "msgpack"),
];

/// A requirement's marker, spaces dropped and quotes made double.
fn marker_of(r: &PythonRequirement) -> String {
    r.marker
        .as_deref()
        .unwrap_or_default()
        .replace(' ', "")
        .replace('\'', "\"")
}

/// Requirements nixpkgs leaves out: packaging tools the builder brings,
/// backports for Pythons older than any nixpkgs ships, Windows-only ones.
fn left_out(r: &PythonRequirement) -> bool {
    let marker = marker_of(r);
    r.name == "wheel"
        || r.name == "pip"
        || marker.contains("python_version<")
        || marker.contains("python_full_version<")
        || marker.contains("sys_platform==\"win32\"")
        || marker.contains("platform_system==\"Windows\"")
        || marker.contains("extra==")
}

/// A requirement only macOS installs (`sys_platform == 'darwin'`, pyobjc
/// and the like): nixpkgs lists it under `stdenv.hostPlatform.isDarwin`,
/// as most such packages do not evaluate on Linux.
fn darwin_only(r: &PythonRequirement) -> bool {
    let marker = marker_of(r);
    let raw = r.marker.as_deref().unwrap_or_default();
    !raw.split_whitespace().any(|w| w == "or")
        && (marker.contains("sys_platform==\"darwin\"")
            || marker.contains("platform_system==\"Darwin\""))
}

/// The nixpkgs Python attributes for `requirements`, in their order
/// (those only macOS installs apart, see [`darwin_requirements`]).
pub(crate) fn nixpkgs_requirements(requirements: &[PythonRequirement]) -> Vec<String> {
    attributes(requirements.iter().filter(|r| !darwin_only(r)))
}

/// The nixpkgs Python attributes of the requirements only macOS installs.
pub(crate) fn darwin_requirements(requirements: &[PythonRequirement]) -> Vec<String> {
    attributes(requirements.iter().filter(|r| darwin_only(r)))
}

fn attributes<'a>(requirements: impl Iterator<Item = &'a PythonRequirement>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // Test tools (a requirements file of pytest and its plugins) belong
    // to the check, not to the package's dependencies.
    for r in requirements.filter(|r| !left_out(r) && !super::python_checks::is_test_tool(&r.name)) {
        let name = r.name.to_ascii_lowercase().replace(['_', '.'], "-");
        let attr = RENAMED
            .iter()
            .find(|(from, _)| *from == name)
            .map_or(name, |(_, to)| (*to).to_string());
        super::derived::push_once(&mut out, &attr);
    }
    out
}

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
    // The backend's package first, then the other build requirements.
    let mut systems = vec![name.to_string()];
    for r in &input.python_build_requires {
        if !systems.contains(r) {
            systems.push(r.clone());
        }
    }
    let list = python_list(&mut d, "build-system", &systems, application);
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
    if !input.python_dependencies.is_empty() || !input.python_darwin_dependencies.is_empty() {
        let list = dependencies_list(&mut d, &input, application);
        d.block([list]);
    }
    if !input.python_check_inputs.is_empty() {
        let list = python_list(
            &mut d,
            "nativeCheckInputs",
            &input.python_check_inputs,
            application,
        );
        d.block([list]);
    }
    if !application {
        let module = input.pname.to_ascii_lowercase().replace(['-', '.'], "_");
        d.block([format!("pythonImportsCheck = [ {} ];", quote(&module))]);
    }
    d.meta(&input);
    d
}

/// `dependencies = [ … ] ++ lib.optionals stdenv.hostPlatform.isDarwin [ … ];`
/// (either part may be absent), in the style of [`python_list`].
fn dependencies_list(d: &mut Draft, input: &TemplateInput, application: bool) -> String {
    let (common, darwin) = (
        &input.python_dependencies,
        &input.python_darwin_dependencies,
    );
    if !application {
        for i in common.iter().chain(darwin) {
            d.input(i);
        }
    }
    let mut parts = Vec::new();
    if !common.is_empty() {
        parts.push(format!("[ {} ]", common.join(" ")));
    }
    if !darwin.is_empty() {
        d.input("stdenv");
        parts.push(format!(
            "lib.optionals stdenv.hostPlatform.isDarwin [ {} ]",
            darwin.join(" ")
        ));
    }
    let scope = if application {
        "with python3Packages; "
    } else {
        ""
    };
    format!("dependencies = {scope}{};", parts.join(" ++ "))
}

/// `name = [ … ];`: for an application the attributes come from
/// `python3Packages`, for a library each is an input of the function.
fn python_list(d: &mut Draft, name: &str, items: &[String], application: bool) -> String {
    if application {
        format!("{name} = with python3Packages; [ {} ];", items.join(" "))
    } else {
        for i in items {
            d.input(i);
        }
        format!("{name} = [ {} ];", items.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use packsmith_core::Evidence;

    use super::*;

    fn req(name: &str, marker: Option<&str>) -> PythonRequirement {
        PythonRequirement {
            name: name.into(),
            extras: Vec::new(),
            specifier: String::new(),
            marker: marker.map(Into::into),
            evidence: Evidence::file("pyproject.toml"),
        }
    }

    #[test]
    fn requirements_become_nixpkgs_attributes() {
        let reqs = [
            req("requests", None),
            req("typing_extensions", Some("python_version < \"3.11\"")),
            req("colorama", Some("sys_platform == \"win32\"")),
            req("opencv-python", None),
            req("wheel", None),
            req("attrs", Some("python_version >= \"3.8\"")),
            req("requests", None),
            req("pywin32", Some("sys_platform == 'win32'")),
            req(
                "pyobjc-core",
                Some("sys_platform == 'darwin' and platform_release >= '22.0'"),
            ),
            req(
                "pyobjc-framework-Cocoa",
                Some("platform_system == \"Darwin\""),
            ),
            req(
                "anyplatform",
                Some("sys_platform == 'darwin' or sys_platform == 'linux'"),
            ),
        ];
        assert_eq!(
            nixpkgs_requirements(&reqs),
            ["requests", "opencv4", "attrs", "anyplatform"]
        );
        assert_eq!(
            darwin_requirements(&reqs),
            ["pyobjc-core", "pyobjc-framework-cocoa"]
        );
    }
}
