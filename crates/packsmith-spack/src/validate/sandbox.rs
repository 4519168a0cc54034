//! Sandbox policy → the concrete command: bubblewrap on Linux, or the
//! command as is when the user chose `--no-sandbox`.
//!
//! The policy is data; [`Sandbox::wrap`] is the mechanism. The system is
//! read-only, only the listed directories are writable, the host home is
//! hidden behind an empty tmpfs, the child gets a private `$HOME`, and
//! there is no network unless the policy grants it. Process count and file
//! size are capped with `prlimit` inside the sandbox (and, where a pids
//! cgroup is available, by the cgroup: root ignores `RLIMIT_NPROC`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::CommandSpec;
use serde::{Deserialize, Serialize};

use super::{PidsCgroup, ValidateError};

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxPolicy {
    /// Bound read-write (the run directory, Spack's stage, caches, install tree).
    pub writable: Vec<PathBuf>,
    /// Re-bound read-only after `hidden` is applied (Spack, its config).
    pub read_only: Vec<PathBuf>,
    /// Covered by an empty tmpfs (the host's home directory).
    pub hidden: Vec<PathBuf>,
    /// The child's `$HOME`; created, and must lie inside a writable path.
    pub home: PathBuf,
    /// False: `--unshare-net` (no interface but loopback).
    pub network: bool,
    /// Size of the `/tmp` tmpfs in bytes.
    pub tmp_size: Option<u64>,
    /// `RLIMIT_NPROC` inside, and `pids.max` of a cgroup when available.
    pub max_processes: Option<u64>,
    /// `RLIMIT_FSIZE`: the largest file a command may write, in bytes.
    pub max_file_size: Option<u64>,
}

impl SandboxPolicy {
    /// The default for Spack stages: no network, 2 GiB `/tmp`, 4096
    /// processes, 8 GiB per file; the host home hidden.
    pub fn for_spack(writable: Vec<PathBuf>, read_only: Vec<PathBuf>, home: PathBuf) -> Self {
        let hidden = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h != Path::new("/") && !h.as_os_str().is_empty())
            .into_iter()
            .collect();
        Self {
            writable,
            read_only,
            hidden,
            home,
            network: false,
            tmp_size: Some(2 << 30),
            max_processes: Some(4096),
            max_file_size: Some(8 << 30),
        }
    }
}

/// How commands are run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Sandbox {
    Bubblewrap {
        bwrap: PathBuf,
        /// `prlimit` for the resource limits; None skips them.
        prlimit: Option<PathBuf>,
        policy: SandboxPolicy,
    },
    /// `--no-sandbox`: the command runs directly.
    None,
}

fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

impl Sandbox {
    /// A bubblewrap sandbox with `policy`, or the clear error when `bwrap`
    /// is missing or cannot start (no user namespaces). `no_sandbox`
    /// returns [`Sandbox::None`] without checking anything.
    pub fn new(policy: SandboxPolicy, no_sandbox: bool) -> Result<Self, ValidateError> {
        if no_sandbox {
            return Ok(Self::None);
        }
        let bwrap = on_path("bwrap").ok_or_else(|| ValidateError::SandboxUnavailable {
            detail: "`bwrap` is not on PATH".into(),
        })?;
        let sandbox = Self::Bubblewrap {
            bwrap,
            prlimit: on_path("prlimit"),
            policy,
        };
        sandbox.probe()?;
        Ok(sandbox)
    }

    /// Starts `true` in the sandbox; an error says why it cannot start.
    pub fn probe(&self) -> Result<(), ValidateError> {
        if let Self::Bubblewrap { policy, .. } = self {
            std::fs::create_dir_all(&policy.home)
                .map_err(|e| ValidateError::io("create", &policy.home, e))?;
        }
        let spec = self.wrap(CommandSpec::new("true").timeout(Duration::from_secs(30)));
        let out = packsmith_exec::run(&spec).map_err(|e| ValidateError::SandboxUnavailable {
            detail: e.to_string(),
        })?;
        if out.success() {
            Ok(())
        } else {
            Err(ValidateError::SandboxUnavailable {
                detail: format!("`{}` failed: {}", spec.display(), out.stderr.trim()),
            })
        }
    }

    pub fn is_sandboxed(&self) -> bool {
        matches!(self, Self::Bubblewrap { .. })
    }

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
        push(&["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
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
        dir_args("--bind", &policy.writable, &mut a);
        if let Some(cwd) = cwd {
            a.push("--chdir".into());
            a.push(cwd.into());
        }
        a.push("--".into());
        a
    }

    /// Turns `spec` into the command that runs it inside the sandbox (same
    /// timeout, output cap and environment, plus `HOME` and
    /// `PACKSMITH_SANDBOX=1`). With `pids`, the sandbox starts inside that
    /// cgroup.
    pub fn wrap_with(&self, spec: CommandSpec, pids: Option<&PidsCgroup>) -> CommandSpec {
        let Self::Bubblewrap {
            bwrap,
            prlimit,
            policy,
        } = self
        else {
            return spec;
        };
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
        let mut args = Self::bwrap_args(policy, spec.cwd.as_deref());
        args.extend(inner);
        let (program, args) = match pids {
            Some(cg) => {
                let mut outer: Vec<OsString> = vec![
                    "-c".into(),
                    "echo $$ > \"$0\" && exec \"$@\"".into(),
                    cg.procs_file().into(),
                    bwrap.into(),
                ];
                outer.extend(args);
                (OsString::from("sh"), outer)
            }
            None => (bwrap.clone().into_os_string(), args),
        };
        let mut wrapped = CommandSpec::new(program);
        wrapped.args = args;
        wrapped.cwd = spec.cwd.clone();
        wrapped.env = spec.env.clone();
        wrapped.timeout = spec.timeout;
        wrapped.max_output = spec.max_output;
        wrapped
            .env("HOME", &policy.home)
            .env("TMPDIR", "/tmp")
            .env("PACKSMITH_SANDBOX", "1")
    }

    /// [`Sandbox::wrap_with`] without a cgroup.
    pub fn wrap(&self, spec: CommandSpec) -> CommandSpec {
        self.wrap_with(spec, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> SandboxPolicy {
        SandboxPolicy {
            writable: vec!["/".into()],
            read_only: vec![],
            hidden: vec![],
            home: "/tmp/h".into(),
            network: false,
            tmp_size: Some(1024),
            max_processes: Some(10),
            max_file_size: Some(99),
        }
    }

    #[test]
    fn argv_has_the_isolation_flags_in_order() {
        let args = Sandbox::bwrap_args(&policy(), Some(Path::new("/")));
        let text: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let joined = text.join(" ");
        assert!(
            joined.starts_with("--unshare-user --unshare-pid"),
            "{joined}"
        );
        assert!(joined.contains("--unshare-net --ro-bind / /"), "{joined}");
        assert!(joined.contains("--size 1024 --tmpfs /tmp"), "{joined}");
        assert!(joined.contains("--bind / /"), "{joined}");
        assert!(joined.ends_with("--chdir / --"), "{joined}");
    }

    /// The whole command line for a representative Spack policy, pinned
    /// so that moving the mechanism cannot change what runs.
    #[test]
    fn the_spack_command_line_is_pinned() {
        let mut policy = SandboxPolicy::for_spack(
            vec!["/var/tmp/run".into(), "/var/tmp/stage".into()],
            vec!["/usr".into(), "/packsmith-no-such-dir".into()],
            "/var/tmp/run/home".into(),
        );
        policy.hidden = vec!["/etc".into(), "/packsmith-no-such-home".into()];
        let sb = Sandbox::Bubblewrap {
            bwrap: "/usr/bin/bwrap".into(),
            prlimit: Some("/usr/bin/prlimit".into()),
            policy,
        };
        let spec = sb.wrap(
            CommandSpec::new("spack")
                .args(["-d", "install", "x y"])
                .cwd("/var/tmp/run")
                .env("SPACK_USER_CONFIG_PATH", "/var/tmp/run/cfg")
                .timeout(Duration::from_secs(7)),
        );
        assert_eq!(
            spec.display(),
            "/usr/bin/bwrap --unshare-user --unshare-pid --unshare-ipc --unshare-uts \
             --die-with-parent --new-session --unshare-net --ro-bind / / --dev /dev \
             --proc /proc --size 2147483648 --tmpfs /tmp --tmpfs /dev/shm --tmpfs /etc \
             --ro-bind /usr /usr --bind /var/tmp/run /var/tmp/run \
             --bind /var/tmp/stage /var/tmp/stage --chdir /var/tmp/run -- \
             /usr/bin/prlimit --nproc=4096 --fsize=8589934592 -- spack -d install 'x y'"
        );
        let env: Vec<(String, String)> = spec
            .env
            .iter()
            .map(|(k, v)| (k.to_string_lossy().into(), v.to_string_lossy().into()))
            .collect();
        assert_eq!(
            env,
            [
                ("HOME", "/var/tmp/run/home"),
                ("PACKSMITH_SANDBOX", "1"),
                ("SPACK_USER_CONFIG_PATH", "/var/tmp/run/cfg"),
                ("TMPDIR", "/tmp"),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(spec.cwd.as_deref(), Some(Path::new("/var/tmp/run")));
        assert_eq!(spec.timeout, Duration::from_secs(7));
    }

    #[test]
    fn wrapping_keeps_the_command_and_marks_the_child() {
        let sb = Sandbox::Bubblewrap {
            bwrap: "/usr/bin/bwrap".into(),
            prlimit: Some("/usr/bin/prlimit".into()),
            policy: policy(),
        };
        let spec = sb.wrap(CommandSpec::new("spack").args(["spec", "x"]));
        let shown = spec.display();
        assert!(shown.starts_with("/usr/bin/bwrap "), "{shown}");
        assert!(
            shown.ends_with("-- /usr/bin/prlimit --nproc=10 --fsize=99 -- spack spec x"),
            "{shown}"
        );
        assert_eq!(
            spec.env.get(&OsString::from("PACKSMITH_SANDBOX")),
            Some(&"1".into())
        );
        let direct = Sandbox::None.wrap(CommandSpec::new("spack"));
        assert_eq!(direct.display(), "spack");
    }
}
