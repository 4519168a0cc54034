//! Running external commands with a timeout, capped output and a clean
//! environment.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::CancelToken;

/// Variables passed through from our environment unless a spec overrides them.
/// Secrets (API keys, tokens) are never on this list.
const ENV_ALLOWLIST: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LANG",
    "LC_ALL",
    "TERM",
    "TMPDIR",
    "TZ",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
];

/// A command to run.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    /// Extra variables, set after the allowlist is applied.
    pub env: BTreeMap<OsString, OsString>,
    pub timeout: Duration,
    /// Killed when neither stream has written a byte for this long: a
    /// download that hangs fails in minutes, not at its long timeout.
    pub stall_timeout: Option<Duration>,
    /// Killed when this token is set, as when [`cancel_flag`] is.
    pub cancel: Option<CancelToken>,
    /// Keep at most this many bytes of each stream (the tail is kept).
    pub max_output: usize,
    /// Pass our whole environment on instead of the allowlist: only for a
    /// command that runs packsmith itself elsewhere (Slurm's `sbatch`, whose
    /// array tasks need the model's keys and `SLURM_*`).
    pub inherit_env: bool,
}

impl CommandSpec {
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: BTreeMap::new(),
            timeout: Duration::from_secs(600),
            stall_timeout: None,
            cancel: None,
            max_output: 1024 * 1024,
            inherit_env: false,
        }
    }

    /// See [`CommandSpec::inherit_env`].
    pub fn inherit_environment(mut self) -> Self {
        self.inherit_env = true;
        self
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn stall_timeout(mut self, quiet_for: Duration) -> Self {
        self.stall_timeout = Some(quiet_for);
        self
    }

    pub fn cancel_on(mut self, token: CancelToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// The command line as a user would type it, for logs and errors.
    pub fn display(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| {
                let s = a.to_string_lossy();
                if s.contains(' ') {
                    format!("'{s}'")
                } else {
                    s.into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What a finished command produced.
#[derive(Debug, Clone)]
pub struct Output {
    /// Exit code; None when killed by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
    pub timed_out: bool,
    /// Killed after [`CommandSpec::stall_timeout`] without output.
    pub stalled: bool,
    /// True when either stream was longer than the cap.
    pub truncated: bool,
    /// Killed because the user cancelled (see [`cancel_all`]).
    pub cancelled: bool,
}

impl Output {
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out && !self.stalled && !self.cancelled
    }
}

/// The process-wide cancellation flag: once set, every running command's
/// process group is killed and new commands are killed at once. The
/// binary hands it to its Ctrl-C handler, so a long `spack install` stops
/// within a poll interval instead of running to its timeout.
pub fn cancel_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
        .clone()
}

/// Ctrl-C (or SIGTERM) sets [`cancel_flag`], so running commands' process
/// groups are killed and callers stop at their next step; a second one
/// kills the process group of every command still running, then exits at
/// once with 130 (a step that never looks at the flag cannot leave its
/// command orphaned). Every command that runs builds or downloads installs
/// this one handler, so the runner always sees the flag. Installing it
/// twice is installing it once.
pub fn install_cancel() -> Arc<AtomicBool> {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    let flag = cancel_flag();
    INSTALLED.get_or_init(|| {
        let signals = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
        // A thread that receives the signals, rather than work done inside
        // the handler: killing groups and exiting are then plain code.
        if let Ok(mut signals) = signal_hook::iterator::Signals::new(signals) {
            let flag = flag.clone();
            std::thread::spawn(move || {
                for _ in signals.forever() {
                    if flag.swap(true, Ordering::SeqCst) {
                        kill_running_groups();
                        std::process::exit(130);
                    }
                }
            });
        }
    });
    flag
}

/// The process groups of the commands running now.
fn running_groups() -> &'static Mutex<BTreeSet<i32>> {
    static GROUPS: OnceLock<Mutex<BTreeSet<i32>>> = OnceLock::new();
    GROUPS.get_or_init(|| Mutex::new(BTreeSet::new()))
}

/// Listed in [`running_groups`] while alive.
struct TrackedGroup(i32);

impl TrackedGroup {
    fn new(pgid: i32) -> Self {
        running_groups()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(pgid);
        Self(pgid)
    }
}

impl Drop for TrackedGroup {
    fn drop(&mut self) {
        running_groups()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.0);
    }
}

/// SIGKILL to every command's process group still running.
fn kill_running_groups() {
    let groups = running_groups()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    for pgid in groups
        .into_iter()
        .filter_map(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    }
}

/// Sets [`cancel_flag`].
pub fn cancel_all() {
    cancel_flag().store(true, Ordering::SeqCst);
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("`{program}` was not found on PATH")]
    NotFound { program: String },
    #[error("could not start `{command}`: {source}")]
    Spawn {
        command: String,
        #[source]
        source: std::io::Error,
    },
}

/// Runs `spec` to completion (or its timeout, stall or cancellation, after
/// which the whole process group is killed).
pub fn run(spec: &CommandSpec) -> Result<Output, ExecError> {
    run_watched(spec, &mut |_| {})
}

/// [`run`], handing each line the command writes on stderr to `on_line`,
/// on the calling thread, as it comes. A progress meter's redraws end in
/// `\r`; each is a line too.
pub fn run_watched(spec: &CommandSpec, on_line: &mut dyn FnMut(&str)) -> Result<Output, ExecError> {
    let start = Instant::now();
    let mut child = command(spec).spawn().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ExecError::NotFound {
                program: spec.program.to_string_lossy().into_owned(),
            }
        } else {
            ExecError::Spawn {
                command: spec.display(),
                source,
            }
        }
    })?;
    let cap = spec.max_output;
    let activity = Activity::new(start);
    let (line_tx, line_rx) = channel();
    let out_reader = child
        .stdout
        .take()
        .map(|s| spawn_reader(s, cap, activity.clone(), None));
    let err_reader = child
        .stderr
        .take()
        .map(|s| spawn_reader(s, cap, activity.clone(), Some(line_tx)));
    let pgid = rustix::process::Pid::from_child(&child);
    let _tracked = TrackedGroup::new(pgid.as_raw_pid());

    let mut stop = None;
    let status = loop {
        relay_lines(&line_rx, on_line);
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        stop = why_stop(spec, start, &activity);
        if stop.is_some() {
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Children of the command may still hold the pipes; do not wait forever.
    let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    let (stdout, t1) = out_reader.map(join_reader).unwrap_or_default();
    let (stderr, t2) = err_reader.map(join_reader).unwrap_or_default();
    relay_lines(&line_rx, on_line);
    Ok(finished(status, stop, stdout, stderr, start, t1 || t2))
}

/// The process to start: an allowlisted environment, no stdin, both
/// streams piped, in a process group of its own (so the whole group can
/// be killed, and a terminal's Ctrl-C reaches only packsmith, which
/// decides).
fn command(spec: &CommandSpec) -> Command {
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    apply_environment(&mut cmd, spec);
    cmd
}

/// The allowlisted (or, opted in, the whole) environment, the spec's own
/// variables and its working directory.
pub(crate) fn apply_environment(cmd: &mut Command, spec: &CommandSpec) {
    if !spec.inherit_env {
        cmd.env_clear();
        for key in ENV_ALLOWLIST {
            if let Some(value) = std::env::var_os(key) {
                cmd.env(key, value);
            }
        }
    }
    cmd.envs(&spec.env);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
}

/// Why a command still running must be killed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    TimedOut,
    Stalled,
    Cancelled,
}

fn why_stop(spec: &CommandSpec, start: Instant, activity: &Activity) -> Option<Stop> {
    let cancelled = cancel_flag().load(Ordering::SeqCst)
        || spec.cancel.as_ref().is_some_and(CancelToken::is_cancelled);
    if cancelled {
        Some(Stop::Cancelled)
    } else if start.elapsed() >= spec.timeout {
        Some(Stop::TimedOut)
    } else if spec
        .stall_timeout
        .is_some_and(|quiet| activity.quiet_for() >= quiet)
    {
        Some(Stop::Stalled)
    } else {
        None
    }
}

fn finished(
    status: Option<ExitStatus>,
    stop: Option<Stop>,
    stdout: String,
    stderr: String,
    start: Instant,
    truncated: bool,
) -> Output {
    Output {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        duration: start.elapsed(),
        timed_out: stop == Some(Stop::TimedOut),
        stalled: stop == Some(Stop::Stalled),
        truncated,
        cancelled: stop == Some(Stop::Cancelled),
    }
}

fn relay_lines(lines: &Receiver<String>, on_line: &mut dyn FnMut(&str)) {
    while let Ok(line) = lines.try_recv() {
        on_line(&line);
    }
}

/// When either stream last wrote a byte, shared by the readers and the
/// loop that watches for a stall.
#[derive(Clone)]
struct Activity {
    start: Instant,
    last_ms: Arc<AtomicU64>,
}

impl Activity {
    fn new(start: Instant) -> Self {
        Self {
            start,
            last_ms: Arc::new(AtomicU64::new(0)),
        }
    }

    fn touch(&self) {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(now, Ordering::SeqCst);
    }

    fn quiet_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_ms.load(Ordering::SeqCst));
        self.start.elapsed().saturating_sub(last)
    }
}

type Reader = std::thread::JoinHandle<(String, bool)>;

/// Reads `stream` to its end, keeping its tail, marking `activity`, and
/// sending each line to `lines` when given.
fn spawn_reader<R: Read + Send + 'static>(
    mut stream: R,
    cap: usize,
    activity: Activity,
    lines: Option<Sender<String>>,
) -> Reader {
    std::thread::spawn(move || {
        let mut kept: Vec<u8> = Vec::new();
        let mut splitter = lines.map(LineSplitter::new);
        let mut truncated = false;
        let mut buf = [0u8; 64 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    activity.touch();
                    if let Some(splitter) = splitter.as_mut() {
                        splitter.feed(&buf[..n]);
                    }
                    kept.extend_from_slice(&buf[..n]);
                    if kept.len() > cap * 2 {
                        let cut = kept.len() - cap;
                        kept.drain(..cut);
                        truncated = true;
                    }
                }
            }
        }
        if let Some(splitter) = splitter.as_mut() {
            splitter.flush();
        }
        if kept.len() > cap {
            let cut = kept.len() - cap;
            kept.drain(..cut);
            truncated = true;
        }
        (String::from_utf8_lossy(&kept).into_owned(), truncated)
    })
}

/// Cuts a stream into lines at `\n` and `\r`, sending each non-empty one.
struct LineSplitter {
    pending: Vec<u8>,
    lines: Sender<String>,
}

impl LineSplitter {
    /// A line longer than this is sent in pieces: a stream without line
    /// ends must not grow without bound.
    const LONGEST: usize = 4096;

    fn new(lines: Sender<String>) -> Self {
        Self {
            pending: Vec::new(),
            lines,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' || b == b'\r' {
                self.flush();
            } else {
                self.pending.push(b);
                if self.pending.len() >= Self::LONGEST {
                    self.flush();
                }
            }
        }
    }

    fn flush(&mut self) {
        let line = String::from_utf8_lossy(&self.pending).trim().to_string();
        self.pending.clear();
        if !line.is_empty() {
            // The watcher may have stopped listening; the tail is kept anyway.
            let _ = self.lines.send(line);
        }
    }
}

fn join_reader(handle: Reader) -> (String, bool) {
    handle.join().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_output_and_exit_code() {
        let out =
            run(&CommandSpec::new("sh").args(["-c", "echo hi; echo err >&2; exit 3"])).unwrap();
        assert_eq!(out.code, Some(3));
        assert_eq!(out.stdout, "hi\n");
        assert_eq!(out.stderr, "err\n");
        assert!(!out.success());
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let spec = CommandSpec::new("sh")
            .args(["-c", "sleep 30 & sleep 30; echo never"])
            .timeout(Duration::from_millis(300));
        let out = run(&spec).unwrap();
        assert!(out.timed_out);
        assert!(out.duration < Duration::from_secs(10));
        assert!(!out.stdout.contains("never"));
    }

    #[test]
    fn environment_is_allowlisted() {
        std::env::set_var("PACKSMITH_TEST_SECRET", "s3cret");
        let out = run(&CommandSpec::new("sh").args(["-c", "echo ${PACKSMITH_TEST_SECRET:-unset}"]))
            .unwrap();
        assert_eq!(out.stdout.trim(), "unset");
        // Only a command that opts in sees the whole environment.
        let spec = CommandSpec::new("sh")
            .args(["-c", "echo ${PACKSMITH_TEST_SECRET:-unset}"])
            .inherit_environment();
        assert_eq!(run(&spec).unwrap().stdout.trim(), "s3cret");
    }

    #[test]
    fn output_is_capped_to_the_tail() {
        let mut spec = CommandSpec::new("sh").args(["-c", "seq 1 100000"]);
        spec.max_output = 100;
        let out = run(&spec).unwrap();
        assert!(out.truncated);
        assert!(out.stdout.len() <= 100);
        assert!(out.stdout.ends_with("100000\n"));
    }

    /// Set to a directory: [`second_signal_child`] runs (in a process of
    /// its own, started by the test below).
    const CHILD_DIR: &str = "PACKSMITH_EXEC_SECOND_SIGNAL_DIR";

    /// The process the second-signal test interrupts: the one handler, and
    /// a command whose group is tracked as [`run`] tracks it, while the
    /// thread does something that never looks at the flag.
    #[test]
    fn second_signal_child() {
        let Some(dir) = std::env::var_os(CHILD_DIR).map(PathBuf::from) else {
            return;
        };
        install_cancel();
        let script = format!(
            "sleep 300 & echo $$ > {0}/pid.tmp && mv {0}/pid.tmp {0}/pid; exec sleep 300",
            dir.display()
        );
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .process_group(0)
            .spawn()
            .expect("start sh");
        let _tracked = TrackedGroup::new(child.id() as i32);
        std::thread::sleep(Duration::from_secs(60));
        // Only reached when no second signal came.
        let _ = rustix::process::kill_process_group(
            rustix::process::Pid::from_child(&child),
            rustix::process::Signal::KILL,
        );
        let _ = child.wait();
    }

    /// Whether a process of group `pgid` is alive (not a zombie: killed
    /// members wait for init to reap them).
    fn group_alive(pgid: i32) -> bool {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return false;
        };
        entries.filter_map(Result::ok).any(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            // `pid (comm) state ppid pgrp …`
            let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string()
        })
    }

    fn sigint(pid: u32) {
        let pid = rustix::process::Pid::from_raw(pid as i32).expect("a pid");
        rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("send SIGINT");
    }

    /// The first Ctrl-C only sets the flag; the second kills the running
    /// command's whole group and exits 130.
    #[test]
    fn a_second_signal_kills_the_running_groups_then_exits_130() {
        if std::env::var_os(CHILD_DIR).is_some() {
            return;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let mut child = Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "command::tests::second_signal_child",
                "--nocapture",
            ])
            .env(CHILD_DIR, dir.path())
            .stdout(Stdio::null())
            .spawn()
            .expect("start the child");
        let pid_file = dir.path().join("pid");
        let start = Instant::now();
        while !pid_file.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no command started"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let pgid: i32 = std::fs::read_to_string(&pid_file)
            .expect("read pid")
            .trim()
            .parse()
            .expect("a pid");
        sigint(child.id());
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            child.try_wait().expect("poll").is_none(),
            "exited on the first"
        );
        assert!(group_alive(pgid), "the first signal alone killed the group");
        sigint(child.id());
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("poll") {
                break status;
            }
            if start.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                panic!("still running 10 s after the second signal");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(130));
        // A killed group's last members are reaped by init, which a loaded
        // machine may take a moment to do; a live group stays past that.
        let reaped = Instant::now();
        while group_alive(pgid) && reaped.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let survived = group_alive(pgid);
        if let Some(p) = rustix::process::Pid::from_raw(pgid).filter(|_| survived) {
            let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
        }
        assert!(!survived, "the command's group outlived the exit");
    }

    /// A command whose shell writes its pid (its group's id) to `pid_file`
    /// and then waits on a background sleep.
    fn sleeper(pid_file: &std::path::Path) -> CommandSpec {
        let script = format!(
            "echo $$ > {0}.tmp && mv {0}.tmp {0}; sleep 300 & wait",
            pid_file.display()
        );
        CommandSpec::new("sh")
            .args(["-c", &script])
            .timeout(Duration::from_secs(60))
    }

    fn read_pgid(pid_file: &std::path::Path) -> i32 {
        std::fs::read_to_string(pid_file)
            .expect("the command wrote its pid")
            .trim()
            .parse()
            .expect("a pid")
    }

    /// The spec's own token kills the command's whole group (the shell and
    /// its background sleep), and `run` returns, saying so.
    #[test]
    fn a_set_token_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let token = CancelToken::new();
        let setter = {
            let (token, pid_file) = (token.clone(), pid_file.clone());
            std::thread::spawn(move || {
                let start = Instant::now();
                while !pid_file.exists() && start.elapsed() < Duration::from_secs(30) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                std::thread::sleep(Duration::from_millis(200));
                token.cancel();
            })
        };
        let out = run(&sleeper(&pid_file).cancel_on(token)).unwrap();
        setter.join().unwrap();
        assert!(out.cancelled && !out.timed_out && !out.stalled);
        assert!(!out.success());
        assert!(out.duration < Duration::from_secs(30), "{:?}", out.duration);
        let pgid = read_pgid(&pid_file);
        assert!(!group_alive(pgid), "a process of the group outlived run");
    }

    /// No output for the stall timeout kills the group, long before the
    /// timeout; what it wrote before reached the watcher.
    #[test]
    fn a_silent_command_is_killed_as_stalled() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let mut spec = sleeper(&pid_file).stall_timeout(Duration::from_millis(500));
        spec.args[1] = format!("echo started >&2; {}", spec.args[1].to_string_lossy()).into();
        let mut seen = Vec::new();
        let out = run_watched(&spec, &mut |line| seen.push(line.to_string())).unwrap();
        assert!(out.stalled && !out.timed_out && !out.cancelled);
        assert!(!out.success());
        assert!(out.duration < Duration::from_secs(30), "{:?}", out.duration);
        assert_eq!(seen, ["started"]);
        assert!(!group_alive(read_pgid(&pid_file)));
    }

    /// Steady output keeps a command alive past its stall timeout, and each
    /// progress redraw (`\r`) comes to the watcher as a line of its own.
    #[test]
    fn output_resets_the_stall_clock_and_redraws_are_lines() {
        let script =
            "for i in 1 2 3 4 5 6; do printf \"step $i\\r\" >&2; sleep 0.2; done; echo done >&2";
        let spec = CommandSpec::new("sh")
            .args(["-c", script])
            .stall_timeout(Duration::from_millis(700));
        let mut seen = Vec::new();
        let out = run_watched(&spec, &mut |line| seen.push(line.to_string())).unwrap();
        assert!(out.success(), "{out:?}");
        assert!(out.duration > Duration::from_millis(700));
        assert_eq!(
            seen,
            ["step 1", "step 2", "step 3", "step 4", "step 5", "step 6", "done"]
        );
    }

    #[test]
    fn missing_program_is_a_clear_error() {
        let err = run(&CommandSpec::new("packsmith-no-such-program")).unwrap_err();
        assert!(err.to_string().contains("not found"));
    }
}
