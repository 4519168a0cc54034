//! Tauri apps: `rustPlatform.buildRustPackage` with `cargo-tauri.hook`,
//! which runs `cargo tauri build` (the web frontend first), written as the
//! nixpkgs manual's Tauri section writes them.

use packsmith_core::RepoFacts;
use serde::{Deserialize, Serialize};

use super::{DerivedInputs, Draft};
use crate::hash::FAKE_HASH_EXPR;

/// What makes a Rust package a Tauri app's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TauriApp {
    /// The crate's directory when not the top level (`src-tauri`), for
    /// `cargoRoot`.
    pub cargo_root: Option<String>,
    /// The top-level web frontend's lock file (`package-lock.json`), if any.
    pub frontend_lockfile: Option<String>,
}

impl TauriApp {
    /// A program whose crates include `tauri`; a Tauri plugin is a library
    /// and stays a plain Rust package.
    pub fn from_facts(facts: &RepoFacts) -> Option<Self> {
        let cargo = facts.cargo.as_ref()?;
        let uses_tauri = cargo.locked_packages.iter().any(|p| p == "tauri")
            || cargo.dependencies.iter().any(|d| d.name == "tauri");
        (uses_tauri && !cargo.binaries.is_empty()).then(|| Self {
            cargo_root: cargo.root.clone(),
            frontend_lockfile: facts.npm.as_ref().and_then(|n| n.lockfile.clone()),
        })
    }
}

/// Linked on every platform; the rest of what the crates link (the
/// GTK/WebKit stack, udev, …) serves the Linux build only, as macOS and
/// Windows bring their own web view.
const EVERY_PLATFORM: &[&str] = &["openssl", "curl", "sqlite"];

/// What every Tauri app needs on Linux besides its crates' libraries:
/// WebKitGTK, and glib-networking for TLS in the web view.
const LINUX_LIBRARIES: &[&str] = &["glib-networking", "webkitgtk_4_1"];

const IS_LINUX: &str = "lib.optionals stdenv.hostPlatform.isLinux";

/// The frontend's dependencies, inputs and the Cargo root, after
/// `cargoHash`.
pub(super) fn attributes(d: &mut Draft, app: &TauriApp, derived: &DerivedInputs) {
    let mut native = vec!["cargo-tauri.hook"];
    match app.frontend_lockfile.as_deref() {
        Some("package-lock.json") => {
            d.input("fetchNpmDeps");
            d.block([
                "npmDeps = fetchNpmDeps {".to_string(),
                "  name = \"${finalAttrs.pname}-${finalAttrs.version}-npm-deps\";".to_string(),
                "  inherit (finalAttrs) src;".to_string(),
                format!("  hash = {FAKE_HASH_EXPR};"),
                "};".to_string(),
            ]);
            native.extend(["nodejs", "npmHooks.npmConfigHook"]);
        }
        Some(other) => {
            d.block([format!(
                "# FIXME: fetch the frontend's dependencies ({other}) and add its config hook"
            )]);
            native.push("nodejs");
        }
        // A frontend of static files needs no Node.js.
        None => {}
    }
    native.push("pkg-config");
    for n in &derived.native {
        if !native.contains(&n.as_str()) {
            native.push(n);
        }
    }
    platform_list(d, "nativeBuildInputs", &native, &["wrapGAppsHook4"]);

    let (every, mut linux): (Vec<&str>, Vec<&str>) = derived
        .build
        .iter()
        .map(String::as_str)
        .partition(|attr| EVERY_PLATFORM.contains(attr));
    for lib in LINUX_LIBRARIES {
        if !linux.contains(lib) {
            linux.push(lib);
        }
    }
    linux.sort_unstable();
    platform_list(d, "buildInputs", &every, &linux);

    d.env_settings(&derived.flags);
    if let Some(root) = &app.cargo_root {
        d.block([
            format!("cargoRoot = {};", crate::fetch::quote(root)),
            "buildAndTestSubdir = finalAttrs.cargoRoot;".to_string(),
        ]);
    }
}

/// `name = [ every ] ++ lib.optionals stdenv.hostPlatform.isLinux [ linux ];`
/// in nixfmt's layout, leaving out an empty part.
fn platform_list(d: &mut Draft, name: &str, every: &[&str], linux: &[&str]) {
    for attr in every.iter().chain(linux) {
        d.input(attr.split('.').next().unwrap_or(attr));
    }
    let lines = if linux.is_empty() {
        list_lines(&format!("{name} = "), every, ";")
    } else {
        d.input("stdenv");
        if every.is_empty() {
            list_lines(&format!("{name} = {IS_LINUX} "), linux, ";")
        } else {
            let mut lines = list_lines(&format!("{name} = "), every, "");
            lines.extend(list_lines(&format!("++ {IS_LINUX} "), linux, ";"));
            lines
        }
    };
    d.block(lines);
}

/// `[ a ]` on one line, or one element per line for two or more.
fn list_lines(head: &str, items: &[&str], end: &str) -> Vec<String> {
    match items {
        [] => vec![format!("{head}[ ]{end}")],
        [one] => vec![format!("{head}[ {one} ]{end}")],
        _ => {
            let mut lines = vec![format!("{head}[")];
            lines.extend(items.iter().map(|i| format!("  {i}")));
            lines.push(format!("]{end}"));
            lines
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(app: &TauriApp, derived: &DerivedInputs) -> String {
        let mut d = Draft::new("rustPlatform.buildRustPackage (finalAttrs: {", "})");
        attributes(&mut d, app, derived);
        d.render()
    }

    /// flying-carpet's shape: a workspace at the top, a frontend of static
    /// files, and libraries every platform links.
    #[test]
    fn a_top_level_workspace_with_a_static_frontend() {
        let app = TauriApp {
            cargo_root: None,
            frontend_lockfile: None,
        };
        let derived = DerivedInputs {
            native: vec!["pkg-config".into()],
            build: vec!["openssl".into(), "dbus".into(), "webkitgtk_4_1".into()],
            flags: vec!["OPENSSL_NO_VENDOR = true".into()],
            ..DerivedInputs::default()
        };
        let text = rendered(&app, &derived);
        assert!(
            text.contains(
                "  buildInputs = [\n    openssl\n  ]\n  \
                 ++ lib.optionals stdenv.hostPlatform.isLinux [\n    \
                 dbus\n    glib-networking\n    webkitgtk_4_1\n  ];\n"
            ),
            "{text}"
        );
        assert!(text.contains("  env.OPENSSL_NO_VENDOR = true;\n"), "{text}");
        for absent in ["nodejs", "npmDeps", "cargoRoot"] {
            assert!(!text.contains(absent), "{absent}: {text}");
        }
    }

    #[test]
    fn a_program_using_tauri_is_an_app_and_a_plugin_is_not() {
        use packsmith_core::{CargoFacts, NpmFacts, SourceInfo};
        let mut facts = RepoFacts::empty(SourceInfo {
            kind: "path".into(),
            given: "/src/app".into(),
            release_tag: None,
        });
        facts.cargo = Some(CargoFacts {
            locked_packages: vec!["serde".into(), "tauri".into()],
            root: Some("src-tauri".into()),
            ..CargoFacts::default()
        });
        facts.npm = Some(NpmFacts {
            lockfile: Some("package-lock.json".into()),
            ..NpmFacts::default()
        });
        assert_eq!(TauriApp::from_facts(&facts), None, "a plugin: no program");
        if let Some(c) = facts.cargo.as_mut() {
            c.binaries = vec!["app".into()];
        }
        assert_eq!(
            TauriApp::from_facts(&facts),
            Some(TauriApp {
                cargo_root: Some("src-tauri".into()),
                frontend_lockfile: Some("package-lock.json".into()),
            })
        );
    }

    #[test]
    fn a_frontend_locked_by_another_tool_is_left_to_a_fixme() {
        let app = TauriApp {
            cargo_root: Some("src-tauri".into()),
            frontend_lockfile: Some("yarn.lock".into()),
        };
        let text = rendered(&app, &DerivedInputs::default());
        assert!(
            text.contains("# FIXME: fetch the frontend's dependencies (yarn.lock)"),
            "{text}"
        );
        assert!(
            text.contains("    nodejs\n") && !text.contains("npmConfigHook"),
            "{text}"
        );
        assert!(text.contains("  cargoRoot = \"src-tauri\";\n"), "{text}");
    }
}
