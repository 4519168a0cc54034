//! Build inputs of a Rust package, from the crates its Cargo.lock pins: a
//! crate whose build script links a system library asks for that library
//! (`buildInputs`) and, when the script looks it up there, `pkg-config`.

use packsmith_core::CargoFacts;

use super::derived::{push_once, DerivedInputs};

/// What a crate needs of nixpkgs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    /// A library the build script finds with pkg-config (or system-deps).
    PkgConfig,
    /// A library linked or opened at run time by its name, no pkg-config.
    ByName,
    /// A build tool (`nativeBuildInputs`).
    Tool,
}

/// Crate → nixpkgs attribute, for crates that cannot build without the
/// system library. Left out on purpose: crates that compile a copy they
/// ship when the system has none, or by default (libz-sys, libgit2-sys,
/// libssh2-sys, libnghttp2-sys, zstd-sys, onig_sys, freetype-sys,
/// libusb1-sys, bzip2-sys, lzma-sys, mupdf-sys, the allocators'): nixpkgs'
/// expressions for ssh-vault, mdbook-plugins, framework-tool-tui and
/// treemd list none of those libraries. curl-sys would compile its own
/// curl too, but nixpkgs links the system one (mdbook-plugins).
const CRATE_INPUTS: &[(&str, &str, Need)] = &[
    ("openssl-sys", "openssl", Need::PkgConfig),
    ("curl-sys", "curl", Need::PkgConfig),
    // Without its `bundled` feature, which the lock cannot show.
    ("libsqlite3-sys", "sqlite", Need::PkgConfig),
    ("libudev-sys", "udev", Need::PkgConfig),
    // hidapi's default Linux backend (hidraw) is compiled against libudev.
    ("hidapi", "udev", Need::PkgConfig),
    ("libdbus-sys", "dbus", Need::PkgConfig),
    ("alsa-sys", "alsa-lib", Need::PkgConfig),
    ("libpulse-sys", "libpulseaudio", Need::PkgConfig),
    // webkit2gtk-sys 2.x is WebKitGTK's 4.1 API, the one Tauri 2 uses.
    ("webkit2gtk-sys", "webkitgtk_4_1", Need::PkgConfig),
    ("javascriptcore-rs-sys", "webkitgtk_4_1", Need::PkgConfig),
    ("soup3-sys", "libsoup_3", Need::PkgConfig),
    ("gtk-sys", "gtk3", Need::PkgConfig),
    ("gdk-sys", "gtk3", Need::PkgConfig),
    ("gtk4-sys", "gtk4", Need::PkgConfig),
    ("libadwaita-sys", "libadwaita", Need::PkgConfig),
    ("glib-sys", "glib", Need::PkgConfig),
    ("gio-sys", "glib", Need::PkgConfig),
    ("gobject-sys", "glib", Need::PkgConfig),
    ("cairo-sys-rs", "cairo", Need::PkgConfig),
    ("pango-sys", "pango", Need::PkgConfig),
    ("gdk-pixbuf-sys", "gdk-pixbuf", Need::PkgConfig),
    ("wayland-sys", "wayland", Need::PkgConfig),
    ("yeslogic-fontconfig-sys", "fontconfig", Need::PkgConfig),
    ("xkbcommon-sys", "libxkbcommon", Need::PkgConfig),
    ("xkbcommon", "libxkbcommon", Need::ByName),
    ("xkbcommon-dl", "libxkbcommon", Need::ByName),
    // bindgen needs libclang at build time: nixpkgs' hook provides it.
    ("bindgen", "rustPlatform.bindgenHook", Need::Tool),
];

/// Libraries that another input already propagates: nixpkgs lists only
/// the one that brings them (WebKitGTK brings GTK 3 and libsoup, GTK
/// brings GLib, cairo, pango and gdk-pixbuf).
const BROUGHT_BY: &[(&str, &[&str])] = &[
    (
        "webkitgtk_4_1",
        &["gtk3", "libsoup_3", "glib", "cairo", "pango", "gdk-pixbuf"],
    ),
    (
        "libadwaita",
        &["gtk4", "glib", "cairo", "pango", "gdk-pixbuf"],
    ),
    ("gtk4", &["glib", "cairo", "pango", "gdk-pixbuf"]),
    ("gtk3", &["glib", "cairo", "pango", "gdk-pixbuf"]),
];

/// The `env` setting that makes openssl-sys link the system OpenSSL even
/// with its `vendored` feature on.
pub(crate) const OPENSSL_NO_VENDOR: &str = "OPENSSL_NO_VENDOR = true";

/// What the locked crates (and the manifest's own dependencies, when there
/// is no lock) ask of the derivation. For the Rust builder `flags` holds
/// `env` settings (`NAME = value`), not command-line flags.
pub fn rust_inputs(cargo: &CargoFacts) -> DerivedInputs {
    let direct = cargo
        .dependencies
        .iter()
        .filter(|d| !matches!(d.kind.as_str(), "dev" | "optional"))
        .map(|d| d.name.as_str());
    let crates: Vec<&str> = cargo
        .locked_packages
        .iter()
        .map(String::as_str)
        .chain(direct)
        .collect();
    let mut out = DerivedInputs::default();
    let mut pkg_config = false;
    for (_, attr, need) in CRATE_INPUTS.iter().filter(|(c, ..)| crates.contains(c)) {
        let list = match need {
            Need::Tool => &mut out.native,
            Need::PkgConfig | Need::ByName => &mut out.build,
        };
        push_once(list, attr);
        pkg_config |= *need == Need::PkgConfig;
    }
    let chosen = out.build.clone();
    out.build.retain(|attr| !brought_by_another(attr, &chosen));
    if pkg_config {
        out.native.insert(0, "pkg-config".to_string());
    }
    // `openssl-src` in the lock means some feature vendors OpenSSL; it may
    // only be optional (ssh-vault), and nixpkgs links the system copy
    // either way (mdbook-plugins sets this variable).
    if crates.contains(&"openssl-sys") && crates.contains(&"openssl-src") {
        out.flags.push(OPENSSL_NO_VENDOR.to_string());
    }
    out
}

fn brought_by_another(attr: &str, chosen: &[String]) -> bool {
    BROUGHT_BY
        .iter()
        .any(|(outer, brought)| brought.contains(&attr) && chosen.iter().any(|c| c == outer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locked(names: &[&str]) -> CargoFacts {
        CargoFacts {
            locked_packages: names.iter().map(|n| n.to_string()).collect(),
            has_lockfile: true,
            ..CargoFacts::default()
        }
    }

    #[test]
    fn openssl_sys_asks_for_openssl_and_pkg_config() {
        let d = rust_inputs(&locked(&["libc", "openssl", "openssl-sys"]));
        assert_eq!(d.native, ["pkg-config"]);
        assert_eq!(d.build, ["openssl"]);
        assert!(d.flags.is_empty());
    }

    #[test]
    fn vendored_openssl_still_links_the_system_copy() {
        let d = rust_inputs(&locked(&["openssl-src", "openssl-sys"]));
        assert_eq!(d.build, ["openssl"]);
        assert_eq!(d.flags, ["OPENSSL_NO_VENDOR = true"]);
        // openssl-src alone (no openssl-sys) asks for nothing.
        assert_eq!(
            rust_inputs(&locked(&["openssl-src"])),
            DerivedInputs::default()
        );
    }

    #[test]
    fn crates_that_compile_their_own_copy_ask_for_nothing() {
        let d = rust_inputs(&locked(&[
            "libgit2-sys",
            "libz-sys",
            "libusb1-sys",
            "onig_sys",
            "zstd-sys",
        ]));
        assert_eq!(d, DerivedInputs::default());
    }

    #[test]
    fn webkitgtk_stands_for_the_gtk_stack_it_brings() {
        let d = rust_inputs(&locked(&[
            "gdk-sys",
            "glib-sys",
            "gtk-sys",
            "javascriptcore-rs-sys",
            "libdbus-sys",
            "soup3-sys",
            "tauri",
            "webkit2gtk-sys",
        ]));
        assert_eq!(d.build, ["dbus", "webkitgtk_4_1"]);
        assert_eq!(d.native, ["pkg-config"]);
    }

    #[test]
    fn devices_fonts_and_bindgen() {
        let d = rust_inputs(&locked(&["hidapi", "libudev-sys"]));
        assert_eq!(d.build, ["udev"]);
        let d = rust_inputs(&locked(&[
            "bindgen",
            "wayland-sys",
            "xkbcommon-dl",
            "yeslogic-fontconfig-sys",
        ]));
        assert_eq!(d.native, ["pkg-config", "rustPlatform.bindgenHook"]);
        assert_eq!(d.build, ["wayland", "fontconfig", "libxkbcommon"]);
    }

    #[test]
    fn without_a_lock_the_manifest_dependencies_count() {
        use packsmith_core::{Evidence, ManifestDependency};
        let dep = |name: &str, kind: &str| ManifestDependency {
            name: name.into(),
            requirement: "1".into(),
            kind: kind.into(),
            condition: None,
            evidence: Evidence::file("Cargo.toml"),
        };
        let cargo = CargoFacts {
            dependencies: vec![
                dep("libudev-sys", "normal"),
                dep("alsa-sys", "optional"),
                dep("curl-sys", "dev"),
            ],
            ..CargoFacts::default()
        };
        assert_eq!(rust_inputs(&cargo).build, ["udev"]);
    }
}
