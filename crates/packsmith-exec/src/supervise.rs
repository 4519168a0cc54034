//! A long command whose output goes to files as it runs (a benchmark pair
//! running packsmith itself): started in a process group of its own, ended
//! with every process it started (groups of their own included) at its
//! timeout or on the one Ctrl-C.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::{cancel_flag, CommandSpec, ExecError};

/// How a supervised command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Supervised {
    /// Exit code; None when killed by a signal.
    pub code: Option<i32>,
    pub duration: Duration,
    pub timed_out: bool,
    /// Stopped because the user cancelled (see [`crate::cancel_all`]).
    pub cancelled: bool,
}

/// Runs `spec` with stdout and stderr written to the given files, calls
/// `started` with its pid (to record it for a later [`stop_tree`] by a
/// runner that replaces this one), and waits for the end, the timeout or
/// cancellation. Whatever is left in its group is killed on the way out.
pub fn run_to_files(
    spec: &CommandSpec,
    stdout: File,
    stderr: File,
    started: &mut dyn FnMut(u32),
) -> Result<Supervised, ExecError> {
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    crate::command::apply_environment(&mut cmd, spec);
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|source| ExecError::Spawn {
        command: spec.display(),
        source,
    })?;
    started(child.id());
    let pgid = rustix::process::Pid::from_child(&child);
    let (mut timed_out, mut cancelled) = (false, false);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        timed_out = start.elapsed() >= spec.timeout;
        cancelled = cancel_flag().load(Ordering::SeqCst)
            || spec.cancel.as_ref().is_some_and(|c| c.is_cancelled());
        if timed_out || cancelled {
            stop_tree(child.id());
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    Ok(Supervised {
        code: status.and_then(|s| s.code()),
        duration: start.elapsed(),
        timed_out,
        cancelled,
    })
}

/// Ends the process group led by `pid` and every descendant's group (tools
/// that start groups of their own), found through /proc before anything
/// is killed.
pub fn stop_tree(pid: u32) {
    let Some(pgid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return;
    };
    // Frozen first, so that nothing of the group forks between the scan
    // and the kill (the bench's kill soak caught a grandchild started then).
    let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::STOP);
    let mut tree = descendants(pid);
    tree.push(pid);
    let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    for p in tree {
        if let Some(p) = i32::try_from(p)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
            let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
        }
    }
}

/// Every live descendant of `root`, from the parent pids in /proc.
fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state ppid …`; comm may hold spaces and parens.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &std::path::Path) -> (File, File) {
        (
            File::create(dir.join("out.log")).unwrap(),
            File::create(dir.join("err.log")).unwrap(),
        )
    }

    #[test]
    fn output_goes_to_the_files_and_the_pid_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let (out, err) = files(dir.path());
        let mut pid = 0;
        let spec = CommandSpec::new("sh").args(["-c", "echo to-out; echo to-err >&2; exit 3"]);
        let r = run_to_files(&spec, out, err, &mut |p| pid = p).unwrap();
        assert_eq!(r.code, Some(3));
        assert!(!r.timed_out && !r.cancelled);
        assert!(pid > 0);
        let read = |n: &str| std::fs::read_to_string(dir.path().join(n)).unwrap();
        assert_eq!(read("out.log"), "to-out\n");
        assert_eq!(read("err.log"), "to-err\n");
    }

    /// A timed-out command's grandchild in a session of its own dies too.
    #[test]
    fn a_timeout_ends_the_whole_tree() {
        let dir = tempfile::tempdir().unwrap();
        let (out, err) = files(dir.path());
        let marker = dir.path().join("grandchild.pid");
        let script = format!(
            "setsid sh -c 'echo $$ > {}; sleep 60' & sleep 60",
            marker.display()
        );
        let spec = CommandSpec::new("sh")
            .args(["-c", &script])
            .timeout(Duration::from_secs(1));
        let r = run_to_files(&spec, out, err, &mut |_| {}).unwrap();
        assert!(r.timed_out);
        assert!(r.duration < Duration::from_secs(30));
        let grandchild: i32 = std::fs::read_to_string(&marker)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // Reaped by init shortly after the kill; gone or a zombie.
        std::thread::sleep(Duration::from_millis(300));
        let state = std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap_or_default();
        let alive = state
            .rfind(')')
            .map(|i| state[i + 1..].split_whitespace().next() != Some("Z"))
            .unwrap_or(false);
        assert!(!alive, "grandchild {grandchild} still running: {state}");
    }
}
