//! What every rule file shares: compiling a pattern, the first line that
//! matches, and a `Diagnosis` with its signature (the summary with hashes
//! and numbers blurred, so the same failure twice is recognised).

use std::sync::LazyLock;

use regex::Regex;

use super::excerpt::{block, cap};
use super::{Diagnosis, FailureClass};
use crate::validate::Stage;

pub(super) fn re(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

static BLUR: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"[0-9a-f]{7,}|\d+"));

/// A traceback frame, Python's (`File "…/x.py", line N, in f`: groups 1–3)
/// or Spack's own (`cmake.py:504, in define_from_variant:`: groups 4–6).
pub(super) static FRAME: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r#"^\s*(?:File "([^"]*\.py)", line (\d+), in (\S+)|(\S+\.py):(\d+), in (\w+):)"#)
});

/// A traceback frame line (shared by the rule files that read tracebacks).
pub(super) fn is_traceback_frame(line: &str) -> bool {
    FRAME.as_ref().is_some_and(|r| r.is_match(line))
}

pub(super) fn first_match<'a>(
    lines: &[&'a str],
    regex: &LazyLock<Option<Regex>>,
) -> Option<(usize, regex::Captures<'a>)> {
    let regex = regex.as_ref()?;
    lines
        .iter()
        .enumerate()
        .find_map(|(i, l)| regex.captures(l).map(|c| (i, c)))
}

pub(super) fn signature(line: &str) -> String {
    let line = line.trim();
    match BLUR.as_ref() {
        Some(re) => re.replace_all(line, "N").into_owned(),
        None => line.to_string(),
    }
}

/// The diagnosis whose summary is `lines[i]` and whose excerpt is the
/// non-blank lines from `before` lines above it, `count` at most.
pub(super) fn diagnosis_at(
    stage: Stage,
    class: FailureClass,
    lines: &[&str],
    i: usize,
    before: usize,
    count: usize,
) -> Diagnosis {
    let excerpt = block(lines, i.saturating_sub(before), count, |l| {
        !l.trim().is_empty()
    });
    diagnosis(stage, class, lines[i].trim().to_string(), excerpt)
}

pub(super) fn diagnosis<S: AsRef<str>>(
    stage: Stage,
    class: FailureClass,
    summary: String,
    excerpt: Vec<S>,
) -> Diagnosis {
    Diagnosis {
        stage,
        class,
        signature: signature(&summary),
        summary,
        excerpt: cap(&excerpt),
        recipe_line: None,
        names: Vec::new(),
        hint: None,
        findings: Vec::new(),
        undefined: Vec::new(),
    }
}
