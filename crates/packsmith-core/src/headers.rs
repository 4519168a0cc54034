//! Headers one library owns, by the name of the library file (`zlib.h` →
//! `-lz`): an include of one names the library whatever the build files
//! say. The one place this table lives; the Spack brief and the Nix draft
//! each map the stem through their own name table (Spack's `[library]`
//! section, nixpkgs' attribute table).

/// Header, or directory of headers (ending in `/`), → the stem of the
/// library file (`libz.so` → `z`). Only headers one library owns:
/// `gtk/gtk.h` (GTK 2, 3 or 4) and `SDL.h` (SDL 1 or 2) are left to the
/// build files.
const HEADER_LIBRARIES: &[(&str, &str)] = &[
    ("mpi.h", "mpi"),
    ("glib.h", "glib-2.0"),
    ("glib/", "glib-2.0"),
    ("glib-object.h", "gobject-2.0"),
    ("gio/", "gio-2.0"),
    ("zlib.h", "z"),
    ("bzlib.h", "bz2"),
    ("lzma.h", "lzma"),
    ("zstd.h", "zstd"),
    ("lz4.h", "lz4"),
    ("curl/", "curl"),
    ("openssl/", "ssl"),
    ("png.h", "png"),
    ("tiffio.h", "tiff"),
    ("jpeglib.h", "jpeg"),
    ("libxml/", "xml2"),
    ("expat.h", "expat"),
    ("sqlite3.h", "sqlite3"),
    ("ffi.h", "ffi"),
    ("libnotify/", "notify"),
    ("cairo.h", "cairo"),
    ("cairo/", "cairo"),
    ("fontconfig/", "fontconfig"),
    ("ft2build.h", "freetype"),
    ("alsa/", "asound"),
    ("jack/", "jack"),
    ("SDL2/", "SDL2"),
    ("libmnl/", "mnl"),
    ("libnetfilter_queue/", "netfilter_queue"),
    ("libusb-1.0/", "usb-1.0"),
    ("libudev.h", "udev"),
    ("systemd/", "systemd"),
    ("dbus/", "dbus-1"),
    ("pulse/", "pulse"),
    ("X11/Xlib.h", "X11"),
    ("X11/extensions/Xrandr.h", "Xrandr"),
    ("X11/extensions/Xinerama.h", "Xinerama"),
    ("X11/extensions/Xrender.h", "Xrender"),
    ("X11/extensions/Xcomposite.h", "Xcomposite"),
    ("X11/Xcursor/", "Xcursor"),
    ("X11/Xft/", "Xft"),
    ("xcb/xcb.h", "xcb"),
    ("xkbcommon/", "xkbcommon"),
    ("wayland-client.h", "wayland-client"),
    ("gmp.h", "gmp"),
    ("mpfr.h", "mpfr"),
    ("readline/", "readline"),
    ("ncurses.h", "ncurses"),
    ("curses.h", "ncurses"),
    ("uuid/uuid.h", "uuid"),
    ("pcre2.h", "pcre2-8"),
    ("archive.h", "archive"),
    ("sodium.h", "sodium"),
    ("gpgme.h", "gpgme"),
    ("event2/", "event"),
    ("ev.h", "ev"),
    ("pcap.h", "pcap"),
    ("pcap/", "pcap"),
    ("sys/capability.h", "cap"),
    ("seccomp.h", "seccomp"),
    ("sndfile.h", "sndfile"),
    ("portaudio.h", "portaudio"),
    ("json-c/", "json-c"),
    ("yaml.h", "yaml"),
    ("magic.h", "magic"),
    ("fftw3.h", "fftw3"),
    ("cblas.h", "cblas"),
    ("hdf5.h", "hdf5"),
    ("netcdf.h", "netcdf"),
    ("hwloc.h", "hwloc"),
    ("gsl/", "gsl"),
    ("ddcutil_c_api.h", "ddcutil"),
];

/// The stem of the library that owns `header` (as written between `<>`),
/// if one library does.
pub fn library_of_header(header: &str) -> Option<&'static str> {
    HEADER_LIBRARIES
        .iter()
        .find(|(h, _)| match h.strip_suffix('/') {
            Some(dir) => header.strip_prefix(dir).is_some_and(|r| r.starts_with('/')),
            None => header == *h,
        })
        .map(|(_, stem)| *stem)
}

/// Every library stem of the table, once each, for the ecosystems' tests
/// that each one maps.
pub fn header_library_stems() -> Vec<&'static str> {
    let mut stems: Vec<&str> = HEADER_LIBRARIES.iter().map(|(_, s)| *s).collect();
    stems.sort_unstable();
    stems.dedup();
    stems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_name_their_library_and_ambiguous_ones_none() {
        assert_eq!(library_of_header("glib.h"), Some("glib-2.0"));
        assert_eq!(library_of_header("glib/gi18n.h"), Some("glib-2.0"));
        assert_eq!(library_of_header("zlib.h"), Some("z"));
        assert_eq!(library_of_header("openssl/ssl.h"), Some("ssl"));
        assert_eq!(library_of_header("gsl/gsl_vector.h"), Some("gsl"));
        assert_eq!(library_of_header("gtk/gtk.h"), None);
        assert_eq!(library_of_header("SDL.h"), None);
        assert_eq!(library_of_header("stdio.h"), None);
        // A directory entry matches headers inside it only.
        assert_eq!(library_of_header("glibc.h"), None);
        assert_eq!(library_of_header("curl.h"), None);
        assert_eq!(library_of_header("gsl"), None);
    }

    #[test]
    fn stems_are_listed_once() {
        let stems = header_library_stems();
        assert!(stems.contains(&"glib-2.0") && stems.contains(&"z"));
        assert_eq!(stems.iter().filter(|s| **s == "ncurses").count(), 1);
    }
}
