//! The sandbox policy of Spack stages: what a `spack` command may see and
//! write. The mechanism that turns it into a bubblewrap command line (and
//! the pids cgroup, and the probe) is `packsmith_exec::sandbox`, shared
//! with Nix's runtime check and `packsmith doctor`.

use std::path::{Path, PathBuf};

use packsmith_exec::sandbox::SandboxPolicy;

/// [`SandboxPolicy::for_spack`]: the policy lives with the backend that
/// wants it, the mechanism in packsmith-exec.
pub trait SpackSandboxPolicy {
    /// The default for Spack stages: the host read-only, `writable` and
    /// `read_only` bound, no network, 2 GiB `/tmp`, 4096 processes, 8 GiB
    /// per file; the host home hidden; `home` the child's `$HOME`.
    fn for_spack(writable: Vec<PathBuf>, read_only: Vec<PathBuf>, home: PathBuf) -> Self;
}

impl SpackSandboxPolicy for SandboxPolicy {
    fn for_spack(writable: Vec<PathBuf>, read_only: Vec<PathBuf>, home: PathBuf) -> Self {
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
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use packsmith_exec::sandbox::Sandbox;
    use packsmith_exec::CommandSpec;

    use super::*;

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
}
