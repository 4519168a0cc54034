//! What the end-to-end tests share: which GGUF to run, whether Spack and
//! Nix are here (a loud SKIPPED line when not), the sandbox paths of Nix.
#![allow(dead_code, clippy::print_stderr)]

use std::path::PathBuf;

fn models_dir() -> PathBuf {
    match std::env::var_os("PACKSMITH_CACHE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/packsmith")
        }
    }
    .join("models")
}

/// The model file: `PACKSMITH_E2E_MODEL` (a GGUF path) or SmolLM2, when
/// the binary has the embedded provider and the file is there; else None
/// after a SKIPPED line naming `test`.
pub fn e2e_model(test: &str) -> Option<PathBuf> {
    if !cfg!(feature = "local") {
        eprintln!(
            "SKIPPED: {test}: built without feature `local` (cargo test -p packsmith \
             --features local)"
        );
        return None;
    }
    let model = std::env::var_os("PACKSMITH_E2E_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| models_dir().join("smollm2-135m-instruct-q4_1.gguf"));
    if !model.exists() {
        eprintln!(
            "SKIPPED: {test}: {} is absent (packsmith model pull smollm2-135m-instruct)",
            model.display()
        );
        return None;
    }
    Some(model)
}

/// The env file of a Spack made by `packsmith setup spack` from the
/// checkout in `PACKSMITH_TEST_SPACK` (set up once per test binary; a
/// rerun refreshes it cheaply), or a loud SKIPPED line.
pub fn test_spack_env(test: &str) -> Option<PathBuf> {
    static ENV: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    let made = ENV.get_or_init(|| {
        let checkout =
            std::env::var_os("PACKSMITH_TEST_SPACK").ok_or("PACKSMITH_TEST_SPACK is not set")?;
        let prefix = std::env::temp_dir().join("packsmith-test-spack");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_packsmith"))
            .args(["setup", "spack", "--from"])
            .arg(&checkout)
            .arg("--prefix")
            .arg(&prefix)
            // The test set-up is no default of the developer's own.
            .env("PACKSMITH_CONFIG", prefix.with_extension("toml"))
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "packsmith setup spack failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(prefix.join("env.sh"))
    });
    match made {
        Ok(env) => Some(env.clone()),
        Err(e) => {
            eprintln!("SKIPPED: {test}: {e}; set PACKSMITH_TEST_SPACK=/path/to/spack-checkout");
            None
        }
    }
}

/// What [`interrupt_once_started`] saw.
pub struct Interrupted {
    /// packsmith's exit status.
    pub status: std::process::ExitStatus,
    /// The stand-in build's pid.
    pub build_pid: String,
    /// Its process group, read while it ran.
    pub build_group: String,
}

/// `(state, process group)` of `pid` from `/proc/PID/stat`.
fn state_and_group(pid: &str) -> Option<(String, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some((fields.first()?.to_string(), fields.get(2)?.to_string()))
}

/// The processes of group `pgid` that are still alive (zombies are dead:
/// they only wait for their new parent to reap them).
pub fn live_members_of_group(pgid: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.chars().all(|c| c.is_ascii_digit()))
        .filter(|pid| {
            state_and_group(pid).is_some_and(|(state, group)| group == pgid && state != "Z")
        })
        .collect()
}

/// Waits until the stand-in build has written its pid to `pid_file`, sends
/// SIGINT to `child` (packsmith) and waits at most 10 s for it to exit.
/// Returns its exit status and the stand-in's pid and process group, for
/// the Ctrl-C tests.
pub fn interrupt_once_started(
    child: &mut std::process::Child,
    pid_file: &std::path::Path,
) -> Interrupted {
    use std::time::{Duration, Instant};
    let started = Instant::now();
    while !pid_file.exists() {
        if started.elapsed().as_secs() > 60 {
            let _ = child.kill();
            panic!("the stand-in build never started");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let build_pid = std::fs::read_to_string(pid_file)
        .expect("read the stand-in's pid")
        .trim()
        .to_string();
    let (_, build_group) = state_and_group(&build_pid).expect("the stand-in runs");
    assert!(
        live_members_of_group(&build_group).len() >= 2,
        "the stand-in should run a second process in its group"
    );
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let interrupted = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for packsmith") {
            break s;
        }
        if interrupted.elapsed().as_secs() > 10 {
            let _ = child.kill();
            panic!("packsmith still running 10 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Interrupted {
        status,
        build_pid,
        build_group,
    }
}

/// After a Ctrl-C test: packsmith exited 130, nothing of the build's
/// process group is alive, and `report` (report.json) says the run was
/// interrupted during `stage`, which is recorded as cancelled, not failed.
pub fn assert_interrupted_cleanly(run: &Interrupted, report: &serde_json::Value, stage: &str) {
    assert_eq!(run.status.code(), Some(130));
    let build_pid = &run.build_pid;
    assert!(
        !std::path::Path::new(&format!("/proc/{build_pid}")).exists(),
        "the build (pid {build_pid}) outlived packsmith"
    );
    assert_eq!(
        live_members_of_group(&run.build_group),
        Vec::<String>::new(),
        "processes of the build's group outlived packsmith"
    );
    assert_eq!(report["status"], "interrupted", "{report:#}");
    let attempt = &report["attempts"][0];
    assert_eq!(attempt["interrupted"], true, "{report:#}");
    let last = attempt["stages"].as_array().and_then(|s| s.last());
    assert_eq!(last.map(|s| &s["name"]), Some(&stage.into()), "{report:#}");
    assert_eq!(
        last.map(|s| &s["cancelled"]),
        Some(&true.into()),
        "{report:#}"
    );
    assert!(attempt.get("failure").is_none(), "{report:#}");
}

/// `git` in `dir` with a throwaway identity, `main` as the first branch and
/// no signing, failing the test with git's message.
pub fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
        .args(["-c", "init.defaultBranch=main"])
        .args(["-c", "tag.gpgSign=false", "-c", "commit.gpgSign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run git: {e}"));
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether real Nix is here; a loud SKIPPED line when it is not.
pub fn nix_here() -> bool {
    let ok = std::process::Command::new("nix-instantiate")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: nix-instantiate not found");
    }
    ok
}

/// `/bin/sh`, mkdir, chmod and their libraries as `path=realpath`, for
/// `--sandbox-path`: the test nixpkgs' builders are the host's shell.
pub fn nix_host_paths() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for prog in ["/bin/sh", "/bin/mkdir", "/bin/chmod"] {
        let mut add = |p: &str| {
            let e = format!("{p}={}", std::fs::canonicalize(p).unwrap().display());
            if !out.contains(&e) {
                out.push(e);
            }
        };
        add(prog);
        let ldd = std::process::Command::new("ldd")
            .arg(prog)
            .output()
            .unwrap();
        for line in String::from_utf8_lossy(&ldd.stdout).lines() {
            let p = match line.split_once("=>") {
                Some((_, r)) => r.split_whitespace().next(),
                None => line.split_whitespace().next(),
            };
            if let Some(p) = p.filter(|p| p.starts_with('/')) {
                add(p);
            }
        }
    }
    out
}
