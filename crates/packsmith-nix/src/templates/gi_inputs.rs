//! The libraries of the GObject namespaces a Python program requires
//! (`gi.require_version`), as nixpkgs packages a GNOME Python application:
//! each library in `buildInputs`, `gobject-introspection` to find their
//! typelibs, and GTK's wrapper hook so they are found at run time.

use packsmith_core::GiRequire;

use super::derived::{push_once, DerivedInputs};

/// (namespace, version or "" for any) → nixpkgs attribute.
const NAMESPACES: &[(&str, &str, &str)] = &[
    ("Gtk", "4.0", "gtk4"),
    ("Gtk", "3.0", "gtk3"),
    ("Adw", "", "libadwaita"),
    ("Handy", "", "libhandy"),
    ("GtkSource", "5", "gtksourceview5"),
    ("GtkSource", "4", "gtksourceview4"),
    ("WebKit", "6.0", "webkitgtk_6_0"),
    ("WebKit2", "4.1", "webkitgtk_4_1"),
    ("Soup", "3.0", "libsoup_3"),
    ("Notify", "", "libnotify"),
    ("Secret", "", "libsecret"),
    ("AyatanaAppIndicator3", "", "libayatana-appindicator"),
    ("Gst", "", "gst_all_1.gstreamer"),
    ("GstBase", "", "gst_all_1.gstreamer"),
    ("Vte", "", "vte-gtk4"),
    ("Poppler", "", "poppler"),
    ("Rsvg", "", "librsvg"),
    ("Json", "", "json-glib"),
];

fn attr_of(g: &GiRequire) -> Option<&'static str> {
    NAMESPACES
        .iter()
        .find(|(ns, v, _)| *ns == g.namespace && (v.is_empty() || *v == g.version))
        .map(|(_, _, attr)| *attr)
}

/// Adds what `requires` needs to `out`: nothing when no namespace is known.
pub(super) fn add_gi_inputs(requires: &[GiRequire], out: &mut DerivedInputs) {
    let attrs: Vec<&str> = requires.iter().filter_map(attr_of).collect();
    if attrs.is_empty() {
        return;
    }
    for attr in &attrs {
        push_once(&mut out.build, attr);
    }
    push_once(&mut out.native, "gobject-introspection");
    if let Some(hook) = super::build_tools::gtk_wrapper(&out.build) {
        push_once(&mut out.native, hook);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::Evidence;

    fn gi(namespace: &str, version: &str) -> GiRequire {
        GiRequire {
            namespace: namespace.into(),
            version: version.into(),
            evidence: Evidence::file("src/main.py"),
        }
    }

    #[test]
    fn a_gtk4_python_application() {
        let mut out = DerivedInputs {
            native: vec!["meson".into()],
            ..DerivedInputs::default()
        };
        add_gi_inputs(
            &[gi("Gtk", "4.0"), gi("Adw", "1"), gi("GLib", "2.0")],
            &mut out,
        );
        assert_eq!(out.build, ["gtk4", "libadwaita"]);
        assert_eq!(
            out.native,
            ["meson", "gobject-introspection", "wrapGAppsHook4"]
        );
    }

    #[test]
    fn unknown_or_other_versions_add_nothing() {
        let mut out = DerivedInputs::default();
        add_gi_inputs(&[gi("Gtk", "2.0"), gi("Frob", "1")], &mut out);
        assert_eq!(out, DerivedInputs::default());
    }
}
