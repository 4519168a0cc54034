//! `packsmith bench run` over repair tasks (broken recipes to mend), with
//! the stand-in for `packsmith repair` (tests/bench/fake-packsmith.py).

use std::path::Path;
use std::process::{Command, Output};

use crate::bench_cli::{fake, journal_pairs, text};

/// Behaviour follows the package (see the stand-in): `ok-2` is repaired at
/// its second attempt, `bad` never.
const TASKS: [(&str, &str, &str); 2] = [
    ("ok-2.missing_import.0", "ok-2", "missing_import"),
    ("bad.wrong_base.0", "bad", "wrong_base"),
];

/// `set/tasks.jsonl` naming its recipes relative to `set/`.
fn task_set(root: &Path) {
    let mut lines = String::new();
    for (id, package, class) in TASKS {
        let dir = root.join("set/recipes").join(id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("package.py"), "class Broken(Package):\n").unwrap();
        std::fs::write(dir.join("original.py"), "from spack.package import *\n").unwrap();
        lines.push_str(&format!(
            "{{\"id\": \"{id}\", \"package\": \"{package}\", \"class\": \"{class}\", \"stage\": \"load\", \"broken\": \"recipes/{id}/package.py\", \"original\": \"recipes/{id}/original.py\", \"description\": \"line 1: a mutation\"}}\n"
        ));
    }
    std::fs::write(root.join("set/tasks.jsonl"), lines).unwrap();
    std::fs::write(
        root.join("c.toml"),
        "[[configuration]]\nname = \"edits\"\nrepair_mode = \"edits\"\nmax_attempts = 1\n\
         [[configuration]]\nname = \"rewrite\"\nrepair_mode = \"rewrite\"\nrules = false\ntools = false\n",
    )
    .unwrap();
}

/// `packsmith bench ARGS` run from `cwd`, so relative paths are the user's.
fn bench_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .arg("bench")
        .args(args)
        .current_dir(cwd)
        .env("PACKSMITH_BENCH_BIN", fake())
        .output()
        .expect("run packsmith")
}

fn argv(out: &Path, config: &str, task: &str) -> String {
    let p = out.join("runs").join(config).join(task).join("args.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    v["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn repair_tasks_run_from_their_task_files_directory_and_report_by_class() {
    let tmp = tempfile::tempdir().unwrap();
    // As the harness sees it from the working directory (no symlinks).
    let root = &std::fs::canonicalize(tmp.path()).unwrap();
    task_set(root);
    // Relative to the caller, not to the task file: the recipes must still
    // be found beside the task file.
    let o = bench_in(
        root,
        &[
            "run",
            "set/tasks.jsonl",
            "--config",
            "c.toml",
            "--out",
            "out",
            "--jobs",
            "2",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("4 pairs: 0 already in the journal, 4 run now (1 succeeded)"),
        "{}",
        text(&o)
    );
    let out = root.join("out");
    let a = argv(&out, "rewrite", "ok-2.missing_import.0");
    let recipe = root.join("set/recipes/ok-2.missing_import.0/package.py");
    let head = format!(
        "repair {} --name ok-2 --until concretize --out ",
        recipe.display()
    );
    assert!(a.starts_with(&head), "{a}");
    for f in [
        "--replace",
        "--model none",
        "--repair-mode rewrite",
        "--no-rules",
        "--no-tools",
    ] {
        assert!(a.contains(f), "{f} missing from {a}");
    }
    for f in [
        "--refs",
        "--brief",
        "--draft",
        "--version",
        "--no-variant-check",
    ] {
        assert!(!a.contains(f), "{f} in {a}");
    }
    let a = argv(&out, "edits", "bad.wrong_base.0");
    assert!(a.ends_with("--max-attempts 1 --repair-mode edits"), "{a}");
    assert!(!a.contains("--no-rules"), "{a}");

    let pairs = journal_pairs(&out);
    assert_eq!(pairs.len(), 4);
    let get = |task: &str, config: &str| {
        pairs
            .iter()
            .find(|p| p["task"] == task && p["config"] == config)
            .unwrap()
    };
    let won = get("ok-2.missing_import.0", "rewrite");
    assert_eq!(won["outcome"], "succeeded");
    assert_eq!(won["success_attempt"], 2);
    assert_eq!(won["repair_class"], "missing_import");
    assert_eq!(won["ecosystem"], "spack");
    assert_eq!(
        won["stages_passed"],
        serde_json::json!(["load", "concretize"])
    );
    assert!(
        won.get("s_d").is_none() && won.get("scored").is_none(),
        "{won}"
    );
    assert_eq!(get("ok-2.missing_import.0", "edits")["outcome"], "failed");
    assert_eq!(
        get("bad.wrong_base.0", "rewrite")["failure_class"],
        "compilation"
    );

    let o = bench_in(root, &["report", "out"]);
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(out.join("report/report.md")).unwrap();
    assert!(md.contains("| `edits` | 2 | 0 (0.0%) |"), "{md}");
    assert!(md.contains("| `rewrite` | 2 | 1 (50.0%) |"), "{md}");
    assert!(md.contains("## Repairs by mutation class"), "{md}");
    assert!(
        md.contains("| missing_import | 0/1 (0.0%) | 1/1 (100.0%) |"),
        "{md}"
    );
    assert!(
        md.contains("| wrong_base | 0/1 (0.0%) | 0/1 (0.0%) |"),
        "{md}"
    );
    // repaired@k: nothing at the first attempt, half by the second.
    assert!(md.contains("| `rewrite` | 0.0% | 50.0% |"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report/report.json")).unwrap())
            .unwrap();
    assert_eq!(
        json["configurations"][1]["repair_classes"]["missing_import"],
        serde_json::json!({"repaired": 1, "total": 1})
    );
}

/// A missing broken recipe is named with its task file, line, id and path,
/// and nothing runs.
#[test]
fn a_missing_broken_recipe_is_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    // As the harness sees it from the working directory (no symlinks).
    let root = &std::fs::canonicalize(tmp.path()).unwrap();
    task_set(root);
    std::fs::remove_file(root.join("set/recipes/bad.wrong_base.0/package.py")).unwrap();
    let o = bench_in(
        root,
        &["run", "set/tasks.jsonl", "--out", "out", "--dry-run"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let want = format!(
        "set/tasks.jsonl:2: repair task `bad.wrong_base.0`: field `broken`: {} is not a file",
        root.join("set/recipes/bad.wrong_base.0/package.py")
            .display()
    );
    assert!(text(&o).contains(&want), "{}", text(&o));
    assert!(!root.join("out").exists(), "nothing may run");
}
