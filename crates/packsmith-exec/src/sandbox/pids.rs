//! A pids cgroup that caps how many processes one sandboxed command may
//! have. `RLIMIT_NPROC` is ignored for root (and counts all of a user's
//! processes otherwise), so where a writable pids controller exists this is
//! the real fork-bomb guard. Removed on drop.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Where a pids controller may be mounted: cgroup v1, then v2.
const ROOTS: &[&str] = &["/sys/fs/cgroup/pids", "/sys/fs/cgroup"];

#[derive(Debug)]
pub struct PidsCgroup {
    dir: PathBuf,
}

impl PidsCgroup {
    /// Creates a cgroup allowing `max` processes, or None when no writable
    /// pids controller exists (the sandbox then relies on `RLIMIT_NPROC`
    /// and the stage timeout).
    pub fn create(max: u64) -> Option<Self> {
        for root in ROOTS.iter().map(Path::new) {
            let name = format!(
                "packsmith-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            );
            let dir = root.join(name);
            if !root.join("cgroup.procs").exists() || std::fs::create_dir(&dir).is_err() {
                continue;
            }
            let cg = Self { dir };
            if std::fs::write(cg.dir.join("pids.max"), max.to_string()).is_ok() {
                return Some(cg);
            }
            // Dropped here: the directory is removed.
        }
        None
    }

    /// A handle on an existing cgroup directory, for tests of the command
    /// line (nothing is created).
    #[cfg(test)]
    pub(crate) fn at(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The file the sandbox launcher writes its pid into.
    pub fn procs_file(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// How often a fork was refused because the limit was reached.
    pub fn limit_hits(&self) -> u64 {
        std::fs::read_to_string(self.dir.join("pids.events"))
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("max ").map(|n| n.trim().parse().ok()))
                    .flatten()
            })
            .unwrap_or(0)
    }
}

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        // Processes may take a moment to be reaped after the kill.
        for _ in 0..50 {
            match std::fs::remove_dir(&self.dir) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {}
                _ => return,
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
