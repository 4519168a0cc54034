//! Behaviour of the public recipe API beyond the snapshots.

use std::io::Write;

use packsmith_spack_knowledge::recipe::{
    parse_recipe, read_recipe, split_spec_head, RecipeError, SpackGeneration, Value,
};

#[test]
fn missing_file_names_the_file() {
    let err = read_recipe(std::path::Path::new("/nonexistent/foo/package.py")).unwrap_err();
    assert!(matches!(err, RecipeError::Io { .. }));
    assert!(
        err.to_string().contains("/nonexistent/foo/package.py"),
        "{err}"
    );
}

#[test]
fn non_utf8_is_a_clear_error() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(b"class X(Package):\n    homepage = \"\xff\xfe\"\n")
        .unwrap();
    let err = read_recipe(file.path()).unwrap_err();
    assert!(matches!(err, RecipeError::NotUtf8 { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains(&file.path().display().to_string()) && msg.contains("UTF-8"),
        "{msg}"
    );
}

#[test]
fn read_recipe_reads_a_file() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(b"from spack.package import *\nclass Foo(Package):\n    version('1')\n")
        .unwrap();
    let r = read_recipe(file.path()).unwrap();
    assert!(r.is_spack_recipe());
    assert_eq!(r.generation, SpackGeneration::V0);
    assert_eq!(r.versions[0].version, "1");
}

#[test]
fn not_a_recipe_is_distinguishable() {
    let r = parse_recipe("import os\nclass Helper:\n    pass\n", "helper.py");
    assert!(!r.is_spack_recipe());
    assert_eq!(r.class_name, None);
    assert_eq!(r.generation, SpackGeneration::Unknown);
}

#[test]
fn never_panics_on_garbage() {
    for text in [
        "",
        "class",
        "class X(Package):\n    version(",
        "(((((((((((((((((((((((((((((((((((((",
        "class X(Package):\n    variant(\"a\", default=\"\\",
        "\u{0}\u{1}class X(CMakePackage):\n\tdepends_on(f'{",
        "class X(Package):\n    for (a, (b, c)) in [(1, (2,)), 3]:\n        variant(a, when=b)\n",
        "class X(Package):\n    depends_on('x' % (1, 2))\n    depends_on('%s%s' % 'a')\n",
    ] {
        let _ = parse_recipe(text, "garbage.py");
    }
    let deep = format!(
        "class X(Package):\n    x = {}1{}\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let _ = parse_recipe(&deep, "deep.py");
}

#[test]
fn generation_from_imports_and_path() {
    let v1 = "from spack_repo.builtin.build_systems.generic import Package\nclass A(Package):\n    pass\n";
    assert_eq!(parse_recipe(v1, "a.py").generation, SpackGeneration::V1);
    let old = "from spack import *\nclass A(Package):\n    pass\n";
    assert_eq!(parse_recipe(old, "a.py").generation, SpackGeneration::V0);
    // A bare star import is valid in both; the v1 repo lives under spack_repo/.
    let bare = "from spack.package import *\nclass A(Package):\n    pass\n";
    let p = "repos/spack_repo/builtin/packages/a/package.py";
    assert_eq!(parse_recipe(bare, p).generation, SpackGeneration::V1);
}

#[test]
fn strings_are_their_content() {
    let text = r#"
class A(Package):
    homepage = 'https://x.org/a'
    url = ("https://x.org/"
           "a-1.0.tar.gz")
    git = r"https://x.org/\a.git"
    list_url = """https://x.org/list"""
    variant("v", default="x\ty", description=f"literal {{braces}}")
"#;
    let r = parse_recipe(text, "a/package.py");
    assert_eq!(r.homepage.as_deref(), Some("https://x.org/a"));
    assert_eq!(r.url.as_deref(), Some("https://x.org/a-1.0.tar.gz"));
    assert_eq!(r.git.as_deref(), Some(r"https://x.org/\a.git"));
    assert_eq!(r.list_url.as_deref(), Some("https://x.org/list"));
    assert_eq!(r.variants[0].default, Some(Value::Str("x\ty".into())));
    assert_eq!(
        r.variants[0].description.as_deref(),
        Some("literal {braces}")
    );
}

#[test]
fn spec_head_split() {
    assert_eq!(
        split_spec_head("hdf5@1.10:+mpi"),
        ("hdf5".into(), Some("1.10:".into()))
    );
}

#[test]
fn a_source_over_a_mebibyte_is_refused_quickly() {
    // Found by packsmith-fuzz (target package-py): 10 MB of `[` took a
    // minute and a gigabyte of memory in tree-sitter.
    let huge = "[".repeat(10 << 20);
    let t = std::time::Instant::now();
    let r = parse_recipe(&huge, "package.py");
    assert!(
        t.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        t.elapsed()
    );
    assert!(!r.is_spack_recipe());
    assert!(
        r.syntax_errors[0].message.contains("not parsed"),
        "{:?}",
        r.syntax_errors
    );
    // A recipe under the limit is still read. (Not one of many comment
    // lines: tree-sitter-python's scanner is quadratic in them, an open
    // finding in BENCHMARKS.md. Five thousand lines, well inside the
    // reader's one-second parse budget even on a loaded machine, where
    // twenty thousand ran past it beside two Spack builds.)
    let mut ok = String::from("from spack.package import *\n\nclass Foo(Package):\n");
    ok.push_str(&"    version(\"1.0\")\n".repeat(5_000));
    assert!(ok.len() < 1 << 20);
    assert_eq!(
        parse_recipe(&ok, "package.py").class_name.as_deref(),
        Some("Foo")
    );
}

#[test]
fn a_parse_that_runs_too_long_is_given_up() {
    // Found by packsmith-fuzz (target package-py): tree-sitter-python's
    // scanner is quadratic in comment lines inside a block; 20 000 of them
    // took a minute. The parse now gives up after its budget.
    let mut src = String::from("from spack.package import *\n\nclass Foo(Package):\n    pass\n");
    src.push_str(&"    # padding\n".repeat(40_000));
    let t = std::time::Instant::now();
    let r = parse_recipe(&src, "package.py");
    assert!(
        t.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        t.elapsed()
    );
    assert!(
        r.syntax_errors
            .iter()
            .any(|e| e.message.contains("parsing took over")),
        "{:?}",
        r.syntax_errors
    );
    // The parser is usable again afterwards.
    let ok = "from spack.package import *\n\nclass Foo(Package):\n    pass\n";
    assert_eq!(
        parse_recipe(ok, "package.py").class_name.as_deref(),
        Some("Foo")
    );
}
