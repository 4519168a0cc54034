//! Turns single commands into facts: project, options, cache variables,
//! find_package and friends, languages, C++ standard, downloads, testing,
//! installs and feature hints. Arguments arrive already expanded.

use super::features::{for_option, for_package, push_feature, push_language};
use super::lexer::Command;
use super::state::{Site, Walker};
use super::vars::split_list;
use packsmith_core::{
    CmakeCacheVar, CmakeFindItem, CmakeFindPackage, CmakeOption, CmakeOptionKind, CmakePkgConfig,
    CmakeProject, DownloadFact, DownloadKind, DownloadSwitch, DownloadSwitchKind, FeatureKind,
    Sourced,
};

/// Commands whose presence makes a user function worth expanding at its
/// call sites.
pub fn declares_facts(c: &Command) -> bool {
    match c.name.as_str() {
        "option"
        | "cmake_dependent_option"
        | "find_package"
        | "pkg_check_modules"
        | "pkg_search_module"
        | "find_library"
        | "find_path"
        | "find_program"
        | "find_file"
        | "fetchcontent_declare"
        | "externalproject_add"
        | "enable_language"
        | "check_language"
        | "cpmaddpackage"
        | "add_project_dependency"
        | "search_for_boost_python"
        | "findpython"
        | "add_executable"
        | "add_library" => true,
        // A generator per loop item (igraph's parsers) decides its own
        // `EXISTS` test.
        c if super::steps::generator_tool(c).is_some() => true,
        "set" => c.args.iter().any(|a| a.is_word("CACHE")),
        "file" => c.args.first().is_some_and(|a| a.is_word("DOWNLOAD")),
        _ => false,
    }
}

pub fn command(w: &mut Walker<'_, '_>, cmd: &Command, args: &[String]) {
    let name = cmd.name.as_str();
    let hint = match name {
        "pybind11_add_module" => Some(FeatureKind::Pybind11),
        "nanobind_add_module" => Some(FeatureKind::Nanobind),
        "swig_add_library" | "swig_add_module" => Some(FeatureKind::Swig),
        "python_add_library" | "python3_add_library" => Some(FeatureKind::Python),
        "cuda_add_library" | "cuda_add_executable" => Some(FeatureKind::Cuda),
        "hip_add_library" | "hip_add_executable" => Some(FeatureKind::Hip),
        _ => None,
    };
    let sycl_flag = args.iter().any(|a| a.contains("-fsycl"));
    let relevant = hint.is_some()
        || sycl_flag
        || super::steps::generator_tool(name).is_some()
        || matches!(
            name,
            "project"
                | "cmake_minimum_required"
                | "option"
                | "cmake_dependent_option"
                | "set"
                | "set_property"
                | "set_target_properties"
                | "target_compile_features"
                | "find_package"
                | "vtk_module_find_package"
                | "add_project_dependency"
                | "search_for_boost_python"
                | "findpython"
                | "pkg_check_modules"
                | "pkg_search_module"
                | "find_library"
                | "find_path"
                | "find_program"
                | "find_file"
                | "enable_language"
                | "check_language"
                | "fetchcontent_declare"
                | "fetchcontent_populate"
                | "externalproject_add"
                | "cpmaddpackage"
                | "file"
                | "enable_testing"
                | "add_test"
                | "gtest_discover_tests"
                | "gtest_add_tests"
                | "catch_discover_tests"
                | "doctest_discover_tests"
                | "include"
                | "install"
                | "add_executable"
                | "add_library"
                | "execute_process"
                | "add_custom_command"
                | "add_custom_target"
                | "message"
                | "add_subdirectory"
                | "target_link_libraries"
                | "target_compile_definitions"
                | "add_compile_definitions"
                | "add_definitions"
                | "juce_add_plugin"
        );
    if !relevant {
        return;
    }
    let Some(site) = w.site(cmd) else { return };
    if let Some(feature) = hint {
        push_feature(w.ctx, feature, format!("{name}()"), &site);
    }
    if sycl_flag {
        push_feature(w.ctx, FeatureKind::Sycl, "-fsycl flag".into(), &site);
    }
    match name {
        "project" => project(w, args, site),
        "cmake_minimum_required" => {
            let at = args.iter().position(|a| a == "VERSION");
            if let (Some(v), None) = (at.and_then(|i| args.get(i + 1)), &w.facts.minimum_required) {
                w.facts.minimum_required = Some(Sourced::new(v.clone(), site.evidence));
            }
        }
        "option" => option(w, args, site, CmakeOptionKind::Option),
        "cmake_dependent_option" => option(w, args, site, CmakeOptionKind::DependentOption),
        "set" => set(w, args, site),
        "set_property" => set_property(w, args, site),
        "set_target_properties" => cxx_standard_property(w, args, &site),
        "target_compile_features" => {
            if let Some(v) = args.iter().find_map(|a| a.strip_prefix("cxx_std_")) {
                cxx_standard(w, v, &site);
            }
        }
        "find_package" => find_package(w, args, site),
        "vtk_module_find_package" => find_package(w, &vtk_find_package_args(args), site),
        // jrl-cmakemodules' lookups (eigenpy, pinocchio, coal), read as
        // what they wrap: the collection is a submodule, empty in a release
        // archive, and its definitions, when checked out, are too indirect
        // for the walker to follow to their find_package.
        "add_project_dependency" => find_package(w, &jrl_dependency_args(args), site),
        "search_for_boost_python" => {
            let args = ["Boost", "REQUIRED", "COMPONENTS", "python"].map(String::from);
            find_package(w, &args, site)
        }
        "findpython" => {
            // Set differently per branch (eigenpy's cross-compiling case):
            // every component any branch asks for.
            let components = match w.vars.get("PYTHON_COMPONENTS") {
                Some("${PYTHON_COMPONENTS}") => w.alternatives.get("PYTHON_COMPONENTS").cloned(),
                other => other.map(split_list),
            };
            find_package(w, &jrl_findpython_args(args, components), site)
        }
        "pkg_check_modules" | "pkg_search_module" => pkg_config(w, name, args, site),
        "find_library" | "find_path" | "find_program" | "find_file" => {
            find_item(w, name, args, site)
        }
        "enable_language" => {
            for lang in args.iter().filter(|a| *a != "OPTIONAL") {
                push_language(w.ctx, lang, "enable_language", &site);
            }
        }
        "check_language" => {
            if let Some(lang) = args.first() {
                push_language(w.ctx, lang, "check_language", &site);
            }
        }
        "fetchcontent_declare" => download(w, args, site, DownloadKind::FetchContent),
        "fetchcontent_populate" if args.len() > 1 => {
            download(w, args, site, DownloadKind::FetchContent)
        }
        "externalproject_add" => download(w, args, site, DownloadKind::ExternalProject),
        "cpmaddpackage" => cpm(w, args, site),
        "file" if args.first().is_some_and(|a| a == "DOWNLOAD") => file_download(w, args, site),
        "enable_testing" => {
            w.facts.testing.get_or_insert(site.evidence);
        }
        "add_test"
        | "gtest_discover_tests"
        | "gtest_add_tests"
        | "catch_discover_tests"
        | "doctest_discover_tests" => {
            w.facts.tests.get_or_insert(site.evidence);
        }
        "include"
            if args
                .first()
                .is_some_and(|a| a.eq_ignore_ascii_case("CTest")) =>
        {
            w.facts.testing.get_or_insert(site.evidence);
        }
        "install" => {
            super::targets::installed(w, args);
            super::targets::home_destination(w, args, &site);
            w.facts.installs.get_or_insert(site.evidence);
        }
        "add_executable" | "add_library" => super::targets::target(w, name, args, site),
        "execute_process" => {
            super::steps::tool_run(w, name, args, site.clone());
            super::downloads::git_clone(w, args, site)
        }
        "add_custom_command" | "add_custom_target" => super::steps::tool_run(w, name, args, site),
        "message" if args.first().is_some_and(|a| a == "FATAL_ERROR") => {
            super::targets::fatal_error(w, site)
        }
        "add_subdirectory" => super::targets::vendored_fallback(w, &site),
        "target_link_libraries" => super::targets::linked(w, args, &site),
        "target_compile_definitions" | "add_compile_definitions" | "add_definitions" => {
            super::targets::definitions(w, name, args)
        }
        "juce_add_plugin" => super::steps::juce_plugin(w, cmd, args, site),
        c if super::steps::generator_tool(c).is_some() => super::steps::generator(w, c, site),
        _ => {}
    }
}

fn project(w: &mut Walker<'_, '_>, args: &[String], site: Site) {
    let Some(name) = args.first() else { return };
    if !w.name_ok(name) {
        return;
    }
    let (mut version, mut description, mut homepage) = (None, None, None);
    let mut languages = Vec::new();
    let mut mode = "LANGUAGES"; // positional languages come first
    for a in &args[1..] {
        match a.as_str() {
            "VERSION" | "DESCRIPTION" | "HOMEPAGE_URL" | "LANGUAGES" => mode = a,
            _ => match mode {
                "VERSION" => version = Some(a.clone()),
                "DESCRIPTION" => description = Some(a.clone()),
                "HOMEPAGE_URL" => homepage = Some(a.clone()),
                _ if a != "NONE" => languages.push(a.clone()),
                _ => {}
            },
        }
    }
    for lang in &languages {
        push_language(w.ctx, lang, "project", &site);
    }
    if w.facts.project.is_none() && w.in_def == 0 {
        w.facts.project = Some(CmakeProject {
            name: name.clone(),
            version,
            languages,
            description,
            homepage_url: homepage,
            evidence: site.evidence,
        });
    }
}

fn option(w: &mut Walker<'_, '_>, args: &[String], site: Site, kind: CmakeOptionKind) {
    let Some(name) = args.first().cloned() else {
        return;
    };
    // `option( ROMS_EXECUTABLE"Turn on/off …" ON )`: CMake reads one
    // argument with the quote inside, a name nothing ever tests.
    if !w.name_ok(&name) || name.contains(['"', ' ', '\t']) {
        return;
    }
    let default = args.get(2).cloned();
    let dependent = kind == CmakeOptionKind::DependentOption;
    if name == "BUILD_SHARED_LIBS" && w.facts.build_shared_libs.is_none() {
        let value = default.clone().unwrap_or_else(|| "OFF".into());
        w.facts.build_shared_libs = Some(Sourced::new(value, site.evidence.clone()));
    }
    if name == "BUILD_TESTING" {
        w.facts.testing.get_or_insert(site.evidence.clone());
    }
    if let Some(feature) = for_option(&name) {
        push_feature(w.ctx, feature, format!("option {name}"), &site);
    }
    w.facts.options.push(CmakeOption {
        help: args.get(1).cloned().unwrap_or_default(),
        default,
        kind,
        depends: if dependent {
            args.get(3).cloned()
        } else {
            None
        },
        force: if dependent {
            args.get(4).cloned()
        } else {
            None
        },
        conditions: site.conditions,
        evidence: site.evidence,
        name,
    });
}

fn set(w: &mut Walker<'_, '_>, args: &[String], site: Site) {
    let Some(name) = args.first().cloned() else {
        return;
    };
    let cache_at = args.iter().position(|a| a == "CACHE");
    if name == "CMAKE_CXX_STANDARD" {
        if let Some(v) = args.get(1).filter(|v| *v != "CACHE") {
            cxx_standard(w, v, &site);
        }
    }
    let Some(at) = cache_at.filter(|&i| i >= 1) else {
        return;
    };
    if !w.name_ok(&name) {
        return;
    }
    let cache_type = args.get(at + 1).cloned().unwrap_or_else(|| "STRING".into());
    if cache_type == "INTERNAL" {
        return; // not meant for users
    }
    let default = args[1..at].join(";");
    if name == "BUILD_SHARED_LIBS" && w.facts.build_shared_libs.is_none() {
        w.facts.build_shared_libs = Some(Sourced::new(default.clone(), site.evidence.clone()));
    }
    if cache_type == "BOOL" {
        if let Some(feature) = for_option(&name) {
            push_feature(w.ctx, feature, format!("cache variable {name}"), &site);
        }
    }
    w.facts.cache_vars.push(CmakeCacheVar {
        doc: args.get(at + 2).cloned().unwrap_or_default(),
        force: args
            .get(at + 3..)
            .is_some_and(|r| r.iter().any(|a| a == "FORCE")),
        cache_type,
        default,
        choices: Vec::new(),
        conditions: site.conditions,
        evidence: site.evidence,
        name,
    });
}

/// `set_property(CACHE VAR PROPERTY STRINGS a b c)` (choices) and
/// `set_property(TARGET t PROPERTY CXX_STANDARD 17)`.
fn set_property(w: &mut Walker<'_, '_>, args: &[String], site: Site) {
    if args.first().is_some_and(|a| a == "CACHE") {
        let Some(p) = args.iter().position(|a| a == "PROPERTY") else {
            return;
        };
        if args.get(p + 1).is_some_and(|a| a == "STRINGS") {
            // The property is a list: `"a;b;c"` and `a b c` mean the same.
            let values: Vec<String> = args[p + 2..].iter().flat_map(|v| split_list(v)).collect();
            for var in &args[1..p] {
                if var != "APPEND" && var != "APPEND_STRING" {
                    w.choices.push((var.clone(), values.clone()));
                }
            }
        }
        return;
    }
    cxx_standard_property(w, args, &site);
}

fn cxx_standard_property(w: &mut Walker<'_, '_>, args: &[String], site: &Site) {
    if let Some(i) = args.iter().position(|a| a == "CXX_STANDARD") {
        if let Some(v) = args.get(i + 1) {
            cxx_standard(w, v, site);
        }
    }
}

/// Keeps the first numeric standard seen (a `${VAR}` one only until then).
fn cxx_standard(w: &mut Walker<'_, '_>, value: &str, site: &Site) {
    let numeric = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    let replace = match &w.facts.cxx_standard {
        None => true,
        Some(old) => numeric && !old.value.bytes().all(|b| b.is_ascii_digit()),
    };
    if replace {
        w.facts.cxx_standard = Some(Sourced::new(value.to_string(), site.evidence.clone()));
    }
}

/// `vtk_module_find_package(PACKAGE <p> [VERSION <v>] [CONFIG_MODE]
/// [COMPONENTS …] [OPTIONAL_COMPONENTS …] …)` as the `find_package` it
/// makes. Its stop when the package is missing applies only while the
/// module that asks is built, which the walk cannot tell, so the lookup
/// stays optional.
fn vtk_find_package_args(args: &[String]) -> Vec<String> {
    let mut package = None;
    let mut version = None;
    let mut rest = Vec::new();
    let mut mode = "";
    for a in args {
        match a.as_str() {
            "PACKAGE" | "VERSION" | "FORWARD_VERSION_REQ" | "VERSION_VAR" => mode = a,
            "COMPONENTS" | "OPTIONAL_COMPONENTS" => {
                mode = a;
                rest.push(a.clone());
            }
            "CONFIG_MODE" => rest.push("CONFIG".to_string()),
            "PRIVATE" | "PRIVATE_IF_SHARED" => {}
            _ => match mode {
                "PACKAGE" => package = Some(a.clone()),
                "VERSION" => version = Some(a.clone()),
                "COMPONENTS" | "OPTIONAL_COMPONENTS" => rest.push(a.clone()),
                _ => {}
            },
        }
    }
    package.into_iter().chain(version).chain(rest).collect()
}

/// `add_project_dependency(Eigen3 REQUIRED PKG_CONFIG_REQUIRES "eigen3 >=
/// 3.0.5")` as the `find_package` it makes: the keywords that only shape
/// the exported package files go, with their values.
fn jrl_dependency_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
        } else if matches!(
            a.as_str(),
            "PKG_CONFIG_REQUIRES" | "FOR_COMPONENT" | "FIND_EXTERNAL"
        ) {
            skip = true;
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// `findpython(REQUIRED)` as `find_package(Python REQUIRED COMPONENTS …)`,
/// the components from `PYTHON_COMPONENTS` (jrl-cmakemodules' default is
/// the interpreter and the development files).
fn jrl_findpython_args(args: &[String], components: Option<Vec<String>>) -> Vec<String> {
    let mut out = vec!["Python".to_string()];
    out.extend(args.iter().filter(|a| *a == "REQUIRED").cloned());
    out.push("COMPONENTS".into());
    match components.filter(|c| !c.is_empty()) {
        Some(list) => out.extend(list),
        None => out.extend(["Interpreter".to_string(), "Development".to_string()]),
    }
    out
}

fn find_package(w: &mut Walker<'_, '_>, args: &[String], site: Site) {
    let Some(name) = args.first().cloned() else {
        return;
    };
    if !w.name_ok(&name) {
        return;
    }
    let mut p = CmakeFindPackage {
        name,
        version: None,
        exact: false,
        required: false,
        quiet: false,
        config_mode: false,
        components: Vec::new(),
        optional_components: Vec::new(),
        conditions: site.conditions,
        evidence: site.evidence,
        required_when: Vec::new(),
    };
    let mut rest = &args[1..];
    if let Some(v) = rest.first() {
        if v.starts_with(|c: char| c.is_ascii_digit()) || v.contains("VERSION}") {
            p.version = Some(v.clone());
            rest = &rest[1..];
        }
    }
    #[derive(PartialEq)]
    enum Mode {
        None,
        Components,
        Optional,
        Skip,
    }
    let mut mode = Mode::None;
    for a in rest {
        match a.as_str() {
            "EXACT" => p.exact = true,
            "QUIET" => p.quiet = true,
            // A bare list after REQUIRED names components.
            "REQUIRED" => {
                p.required = true;
                mode = Mode::Components;
            }
            "CONFIG" | "NO_MODULE" => p.config_mode = true,
            "MODULE" | "GLOBAL" | "NO_POLICY_SCOPE" | "BYPASS_PROVIDER" => {}
            "COMPONENTS" => mode = Mode::Components,
            "OPTIONAL_COMPONENTS" => mode = Mode::Optional,
            "NAMES" | "CONFIGS" | "HINTS" | "PATHS" | "PATH_SUFFIXES" | "REGISTRY_VIEW" => {
                mode = Mode::Skip
            }
            k if k.starts_with("NO_")
                || k.starts_with("ONLY_CMAKE")
                || k.starts_with("CMAKE_FIND") =>
            {
                mode = Mode::Skip
            }
            _ => match mode {
                Mode::Components => p.components.push(a.clone()),
                Mode::Optional => p.optional_components.push(a.clone()),
                Mode::None | Mode::Skip => {}
            },
        }
    }
    if let Some(feature) = for_package(&p.name) {
        let s = Site {
            evidence: p.evidence.clone(),
            conditions: p.conditions.clone(),
        };
        push_feature(w.ctx, feature, format!("find_package({})", p.name), &s);
    }
    w.facts.find_packages.push(p);
}

fn pkg_config(w: &mut Walker<'_, '_>, command: &str, args: &[String], site: Site) {
    let Some(prefix) = args.first().cloned() else {
        return;
    };
    let mut required = false;
    let mut modules = Vec::new();
    for a in &args[1..] {
        match a.as_str() {
            "REQUIRED" => required = true,
            "QUIET"
            | "NO_CMAKE_PATH"
            | "NO_CMAKE_ENVIRONMENT_PATH"
            | "IMPORTED_TARGET"
            | "GLOBAL" => {}
            m => modules.push(m.to_string()),
        }
    }
    w.facts.pkg_config.push(CmakePkgConfig {
        prefix,
        modules,
        required,
        command: command.to_string(),
        conditions: site.conditions,
        evidence: site.evidence,
    });
}

fn is_find_keyword(a: &str) -> bool {
    matches!(
        a,
        "NAMES"
            | "NAMES_PER_DIR"
            | "HINTS"
            | "PATHS"
            | "PATH_SUFFIXES"
            | "DOC"
            | "REQUIRED"
            | "OPTIONAL"
            | "NO_CACHE"
            | "VALIDATOR"
            | "REGISTRY_VIEW"
            | "ENV"
    ) || a.starts_with("NO_")
        || a.starts_with("ONLY_CMAKE")
        || a.starts_with("CMAKE_FIND")
}

fn find_item(w: &mut Walker<'_, '_>, command: &str, args: &[String], site: Site) {
    let Some(variable) = args.first().cloned() else {
        return;
    };
    if !w.name_ok(&variable) {
        return;
    }
    let names: Vec<String> = match args.iter().position(|a| a == "NAMES") {
        Some(i) => args[i + 1..]
            .iter()
            .take_while(|a| !is_find_keyword(a))
            .cloned()
            .collect(),
        None => args
            .get(1)
            .filter(|a| !is_find_keyword(a))
            .cloned()
            .into_iter()
            .collect(),
    };
    w.facts.find_items.push(CmakeFindItem {
        command: command.to_string(),
        variable,
        names,
        required: args.iter().any(|a| a == "REQUIRED"),
        conditions: site.conditions,
        evidence: site.evidence,
    });
}

fn value_after<'a>(args: &'a [String], keys: &[&str]) -> Option<&'a String> {
    keys.iter().find_map(|k| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
    })
}

fn download(w: &mut Walker<'_, '_>, args: &[String], site: Site, kind: DownloadKind) {
    let Some(name) = args.first().cloned() else {
        return;
    };
    let url = value_after(
        args,
        &["GIT_REPOSITORY", "URL", "SVN_REPOSITORY", "HG_REPOSITORY"],
    );
    let local = url.is_none() && args.iter().any(|a| a == "SOURCE_DIR");
    if (kind == DownloadKind::ExternalProject || local) && url.is_none() {
        return; // builds sources already present: nothing is downloaded
    }
    if url.is_some_and(|u| archive_in_tree(u)) {
        return; // an archive shipped in the tree (`vendor/zlib.tar.gz`): nothing is downloaded
    }
    if !w.name_ok(&name) {
        return;
    }
    let pin = value_after(args, &["GIT_TAG", "URL_HASH", "URL_MD5", "SVN_REVISION"]);
    if let Some(feature) = for_package(&name) {
        push_feature(w.ctx, feature, format!("downloads {name}"), &site);
    }
    let switch = super::downloads::switch_for(w, &name, args, &site);
    w.ctx.downloads.push(DownloadFact {
        upstream: super::downloads::upstream_name(url.map(String::as_str), &name),
        switch,
        kind,
        url: url.cloned(),
        pin: pin.cloned(),
        conditions: site.conditions,
        evidence: site.evidence,
        name,
        required_by: None,
        present: false,
        compiled: false,
    });
}

/// A `URL` naming a file of the source tree: under a source-directory variable
/// (`${CMAKE_SOURCE_DIR}/vendor/x.tgz`, `${foo_SOURCE_DIR}/…`) or a relative path.
fn archive_in_tree(url: &str) -> bool {
    let url = url.strip_prefix("file://").unwrap_or(url);
    if let Some(rest) = url.strip_prefix("${") {
        let variable = rest.split('}').next().unwrap_or_default();
        return variable.ends_with("SOURCE_DIR") || variable == "CMAKE_CURRENT_LIST_DIR";
    }
    !url.contains("://") && !url.starts_with('$') && !url.contains('@') && !url.is_empty()
}

/// `CPMAddPackage("gh:owner/repo#tag")` or `CPMAddPackage(NAME … GITHUB_REPOSITORY …)`.
fn cpm(w: &mut Walker<'_, '_>, args: &[String], site: Site) {
    let (name, url, pin) = if args.len() == 1 {
        let spec = &args[0];
        let (repo, tag) = match spec.split_once('#') {
            Some((r, t)) => (r, Some(t.to_string())),
            None => (spec.as_str(), None),
        };
        let (url, path) = if let Some(p) = repo.strip_prefix("gh:") {
            (format!("https://github.com/{p}"), p)
        } else if let Some(p) = repo.strip_prefix("gl:") {
            (format!("https://gitlab.com/{p}"), p)
        } else {
            (repo.to_string(), repo)
        };
        let name = path.rsplit('/').next().unwrap_or(path).to_string();
        (name, Some(url), tag)
    } else {
        let name = value_after(args, &["NAME"]).cloned().unwrap_or_default();
        let url = value_after(args, &["GITHUB_REPOSITORY"])
            .map(|r| format!("https://github.com/{r}"))
            .or_else(|| value_after(args, &["GIT_REPOSITORY", "URL"]).cloned());
        let pin = value_after(args, &["GIT_TAG", "VERSION", "URL_HASH"]).cloned();
        (name, url, pin)
    };
    if name.is_empty() || !w.name_ok(&name) {
        return;
    }
    // CPM tries an installed copy first when asked to, whatever the project.
    let switch = super::downloads::switch_for(w, &name, args, &site).or_else(|| {
        Some(DownloadSwitch {
            kind: DownloadSwitchKind::Option,
            name: "CPM_USE_LOCAL_PACKAGES".into(),
            value: "ON".into(),
            evidence: site.evidence.clone(),
        })
    });
    w.ctx.downloads.push(DownloadFact {
        kind: DownloadKind::FetchContent,
        upstream: super::downloads::upstream_name(url.as_deref(), &name),
        name,
        url,
        pin,
        conditions: site.conditions,
        evidence: site.evidence,
        switch,
        required_by: None,
        present: false,
        compiled: false,
    });
}

fn file_download(w: &mut Walker<'_, '_>, args: &[String], site: Site) {
    let Some(url) = args.get(1).cloned() else {
        return;
    };
    let dest = args.get(2).map(String::as_str).unwrap_or(&url);
    let name = dest.rsplit('/').next().unwrap_or(dest).to_string();
    let pin = value_after(args, &["EXPECTED_HASH", "EXPECTED_MD5"]).cloned();
    let switch = super::downloads::switch_for(w, &name, args, &site);
    w.ctx.downloads.push(DownloadFact {
        kind: DownloadKind::FileDownload,
        upstream: super::downloads::upstream_name(Some(&url), &name),
        name,
        url: Some(url),
        pin,
        conditions: site.conditions,
        evidence: site.evidence,
        switch,
        required_by: None,
        present: false,
        compiled: false,
    });
}
