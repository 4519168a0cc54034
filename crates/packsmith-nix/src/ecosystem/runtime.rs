//! The runtime check of refinement: run the built package's main program
//! in packsmith-exec's sandbox with nothing but its closure mounted
//! (read-only), no network and a timeout, first with `--version`, then
//! with `--help`. This file holds the policy; the bubblewrap mechanism is
//! `packsmith_exec::sandbox`.
//! A build that succeeds can still produce a program that cannot start
//! (a missing runtime dependency, a wrong interpreter); this finds that.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use packsmith_exec::sandbox::{Mount, Sandbox, SandboxError, SandboxPolicy};
use packsmith_exec::CommandSpec;
use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::runner::NixConfig;

/// How programs are run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RuntimeConfig {
    /// Off: refinement proposes improvements from the recipe alone.
    pub enabled: bool,
    pub timeout: Duration,
    /// Extra read-only mounts, `path` or `dest=source` (like Nix's
    /// sandbox-paths): tests whose outputs use the host's `/bin/sh`.
    pub extra_binds: Vec<String>,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            timeout: Duration::from_secs(20),
            extra_binds: Vec::new(),
        }
    }
}

/// What the runtime check found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeStatus {
    /// The program started and exited 0 for `--version` or `--help`.
    Passed,
    /// It ran and failed (or timed out) both times.
    Failed,
    /// Nothing to run (a library: no `meta.mainProgram`, no `bin/`).
    NoProgram,
    /// The check itself could not run (no bubblewrap, no closure).
    Unavailable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeCheck {
    pub status: RuntimeStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The program's output (stdout then stderr), clipped.
    pub output: String,
    /// One line for the user and the evaluator.
    pub note: String,
}

impl RuntimeCheck {
    fn without_run(status: RuntimeStatus, note: impl Into<String>) -> Self {
        Self {
            status,
            program: None,
            command: None,
            exit_code: None,
            output: String::new(),
            note: note.into(),
        }
    }
}

const MAX_OUTPUT_CHARS: usize = 2000;

static MAIN_PROGRAM: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"mainProgram\s*=\s*"([^"$]+)"\s*;"#).ok());

/// The program to run: `meta.mainProgram` when the recipe names one that
/// exists in `out/bin`, else the only (or first, sorted) file in `out/bin`.
pub fn main_program(recipe: &str, out: &Path) -> Option<PathBuf> {
    let bin = out.join("bin");
    if let Some(name) = MAIN_PROGRAM
        .as_ref()
        .and_then(|re| re.captures(recipe))
        .and_then(|c| c.get(1))
    {
        let p = bin.join(name.as_str());
        if p.exists() {
            return Some(p);
        }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&bin)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files.into_iter().next()
}

/// The store paths `out` depends on at run time (itself included).
fn closure(out: &str, nix: &NixConfig) -> Result<Vec<String>, String> {
    let spec = CommandSpec::new(nix.program("nix-store"))
        .args(["-q", "--requisites", out])
        .timeout(Duration::from_secs(60));
    let o = packsmith_exec::run(&spec).map_err(|e| e.to_string())?;
    if !o.success() {
        return Err(format!("`{}` failed: {}", spec.display(), o.stderr.trim()));
    }
    Ok(o.stdout
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('/'))
        .map(str::to_string)
        .collect())
}

/// The sandbox policy of the check: nothing of the host but the closure
/// (and `extra_binds`), read-only; fresh /proc, /dev and /tmp (`$HOME`);
/// no network; `PATH` the program's own `bin/`.
pub fn runtime_policy(program: &Path, paths: &[String], cfg: &RuntimeConfig) -> SandboxPolicy {
    SandboxPolicy {
        host_visible: false,
        // Mounts, not `read_only`: a closure path that is missing must fail
        // the check, not be skipped.
        mounts: paths
            .iter()
            .map(|p| (p.as_str(), p.as_str()))
            .chain(cfg.extra_binds.iter().map(|b| {
                let (dest, source) = b.split_once('=').unwrap_or((b, b));
                (source, dest)
            }))
            .map(|(source, dest)| Mount {
                source: source.into(),
                dest: dest.into(),
            })
            .collect(),
        env: program
            .parent()
            .map(|bin| ("PATH".to_string(), bin.to_string_lossy().into_owned()))
            .into_iter()
            .collect(),
        home: PathBuf::from("/tmp"),
        ..SandboxPolicy::default()
    }
}

/// `program arg` inside `sandbox`, started in its `/tmp`.
pub fn sandboxed_command(
    sandbox: &Sandbox,
    program: &Path,
    arg: &str,
    cfg: &RuntimeConfig,
) -> CommandSpec {
    sandbox.wrap(
        CommandSpec::new(program)
            .arg(arg)
            .cwd("/tmp")
            .timeout(cfg.timeout),
    )
}

/// Runs the check on the build output `out` of `recipe`.
pub fn run_check(out: &str, recipe: &str, cfg: &RuntimeConfig, nix: &NixConfig) -> RuntimeCheck {
    if !cfg.enabled {
        return RuntimeCheck::without_run(RuntimeStatus::Unavailable, "the runtime check is off");
    }
    let Some(program) = main_program(recipe, Path::new(out)) else {
        return RuntimeCheck::without_run(
            RuntimeStatus::NoProgram,
            format!("nothing to run: no meta.mainProgram and no file in {out}/bin"),
        );
    };
    let paths = match closure(out, nix) {
        Ok(p) => p,
        Err(e) => {
            return RuntimeCheck::without_run(
                RuntimeStatus::Unavailable,
                format!("the closure of {out} could not be listed: {e}"),
            )
        }
    };
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sandbox = match Sandbox::bubblewrap(runtime_policy(&program, &paths, cfg)) {
        Ok(s) => s,
        Err(e) => {
            // The detail only: the error's own hint names Spack's flag.
            let detail = match e {
                SandboxError::Unavailable { detail } => detail,
                other => other.to_string(),
            };
            return RuntimeCheck::without_run(
                RuntimeStatus::Unavailable,
                format!("bubblewrap could not run ({detail}); install bubblewrap (`bwrap`)"),
            );
        }
    };
    let mut last = None;
    for arg in ["--version", "--help"] {
        let spec = sandboxed_command(&sandbox, &program, arg, cfg);
        let o = match packsmith_exec::run(&spec) {
            Ok(o) => o,
            Err(e) => {
                return RuntimeCheck::without_run(
                    RuntimeStatus::Unavailable,
                    format!("bubblewrap could not run ({e}); install bubblewrap (`bwrap`)"),
                )
            }
        };
        let output = crate::logs::last_lines(&format!("{}{}", o.stdout, o.stderr), 40);
        let output: String = output.chars().take(MAX_OUTPUT_CHARS).collect();
        let check = RuntimeCheck {
            status: if o.success() {
                RuntimeStatus::Passed
            } else {
                RuntimeStatus::Failed
            },
            program: Some(name.clone()),
            command: Some(format!("{name} {arg}")),
            exit_code: o.code,
            output,
            note: if o.success() {
                format!("`{name} {arg}` exited 0 in a sandbox holding only its closure")
            } else if o.timed_out {
                format!(
                    "`{name} {arg}` did not finish within {}s",
                    cfg.timeout.as_secs()
                )
            } else {
                format!(
                    "`{name} {arg}` failed (exit {:?}) in a sandbox holding only its closure",
                    o.code
                )
            },
        };
        if check.status == RuntimeStatus::Passed {
            return check;
        }
        last = Some(check);
    }
    last.unwrap_or_else(|| RuntimeCheck::without_run(RuntimeStatus::Failed, "no run"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_sees_only_the_closure_with_path_set_to_the_programs_bin() {
        let cfg = RuntimeConfig {
            extra_binds: vec!["/bin/sh=/usr/bin/dash".into(), "/etc".into()],
            ..RuntimeConfig::default()
        };
        let program = Path::new("/nix/store/abc-hello/bin/hello");
        let paths = ["/nix/store/abc-hello".to_string()];
        let sandbox = Sandbox::Bubblewrap {
            bwrap: "/usr/bin/bwrap".into(),
            prlimit: Some("/usr/bin/prlimit".into()),
            policy: runtime_policy(program, &paths, &cfg),
        };
        let spec = sandboxed_command(&sandbox, program, "--version", &cfg);
        let shown = spec.display();
        assert!(!shown.contains("--ro-bind / /"), "{shown}");
        assert!(!shown.contains("prlimit"), "{shown}");
        assert!(shown.contains("--unshare-net"), "{shown}");
        assert!(
            shown.ends_with(
                "--ro-bind /nix/store/abc-hello /nix/store/abc-hello \
                 --ro-bind /usr/bin/dash /bin/sh --ro-bind /etc /etc \
                 --setenv PATH /nix/store/abc-hello/bin --chdir /tmp -- \
                 /nix/store/abc-hello/bin/hello --version"
            ),
            "{shown}"
        );
        assert_eq!(spec.timeout, cfg.timeout);
        assert_eq!(
            spec.env.get(std::ffi::OsStr::new("HOME")),
            Some(&"/tmp".into())
        );
    }

    #[test]
    fn main_program_prefers_meta_then_the_first_binary() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        std::fs::write(dir.path().join("bin/b"), "").unwrap();
        std::fs::write(dir.path().join("bin/a"), "").unwrap();
        let recipe = "meta = { mainProgram = \"b\"; };";
        assert_eq!(
            main_program(recipe, dir.path()),
            Some(dir.path().join("bin/b"))
        );
        assert_eq!(main_program("", dir.path()), Some(dir.path().join("bin/a")));
        assert_eq!(main_program("", &dir.path().join("none")), None);
    }
}
