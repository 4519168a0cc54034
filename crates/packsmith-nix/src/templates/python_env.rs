//! A Meson build that installs a Python program finds its interpreter at
//! configure time (`python.find_installation()`) and writes that path into
//! the launcher. nixpkgs gives it `pythonEnv = python3.withPackages (…)`
//! with the modules the program imports, in `nativeBuildInputs` for Meson
//! and in `buildInputs` for the launcher's interpreter.

use packsmith_core::MesonFacts;

use super::derived::{push_once, DerivedInputs};
use super::Draft;

/// Adds `pythonEnv` when the Meson build imports its Python module; its
/// packages are PyGObject when the program loads GObject libraries.
pub(super) fn add_python_env(meson: &MesonFacts, uses_gi: bool, out: &mut DerivedInputs) {
    if !meson
        .modules
        .iter()
        .any(|m| m == "python" || m == "python3")
    {
        return;
    }
    let packages = if uses_gi {
        vec!["pygobject3".to_string()]
    } else {
        Vec::new()
    };
    // The environment's interpreter replaces a bare python3.
    out.native.retain(|n| n != "python3");
    push_once(&mut out.native, "pythonEnv");
    push_once(&mut out.build, "pythonEnv");
    out.python_env = Some(packages);
}

/// `let pythonEnv = python3.withPackages (ps: [ ps.… ]); in`.
pub(super) fn bind(d: &mut Draft, packages: &[String]) {
    let listed: Vec<String> = packages.iter().map(|p| format!("ps.{p}")).collect();
    let value = if listed.is_empty() {
        "python3.withPackages (ps: [ ])".to_string()
    } else {
        format!("python3.withPackages (ps: [ {} ])", listed.join(" "))
    };
    d.input("python3");
    d.bind("pythonEnv", value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_program_gets_an_environment_with_pygobject() {
        let meson = MesonFacts {
            modules: vec!["gnome".into(), "python".into()],
            ..MesonFacts::default()
        };
        let mut out = DerivedInputs {
            native: vec!["python3".into(), "glib".into()],
            build: vec!["libadwaita".into()],
            ..DerivedInputs::default()
        };
        add_python_env(&meson, true, &mut out);
        assert_eq!(out.native, ["glib", "pythonEnv"]);
        assert_eq!(out.build, ["libadwaita", "pythonEnv"]);
        assert_eq!(
            out.python_env.as_deref(),
            Some(&["pygobject3".to_string()][..])
        );

        let mut d = Draft::new("stdenv.mkDerivation (finalAttrs: {", "})");
        bind(&mut d, out.python_env.as_deref().unwrap_or_default());
        d.list("nativeBuildInputs", &["meson", "pythonEnv"]);
        let text = d.render();
        assert!(
            text.contains(
                "  python3,\n  meson,\n}:\n\nlet\n  pythonEnv = python3.withPackages (ps: [ ps.pygobject3 ]);\nin\nstdenv"
            ),
            "{text}"
        );
        assert!(!text.contains("  pythonEnv,\n"), "{text}");
    }

    #[test]
    fn no_python_module_no_environment() {
        let mut out = DerivedInputs::default();
        add_python_env(&MesonFacts::default(), true, &mut out);
        assert_eq!(out, DerivedInputs::default());
    }
}
