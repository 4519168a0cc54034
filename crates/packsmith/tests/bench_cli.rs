#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `packsmith bench` through the binary, with a stand-in for the `spack`
//! command (tests/bench/fake-packsmith.py) that writes real run reports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Held by the tests that load the machine (the kill soak) and those
/// whose stand-in must start before a deadline (the timeout test): run
/// side by side, the stand-in's Python sometimes started after the
/// timeout had already struck, forking its grandchild past the kill.
pub(crate) static SLOW_START: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn fake() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bench/fake-packsmith.py")
}

pub(crate) fn bench(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_packsmith"));
    c.arg("bench").args(args).env("PACKSMITH_BENCH_BIN", fake());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run packsmith")
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A task file, a source map, and a ground-truth repository for `names`.
pub(crate) fn setup(dir: &Path, names: &[&str]) {
    let mut tasks = String::new();
    let mut map = String::from("[sources]\n");
    for n in names {
        tasks.push_str(&format!(
            "{{\"name\": \"{n}\", \"spack_dir\": \"{n}\", \"version\": \"1.0\", \"installable_here\": true}}\n"
        ));
        std::fs::create_dir_all(dir.join("src").join(n)).unwrap();
        map.push_str(&format!("\"{n}\" = \"src/{n}\"\n"));
        let gt = dir.join("gt/packages").join(n);
        std::fs::create_dir_all(&gt).unwrap();
        std::fs::write(
            gt.join("package.py"),
            "from spack.package import *\n\nclass P(CMakePackage):\n    depends_on(\"zlib\")\n    depends_on(\"hdf5\")\n\n    def cmake_args(self):\n        return [self.define(\"PKG_TESTS\", False), self.define(\"PKG_X\", True)]\n",
        )
        .unwrap();
    }
    std::fs::write(dir.join("tasks.jsonl"), tasks).unwrap();
    std::fs::write(dir.join("sources.toml"), map).unwrap();
}

pub(crate) fn journal_pairs(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["record"] == "pair")
        .collect()
}

pub(crate) fn run_args<'a>(d: &'a str, extra: &[&'a str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "run",
        &format!("{d}/tasks.jsonl"),
        "--sources",
        &format!("{d}/sources.toml"),
        "--out",
        &format!("{d}/out"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

pub(crate) fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn run_resume_and_report() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    setup(tmp.path(), &["ok-1", "ok-2", "bad", "crash"]);
    // The source map may say which version each snapshot is.
    let map = std::fs::read_to_string(tmp.path().join("sources.toml")).unwrap();
    std::fs::write(
        tmp.path().join("sources.toml"),
        format!("{map}[versions]\n\"ok-1\" = \"0.9\"\n"),
    )
    .unwrap();
    let args = run_args(
        d,
        &[
            "--config",
            "zero-shot,packsmith",
            "--jobs",
            "2",
            "--ground-truth",
            &format!("{d}/gt"),
            "--spack-version",
            "0.23",
            "--cache",
            "replay",
        ],
    );
    let o = bench(&strs(&args), &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("8 pairs: 0 already in the journal, 8 run now (3 succeeded)"),
        "{}",
        text(&o)
    );

    let pairs = journal_pairs(&tmp.path().join("out"));
    assert_eq!(pairs.len(), 8);
    let by: BTreeMap<(String, String), &serde_json::Value> = pairs
        .iter()
        .map(|p| {
            (
                (
                    p["task"].as_str().unwrap().to_string(),
                    p["config"].as_str().unwrap().to_string(),
                ),
                p,
            )
        })
        .collect();
    let get = |t: &str, c: &str| by[&(t.to_string(), c.to_string())];
    // ok-2 needs a second attempt, which zero-shot does not have.
    assert_eq!(get("ok-2", "zero-shot")["outcome"], "failed");
    assert_eq!(get("ok-2", "packsmith")["outcome"], "succeeded");
    assert_eq!(get("ok-2", "packsmith")["success_attempt"], 2);
    assert_eq!(get("crash", "packsmith")["outcome"], "crashed");
    assert_eq!(get("bad", "packsmith")["failure_class"], "compilation");
    // S_d/S_v against the ground truth: zlib of {zlib, hdf5}; one key of two.
    assert_eq!(get("ok-1", "zero-shot")["s_d"], 0.5);
    assert_eq!(get("ok-1", "zero-shot")["s_v"], 0.5);
    assert_eq!(get("bad", "zero-shot")["scored"], "best");

    // The flags each configuration passed, and the replay cache.
    let argv = |t: &str, c: &str| -> serde_json::Value {
        let p = tmp
            .path()
            .join("out/runs")
            .join(c)
            .join(t)
            .join("args.json");
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let zs = argv("ok-1", "zero-shot");
    let flags: Vec<&str> = zs["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let line = flags.join(" ");
    for f in [
        "--max-attempts 1",
        "--brief raw",
        "--refs none",
        "--no-tools",
        "--draft none",
        "--no-audit",
        "--replace",
        "--name ok-1",
        "--version 0.9",
    ] {
        assert!(line.contains(f), "{f} missing from {line}");
    }
    assert_eq!(flags[0], "spack");
    assert_eq!(zs["cache"], "replay");
    assert!(zs["cache_dir"].as_str().unwrap().ends_with("out/llm-cache"));
    let ps = argv("ok-1", "packsmith");
    assert!(!ps["argv"].to_string().contains("--max-attempts"));

    // A rerun repeats nothing.
    let o = bench(&strs(&args), &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("8 pairs: 8 already in the journal, 0 run now"),
        "{}",
        text(&o)
    );
    assert_eq!(journal_pairs(&tmp.path().join("out")).len(), 8);

    let o = bench(&["status", &format!("{d}/out")], &[]);
    assert!(text(&o).contains("8 of 8 pairs finished"), "{}", text(&o));
    assert!(
        text(&o).contains("zero-shot: 4/4 done — 1 succeeded, 2 failed, 0 timeouts, 1 crashed"),
        "{}",
        text(&o)
    );

    let o = bench(&["report", &format!("{d}/out")], &[]);
    assert!(o.status.success(), "{}", text(&o));
    let rep = tmp.path().join("out/report");
    let md = std::fs::read_to_string(rep.join("report.md")).unwrap();
    assert!(md.contains("| `zero-shot` | 4 | 1 (25.0%) |"), "{md}");
    assert!(md.contains("| `packsmith` | 4 | 2 (50.0%) |"), "{md}");
    // Paired: packsmith wins ok-2; nothing else differs.
    assert!(
        md.contains("| `zero-shot` | `packsmith` | 4 | 1 | 0 | 1 | 2 | 1.0000 |"),
        "{md}"
    );
    let png = std::fs::read(rep.join("cumulative-success.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    let svg = std::fs::read_to_string(rep.join("cumulative-success.svg")).unwrap();
    assert!(svg.contains("zero-shot"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rep.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["configurations"][1]["cumulative_success"][1], 0.5);

    // A second run compared with the first, pair by pair.
    let args2 = run_args(d, &["--config", "spackit"]);
    let mut args2 = args2;
    let i = args2.iter().position(|a| a.ends_with("/out")).unwrap();
    args2[i] = format!("{d}/out2");
    let o = bench(&strs(&args2), &[]);
    assert!(o.status.success(), "{}", text(&o));
    let o = bench(
        &[
            "report",
            &format!("{d}/out2"),
            "--against",
            &format!("{d}/out"),
        ],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(tmp.path().join("out2/report/report.md")).unwrap();
    assert!(
        md.contains("| `spackit` | `zero-shot` | 4 | 1 | 1 | 0 | 2 | 1.0000 |"),
        "{md}"
    );
}

/// The report's fidelity section: hermeticity beside install success, and
/// package-level dependency figures against the ground truth (the stand-in
/// depends on zlib and mpi, the human recipe on zlib and hdf5).
#[test]
fn report_shows_hermeticity_and_fidelity() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    setup(tmp.path(), &["ok-1", "leaky"]);
    let args = run_args(
        d,
        &[
            "--config",
            "packsmith",
            "--ground-truth",
            &format!("{d}/gt"),
            "--spack-version",
            "0.23",
        ],
    );
    let o = bench(&strs(&args), &[]);
    assert!(o.status.success(), "{}", text(&o));
    let pairs = journal_pairs(&tmp.path().join("out"));
    let leaky = pairs.iter().find(|p| p["task"] == "leaky").unwrap();
    assert_eq!(leaky["outcome"], "failed", "{leaky}");
    assert_eq!(leaky["failure_class"], "undeclared_dependency", "{leaky}");
    assert_eq!(leaky["fidelity"]["dep_recall"], 0.5, "{leaky}");
    assert_eq!(leaky["fidelity"]["deps_missing"][0], "hdf5", "{leaky}");
    assert_eq!(leaky["fidelity"]["deps_extra"][0], "mpi", "{leaky}");

    let o = bench(&["report", &format!("{d}/out")], &[]);
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(tmp.path().join("out/report/report.md")).unwrap();
    assert!(
        md.contains("## Fidelity to the human recipes (Spack)"),
        "{md}"
    );
    assert!(
        md.contains(
            "| `packsmith` | 2 | 1 of 2 checked (50.0%) | leaky | 0.500 (n=2) | 0.500 (n=2) | 0.500 (n=2) / 0.500 (n=2) | – (n=0) | 0 / 0 / 0 |"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "| leaky | `packsmith` | failed | not hermetic | 0.50 | 0.50 | – | hdf5 | mpi |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| ok-1 | `packsmith` | succeeded | hermetic |"),
        "{md}"
    );
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("out/report/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["fidelity"][0]["hermetic_installs"], 1, "{json}");
    assert_eq!(json["fidelity_tasks"][0]["hermetic"], "failed", "{json}");

    // A changed ground truth, scored again from the kept run directories:
    // the scores follow it, the outcomes stay.
    std::fs::write(
        tmp.path().join("gt/packages/leaky/package.py"),
        "from spack.package import *\n\nclass P(CMakePackage):\n    depends_on(\"zlib\")\n    depends_on(\"mpi\")\n",
    )
    .unwrap();
    let o = bench(&["rescore", &format!("{d}/out")], &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("2 pairs scored again, 2 with a score"),
        "{}",
        text(&o)
    );
    let pairs = journal_pairs(&tmp.path().join("out"));
    assert_eq!(pairs.len(), 2);
    let leaky = pairs.iter().find(|p| p["task"] == "leaky").unwrap();
    assert_eq!(leaky["outcome"], "failed", "{leaky}");
    assert_eq!(leaky["fidelity"]["dep_recall"], 1.0, "{leaky}");
    assert_eq!(leaky["fidelity"]["dep_precision"], 1.0, "{leaky}");
    let ok = pairs.iter().find(|p| p["task"] == "ok-1").unwrap();
    assert_eq!(ok["fidelity"]["dep_recall"], 0.5, "{ok}");
}

/// Nix pairs scored against a directory of reference expressions: the
/// stand-in's expression (cmake; zlib, mpi) against nixpkgs' (cmake,
/// pkg-config; zlib, libpng).
#[test]
fn nix_pairs_are_scored_against_reference_expressions() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    let mut tasks = String::new();
    for n in ["ok-1", "bad"] {
        tasks.push_str(&format!(
            "{{\"attr_path\": \"{n}\", \"package_name\": \"{n}\", \"pname\": \"{n}\", \"version\": \"1.0\", \"nixpkgs_base_commit\": \"c\"}}\n"
        ));
        std::fs::create_dir_all(tmp.path().join("src").join(n)).unwrap();
    }
    std::fs::write(tmp.path().join("tasks.jsonl"), tasks).unwrap();
    std::fs::write(
        tmp.path().join("sources.toml"),
        "[sources]\n\"ok-1\" = \"src/ok-1\"\n\"bad\" = \"src/bad\"\n",
    )
    .unwrap();
    let refs = tmp.path().join("refs");
    std::fs::create_dir_all(&refs).unwrap();
    // Only ok-1 has a reference: bad's pair says so in its record.
    std::fs::write(
        refs.join("ok-1.nix"),
        "{ lib, stdenv, cmake, pkg-config, zlib, libpng }:\nstdenv.mkDerivation {\n  src = fetchFromGitHub { };\n  nativeBuildInputs = [ cmake pkg-config ];\n  buildInputs = [ zlib libpng ];\n  meta = { description = \"x\"; license = lib.licenses.mit; };\n}\n",
    )
    .unwrap();
    let args = run_args(
        d,
        &[
            "--config",
            "packsmith",
            "--nix-reference",
            &format!("{d}/refs"),
        ],
    );
    let o = bench(&strs(&args), &[]);
    assert!(o.status.success(), "{}", text(&o));
    let pairs = journal_pairs(&tmp.path().join("out"));
    let ok = pairs.iter().find(|p| p["task"] == "ok-1").unwrap();
    let f = &ok["nix_fidelity"];
    assert_eq!(f["builder_match"], true, "{ok}");
    assert_eq!(f["fetcher_match"], true, "{ok}");
    assert_eq!(f["native"]["recall"], 0.5, "{ok}");
    assert_eq!(f["build"]["missing"][0], "libpng", "{ok}");
    assert_eq!(f["build"]["extra"][0], "mpi", "{ok}");
    let bad = pairs.iter().find(|p| p["task"] == "bad").unwrap();
    assert!(
        bad["score_error"]
            .as_str()
            .unwrap()
            .contains("no reference expression for bad"),
        "{bad}"
    );

    let o = bench(&["report", &format!("{d}/out")], &[]);
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(tmp.path().join("out/report/report.md")).unwrap();
    assert!(
        md.contains("## Fidelity to nixpkgs' expressions (Nix)"),
        "{md}"
    );
    assert!(
        md.contains("| `packsmith` | 1 | 1.000 (n=1) | 1.000 (n=1) | 0.500 (n=1) | 1.000 (n=1) | 0.500 (n=1) | 0.500 (n=1) |"),
        "{md}"
    );
    assert!(
        md.contains("| ok-1 | `packsmith` | stdenv+cmake → stdenv+cmake | 0.50 / 1.00 | 0.50 / 0.50 | libpng | mpi | – | 0.50 |"),
        "{md}"
    );
    // No Spack pair: no Spack fidelity section.
    assert!(!md.contains("Fidelity to the human recipes"), "{md}");
}

#[test]
fn kill_minus_nine_then_resume_loses_and_repeats_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    let names: Vec<String> = (0..6).map(|i| format!("ok-1-{i}")).collect();
    setup(
        tmp.path(),
        &names.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let log = tmp.path().join("starts.log");
    let args = run_args(d, &["--config", "zero-shot,packsmith", "--jobs", "2"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .arg("bench")
        .args(&args)
        .env("PACKSMITH_BENCH_BIN", fake())
        .env("FAKE_SLEEP", "0.4")
        .env("FAKE_LOG", &log)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = tmp.path().join("out");
    let start = Instant::now();
    while journal_pairs(&out).len() < 3 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the runner made no progress"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before: Vec<(String, String)> = journal_pairs(&out)
        .iter()
        .map(|p| {
            (
                p["task"].as_str().unwrap().into(),
                p["config"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(before.len() >= 3 && before.len() < 12, "{}", before.len());

    let o = bench(&strs(&args), &[("FAKE_LOG", log.to_str().unwrap())]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "12 pairs: {} already in the journal, {} run now",
            before.len(),
            12 - before.len()
        )),
        "{}",
        text(&o)
    );
    let after = journal_pairs(&out);
    assert_eq!(after.len(), 12, "every pair once");
    let unique: std::collections::BTreeSet<_> = after
        .iter()
        .map(|p| (p["task"].to_string(), p["config"].to_string()))
        .collect();
    assert_eq!(unique.len(), 12);
    // Pairs journaled before the kill were started exactly once.
    let starts = std::fs::read_to_string(&log).unwrap();
    for (task, config) in &before {
        let n = starts
            .lines()
            .filter(|l| *l == format!("start {config} {task}"))
            .count();
        assert_eq!(n, 1, "{config} × {task} was run again:\n{starts}");
    }
}

#[test]
fn timeout_kills_the_pair_and_is_recorded() {
    let _alone = SLOW_START.lock();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    setup(tmp.path(), &["hang"]);
    let start = Instant::now();
    let o = bench(
        &strs(&run_args(d, &["--config", "zero-shot", "--timeout", "5"])),
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(start.elapsed() < Duration::from_secs(30));
    let p = &journal_pairs(&tmp.path().join("out"))[0];
    assert_eq!(p["outcome"], "timeout");
    assert_eq!(p["failure_class"], "timeout");
    // The stand-in is gone, and so is its grandchild in a group of its own.
    let pid_file = tmp.path().join("out/runs/zero-shot/hang/child.pid");
    assert!(!pid_file.exists());
    let g =
        std::fs::read_to_string(tmp.path().join("out/runs/zero-shot/hang/grandchild.pid")).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", g.trim())).unwrap_or_default();
    // Gone, or a zombie awaiting its reaper.
    assert!(
        stat.is_empty() || stat.contains(") Z "),
        "grandchild {g} still runs: {stat}"
    );
}

/// Ctrl-C or SIGTERM to the runner: exit 130, the running pair's stand-in
/// and its grandchild (a session of its own) stopped, nothing journaled for
/// it, and a rerun runs it again.
#[test]
fn a_signal_stops_the_running_pair_and_journals_nothing() {
    let _alone = SLOW_START.lock();
    for signal in ["-INT", "-TERM"] {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().to_str().unwrap();
        setup(tmp.path(), &["hang"]);
        let child = Command::new(env!("CARGO_BIN_EXE_packsmith"))
            .arg("bench")
            .args(run_args(d, &["--config", "zero-shot"]))
            .env("PACKSMITH_BENCH_BIN", fake())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let grandchild = tmp.path().join("out/runs/zero-shot/hang/grandchild.pid");
        // The file is made before its pid is written into it: wait for the
        // pid, or `/proc//stat` below reads the system's `/proc/stat`.
        let t0 = Instant::now();
        let g = loop {
            let pid = std::fs::read_to_string(&grandchild).unwrap_or_default();
            if !pid.trim().is_empty() {
                break pid;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "the pair never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // The shell's own `kill`: no procps needed.
        let sent = Command::new("sh")
            .args(["-c", &format!("kill {signal} {}", child.id())])
            .status()
            .unwrap();
        assert!(sent.success());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{signal}: {}", text(&o));
        assert!(journal_pairs(&tmp.path().join("out")).is_empty());
        // The kill is sent at once; on a loaded machine the kernel may take
        // a moment to reap, so wait up to 5 s for the grandchild to go.
        let gone = |stat: &str| stat.is_empty() || stat.contains(") Z ");
        let t1 = Instant::now();
        let mut stat = String::new();
        while t1.elapsed() < Duration::from_secs(5) {
            stat = std::fs::read_to_string(format!("/proc/{}/stat", g.trim())).unwrap_or_default();
            if gone(&stat) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            gone(&stat),
            "{signal}: grandchild {g} still runs after 5 s: {stat}"
        );
    }
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    setup(tmp.path(), &["ok-1", "ok-2"]);
    let out = tmp.path().join("out");

    // A task without a source.
    std::fs::write(
        tmp.path().join("sources.toml"),
        "[sources]\n\"ok-1\" = \"src/ok-1\"\n",
    )
    .unwrap();
    let o = bench(&strs(&run_args(d, &[])), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("1 task(s) have no source: ok-2"),
        "{}",
        text(&o)
    );
    assert!(!out.exists(), "nothing may run");
    // ... unless filtered out.
    let o = bench(
        &strs(&run_args(d, &["--only-with-source", "--dry-run"])),
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("1 tasks × 1 configurations (packsmith) = 1 pairs"),
        "{}",
        text(&o)
    );
    assert!(!out.exists(), "a dry run runs nothing");
    let o = bench(&strs(&run_args(d, &["--tasks", "ok-1"])), &[]);
    assert!(o.status.success(), "{}", text(&o));

    // A journal from another configuration.
    let o = bench(
        &strs(&run_args(d, &["--tasks", "ok-1", "--config", "zero-shot"])),
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("was written for other configurations"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("use a new --out directory"),
        "{}",
        text(&o)
    );

    // Unknown fields, duplicate ids, unknown configuration keys.
    std::fs::write(
        tmp.path().join("bad.jsonl"),
        "{\"name\": \"a\", \"spack_dir\": \"a\", \"version\": \"1\", \"versoin\": \"2\"}\n",
    )
    .unwrap();
    let o = bench(
        &[
            "run",
            &format!("{d}/bad.jsonl"),
            "--out",
            &format!("{d}/o2"),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("bad.jsonl:1: Spack task: unknown field `versoin`"),
        "{}",
        text(&o)
    );
    let line = "{\"name\": \"a\", \"spack_dir\": \"a\", \"version\": \"1\"}\n";
    std::fs::write(tmp.path().join("dup.jsonl"), format!("{line}{line}")).unwrap();
    let o = bench(
        &[
            "run",
            &format!("{d}/dup.jsonl"),
            "--out",
            &format!("{d}/o2"),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("dup.jsonl:2: duplicate task id `a`"),
        "{}",
        text(&o)
    );
    std::fs::write(
        tmp.path().join("c.toml"),
        "[[configuration]]\nname = \"x\"\nmax_attempt = 3\n",
    )
    .unwrap();
    let o = bench(
        &strs(&run_args(d, &["--config", &format!("{d}/c.toml")])),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("unknown field `max_attempt`"),
        "{}",
        text(&o)
    );
    assert!(!tmp.path().join("o2").exists());
}

/// A task with no release (`"version": null`): `bench run` names the line
/// and the field and runs nothing; with --skip-invalid the valid rest runs
/// and the skipped line is printed.
#[test]
fn an_invalid_task_line_is_named_and_can_be_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    setup(tmp.path(), &["ok-1", "ok-2"]);
    let tasks = tmp.path().join("tasks.jsonl");
    let text_before = std::fs::read_to_string(&tasks).unwrap();
    let unreleased = text_before
        .lines()
        .nth(1)
        .unwrap()
        .replace("\"1.0\"", "null");
    let first = text_before.lines().next().unwrap();
    std::fs::write(&tasks, format!("{first}\n{unreleased}\n")).unwrap();

    let o = bench(&strs(&run_args(d, &["--dry-run"])), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("tasks.jsonl:2: Spack task: field `version`: invalid type: null"),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("--skip-invalid"), "{}", text(&o));

    let o = bench(&strs(&run_args(d, &["--dry-run", "--skip-invalid"])), &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("warning: skipping invalid task"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("1 tasks × 1 configurations (packsmith) = 1 pairs"),
        "{}",
        text(&o)
    );
}
