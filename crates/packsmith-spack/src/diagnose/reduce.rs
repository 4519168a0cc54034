//! A whole log cut to what explains its failure, for a model to read when
//! no rule classified it: the lines that report an error, each with a
//! little context, repeated lines (equal once numbers, hashes and paths
//! are blurred) kept once, capped. Unlike an excerpt, which cuts the one
//! block a rule recognised, this needs no rule: it is what is left when
//! the rules have nothing to say.

use std::collections::HashSet;
use std::sync::LazyLock;

use packsmith_agent::clip_bytes;
use regex::Regex;

use super::excerpt::strip_ansi;

/// Lines of context kept before and after an error line.
const BEFORE: usize = 2;
const AFTER: usize = 3;
/// Most lines and bytes a reduced log has.
pub const MAX_LINES: usize = 60;
pub const MAX_BYTES: usize = 6144;
/// Longer lines are cut to this many bytes.
const MAX_LINE: usize = 240;

/// Words that mark a line as reporting a failure (case-insensitive).
static ERROR_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(error|errors|fatal|failed|failure|undefined reference|no such file|not found|could not|cannot|traceback|exception|denied|killed|timed out|unsatisfiable|conflict)\b",
    )
    .ok()
});

/// What makes two lines "the same": digits, hex runs and absolute paths.
static BLUR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(/[^\s:'\x22]+)+|\b[0-9a-f]{7,}\b|\d+").ok());

/// A reduced log and how much it kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReducedLog {
    pub text: String,
    pub lines_in: usize,
    pub lines_out: usize,
    pub bytes_in: usize,
}

fn is_error_line(line: &str) -> bool {
    ERROR_LINE.as_ref().is_some_and(|re| re.is_match(line))
}

fn blurred(line: &str) -> String {
    match BLUR.as_ref() {
        Some(re) => re.replace_all(line.trim(), "#").into_owned(),
        None => line.trim().to_string(),
    }
}

/// `log` reduced: error lines with [`BEFORE`]/[`AFTER`] lines of context,
/// each distinct line once, gaps marked `…`, at most [`MAX_LINES`] lines
/// and [`MAX_BYTES`] bytes. The last errors matter most (a build stops at
/// its first fatal error, and Spack repeats it at the end), so when the
/// cap is reached the earliest lines are the ones dropped. A log with no
/// error line keeps its last lines.
pub fn reduce_log(log: &str) -> ReducedLog {
    let clean = strip_ansi(log);
    let lines: Vec<&str> = clean.lines().collect();
    let mut keep = vec![false; lines.len()];
    let mut any = false;
    for (i, line) in lines.iter().enumerate() {
        if is_error_line(line) {
            any = true;
            let from = i.saturating_sub(BEFORE);
            let to = (i + AFTER).min(lines.len().saturating_sub(1));
            keep[from..=to].iter_mut().for_each(|k| *k = true);
        }
    }
    if !any {
        let from = lines.len().saturating_sub(MAX_LINES);
        keep[from..].iter_mut().for_each(|k| *k = true);
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut picked: Vec<String> = Vec::new();
    let mut gap = false;
    for (i, line) in lines.iter().enumerate() {
        if !keep[i] || line.trim().is_empty() {
            gap |= !keep[i];
            continue;
        }
        if !seen.insert(blurred(line)) {
            continue;
        }
        if gap && !picked.is_empty() {
            picked.push("…".to_string());
        }
        gap = false;
        picked.push(clip_bytes(line.trim_end(), MAX_LINE).to_string());
    }
    // Newest last: drop from the front until both caps hold.
    let mut bytes: usize = picked.iter().map(|l| l.len() + 1).sum();
    let mut start = 0;
    while start < picked.len() && (picked.len() - start > MAX_LINES || bytes > MAX_BYTES) {
        bytes -= picked[start].len() + 1;
        start += 1;
    }
    let kept = &picked[start..];
    ReducedLog {
        text: kept.join("\n"),
        lines_in: lines.len(),
        lines_out: kept.len(),
        bytes_in: log.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_keep_context_once_and_the_rest_goes() {
        let mut log = String::new();
        for i in 0..200 {
            log.push_str(&format!("-- Looking for header{i}.h - found\n"));
        }
        log.push_str("context a\ncontext b\n/tmp/x/a.c:3:10: fatal error: foo.h: No such file or directory\n");
        log.push_str("compilation terminated.\n");
        for i in 0..50 {
            log.push_str(&format!(
                "make[2]: *** [/stage/{i}/build.make:93: a.o] Error 1\n"
            ));
        }
        let r = reduce_log(&log);
        assert!(r.text.contains("fatal error: foo.h"), "{}", r.text);
        assert!(r.text.contains("context a"), "{}", r.text);
        assert!(!r.text.contains("header10.h"), "{}", r.text);
        // Fifty make lines that differ only by numbers and paths are one.
        assert_eq!(r.text.matches("build.make").count(), 1, "{}", r.text);
        assert!(r.lines_out < 15 && r.lines_in > 250, "{r:?}");
    }

    #[test]
    fn the_caps_drop_the_oldest_lines_and_a_quiet_log_keeps_its_tail() {
        let log: String = (0..500)
            .map(|i| {
                format!(
                    "error: distinct problem number {}\n",
                    "x".repeat(i % 97 + 1)
                )
            })
            .collect();
        let r = reduce_log(&log);
        assert!(
            r.lines_out <= MAX_LINES && r.text.len() <= MAX_BYTES,
            "{r:?}"
        );
        let step = |i: usize| {
            let letter = char::from(b'a' + (i % 26) as u8);
            format!("step {} ok", letter.to_string().repeat(i / 26 + 1))
        };
        let quiet: String = (0..100).map(|i| format!("{}\n", step(i))).collect();
        let r = reduce_log(&quiet);
        assert!(r.text.ends_with(&step(99)), "{}", r.text);
        assert!(r.text.starts_with(&step(40)), "{}", r.text);
    }
}
