//! The system libraries of an application framework a project vendors
//! (a git submodule or a configure-time download): JUCE and Steinberg's
//! VST 3 SDK build from source inside the project, and their own Linux
//! documentation lists what they link. Their CMake is not in the tree
//! (an unfetched submodule), so the facts alone would declare none of it.

use packsmith_core::{CmakeFacts, DownloadFact};

use super::derived::{push_once, DerivedInputs};

/// JUCE modules and the modules each depends on (the `dependencies:` line
/// of every module header).
const JUCE_MODULES: &[(&str, &[&str])] = &[
    ("juce_core", &[]),
    ("juce_events", &["juce_core"]),
    ("juce_data_structures", &["juce_events"]),
    ("juce_graphics", &["juce_events"]),
    (
        "juce_gui_basics",
        &["juce_graphics", "juce_data_structures"],
    ),
    ("juce_gui_extra", &["juce_gui_basics"]),
    ("juce_opengl", &["juce_gui_extra"]),
    ("juce_video", &["juce_gui_extra"]),
    ("juce_animation", &["juce_gui_basics"]),
    ("juce_box2d", &["juce_graphics"]),
    ("juce_audio_basics", &["juce_core"]),
    ("juce_midi_ci", &["juce_audio_basics"]),
    ("juce_audio_devices", &["juce_audio_basics", "juce_events"]),
    ("juce_audio_formats", &["juce_audio_basics"]),
    (
        "juce_audio_processors",
        &["juce_gui_extra", "juce_audio_basics"],
    ),
    (
        "juce_audio_utils",
        &[
            "juce_audio_processors",
            "juce_audio_formats",
            "juce_audio_devices",
        ],
    ),
    ("juce_audio_plugin_client", &["juce_audio_processors"]),
    ("juce_dsp", &["juce_audio_formats"]),
    ("juce_osc", &["juce_events"]),
    ("juce_cryptography", &["juce_core"]),
];

/// Per JUCE module: the nixpkgs attribute of each Linux library JUCE's
/// "Linux Dependencies" page lists, and the definition that, set to 0,
/// removes the need for it ("" when none does).
const JUCE_LIBRARIES: &[(&str, &str, &str)] = &[
    ("juce_audio_devices", "alsa-lib", ""),
    ("juce_audio_devices", "libjack2", "JUCE_JACK"),
    ("juce_core", "curl", "JUCE_USE_CURL"),
    ("juce_graphics", "fontconfig", "JUCE_USE_FONTCONFIG"),
    ("juce_graphics", "freetype", "JUCE_USE_FREETYPE"),
    ("juce_gui_basics", "libx11", ""),
    ("juce_gui_basics", "libxcomposite", ""),
    ("juce_gui_basics", "libxcursor", "JUCE_USE_XCURSOR"),
    ("juce_gui_basics", "libxext", ""),
    ("juce_gui_basics", "libxinerama", "JUCE_USE_XINERAMA"),
    ("juce_gui_basics", "libxrandr", "JUCE_USE_XRANDR"),
    ("juce_gui_basics", "libxrender", "JUCE_USE_XRENDER"),
    ("juce_gui_extra", "webkitgtk_4_1", "JUCE_WEB_BROWSER"),
    ("juce_opengl", "libGL", ""),
    ("juce_opengl", "libGLU", ""),
];

/// What a plugin or application links when the build names no module
/// (through a variable the reader could not expand): the GUI and audio
/// modules every JUCE plugin has.
const JUCE_DEFAULT_MODULES: &[&str] = &["juce_audio_utils", "juce_gui_extra"];

/// The VST 3 SDK's Linux package list (VSTGUI on X11 through xcb, Cairo
/// and Pango over FreeType for text, gtkmm for the file selector, SQLite
/// for its settings), as nixpkgs attributes.
const VST3_LIBRARIES: &[&str] = &[
    "cairo",
    "fontconfig",
    "freetype",
    "pango",
    "gtkmm3",
    "sqlite",
    "libx11",
    "libxcb",
    "libxcb-util",
    "libxcb-cursor",
    "libxcb-keysyms",
    "libxkbcommon",
];

fn vendors(downloads: &[DownloadFact], names: &[&str]) -> bool {
    downloads.iter().any(|d| {
        d.upstream
            .as_deref()
            .is_some_and(|u| names.iter().any(|n| u.eq_ignore_ascii_case(n)))
    })
}

/// The module a linked name refers to: `juce::juce_opengl` → `juce_opengl`.
fn juce_module(linked: &str) -> Option<&str> {
    let name = linked.strip_prefix("juce::").unwrap_or(linked);
    JUCE_MODULES
        .iter()
        .find(|(m, _)| *m == name)
        .map(|(m, _)| *m)
}

/// The modules named and all they depend on.
fn juce_closure<'a>(named: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let mut todo: Vec<&str> = named.into_iter().collect();
    while let Some(m) = todo.pop() {
        let Some((name, deps)) = JUCE_MODULES.iter().find(|(n, _)| *n == m) else {
            continue;
        };
        if !out.contains(name) {
            out.push(name);
            todo.extend(deps.iter().copied());
        }
    }
    out
}

/// Whether the build defines `name` to 0 (`JUCE_WEB_BROWSER=0`).
fn switched_off(definitions: &[String], name: &str) -> bool {
    definitions.iter().any(|d| {
        d.split_once('=')
            .is_some_and(|(n, v)| n.trim() == name && v.trim() == "0")
    })
}

fn juce_inputs(cmake: Option<&CmakeFacts>, out: &mut DerivedInputs) {
    let linked: Vec<&str> = cmake
        .map(|c| c.linked.iter().filter_map(|l| juce_module(l)).collect())
        .unwrap_or_default();
    let modules = if linked.is_empty() {
        juce_closure(JUCE_DEFAULT_MODULES.iter().copied())
    } else {
        juce_closure(linked)
    };
    let definitions = cmake
        .map(|c| c.compile_definitions.as_slice())
        .unwrap_or(&[]);
    for (module, attr, switch) in JUCE_LIBRARIES {
        let off = !switch.is_empty() && switched_off(definitions, switch);
        if modules.contains(module) && !off {
            push_once(&mut out.build, attr);
        }
    }
    // JUCE's CMake finds its Linux libraries through pkg-config.
    push_once(&mut out.native, "pkg-config");
}

fn vst3_inputs(out: &mut DerivedInputs) {
    for attr in VST3_LIBRARIES {
        push_once(&mut out.build, attr);
    }
    push_once(&mut out.native, "pkg-config");
    // The SDK links each plugin into ~/.vst3 after building it.
    push_once(&mut out.native, "writableTmpDirAsHomeHook");
}

/// Adds the libraries of the frameworks the project vendors.
pub(super) fn add_framework_inputs(
    downloads: &[DownloadFact],
    cmake: Option<&CmakeFacts>,
    out: &mut DerivedInputs,
) {
    let links = |pred: fn(&str) -> bool| cmake.is_some_and(|c| c.linked.iter().any(|l| pred(l)));
    if vendors(downloads, &["JUCE"]) || links(|l| l.starts_with("juce::")) {
        juce_inputs(cmake, out);
    }
    if vendors(downloads, &["vst3sdk", "vstgui"]) || links(|l| l == "vstgui_support") {
        vst3_inputs(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::{DownloadKind, Evidence};

    fn submodule(upstream: &str) -> DownloadFact {
        let mut d = DownloadFact::new(
            DownloadKind::GitSubmodule,
            upstream,
            Evidence::new(".gitmodules", 1),
        );
        d.upstream = Some(upstream.to_string());
        d
    }

    fn cmake(linked: &[&str], definitions: &[&str]) -> CmakeFacts {
        CmakeFacts {
            linked: linked.iter().map(|s| s.to_string()).collect(),
            compile_definitions: definitions.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn juce_modules_bring_their_libraries_unless_switched_off() {
        let mut out = DerivedInputs::default();
        let facts = cmake(
            &["juce_audio_utils", "juce::juce_recommended_config_flags"],
            &["JUCE_WEB_BROWSER=0", "JUCE_USE_CURL=0"],
        );
        add_framework_inputs(&[submodule("JUCE")], Some(&facts), &mut out);
        for attr in ["alsa-lib", "libjack2", "freetype", "libx11", "libxrandr"] {
            assert!(out.build.iter().any(|b| b == attr), "{attr} in {out:?}");
        }
        for attr in ["curl", "webkitgtk_4_1", "libGL"] {
            assert!(!out.build.iter().any(|b| b == attr), "{attr} in {out:?}");
        }
        assert_eq!(out.native, ["pkg-config"]);
    }

    #[test]
    fn juce_opengl_brings_gl_and_a_library_without_audio_has_no_alsa() {
        let mut out = DerivedInputs::default();
        let facts = cmake(&["juce::juce_opengl"], &[]);
        add_framework_inputs(&[], Some(&facts), &mut out);
        assert!(out.build.iter().any(|b| b == "libGL"));
        assert!(out.build.iter().any(|b| b == "webkitgtk_4_1"));
        assert!(!out.build.iter().any(|b| b == "alsa-lib"));
    }

    #[test]
    fn the_vst3_sdk_brings_its_linux_packages() {
        let mut out = DerivedInputs::default();
        add_framework_inputs(&[submodule("vst3sdk")], None, &mut out);
        assert!(out.build.iter().any(|b| b == "libxcb-cursor"));
        assert!(out.native.iter().any(|n| n == "writableTmpDirAsHomeHook"));
    }

    #[test]
    fn other_submodules_bring_nothing() {
        let mut out = DerivedInputs::default();
        add_framework_inputs(&[submodule("kfr"), submodule("fmt")], None, &mut out);
        assert_eq!(out, DerivedInputs::default());
    }
}
