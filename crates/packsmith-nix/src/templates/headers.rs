//! Libraries a plain-Makefile project's sources include directly, by the
//! header they include (`packsmith_core::headers`): nixpkgs lists every
//! library a package uses itself, not only the ones its Makefile asks
//! pkg-config about (GLib under GTK).

use packsmith_core::headers::library_of_header;
use packsmith_core::Sourced;

use super::derived::DerivedInputs;
use super::inputs::add_known;

/// Adds the library of each included header the table knows to `out`.
pub(super) fn add_included_libraries(includes: &[Sourced<String>], out: &mut DerivedInputs) {
    for include in includes {
        if let Some(stem) = library_of_header(&include.value) {
            add_known(out, stem);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::Evidence;

    #[test]
    fn every_header_library_has_a_nixpkgs_attribute() {
        for stem in packsmith_core::headers::header_library_stems() {
            assert!(
                super::super::inputs::nixpkgs_attr(stem).is_some(),
                "{stem} is not in the nixpkgs table"
            );
        }
    }

    #[test]
    fn included_libraries_join_the_build_inputs_once() {
        let inc = |h: &str| Sourced::new(h.to_string(), Evidence::new("main.c", 3));
        let mut out = DerivedInputs {
            build: vec!["gtk3".into(), "glib".into()],
            ..DerivedInputs::default()
        };
        add_included_libraries(
            &[
                inc("glib.h"),
                inc("gio/gio.h"),
                inc("zlib.h"),
                inc("gtk/gtk.h"),
            ],
            &mut out,
        );
        assert_eq!(out.build, ["gtk3", "glib", "zlib"]);
        assert!(out.native.is_empty());
    }
}
