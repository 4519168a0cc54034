//! Every template, rendered for representative facts: snapshotted, and
//! parsed by `nix-instantiate --parse` (with the generated wrapper).

use packsmith_core::*;
use packsmith_nix::{
    choose_builder, choose_template, fetcher_for, parse_source, render, wrapper_expr, Builder,
    NixParser, NixpkgsPin, Revision, SyntaxCheck, TemplateInput, VersionRef,
};

use super::common::nix_available;

fn facts(primary: BuildSystemKind) -> RepoFacts {
    RepoFacts {
        primary_build_system: Some(primary),
        license: Some(LicenseFact {
            spdx: "MIT".into(),
            evidence: Evidence::file("LICENSE"),
            later_versions: None,
        }),
        homepage: Some(Sourced::new(
            "https://github.com/example/demo".into(),
            Evidence::file("README.md"),
        )),
        description: Some(Sourced::new(
            "A demo tool that does one thing well. It has more to say.".into(),
            Evidence::file("README.md"),
        )),
        ..RepoFacts::empty(SourceInfo {
            kind: "path".into(),
            given: "/src/demo".into(),
            release_tag: None,
        })
    }
}

fn github_src(version: &str) -> packsmith_nix::FetcherCall {
    let src = parse_source("https://github.com/example/demo").unwrap();
    fetcher_for(
        &src,
        Some(&Revision::guess(&format!("v{version}"))),
        Some(version),
        VersionRef::FinalAttrs,
    )
    .unwrap()
}

fn find_package(name: &str, required: bool, conditions: &[&str]) -> CmakeFindPackage {
    CmakeFindPackage {
        name: name.into(),
        version: None,
        exact: false,
        required,
        quiet: false,
        config_mode: false,
        components: Vec::new(),
        optional_components: Vec::new(),
        conditions: conditions.iter().map(|c| c.to_string()).collect(),
        evidence: Evidence::file("CMakeLists.txt"),
        required_when: Vec::new(),
    }
}

fn option(name: &str, default: &str) -> CmakeOption {
    CmakeOption {
        name: name.into(),
        help: String::new(),
        default: Some(default.into()),
        kind: CmakeOptionKind::Option,
        depends: None,
        force: None,
        conditions: Vec::new(),
        evidence: Evidence::file("CMakeLists.txt"),
    }
}

/// heatsim's shape: ZLIB required, OpenMP behind an option that is ON,
/// MPI behind one that is OFF, tests ON upstream, shared libraries OFF.
fn cmake_with_dependencies() -> RepoFacts {
    let mut f = facts(BuildSystemKind::Cmake);
    f.cmake = Some(CmakeFacts {
        find_packages: vec![
            find_package("ZLIB", true, &[]),
            find_package("OpenMP", true, &["DEMO_ENABLE_OPENMP"]),
            find_package("MPI", true, &["DEMO_ENABLE_MPI"]),
            find_package("Doxygen", false, &[]),
            find_package("PkgConfig", true, &[]),
            find_package("NoSuchUpstream", true, &[]),
        ],
        options: vec![
            option("DEMO_ENABLE_OPENMP", "ON"),
            option("DEMO_ENABLE_MPI", "OFF"),
            option("DEMO_BUILD_TESTS", "ON"),
        ],
        build_shared_libs: Some(Sourced::new("OFF".into(), Evidence::file("CMakeLists.txt"))),
        ..CmakeFacts::default()
    });
    f
}

/// (snapshot name, facts, expected builder).
fn cases() -> Vec<(&'static str, RepoFacts, Builder)> {
    let mut out = Vec::new();
    out.push(("cmake", facts(BuildSystemKind::Cmake), Builder::Cmake));
    out.push((
        "cmake_with_dependencies",
        cmake_with_dependencies(),
        Builder::Cmake,
    ));
    out.push(("meson", facts(BuildSystemKind::Meson), Builder::Meson));
    let mut at = facts(BuildSystemKind::Autotools);
    at.autotools = Some(AutotoolsFacts::default());
    out.push((
        "autotools_autoreconf",
        at.clone(),
        Builder::Autotools { autoreconf: true },
    ));
    at.autotools = Some(AutotoolsFacts {
        has_configure_script: true,
        ..AutotoolsFacts::default()
    });
    out.push((
        "autotools_configure",
        at,
        Builder::Autotools { autoreconf: false },
    ));
    out.push(("make", facts(BuildSystemKind::Makefile), Builder::Make));
    let mut lib = facts(BuildSystemKind::Python);
    lib.python = Some(PythonFacts {
        name: Some("demo-lib".into()),
        build_backend: Some("hatchling.build".into()),
        ..PythonFacts::default()
    });
    out.push(("python_library", lib, Builder::PythonPackage));
    let mut app = facts(BuildSystemKind::Python);
    app.python = Some(PythonFacts {
        build_backend: Some("poetry.core.masonry.api".into()),
        is_application: true,
        scripts: vec![PythonEntryPoint {
            name: "demo".into(),
            kind: "console".into(),
            target: "demo.cli:main".into(),
            evidence: Evidence::file("pyproject.toml"),
        }],
        ..PythonFacts::default()
    });
    out.push(("python_application", app, Builder::PythonApplication));
    let mut mat = facts(BuildSystemKind::Python);
    mat.python = Some(PythonFacts {
        build_backend: Some("maturin".into()),
        ..PythonFacts::default()
    });
    out.push(("python_maturin", mat, Builder::PythonPackage));
    let mut laz = facts(BuildSystemKind::Makefile);
    laz.primary_build_system = None;
    laz.lazarus = Some(LazarusProject {
        project_file: "demo.lpi".into(),
        target: Some("bin/demo".into()),
        widgetset: Some(Sourced::new("qt6".into(), Evidence::file("PKGBUILD"))),
        desktop_file: Some("data/demo.desktop".into()),
        icons: vec![
            ("128x128".into(), "data/icons/128x128/demo.png".into()),
            ("scalable".into(), "data/demo.svg".into()),
        ],
        dynamic_units: ["GL", "GLU"]
            .iter()
            .map(|u| Sourced::new(u.to_string(), Evidence::file("demounit.pas")))
            .collect(),
    });
    out.push(("lazarus_qt6", laz.clone(), Builder::Lazarus));
    laz.lazarus = Some(LazarusProject {
        project_file: "demo.lpi".into(),
        target: None,
        widgetset: None,
        desktop_file: None,
        icons: Vec::new(),
        dynamic_units: Vec::new(),
    });
    out.push(("lazarus_gtk2", laz, Builder::Lazarus));
    let mut rs = facts(BuildSystemKind::Cargo);
    rs.cargo = Some(CargoFacts {
        binaries: vec!["demo".into()],
        has_lockfile: true,
        ..CargoFacts::default()
    });
    out.push(("rust", rs, Builder::Rust));
    let mut go = facts(BuildSystemKind::Go);
    go.go = Some(GoFacts {
        module: Some("github.com/example/demo".into()),
        binaries: vec!["cmd/demo".into()],
        has_sum: true,
        ..GoFacts::default()
    });
    out.push(("go", go.clone(), Builder::Go));
    go.go = Some(GoFacts {
        has_vendor_dir: true,
        binaries: vec![".".into()],
        module: Some("github.com/example/demo".into()),
        ..GoFacts::default()
    });
    out.push(("go_vendored", go, Builder::Go));
    let mut npm = facts(BuildSystemKind::Npm);
    npm.npm = Some(NpmFacts {
        lockfile: Some("package-lock.json".into()),
        binaries: vec!["demo".into()],
        ..NpmFacts::default()
    });
    out.push(("npm", npm.clone(), Builder::Npm));
    if let Some(n) = npm.npm.as_mut() {
        n.lockfile = Some("pnpm-lock.yaml".into());
    }
    out.push(("npm_pnpm", npm.clone(), Builder::Npm));
    if let Some(n) = npm.npm.as_mut() {
        n.lockfile = Some("yarn.lock".into());
    }
    out.push(("npm_yarn", npm, Builder::Npm));
    out
}

fn render_case(name: &str, f: &RepoFacts, builder: Builder) -> String {
    let pname = if name.starts_with("python_library") {
        "demo-lib"
    } else {
        "demo"
    };
    let mut input = TemplateInput::from_facts(f, pname, "1.2.0", github_src("1.2.0"));
    if name == "python_library" {
        // A PyPI source, the usual case for libraries.
        input.src = fetcher_for(
            &parse_source("pypi:demo-lib").unwrap(),
            None,
            Some("1.2.0"),
            VersionRef::FinalAttrs,
        )
        .unwrap();
    }
    render(builder, &input)
}

#[test]
fn templates_are_chosen_from_clear_facts() {
    for (name, f, builder) in cases() {
        assert_eq!(choose_template(&f), Some(builder), "{name}");
    }
    let mut npm = facts(BuildSystemKind::Npm);
    npm.npm = Some(NpmFacts::default());
    assert_eq!(
        choose_template(&npm),
        None,
        "npm without a lock file: a model decides"
    );
    let mut unknown = facts(BuildSystemKind::Cmake);
    unknown.primary_build_system = None;
    assert_eq!(choose_template(&unknown), None);
}

/// The package set of the attribute decides over the tree's primary build
/// system; maturin packaging a Cargo program is a Rust package otherwise.
#[test]
fn the_attribute_path_and_maturin_choose_the_builder() {
    let mut f = facts(BuildSystemKind::Cmake);
    f.python = Some(PythonFacts {
        build_backend: Some("setuptools.build_meta".into()),
        ..PythonFacts::default()
    });
    assert_eq!(
        choose_builder(&f, Some("python3Packages.demo")),
        Some(Builder::PythonPackage)
    );
    assert_eq!(choose_builder(&f, Some("demo")), Some(Builder::Cmake));
    let mut m = facts(BuildSystemKind::Python);
    m.python = Some(PythonFacts {
        build_backend: Some("maturin".into()),
        ..PythonFacts::default()
    });
    m.cargo = Some(CargoFacts {
        binaries: vec!["demo".into()],
        ..CargoFacts::default()
    });
    assert_eq!(choose_builder(&m, None), Some(Builder::Rust));
    assert_eq!(
        choose_builder(&m, Some("python313Packages.demo")),
        Some(Builder::PythonPackage)
    );
    // A maturin extension module without a program stays a Python package.
    m.cargo = Some(CargoFacts::default());
    assert_eq!(choose_builder(&m, None), Some(Builder::PythonPackage));
}

/// A configure script committed to a repository is regenerated, as
/// nixpkgs does; a release tarball's is kept.
#[test]
fn a_repository_configure_is_regenerated_a_tarball_one_kept() {
    let mut f = facts(BuildSystemKind::Autotools);
    f.autotools = Some(AutotoolsFacts {
        file: Some("configure.ac".into()),
        has_configure_script: true,
        ..AutotoolsFacts::default()
    });
    assert_eq!(
        choose_template(&f),
        Some(Builder::Autotools { autoreconf: true })
    );
    f.source.kind = "archive".into();
    assert_eq!(
        choose_template(&f),
        Some(Builder::Autotools { autoreconf: false })
    );
}

#[test]
fn every_template_renders_as_snapshotted() {
    for (name, f, builder) in cases() {
        let text = render_case(name, &f, builder);
        // Formatted as nixfmt formats and clean of every convention the
        // static check knows: no template leaves a reviewer's finding.
        let pname = if name.starts_with("python_library") {
            "demo-lib"
        } else {
            "demo"
        };
        let findings = packsmith_nix::conventions::check(&text, pname);
        assert!(findings.is_empty(), "{name}: {findings:?}\n{text}");
        // A fixed point of nixfmt (nixfmt_rs, byte-identical to nixfmt
        // 1.2.0): it parses, and `nixfmt --check` would pass it.
        assert_eq!(
            packsmith_nix::format::nixfmt(&text).as_deref(),
            Some(text.as_str()),
            "{name}"
        );
        insta::assert_snapshot!(format!("template_{name}"), text);
    }
    let mut generic = TemplateInput::from_facts(
        &facts(BuildSystemKind::Cmake),
        "demo",
        "1.2.0",
        github_src("1.2.0"),
    );
    generic.license = Some("LicenseRef-custom".into());
    insta::assert_snapshot!("template_generic", render(Builder::Generic, &generic));
}

#[test]
fn cmake_draft_declares_required_and_default_on_dependencies_with_flags() {
    let text = render_case(
        "cmake_with_dependencies",
        &cmake_with_dependencies(),
        Builder::Cmake,
    );
    // Doxygen is optional with no option to turn it on: left out.
    assert!(
        text.contains("nativeBuildInputs = [\n    cmake\n    pkg-config\n  ];"),
        "{text}"
    );
    assert!(
        text.contains("buildInputs = [\n    zlib\n    llvmPackages.openmp\n  ];"),
        "{text}"
    );
    // MPI sits behind an option that is off by default: not declared.
    assert!(!text.contains("mpi"), "{text}");
    assert!(
        text.contains("(lib.cmakeBool \"DEMO_ENABLE_OPENMP\" true)"),
        "{text}"
    );
    // The tests need nothing from the network: they run, and building
    // them follows doCheck.
    assert!(
        text.contains("(lib.cmakeBool \"DEMO_BUILD_TESTS\" finalAttrs.doCheck)"),
        "{text}"
    );
    assert!(text.contains("  doCheck = true;\n"), "{text}");
    assert!(
        text.contains("(lib.cmakeBool \"BUILD_SHARED_LIBS\" true)"),
        "{text}"
    );
    // Each attribute root is a function input.
    assert!(
        text.contains("  zlib,\n") && text.contains("  llvmPackages,\n"),
        "{text}"
    );
}

fn cmake_draft(f: &RepoFacts) -> String {
    let input = TemplateInput::from_facts(f, "demo", "1.0.0", github_src("1.0.0"));
    render(Builder::Cmake, &input)
}

/// Tests that need only libraries run, their framework a check input;
/// tests that download, or that a GUI toolkit's program would run
/// without a display, are switched off with what only they need.
#[test]
fn cmake_tests_run_when_offline_and_headless() {
    let mut f = facts(BuildSystemKind::Cmake);
    let tests_option = option("DEMO_BUILD_TESTS", "ON");
    f.cmake = Some(CmakeFacts {
        find_packages: vec![
            find_package("ZLIB", false, &[]),
            find_package("GTest", true, &["DEMO_BUILD_TESTS"]),
            find_package("Boost", true, &["DEMO_BUILD_EXAMPLES"]),
        ],
        options: vec![tests_option.clone(), option("DEMO_BUILD_EXAMPLES", "ON")],
        ..CmakeFacts::default()
    });
    let text = cmake_draft(&f);
    // ZLIB is optional without an option: the build uses it when found.
    assert!(text.contains("buildInputs = [ zlib ];"), "{text}");
    assert!(text.contains("checkInputs = [ gtest ];"), "{text}");
    assert!(text.contains("doCheck = true;"), "{text}");
    // Examples are off in a package, and Boost only serves them.
    assert!(
        text.contains("(lib.cmakeBool \"DEMO_BUILD_EXAMPLES\" false)"),
        "{text}"
    );
    assert!(!text.contains("boost"), "{text}");

    // The tests fetch GoogleTest: off, with no test input and no contradiction.
    let mut fetching = f.clone();
    fetching.downloads = vec![packsmith_core::facts::DownloadFact::new(
        packsmith_core::facts::DownloadKind::FetchContent,
        "googletest",
        Evidence::file("CMakeLists.txt"),
    )];
    let text = cmake_draft(&fetching);
    assert!(
        text.contains("(lib.cmakeBool \"DEMO_BUILD_TESTS\" false)"),
        "{text}"
    );
    assert!(
        !text.contains("finalAttrs.doCheck") && !text.contains("doCheck = true"),
        "{text}"
    );
    assert!(!text.contains("gtest"), "{text}");

    // An SDL program: its tests would want a display.
    let mut gui = f.clone();
    if let Some(cm) = gui.cmake.as_mut() {
        cm.find_packages.push(find_package("SDL2", true, &[]));
    }
    let text = cmake_draft(&gui);
    assert!(text.contains("SDL2"), "{text}");
    assert!(!text.contains("doCheck = true"), "{text}");

    // An option that disables the tests, declared OFF at the top level and
    // ON as a subproject: the top-level declaration counts, inverted.
    let mut negative = facts(BuildSystemKind::Cmake);
    let mut top = option("CMAKE_DISABLE_TESTING", "OFF");
    top.conditions = vec!["CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR".into()];
    let mut sub = option("CMAKE_DISABLE_TESTING", "ON");
    sub.conditions = vec!["NOT (CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)".into()];
    negative.cmake = Some(CmakeFacts {
        options: vec![top, sub],
        tests: Some(Evidence::file("test/CMakeLists.txt")),
        ..CmakeFacts::default()
    });
    let text = cmake_draft(&negative);
    assert!(
        text.contains("(lib.cmakeBool \"CMAKE_DISABLE_TESTING\" (!finalAttrs.doCheck))"),
        "{text}"
    );
}

/// A generator the build runs brings its tool although the lookup is
/// optional; a copy of plugins into $HOME is switched off where a -D can,
/// and gets a throwaway home where it cannot.
#[test]
fn cmake_generators_and_home_copies() {
    let generator = |tool: &str, conditions: &[&str]| CmakeGenerator {
        tool: tool.into(),
        command: format!("{}_target", tool.to_lowercase()),
        conditions: conditions.iter().map(|c| c.to_string()).collect(),
        evidence: Evidence::file("src/CMakeLists.txt"),
    };
    let mut f = facts(BuildSystemKind::Cmake);
    f.cmake = Some(CmakeFacts {
        find_packages: vec![
            find_package("BISON", false, &[]),
            find_package("FLEX", false, &[]),
        ],
        options: vec![option("DEMO_GRAMMARS", "OFF")],
        ..CmakeFacts::default()
    });
    // Looked for and never run: optional tools stay out.
    let text = cmake_draft(&f);
    assert!(!text.contains("bison") && !text.contains("flex"), "{text}");

    let cm = f.cmake.as_mut().unwrap();
    cm.generators = vec![
        generator("BISON", &[]),
        generator("FLEX", &["DEMO_GRAMMARS"]),
    ];
    let text = cmake_draft(&f);
    assert!(
        text.contains("nativeBuildInputs = [\n    cmake\n    bison\n  ];"),
        "{text}"
    );
    // FLEX runs only behind an option that is off.
    assert!(!text.contains("flex"), "{text}");

    let cm = f.cmake.as_mut().unwrap();
    cm.home_copy = Some(CmakeHomeCopy {
        switch: Some("DEMO_COPY_PLUGIN".into()),
        check: "juce_add_plugin COPY_PLUGIN_AFTER_BUILD".into(),
        evidence: Evidence::file("CMakeLists.txt"),
    });
    let text = cmake_draft(&f);
    assert!(
        text.contains("(lib.cmakeBool \"DEMO_COPY_PLUGIN\" false)"),
        "{text}"
    );
    assert!(!text.contains("writableTmpDirAsHomeHook"), "{text}");
    f.cmake.as_mut().unwrap().home_copy.as_mut().unwrap().switch = None;
    let text = cmake_draft(&f);
    assert!(text.contains("    writableTmpDirAsHomeHook\n"), "{text}");
    assert!(!text.contains("DEMO_COPY_PLUGIN"), "{text}");
}

/// `install(… DESTINATION "$ENV{HOME}/lib")` writes into the sandbox's
/// unwritable home: `postPatch` points each such file at `$out`, before the
/// inputs (nixpkgs' order), in a derivation Nix parses.
#[test]
fn an_install_into_home_is_pointed_at_out() {
    let mut f = facts(BuildSystemKind::Cmake);
    f.cmake = Some(CmakeFacts {
        home_installs: vec![Evidence::new("CMakeLists.txt", 32)],
        ..CmakeFacts::default()
    });
    let text = cmake_draft(&f);
    let hook = "  postPatch = ''\n    substituteInPlace CMakeLists.txt --replace-fail '$ENV{HOME}' \"$out\"\n  '';\n";
    assert!(text.contains(hook), "{text}");
    assert!(
        text.find("postPatch").unwrap() < text.find("nativeBuildInputs").unwrap(),
        "{text}"
    );
    if nix_available("an_install_into_home_is_pointed_at_out") {
        NixParser::default()
            .check(&text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
    f.cmake.as_mut().unwrap().home_installs.clear();
    assert!(!cmake_draft(&f).contains("postPatch"));
}

#[test]
fn every_template_and_the_wrapper_parse_with_nix() {
    if !nix_available("every_template_and_the_wrapper_parse_with_nix") {
        return;
    }
    let parser = NixParser::default();
    let mut n = 0;
    for (name, f, builder) in cases() {
        let text = render_case(name, &f, builder);
        parser
            .check(&text)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        n += 1;
    }
    let generic = TemplateInput::from_facts(
        &facts(BuildSystemKind::Cmake),
        "demo",
        "1.2.0",
        github_src("1.2.0"),
    );
    parser.check(&render(Builder::Generic, &generic)).unwrap();
    for b in Builder::ALL {
        parser.check(&render(*b, &generic)).unwrap();
    }
    for scope in [
        packsmith_nix::CallScope::TopLevel,
        packsmith_nix::CallScope::Python3Packages,
    ] {
        for pin in [
            NixpkgsPin::Path {
                path: "/src/nixpkgs".into(),
            },
            NixpkgsPin::Rev {
                rev: "d3d2d80a2191a73d1e86456a751b83aa13085d7d".into(),
                sha256: Some("0000000000000000000000000000000000000000000000000000".into()),
            },
        ] {
            parser.check(&wrapper_expr(&pin, scope)).unwrap();
        }
    }
    assert_eq!(n, cases().len());
}

/// The acceptance case: examples/heatsim, analysed for real, gets
/// zlib (required), OpenMP (its option is ON) with the flag keeping it on,
/// and not MPI/HDF5/CUDA (their options are OFF).
#[test]
fn heatsim_draft_declares_zlib_and_the_option_flags() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/heatsim");
    let facts = packsmith_analyze::analyze_dir(
        &dir,
        SourceInfo {
            kind: "path".into(),
            given: "examples/heatsim".into(),
            release_tag: None,
        },
    )
    .expect("examples/heatsim analyses");
    assert_eq!(choose_template(&facts), Some(Builder::Cmake));
    let input = TemplateInput::from_facts(&facts, "heatsim", "2.1.0", github_src("2.1.0"));
    let text = render(Builder::Cmake, &input);
    assert!(
        text.contains("buildInputs = [\n    zlib\n    llvmPackages.openmp\n  ];"),
        "{text}"
    );
    assert!(
        // One flag fits on one line, as nixfmt writes it.
        text.contains("cmakeFlags = [ (lib.cmakeBool \"HEATSIM_ENABLE_OPENMP\" true) ];"),
        "{text}"
    );
    for absent in ["mpi", "hdf5", "cuda"] {
        assert!(!text.contains(absent), "{absent} declared:\n{text}");
    }
    // heatsim builds one program besides its library.
    assert!(text.contains("mainProgram = \"heatsim-run\";"), "{text}");
}

fn meson_dependency(name: &str, required: &str, conditions: &[&str]) -> MesonDependency {
    MesonDependency {
        name: name.into(),
        version: None,
        required: required.into(),
        fallback: None,
        conditions: conditions.iter().map(|c| c.to_string()).collect(),
        evidence: Evidence::file("meson.build"),
    }
}

fn meson_option(name: &str, option_type: &str, default: &str) -> MesonOption {
    MesonOption {
        name: name.into(),
        option_type: option_type.into(),
        default: Some(default.into()),
        choices: Vec::new(),
        description: String::new(),
        evidence: Evidence::file("meson_options.txt"),
    }
}

#[test]
fn meson_draft_declares_required_unconditional_dependencies() {
    let mut f = facts(BuildSystemKind::Meson);
    f.meson = Some(MesonFacts {
        dependencies: vec![
            meson_dependency("glib-2.0", "true", &[]),
            meson_dependency("zlib", "true", &[]),
            meson_dependency("libcurl", "get_option('curl')", &[]),
            meson_dependency("openssl", "true", &["get_option('tls')"]),
        ],
        options: vec![
            meson_option("tests", "boolean", "true"),
            meson_option("docs", "feature", "auto"),
            meson_option("examples", "boolean", "false"),
            meson_option("backend", "combo", "'x'"),
        ],
        ..MesonFacts::default()
    });
    let text = render_case("meson_with_dependencies", &f, Builder::Meson);
    assert!(
        text.contains("buildInputs = [\n    glib\n    zlib\n  ];"),
        "{text}"
    );
    // Tests and docs off, as a package build wants; what is already off
    // and what is no switch stay out.
    assert!(
        text.contains(
            "mesonFlags = [\n    (lib.mesonBool \"tests\" false)\n    (lib.mesonEnable \"docs\" false)\n  ];"
        ),
        "{text}"
    );
    assert!(
        !text.contains("examples") && !text.contains("backend"),
        "{text}"
    );
    assert!(
        !text.contains("curl") && !text.contains("openssl"),
        "{text}"
    );
    if nix_available("meson_draft_declares_required_unconditional_dependencies") {
        NixParser::default()
            .check(&text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

fn requirement(name: &str, marker: Option<&str>) -> PythonRequirement {
    PythonRequirement {
        name: name.into(),
        extras: Vec::new(),
        specifier: ">=1".into(),
        marker: marker.map(Into::into),
        evidence: Evidence::file("pyproject.toml"),
    }
}

/// A library's requirements become `dependencies` and inputs of the
/// function; its other build requirements join `build-system`; an
/// application takes both from `python3Packages`.
#[test]
fn python_drafts_declare_requirements() {
    let mut f = facts(BuildSystemKind::Python);
    f.python = Some(PythonFacts {
        name: Some("demo-lib".into()),
        build_backend: Some("setuptools.build_meta".into()),
        build_requires: vec![
            requirement("setuptools", None),
            requirement("setuptools_scm", None),
            requirement("wheel", None),
        ],
        dependencies: vec![
            requirement("requests", None),
            requirement("tomli", Some("python_version < \"3.11\"")),
            requirement("typing-extensions", None),
        ],
        ..PythonFacts::default()
    });
    f.tree = "├── demo_lib/ (2 files)\n├── tests/ (3 files)\n└── pyproject.toml\n".into();
    let text = render_case("python_library_requirements", &f, Builder::PythonPackage);
    // A project with tests runs them with pytest's hook.
    assert!(
        text.contains("nativeCheckInputs = [ pytestCheckHook ];")
            && text.contains("  pytestCheckHook,\n"),
        "{text}"
    );
    assert!(
        text.contains("build-system = [\n    setuptools\n    setuptools-scm\n  ];"),
        "{text}"
    );
    assert!(
        text.contains("dependencies = [\n    requests\n    typing-extensions\n  ];"),
        "{text}"
    );
    assert!(
        text.contains("  setuptools-scm,\n") && text.contains("  requests,\n"),
        "{text}"
    );
    assert!(!text.contains("tomli") && !text.contains("wheel"), "{text}");
    if let Some(p) = f.python.as_mut() {
        p.is_application = true;
    }
    let app = render_case("python_app_requirements", &f, Builder::PythonApplication);
    assert!(
        app.contains(
            "dependencies = with python3Packages; [\n    requests\n    typing-extensions\n  ];"
        ),
        "{app}"
    );
    if nix_available("python_drafts_declare_requirements") {
        for t in [&text, &app] {
            NixParser::default()
                .check(t)
                .unwrap_or_else(|e| panic!("{e}\n{t}"));
        }
    }
}

/// Requirements only macOS installs (pyobjc behind `sys_platform ==
/// 'darwin'`) are listed under `stdenv.hostPlatform.isDarwin`: on Linux
/// those packages do not evaluate. Alone, they make the whole list.
#[test]
fn python_darwin_requirements_are_guarded() {
    let mut f = facts(BuildSystemKind::Python);
    let darwin = "sys_platform == 'darwin' and platform_release >= '22.0'";
    f.python = Some(PythonFacts {
        name: Some("demo-lib".into()),
        build_backend: Some("flit_core.buildapi".into()),
        dependencies: vec![
            requirement("requests", None),
            requirement("pyobjc-core", Some(darwin)),
            requirement("pywin32", Some("sys_platform == 'win32'")),
        ],
        ..PythonFacts::default()
    });
    let lib_text = render_case("python_library_darwin", &f, Builder::PythonPackage);
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat(&lib_text).contains(
            "dependencies = [ requests ] ++ lib.optionals stdenv.hostPlatform.isDarwin [ pyobjc-core ];"
        ),
        "{lib_text}"
    );
    assert!(
        lib_text.contains("  stdenv,\n") && lib_text.contains("  pyobjc-core,\n"),
        "{lib_text}"
    );
    assert!(!lib_text.contains("pywin32"), "{lib_text}");
    if let Some(p) = f.python.as_mut() {
        p.dependencies.remove(0);
        p.is_application = true;
    }
    let app = render_case("python_app_darwin", &f, Builder::PythonApplication);
    assert!(
        flat(&app).contains(
            "dependencies = with python3Packages; lib.optionals stdenv.hostPlatform.isDarwin [ pyobjc-core ];"
        ),
        "{app}"
    );
    assert!(!app.contains("  pyobjc-core,\n"), "{app}");
    if nix_available("python_darwin_requirements_are_guarded") {
        for t in [&lib_text, &app] {
            NixParser::default()
                .check(t)
                .unwrap_or_else(|e| panic!("{e}\n{t}"));
        }
    }
}

/// A plain-Makefile project, analysed for real: the libraries it links
/// and the pkg-config modules its own switches select become the inputs,
/// pkg-config a build tool; GTK 2 (the switch is off) and the toolchain's
/// libraries (`-lm`, `-lpthread`) are not declared.
#[test]
fn makefile_draft_declares_linked_libraries_and_pkg_config_modules() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/makefile-libs");
    let facts = packsmith_analyze::analyze_dir(
        &dir,
        SourceInfo {
            kind: "path".into(),
            given: "tests/fixtures/makefile-libs".into(),
            release_tag: None,
        },
    )
    .expect("the Makefile fixture analyses");
    assert_eq!(choose_template(&facts), Some(Builder::Make));
    let input = TemplateInput::from_facts(&facts, "traytool", "1.0.0", github_src("1.0.0"));
    let text = render(Builder::Make, &input);
    // A GTK 3 program gets GTK's wrapper hook.
    // Its manual page, which `make install` leaves out, is installed
    // by installShellFiles.
    assert!(
        text.contains(
            "nativeBuildInputs = [\n    pkg-config\n    wrapGAppsHook3\n    installShellFiles\n  ];"
        ),
        "{text}"
    );
    assert!(
        text.contains("  postInstall = ''\n    installManPage traytool.1\n  '';\n"),
        "{text}"
    );
    // Modules first (gio-2.0 is glib), then the linked libraries.
    let build = ["gtk3", "libnotify", "glib", "libnetfilter_queue", "libmnl"];
    let listed: String = build.iter().map(|a| format!("    {a}\n")).collect();
    assert!(
        text.contains(&format!("buildInputs = [\n{listed}  ];")),
        "{text}"
    );
    assert!(!text.contains("gtk2"), "{text}");
    for input in ["pkg-config", "gtk3", "libnetfilter_queue", "libmnl"] {
        assert!(text.contains(&format!("  {input},\n")), "{input}:\n{text}");
    }
    if nix_available("makefile_draft_declares_linked_libraries_and_pkg_config_modules") {
        NixParser::default()
            .check(&text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

/// A project below the top of its source is built from there: a fetched
/// source by its name, a local path by its base name.
#[test]
fn source_root_names_the_unpacked_directory() {
    let mut f = facts(BuildSystemKind::Python);
    f.python = Some(PythonFacts {
        build_backend: Some("poetry.core.masonry.api".into()),
        ..PythonFacts::default()
    });
    let mut input = TemplateInput::from_facts(&f, "demo-lib", "1.2.0", github_src("1.2.0"));
    input.source_root = Some("python".into());
    let text = render(Builder::PythonPackage, &input);
    assert!(
        text.contains("sourceRoot = \"${src.name}/python\";"),
        "{text}"
    );
    input.src = fetcher_for(
        &parse_source("/src/demo").unwrap(),
        None,
        Some("1.2.0"),
        VersionRef::FinalAttrs,
    )
    .unwrap();
    let text = render(Builder::PythonPackage, &input);
    assert!(
        text.contains("sourceRoot = \"${baseNameOf src}/python\";"),
        "{text}"
    );
    if nix_available("source_root_names_the_unpacked_directory") {
        NixParser::default()
            .check(&text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

/// `meta.description` takes the manifest's one-line summary over the
/// README's first paragraph.
#[test]
fn the_manifest_summary_is_the_description() {
    let mut f = facts(BuildSystemKind::Python);
    f.python = Some(PythonFacts {
        build_backend: Some("hatchling.build".into()),
        description: Some("Async client for the OWFS owserver".into()),
        ..PythonFacts::default()
    });
    let input = TemplateInput::from_facts(&f, "demo-lib", "1.2.0", github_src("1.2.0"));
    let text = render(Builder::PythonPackage, &input);
    assert!(
        text.contains("description = \"Async client for the OWFS owserver\";"),
        "{text}"
    );
}

/// Upstream's CI or presets configure with Ninja: the package does too,
/// through the cmake hook's Ninja support; another generator adds nothing.
#[test]
fn cmake_builds_with_the_generator_upstream_uses() {
    let mut f = facts(BuildSystemKind::Cmake);
    f.cmake = Some(CmakeFacts {
        upstream_generator: Some(Sourced::new(
            "Ninja".into(),
            Evidence::new(".github/workflows/build.yml", 14),
        )),
        ..CmakeFacts::default()
    });
    let text = cmake_draft(&f);
    assert!(
        text.contains("nativeBuildInputs = [\n    cmake\n    ninja\n  ];")
            || text.contains("nativeBuildInputs = [ cmake ninja ];"),
        "{text}"
    );
    let mut other = f.clone();
    if let Some(cm) = other.cmake.as_mut() {
        cm.upstream_generator = Some(Sourced::new(
            "Unix Makefiles".into(),
            Evidence::file("CMakePresets.json"),
        ));
    }
    assert!(!cmake_draft(&other).contains("ninja"));
}

/// A program whose sources handle `--version` gets nixpkgs'
/// `versionCheckHook` as its install check, in every builder that names a
/// main program; without that evidence it gets none. With Nix here, the
/// draft parses and the check can be taken out again as the repair would.
#[test]
fn a_program_that_answers_version_gets_the_version_check_hook() {
    let mut f = facts(BuildSystemKind::Cmake);
    f.cmake = Some(CmakeFacts {
        targets: vec![CmakeTarget {
            // (a target named `demo` counts as an example)
            name: "quill".into(),
            kind: CmakeTargetKind::Executable,
            conditions: Vec::new(),
            evidence: Evidence::file("CMakeLists.txt"),
        }],
        installs: Some(Evidence::file("CMakeLists.txt")),
        ..CmakeFacts::default()
    });
    let without = render_case("cmake", &f, Builder::Cmake);
    assert!(without.contains("mainProgram = \"quill\";"), "{without}");
    assert!(!without.contains("versionCheckHook"), "{without}");
    f.version_flag = Some(Sourced::new(
        "--version".into(),
        Evidence::new("src/main.c", 12),
    ));
    let with = render_case("cmake", &f, Builder::Cmake);
    assert!(with.contains("\n  versionCheckHook,\n"), "{with}");
    assert!(
        with.contains("  nativeInstallCheckInputs = [ versionCheckHook ];\n  versionCheckProgramArg = \"--version\";\n  doInstallCheck = true;\n\n  meta = {"),
        "{with}"
    );
    let removed = packsmith_nix::install_check::remove(&with).unwrap();
    assert_eq!(removed, without);
    if nix_available("a_program_that_answers_version_gets_the_version_check_hook") {
        NixParser::default().check(&with).unwrap();
    }
}

/// A tree with one C program in `src/`.
fn tree_with_src_main() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/main.c"),
        "int main(void) { return 0; }\n",
    )
    .unwrap();
    dir
}

/// The facts of a local tree, as `packsmith nix PATH` reads them.
fn analyse_path(dir: &std::path::Path, given: &str) -> RepoFacts {
    packsmith_analyze::analyze_dir(
        dir,
        SourceInfo {
            kind: "path".into(),
            given: given.into(),
            release_tag: None,
        },
    )
    .expect("the tree analyses")
}

/// A Makefile in `src/` with no `install:` target, whose plain `make`
/// links nothing and whose programs are written to the top: built in
/// `src` (`sourceRoot`), the programs named in `buildFlags`, and an
/// `installPhase` that copies them from there. Without known programs,
/// the `installPhase` is a FIXME, never `make install`.
#[test]
fn a_makefile_without_install_target_gets_an_install_phase() {
    let dir = tree_with_src_main();
    let makefile = "CC = cc\n\n*.o: *.h Makefile*\n\n.c.o:\n\t$(CC) -c -o $@ $<\n\n\
                    finder: main.o\n\t$(CC) -o ../$@ $^ -lm\n\nclean:\n\trm -f *.o\n";
    std::fs::write(dir.path().join("src/Makefile"), makefile).unwrap();
    let analyse = || analyse_path(dir.path(), "finder");
    let input = TemplateInput::from_facts(&analyse(), "finder", "1.0", github_src("1.0"));
    let text = render(Builder::Make, &input);
    assert!(
        text.contains("sourceRoot = \"${finalAttrs.src.name}/src\";"),
        "{text}"
    );
    assert!(text.contains("buildFlags = [ \"finder\" ];"), "{text}");
    assert!(
        text.contains("    install -Dm755 -t $out/bin ../finder\n"),
        "{text}"
    );
    assert!(!text.contains("PREFIX="), "{text}");
    // The first rule builds the program: nothing is known to copy.
    std::fs::write(
        dir.path().join("src/Makefile"),
        format!("all: finder\n\n{makefile}"),
    )
    .unwrap();
    let input = TemplateInput::from_facts(&analyse(), "finder", "1.0", github_src("1.0"));
    let text = render(Builder::Make, &input);
    assert!(!text.contains("buildFlags"), "{text}");
    assert!(
        text.contains("# FIXME: the Makefile has no install target"),
        "{text}"
    );
}

/// A Makefile shipped as `src/Makefile.vanilla`, nothing make looks for:
/// built in `src` with stdenv's `makefile` naming it.
#[test]
fn a_makefile_under_another_name_is_stdenvs_makefile() {
    let dir = tree_with_src_main();
    std::fs::write(
        dir.path().join("src/Makefile.vanilla"),
        "all: mini\nmini: main.o\n\t$(CC) -o mini main.o\ninstall:\n\tcp mini $(PREFIX)/bin\n",
    )
    .unwrap();
    let facts = analyse_path(dir.path(), "mini");
    let input = TemplateInput::from_facts(&facts, "mini", "1.0", github_src("1.0"));
    let text = render(Builder::Make, &input);
    assert!(text.contains("makefile = \"Makefile.vanilla\";"), "{text}");
    assert!(
        text.contains("sourceRoot = \"${finalAttrs.src.name}/src\";"),
        "{text}"
    );
}

/// A choice of licences (`A OR B`) is nixpkgs' list of both; one the table
/// does not know leaves the FIXME, never half the choice.
#[test]
fn a_choice_of_licences_is_the_list_of_both() {
    let mut input = TemplateInput::from_facts(
        &facts(BuildSystemKind::Cmake),
        "demo",
        "1.2.0",
        github_src("1.2.0"),
    );
    input.license = Some("0BSD OR CC0-1.0".into());
    let text = render(Builder::Cmake, &input);
    assert!(
        text.contains("    license = with lib.licenses; [\n      bsd0\n      cc0\n    ];"),
        "{text}"
    );
    input.license = Some("MIT OR LicenseRef-custom".into());
    let text = render(Builder::Cmake, &input);
    assert!(
        text.contains("FIXME: map SPDX `MIT OR LicenseRef-custom`"),
        "{text}"
    );
}
