#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `packsmith kb|check|score` through the binary, with the cache in a
//! temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../packsmith-spack-knowledge/tests/fixtures")
}

fn packsmith(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(args)
        .env("PACKSMITH_CACHE_DIR", cache)
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&cache).join("packsmith.toml"),
        )
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn indexed() -> tempfile::TempDir {
    let cache = tempfile::tempdir().unwrap();
    let repo = fixtures().join("kb-repo");
    let o = packsmith(cache.path(), &["kb", "index", repo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("indexed 7 packages"), "{}", stdout(&o));
    cache
}

#[test]
fn kb_verbs() {
    let cache = indexed();
    let o = packsmith(cache.path(), &["kb", "stats"]);
    assert!(
        stdout(&o).contains("top virtuals   mpi 2"),
        "{}",
        stdout(&o)
    );
    let o = packsmith(cache.path(), &["kb", "show", "alpha"]);
    assert!(stdout(&o).contains("cmake@3.18: (build)"), "{}", stdout(&o));
    let o = packsmith(cache.path(), &["kb", "show", "mpi"]);
    assert!(stdout(&o).contains("provided by: mpich-lite, openmpi-lite"));
    let o = packsmith(cache.path(), &["kb", "show", "alpah"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `alpha`"),
        "{}",
        stderr(&o)
    );
    let o = packsmith(cache.path(), &["kb", "search", "sparse", "--json"]);
    let hits: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(hits[0]["name"], "alpha");
}

#[test]
fn kb_similar_on_a_source_directory() {
    let cache = indexed();
    let dir = cache.path().join("gamma");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\nproject(gamma C)\n",
    )
    .unwrap();
    let dir = dir.to_str().unwrap();
    let random = [
        "kb",
        "similar",
        dir,
        "--strategy",
        "random-same-build-system",
        "-n",
        "2",
        "--seed",
        "3",
    ];
    let a = packsmith(cache.path(), &random);
    assert!(a.status.success(), "{}", stderr(&a));
    let text = stdout(&a);
    assert!(
        text.starts_with("strategy random-same-build-system for `gamma` (build system cmake"),
        "{text}"
    );
    assert!(
        text.contains("seeded draw (seed 3) from 3 packages"),
        "{text}"
    );
    // Same seed, same picks (the last line holds timings).
    let picks = |t: &str| {
        t.lines()
            .filter(|l| !l.contains(" ms"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        picks(&stdout(&packsmith(cache.path(), &random))),
        picks(&text)
    );
    let o = packsmith(
        cache.path(),
        &["kb", "similar", dir, "--strategy", "similar", "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["strategy"], "similar");
    let o = packsmith(
        cache.path(),
        &["kb", "similar", dir, "--strategy", "nearest"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("similar-normalized"), "{}", stderr(&o));
}

#[test]
fn check_reports_and_exits() {
    let cache = indexed();
    let bad = fixtures().join("check/ps501-bad-spec.py");
    let o = packsmith(
        cache.path(),
        &[
            "check",
            bad.to_str().unwrap(),
            "--spack-version",
            "0.23",
            "--name",
            "demo",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains(":7:27: error[PS501] bad-spec:"),
        "{}",
        stdout(&o)
    );
    let o = packsmith(
        cache.path(),
        &["check", bad.to_str().unwrap(), "--json", "--name", "demo"],
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v[0]["diagnostics"][0]["code"], "PS501");
    // Names come from the knowledge base: zlib is known, zlb is not.
    let unknown = fixtures().join("check/ps401-unknown-dependency.py");
    let o = packsmith(
        cache.path(),
        &[
            "check",
            unknown.to_str().unwrap(),
            "--name",
            "demo",
            "--spack-version",
            "0.23",
        ],
    );
    assert!(stdout(&o).contains("did you mean `zlib`"), "{}", stdout(&o));
    // A whole packages directory: every fixture recipe is clean.
    let repo = fixtures().join("kb-repo/packages");
    let o = packsmith(
        cache.path(),
        &["check", repo.to_str().unwrap(), "--spack-version", "0.23"],
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("checked 7 recipes: 0 errors"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path();
    // No knowledge base yet.
    let o = packsmith(dir, &["kb", "stats"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("run `packsmith kb index"),
        "{}",
        stderr(&o)
    );
    // A path that does not exist.
    let o = packsmith(dir, &["kb", "stats", "--kb", "/nonexistent/kb.sqlite"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/nonexistent/kb.sqlite does not exist"),
        "{}",
        stderr(&o)
    );
    // A corrupt database.
    let junk = dir.join("junk.sqlite");
    std::fs::write(&junk, vec![0x42u8; 4096]).unwrap();
    let o = packsmith(dir, &["kb", "stats", "--kb", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a usable packsmith knowledge base"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("hint: delete"), "{}", stderr(&o));
    // Not a repository.
    let o = packsmith(dir, &["kb", "index", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a Spack package repository"),
        "{}",
        stderr(&o)
    );
    // Unreadable, binary, and non-recipe files.
    let o = packsmith(dir, &["check", "/nonexistent/package.py", "--no-kb"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/package.py does not exist"));
    let binary = dir.join("package.py");
    std::fs::write(&binary, [0xffu8, 0xfe, 0x00, 0x01]).unwrap();
    let o = packsmith(dir, &["check", binary.to_str().unwrap(), "--no-kb"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not UTF-8 text"), "{}", stderr(&o));
    let o = packsmith(
        dir,
        &["score", binary.to_str().unwrap(), binary.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    let script = fixtures().join("check/ps003-not-a-recipe.py");
    let o = packsmith(dir, &["check", script.to_str().unwrap(), "--no-kb"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("PS003"), "{}", stdout(&o));
    let o = packsmith(
        dir,
        &["score", script.to_str().unwrap(), script.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a Spack recipe"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn score_reproduces_fxdiv() {
    let cache = tempfile::tempdir().unwrap();
    let generated = fixtures().join("score/generated.py");
    let reference = fixtures().join("score/reference.py");
    let o = packsmith(
        cache.path(),
        &[
            "score",
            generated.to_str().unwrap(),
            reference.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["s_v"], 1.0);
    assert!((v["s_d"].as_f64().unwrap() - 0.75).abs() < 1e-9, "{v}");
    assert_eq!(v["keys"]["extra"][0], "fxdiv_use_inline_assembly");
    // FXdiv's dependencies are all build-only: nothing to recall at the
    // package level, which is not the same as a score of 0.
    assert!(v["fidelity"]["dep_recall"].is_null(), "{v}");
    let o = packsmith(
        cache.path(),
        &[
            "score",
            generated.to_str().unwrap(),
            reference.to_str().unwrap(),
        ],
    );
    assert!(stdout(&o).starts_with("S_d 0.750"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("missing  depends_on(\"python\""),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("link/run dependencies: recall n/a"),
        "{}",
        stdout(&o)
    );
}

/// Without --spack-version, a recipe written for Spack 0.23 (its
/// build-system class from the star import) is checked as 0.23, not as
/// 1.x with a `PS101 missing-import`; the flag still overrides.
#[test]
fn check_infers_the_spack_generation_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let recipe = dir.path().join("package.py");
    std::fs::write(
        &recipe,
        "from spack.package import *\n\n\nclass Demo(CMakePackage):\n    \"\"\"A demo.\"\"\"\n\n    homepage = \"https://example.org\"\n    url = \"https://example.org/demo-1.0.tar.gz\"\n\n    version(\"1.0\", sha256=\"0000000000000000000000000000000000000000000000000000000000000000\")\n",
    )
    .unwrap();
    let path = recipe.to_str().unwrap();
    let o = packsmith(dir.path(), &["check", path, "--no-kb", "--name", "demo"]);
    assert!(!stdout(&o).contains("PS101"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("checked as Spack 0.23, from its build-system class"),
        "{}",
        stderr(&o)
    );
    let o = packsmith(
        dir.path(),
        &[
            "check",
            path,
            "--no-kb",
            "--name",
            "demo",
            "--spack-version",
            "1",
        ],
    );
    assert!(stdout(&o).contains("PS101"), "{}", stdout(&o));
}
