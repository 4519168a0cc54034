#![allow(clippy::unwrap_used, clippy::expect_used)]
//! One fixture per diagnostic code, plus clean recipes of both
//! generations that must produce nothing.

use packsmith_spack_knowledge::check::{
    check_source, strip_markdown, CheckOptions, Code, Diagnostic, Severity,
};
use packsmith_spack_knowledge::kb::NameIndex;
use packsmith_spack_knowledge::target::TargetSpack;

/// A tiny knowledge base; only the 1.x one knows the language virtuals.
fn names(spack: TargetSpack) -> NameIndex {
    let packages = ["cmake", "hdf5", "zlib", "python", "openmpi", "gcc"];
    let virtuals: &[(&str, &str)] = match spack {
        TargetSpack::V0_23 => &[("mpi", "openmpi")],
        TargetSpack::V1 => &[("mpi", "openmpi"), ("c", "gcc"), ("cxx", "gcc")],
    };
    NameIndex {
        packages: packages.iter().map(|s| s.to_string()).collect(),
        virtuals: virtuals
            .iter()
            .map(|(v, p)| (v.to_string(), vec![p.to_string()]))
            .collect(),
        ..Default::default()
    }
}

fn fixture_path(file: &str) -> String {
    format!("{}/tests/fixtures/check/{file}", env!("CARGO_MANIFEST_DIR"))
}

fn run(file: &str, spack: TargetSpack, package: &str) -> Vec<Diagnostic> {
    let text = std::fs::read_to_string(fixture_path(file)).unwrap();
    run_text_named(&text, file, spack, package)
}

fn run_text(text: &str, spack: TargetSpack, package: &str) -> Vec<Diagnostic> {
    run_text_named(text, "package.py", spack, package)
}

fn run_text_named(text: &str, file: &str, spack: TargetSpack, package: &str) -> Vec<Diagnostic> {
    let names = names(spack);
    let opts = CheckOptions {
        spack,
        names: Some(&names),
        package: Some(package),
    };
    check_source(text, file, &opts)
}

/// The package a `load/` fixture stands for: its file name, so that it can
/// be copied into a Spack repository as `packages/<name>/package.py`.
fn load_package(file: &str) -> Option<&str> {
    file.strip_prefix("load/")?.strip_suffix(".py")
}

fn codes(d: &[Diagnostic]) -> Vec<Code> {
    let mut c: Vec<Code> = d.iter().map(|d| d.code).collect();
    c.dedup();
    c
}

#[test]
fn clean_recipes_have_no_diagnostic() {
    assert_eq!(run("clean-v0.py", TargetSpack::V0_23, "demo"), vec![]);
    assert_eq!(run("clean-v1.py", TargetSpack::V1, "demo"), vec![]);
}

#[test]
fn each_code_has_a_fixture() {
    use TargetSpack::{V0_23, V1};
    let cases: &[(&str, TargetSpack, Code)] = &[
        ("ps001-syntax.py", V0_23, Code::Syntax),
        ("ps002-markdown.py", V0_23, Code::Markdown),
        ("ps003-not-a-recipe.py", V0_23, Code::NotARecipe),
        ("ps101-missing-import.py", V1, Code::MissingImport),
        (
            "ps102-wrong-generation.py",
            V0_23,
            Code::WrongGenerationImport,
        ),
        ("ps201-class-name.py", V0_23, Code::ClassName),
        ("ps301-no-version.py", V0_23, Code::NoVersion),
        ("ps302-no-fetch-source.py", V0_23, Code::NoFetchSource),
        (
            "ps401-unknown-dependency.py",
            V0_23,
            Code::UnknownDependency,
        ),
        ("ps402-language-virtual.py", V0_23, Code::LanguageVirtual),
        ("ps501-bad-spec.py", V0_23, Code::BadSpec),
        (
            "ps601-undeclared-variant.py",
            V0_23,
            Code::UndeclaredVariant,
        ),
        ("ps602-variant-default.py", V0_23, Code::VariantDefault),
        ("ps701-duplicate.py", V0_23, Code::Duplicate),
        ("load/ps303-float-version.py", V0_23, Code::BadVersion),
        ("load/ps403-self-dependency.py", V0_23, Code::SelfDependency),
        ("load/ps603-empty-default.py", V0_23, Code::VariantNoDefault),
        ("load/ps604-multi-bool.py", V0_23, Code::VariantValues),
        (
            "load/ps605-reserved-variant.py",
            V0_23,
            Code::ReservedVariant,
        ),
        (
            "load/ps801-depends-on-keyword.py",
            V0_23,
            Code::DirectiveArguments,
        ),
        ("load/ps802-version-in-when.py", V0_23, Code::WhenNotAllowed),
        (
            "load/ps803-self-outside-method.py",
            V0_23,
            Code::SelfOutsideMethod,
        ),
    ];
    for (file, spack, code) in cases {
        let d = run(file, *spack, load_package(file).unwrap_or("demo"));
        assert!(
            codes(&d).contains(code),
            "{file}: expected {code}, got {d:#?}"
        );
        // Each fixture shows its own problem only (markdown also breaks the syntax).
        let others: Vec<&Diagnostic> = d
            .iter()
            .filter(|x| x.code != *code && x.code != Code::Syntax)
            .collect();
        assert!(others.is_empty(), "{file}: unexpected {others:#?}");
    }
    assert_eq!(Code::ALL.len(), cases.len());
}

#[test]
fn positions_are_exact() {
    let d = run("ps501-bad-spec.py", TargetSpack::V0_23, "demo");
    // `depends_on("hdf5@1.10::1.12")`: the second `:` is byte 10 of the spec,
    // the spec starts at column 17.
    assert_eq!((d[0].line, d[0].col), (7, 27), "{d:#?}");
    assert!(d[0]
        .render("package.py")
        .starts_with("package.py:7:27: error[PS501] bad-spec:"));
    let d = run("ps601-undeclared-variant.py", TargetSpack::V0_23, "demo");
    let lines: Vec<(u32, u32)> = d.iter().map(|x| (x.line, x.col)).collect();
    assert_eq!(lines, vec![(8, 43), (11, 17)], "{d:#?}");
    let d = run("ps401-unknown-dependency.py", TargetSpack::V0_23, "demo");
    assert!(d[0].message.contains("did you mean `zlib`"), "{d:#?}");
    let d = run("ps701-duplicate.py", TargetSpack::V0_23, "demo");
    assert_eq!((d[0].severity, d[0].line), (Severity::Warning, 8));
}

#[test]
fn language_virtuals_pass_on_1x_and_with_a_kb_that_knows_them() {
    let d = run("ps402-language-virtual.py", TargetSpack::V1, "demo");
    assert!(!codes(&d).contains(&Code::LanguageVirtual), "{d:#?}");
}

/// `depends_on("cxx")` with the default types (build and link): the load
/// fails ("languages must be of 'build' type"), on 1.x as on 0.23.
#[test]
fn a_language_virtual_of_another_type_than_build_is_flagged() {
    let text = std::fs::read_to_string(fixture_path("ps402-language-virtual.py")).unwrap();
    for (recipe, flagged) in [
        (
            text.replace("type=\"build\"", "type=(\"build\", \"link\")"),
            true,
        ),
        (text.replace(", type=\"build\"", ""), true),
        (text.replace("type=\"build\"", "type=(\"build\",)"), false),
    ] {
        let d = run_text(&recipe, TargetSpack::V1, "demo");
        assert_eq!(
            codes(&d).contains(&Code::LanguageVirtual),
            flagged,
            "{recipe}\n{d:#?}"
        );
    }
}

#[test]
fn cleaner_fixes_the_markdown_fixture() {
    let path = format!(
        "{}/tests/fixtures/check/ps002-markdown.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let cleaned = strip_markdown(&std::fs::read_to_string(path).unwrap());
    assert!(cleaned.changed);
    let names = names(TargetSpack::V0_23);
    let opts = CheckOptions {
        spack: TargetSpack::V0_23,
        names: Some(&names),
        package: Some("demo"),
    };
    assert_eq!(check_source(&cleaned.code, "x.py", &opts), vec![]);
}

/// Every fixture of `load/` (each one a recipe Spack 0.23 refuses when it
/// loads it or audits it; `tests/check_real_spack.rs` confirms that) is
/// flagged with the code its name starts with, and with nothing else.
#[test]
fn every_load_time_refusal_is_flagged() {
    let dir = format!("{}/tests/fixtures/check/load", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    for file in files {
        let path = format!("load/{file}");
        let package = load_package(&path).unwrap();
        let want = package.split('-').next().unwrap().to_uppercase();
        let d = run(&path, TargetSpack::V0_23, package);
        let got: Vec<String> = d.iter().map(|x| x.code.to_string()).collect();
        assert!(
            d.iter()
                .all(|x| x.code.to_string() == want && x.severity == Severity::Error),
            "{file}: want only {want} errors, got {d:#?}"
        );
        assert!(!got.is_empty(), "{file}: not flagged");
    }
}

/// Issue 20 item 3: an unknown dependency name comes with its fix — the
/// Spack name it stands for (curated table, other spellings confirmed by
/// the knowledge base), else the closest known names.
#[test]
fn unknown_names_come_with_the_closest_known_ones() {
    let mut names = names(TargetSpack::V0_23);
    for p in ["googletest", "cereal", "glfw", "hdf5", "hdf4", "hdfview"] {
        names.packages.insert(p.to_string());
    }
    let path = format!(
        "{}/tests/fixtures/check/ps401-other-spellings.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let opts = CheckOptions {
        spack: TargetSpack::V0_23,
        names: Some(&names),
        package: Some("demo"),
    };
    let d = check_source(&text, "package.py", &opts);
    let messages: Vec<(u32, &str)> = d
        .iter()
        .filter(|x| x.code == Code::UnknownDependency)
        .map(|x| (x.line, x.message.as_str()))
        .collect();
    assert_eq!(messages.len(), 5, "{d:#?}");
    let expect = [
        (
            8,
            "did you mean `googletest`? (curated table [cmake] GMock)",
        ),
        (9, "did you mean `cereal`?"),
        (10, "did you mean `glfw`? (curated table [cmake] glfw3)"),
        (11, "did you mean `hdf4`? (also close: `hdf5`)"),
        (12, "no known name is close"),
    ];
    for ((line, message), (want_line, want)) in messages.iter().zip(expect) {
        assert_eq!(*line, want_line);
        assert!(message.contains(want), "line {line}: {message}");
    }
}

/// Found by packsmith-fuzz (`package-py`, 10-minute run): a class header
/// followed by a run of `-` kept tree-sitter's error recovery busy past the
/// 1 s parse budget, in the recipe reader and again in the check's walk.
/// A line over 64 KiB is now refused before parsing, and the check's two
/// parses share one budget.
#[test]
fn a_hostile_class_header_costs_one_parse_budget() {
    let source = format!(
        "from spack.package import *\n\nclass Nebula(CMakePackage, ROCmPackage{})\n    pass\n",
        "-".repeat(900_000)
    );
    let opts = CheckOptions {
        spack: TargetSpack::V1,
        names: None,
        package: Some("nebula"),
    };
    let started = std::time::Instant::now();
    let diags = check_source(&source, "package.py", &opts);
    let took = started.elapsed();
    // No parse at all now: well under the 1 s budget (it was over 2 s).
    assert!(took < std::time::Duration::from_millis(500), "{took:?}");
    assert!(
        diags
            .iter()
            .any(|d| d.code == Code::Syntax && d.message.contains("more than a recipe's 64 KiB")),
        "{diags:?}"
    );
}

/// A `when=` naming one variant both on and off is refused at load.
#[test]
fn a_variant_given_twice_in_a_spec_is_a_bad_spec() {
    let file = "load/ps501-variant-twice.py";
    let d = run(file, TargetSpack::V0_23, load_package(file).unwrap());
    assert_eq!(codes(&d), vec![Code::BadSpec], "{d:#?}");
    assert!(d[0].message.contains("`bundled` is given twice"), "{d:#?}");
    assert_eq!(d[0].line, 15);
}

/// What Spack's audit refuses, beside what it refuses at load: a `when=`
/// naming another package (`tests/check_real_spack.rs` confirms it).
#[test]
fn a_condition_naming_another_package_is_a_bad_spec() {
    let file = "audit/ps501-when-names-another-package.py";
    let d = run(file, TargetSpack::V0_23, "ps501-when-names-another-package");
    assert_eq!(codes(&d), vec![Code::BadSpec], "{d:#?}");
    assert!(
        d[0].message.contains("is Python, not a condition"),
        "{d:#?}"
    );
    let named = text_with(file, "when=\"mpi\"");
    let d = check_source(&named, file, &opts_for(&names(TargetSpack::V0_23)));
    assert!(d[0].message.contains("written `^mpi`"), "{d:#?}");
    // The same condition on the package itself, or on a dependency, is fine.
    for fixed in ["when=\"@1.0\"", "when=\"^zlib\""] {
        let ok = text_with(file, fixed);
        let d = check_source(&ok, file, &opts_for(&names(TargetSpack::V0_23)));
        assert!(d.is_empty(), "{fixed}: {d:#?}");
    }
}

/// The fixture with its `when="self.run_tests"` replaced.
fn text_with(file: &str, when: &str) -> String {
    let path = format!("{}/tests/fixtures/check/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .replace("when=\"self.run_tests\"", when)
}

fn opts_for(names: &NameIndex) -> CheckOptions<'_> {
    CheckOptions {
        spack: TargetSpack::V0_23,
        names: Some(names),
        package: Some("ps501-when-names-another-package"),
    }
}
