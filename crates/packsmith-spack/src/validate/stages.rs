//! The validation stages, cheapest first, each with its own timeout and a
//! captured log file: load → audit → concretize → install, then the
//! hermeticity check of the installed prefix (`hermetic/`), which runs no
//! Spack command, and the smoke test (`smoke/`), which runs `spack test
//! run` on a test derived from the prefix.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::{atomic_write, CommandSpec, Output};
use serde::{Deserialize, Serialize};

use super::{Attempt, PidsCgroup, Sandbox, SpackSetup, ValidateError};

/// One validation stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Import the package class (`spack python` + `get_pkg_class`).
    Load,
    /// `spack audit packages <name>`.
    Audit,
    /// `spack spec -I --fresh <name>`.
    Concretize,
    /// `spack install --fresh --fail-fast <name>`.
    Install,
    /// What the install took from outside the concretized DAG (read from
    /// the prefix; no Spack command).
    Hermeticity,
    /// A test derived from the installed prefix, written into the recipe
    /// and run with `spack test run` (`smoke/`).
    Smoke,
}

impl Stage {
    /// The stages that run a Spack command, in order.
    pub const ALL: [Stage; 4] = [Self::Load, Self::Audit, Self::Concretize, Self::Install];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::Audit => "audit",
            Self::Concretize => "concretize",
            Self::Install => "install",
            Self::Hermeticity => "hermeticity",
            Self::Smoke => "smoke",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Per-stage time limits. The first Spack command on a new machine builds
/// the repository indexes (about 70 s here), hence the generous defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageTimeouts {
    pub load: Duration,
    pub audit: Duration,
    pub concretize: Duration,
    pub install: Duration,
    #[serde(default = "hermeticity_timeout")]
    pub hermeticity: Duration,
    /// The whole smoke stage: the probes and `spack test run`.
    #[serde(default = "smoke_timeout")]
    pub smoke: Duration,
}

fn hermeticity_timeout() -> Duration {
    Duration::from_secs(300)
}

fn smoke_timeout() -> Duration {
    Duration::from_secs(300)
}

impl Default for StageTimeouts {
    fn default() -> Self {
        Self {
            load: Duration::from_secs(180),
            audit: Duration::from_secs(300),
            concretize: Duration::from_secs(600),
            install: Duration::from_secs(3600),
            hermeticity: hermeticity_timeout(),
            smoke: smoke_timeout(),
        }
    }
}

impl StageTimeouts {
    pub fn get(&self, stage: Stage) -> Duration {
        match stage {
            Stage::Load => self.load,
            Stage::Audit => self.audit,
            Stage::Concretize => self.concretize,
            Stage::Install => self.install,
            Stage::Hermeticity => self.hermeticity,
            Stage::Smoke => self.smoke,
        }
    }
}

/// How the stages run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageOptions {
    pub timeouts: StageTimeouts,
    /// `spack install --test=root`.
    pub run_tests: bool,
    /// Offline: a concretized DAG that would build anything but the root
    /// and `gcc-runtime` fails the concretize stage (it means a download).
    pub offline: bool,
    /// Keep this many bytes of each stream in memory (the log has it all up
    /// to this cap too).
    pub max_output: usize,
    /// Run `spack -d` (debug output: shows the URLs a fetch tried and the
    /// real cause behind some terse errors).
    pub debug: bool,
    /// The version concretize and install ask for (`name@=1.2.0`); None
    /// leaves Spack's preferred one.
    pub version: Option<String>,
    /// `spack install --no-checksum`: the source in the run's mirror is a
    /// local tree, not the archive the recipe's checksum is for.
    pub no_checksum: bool,
}

impl Default for StageOptions {
    fn default() -> Self {
        Self {
            timeouts: StageTimeouts::default(),
            run_tests: false,
            offline: true,
            max_output: 4 << 20,
            debug: false,
            version: None,
            no_checksum: false,
        }
    }
}

/// A node of the concretized DAG that Spack would build (` - ` in `spec -I`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToBuild {
    pub name: String,
    pub spec: String,
}

/// What one stage did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpackStageOutcome {
    pub stage: Stage,
    pub passed: bool,
    #[serde(with = "secs")]
    pub duration: Duration,
    /// The full captured log (command line, stdout, stderr, exit status).
    pub log_path: PathBuf,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The command as run (sandbox wrapper included).
    pub command: String,
    /// Concretize: nodes other than the root and gcc-runtime that would be
    /// built (a download, offline).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub would_build: Vec<ToBuild>,
    /// Install: Spack's own build log, copied next to the stage log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_log: Option<PathBuf>,
    /// Limits the sandbox enforced during the stage (`process limit hit 3 times`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sandbox_events: Vec<String>,
}

impl SpackStageOutcome {
    /// Offline, a concretization Spack accepted but packsmith failed
    /// because it would build these dependencies from source (a download
    /// each). `would_build` is only filled when `spack spec` succeeded, so
    /// a failed stage with nodes in it failed for exactly this reason.
    pub fn offline_downloads(&self) -> Option<Vec<String>> {
        let refused =
            !self.passed && self.stage == Stage::Concretize && !self.would_build.is_empty();
        refused.then(|| self.would_build.iter().map(|n| n.name.clone()).collect())
    }
}

/// The log line that says why an offline concretization failed; also the
/// summary of its diagnosis.
pub fn offline_refusal_line<S: AsRef<str>>(names: &[S]) -> String {
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    format!(
        "packsmith: offline, but the concretized DAG would build from source (a download each): {}",
        names.join(", ")
    )
}

mod secs {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64((d.as_secs_f64() * 1000.0).round() / 1000.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v = f64::deserialize(d)?;
        Ok(Duration::from_secs_f64(v.max(0.0)))
    }
}

/// Spack's arguments for `stage`, after `spack -C <scope>`. `spec` is what
/// concretize and install are asked for (the package name, or e.g.
/// `demo~shared` for the variant check); load and audit take `package`.
fn stage_args(stage: Stage, package: &str, spec: &str, options: &StageOptions) -> Vec<String> {
    let spec = match &options.version {
        Some(v) => format!("{spec}@={v}"),
        None => spec.to_string(),
    };
    let spec = spec.as_str();
    match stage {
        Stage::Load => vec![
            "python".into(),
            "-c".into(),
            super::setup::python_exec(&format!(
                "import spack.repo\ncls = spack.repo.PATH.get_pkg_class({package:?})\nprint('loaded', cls.__module__, cls.__name__)\n"
            )),
        ],
        Stage::Audit => vec!["audit".into(), "packages".into(), package.into()],
        Stage::Concretize => vec![
            "spec".into(),
            "-I".into(),
            "--fresh".into(),
            spec.into(),
        ],
        Stage::Install => {
            let mut args = vec![
                "install".into(),
                "--fresh".into(),
                "--fail-fast".into(),
                "--keep-stage".into(),
            ];
            if options.run_tests {
                args.push("--test=root".into());
            }
            if options.no_checksum {
                args.push("--no-checksum".into());
            }
            args.push(spec.into());
            args
        }
        // Runs no Spack command (see `hermetic::run_hermeticity`).
        Stage::Hermeticity => Vec::new(),
        // Needs the installed hash (see `smoke::run_smoke_test`).
        Stage::Smoke => Vec::new(),
    }
}

/// Reads `spack spec -I` output: the nodes marked ` - ` (to be built), in
/// order, the root first.
pub fn parse_spec_install_status(output: &str) -> Vec<ToBuild> {
    let concretized = output
        .split_once("Concretized\n")
        .map(|(_, rest)| rest)
        .unwrap_or(output);
    concretized
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(" - ")?;
            let spec = rest.trim().trim_start_matches('^').to_string();
            let name = spec
                .split(['@', '%', '+', '~', ' ', '/'])
                .next()
                .unwrap_or_default()
                .to_string();
            (!name.is_empty()).then_some(ToBuild { name, spec })
        })
        .collect()
}

/// `See build log for details:\n  <path>` → the path.
fn build_log_path(output: &str) -> Option<PathBuf> {
    let mut lines = output.lines();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("See build log for details:") {
            return lines
                .next()
                .map(|l| PathBuf::from(l.trim()))
                .filter(|p| p.is_absolute());
        }
    }
    None
}

pub(super) fn write_log(path: &Path, text: &str) -> Result<(), ValidateError> {
    atomic_write(path, text.as_bytes()).map_err(|e| ValidateError::Io {
        action: "write",
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// Runs one stage for `attempt` and writes `<attempt>/logs/<stage>.log`.
pub fn run_stage(
    setup: &SpackSetup,
    sandbox: &Sandbox,
    attempt: &Attempt,
    stage: Stage,
    options: &StageOptions,
) -> Result<SpackStageOutcome, ValidateError> {
    run_stage_spec(setup, sandbox, attempt, stage, &attempt.package, options)
}

/// [`run_stage`] with concretize and install asked for `spec` (the package
/// with variants, `demo+mpi`) instead of the bare package name.
pub fn run_stage_spec(
    setup: &SpackSetup,
    sandbox: &Sandbox,
    attempt: &Attempt,
    stage: Stage,
    spec: &str,
    options: &StageOptions,
) -> Result<SpackStageOutcome, ValidateError> {
    let other = match stage {
        Stage::Hermeticity => {
            Some("the hermeticity check runs no Spack command: use `hermetic::run_hermeticity`")
        }
        Stage::Smoke => Some("the smoke test needs its derived test: use `smoke::run_smoke_test`"),
        _ => None,
    };
    if let Some(why) = other {
        return Err(ValidateError::Invalid {
            what: "Spack stage",
            value: stage.to_string(),
            why: why.into(),
        });
    }
    let command = stage_command(setup, attempt, stage, spec, options);
    let (out, command, sandbox_events) = run_sandboxed(sandbox, command)?;
    let mut passed = out.success();
    let mut would_build = Vec::new();
    if stage == Stage::Concretize && passed {
        would_build = nodes_to_build(&out.stdout, &attempt.package);
    }
    // Offline, each node to build is a download that cannot happen.
    let refused_offline = options.offline && !would_build.is_empty();
    passed &= !refused_offline;
    let build_log = if stage == Stage::Install && !passed {
        copy_build_log(&out, attempt)
    } else {
        None
    };
    let refused = if refused_offline {
        would_build.as_slice()
    } else {
        &[]
    };
    let trailer = packsmith_lines(refused, &sandbox_events);
    let log_path = attempt.logs.join(format!("{stage}.log"));
    write_log(
        &log_path,
        &stage_log(&command, &out, &trailer, options.timeouts.get(stage)),
    )?;
    Ok(SpackStageOutcome {
        stage,
        passed,
        duration: out.duration,
        log_path,
        exit_code: out.code,
        timed_out: out.timed_out,
        command,
        would_build,
        build_log,
        sandbox_events,
    })
}

/// `spack [-d] -C <scope> <stage args>` in the attempt's directory, with
/// the stage's time limit and output cap.
fn stage_command(
    setup: &SpackSetup,
    attempt: &Attempt,
    stage: Stage,
    spec: &str,
    options: &StageOptions,
) -> CommandSpec {
    spack_command(
        setup,
        attempt,
        stage_args(stage, &attempt.package, spec, options),
        options.timeouts.get(stage),
        options,
    )
}

/// `spack [-d] -C <scope> <args>` in the attempt's directory, with
/// `timeout` and the output cap.
pub(super) fn spack_command(
    setup: &SpackSetup,
    attempt: &Attempt,
    spack_args: Vec<String>,
    timeout: Duration,
    options: &StageOptions,
) -> CommandSpec {
    let mut args: Vec<OsString> = Vec::new();
    if options.debug {
        args.push("-d".into());
    }
    args.push("-C".into());
    args.push(attempt.scope.clone().into());
    args.extend(spack_args.into_iter().map(OsString::from));
    let mut command = setup.command(args).cwd(&attempt.dir).timeout(timeout);
    command.max_output = options.max_output;
    command
}

/// Runs `command` inside the sandbox (with a pids cgroup when the policy
/// caps processes): its output, the command line as run, and the limits
/// the sandbox enforced.
pub(super) fn run_sandboxed(
    sandbox: &Sandbox,
    command: CommandSpec,
) -> Result<(Output, String, Vec<String>), ValidateError> {
    let pids = match sandbox {
        Sandbox::Bubblewrap { policy, .. } => policy.max_processes.and_then(PidsCgroup::create),
        Sandbox::None => None,
    };
    let spec = sandbox.wrap_with(command, pids.as_ref());
    let command = spec.display();
    let out = packsmith_exec::run(&spec).map_err(|e| ValidateError::Command {
        command: command.clone(),
        detail: e.to_string(),
        hint: "check the spack binary and, for the sandbox, that bwrap is installed".into(),
    })?;
    let mut sandbox_events = Vec::new();
    if let Some(cg) = &pids {
        let hits = cg.limit_hits();
        if hits > 0 {
            sandbox_events.push(format!("process limit reached: {hits} fork(s) refused"));
        }
    }
    Ok((out, command, sandbox_events))
}

/// Packages Spack builds without a download: the compiler's runtime
/// libraries, copied from the compiler, and Python's virtual environment
/// (`has_code = False`: `python -m venv`), which every Python package of
/// Spack 0.22 and later builds against.
const BUILT_WITHOUT_SOURCE: &[&str] = &["gcc-runtime", "python-venv"];

/// The nodes of a concretization other than the package itself and the
/// packages built without a download that Spack would build.
fn nodes_to_build(spec_output: &str, package: &str) -> Vec<ToBuild> {
    parse_spec_install_status(spec_output)
        .into_iter()
        .filter(|n| n.name != package && !BUILT_WITHOUT_SOURCE.contains(&n.name.as_str()))
        .collect()
}

/// Copies Spack's own build log of a failed install next to the stage log.
fn copy_build_log(out: &Output, attempt: &Attempt) -> Option<PathBuf> {
    let src = build_log_path(&out.stdout).or_else(|| build_log_path(&out.stderr))?;
    let dest = attempt.logs.join("spack-build-out.txt");
    std::fs::copy(&src, &dest).ok().map(|_| dest)
}

/// What packsmith adds to a stage log: the downloads an offline
/// concretization was refused for, and the limits the sandbox enforced.
pub(super) fn packsmith_lines(refused: &[ToBuild], sandbox_events: &[String]) -> String {
    let mut lines = String::new();
    if !refused.is_empty() {
        let names: Vec<&str> = refused.iter().map(|n| n.name.as_str()).collect();
        lines.push_str(&offline_refusal_line(&names));
        lines.push('\n');
    }
    for event in sandbox_events {
        lines.push_str(&format!("packsmith sandbox: {event}\n"));
    }
    lines
}

/// The stage log: the command, both streams, what packsmith adds
/// (`trailer`), and how it ended.
pub(super) fn stage_log(command: &str, out: &Output, trailer: &str, limit: Duration) -> String {
    let status = if out.timed_out {
        format!(
            "packsmith: timed out after {:.0} s (limit {} s); the process group was killed\n",
            out.duration.as_secs_f64(),
            limit.as_secs()
        )
    } else {
        format!(
            "packsmith: exit {:?} after {:.1} s\n",
            out.code,
            out.duration.as_secs_f64()
        )
    };
    let truncated = if out.truncated {
        "packsmith: output was longer than the cap; only the tail is kept\n"
    } else {
        ""
    };
    format!(
        "$ {command}\n{truncated}==> stdout\n{}\n==> stderr\n{}\n{trailer}{status}",
        out.stdout, out.stderr
    )
}

/// Runs `stages` in order and stops at the first that fails.
pub fn run_stages(
    setup: &SpackSetup,
    sandbox: &Sandbox,
    attempt: &Attempt,
    stages: &[Stage],
    options: &StageOptions,
) -> Result<Vec<SpackStageOutcome>, ValidateError> {
    let mut outcomes = Vec::new();
    for &stage in stages {
        let outcome = run_stage(setup, sandbox, attempt, stage, options)?;
        let passed = outcome.passed;
        outcomes.push(outcome);
        if !passed {
            break;
        }
    }
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_status_lists_nodes_to_build() {
        let out = "Input spec\n--------------------------------\n -   demo\n\nConcretized\n--------------------------------\n -   demo@1.0%gcc@12.2.0~ipo build_system=cmake\n[e]      ^cmake@3.25.1%gcc@12.2.0\n -       ^gcc-runtime@12.2.0%gcc@12.2.0\n -       ^libfoo@2.0%gcc@12.2.0+shared\n[+]      ^zlib@1.3\n";
        let nodes = parse_spec_install_status(out);
        let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, vec!["demo", "gcc-runtime", "libfoo"]);
    }

    #[test]
    fn only_nodes_that_need_a_download_count_as_built_offline() {
        let out = "Concretized\n--------------------------------\n -   py-demo@1.0%gcc@12.2.0\n[e]      ^python@3.11.2%gcc@12.2.0\n -       ^python-venv@1.0%gcc@12.2.0\n -       ^gcc-runtime@12.2.0%gcc@12.2.0\n -       ^py-flit-core@3.9%gcc@12.2.0\n";
        let names: Vec<String> = nodes_to_build(out, "py-demo")
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(names, ["py-flit-core"]);
    }

    #[test]
    fn build_log_path_follows_the_marker() {
        let out = "2 errors found\n\nSee build log for details:\n  /s/spack-build-out.txt\n";
        assert_eq!(
            build_log_path(out),
            Some(PathBuf::from("/s/spack-build-out.txt"))
        );
    }
}
