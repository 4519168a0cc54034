//! What a CMake option is to a packager, judged word by word on its name
//! once the project's prefixes are stripped: a feature a user chooses (a
//! variant), or one of the switches a maintainer sets once in `cmake_args`
//! and never offers: tests (`self.run_tests`), what an installed package
//! does not hold (docs, examples, benchmarks: off), the developer's build
//! (`-Werror`, sanitizers, CI, fuzzing: off), another platform's switches
//! (MSVC's runtime, Apple frameworks: left alone), and the project's own
//! install switch (on, or Spack installs nothing).

use std::collections::BTreeSet;

use super::conditions::ConditionMap;
use super::names::OptionPrefixes;
use super::option_words::{is_extras_option, is_test_option, words};
use super::other_platform;
use packsmith_core::{CmakeFacts, CmakeOption};

/// The role of one option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OptionRole {
    /// Builds the tests: follows `self.run_tests`.
    Test,
    /// Builds docs, examples, benchmarks: pinned off, no variant.
    Extras,
    /// Tunes the developer's build: pinned off, no variant.
    Developer,
    /// Means something on another platform or processor only: no variant,
    /// upstream's Linux default stands.
    OtherPlatform,
    /// Upstream calls it deprecated (libpng's `PNG_EXECUTABLES "[Deprecated;
    /// please use PNG_TOOLS]"`): no variant, upstream's default stands.
    Deprecated,
    /// Installs the package or the files dependents find it by: pinned on.
    Install,
    /// A feature: a variant.
    Feature,
}

/// Substrings that mark a developer's switch (kept from the first rule:
/// `WARNINGS_AS_ERRORS`, `ENABLE_COVERAGE`, `USE_CLANG_TIDY`).
const DEVELOPER_SUBSTRINGS: &[&str] = &[
    "WERROR",
    "WARNING",
    "COVERAGE",
    "SANITIZ",
    "CLANG_TIDY",
    "CPPCHECK",
    "IWYU",
    "CCACHE",
    "CLANG_FORMAT",
    "FORMAT",
    "LINT",
    "PEDANTIC",
    "GCOV",
];

/// Whole words that mark a developer's switch.
const DEVELOPER_WORDS: &[&str] = &[
    "ASAN",
    "MSAN",
    "TSAN",
    "UBSAN",
    "LSAN",
    "FUZZ",
    "FUZZING",
    "FUZZER",
    "FUZZERS",
    "CI",
    "VALGRIND",
    "QEMU",
    "DEVELOPER",
];

/// Whole words that tie an option to another platform, toolchain or
/// processor than Linux x86-64 with GCC (clang's libc++ is the compiler's
/// business in Spack, not a variant's).
const OTHER_PLATFORM_WORDS: &[&str] = &[
    "MSVC",
    "WIN",
    "WIN32",
    "WIN64",
    "WINDOWS",
    "UWP",
    "MINGW",
    "CYGWIN",
    "OSX",
    "MACOS",
    "MACOSX",
    "APPLE",
    "IOS",
    "ANDROID",
    "EMSCRIPTEN",
    "WASM",
    "PDB",
    "CRT",
    "DLLMAIN",
    "ETW",
    "LOONGARCH",
    "MIPS",
    "POWERPC",
    "PPC",
    "RISCV",
    "ARM",
    "NEON",
    "AARCH64",
    "S390",
    "SPARC",
    "LSX",
    "LASX",
    "MSA",
    "MMI",
    "VSX",
    "RVV",
    "ALTIVEC",
    "LIBCPP",
    "LIBCXX",
];

/// Words an install switch may hold beside `INSTALL`: what it installs
/// (the files dependents find the package by) or how (`JUST_INSTALL`).
const INSTALL_COMPANIONS: &[&str] = &[
    "JUST",
    "ONLY",
    "ENABLE",
    "BUILD",
    "WITH",
    "USE",
    "DO",
    "PKG",
    "PKGCONFIG",
    "CONFIG",
    "CMAKE",
    "PACKAGE",
    "MODULE",
    "MODULES",
    "FILES",
    "HEADERS",
    "HEADER",
    "LIB",
    "LIBS",
    "LIBRARY",
    "LIBRARIES",
    "TARGETS",
    "EXPORT",
    "EXPORTS",
    "ALL",
    "DEVEL",
    "RULES",
];

/// Words that turn an option into its negative (`SKIP_INSTALL_ALL`).
const NEGATIONS: &[&str] = &["NO", "DISABLE", "WITHOUT", "SKIP"];

/// The option's words without the project's prefixes.
fn stripped_words(name: &str, prefixes: &OptionPrefixes) -> Vec<String> {
    words(&super::names::variant_name_in(name, prefixes))
}

fn is_developer(name: &str, words: &[String]) -> bool {
    let upper = name.to_ascii_uppercase();
    DEVELOPER_SUBSTRINGS.iter().any(|w| upper.contains(w))
        || words.iter().any(|w| DEVELOPER_WORDS.contains(&w.as_str()))
}

fn is_other_platform(opt: &CmakeOption, words: &[String]) -> bool {
    let declared_elsewhere_only =
        !opt.conditions.is_empty() && opt.conditions.iter().any(|c| other_platform(c));
    let meaningful: Vec<&String> = words
        .iter()
        .filter(|w| !["BUILD", "ENABLE", "USE", "WITH"].contains(&w.as_str()))
        .collect();
    // `BUILD_FRAMEWORK`, `PNG_FRAMEWORK`: an Apple framework bundle.
    let framework = matches!(meaningful.as_slice(), [only] if only.as_str() == "FRAMEWORK");
    declared_elsewhere_only
        || framework
        || words
            .iter()
            .any(|w| OTHER_PLATFORM_WORDS.contains(&w.as_str()))
}

/// The help text says the option itself is deprecated or obsolete: the
/// word opens it or a bracket (`[Deprecated; please use PNG_TOOLS]`,
/// `… (deprecated, use MI_DEBUG_FULL instead)`) or ends a clause; "Enable
/// deprecated API functions" is a feature about a deprecated API.
fn is_deprecated(opt: &CmakeOption) -> bool {
    let help = opt.help.to_ascii_lowercase();
    ["deprecated", "obsolete"].iter().any(|word| {
        help.match_indices(word).any(|(at, _)| {
            let before = help[..at].trim_end().chars().last();
            let after = help[at + word.len()..].chars().next();
            matches!(before, None | Some('(' | '[' | ':' | '-'))
                || matches!(after, None | Some(')' | ']' | ';' | ',' | '.'))
        })
    })
}

/// `FOO_INSTALL`, `JUST_INSTALL_FOO`, `INSTALL_PKG_CONFIG_MODULE`: the
/// project's own name may stand anywhere in it.
fn is_install(words: &[String], project: Option<&str>) -> bool {
    let own = project.map(super::option_words::words).unwrap_or_default();
    words.iter().any(|w| w == "INSTALL")
        && words.iter().all(|w| {
            w == "INSTALL"
                || INSTALL_COMPANIONS.contains(&w.as_str())
                || NEGATIONS.contains(&w.as_str())
                || own.contains(w)
        })
}

/// True when the option's name says no (`SKIP_…`, `NO_…`, `DISABLE_…`):
/// the switch is on when what it names is off.
pub(super) fn is_negative(name: &str, prefixes: &OptionPrefixes) -> bool {
    stripped_words(name, prefixes)
        .first()
        .is_some_and(|w| NEGATIONS.contains(&w.as_str()))
}

/// The role of `opt`, its name read without `prefixes`.
pub(super) fn role(
    opt: &CmakeOption,
    project: Option<&str>,
    prefixes: &OptionPrefixes,
) -> OptionRole {
    let words = stripped_words(&opt.name, prefixes);
    if is_other_platform(opt, &words) {
        OptionRole::OtherPlatform
    } else if is_deprecated(opt) {
        OptionRole::Deprecated
    } else if is_developer(&opt.name, &words) {
        OptionRole::Developer
    } else if is_test_option(&opt.name, project) {
        OptionRole::Test
    } else if is_install(&words, project) {
        OptionRole::Install
    } else if is_extras_option(&words.join("_")) || words.iter().any(|w| w == "COMPARISON") {
        // `SKIP_PERFORMANCE_COMPARISON`: a benchmark against other libraries.
        OptionRole::Extras
    } else {
        OptionRole::Feature
    }
}

/// Every option of the project with its role, each name once (a
/// declaration for Linux before one for another platform), and the
/// prefixes its names carry. Test options go into `map` first, so that an
/// option only a test build reaches is known as such; download switches
/// and options of loops the reader could not unroll (`option(X_${impl}
/// …)`: no single name) are left out.
pub(super) fn classify<'a>(
    cmake: &'a CmakeFacts,
    switches: &[String],
    map: &mut ConditionMap,
) -> (OptionPrefixes, Vec<(&'a CmakeOption, OptionRole)>) {
    let project = cmake.project.as_ref().map(|p| p.name.as_str());
    let own = OptionPrefixes::of_project(project);
    for opt in &cmake.options {
        let upper = opt.name.to_ascii_uppercase();
        if role(opt, project, &own) == OptionRole::Test && !map.test_options.contains(&upper) {
            map.test_options.push(upper);
        }
    }
    // The namespace is read off every user-settable name of the package:
    // options and cache variables (`QUILL_SHARED`, `QUILL_SIMD`).
    let settable = cmake
        .options
        .iter()
        .filter(|o| !map.is_test_only(&o.conditions))
        .map(|o| o.name.as_str())
        .chain(
            cmake
                .cache_vars
                .iter()
                .filter(|v| !map.is_test_only(&v.conditions))
                .map(|v| v.name.as_str()),
        )
        .filter(|n| !n.starts_with("CMAKE_"));
    let prefixes = OptionPrefixes::of_options(project, settable);
    // An option declared per platform (`if(APPLE) option(X … ON) else()
    // option(X … OFF)`) takes its default from a declaration that holds on
    // Linux: libpng's PNG_FRAMEWORK is ON only for Apple, and configure
    // refuses it elsewhere.
    let mut options: Vec<&CmakeOption> = cmake.options.iter().collect();
    options.sort_by_key(|o| o.conditions.iter().any(|c| other_platform(c)));
    let mut handled: BTreeSet<&str> = BTreeSet::new();
    let mut roles = Vec::new();
    for opt in options {
        if switches.contains(&opt.name) || opt.name.contains("${") || !handled.insert(&opt.name) {
            continue;
        }
        let upper = opt.name.to_ascii_uppercase();
        let mut r = role(opt, project, &prefixes);
        if r == OptionRole::Test && !map.test_options.contains(&upper) {
            r = OptionRole::Feature; // a test word only once the namespace is off
        }
        if r == OptionRole::Test && is_negative(&opt.name, &prefixes) {
            map.inverted_tests.insert(upper);
        }
        roles.push((opt, r));
    }
    (prefixes, roles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::{CmakeOptionKind, Evidence};

    fn opt(name: &str, conditions: &[&str]) -> CmakeOption {
        CmakeOption {
            name: name.into(),
            help: String::new(),
            default: Some("OFF".into()),
            kind: CmakeOptionKind::Option,
            depends: None,
            force: None,
            conditions: conditions.iter().map(|c| c.to_string()).collect(),
            evidence: Evidence::new("CMakeLists.txt", 1),
        }
    }

    fn role_of(name: &str, project: &str) -> OptionRole {
        role(
            &opt(name, &[]),
            Some(project),
            &OptionPrefixes::of_project(Some(project)),
        )
    }

    #[test]
    fn a_maintainers_switches_are_told_from_features() {
        use OptionRole::*;
        let cases = [
            ("JSON_BuildTests", "nlohmann_json", Test),
            ("BUILD_DOC", "cereal", Extras),
            ("BUILD_SANDBOX", "cereal", Extras),
            ("SKIP_PERFORMANCE_COMPARISON", "cereal", Extras),
            ("TOML11_BUILD_EXAMPLES", "toml11", Extras),
            ("WITH_WERROR", "cereal", Developer),
            ("JSON_CI", "nlohmann_json", Developer),
            ("LIBUV_BUILD_TSAN", "libuv", Developer),
            ("FMT_FUZZ", "fmt", Developer),
            ("YAML_MSVC_SHARED_RT", "yaml_cpp", OtherPlatform),
            ("PUGIXML_STATIC_CRT", "pugixml", OtherPlatform),
            ("BUILD_FRAMEWORK", "ogg", OtherPlatform),
            ("PNG_POWERPC_VSX", "png", OtherPlatform),
            ("JANSSON_WINDOWS_CRYPTOAPI", "jansson", OtherPlatform),
            ("CEREAL_INSTALL", "cereal", Install),
            ("JUST_INSTALL_CEREAL", "cereal", Install),
            ("INSTALL_PKG_CONFIG_MODULE", "ogg", Install),
            ("SKIP_INSTALL_ALL", "zlib", Install),
            ("INSTALL_DOCS", "ogg", Extras),
            ("THREAD_SAFE", "cereal", Feature),
            ("HEATSIM_ENABLE_MPI", "heatsim", Feature),
            ("FOO_ARMADILLO", "foo", Feature),
            ("FOO_INSTALL_TOPLEVEL", "foo", Feature),
            ("CLANG_USE_LIBCPP", "cereal", OtherPlatform),
        ];
        for (name, project, want) in cases {
            assert_eq!(role_of(name, project), want, "{name}");
        }
    }

    #[test]
    fn an_option_declared_only_for_another_platform_is_left_alone() {
        let p = OptionPrefixes::default();
        assert_eq!(
            role(&opt("SKIP_PORTABILITY_CHECKS", &["APPLE"]), None, &p),
            OptionRole::OtherPlatform
        );
        assert_eq!(
            role(&opt("THREAD_SAFE", &["UNIX"]), None, &p),
            OptionRole::Feature
        );
    }

    #[test]
    fn a_deprecated_option_is_left_alone() {
        let p = OptionPrefixes::default();
        let mut executables = opt("PNG_EXECUTABLES", &[]);
        executables.help = "[Deprecated; please use PNG_TOOLS]".into();
        assert_eq!(role(&executables, None, &p), OptionRole::Deprecated);
        for help in [
            "Use full internal invariant checking in DEBUG mode (deprecated, use MI_DEBUG_FULL instead)",
            "Explicitly link with -latomic (deprecated and detected automatically)",
            "Obsolete: use FOO_BAR",
        ] {
            let mut o = opt("MI_CHECK_FULL", &[]);
            o.help = help.into();
            assert_eq!(role(&o, None, &p), OptionRole::Deprecated, "{help}");
        }
        let mut api = opt("PTHREADPOOL_ALLOW_DEPRECATED_API", &[]);
        api.help = "Enable deprecated API functions".into();
        assert_eq!(role(&api, None, &p), OptionRole::Feature);
        let mut tools = opt("PNG_TOOLS", &[]);
        tools.help = "Build the libpng tools".into();
        assert_eq!(role(&tools, None, &p), OptionRole::Feature);
    }

    #[test]
    fn negative_names_say_no() {
        let p = OptionPrefixes::of_project(Some("cereal"));
        assert!(is_negative("SKIP_PERFORMANCE_COMPARISON", &p));
        assert!(is_negative("SKIP_PORTABILITY_TEST", &p));
        assert!(!is_negative("JUST_INSTALL_CEREAL", &p));
    }
}
