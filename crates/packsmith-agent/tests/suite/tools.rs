//! The repository tools: confinement to the root and bounded output.

use std::os::unix::fs::symlink;

use packsmith_agent::*;
use packsmith_core::chat::ToolCall;
use tempfile::TempDir;

struct Repo {
    _tmp: TempDir,
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
    registry: ToolRegistry,
}

fn repo() -> Repo {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let outside = tmp.path().join("secret");
    std::fs::create_dir_all(root.join("src/deep/er")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("key"), "TOP SECRET\n").unwrap();
    std::fs::write(
        root.join("CMakeLists.txt"),
        "project(demo)\noption(WITH_MPI \"mpi\" OFF)\n",
    )
    .unwrap();
    std::fs::write(root.join("src/main.c"), "int main() { return 0; }\n").unwrap();
    std::fs::write(root.join("src/deep/er/x.h"), "#define X 1\n").unwrap();
    std::fs::write(root.join("blob.bin"), b"\x00\x01WITH_MPI\x00").unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "WITH_MPI in git\n").unwrap();
    symlink(outside.join("key"), root.join("leak")).unwrap();
    symlink(&outside, root.join("leakdir")).unwrap();
    symlink(root.join("src/main.c"), root.join("inside-link")).unwrap();
    let registry = ToolRegistry::with_repo_tools(RepoRoot::new(&root).unwrap());
    Repo {
        _tmp: tmp,
        root,
        outside,
        registry,
    }
}

fn call(repo: &Repo, name: &str, args: &str) -> ToolResult {
    let mut recipe = Recipe::new("p", "");
    let mut ctx = ToolContext {
        recipe: &mut recipe,
    };
    repo.registry.dispatch(
        &ToolCall {
            id: "1".into(),
            name: name.into(),
            arguments: args.into(),
        },
        &mut ctx,
    )
}

#[test]
fn escapes_are_refused() {
    let r = repo();
    let abs = r.outside.join("key").display().to_string();
    for (args, why) in [
        (r#"{"path": "../secret/key"}"#.to_string(), ".."),
        (r#"{"path": "src/../../secret/key"}"#.to_string(), ".."),
        (format!(r#"{{"path": "{abs}"}}"#), "absolute"),
        (r#"{"path": "leak"}"#.to_string(), "outside"),
        (r#"{"path": "leakdir/key"}"#.to_string(), "outside"),
    ] {
        let res = call(&r, "read_file", &args);
        assert!(res.is_error, "{args}");
        assert!(res.output.contains(why), "{args}: {}", res.output);
        assert!(!res.output.contains("TOP SECRET"));
    }
    for tool in ["list_dir", "grep"] {
        let args = if tool == "grep" {
            r#"{"pattern": "SECRET", "path": "leakdir"}"#
        } else {
            r#"{"path": "leakdir"}"#
        };
        let res = call(&r, tool, args);
        assert!(
            res.is_error && res.output.contains("outside"),
            "{tool}: {}",
            res.output
        );
    }
    // Walking the root does not follow the links either.
    let res = call(&r, "grep", r#"{"pattern": "SECRET"}"#);
    assert!(!res.output.contains("TOP SECRET"), "{}", res.output);
    let res = call(&r, "list_dir", r#"{"depth": 4}"#);
    assert!(
        res.output.contains("leakdir -> (symlink, not followed)"),
        "{}",
        res.output
    );
    assert!(!res.output.contains("key"));
}

#[test]
fn a_symlink_inside_the_repo_is_fine() {
    let r = repo();
    let res = call(&r, "read_file", r#"{"path": "inside-link"}"#);
    assert!(!res.is_error, "{}", res.output);
    assert!(res.output.contains("int main"));
    assert!(r.root.join("inside-link").exists());
}

#[test]
fn read_file_numbers_pages_and_says_when_cut() {
    let r = repo();
    let text: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(r.root.join("big.txt"), text).unwrap();
    let res = call(
        &r,
        "read_file",
        r#"{"path": "big.txt", "start_line": 10, "max_lines": 5}"#,
    );
    assert!(res.output.starts_with("   10| line 10\n"), "{}", res.output);
    assert!(res
        .output
        .contains("[lines 10-14 of 1000; more with start_line=15]"));
    let res = call(
        &r,
        "read_file",
        r#"{"path": "big.txt", "max_lines": 100000}"#,
    );
    assert!(
        res.output.contains("of 1000; more with start_line=401"),
        "{}",
        res.output
    );
    std::fs::write(r.root.join("wide.txt"), "x".repeat(5000)).unwrap();
    let res = call(&r, "read_file", r#"{"path": "wide.txt"}"#);
    assert!(res.output.contains("long lines clipped"));
    assert!(res.output.len() < 1000);
    let res = call(&r, "read_file", r#"{"path": "blob.bin"}"#);
    assert!(
        !res.is_error && res.output.contains("binary file"),
        "{}",
        res.output
    );
    let res = call(&r, "read_file", r#"{"path": "nope.txt"}"#);
    assert!(res.is_error && res.output.contains("does not exist"));
    let res = call(&r, "read_file", r#"{"path": "src"}"#);
    assert!(res.is_error && res.output.contains("directory"));
}

#[test]
fn output_is_bounded_in_bytes() {
    let r = repo();
    let text: String = (0..400).map(|_| format!("{}\n", "y".repeat(290))).collect();
    std::fs::write(r.root.join("heavy.txt"), text).unwrap();
    let res = call(
        &r,
        "read_file",
        r#"{"path": "heavy.txt", "max_lines": 400}"#,
    );
    assert!(res.output.len() <= 25 * 1024, "{}", res.output.len());
    assert!(res.output.contains("output limit reached"));
}

#[test]
fn list_dir_respects_depth_and_skips_git() {
    let r = repo();
    let res = call(&r, "list_dir", "{}");
    assert!(res.output.contains("  src/\n"), "{}", res.output);
    assert!(!res.output.contains("main.c"));
    assert!(!res.output.contains(".git"));
    let res = call(&r, "list_dir", r#"{"path": "src", "depth": 3}"#);
    assert!(res.output.starts_with("src/\n"), "{}", res.output);
    assert!(res.output.contains("x.h"), "{}", res.output);
    for i in 0..400 {
        std::fs::write(r.root.join(format!("f{i:03}")), "").unwrap();
    }
    let res = call(&r, "list_dir", "{}");
    assert!(
        res.output.contains("more entries not shown"),
        "{}",
        res.output
    );
}

#[test]
fn grep_skips_binary_files_and_caps_hits() {
    let r = repo();
    let res = call(&r, "grep", r#"{"pattern": "WITH_MPI"}"#);
    assert_eq!(
        res.output.trim(),
        "CMakeLists.txt:2: option(WITH_MPI \"mpi\" OFF)"
    );
    let many: String = (0..20).map(|i| format!("hit {i}\n")).collect();
    for f in 0..20 {
        std::fs::write(r.root.join(format!("h{f:02}.txt")), &many).unwrap();
    }
    let res = call(&r, "grep", r#"{"pattern": "^hit"}"#);
    let hits = res.output.lines().filter(|l| l.contains(": hit")).count();
    assert_eq!(hits, 50);
    assert!(
        res.output.contains("350 more matches not shown"),
        "{}",
        res.output
    );
    let res = call(&r, "grep", r#"{"pattern": "(unclosed"}"#);
    assert!(res.is_error && res.output.contains("bad pattern"));
    let res = call(
        &r,
        "grep",
        r#"{"pattern": "nothing-here-zzz", "path": "src"}"#,
    );
    assert!(res.output.contains("no matches"));
}
