//! What every rule file shares: compiling a pattern, the first line that
//! matches, and a `Diagnosis` with its signature (the summary with hashes
//! and numbers blurred, so the same failure twice is recognised).

use std::sync::LazyLock;

use regex::Regex;

use super::excerpt::cap;
use super::{Diagnosis, FailureClass};
use crate::validate::Stage;

pub(super) fn re(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

static BLUR: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"[0-9a-f]{7,}|\d+"));

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
    }
}
