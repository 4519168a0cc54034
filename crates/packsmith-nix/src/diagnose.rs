//! A failed evaluate or build step → a typed [`Failure`] and a short,
//! model-ready excerpt.
//!
//! The rules are regexes over Nix's own messages, checked against logs
//! captured from Nix 2.8 (`tests/logs/`); newer Nix's spellings of the same
//! messages are matched too (`Cannot build … Reason: 1 dependency failed`).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::logs::{normalize_line, strip_ansi};
use crate::tofu::parse_mismatch;

/// Which validation step ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Evaluate,
    Build,
}

/// The coarse class the agent loop dispatches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    InvalidHash,
    HashMismatch,
    EvalError,
    DependencyFailure,
    BuildFailure,
    Timeout,
    Unknown,
}

/// What kind of evaluation error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalErrorKind {
    Syntax,
    UndefinedVariable,
    MissingAttribute,
    MissingArgument,
    UnexpectedArgument,
    Other,
}

/// A position Nix reported (`at /path/package.nix:4:11:`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Failure {
    InvalidHash {
        hash: String,
    },
    HashMismatch {
        drv: Option<String>,
        specified: Option<String>,
        got: String,
    },
    EvalError {
        error: EvalErrorKind,
        /// The name involved (variable, attribute, argument), if any.
        name: Option<String>,
        message: String,
        location: Option<Location>,
    },
    DependencyFailure {
        /// Derivations whose builder failed (not the one asked for).
        failed: Vec<String>,
    },
    BuildFailure {
        drv: Option<String>,
        /// The stdenv phase running when it failed, when the log shows it.
        phase: Option<String>,
        exit_code: Option<i32>,
    },
    Timeout {
        step: Step,
        after_secs: Option<u64>,
    },
    Unknown,
}

impl Failure {
    pub fn kind(&self) -> FailureKind {
        match self {
            Self::InvalidHash { .. } => FailureKind::InvalidHash,
            Self::HashMismatch { .. } => FailureKind::HashMismatch,
            Self::EvalError { .. } => FailureKind::EvalError,
            Self::DependencyFailure { .. } => FailureKind::DependencyFailure,
            Self::BuildFailure { .. } => FailureKind::BuildFailure,
            Self::Timeout { .. } => FailureKind::Timeout,
            Self::Unknown => FailureKind::Unknown,
        }
    }
}

/// A classified failure with what the model should read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NixDiagnosis {
    pub step: Step,
    pub failure: Failure,
    /// A short excerpt (at most [`EXCERPT_LINES`] lines), store hashes kept.
    pub excerpt: String,
    /// The main error line with store hashes and numbers blurred, for
    /// telling "same error again" from "a new error".
    pub signature: String,
}

impl NixDiagnosis {
    pub fn kind(&self) -> FailureKind {
        self.failure.kind()
    }

    /// A timeout enforced around the process (Nix did not report it).
    pub fn timeout(step: Step, log: &str) -> Self {
        Self {
            step,
            failure: Failure::Timeout {
                step,
                after_secs: None,
            },
            excerpt: tail_excerpt(&lines(log), 15),
            signature: "timeout".to_string(),
        }
    }
}

/// Most lines an excerpt has.
pub const EXCERPT_LINES: usize = 40;
const MAX_LINE_CHARS: usize = 300;

macro_rules! re {
    ($name:ident, $pat:expr) => {
        static $name: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new($pat).ok());
    };
}

re!(TIMED_OUT, r"timed out after (\d+) seconds");
re!(
    INVALID_HASH,
    r"(?:invalid SRI hash|invalid base-\d+ hash|hash) '([^']*)'(?: has wrong length| does not include a type| is not SRI)?"
);
re!(
    BUILDER_FAILED,
    r"builder for '([^']+)' failed(?: with exit code (\d+))?"
);
re!(
    DEPENDENCIES_FAILED,
    r"(\d+) dependencies of derivation '([^']+)' failed to build|Cannot build '([^']+)'\.\s*\n?\s*Reason: \d+ dependenc(?:y|ies) failed|dependency failed"
);
re!(LOCATION, r"at (\S+?):(\d+):(\d+):");
re!(SYNTAX, r"syntax error, (.*)");
re!(UNDEFINED, r"undefined variable '([^']+)'");
re!(MISSING_ATTR, r"attribute '([^']+)' missing");
re!(MISSING_ARG, r"called without required argument '([^']+)'");
re!(UNEXPECTED_ARG, r"called with unexpected argument '([^']+)'");
re!(
    PHASE,
    r"^(?:Running phase: (\w+)|(unpacking sources|patching sources|configuring|building|running tests|installing|post-installation fixup|running install tests)$)"
);

fn caps<'a>(re: &LazyLock<Option<Regex>>, text: &'a str) -> Option<regex::Captures<'a>> {
    re.as_ref().and_then(|r| r.captures(text))
}

fn lines(log: &str) -> Vec<String> {
    crate::logs::bounded_tail(log)
        .lines()
        .map(strip_ansi)
        .collect()
}

/// Classifies a failed step. `top_drv` is the derivation that was asked
/// for (from evaluation): a builder failure in any other derivation is a
/// dependency failure.
pub fn classify(step: Step, log: &str, top_drv: Option<&str>) -> NixDiagnosis {
    let ls = lines(log);
    let text = ls.join("\n");
    let make = |failure: Failure, excerpt: String, signature: &str| NixDiagnosis {
        step,
        failure,
        excerpt,
        signature: normalize_line(signature),
    };

    if let Some(c) = caps(&TIMED_OUT, &text) {
        let line = find_line(&ls, "timed out").unwrap_or_default();
        return make(
            Failure::Timeout {
                step,
                after_secs: c.get(1).and_then(|m| m.as_str().parse().ok()),
            },
            tail_excerpt(&ls, 15),
            &line,
        );
    }
    if let Some(m) = parse_mismatch(&text) {
        let at = ls
            .iter()
            .position(|l| l.contains("hash mismatch in fixed-output derivation"))
            .unwrap_or(0);
        let excerpt = ls[at..(at + 3).min(ls.len())].join("\n");
        let sig = format!("hash mismatch {}", m.drv.as_deref().unwrap_or(""));
        return make(
            Failure::HashMismatch {
                drv: m.drv,
                specified: m.specified,
                got: m.got,
            },
            excerpt,
            &sig,
        );
    }
    let error_line_idx = ls.iter().position(|l| l.trim_start().starts_with("error:"));
    if let Some(i) = error_line_idx {
        if let Some(c) = ls[i..].iter().find_map(|l| {
            caps(&INVALID_HASH, l).filter(|_| {
                l.contains("SRI")
                    || l.contains("wrong length")
                    || l.contains("does not include")
                    || l.contains("base-")
            })
        }) {
            let hash = c.get(1).map_or("", |m| m.as_str()).to_string();
            let line = find_line(&ls, &format!("'{hash}'")).unwrap_or_default();
            return make(Failure::InvalidHash { hash }, line.clone(), &line);
        }
    }
    let builders: Vec<(String, Option<i32>)> = ls
        .iter()
        .filter_map(|l| caps(&BUILDER_FAILED, l))
        .filter_map(|c| {
            Some((
                c.get(1)?.as_str().to_string(),
                c.get(2).and_then(|m| m.as_str().parse().ok()),
            ))
        })
        .collect();
    let deps_line = caps(&DEPENDENCIES_FAILED, &text).is_some();
    let is_top = |d: &str| top_drv.is_none_or(|t| t == d);
    let failed_deps: Vec<String> = builders
        .iter()
        .filter(|(d, _)| !is_top(d))
        .map(|(d, _)| d.clone())
        .collect();
    if !failed_deps.is_empty() || (deps_line && builders.is_empty()) {
        let at = ls
            .iter()
            .position(|l| l.contains("builder for '"))
            .unwrap_or(ls.len());
        let mut excerpt = builder_excerpt(&ls[..at]);
        excerpt.push_str(
            &ls[at..]
                .iter()
                .filter(|l| l.starts_with("error:"))
                .map(|l| clip(l))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        let sig = format!("dependency failed {}", failed_deps.join(" "));
        return make(
            Failure::DependencyFailure {
                failed: failed_deps,
            },
            excerpt,
            &sig,
        );
    }
    if let Some((drv, code)) = builders.first() {
        let at = ls
            .iter()
            .position(|l| l.contains("builder for '"))
            .unwrap_or(ls.len());
        let phase = ls[..at].iter().rev().find_map(|l| {
            let c = caps(&PHASE, l.trim())?;
            if let Some(p) = c.get(1) {
                return Some(p.as_str().to_string());
            }
            Some(legacy_phase(c.get(2)?.as_str()).to_string())
        });
        let mut excerpt = builder_excerpt(&ls[..at]);
        excerpt.push_str(&clip(&ls[at]));
        let sig = cause_line(&ls[..at]).unwrap_or_else(|| ls[at].clone());
        return make(
            Failure::BuildFailure {
                drv: Some(drv.clone()),
                phase,
                exit_code: *code,
            },
            excerpt,
            &sig,
        );
    }
    if let Some(i) = error_line_idx {
        return eval_error(step, &ls, i);
    }
    make(Failure::Unknown, tail_excerpt(&ls, 20), "unknown")
}

fn eval_error(step: Step, ls: &[String], first_error: usize) -> NixDiagnosis {
    let rest = &ls[first_error..];
    let text = rest.join("\n");
    let (error, name, message) = if let Some(c) = caps(&SYNTAX, &text) {
        (EvalErrorKind::Syntax, None, c.get(0))
    } else if let Some(c) = caps(&UNDEFINED, &text) {
        (EvalErrorKind::UndefinedVariable, c.get(1), c.get(0))
    } else if let Some(c) = caps(&MISSING_ARG, &text) {
        (EvalErrorKind::MissingArgument, c.get(1), c.get(0))
    } else if let Some(c) = caps(&UNEXPECTED_ARG, &text) {
        (EvalErrorKind::UnexpectedArgument, c.get(1), c.get(0))
    } else if let Some(c) = caps(&MISSING_ATTR, &text) {
        (EvalErrorKind::MissingAttribute, c.get(1), c.get(0))
    } else {
        (EvalErrorKind::Other, None, None)
    };
    let message = message.map_or_else(
        || {
            rest.iter()
                .map(|l| l.trim().trim_start_matches("error:").trim())
                .find(|l| !l.is_empty())
                .unwrap_or_default()
                .to_string()
        },
        |m| m.as_str().to_string(),
    );
    // The position that belongs to the message: the first `at` after it.
    let msg_line = rest.iter().position(|l| l.contains(&message)).unwrap_or(0);
    let location = rest[msg_line..]
        .iter()
        .chain(rest[..msg_line].iter())
        .find_map(|l| {
            let c = caps(&LOCATION, l)?;
            Some(Location {
                file: c.get(1)?.as_str().to_string(),
                line: c.get(2)?.as_str().parse().ok()?,
                column: c.get(3)?.as_str().parse().ok()?,
            })
        });
    let excerpt: Vec<String> = rest
        .iter()
        .skip(msg_line.saturating_sub(1))
        .filter(|l| !l.trim().is_empty())
        .take(12)
        .map(|l| clip(l))
        .collect();
    let name = name.map(|m| m.as_str().to_string());
    let signature = normalize_line(&message);
    NixDiagnosis {
        step,
        failure: Failure::EvalError {
            error,
            name,
            message,
            location,
        },
        excerpt: excerpt.join("\n"),
        signature,
    }
}

fn legacy_phase(msg: &str) -> &'static str {
    match msg {
        "unpacking sources" => "unpackPhase",
        "patching sources" => "patchPhase",
        "configuring" => "configurePhase",
        "building" => "buildPhase",
        "running tests" => "checkPhase",
        "installing" => "installPhase",
        "post-installation fixup" => "fixupPhase",
        _ => "installCheckPhase",
    }
}

/// Nix's own status lines, not builder output.
fn is_nix_status(l: &str) -> bool {
    l.starts_with("building '")
        || l.starts_with("these ")
        || l.starts_with("this derivation")
        || l.starts_with("  /nix/store/")
        || l.starts_with("$ ")
        || l.starts_with("warning: ")
}

fn is_error_like(l: &str) -> bool {
    let lower = l.to_ascii_lowercase();
    [
        "error",
        "fatal",
        "undefined reference",
        "no such file",
        "not found",
        "failed",
        "cannot find",
    ]
    .iter()
    .any(|k| lower.contains(k))
}

/// The first error-like line of the last phase (compilers and configure
/// scripts report the cause first; `make: *** … Error 1` follows it).
fn cause_line(ls: &[String]) -> Option<String> {
    let phase_start = ls
        .iter()
        .rposition(|l| caps(&PHASE, l.trim()).is_some())
        .map_or(0, |i| i + 1);
    ls[phase_start..]
        .iter()
        .chain(ls[..phase_start].iter().rev())
        .filter(|l| !is_nix_status(l))
        .find(|l| is_error_like(l))
        .cloned()
}

/// The builder output before Nix's failure line: the first error-like lines
/// (compilers report the cause first) and the last lines, within the cap.
fn builder_excerpt(ls: &[String]) -> String {
    let out: Vec<&String> = ls.iter().filter(|l| !is_nix_status(l)).collect();
    let tail_n = 20.min(out.len());
    let tail_start = out.len() - tail_n;
    let mut picked: Vec<usize> = out[..tail_start]
        .iter()
        .enumerate()
        .filter(|(_, l)| is_error_like(l))
        .map(|(i, _)| i)
        .take(EXCERPT_LINES - tail_n - 2)
        .collect();
    picked.extend(tail_start..out.len());
    let mut s = String::new();
    let mut prev: Option<usize> = None;
    for i in picked {
        if prev.is_some_and(|p| p + 1 != i) || (prev.is_none() && i > 0) {
            s.push_str("…\n");
        }
        s.push_str(&clip(out[i]));
        s.push('\n');
        prev = Some(i);
    }
    s
}

fn tail_excerpt(ls: &[String], n: usize) -> String {
    let ls: Vec<&String> = ls.iter().filter(|l| !l.starts_with("$ ")).collect();
    ls[ls.len().saturating_sub(n)..]
        .iter()
        .map(|l| clip(l))
        .collect::<Vec<_>>()
        .join("\n")
}

fn find_line(ls: &[String], needle: &str) -> Option<String> {
    ls.iter().find(|l| l.contains(needle)).map(|l| clip(l))
}

fn clip(l: &str) -> String {
    if l.chars().count() <= MAX_LINE_CHARS {
        l.to_string()
    } else {
        let cut: String = l.chars().take(MAX_LINE_CHARS).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_nix_dependency_message_is_recognised() {
        let log =
            "error: Cannot build '/nix/store/aaa-app.drv'.\n       Reason: 1 dependency failed.\n";
        let d = classify(Step::Build, log, Some("/nix/store/aaa-app.drv"));
        assert_eq!(d.kind(), FailureKind::DependencyFailure);
    }

    #[test]
    fn newer_nix_invalid_hash_messages() {
        for msg in [
            "error: hash 'sha256-abc' does not include a type, nor is the type otherwise known from context",
            "error: invalid SRI hash 'sha256-abc'",
            "error: hash 'abc' has wrong length for hash type 'sha256'",
        ] {
            let d = classify(Step::Evaluate, msg, None);
            assert_eq!(d.kind(), FailureKind::InvalidHash, "{msg}");
        }
    }

    #[test]
    fn phase_from_the_current_stdenv_banner() {
        let log = "Running phase: unpackPhase\nRunning phase: configurePhase\n\
                   CMake Error at CMakeLists.txt:3 (find_package):\n\
                   error: builder for '/nix/store/h-x.drv' failed with exit code 1\n";
        let d = classify(Step::Build, log, Some("/nix/store/h-x.drv"));
        assert_eq!(
            d.failure,
            Failure::BuildFailure {
                drv: Some("/nix/store/h-x.drv".into()),
                phase: Some("configurePhase".into()),
                exit_code: Some(1)
            }
        );
        assert!(d.signature.contains("CMake Error"));
    }
}
