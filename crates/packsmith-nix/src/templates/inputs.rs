//! Build inputs and `cmakeFlags` for the stdenv templates, from the CMake,
//! Meson, Autotools and Makefile facts: which upstream packages the build requires, mapped to nixpkgs
//! attributes, split between build tools (`nativeBuildInputs`) and
//! libraries (`buildInputs`).

use super::cmake_tests::{self, TestSwitch};
use super::derived::push_once;
pub use super::derived::DerivedInputs;
use packsmith_core::facts::{
    AutotoolsFacts, CmakeFacts, DownloadFact, MakefileFacts, MesonFacts, MesonOption,
};

/// Where a nixpkgs attribute goes in the derivation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Runs at build time (`nativeBuildInputs`).
    Native,
    /// Linked against (`buildInputs`).
    Build,
}

/// Upstream name (CMake package or pkg-config module, lower-cased) →
/// nixpkgs attribute. Kept here rather than shared with the Spack table:
/// packsmith-nix may not import packsmith-spack-knowledge, and the two
/// ecosystems disagree on granularity (one Spack `mpi` virtual vs nixpkgs'
/// `mpi` alias, OpenMP as a compiler runtime, …).
const NIXPKGS_NAMES: &[(&str, &str, Side)] = &[
    ("zlib", "zlib", Side::Build),
    ("hdf5", "hdf5", Side::Build),
    ("mpi", "mpi", Side::Build),
    ("openmp", "llvmPackages.openmp", Side::Build),
    ("boost", "boost", Side::Build),
    ("curl", "curl", Side::Build),
    ("libcurl", "curl", Side::Build),
    ("openssl", "openssl", Side::Build),
    ("png", "libpng", Side::Build),
    ("libpng", "libpng", Side::Build),
    ("jpeg", "libjpeg", Side::Build),
    ("bzip2", "bzip2", Side::Build),
    ("liblzma", "xz", Side::Build),
    ("libxml2", "libxml2", Side::Build),
    ("eigen3", "eigen", Side::Build),
    ("gtest", "gtest", Side::Build),
    ("fmt", "fmt", Side::Build),
    ("spdlog", "spdlog", Side::Build),
    ("sqlite3", "sqlite", Side::Build),
    ("sqlite", "sqlite", Side::Build),
    ("lapack", "lapack", Side::Build),
    ("blas", "blas", Side::Build),
    ("fftw3", "fftw", Side::Build),
    ("gsl", "gsl", Side::Build),
    ("tbb", "tbb", Side::Build),
    ("protobuf", "protobuf", Side::Build),
    ("yaml-cpp", "yaml-cpp", Side::Build),
    ("nlohmann_json", "nlohmann_json", Side::Build),
    ("catch2", "catch2_3", Side::Build),
    ("glib-2.0", "glib", Side::Build),
    ("libffi", "libffi", Side::Build),
    ("zstd", "zstd", Side::Build),
    ("lz4", "lz4", Side::Build),
    ("pybind11", "python3Packages.pybind11", Side::Build),
    ("cudatoolkit", "cudaPackages.cuda_cudart", Side::Build),
    ("pkgconfig", "pkg-config", Side::Native),
    ("doxygen", "doxygen", Side::Native),
    ("git", "git", Side::Native),
    ("bison", "bison", Side::Native),
    ("flex", "flex", Side::Native),
    ("python3", "python3", Side::Native),
    ("pythoninterp", "python3", Side::Native),
    // pkg-config module names (CMake pkg_check_modules, Meson
    // dependency(), Autotools PKG_CHECK_MODULES) and AC_CHECK_LIB library
    // names whose nixpkgs attribute differs from them or that are common.
    ("gtk+-3.0", "gtk3", Side::Build),
    ("gtk+-2.0", "gtk2", Side::Build),
    ("gtk4", "gtk4", Side::Build),
    ("gtkmm-3.0", "gtkmm3", Side::Build),
    ("libadwaita-1", "libadwaita", Side::Build),
    ("json-glib-1.0", "json-glib", Side::Build),
    ("libsoup-3.0", "libsoup_3", Side::Build),
    ("gee-0.8", "libgee", Side::Build),
    ("gtksourceview-5", "gtksourceview5", Side::Build),
    ("libportal-gtk4", "libportal-gtk4", Side::Build),
    ("webkit2gtk-4.1", "webkitgtk_4_1", Side::Build),
    ("webkitgtk-6.0", "webkitgtk_6_0", Side::Build),
    ("gio-2.0", "glib", Side::Build),
    ("gobject-2.0", "glib", Side::Build),
    ("libnotify", "libnotify", Side::Build),
    (
        "ayatana-appindicator3-0.1",
        "libayatana-appindicator",
        Side::Build,
    ),
    ("cairo", "cairo", Side::Build),
    ("fontconfig", "fontconfig", Side::Build),
    ("freetype2", "freetype", Side::Build),
    ("freetype", "freetype", Side::Build),
    ("alsa", "alsa-lib", Side::Build),
    ("asound", "alsa-lib", Side::Build),
    ("jack", "libjack2", Side::Build),
    ("gl", "libGL", Side::Build),
    ("opengl", "libGL", Side::Build),
    ("sdl2", "SDL2", Side::Build),
    ("sdl", "SDL", Side::Build),
    ("sdl_image", "SDL_image", Side::Build),
    ("sdl_mixer", "SDL_mixer", Side::Build),
    ("sdl_ttf", "SDL_ttf", Side::Build),
    ("sdl2_ttf", "SDL2_ttf", Side::Build),
    ("sdl2_image", "SDL2_image", Side::Build),
    ("sdl2_mixer", "SDL2_mixer", Side::Build),
    ("libxml-2.0", "libxml2", Side::Build),
    ("xml2", "libxml2", Side::Build),
    ("libmnl", "libmnl", Side::Build),
    ("mnl", "libmnl", Side::Build),
    ("libnetfilter_queue", "libnetfilter_queue", Side::Build),
    ("netfilter_queue", "libnetfilter_queue", Side::Build),
    ("libnfnetlink", "libnfnetlink", Side::Build),
    ("nfnetlink", "libnfnetlink", Side::Build),
    ("libplist-2.0", "libplist", Side::Build),
    (
        "libimobiledevice-glue-1.0",
        "libimobiledevice-glue",
        Side::Build,
    ),
    ("libusb-1.0", "libusb1", Side::Build),
    ("libudev", "systemdLibs", Side::Build),
    ("dbus-1", "dbus", Side::Build),
    ("libpulse", "libpulseaudio", Side::Build),
    // The X libraries under the names nixpkgs gave them in 2025
    // (`libx11`, no longer `xorg.libX11`).
    ("x11", "libx11", Side::Build),
    ("xext", "libxext", Side::Build),
    ("xft", "libxft", Side::Build),
    ("xinerama", "libxinerama", Side::Build),
    ("xrandr", "libxrandr", Side::Build),
    ("xcursor", "libxcursor", Side::Build),
    ("xrender", "libxrender", Side::Build),
    ("xcomposite", "libxcomposite", Side::Build),
    ("xi", "libxi", Side::Build),
    ("xcb", "libxcb", Side::Build),
    ("xcb-cursor", "libxcb-cursor", Side::Build),
    ("xcb-keysyms", "libxcb-keysyms", Side::Build),
    ("xcb-util", "libxcb-util", Side::Build),
    ("xkbcommon", "libxkbcommon", Side::Build),
    ("wayland-client", "wayland", Side::Build),
    ("libsystemd", "systemdLibs", Side::Build),
    ("gmp", "gmp", Side::Build),
    ("arpack", "arpack", Side::Build),
    ("glpk", "glpk", Side::Build),
    ("plfit", "plfit", Side::Build),
    ("mpfr", "mpfr", Side::Build),
    ("readline", "readline", Side::Build),
    ("ncurses", "ncurses", Side::Build),
    ("ncursesw", "ncurses", Side::Build),
    ("uuid", "libuuid", Side::Build),
    ("ssl", "openssl", Side::Build),
    ("crypto", "openssl", Side::Build),
    ("z", "zlib", Side::Build),
    ("pcre2-8", "pcre2", Side::Build),
    ("libpcre2-8", "pcre2", Side::Build),
    ("ddcutil", "ddcutil", Side::Build),
    ("libarchive", "libarchive", Side::Build),
    ("libsodium", "libsodium", Side::Build),
    ("gpgme", "gpgme", Side::Build),
    // Library names plain Makefiles link (`-lfoo`) or query pkg-config for.
    ("libevent", "libevent", Side::Build),
    ("event", "libevent", Side::Build),
    ("ev", "libev", Side::Build),
    ("pcap", "libpcap", Side::Build),
    ("libpcap", "libpcap", Side::Build),
    ("cap", "libcap", Side::Build),
    ("libcap", "libcap", Side::Build),
    ("seccomp", "libseccomp", Side::Build),
    ("libseccomp", "libseccomp", Side::Build),
    ("sndfile", "libsndfile", Side::Build),
    ("portaudio-2.0", "portaudio", Side::Build),
    ("portaudio", "portaudio", Side::Build),
    ("json-c", "json_c", Side::Build),
    ("yaml-0.1", "libyaml", Side::Build),
    ("yaml", "libyaml", Side::Build),
    ("expat", "expat", Side::Build),
    ("magic", "file", Side::Build),
    ("tinfo", "ncurses", Side::Build),
    // Library file stems of headers one library owns
    // (`packsmith_core::headers`), where no name above is the stem.
    ("bz2", "bzip2", Side::Build),
    ("lzma", "xz", Side::Build),
    ("ffi", "libffi", Side::Build),
    ("notify", "libnotify", Side::Build),
    ("usb-1.0", "libusb1", Side::Build),
    ("udev", "systemdLibs", Side::Build),
    ("systemd", "systemdLibs", Side::Build),
    ("pulse", "libpulseaudio", Side::Build),
    ("archive", "libarchive", Side::Build),
    ("sodium", "libsodium", Side::Build),
    ("tiff", "libtiff", Side::Build),
    ("cblas", "blas", Side::Build),
    ("netcdf", "netcdf", Side::Build),
    ("hwloc", "hwloc", Side::Build),
];

/// Libraries every C toolchain brings: never an input.
const TOOLCHAIN_LIBS: &[&str] = &["m", "c", "dl", "pthread", "rt", "util", "stdc++"];

/// The nixpkgs attribute for an upstream name, if the table knows it.
pub(crate) fn nixpkgs_attr(upstream: &str) -> Option<(&'static str, Side)> {
    let key = upstream.to_ascii_lowercase();
    NIXPKGS_NAMES
        .iter()
        .find(|(name, _, _)| *name == key)
        .map(|(_, attr, side)| (*attr, *side))
}

/// Options a packaged build turns off: they run tests, examples or
/// benchmarks, or download during the build (no network in the sandbox).
/// A word of the name must start so (`BUILD_EXAMPLES`, `ALLOW_DOWNLOADS`):
/// `USE_LATEST_API` and `USE_SYSTEM_GTEST` are no such switch. A name that
/// says no (`DISABLE_DOWNLOADS`, `FETCHCONTENT_FULLY_DISCONNECTED`) is
/// already on the package's side: turning it off would do the opposite.
fn packaged_off(option: &str) -> bool {
    let up = option.to_ascii_uppercase();
    let words: Vec<&str> = up.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    let negative = words.iter().any(|w| {
        [
            "DISABLE",
            "NO",
            "SKIP",
            "WITHOUT",
            "DISCONNECTED",
            "OFFLINE",
        ]
        .contains(w)
    });
    !negative
        && words.iter().any(|word| {
            ["TEST", "EXAMPLE", "BENCH", "DOWNLOAD", "FETCH"]
                .iter()
                .any(|w| word.starts_with(w))
        })
}

fn is_on(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_uppercase().as_str(),
            "ON" | "TRUE" | "YES" | "1" | "Y"
        )
    })
}

/// Why a CMake `if()` condition holds for a default build on Linux.
#[derive(Debug, PartialEq, Eq)]
enum Holds {
    /// An option that defaults to ON: the flag keeps it on.
    OptionOn(String),
    /// `NOT <option that defaults to OFF>`, or a test of the platform
    /// that Linux passes (`UNIX`, `NOT APPLE`, `… STREQUAL "Linux"`).
    Plainly,
    /// `X STREQUAL "AUTO"` for a tristate left at AUTO: the library is
    /// used when found. The package pins the choice (see `pin_automatic`).
    Automatic(String),
}

/// Whether `condition` holds with the options' defaults on Linux; None
/// when it does not, or when packsmith cannot tell.
/// `value_of` gives a cache variable's default text, for `X STREQUAL "V"`:
/// a tristate left at `AUTO` uses the system library when it is found,
/// which is what a package declares.
fn condition_holds(
    condition: &str,
    default_of: &dyn Fn(&str) -> Option<bool>,
    value_of: &dyn Fn(&str) -> Option<String>,
) -> Option<Holds> {
    let c = condition.trim();
    if let Some((name, value)) = c.split_once(" STREQUAL ") {
        let value = value.trim().trim_matches('"');
        if value_of(name.trim()).is_some_and(|d| d == value) {
            return Some(if value.eq_ignore_ascii_case("AUTO") {
                Holds::Automatic(name.trim().to_string())
            } else {
                Holds::Plainly
            });
        }
    }
    if let Some(on) = default_of(c) {
        return on.then(|| Holds::OptionOn(c.to_string()));
    }
    let negated = c.strip_prefix("NOT ").map(str::trim);
    if let Some(option) = negated {
        if default_of(option) == Some(false) {
            return Some(Holds::Plainly);
        }
    }
    // Platform tests, joined by AND: each part must hold on Linux.
    let linux = c.split(" AND ").all(|part| {
        let part = part.trim().trim_matches(['(', ')']);
        match part.strip_prefix("NOT ").map(str::trim) {
            Some(p) => matches!(
                p,
                "APPLE" | "WIN32" | "MSVC" | "MINGW" | "CYGWIN" | "ANDROID" | "IOS"
            ),
            None => {
                // The package builds the project from its own top.
                let top_level = matches!(
                    part,
                    "PROJECT_IS_TOP_LEVEL"
                        | "CMAKE_PROJECT_NAME STREQUAL PROJECT_NAME"
                        | "PROJECT_NAME STREQUAL CMAKE_PROJECT_NAME"
                        | "CMAKE_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR"
                        | "CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR"
                );
                top_level
                    || matches!(part, "UNIX" | "LINUX" | "CMAKE_HOST_UNIX")
                    || ((part.contains(" STREQUAL ") || part.contains(" MATCHES "))
                        && part.to_ascii_lowercase().contains("linux"))
            }
        }
    });
    linux.then_some(Holds::Plainly)
}

/// Required dependencies always; those under `if(OPTION)` only when the
/// option is on in the package (upstream's default, except that tests,
/// examples, benchmarks and downloads have the package's own setting),
/// and then with the flag that keeps it on. The tests run when they need
/// neither the network nor a display.
pub fn cmake_inputs(cmake: &CmakeFacts, downloads: &[DownloadFact]) -> DerivedInputs {
    let offline = cmake_tests::has_tests(cmake) && !cmake_tests::tests_download(downloads);
    let out = cmake_inputs_with(cmake, offline);
    if out.do_check && cmake_tests::needs_display(&out.build) {
        return cmake_inputs_with(cmake, false);
    }
    out
}

fn cmake_inputs_with(cmake: &CmakeFacts, run_tests: bool) -> DerivedInputs {
    let mut out = DerivedInputs {
        do_check: run_tests,
        ..DerivedInputs::default()
    };
    let value_of = |name: &str| {
        cmake
            .cache_vars
            .iter()
            .find(|v| v.name == name)
            .map(|v| v.default.clone())
    };
    let upstream_default = |name: &str| upstream_option_default(cmake, name, &value_of);
    // What the package sets an option to, where it differs from upstream.
    let packaged = |name: &str| match cmake_tests::test_switch(name) {
        Some(switch) => Some(run_tests == (switch == TestSwitch::Enables)),
        None if packaged_off(name) => Some(false),
        None => upstream_default(name),
    };
    let mut wanted: Vec<(String, Vec<String>)> = Vec::new();
    for fp in &cmake.find_packages {
        // An unconditional find_package without REQUIRED is optional with
        // no option to turn it on: the build uses a library when it finds
        // it, so the package provides it; a tool it can do without is left out.
        let optional_library = nixpkgs_attr(&fp.name).is_some_and(|(_, side)| side == Side::Build);
        if fp.required || !fp.conditions.is_empty() || optional_library {
            wanted.push((fp.name.clone(), fp.conditions.clone()));
        }
    }
    // A generator the build runs needs its tool, optional lookup or not.
    for g in &cmake.generators {
        wanted.push((g.tool.clone(), g.conditions.clone()));
    }
    for pc in &cmake.pkg_config {
        if !pc.required && pc.conditions.is_empty() {
            continue;
        }
        for module in &pc.modules {
            wanted.push((module_name(module).to_string(), pc.conditions.clone()));
        }
        wanted.push(("pkgconfig".to_string(), pc.conditions.clone()));
    }
    for (name, conditions) in wanted {
        // Every condition must hold on Linux with the package's settings.
        let held: Option<Vec<Holds>> = conditions
            .iter()
            .map(|c| condition_holds(c, &packaged, &value_of))
            .collect();
        let Some(held) = held else {
            continue;
        };
        let for_tests = held
            .iter()
            .any(|h| matches!(h, Holds::OptionOn(o) if cmake_tests::test_switch(o).is_some()));
        let Some((attr, side)) = nixpkgs_attr(&name) else {
            continue;
        };
        if for_tests || (run_tests && cmake_tests::test_only(attr)) {
            if side == Side::Build {
                push_once(&mut out.check, attr);
            } else {
                push_once(&mut out.native, attr);
            }
        } else {
            add_known(&mut out, &name);
        }
        for h in held {
            match h {
                Holds::OptionOn(option) if cmake_tests::test_switch(&option).is_none() => {
                    push_flag(&mut out.flags, &option, true);
                }
                Holds::Automatic(variable) => push_once(&mut out.flags, &pin_automatic(&variable)),
                _ => {}
            }
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for opt in &cmake.options {
        if seen.contains(&opt.name.as_str()) {
            continue;
        }
        seen.push(&opt.name);
        let default_on = upstream_default(&opt.name).unwrap_or(false);
        if let Some(switch) = cmake_tests::test_switch(&opt.name) {
            // BUILD_TESTING, and an option that defaults to it or depends on
            // it, follow doCheck through the hook already.
            let follows_hook = [opt.default.as_deref(), opt.depends.as_deref()]
                .iter()
                .flatten()
                .any(|d| d.contains("BUILD_TESTING"));
            if cmake_tests::set_by_hook(&opt.name) || follows_hook {
                continue;
            }
            if let Some(flag) = cmake_tests::flag(&opt.name, switch, run_tests, default_on) {
                push_once(&mut out.flags, &flag);
            }
        } else if packaged_off(&opt.name) && default_on {
            push_flag(&mut out.flags, &opt.name, false);
        }
    }
    if let Some(shared) = &cmake.build_shared_libs {
        if !is_on(Some(&shared.value)) {
            push_flag(&mut out.flags, "BUILD_SHARED_LIBS", true);
        }
    }
    // A copy into $HOME fails in the sandbox: off where a -D turns it off,
    // else into a throwaway home.
    if let Some(copy) = &cmake.home_copy {
        match &copy.switch {
            Some(variable) => push_flag(&mut out.flags, variable, false),
            None => push_once(&mut out.native, "writableTmpDirAsHomeHook"),
        }
    }
    // Built with the generator upstream's presets or CI use: the cmake hook
    // picks Ninja when it is an input.
    if let Some(generator) = &cmake.upstream_generator {
        if generator.value.starts_with("Ninja") {
            push_once(&mut out.native, "ninja");
        }
    }
    out
}

/// The flag that pins a tristate left at AUTO, now that the package
/// provides the library: the bundled copy off (`USE_INTERNAL_BLAS`), the
/// feature on (`GRAPHML_SUPPORT`). A missing library then fails the build
/// instead of quietly changing what it contains.
fn pin_automatic(variable: &str) -> String {
    let up = variable.to_ascii_uppercase();
    let bundled = ["INTERNAL", "VENDOR", "BUNDLED", "EMBEDDED", "BUILTIN"]
        .iter()
        .any(|w| up.contains(w));
    let value = if bundled { "OFF" } else { "ON" };
    format!("(lib.cmakeFeature \"{variable}\" \"{value}\")")
}

/// An option's upstream default on Linux, for the top-level project: the
/// first declaration whose platform conditions hold (a project may declare
/// an option ON when it is a subproject and OFF at the top).
fn upstream_option_default(
    cmake: &CmakeFacts,
    name: &str,
    value_of: &dyn Fn(&str) -> Option<String>,
) -> Option<bool> {
    let no_options = |_: &str| None;
    let mut declarations = cmake.options.iter().filter(|o| o.name == name);
    let first = declarations.clone().next()?;
    let chosen = declarations
        .find(|o| {
            o.conditions
                .iter()
                .all(|c| condition_holds(c, &no_options, value_of).is_some())
        })
        .unwrap_or(first);
    Some(is_on(chosen.default.as_deref()))
}

/// The `mesonFlags` element that turns an option off: a `feature` option is
/// disabled, a `boolean` one false; other types keep upstream's default.
fn meson_off(option: &MesonOption) -> Option<String> {
    let default = option
        .default
        .as_deref()
        .unwrap_or_default()
        .trim_matches(['\'', '"']);
    match option.option_type.as_str() {
        "feature" if default != "disabled" => {
            Some(format!("(lib.mesonEnable \"{}\" false)", option.name))
        }
        "boolean" if default != "false" => {
            Some(format!("(lib.mesonBool \"{}\" false)", option.name))
        }
        _ => None,
    }
}

/// Meson: `dependency()` calls that are required outright and not under
/// an `if`; options for tests, examples, benchmarks, docs or downloads
/// turned off (documentation needs tools the sandbox may lack).
pub fn meson_inputs(meson: &MesonFacts) -> DerivedInputs {
    let mut out = DerivedInputs::default();
    for option in &meson.options {
        let name = option.name.to_ascii_uppercase();
        if packaged_off(&option.name) || name.contains("DOC") || name == "TESTS" {
            out.flags.extend(meson_off(option));
        }
    }
    for dep in &meson.dependencies {
        if dep.required.trim() != "true" || !dep.conditions.is_empty() {
            continue;
        }
        add_known(&mut out, &dep.name);
    }
    super::build_tools::add_tools(meson, &mut out);
    out
}

/// Adds the nixpkgs attribute for `upstream`, if the table knows it, to
/// its side; says whether it did.
pub(super) fn add_known(out: &mut DerivedInputs, upstream: &str) -> bool {
    let Some((attr, side)) = nixpkgs_attr(upstream) else {
        return false;
    };
    let list = match side {
        Side::Native => &mut out.native,
        Side::Build => &mut out.build,
    };
    push_once(list, attr);
    true
}

/// A WebKitGTK web view loads pages over TLS through GIO's modules, which
/// glib-networking provides (the wrapper hook puts it on GIO's path).
pub(super) fn add_web_view_tls(out: &mut DerivedInputs) {
    if out.build.iter().any(|b| b.starts_with("webkitgtk")) {
        push_once(&mut out.build, "glib-networking");
    }
}

/// A pkg-config module spec without its version constraint.
fn module_name(spec: &str) -> &str {
    spec.split(['>', '<', '=', ' ']).next().unwrap_or(spec)
}

/// Autotools: `PKG_CHECK_MODULES` and `AC_CHECK_LIB`/`AC_SEARCH_LIBS` that
/// configure cannot do without and that no option guards (what an option
/// enables keeps upstream's default, which configure decides itself).
pub fn autotools_inputs(at: &AutotoolsFacts) -> DerivedInputs {
    let mut out = DerivedInputs::default();
    let mut via_pkg_config = false;
    for check in at
        .pkg_checks
        .iter()
        .filter(|c| c.required && c.conditions.is_empty())
    {
        for module in &check.modules {
            via_pkg_config |= add_known(&mut out, module_name(module));
        }
    }
    let libraries = at.checks.iter().filter(|c| {
        c.required
            && c.conditions.is_empty()
            && matches!(
                c.macro_name.as_str(),
                "AC_CHECK_LIB" | "AC_SEARCH_LIBS" | "AC_HAVE_LIBRARY"
            )
    });
    for check in libraries {
        for lib in check
            .names
            .iter()
            .filter(|l| !TOOLCHAIN_LIBS.contains(&l.as_str()))
        {
            add_known(&mut out, lib);
        }
    }
    if via_pkg_config {
        add_known(&mut out, "pkgconfig");
    }
    out
}

/// Plain make: every library the Makefiles link and every pkg-config
/// module they query, as far as the table knows them (unknown names are
/// left to the build log rather than guessed); `pkg-config` itself when
/// the build asks it about a module the derivation provides.
pub fn make_inputs(make: &MakefileFacts) -> DerivedInputs {
    let mut out = DerivedInputs::default();
    let mut via_pkg_config = false;
    for module in &make.pkg_config_modules {
        via_pkg_config |= add_known(&mut out, &module.value);
    }
    for library in &make.libraries {
        add_known(&mut out, &library.value);
    }
    if make.uses_pkg_config && via_pkg_config {
        add_known(&mut out, "pkgconfig");
    }
    // The tools its recipes run (translations, resources, manual pages).
    for tool in &make.tools {
        if let Some(attr) = super::build_tools::tool_attr(&tool.value) {
            push_once(&mut out.native, attr);
        }
    }
    if let Some(hook) = super::build_tools::gtk_wrapper(&out.build) {
        push_once(&mut out.native, hook);
    }
    // The sandbox's HOME (/homeless-shelter) cannot be written.
    if make.writes_home.is_some() {
        push_once(&mut out.native, "writableTmpDirAsHomeHook");
    }
    // Manual pages `make install` leaves out: nixpkgs installs them with
    // installShellFiles, which also compresses them.
    if !make.uninstalled_man_pages.is_empty() {
        push_once(&mut out.native, "installShellFiles");
        out.post_install.push(format!(
            "installManPage {}",
            make.uninstalled_man_pages.join(" ")
        ));
    }
    out
}

fn push_flag(flags: &mut Vec<String>, option: &str, value: bool) {
    let flag = format!("(lib.cmakeBool \"{option}\" {value})");
    if !flags.contains(&flag) {
        flags.push(flag);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_known_names_case_blind() {
        assert_eq!(nixpkgs_attr("ZLIB"), Some(("zlib", Side::Build)));
        assert_eq!(
            nixpkgs_attr("PkgConfig"),
            Some(("pkg-config", Side::Native))
        );
        assert_eq!(nixpkgs_attr("NoSuchThing"), None);
    }

    #[test]
    fn autotools_required_checks_become_inputs() {
        use packsmith_core::facts::{AutotoolsCheck, AutotoolsPkgCheck};
        use packsmith_core::Evidence;
        let pkg = |modules: &[&str], required: bool, conditions: &[&str]| AutotoolsPkgCheck {
            prefix: "DEPS".into(),
            modules: modules.iter().map(|m| m.to_string()).collect(),
            required,
            conditions: conditions.iter().map(|c| c.to_string()).collect(),
            evidence: Evidence::file("configure.ac"),
        };
        let lib = |name: &str, required: bool| AutotoolsCheck {
            macro_name: "AC_CHECK_LIB".into(),
            names: vec![name.into()],
            function: Some("f".into()),
            required,
            conditions: Vec::new(),
            evidence: Evidence::file("configure.ac"),
        };
        let at = AutotoolsFacts {
            pkg_checks: vec![
                pkg(&["glib-2.0 >= 2.56", "gtk+-3.0"], true, &[]),
                pkg(&["libnotify"], false, &[]),
                pkg(&["libcurl"], true, &["test \"x$enable_curl\" = xyes"]),
            ],
            checks: vec![lib("mnl", true), lib("m", true), lib("ssl", false)],
            ..AutotoolsFacts::default()
        };
        let d = autotools_inputs(&at);
        assert_eq!(d.build, ["glib", "gtk3", "libmnl"]);
        assert_eq!(d.native, ["pkg-config"]);
    }

    #[test]
    fn makefile_libraries_and_modules_become_inputs() {
        use packsmith_core::{Evidence, Sourced};
        let sourced = |names: &[&str]| -> Vec<Sourced<String>> {
            names
                .iter()
                .map(|n| Sourced::new(n.to_string(), Evidence::new("Makefile", 3)))
                .collect()
        };
        let fakehttp = MakefileFacts {
            files: vec!["Makefile".into()],
            libraries: sourced(&["netfilter_queue", "nfnetlink", "mnl"]),
            ..MakefileFacts::default()
        };
        let d = make_inputs(&fakehttp);
        assert_eq!(d.build, ["libnetfilter_queue", "libnfnetlink", "libmnl"]);
        assert!(d.native.is_empty() && d.flags.is_empty());

        // Two modules for one attribute give it once; a module the table
        // does not know is left out, and pkg-config comes with the known.
        let ddcutil_service = MakefileFacts {
            pkg_config_modules: sourced(&["gio-2.0", "ddcutil", "glib-2.0", "no-such-module"]),
            libraries: sourced(&["jack"]),
            uses_pkg_config: true,
            ..MakefileFacts::default()
        };
        let d = make_inputs(&ddcutil_service);
        assert_eq!(d.build, ["glib", "ddcutil", "libjack2"]);
        assert_eq!(d.native, ["pkg-config"]);

        // pkg-config asked only about modules nixpkgs' table lacks: no
        // input would give them, so pkg-config alone is no help either.
        let unknown = MakefileFacts {
            pkg_config_modules: sourced(&["no-such-module"]),
            uses_pkg_config: true,
            ..MakefileFacts::default()
        };
        assert_eq!(make_inputs(&unknown), DerivedInputs::default());

        // The tools its recipes run: translations need gettext.
        let translated = MakefileFacts {
            tools: sourced(&["msgfmt", "xgettext", "no-such-tool"]),
            ..MakefileFacts::default()
        };
        assert_eq!(make_inputs(&translated).native, ["gettext"]);

        // Manual pages `make install` leaves out are installed by hand; a
        // build that writes under HOME gets a writable one.
        let editor = MakefileFacts {
            uninstalled_man_pages: vec!["vi.1".into(), "man/ex.1".into()],
            writes_home: Some(Evidence::new("Makefile", 9)),
            ..MakefileFacts::default()
        };
        let d = make_inputs(&editor);
        assert_eq!(d.native, ["writableTmpDirAsHomeHook", "installShellFiles"]);
        assert_eq!(d.post_install, ["installManPage vi.1 man/ex.1"]);
    }

    #[test]
    fn conditions_that_hold_on_linux_with_the_defaults() {
        let default_of = |name: &str| match name {
            "WITH_GTK" => Some(true),
            "NFD_PORTAL" | "WITH_MPI" => Some(false),
            _ => None,
        };
        let value_of = |name: &str| (name == "USE_INTERNAL_GMP").then(|| "AUTO".to_string());
        let holds = |c: &str| condition_holds(c, &default_of, &value_of);
        assert_eq!(
            holds("USE_INTERNAL_GMP STREQUAL \"AUTO\""),
            Some(Holds::Automatic("USE_INTERNAL_GMP".into()))
        );
        assert_eq!(holds("USE_INTERNAL_GMP STREQUAL \"ON\""), None);
        assert_eq!(holds("USE_INTERNAL_BLAS STREQUAL \"AUTO\""), None);
        assert_eq!(holds("WITH_GTK"), Some(Holds::OptionOn("WITH_GTK".into())));
        assert_eq!(holds("WITH_MPI"), None);
        assert_eq!(holds("NOT NFD_PORTAL"), Some(Holds::Plainly));
        assert_eq!(holds("NOT WITH_GTK"), None);
        assert_eq!(holds("UNIX AND NOT APPLE"), Some(Holds::Plainly));
        assert_eq!(
            holds("nfd_PLATFORM STREQUAL PLATFORM_LINUX"),
            Some(Holds::Plainly)
        );
        assert_eq!(
            holds("CMAKE_SYSTEM_NAME STREQUAL \"Linux\""),
            Some(Holds::Plainly)
        );
        assert_eq!(holds("WIN32"), None);
        assert_eq!(
            holds("CMAKE_PROJECT_NAME STREQUAL PROJECT_NAME"),
            Some(Holds::Plainly)
        );
        assert_eq!(holds("APPLE"), None);
        assert_eq!(holds("SOME_CACHE_VAR"), None);
    }

    #[test]
    fn a_tristate_at_auto_is_pinned() {
        assert_eq!(
            pin_automatic("IGRAPH_USE_INTERNAL_BLAS"),
            "(lib.cmakeFeature \"IGRAPH_USE_INTERNAL_BLAS\" \"OFF\")"
        );
        assert_eq!(
            pin_automatic("IGRAPH_GRAPHML_SUPPORT"),
            "(lib.cmakeFeature \"IGRAPH_GRAPHML_SUPPORT\" \"ON\")"
        );
    }

    #[test]
    fn a_web_view_gets_tls() {
        let mut out = DerivedInputs {
            build: vec!["gtk4".into(), "webkitgtk_6_0".into()],
            ..DerivedInputs::default()
        };
        add_web_view_tls(&mut out);
        assert_eq!(out.build, ["gtk4", "webkitgtk_6_0", "glib-networking"]);
        let mut plain = DerivedInputs {
            build: vec!["gtk4".into()],
            ..DerivedInputs::default()
        };
        add_web_view_tls(&mut plain);
        assert_eq!(plain.build, ["gtk4"]);
    }

    #[test]
    fn packaged_off_names() {
        assert!(packaged_off("FOO_BUILD_TESTS"));
        assert!(packaged_off("FOO_ENABLE_EXAMPLES"));
        assert!(!packaged_off("FOO_ENABLE_MPI"));
        assert!(packaged_off("ALLOW_DOWNLOADS") && packaged_off("FOO_BENCHMARKS"));
        assert!(!packaged_off("FETCHCONTENT_FULLY_DISCONNECTED"));
        assert!(!packaged_off("FOO_DISABLE_DOWNLOADS") && !packaged_off("NO_EXAMPLES"));
        assert!(!packaged_off("USE_LATEST_API"));
        assert!(!packaged_off("USE_SYSTEM_GTEST"));
        assert!(!packaged_off("ENABLE_ATTESTATION"));
    }
}
