//! What a sandboxed command may see and do, as plain data: which paths are
//! visible, which are writable, which are hidden, whether there is a
//! network, the resource limits and the variables set inside. How a policy
//! becomes a command line is [`super::bwrap`]'s job; which policy a backend
//! wants is the backend's (Spack's `for_spack`, Nix's runtime check).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxPolicy {
    /// The host's whole file system visible read-only (`--ro-bind / /`);
    /// false: only `read_only` and `mounts` are (a program's closure).
    #[serde(default = "visible")]
    pub host_visible: bool,
    /// Bound read-write (the run directory, a build stage, caches).
    pub writable: Vec<PathBuf>,
    /// Bound read-only after `hidden` is applied; a missing one is skipped.
    pub read_only: Vec<PathBuf>,
    /// Bound read-only at another place inside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mounts: Vec<Mount>,
    /// Covered by an empty tmpfs (the host's home directory).
    pub hidden: Vec<PathBuf>,
    /// The child's `$HOME`; the probe creates it, so it must lie inside a
    /// writable path or the sandbox's own `/tmp`.
    pub home: PathBuf,
    /// False: `--unshare-net` (no interface but loopback).
    pub network: bool,
    /// Size of the `/tmp` tmpfs in bytes.
    pub tmp_size: Option<u64>,
    /// `RLIMIT_NPROC` inside, and `pids.max` of a cgroup when available.
    pub max_processes: Option<u64>,
    /// `RLIMIT_FSIZE`: the largest file a command may write, in bytes.
    pub max_file_size: Option<u64>,
    /// Variables set inside the sandbox only (`--setenv`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// A read-only bind of `source` (on the host) at `dest` (inside).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mount {
    pub source: PathBuf,
    pub dest: PathBuf,
}

fn visible() -> bool {
    true
}

impl Default for SandboxPolicy {
    /// The host read-only, nothing writable, no network, `$HOME` in the
    /// sandbox's own `/tmp`, no limits: enough to see whether bubblewrap
    /// starts at all (`packsmith doctor`).
    fn default() -> Self {
        Self {
            host_visible: true,
            writable: Vec::new(),
            read_only: Vec::new(),
            mounts: Vec::new(),
            hidden: Vec::new(),
            home: PathBuf::from("/tmp"),
            network: false,
            tmp_size: None,
            max_processes: None,
            max_file_size: None,
            env: BTreeMap::new(),
        }
    }
}
