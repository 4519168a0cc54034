//! Build tools and hooks besides the libraries: the programs a Meson
//! project runs (`find_program`) or a Makefile's recipes name, the
//! compilers a Meson project's languages need, and the wrapper hook a GTK
//! application needs to find its schemas and modules at run time.

use packsmith_core::MesonFacts;

use super::derived::{push_once, DerivedInputs};

/// Programs of a desktop application's build, by `find_program` name →
/// nixpkgs attribute: added even when optional, since the build then
/// validates or compiles what it installs with them.
const APP_TOOLS: &[(&str, &str)] = &[
    ("blueprint-compiler", "blueprint-compiler"),
    ("desktop-file-validate", "desktop-file-utils"),
    ("update-desktop-database", "desktop-file-utils"),
    ("appstreamcli", "appstream"),
    ("appstream-util", "appstream-glib"),
    ("glib-compile-schemas", "glib"),
    ("glib-compile-resources", "glib"),
    ("itstool", "itstool"),
    ("desktop-file-install", "desktop-file-utils"),
];

/// Other programs, added only when the build cannot do without them.
const REQUIRED_TOOLS: &[(&str, &str)] = &[
    ("python3", "python3"),
    ("python", "python3"),
    ("msgfmt", "gettext"),
    ("xgettext", "gettext"),
    ("msgmerge", "gettext"),
    ("help2man", "help2man"),
    ("asciidoctor", "asciidoctor"),
    ("pandoc", "pandoc"),
    ("xsltproc", "libxslt"),
    ("sassc", "sassc"),
    ("gperf", "gperf"),
    ("bison", "bison"),
    ("flex", "flex"),
    ("scdoc", "scdoc"),
    ("wayland-scanner", "wayland-scanner"),
];

/// Languages whose compiler is a nixpkgs package, not the C toolchain.
const LANGUAGE_TOOLS: &[(&str, &str)] = &[("vala", "vala")];

/// Adds the tools and hooks `meson` needs to `out.native`; `pkg-config`
/// when some library was found through it (Meson's `dependency()`).
pub(super) fn add_tools(meson: &MesonFacts, out: &mut DerivedInputs) {
    let mut native: Vec<&str> = Vec::new();
    if !out.build.is_empty() {
        native.push("pkg-config");
    }
    for lang in &meson.languages {
        native.extend(lookup(LANGUAGE_TOOLS, lang));
    }
    for program in &meson.programs {
        native.extend(lookup(APP_TOOLS, &program.name));
        if program.required.trim() == "true" {
            native.extend(lookup(REQUIRED_TOOLS, &program.name));
        }
    }
    native.extend(gtk_wrapper(&out.build));
    for attr in native {
        push_once(&mut out.native, attr);
    }
}

/// The GTK whose icon cache tool `gnome.post_install()` runs:
/// gtk4-update-icon-cache comes with GTK 4, the older tool with GTK 3.
/// Called once every library is known (GObject introspection adds GTK
/// for Python applications).
pub(super) fn add_icon_cache_tool(meson: &MesonFacts, out: &mut DerivedInputs) {
    if meson
        .programs
        .iter()
        .any(|p| p.name == "gtk-update-icon-cache")
    {
        let gtk = if uses_gtk4(&out.build) {
            "gtk4"
        } else {
            "gtk3"
        };
        push_once(&mut out.native, gtk);
    }
}

fn uses_gtk4(build: &[String]) -> bool {
    build.iter().any(|b| b == "gtk4" || b == "libadwaita")
}

/// The wrapper hook of a GTK application: GTK looks up its settings
/// schemas and modules through the environment the wrapper sets. For a
/// build (Meson, plain make) that installs a program, as those do.
pub(super) fn gtk_wrapper(build: &[String]) -> Option<&'static str> {
    if uses_gtk4(build) {
        Some("wrapGAppsHook4")
    } else if build.iter().any(|b| b == "gtk3") {
        Some("wrapGAppsHook3")
    } else {
        None
    }
}

/// The nixpkgs attribute of a build tool a build file runs, if known.
pub(super) fn tool_attr(program: &str) -> Option<&'static str> {
    lookup(APP_TOOLS, program).or_else(|| lookup(REQUIRED_TOOLS, program))
}

fn lookup(table: &[(&str, &'static str)], name: &str) -> Option<&'static str> {
    table
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, attr)| *attr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::{Evidence, MesonDependency, MesonProgram};

    fn program(name: &str, required: &str) -> MesonProgram {
        MesonProgram {
            name: name.into(),
            required: required.into(),
            evidence: Evidence::file("meson.build"),
        }
    }

    fn dependency(name: &str) -> MesonDependency {
        MesonDependency {
            name: name.into(),
            version: None,
            required: "true".into(),
            fallback: None,
            conditions: Vec::new(),
            evidence: Evidence::file("meson.build"),
        }
    }

    /// `gnome.post_install(gtk_update_icon_cache: true)` needs the icon
    /// cache tool of the application's GTK at configure time.
    #[test]
    fn the_icon_cache_tool_comes_with_the_applications_gtk() {
        let meson = MesonFacts {
            programs: vec![program("gtk-update-icon-cache", "true")],
            ..MesonFacts::default()
        };
        for (library, tool) in [("gtk4", "gtk4"), ("gtk3", "gtk3")] {
            let mut out = DerivedInputs {
                build: vec![library.into()],
                ..DerivedInputs::default()
            };
            add_icon_cache_tool(&meson, &mut out);
            assert_eq!(out.native, [tool]);
        }
    }

    #[test]
    fn a_gtk4_application_gets_its_tools_and_the_wrapper_hook() {
        let meson = MesonFacts {
            languages: vec!["vala".into(), "c".into()],
            dependencies: vec![dependency("gtk4"), dependency("libadwaita-1")],
            programs: vec![
                program("blueprint-compiler", "true"),
                program("desktop-file-validate", "false"),
                program("python3", "false"),
                program("msgfmt", "true"),
            ],
            ..MesonFacts::default()
        };
        let mut out = DerivedInputs {
            build: vec!["gtk4".into(), "libadwaita".into()],
            ..DerivedInputs::default()
        };
        add_tools(&meson, &mut out);
        assert_eq!(
            out.native,
            [
                "pkg-config",
                "vala",
                "blueprint-compiler",
                "desktop-file-utils",
                "gettext",
                "wrapGAppsHook4"
            ]
        );
    }

    #[test]
    fn a_library_without_dependencies_needs_no_pkg_config_or_hook() {
        let meson = MesonFacts {
            languages: vec!["c".into()],
            programs: vec![program("python3", "false")],
            ..MesonFacts::default()
        };
        let mut out = DerivedInputs::default();
        add_tools(&meson, &mut out);
        assert!(out.native.is_empty(), "{:?}", out.native);
    }
}
