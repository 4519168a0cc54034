//! What the build makes (`add_executable`, `add_library`) and the paths a
//! configure insists on (`if(NOT EXISTS …) message(FATAL_ERROR …)`), so a
//! recipe can install the targets of a project without install rules and
//! name the submodules the build cannot do without.

use super::state::{Site, Walker};
use super::vars::split_list;
use packsmith_core::{CmakeRequiredPath, CmakeTarget, CmakeTargetKind};

/// `add_executable(name …)` / `add_library(name [TYPE] …)`; imported,
/// alias, object and interface libraries build nothing to install, and
/// `EXCLUDE_FROM_ALL` targets are not built by default.
pub fn target(w: &mut Walker<'_, '_>, command: &str, args: &[String], site: Site) {
    let Some(name) = args.first() else { return };
    if !w.name_ok(name) || name.contains("${") || name.contains("$<") {
        return;
    }
    let rest = &args[1..];
    let has = |word: &str| rest.iter().take(3).any(|a| a == word);
    if let (true, Some(target)) = (rest.first().is_some_and(|a| a == "ALIAS"), rest.get(1)) {
        if w.facts.target_aliases.len() < MAX_NAMES {
            w.facts.target_aliases.insert(name.clone(), target.clone());
        }
        return;
    }
    if has("IMPORTED") || has("ALIAS") {
        return;
    }
    target_sources(w, command, name, rest, &site);
    if has("EXCLUDE_FROM_ALL") {
        return;
    }
    let kind = if command == "add_executable" {
        CmakeTargetKind::Executable
    } else if has("OBJECT") || has("INTERFACE") {
        return;
    } else if has("STATIC") {
        CmakeTargetKind::StaticLibrary
    } else if has("SHARED") || has("MODULE") {
        CmakeTargetKind::SharedLibrary
    } else {
        CmakeTargetKind::Library
    };
    if w.facts.targets.iter().any(|t| t.name == *name) {
        return;
    }
    w.facts.targets.push(CmakeTarget {
        name: name.clone(),
        kind,
        conditions: site.conditions,
        evidence: site.evidence,
    });
}

/// Bounds the source files kept per build.
const MAX_TARGET_SOURCES: usize = 4096;

/// Words of `add_library`/`add_executable` that are no source file.
const TARGET_WORDS: &[&str] = &[
    "STATIC",
    "SHARED",
    "MODULE",
    "OBJECT",
    "INTERFACE",
    "WIN32",
    "MACOSX_BUNDLE",
    "EXCLUDE_FROM_ALL",
];

/// Keeps the target's source files that are paths in the tree (as
/// written or under the current directory), for the layout reader to tell
/// which submodules the build compiles from.
fn target_sources(w: &mut Walker<'_, '_>, command: &str, name: &str, rest: &[String], site: &Site) {
    for arg in rest.iter().filter(|a| !TARGET_WORDS.contains(&a.as_str())) {
        for item in split_list(arg) {
            if w.facts.target_sources.len() >= MAX_TARGET_SOURCES {
                return;
            }
            if item.contains("$<") || !item.contains('.') {
                continue;
            }
            let written = if item.starts_with('/') || item.starts_with("${") {
                item.clone()
            } else {
                format!("${{CMAKE_CURRENT_SOURCE_DIR}}/{item}")
            };
            let Some((_, rel)) = w.condition_path(&written) else {
                continue;
            };
            w.facts.target_sources.push(CmakeRequiredPath {
                path: rel,
                check: format!("{command}({name} … {item})"),
                evidence: site.evidence.clone(),
            });
        }
    }
}

/// The package a `NOT <Pkg>_FOUND` condition (or `NOT <Pkg>_<LANG>_FOUND`,
/// as FindMPI sets `MPI_C_FOUND`) asks about, among those found so far.
fn not_found_package(w: &Walker<'_, '_>, cond: &str) -> Option<usize> {
    let var = cond.trim().strip_prefix("NOT ")?.trim();
    // `else()` of `if(X_FOUND)` reads `NOT (X_FOUND)`.
    let var = var
        .strip_prefix('(')
        .and_then(|v| v.strip_suffix(')'))
        .unwrap_or(var)
        .trim();
    let var = var
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(var);
    let stem = var.strip_suffix("_FOUND")?;
    w.facts.find_packages.iter().rposition(|fp| {
        stem.eq_ignore_ascii_case(&fp.name)
            || stem
                .get(..fp.name.len() + 1)
                .is_some_and(|head| head.eq_ignore_ascii_case(&format!("{}_", fp.name)))
    })
}

/// Test frameworks a project bundles for its tests: their fallback says
/// nothing about what the installed package needs.
const TEST_FRAMEWORKS: &[&str] = &[
    "gtest",
    "googletest",
    "gmock",
    "catch2",
    "doctest",
    "benchmark",
];

/// `add_subdirectory(<bundled copy>)` under `if(NOT <Pkg>_FOUND)` (or the
/// `else()` of `if(<Pkg>_FOUND)`): the project falls back to a copy it
/// ships. A packager declares the package instead, so the build never
/// compiles the bundled copy (digitrounding's zlib failed to install that
/// way); the find_package is marked required.
pub fn vendored_fallback(w: &mut Walker<'_, '_>, site: &Site) {
    for cond in site.conditions.iter().rev() {
        if let Some(i) = not_found_package(w, cond) {
            if let Some(fp) = w.facts.find_packages.get_mut(i) {
                if !TEST_FRAMEWORKS.contains(&fp.name.to_ascii_lowercase().as_str()) {
                    fp.required = true;
                }
            }
            return;
        }
    }
}

/// `message(FATAL_ERROR …)` under `if(NOT EXISTS <path>)`: the configure
/// stops when the path is missing. Under `if(NOT <Pkg>_FOUND)` it stops
/// without the package, which is then as good as `REQUIRED` (BLT's
/// `SetupMPI` finds MPI quietly and the project stops without it).
///
/// When the stop sits under further conditions (an option that asks for
/// the package: pcre2's `if(PCRE2_SUPPORT_LIBEDIT)` in the `else()` of
/// `if(EDITLINE_FOUND)`), the package is needed only when those hold:
/// they become the lookup's `required_when`, not an unconditional need.
pub fn fatal_error(w: &mut Walker<'_, '_>, site: Site) {
    if site.evidence.file == "CMakeLists.txt"
        && site.conditions.len() == 1
        && site.conditions.iter().all(|c| tests_top_level(c))
    {
        w.facts.refuses_top_level.get_or_insert(site.evidence);
        return;
    }
    for (at, cond) in site.conditions.iter().enumerate().rev() {
        if let Some(i) = not_found_package(w, cond) {
            if let Some(fp) = w.facts.find_packages.get_mut(i) {
                let further: Vec<String> = site
                    .conditions
                    .iter()
                    .enumerate()
                    .filter(|(k, c)| {
                        *k != at
                            && !c.starts_with("in function")
                            && !c.starts_with("in macro")
                            && !fp.conditions.contains(c)
                    })
                    .map(|(_, c)| c.clone())
                    .collect();
                if further.is_empty() {
                    fp.required = true;
                } else if fp.required_when.is_empty() {
                    fp.required_when = further;
                }
            }
            return;
        }
        let Some(path) = cond.trim().strip_prefix("NOT EXISTS ") else {
            continue;
        };
        let Some((path, rel)) = w.condition_path(path) else {
            continue;
        };
        w.facts.required_paths.push(CmakeRequiredPath {
            path: rel,
            check: format!("if(NOT EXISTS {path}) message(FATAL_ERROR)"),
            evidence: site.evidence,
        });
        return;
    }
}

/// Whether an `if()` condition holds exactly when the file is the
/// top-level project: `PROJECT_IS_TOP_LEVEL`, or the current source
/// directory compared with the top one (both of which the walk writes as
/// `${CMAKE_SOURCE_DIR}` at the top).
fn tests_top_level(cond: &str) -> bool {
    let plain = cond.replace(['"', '$', '{', '}'], "");
    let words: Vec<&str> = plain.split_whitespace().collect();
    let source_dir = |w: &str| {
        matches!(
            w,
            "CMAKE_SOURCE_DIR" | "CMAKE_CURRENT_SOURCE_DIR" | "PROJECT_SOURCE_DIR"
        )
    };
    match words.as_slice() {
        [a, "STREQUAL", b] => source_dir(a) && source_dir(b),
        [v] => v.ends_with("IS_TOP_LEVEL"),
        _ => false,
    }
}

/// A path `add_subdirectory` or `include` needs that the tree lacks
/// (`check` is the command, as written).
pub fn missing_path(w: &mut Walker<'_, '_>, path: &str, check: &str, site: Site) {
    w.facts.required_paths.push(CmakeRequiredPath {
        path: path.to_string(),
        check: check.to_string(),
        evidence: site.evidence,
    });
}

/// Bounds a hostile or generated build's lists.
const MAX_NAMES: usize = 256;

const LINK_KEYWORDS: &[&str] = &[
    "PUBLIC",
    "PRIVATE",
    "INTERFACE",
    "LINK_PUBLIC",
    "LINK_PRIVATE",
    "LINK_INTERFACE_LIBRARIES",
    "debug",
    "optimized",
    "general",
];

fn push_name(list: &mut Vec<String>, name: &str) {
    if list.len() < MAX_NAMES && !list.iter().any(|n| n == name) {
        list.push(name.to_string());
    }
}

/// `target_link_libraries(tgt [PUBLIC|PRIVATE|…] lib…)`: the plain library
/// and `ns::target` names, which say which modules of a framework a
/// project uses (`juce::juce_opengl`).
pub fn linked(w: &mut Walker<'_, '_>, args: &[String], site: &Site) {
    for a in args.iter().skip(1) {
        let plain = !a.is_empty()
            && !LINK_KEYWORDS.contains(&a.as_str())
            && !a.starts_with('-')
            && !a.contains(['$', '/', '\\', '<', '>', ';', ' ']);
        if plain {
            push_name(&mut w.facts.linked, a);
            if let Some(target) = args.first().filter(|t| !t.contains(['$', '<'])) {
                if w.facts.target_links.len() < MAX_NAMES {
                    let links = w.facts.target_links.entry(target.clone()).or_default();
                    push_name(links, a);
                }
            }
        }
    }
    if site.conditions.is_empty() {
        linked_imported_targets(w, args);
    }
}

/// An unconditional link of `<Pkg>::<target>` after a `find_package(<Pkg>)`
/// without `REQUIRED`: the build cannot generate without the target
/// (mstore's `mctc-lib::mctc-lib`, found under `if(NOT TARGET …)`), so
/// the lookup is as good as required. Test frameworks stay optional.
fn linked_imported_targets(w: &mut Walker<'_, '_>, args: &[String]) {
    for item in args.iter().skip(1).flat_map(|a| split_list(a)) {
        let Some((namespace, _)) = item.split_once("::") else {
            continue;
        };
        if TEST_FRAMEWORKS.contains(&namespace.to_ascii_lowercase().as_str()) {
            continue;
        }
        if let Some(fp) = w
            .facts
            .find_packages
            .iter_mut()
            .rev()
            .find(|fp| fp.name.eq_ignore_ascii_case(namespace))
        {
            fp.required = true;
        }
    }
}

/// Definitions from `target_compile_definitions(tgt SCOPE d…)`,
/// `add_compile_definitions(d…)` and `add_definitions(-Dd …)`.
pub fn definitions(w: &mut Walker<'_, '_>, command: &str, args: &[String]) {
    let items = match command {
        "target_compile_definitions" => args.get(1..).unwrap_or_default(),
        _ => args,
    };
    for a in items {
        let def = match command {
            "add_definitions" => match a.strip_prefix("-D") {
                Some(d) => d,
                None => continue,
            },
            _ => a.strip_prefix("-D").unwrap_or(a),
        };
        let def = def.trim();
        let plain = !def.is_empty()
            && !LINK_KEYWORDS.contains(&def)
            && def
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && !def.contains(['$', '<', ' ']);
        if plain {
            push_name(&mut w.facts.compile_definitions, def);
        }
    }
}

/// Words of `install(TARGETS …)` that end its list of targets.
const INSTALL_WORDS: &[&str] = &[
    "EXPORT",
    "ARCHIVE",
    "LIBRARY",
    "RUNTIME",
    "OBJECTS",
    "FRAMEWORK",
    "BUNDLE",
    "PRIVATE_HEADER",
    "PUBLIC_HEADER",
    "RESOURCE",
    "FILE_SET",
    "CXX_MODULES_BMI",
    "DESTINATION",
    "PERMISSIONS",
    "CONFIGURATIONS",
    "COMPONENT",
    "NAMELINK_COMPONENT",
    "OPTIONAL",
    "EXCLUDE_FROM_ALL",
    "NAMELINK_ONLY",
    "NAMELINK_SKIP",
    "INCLUDES",
];

/// `install(… DESTINATION "$ENV{HOME}/lib")`: an install into the home of
/// whoever builds (ISCDtoolbox's), kept once per file.
pub fn home_destination(w: &mut Walker<'_, '_>, args: &[String], site: &Site) {
    let home = args
        .windows(2)
        .any(|p| p[0] == "DESTINATION" && p[1].trim_matches('"').starts_with("$ENV{HOME}"));
    let file = &site.evidence.file;
    if home && !w.facts.home_installs.iter().any(|e| &e.file == file) {
        w.facts.home_installs.push(site.evidence.clone());
    }
}

/// `install(TARGETS a b … [EXPORT …|RUNTIME …])`: the targets installed.
pub fn installed(w: &mut Walker<'_, '_>, args: &[String]) {
    if args.first().is_none_or(|a| a != "TARGETS") {
        return;
    }
    for a in args[1..]
        .iter()
        .take_while(|a| !INSTALL_WORDS.contains(&a.as_str()))
        .flat_map(|a| split_list(a))
    {
        if !a.contains(['$', '<']) {
            push_name(&mut w.facts.installed_targets, &a);
        }
    }
}
