//! Libraries a plain-Makefile project's sources include directly, by the
//! header they include: nixpkgs lists every library a package uses itself,
//! not only the ones its Makefile asks pkg-config about (GLib under GTK).

use packsmith_core::Sourced;

use super::inputs::{add_known, DerivedInputs};

/// Header, or directory of headers (ending in `/`), → upstream name in
/// the nixpkgs table (`inputs::NIXPKGS_NAMES`). Only headers one library
/// owns: `gtk/gtk.h` (GTK 2, 3 or 4) and `SDL.h` (SDL 1 or 2) are left to
/// the build files.
const HEADERS: &[(&str, &str)] = &[
    ("glib.h", "glib-2.0"),
    ("glib/", "glib-2.0"),
    ("glib-object.h", "gobject-2.0"),
    ("gio/", "gio-2.0"),
    ("zlib.h", "zlib"),
    ("bzlib.h", "bzip2"),
    ("lzma.h", "liblzma"),
    ("zstd.h", "zstd"),
    ("lz4.h", "lz4"),
    ("curl/", "libcurl"),
    ("openssl/", "openssl"),
    ("png.h", "libpng"),
    ("jpeglib.h", "jpeg"),
    ("libxml/", "libxml-2.0"),
    ("expat.h", "expat"),
    ("sqlite3.h", "sqlite3"),
    ("ffi.h", "libffi"),
    ("libnotify/", "libnotify"),
    ("cairo.h", "cairo"),
    ("cairo/", "cairo"),
    ("fontconfig/", "fontconfig"),
    ("ft2build.h", "freetype2"),
    ("alsa/", "alsa"),
    ("jack/", "jack"),
    ("SDL2/", "sdl2"),
    ("libmnl/", "libmnl"),
    ("libnetfilter_queue/", "libnetfilter_queue"),
    ("libusb-1.0/", "libusb-1.0"),
    ("libudev.h", "libudev"),
    ("systemd/", "libsystemd"),
    ("dbus/", "dbus-1"),
    ("pulse/", "libpulse"),
    ("X11/Xlib.h", "x11"),
    ("X11/extensions/Xrandr.h", "xrandr"),
    ("X11/extensions/Xinerama.h", "xinerama"),
    ("X11/extensions/Xrender.h", "xrender"),
    ("X11/extensions/Xcomposite.h", "xcomposite"),
    ("X11/Xcursor/", "xcursor"),
    ("X11/Xft/", "xft"),
    ("xcb/xcb.h", "xcb"),
    ("xkbcommon/", "xkbcommon"),
    ("wayland-client.h", "wayland-client"),
    ("gmp.h", "gmp"),
    ("mpfr.h", "mpfr"),
    ("readline/", "readline"),
    ("ncurses.h", "ncurses"),
    ("curses.h", "ncurses"),
    ("uuid/uuid.h", "uuid"),
    ("pcre2.h", "libpcre2-8"),
    ("archive.h", "libarchive"),
    ("sodium.h", "libsodium"),
    ("gpgme.h", "gpgme"),
    ("event2/", "libevent"),
    ("ev.h", "ev"),
    ("pcap.h", "pcap"),
    ("pcap/", "pcap"),
    ("sys/capability.h", "libcap"),
    ("seccomp.h", "libseccomp"),
    ("sndfile.h", "sndfile"),
    ("portaudio.h", "portaudio"),
    ("json-c/", "json-c"),
    ("yaml.h", "yaml"),
    ("magic.h", "magic"),
    ("fftw3.h", "fftw3"),
    ("hdf5.h", "hdf5"),
    ("gsl/", "gsl"),
    ("ddcutil_c_api.h", "ddcutil"),
];

fn upstream_of(header: &str) -> Option<&'static str> {
    HEADERS
        .iter()
        .find(|(h, _)| match h.strip_suffix('/') {
            Some(dir) => header.strip_prefix(dir).is_some_and(|r| r.starts_with('/')),
            None => header == *h,
        })
        .map(|(_, name)| *name)
}

/// Adds the library of each included header the table knows to `out`.
pub(super) fn add_included_libraries(includes: &[Sourced<String>], out: &mut DerivedInputs) {
    for include in includes {
        if let Some(name) = upstream_of(&include.value) {
            add_known(out, name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::Evidence;

    #[test]
    fn headers_name_their_library_and_ambiguous_ones_none() {
        assert_eq!(upstream_of("glib.h"), Some("glib-2.0"));
        assert_eq!(upstream_of("glib/gi18n.h"), Some("glib-2.0"));
        assert_eq!(upstream_of("libnotify/notify.h"), Some("libnotify"));
        assert_eq!(upstream_of("gtk/gtk.h"), None);
        assert_eq!(upstream_of("SDL.h"), None);
        assert_eq!(upstream_of("stdio.h"), None);
        // A directory entry matches headers inside it only.
        assert_eq!(upstream_of("glibc.h"), None);
        assert_eq!(upstream_of("curl.h"), None);
    }

    #[test]
    fn every_entry_names_a_library_of_the_nixpkgs_table() {
        for (header, name) in HEADERS {
            assert!(
                super::super::inputs::nixpkgs_attr(name).is_some(),
                "{header} → {name} is not in the nixpkgs table"
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
