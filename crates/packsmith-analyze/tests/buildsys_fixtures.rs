//! Snapshot tests for the Autotools, Meson, Python, Cargo, Go and npm readers.

fixture_snapshots!(
    autotools_with_enable,
    meson_choices,
    meson_gnome_app,
    python_pyproject_app,
    python_setup_py,
    cargo_workspace,
    go_module,
    npm_package,
    bad_manifests,
);
