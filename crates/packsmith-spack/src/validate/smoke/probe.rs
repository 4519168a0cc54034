//! Which harmless argument an installed program answers: each of
//! [`PROBE_ARGS`] in turn, in a sandbox stricter than the stages' (the
//! Spack store and the run only readable, a scratch directory the only
//! place to write, no network), keeping the first that exits 0 within
//! [`PROBE_TIMEOUT`]. A program that ignores its arguments and starts
//! working is cut off there and is not tested with that argument.

use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::sandbox::{Sandbox, SandboxPolicy};
use packsmith_exec::CommandSpec;

/// The arguments tried, in order.
pub const PROBE_ARGS: [&str; 2] = ["--version", "--help"];

/// A harmless argument answers within this.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Output kept of a probe (only the version is looked for in it).
const PROBE_OUTPUT: usize = 64 << 10;

/// What probing one program found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// One line per argument tried: `--version: exit 0 in 0.0 s`.
    pub tried: Vec<String>,
    /// The first argument answered with exit 0, and the output.
    pub answered: Option<(String, String)>,
    /// Else the first argument the program refused promptly with an exit
    /// code of its own and some output (it started, loaded its libraries
    /// and read its arguments: tempestextremes' tools refuse `--version`
    /// with 255), and that code.
    pub refused: Option<(String, i32)>,
}

/// First lines of a script whose interpreter stopped before the program
/// read its arguments (a Python entry point run without the package's
/// `PYTHONPATH`, which `spack test run` sets): no refusal of the flag.
const INTERPRETER_CRASHES: &[&str] = &[
    "Traceback (most recent call last)",
    "ModuleNotFoundError:",
    "ImportError:",
    "Can't locate ",
];

/// An exit code a program that started gives: not the shell's "cannot
/// execute" (126) or "not found" (127, also a missing shared library), nor
/// a signal.
fn started(code: Option<i32>) -> Option<i32> {
    code.filter(|c| *c > 0 && *c != 126 && *c != 127)
}

/// The stages' sandbox made stricter for running an installed program:
/// what the stages could write (the store, the caches, the run) is only
/// readable, and `scratch` (its working directory and `$HOME`) is the one
/// writable place. Without a sandbox (`--no-sandbox`), none.
pub fn probe_sandbox(stages: &Sandbox, scratch: &Path) -> Sandbox {
    match stages {
        Sandbox::Bubblewrap {
            bwrap,
            prlimit,
            policy,
        } => {
            let mut read_only: Vec<PathBuf> = policy.read_only.clone();
            read_only.extend(policy.writable.iter().cloned());
            Sandbox::Bubblewrap {
                bwrap: bwrap.clone(),
                prlimit: prlimit.clone(),
                policy: SandboxPolicy {
                    writable: vec![scratch.to_path_buf()],
                    read_only,
                    home: scratch.join("home"),
                    network: false,
                    max_processes: Some(256),
                    max_file_size: Some(256 << 20),
                    ..policy.clone()
                },
            }
        }
        Sandbox::None => Sandbox::None,
    }
}

/// Runs `exe` with each of [`PROBE_ARGS`] until one exits 0 within
/// `timeout` ([`PROBE_TIMEOUT`] in the stage). `scratch` must exist; it is
/// the program's working directory.
pub fn probe_executable(sandbox: &Sandbox, exe: &Path, scratch: &Path, timeout: Duration) -> Probe {
    probe_with(sandbox, exe, &PROBE_ARGS, scratch, timeout)
}

/// Runs `exe` with each of `args` in turn (one argument a run) until one
/// exits 0 within `timeout`.
pub fn probe_with(
    sandbox: &Sandbox,
    exe: &Path,
    args: &[&str],
    scratch: &Path,
    timeout: Duration,
) -> Probe {
    let mut probe = Probe {
        tried: Vec::new(),
        answered: None,
        refused: None,
    };
    if let Sandbox::Bubblewrap { policy, .. } = sandbox {
        if let Err(e) = std::fs::create_dir_all(&policy.home) {
            probe
                .tried
                .push(format!("could not create {}: {e}", policy.home.display()));
            return probe;
        }
    }
    for &arg in args {
        let mut command = CommandSpec::new(exe).arg(arg).cwd(scratch).timeout(timeout);
        command.max_output = PROBE_OUTPUT;
        let out = match packsmith_exec::run(&sandbox.wrap(command)) {
            Ok(out) => out,
            Err(e) => {
                probe.tried.push(format!("{arg}: could not run: {e}"));
                continue;
            }
        };
        let secs = out.duration.as_secs_f64();
        if out.timed_out {
            probe
                .tried
                .push(format!("{arg}: still running after {secs:.0} s, killed"));
            continue;
        }
        let first = out
            .stderr
            .lines()
            .chain(out.stdout.lines())
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let code = out
            .code
            .map_or("a signal".to_string(), |c| format!("exit {c}"));
        // Bytes that are no UTF-8 (read lossily here): the program took
        // the flag as data and wrote a stream (an old `bgzip` compressing
        // its stdin); the test's `output=str` could not even decode it.
        let binary = [&out.stdout, &out.stderr]
            .iter()
            .any(|t| t.contains('\u{FFFD}'));
        if out.success() && binary {
            probe.tried.push(format!(
                "{arg}: {code} in {secs:.1} s, but wrote binary output"
            ));
            continue;
        }
        if out.success() {
            probe.tried.push(format!("{arg}: {code} in {secs:.1} s"));
            probe.answered = Some((arg.to_string(), format!("{}{}", out.stdout, out.stderr)));
            return probe;
        }
        probe
            .tried
            .push(format!("{arg}: {code} in {secs:.1} s: {}", first.trim()));
        let crashed = INTERPRETER_CRASHES
            .iter()
            .any(|m| first.trim().starts_with(m));
        if let (None, Some(c), false, false) =
            (&probe.refused, started(out.code), first.is_empty(), crashed)
        {
            probe.refused = Some((arg.to_string(), c));
        }
    }
    probe
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        super::super::write_executable(&path, &format!("#!/bin/sh\n{body}\n"));
        path
    }

    /// tabix's old bgzip (corpus-4 dev): `--version` is no option, so it
    /// compresses its empty stdin to stdout and exits 0.
    #[test]
    fn an_answer_in_binary_is_no_answer() {
        let dir = tempfile::tempdir().unwrap();
        let exe = script(
            dir.path(),
            "bgzip",
            r#"[ "$1" = --help ] && { echo "usage: bgzip [options] [file]"; exit 0; }
printf '\037\213\010\004'"#,
        );
        let probe = probe_executable(&Sandbox::None, &exe, dir.path(), Duration::from_secs(10));
        assert_eq!(
            probe.answered.map(|a| a.0).as_deref(),
            Some("--help"),
            "{:?}",
            probe.tried
        );
        assert!(
            probe.tried[0].contains("binary output"),
            "{:?}",
            probe.tried
        );
    }

    #[test]
    fn the_first_argument_answered_with_exit_0_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let exe = script(
            dir.path(),
            "demo",
            "case \"$1\" in --help) echo 'usage: demo 1.2.0'; exit 0;; *) echo \"bad $1\" >&2; exit 2;; esac",
        );
        let probe = probe_executable(&Sandbox::None, &exe, dir.path(), PROBE_TIMEOUT);
        assert_eq!(
            probe.answered,
            Some(("--help".to_string(), "usage: demo 1.2.0\n".to_string()))
        );
        assert_eq!(probe.tried.len(), 2);
        assert!(
            probe.tried[0].starts_with("--version: exit 2 in "),
            "{:?}",
            probe.tried
        );
        assert!(
            probe.tried[0].ends_with(": bad --version"),
            "{:?}",
            probe.tried
        );
    }

    #[test]
    fn a_program_that_refuses_both_flags_but_starts_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        let exe = script(
            dir.path(),
            "tool",
            "echo \"ERROR: Invalid argument \\\"$1\\\"\" >&2; exit 255",
        );
        let probe = probe_executable(&Sandbox::None, &exe, dir.path(), PROBE_TIMEOUT);
        assert_eq!(probe.answered, None);
        assert_eq!(probe.refused, Some(("--version".to_string(), 255)));
        // A missing interpreter or library (exit 127) is no start.
        let broken = script(
            dir.path(),
            "broken",
            "echo 'libfoo.so: cannot open' >&2; exit 127",
        );
        let probe = probe_executable(&Sandbox::None, &broken, dir.path(), PROBE_TIMEOUT);
        assert_eq!(probe.refused, None);
    }

    /// Seen on py-termgraph and py-tld: a Python entry point probed without
    /// the package's PYTHONPATH stops at its import (exit 1, a traceback);
    /// under `spack test run` it answers (0) or refuses with argparse's 2.
    /// The crash is no refusal, so no check is derived from it.
    #[test]
    fn an_interpreter_that_stops_at_an_import_is_no_refusal() {
        let dir = tempfile::tempdir().unwrap();
        let exe = script(
            dir.path(),
            "termgraph",
            "echo 'Traceback (most recent call last):' >&2; \
             echo \"ModuleNotFoundError: No module named 'termgraph'\" >&2; exit 1",
        );
        let probe = probe_executable(&Sandbox::None, &exe, dir.path(), PROBE_TIMEOUT);
        assert_eq!((probe.answered, probe.refused), (None, None));
        assert_eq!(probe.tried.len(), 2, "{:?}", probe.tried);
    }

    #[test]
    fn a_program_that_keeps_running_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let exe = script(dir.path(), "busy", "sleep 30");
        let probe = probe_executable(&Sandbox::None, &exe, dir.path(), Duration::from_millis(300));
        assert_eq!(probe.answered, None);
        assert!(
            probe.tried.iter().all(|t| t.contains("still running")),
            "{:?}",
            probe.tried
        );
    }

    #[test]
    fn the_probe_sandbox_writes_only_to_scratch() {
        let stages = Sandbox::Bubblewrap {
            bwrap: "/usr/bin/bwrap".into(),
            prlimit: None,
            policy: SandboxPolicy {
                writable: vec!["/store".into(), "/run".into()],
                read_only: vec!["/usr".into()],
                ..SandboxPolicy::default()
            },
        };
        let Sandbox::Bubblewrap { policy, .. } = probe_sandbox(&stages, Path::new("/run/probe"))
        else {
            panic!("not a sandbox");
        };
        assert_eq!(policy.writable, [PathBuf::from("/run/probe")]);
        assert_eq!(
            policy.read_only,
            ["/usr", "/store", "/run"].map(PathBuf::from)
        );
        assert_eq!(policy.home, PathBuf::from("/run/probe/home"));
        assert!(!policy.network);
        assert_eq!(
            probe_sandbox(&Sandbox::None, Path::new("/x")),
            Sandbox::None
        );
    }
}
