//! Kill soak of `bench run` (issue 16 item 3): the runner is killed with
//! SIGKILL at 20 seeded random moments over a small task set (the
//! stand-in `packsmith`, a real journal) and rerun until done. Then: no
//! pair lost, none journaled twice, no process of the killed runs' groups
//! alive, and the report the same as an uninterrupted run's.

use super::bench_cli::{bench, fake, journal_pairs, run_args, setup, strs, text, SLOW_START};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KILLS: usize = 20;
/// Each pair's stand-in takes this long, while a grandchild of its own
/// session runs (`sleep 30`, ended by the stand-in when it finishes).
const SLEEP: &str = "0.3";

/// xorshift64: the kill moments are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n) as usize
    }

    fn below_ms(&mut self, lo: u64, hi: u64) -> Duration {
        Duration::from_millis(lo + self.below(hi - lo) as u64)
    }
}

fn names() -> Vec<String> {
    // Outcomes of every kind: first-try and second-try successes, failures
    // and crashes without a report.
    let mut v = Vec::new();
    for i in 0..4 {
        v.push(format!("ok-1-{i}"));
        v.push(format!("ok-2-{i}"));
        v.push(format!("bad-{i}"));
        v.push(format!("crash-{i}"));
    }
    v
}

/// The run's arguments for the task set in `d`, into `out`.
fn args(d: &str, out: &str, jobs: &str) -> Vec<String> {
    let mut a = run_args(
        d,
        &[
            "--config",
            "zero-shot,packsmith",
            "--jobs",
            jobs,
            "--ground-truth",
            &format!("{d}/gt"),
            "--spack-version",
            "0.23",
        ],
    );
    let i = a.iter().position(|x| x.ends_with("/out")).unwrap();
    a[i] = out.to_string();
    a
}

/// The journal's pair records by (task, configuration), without what
/// differs between runs of the same work (wall time, the journal index).
fn records(out: &Path) -> BTreeMap<(String, String), serde_json::Value> {
    let mut by = BTreeMap::new();
    for mut p in journal_pairs(out) {
        let key = (
            p["task"].as_str().unwrap().to_string(),
            p["config"].as_str().unwrap().to_string(),
        );
        let obj = p.as_object_mut().unwrap();
        obj.remove("wall_ms");
        obj.remove("ts");
        assert!(
            by.insert(key.clone(), p).is_none(),
            "{key:?} journaled twice"
        );
    }
    by
}

/// `bench report`'s JSON with its timing fields removed.
fn report(out: &Path) -> serde_json::Value {
    let o = bench(&["report", out.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", text(&o));
    let text = std::fs::read_to_string(out.join("report/report.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    strip_timings(&mut v);
    v
}

fn strip_timings(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| !is_timing(k));
            m.values_mut().for_each(strip_timings);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_timings),
        _ => {}
    }
}

fn is_timing(key: &str) -> bool {
    key.contains("wall") || key.contains("duration") || key.ends_with("_ms") || key == "dir"
}

/// Live (not zombie) processes whose process group is one of `groups`
/// and whose command line shows they are ours (the stand-in, which names
/// the pair directory, or its `sleep`).
fn alive_in(groups: &BTreeSet<i32>, tmp: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (state, pgrp) = (fields[0], fields[2].parse::<i32>().unwrap_or(0));
        if state == "Z" || !groups.contains(&pgrp) {
            continue;
        }
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(tmp.to_str().unwrap()) || cmd.trim() == "sleep 30" {
            found.push(format!("{pid} (group {pgrp}): {cmd}"));
        }
    }
    found
}

#[test]
fn twenty_kills_lose_nothing_repeat_nothing_and_leave_nothing_running() {
    let _alone = SLOW_START.lock();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    let names = names();
    setup(
        tmp.path(),
        &names.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let pids = tmp.path().join("pids.log");
    let env = [("FAKE_SLEEP", SLEEP), ("FAKE_PIDS", pids.to_str().unwrap())];
    let total = names.len() * 2;

    // The reference: one uninterrupted run (with more workers: the
    // report may not depend on them either).
    let clean_out = format!("{d}/clean");
    let t = Instant::now();
    let o = bench(&strs(&args(d, &clean_out, "4")), &env);
    assert!(o.status.success(), "{}", text(&o));
    let clean_secs = t.elapsed().as_secs_f64();

    // The soak: start, kill at a random moment, start again …
    let out = tmp.path().join("out");
    let soak_args = args(d, out.to_str().unwrap(), "2");
    let mut rng = Rng(0x5EED_0016);
    let mut kills = 0;
    let mut runs = 0;
    let mut progress = Vec::new();
    let t = Instant::now();
    while kills < KILLS {
        let before = journal_pairs(&out).len();
        assert!(
            before < total,
            "done after {kills} kills: lower the kill moments"
        );
        let mut child = Command::new(env!("CARGO_BIN_EXE_packsmith"))
            .arg("bench")
            .args(&soak_args)
            .env("PACKSMITH_BENCH_BIN", fake())
            .envs(env)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        runs += 1;
        // Kill at a seeded moment: after 0 or 1 more journaled pairs, then
        // up to 300 ms on (mid-pair, at a journal write, at start-up). When
        // few pairs remain, within 100 ms of the start, before any pair can
        // finish, so that all 20 kills land before the end on a fast machine.
        let plenty = total - before > KILLS - kills + 2;
        let wait_for = before + if plenty { rng.below(2) } else { 0 };
        let t0 = Instant::now();
        while journal_pairs(&out).len() < wait_for && child.try_wait().unwrap().is_none() {
            assert!(t0.elapsed() < Duration::from_secs(60), "no progress");
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(rng.below_ms(0, if plenty { 300 } else { 100 }));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        child.wait().unwrap();
        progress.push(journal_pairs(&out).len() - before);
    }
    // … and once more, uninterrupted, to the end.
    let o = bench(&strs(&soak_args), &env);
    assert!(o.status.success(), "{}", text(&o));
    runs += 1;
    let soak_secs = t.elapsed().as_secs_f64();

    // 0 lost, 0 duplicated: every pair exactly once, as in the clean run.
    let soaked = records(&out);
    let clean = records(Path::new(&clean_out));
    assert_eq!(soaked.len(), total, "pairs lost");
    assert_eq!(journal_pairs(&out).len(), total, "pairs journaled twice");
    for (key, rec) in &clean {
        let mut got = soaked[key].clone();
        let mut want = rec.clone();
        for v in [&mut got, &mut want] {
            v.as_object_mut().unwrap().remove("index");
            // The run directory and the report path name the output folder.
            strip_timings(v);
            let s = v.to_string().replace(&clean_out, "OUT");
            *v = serde_json::from_str(&s.replace(out.to_str().unwrap(), "OUT")).unwrap();
        }
        assert_eq!(got, want, "{key:?} differs from the uninterrupted run");
    }
    // The same report, timings aside.
    assert_eq!(report(&out), report(Path::new(&clean_out)));

    // No process of the killed runs' groups is left: neither a stand-in
    // nor the grandchild it started in a session of its own.
    let mut groups = BTreeSet::new();
    for line in std::fs::read_to_string(&pids).unwrap().lines() {
        let f: Vec<i32> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        groups.insert(f[1]);
        groups.insert(f[2]);
    }
    let left = alive_in(&groups, tmp.path());
    assert!(left.is_empty(), "left running:\n{}", left.join("\n"));

    let starts = std::fs::read_to_string(&pids).unwrap().lines().count();
    println!(
        "kill soak: {kills} SIGKILLs over {runs} runs, {total} pairs, {starts} pair starts \
         ({} repeated after a kill), journaled per killed run {progress:?}, {soak_secs:.1} s \
         (uninterrupted {clean_secs:.1} s), 0 lost, 0 duplicated, 0 processes left",
        starts - 2 * total
    );
}
