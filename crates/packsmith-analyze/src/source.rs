//! Where the repository comes from: a local path, read in place, or a git
//! URL, cloned once into the user cache and reused.

use crate::error::AnalyzeError;
/// An earlier release of a checkout, for `packsmith update`: the tag that
/// names a version, and its tree exported without touching the checkout.
pub use crate::git::export_tag;
pub use crate::versions::tag_for_version;
use packsmith_core::SourceInfo;
use packsmith_exec::{run, run_watched, CommandSpec, Output};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a clone or fetch may go without writing a byte before it is
/// taken as stalled and stopped: git redraws its progress at least once a
/// second while data moves, so a minute of silence is a dead connection.
pub const STALL_TIMEOUT: Duration = Duration::from_secs(60);

/// At most one relayed git progress line per this long: a status, not a
/// stream.
const RELAY_EVERY: Duration = Duration::from_secs(5);

/// True when `given` should be treated as a git URL rather than a path.
pub fn is_git_url(given: &str) -> bool {
    ["https://", "http://", "git://", "ssh://", "file://", "git@"]
        .iter()
        .any(|p| given.starts_with(p))
}

/// Resolves `given` to a directory to analyse. URLs are cloned into
/// `<cache>/repos/<name>-<hash>`; a clone already there is reused (and its
/// tags refreshed when the network allows). `progress` gets a line for the
/// user when git starts, and now and then while it works. Ctrl-C (the
/// process-wide cancel flag) kills git and ends in
/// [`AnalyzeError::Interrupted`], the partial clone removed.
pub fn resolve(
    given: &str,
    cache: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<(PathBuf, SourceInfo), AnalyzeError> {
    if !is_git_url(given) {
        let path = PathBuf::from(given);
        if !path.exists() {
            return Err(AnalyzeError::NotFound { path });
        }
        return Ok((
            path,
            SourceInfo {
                kind: "path".into(),
                given: given.into(),
                release_tag: None,
            },
        ));
    }
    let dest = clone_dir(given, cache);
    if dest.join(".git").exists() {
        refresh_tags(given, &dest, progress)?;
    } else {
        clone(given, &dest, STALL_TIMEOUT, progress)?;
    }
    let release_tag = check_out_newest_release(&dest);
    Ok((
        dest,
        SourceInfo {
            kind: "git".into(),
            given: given.into(),
            release_tag,
        },
    ))
}

/// Puts a clone packsmith owns at its newest release tag (detached), as a
/// packager packages a release and not the default branch's head; the
/// release's archive is then the forge's own (see packsmith-spack's
/// `validate::upstream`). Without a release tag the clone stays as it is.
fn check_out_newest_release(dest: &Path) -> Option<String> {
    let probe = crate::versions::probe_git(dest).join().ok()?;
    let tag = crate::versions::from_git(probe, None).latest_tag?.tag;
    let out = run(&git(&["-C"])
        .arg(dest)
        .args(["checkout", "--quiet", "--detach"])
        .arg(format!("refs/tags/{tag}")))
    .ok()?;
    out.success().then_some(tag)
}

/// Clones and fetches may move a lot of data: a long timeout.
fn git(first: &[&str]) -> CommandSpec {
    crate::git::command(first, Duration::from_secs(900))
}

/// `<cache>/repos/<last path component>-<8 hex of the URL's hash>`.
fn clone_dir(url: &str, cache: &Path) -> PathBuf {
    let digest = Sha256::digest(url.as_bytes());
    let short: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let name: String = url
        .trim_end_matches('/')
        .trim_end_matches(".git")
        .rsplit(['/', ':'])
        .next()
        .unwrap_or("repo")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    cache.join("repos").join(format!("{name}-{short}"))
}

/// Fetches the tags of a clone in the cache. Best effort: offline users
/// still get the clone they have; only Ctrl-C is an error.
fn refresh_tags(
    url: &str,
    dest: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<(), AnalyzeError> {
    progress(&format!("updating the cached clone of {url} …"));
    let spec = git(&["-C"])
        .arg(dest)
        .args(["fetch", "--progress", "--tags"])
        .stall_timeout(STALL_TIMEOUT);
    match watched(&spec, progress) {
        Ok(out) if out.cancelled => Err(AnalyzeError::Interrupted { url: url.into() }),
        _ => Ok(()),
    }
}

/// Checks out `paths`, submodules of a clone packsmith made, at the
/// commits the clone pins (shallow): the files a recipe with
/// `submodules=True` fetches. Returns why not, in a few words, when git
/// fails; a user's own checkout is never written (call this on clones in
/// the cache only).
pub fn fetch_submodules(
    clone: &Path,
    paths: &[String],
    progress: &mut dyn FnMut(&str),
) -> Result<(), String> {
    progress(&format!(
        "fetching the git submodule(s) the build needs: {} …",
        paths.join(", ")
    ));
    // Shallow first; a server that will not send a commit that is no
    // branch's tip by itself gets the whole history.
    let mut why = String::new();
    for depth in [&["--depth", "1"][..], &[]] {
        let spec = git(&["-C"])
            .arg(clone)
            .args(["submodule", "update", "--init", "--recursive"])
            .args(depth.iter().copied())
            .arg("--")
            .args(paths.iter().map(String::as_str))
            .stall_timeout(STALL_TIMEOUT);
        match watched(&spec, progress) {
            Ok(out) if out.success() => return Ok(()),
            Ok(out) if out.cancelled => return Err("interrupted".into()),
            Ok(out) => why = failure_reason(&out, STALL_TIMEOUT),
            Err(e) => why = e.to_string(),
        }
    }
    Err(why)
}

/// Clones into a temporary sibling, then renames, so an interrupted clone
/// never looks like a finished one. Every way out but the rename leaves
/// the sibling to `tmp`'s drop, which removes it: git is dead by then.
fn clone(
    url: &str,
    dest: &Path,
    stall: Duration,
    progress: &mut dyn FnMut(&str),
) -> Result<(), AnalyzeError> {
    clone_repo(url, dest, stall, &[], progress)
}

/// [`clone`] with extra `git clone` flags (`--depth 1`): for any command
/// that clones (`setup spack` clones Spack), with the same progress, stall
/// timeout and Ctrl-C clean-up.
pub fn clone_repo(
    url: &str,
    dest: &Path,
    stall: Duration,
    flags: &[&str],
    progress: &mut dyn FnMut(&str),
) -> Result<(), AnalyzeError> {
    let fail = |reason: String| AnalyzeError::Clone {
        url: url.to_string(),
        reason,
    };
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
    let tmp = tempfile::Builder::new()
        .prefix(".clone-")
        .tempdir_in(parent)
        .map_err(|e| {
            fail(format!(
                "cannot create a directory in {}: {e}",
                parent.display()
            ))
        })?;
    progress(&format!("cloning {url} into the cache …"));
    let spec = git(&["clone", "--progress", "--no-recurse-submodules"])
        .args(flags.iter().copied())
        .arg(url)
        .arg(tmp.path().join("repo"))
        .stall_timeout(stall);
    let out = watched(&spec, progress).map_err(|e| fail(e.to_string()))?;
    if out.cancelled {
        return Err(AnalyzeError::Interrupted { url: url.into() });
    }
    if !out.success() {
        return Err(fail(failure_reason(&out, stall)));
    }
    std::fs::rename(tmp.path().join("repo"), dest)
        .map_err(|e| fail(format!("cannot move the clone to {}: {e}", dest.display())))?;
    Ok(())
}

/// Why a git command that ran did not succeed, in a few words.
fn failure_reason(out: &Output, stall: Duration) -> String {
    if out.stalled {
        return format!(
            "git made no progress for {} s, so it was stopped",
            stall.as_secs_f64()
        );
    }
    if out.timed_out {
        return "git clone timed out".to_string();
    }
    out.stderr
        .split(['\n', '\r'])
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .unwrap_or("git clone failed")
        .to_string()
}

/// Runs a git command that reports `--progress`, relaying one of its
/// progress lines to `progress` now and then.
fn watched(
    spec: &CommandSpec,
    progress: &mut dyn FnMut(&str),
) -> Result<Output, packsmith_exec::ExecError> {
    let mut relay = Relay::new(Instant::now());
    run_watched(spec, &mut |line| {
        if let Some(status) = relay.offer(line, Instant::now()) {
            progress(&status);
        }
    })
}

/// Picks the git progress lines worth a line of the user's: a meter
/// (`Receiving objects:  45% (…)`), at most one per [`RELAY_EVERY`], the
/// first after one such wait (a quick clone shows none). git's other
/// lines name the temporary directory or repeat the final error.
struct Relay {
    last: Instant,
}

impl Relay {
    fn new(now: Instant) -> Self {
        Self { last: now }
    }

    fn offer(&mut self, line: &str, now: Instant) -> Option<String> {
        if !line.contains('%') || now.duration_since(self.last) < RELAY_EVERY {
            return None;
        }
        self.last = now;
        Some(format!("  git: {line}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_in(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
            .args(["-c", "init.defaultBranch=main", "-c", "tag.gpgSign=false"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A URL's clone is analysed at its newest release, not at the default
    /// branch's head, and says so.
    #[test]
    fn a_cloned_url_is_put_at_its_newest_release_tag() {
        let upstream = tempfile::tempdir().unwrap();
        let up = upstream.path();
        git_in(up, &["init", "-q"]);
        std::fs::write(up.join("CMakeLists.txt"), "project(demo VERSION 1.0)\n").unwrap();
        git_in(up, &["add", "."]);
        git_in(up, &["commit", "-qm", "1.0"]);
        git_in(up, &["tag", "v1.0"]);
        std::fs::write(up.join("CMakeLists.txt"), "project(demo VERSION 1.1)\n").unwrap();
        git_in(up, &["commit", "-qam", "unreleased"]);
        let cache = tempfile::tempdir().unwrap();
        let url = format!("file://{}", up.display());
        let (dir, info) = resolve(&url, cache.path(), &mut |_| {}).unwrap();
        assert_eq!(info.release_tag.as_deref(), Some("v1.0"));
        let text = std::fs::read_to_string(dir.join("CMakeLists.txt")).unwrap();
        assert!(text.contains("VERSION 1.0"), "{text}");
        // Reused from the cache: still at the release.
        let (_, again) = resolve(&url, cache.path(), &mut |_| {}).unwrap();
        assert_eq!(again.release_tag.as_deref(), Some("v1.0"));
    }

    /// `git daemon` serving the repositories under a directory on
    /// loopback (git:// is a protocol submodules may use, unlike local
    /// paths); killed on drop.
    struct GitDaemon {
        child: std::process::Child,
        port: u16,
    }

    impl GitDaemon {
        fn serve(root: &Path) -> Self {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            // The daemon itself, not `git daemon` (whose git would stay
            // as a parent, and a kill would orphan the daemon).
            let exec_path = std::process::Command::new("git")
                .arg("--exec-path")
                .output()
                .unwrap();
            let exec_path = String::from_utf8(exec_path.stdout).unwrap();
            let child = std::process::Command::new(Path::new(exec_path.trim()).join("git-daemon"))
                .args(["--reuseaddr", "--export-all", "--listen=127.0.0.1"])
                .arg(format!("--port={port}"))
                .arg(format!("--base-path={}", root.display()))
                .arg(root)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            for _ in 0..100 {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Self { child, port }
        }
    }

    impl Drop for GitDaemon {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// A clone's required submodule is checked out at the commit the clone
    /// pins, not at its remote's newest; a path that is no submodule is an
    /// error that says why.
    #[test]
    fn a_clones_submodules_are_fetched_at_their_pinned_commit() {
        let root = tempfile::tempdir().unwrap();
        let vend = root.path().join("vend");
        std::fs::create_dir_all(&vend).unwrap();
        git_in(&vend, &["init", "-q"]);
        std::fs::write(vend.join("vend.c"), "int v1;\n").unwrap();
        git_in(&vend, &["add", "."]);
        git_in(&vend, &["commit", "-qm", "v1"]);
        let daemon = GitDaemon::serve(root.path());
        let up = root.path().join("up");
        std::fs::create_dir_all(&up).unwrap();
        git_in(&up, &["init", "-q"]);
        let vend_url = format!("git://127.0.0.1:{}/vend", daemon.port);
        git_in(&up, &["submodule", "add", "-q", &vend_url, "ext/vend"]);
        git_in(&up, &["commit", "-qm", "1.0"]);
        git_in(&up, &["tag", "v1.0"]);
        // The submodule's remote moves on; the clone keeps its pin.
        std::fs::write(vend.join("vend.c"), "int v2;\n").unwrap();
        git_in(&vend, &["commit", "-qam", "v2"]);
        let cache = tempfile::tempdir().unwrap();
        let url = format!("file://{}", up.display());
        let (dir, _) = resolve(&url, cache.path(), &mut |_| {}).unwrap();
        assert!(!dir.join("ext/vend/vend.c").exists());
        let mut lines = Vec::new();
        fetch_submodules(&dir, &["ext/vend".to_string()], &mut |l| {
            lines.push(l.to_string())
        })
        .unwrap();
        let text = std::fs::read_to_string(dir.join("ext/vend/vend.c")).unwrap();
        assert_eq!(text, "int v1;\n");
        assert!(lines[0].contains("ext/vend"), "{lines:?}");
        let why = fetch_submodules(&dir, &["no/such".to_string()], &mut |_| {}).unwrap_err();
        assert!(why.contains("no/such"), "{why}");
    }

    /// A `git://` server on loopback that accepts and never answers, as a
    /// dead remote does; its URL.
    fn silent_git_server() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let held: Vec<_> = listener.incoming().collect();
            drop(held);
        });
        format!("git://127.0.0.1:{port}/x.git")
    }

    /// Whether a live process has `needle` in its command line.
    fn process_running_with(needle: &str) -> bool {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return false;
        };
        entries.filter_map(Result::ok).any(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rfind(')')
                .is_some_and(|i| stat[i + 1..].trim_start().starts_with('Z'));
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            !zombie && String::from_utf8_lossy(&cmdline).contains(needle)
        })
    }

    /// A clone from a remote that never answers is stopped after the stall
    /// timeout, says so, and leaves neither git nor a partial clone.
    #[test]
    fn a_stalled_clone_is_stopped_and_leaves_nothing() {
        let url = silent_git_server();
        let cache = tempfile::tempdir().unwrap();
        let dest = clone_dir(&url, cache.path());
        let mut lines = Vec::new();
        let start = Instant::now();
        let stall = Duration::from_millis(1500);
        let err = clone(&url, &dest, stall, &mut |l| lines.push(l.to_string())).unwrap_err();
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{:?}",
            start.elapsed()
        );
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("could not clone {url}: ")),
            "{text}"
        );
        assert!(text.contains("made no progress for 1.5 s"), "{text}");
        assert_eq!(
            lines.first(),
            Some(&format!("cloning {url} into the cache …"))
        );
        assert!(!dest.exists());
        let left: Vec<_> = std::fs::read_dir(cache.path().join("repos"))
            .unwrap()
            .collect();
        assert!(left.is_empty(), "{left:?}");
        assert!(!process_running_with(&url), "git outlived the clone");
    }

    #[test]
    fn git_progress_is_relayed_as_a_meter_every_few_seconds() {
        let start = Instant::now();
        let mut relay = Relay::new(start);
        let meter = "Receiving objects:  45% (450/1000)";
        assert_eq!(relay.offer(meter, start + Duration::from_secs(1)), None);
        let later = start + RELAY_EVERY;
        assert_eq!(
            relay.offer("Cloning into '/c/.clone-x/repo'...", later),
            None
        );
        assert_eq!(relay.offer(meter, later), Some(format!("  git: {meter}")));
        assert_eq!(relay.offer(meter, later + Duration::from_secs(1)), None);
        assert!(relay.offer(meter, later + RELAY_EVERY).is_some());
    }

    #[test]
    fn urls_and_paths_are_told_apart() {
        assert!(is_git_url("https://github.com/LLNL/zfp"));
        assert!(is_git_url("git@github.com:LLNL/zfp.git"));
        assert!(is_git_url("file:///srv/git/zfp.git"));
        assert!(!is_git_url("./zfp"));
        assert!(!is_git_url("/home/u/src/zfp"));
    }

    #[test]
    fn clone_dirs_are_stable_and_distinct() {
        let cache = Path::new("/c");
        let a = clone_dir("https://github.com/LLNL/zfp.git", cache);
        assert_eq!(a, clone_dir("https://github.com/LLNL/zfp.git", cache));
        assert!(a.to_string_lossy().starts_with("/c/repos/zfp-"));
        assert_ne!(a, clone_dir("https://gitlab.com/other/zfp", cache));
    }
}
