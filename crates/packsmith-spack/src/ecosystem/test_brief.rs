//! A bare brief for the ecosystem's unit tests: a CMake package with no
//! dependencies, variants or defines, which each test fills in as it needs.

use packsmith_spack_draft::brief::SpackBrief;

pub(crate) fn bare_brief(package: &str, class_name: &str) -> SpackBrief {
    serde_json::from_value(serde_json::json!({
        "target": "0.23", "package": package, "class_name": class_name, "build_system": null,
        "base_classes": ["CMakePackage"], "description": null, "homepage": null,
        "license": null, "fetch": {"version": "1.0", "url": null, "sha256": null, "git": null,
        "tag": null, "commit": null, "submodules": false}, "variants": [],
        "dependencies": [], "optional_dependencies": [], "language_virtuals": [],
        "cmake_constraint": null, "defines": [], "notes": []
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}
