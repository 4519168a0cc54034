//! The bubblewrap mechanism: a [`SandboxPolicy`] becomes bwrap's
//! arguments, and a command becomes the command line that runs it inside
//! (under `prlimit` for the resource limits, and entering a pids cgroup
//! before bwrap starts when one is given).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{PidsCgroup, SandboxPolicy};
use crate::CommandSpec;

/// The bubblewrap arguments for `policy`, up to and including `--`.
pub fn bwrap_args(policy: &SandboxPolicy, cwd: Option<&Path>) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
    push(&[
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--new-session",
    ]);
    if !policy.network {
        push(&["--unshare-net"]);
    }
    if policy.host_visible {
        push(&["--ro-bind", "/", "/"]);
    }
    push(&["--dev", "/dev", "--proc", "/proc"]);
    if let Some(size) = policy.tmp_size {
        a.push("--size".into());
        a.push(size.to_string().into());
    }
    a.extend(["--tmpfs", "/tmp"].map(OsString::from));
    a.extend(["--tmpfs", "/dev/shm"].map(OsString::from));
    let dir_args = |flag: &str, dirs: &[PathBuf], a: &mut Vec<OsString>| {
        // A missing writable directory is an error bwrap reports (fail
        // closed); a missing hidden or read-only one needs nothing.
        for d in dirs.iter().filter(|d| flag == "--bind" || d.exists()) {
            a.push(flag.into());
            if flag != "--tmpfs" {
                a.push(d.into());
            }
            a.push(d.into());
        }
    };
    dir_args("--tmpfs", &policy.hidden, &mut a);
    dir_args("--ro-bind", &policy.read_only, &mut a);
    for m in &policy.mounts {
        a.push("--ro-bind".into());
        a.push((&m.source).into());
        a.push((&m.dest).into());
    }
    dir_args("--bind", &policy.writable, &mut a);
    for (key, value) in &policy.env {
        a.extend(["--setenv", key, value].map(OsString::from));
    }
    if let Some(cwd) = cwd {
        a.push("--chdir".into());
        a.push(cwd.into());
    }
    a.push("--".into());
    a
}

/// The program and arguments that run `spec` inside bubblewrap with
/// `policy`: `bwrap ARGS -- [prlimit LIMITS --] PROGRAM ARGS`, started by
/// `sh` from inside the cgroup when `pids` is given.
pub(super) fn command_line(
    bwrap: &Path,
    prlimit: Option<&Path>,
    policy: &SandboxPolicy,
    spec: &CommandSpec,
    pids: Option<&PidsCgroup>,
) -> (OsString, Vec<OsString>) {
    let mut inner: Vec<OsString> = Vec::new();
    if let Some(prlimit) = prlimit {
        let mut limits = Vec::new();
        if let Some(n) = policy.max_processes {
            limits.push(format!("--nproc={n}"));
        }
        if let Some(n) = policy.max_file_size {
            limits.push(format!("--fsize={n}"));
        }
        if !limits.is_empty() {
            inner.push(prlimit.into());
            inner.extend(limits.into_iter().map(OsString::from));
            inner.push("--".into());
        }
    }
    inner.push(spec.program.clone());
    inner.extend(spec.args.iter().cloned());
    let mut args = bwrap_args(policy, spec.cwd.as_deref());
    args.extend(inner);
    match pids {
        Some(cg) => {
            // The launcher writes its own pid into the cgroup, then becomes
            // bwrap: everything the command starts is counted from the first.
            let mut outer: Vec<OsString> = vec![
                "-c".into(),
                "echo $$ > \"$0\" && exec \"$@\"".into(),
                cg.procs_file().into(),
                bwrap.into(),
            ];
            outer.extend(args);
            (OsString::from("sh"), outer)
        }
        None => (bwrap.as_os_str().to_owned(), args),
    }
}
