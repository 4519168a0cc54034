//! The one sandbox every backend uses: a [`SandboxPolicy`] (what is
//! visible, writable, networked) turned into a bubblewrap command line by
//! [`Sandbox::wrap`], or the command as is when the user chose
//! `--no-sandbox`.
//!
//! The system is read-only (or, for a program's closure, absent), only the
//! listed directories are writable, hidden directories are covered by an
//! empty tmpfs, the child gets its own `$HOME`, and there is no network
//! unless the policy grants it. Process count and file size are capped with
//! `prlimit` inside the sandbox and, where a pids cgroup is available, by
//! the cgroup ([`PidsCgroup`]: root ignores `RLIMIT_NPROC`). Which policy a
//! backend wants lives in the backend.

mod bwrap;
mod pids;
mod policy;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::CommandSpec;

pub use bwrap::bwrap_args;
pub use pids::PidsCgroup;
pub use policy::{Mount, SandboxPolicy};

/// Why the sandbox cannot be used. The text keeps its hint: callers (and
/// tests) read it whole.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "the bubblewrap sandbox cannot start: {detail}\nhint: install bubblewrap and allow \
         unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1), or run with \
         --no-sandbox on a machine you trust to build untrusted recipes"
    )]
    Unavailable { detail: String },
    #[error("cannot create {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// How commands are run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
// One value per run: its size does not matter, and an unboxed policy keeps
// struct literals (tests) plain.
#[allow(clippy::large_enum_variant)]
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
    /// A bubblewrap sandbox with `policy`, checked by [`Sandbox::probe`],
    /// or the clear error when `bwrap` is missing or cannot start (no user
    /// namespaces). `no_sandbox` returns [`Sandbox::None`] without checking
    /// anything.
    pub fn new(policy: SandboxPolicy, no_sandbox: bool) -> Result<Self, SandboxError> {
        if no_sandbox {
            return Ok(Self::None);
        }
        let sandbox = Self::bubblewrap(policy)?;
        sandbox.probe()?;
        Ok(sandbox)
    }

    /// A bubblewrap sandbox with `policy` without the probe: for policies
    /// under which `true` is not visible (a program's closure only).
    pub fn bubblewrap(policy: SandboxPolicy) -> Result<Self, SandboxError> {
        let bwrap = on_path("bwrap").ok_or_else(|| SandboxError::Unavailable {
            detail: "`bwrap` is not on PATH".into(),
        })?;
        Ok(Self::Bubblewrap {
            bwrap,
            prlimit: on_path("prlimit"),
            policy,
        })
    }

    /// Starts `true` in the sandbox; an error says why it cannot start.
    pub fn probe(&self) -> Result<(), SandboxError> {
        if let Self::Bubblewrap { policy, .. } = self {
            std::fs::create_dir_all(&policy.home).map_err(|source| SandboxError::Io {
                path: policy.home.clone(),
                source,
            })?;
        }
        let spec = self.wrap(CommandSpec::new("true").timeout(Duration::from_secs(30)));
        let out = crate::run(&spec).map_err(|e| SandboxError::Unavailable {
            detail: e.to_string(),
        })?;
        if out.success() {
            Ok(())
        } else {
            Err(SandboxError::Unavailable {
                detail: format!("`{}` failed: {}", spec.display(), out.stderr.trim()),
            })
        }
    }

    pub fn is_sandboxed(&self) -> bool {
        matches!(self, Self::Bubblewrap { .. })
    }

    /// The bubblewrap arguments for `policy`, up to and including `--`.
    pub fn bwrap_args(policy: &SandboxPolicy, cwd: Option<&Path>) -> Vec<OsString> {
        bwrap_args(policy, cwd)
    }

    /// Turns `spec` into the command that runs it inside the sandbox (same
    /// cwd, timeouts, cancellation, output cap and environment, plus
    /// `HOME`, `TMPDIR=/tmp` and `PACKSMITH_SANDBOX=1`). With `pids`, the
    /// sandbox starts inside that cgroup.
    pub fn wrap_with(&self, spec: CommandSpec, pids: Option<&PidsCgroup>) -> CommandSpec {
        let Self::Bubblewrap {
            bwrap,
            prlimit,
            policy,
        } = self
        else {
            return spec;
        };
        let (program, args) = bwrap::command_line(bwrap, prlimit.as_deref(), policy, &spec, pids);
        let mut wrapped = CommandSpec::new(program);
        wrapped.args = args;
        wrapped.cwd = spec.cwd;
        wrapped.env = spec.env;
        wrapped.timeout = spec.timeout;
        wrapped.stall_timeout = spec.stall_timeout;
        wrapped.cancel = spec.cancel;
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
mod tests;
