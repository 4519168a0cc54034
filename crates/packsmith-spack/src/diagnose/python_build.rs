//! A Python build backend (hatchling, setuptools, flit, …) that pip ran
//! and that refused the project. pip's own summary (`subprocess-exited-
//! with-error`, `metadata-generation-failed`) says only that it failed;
//! the reason is the backend's exception or `error:` line earlier in the
//! build log, which is what a repair must read.

use std::sync::LazyLock;

use regex::Regex;

use super::matching::is_traceback_frame;
use super::matching::{diagnosis, first_match, re};
use super::{Diagnosis, FailureClass};
use crate::validate::Stage;

/// pip's words for a backend that failed.
static PIP_FAILED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(subprocess-exited-with-error|metadata-generation-failed|Failed building wheel for|ERROR: Failed to build)",
    )
});
/// An exception line of a traceback: `ValueError: Unknown classifier …`.
static EXCEPTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"^([A-Za-z_][\w.]*(?:Error|Exception)): \S"));
/// Lines after the cause that still belong to it (setuptools explains a
/// refusal over several lines).
const AFTER: usize = 6;
/// Lines before an exception searched for the traceback's last frame.
const FRAME_BACK: usize = 6;

/// pip's own `error:` lines, never the cause.
fn is_pip_line(line: &str) -> bool {
    PIP_FAILED.as_ref().is_some_and(|r| r.is_match(line)) || line.contains("pip._internal")
}

fn is_cause(line: &str) -> bool {
    let line = line.trim();
    if is_pip_line(line) {
        return false;
    }
    EXCEPTION.as_ref().is_some_and(|r| r.is_match(line)) || line.starts_with("error: ")
}

/// The backend's reason for a failed pip build, when the build log has
/// one before pip's summary. Compiler errors of an extension module are
/// the compilation rule's, so the caller asks this only without them.
pub fn python_backend(stage: Stage, build_lines: &[&str]) -> Option<Diagnosis> {
    if stage != Stage::Install {
        return None;
    }
    let (end, _) = first_match(build_lines, &PIP_FAILED)?;
    let cause = (0..end).rev().find(|&i| is_cause(build_lines[i]))?;
    let mut excerpt: Vec<&str> = Vec::new();
    // The last frame before the exception: which part of the backend
    // refused (its code line follows the frame line).
    if let Some(frame) = (cause.saturating_sub(FRAME_BACK)..cause)
        .rev()
        .find(|&i| is_traceback_frame(build_lines[i]))
    {
        excerpt.extend(&build_lines[frame..cause]);
    }
    excerpt.push(build_lines[cause]);
    excerpt.extend(
        build_lines[cause + 1..]
            .iter()
            .take(AFTER)
            .take_while(|l| !l.trim().is_empty() && !is_pip_line(l.trim()) && !is_cause(l)),
    );
    let mut d = diagnosis(
        stage,
        FailureClass::Compilation,
        build_lines[cause].trim().to_string(),
        excerpt,
    );
    d.hint = Some(
        "the Python build backend refused the project for the reason above; a backend older \
         than the project expects rejects metadata it does not know, which a filter_file on the \
         file that holds it (pyproject.toml, setup.cfg) can remove"
            .into(),
    );
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HATCHLING: &str = "\
  Preparing metadata (pyproject.toml): started
  Traceback (most recent call last):
    File \"/site/hatchling/metadata/core.py\", line 1327, in validate_fields
      getattr(self, attribute)
    File \"/site/hatchling/metadata/core.py\", line 979, in classifiers
      raise ValueError(message)
  ValueError: Unknown classifier in field `project.classifiers`: Programming Language :: Python :: 3.13
  error: subprocess-exited-with-error

  × Preparing metadata (pyproject.toml) did not run successfully.
  note: This error originates from a subprocess, and is likely not a problem with pip.
error: metadata-generation-failed
";

    const SETUPTOOLS: &str = "\
  running dist_info
  error: Multiple top-level packages discovered in a flat-layout: ['imgs', 'plotille'].

  To avoid accidental inclusion of unwanted files or directories,
  error: subprocess-exited-with-error
error: metadata-generation-failed
";

    #[test]
    fn the_backends_exception_is_the_cause_not_pips_summary() {
        let lines: Vec<&str> = HATCHLING.lines().collect();
        let d = python_backend(Stage::Install, &lines).unwrap();
        assert_eq!(d.class, FailureClass::Compilation);
        assert!(
            d.summary.starts_with("ValueError: Unknown classifier"),
            "{}",
            d.summary
        );
        assert!(d.excerpt.contains("in classifiers"), "{}", d.excerpt);
        assert!(!d.excerpt.contains("subprocess-exited"), "{}", d.excerpt);
        // Through the classifier: the same cause, not make's or pip's line.
        let d = crate::diagnose::classify(
            Stage::Install,
            "==> Error: ProcessError: Command exited with status 1:",
            Some(HATCHLING),
        );
        assert!(
            d.summary.starts_with("ValueError: Unknown classifier"),
            "{d:#?}"
        );
    }

    #[test]
    fn a_setuptools_refusal_keeps_its_explanation() {
        let lines: Vec<&str> = SETUPTOOLS.lines().collect();
        let d = python_backend(Stage::Install, &lines).unwrap();
        assert!(d.summary.starts_with("error: Multiple top-level packages"));
        // Without pip's failure there is nothing to read, and another
        // stage is not a build.
        let no_pip: Vec<&str> = lines[..2].to_vec();
        assert!(python_backend(Stage::Install, &no_pip).is_none());
        assert!(python_backend(Stage::Concretize, &lines).is_none());
    }
}
