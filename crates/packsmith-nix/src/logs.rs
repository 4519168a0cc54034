//! Logs for the model: a numbered tail with paging back (never the whole
//! log), and the comparison of two build logs that feeds the progress
//! judgement, with a cheap deterministic pre-judgement.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The last `n` lines of `text`, joined.
pub fn last_lines(text: &str, n: usize) -> String {
    let ls: Vec<&str> = text.lines().collect();
    ls[ls.len().saturating_sub(n)..].join("\n")
}

static ANSI: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07").ok());
static STORE_HASH: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"/nix/store/[0-9a-df-np-sv-z]{32}-").ok());
static TMP_BUILD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"/build/[A-Za-z0-9._-]+-\d+|nix-build-[A-Za-z0-9._+-]+-\d+").ok());
static TIMESTAMP: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?|\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b|\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds)\b").ok()
});

/// Most lines of a log any reader looks at: the last ones, where a build
/// fails (Nix itself shows 25). A log of 200 000 empty lines costs what
/// 20 000 do.
pub const MAX_LOG_LINES: usize = 20_000;

/// The last [`MAX_LOG_LINES`] lines of `log`, found from the end.
pub fn bounded_tail(log: &str) -> &str {
    let mut seen = 0;
    for (i, b) in log.bytes().enumerate().rev() {
        if b == b'\n' && i + 1 < log.len() {
            seen += 1;
            if seen == MAX_LOG_LINES {
                return &log[i + 1..];
            }
        }
    }
    log
}

/// Longest line kept whole. Every reader of a log goes through
/// [`strip_ansi`], so a megabyte-long line (minified output, a runaway
/// progress bar) costs each regex this much, not the whole line; an error
/// message or a compiler command fits.
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// Removes terminal escape sequences and carriage-return overwrites; a line
/// over [`MAX_LINE_BYTES`] keeps its start and says how much was cut.
pub fn strip_ansi(line: &str) -> String {
    let line = line.rsplit('\r').find(|s| !s.is_empty()).unwrap_or("");
    let cut;
    let line = if line.len() > MAX_LINE_BYTES {
        let mut end = MAX_LINE_BYTES;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        cut = format!("{} [… {} bytes cut]", &line[..end], line.len() - end);
        cut.as_str()
    } else {
        line
    };
    // The regexes only where they can match: most lines have no escape.
    match ANSI.as_ref() {
        Some(re) if line.contains('\x1b') => re.replace_all(line, "").into_owned(),
        _ => line.to_string(),
    }
}

/// A line with what differs between otherwise identical builds blurred:
/// store-path hashes, build directory numbers, timestamps and durations.
pub fn normalize_line(line: &str) -> String {
    blur(strip_ansi(line))
}

/// [`normalize_line`] of a line [`strip_ansi`] already cleaned.
fn blur(mut s: String) -> String {
    // Build numbers and times need a digit and hashes a store path: a line
    // with neither has nothing to blur (most lines of a log).
    if !s.contains("/nix/store/") && !s.bytes().any(|b| b.is_ascii_digit()) {
        s.truncate(s.trim_end().len());
        return s;
    }
    for (re, with) in [
        (&STORE_HASH, "/nix/store/<hash>-"),
        (&TMP_BUILD, "<builddir>"),
        (&TIMESTAMP, "<time>"),
    ] {
        if let Some(re) = re.as_ref() {
            s = re.replace_all(&s, with).into_owned();
        }
    }
    s.trim_end().to_string()
}

/// A log held for the model: read by numbered pages from the end.
#[derive(Debug, Clone)]
pub struct LogView {
    lines: Vec<String>,
}

/// One page of a log, with 1-based line numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogPage {
    /// 1-based number of the first line shown (0 when empty).
    pub first: usize,
    pub last: usize,
    pub total: usize,
    pub text: String,
    /// True when earlier lines exist (page back with a larger offset).
    pub more_before: bool,
}

impl LogView {
    pub fn new(log: &str) -> Self {
        Self {
            lines: log.lines().map(strip_ansi).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The last `n` lines.
    pub fn tail(&self, n: usize) -> LogPage {
        self.page(0, n)
    }

    /// `n` lines ending `offset` lines before the end: offset 0 is the tail,
    /// offset n the page before it, and so on.
    pub fn page(&self, offset: usize, n: usize) -> LogPage {
        let total = self.lines.len();
        let end = total.saturating_sub(offset);
        let start = end.saturating_sub(n);
        LogPage {
            first: if end > start { start + 1 } else { 0 },
            last: end,
            total,
            text: number(&self.lines[start..end], start + 1),
            more_before: start > 0,
        }
    }
}

fn number(lines: &[String], first: usize) -> String {
    let width = (first + lines.len()).to_string().len().max(4);
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{:>width$}: {l}", first + i))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The two logs cut for the progress judgement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogComparison {
    /// Numbered lines of the previous (accepted) attempt's log, from its
    /// divergence point, capped.
    pub previous: String,
    /// Numbered lines of the new attempt's log, likewise.
    pub new: String,
    /// 1-based line where each log starts to differ from the other.
    pub previous_diverges_at: usize,
    pub new_diverges_at: usize,
    /// True when a log was cut to the cap (lines between are not shown).
    pub truncated: bool,
    /// The normalised logs are identical.
    pub identical: bool,
}

/// Lines of context kept before a divergence point.
const CONTEXT: usize = 3;

/// Cuts both logs from where they diverge. A line "diverges" when its
/// normalised form appears nowhere in the other log, so reordered parallel
/// output and hashes or timestamps that change every build do not count.
/// Each side is then capped at `max_lines` (the last ones are kept: the
/// failure is at the end).
pub fn compare_logs(previous: &str, new: &str, max_lines: usize) -> LogComparison {
    let (previous, new) = (bounded_tail(previous), bounded_tail(new));
    let prev: Vec<String> = previous.lines().map(strip_ansi).collect();
    let next: Vec<String> = new.lines().map(strip_ansi).collect();
    let pn: Vec<String> = prev.iter().cloned().map(blur).collect();
    let nn: Vec<String> = next.iter().cloned().map(blur).collect();
    let pset: HashSet<&str> = pn.iter().map(String::as_str).collect();
    let nset: HashSet<&str> = nn.iter().map(String::as_str).collect();
    let first_missing = |lines: &[String], other: &HashSet<&str>| {
        lines
            .iter()
            .position(|l| !other.contains(l.as_str()))
            .unwrap_or(lines.len())
    };
    let pd = first_missing(&pn, &nset);
    let nd = first_missing(&nn, &pset);
    let mut truncated = false;
    let mut cut = |lines: &[String], div: usize| {
        let from_div = div.saturating_sub(CONTEXT);
        let from_cap = lines.len().saturating_sub(max_lines);
        let start = from_div.max(from_cap);
        truncated |= from_cap > from_div;
        number(&lines[start..], start + 1)
    };
    let previous = cut(&prev, pd);
    let new = cut(&next, nd);
    LogComparison {
        previous,
        new,
        previous_diverges_at: pd + 1,
        new_diverges_at: nd + 1,
        truncated,
        identical: pn == nn,
    }
}

/// The progress labels the agent loop uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    Progress,
    Regress,
    Stagnation,
    BrokenLog,
}

/// A verdict reached without a model, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreJudgement {
    pub verdict: Verdict,
    pub reason: String,
}

/// stdenv's phases in the order they run.
const PHASES: &[&str] = &[
    "unpackPhase",
    "patchPhase",
    "updateAutotoolsGnuConfigScriptsPhase",
    "autoreconfPhase",
    "configurePhase",
    "buildPhase",
    "checkPhase",
    "installPhase",
    "fixupPhase",
    "installCheckPhase",
    "pythonImportsCheckPhase",
    "distPhase",
];

/// The index in [`PHASES`] of the last phase a log reached.
pub fn last_phase(log: &str) -> Option<usize> {
    log.lines().rev().find_map(|l| {
        let l = strip_ansi(l);
        let l = l.trim();
        let name = l.strip_prefix("Running phase: ").or(match l {
            "unpacking sources" => Some("unpackPhase"),
            "patching sources" => Some("patchPhase"),
            "configuring" => Some("configurePhase"),
            "building" => Some("buildPhase"),
            "running tests" => Some("checkPhase"),
            "installing" => Some("installPhase"),
            "post-installation fixup" => Some("fixupPhase"),
            _ => None,
        })?;
        PHASES.iter().position(|p| *p == name)
    })
}

/// Share of lines that are mostly escape codes or progress-bar rewrites.
fn garbled_ratio(log: &str) -> f64 {
    let total = log.lines().count();
    if total == 0 {
        return 0.0;
    }
    let bad = log
        .lines()
        .filter(|l| l.matches('\r').count() > 2 || l.matches('\x1b').count() > 4)
        .count();
    bad as f64 / total as f64
}

/// The obvious cases, so a model call can be skipped: identical logs are
/// stagnation; a later (earlier) stdenv phase is progress (regress); a log
/// that is mostly terminal control codes is broken. None = ask the model.
/// Both logs should be of build failures (other failures get no verdict).
pub fn prejudge(previous: &str, new: &str) -> Option<PreJudgement> {
    let (previous, new) = (bounded_tail(previous), bounded_tail(new));
    let j = |verdict, reason: String| Some(PreJudgement { verdict, reason });
    if garbled_ratio(new) > 0.3 {
        return j(
            Verdict::BrokenLog,
            "most lines of the new log are terminal control output".into(),
        );
    }
    // Only whether they are the same: no numbered copy of either log.
    let normalized = |log: &str| log.lines().map(normalize_line).collect::<Vec<_>>();
    if normalized(previous) == normalized(new) {
        return j(
            Verdict::Stagnation,
            "the logs are identical apart from hashes and times".into(),
        );
    }
    match (last_phase(previous), last_phase(new)) {
        (Some(p), Some(n)) if n > p => j(
            Verdict::Progress,
            format!("the build now reaches {} (was {})", PHASES[n], PHASES[p]),
        ),
        (Some(p), Some(n)) if n < p => j(
            Verdict::Regress,
            format!("the build now stops in {} (was {})", PHASES[n], PHASES[p]),
        ),
        _ => {
            // Every error line, not just the last: `make: *** Error 1`
            // ends both logs when one missing header replaced another.
            let errors = |log: &str| {
                let mut e: Vec<String> = log
                    .lines()
                    .map(normalize_line)
                    .filter(|l| !l.starts_with("error: builder for") && l.contains("rror"))
                    .collect();
                e.sort();
                e.dedup();
                e
            };
            let (a, b) = (errors(previous), errors(new));
            match a.last() {
                Some(last) if a == b && last_phase(previous) == last_phase(new) => j(
                    Verdict::Stagnation,
                    format!("the same errors again in the same phase: {last}"),
                ),
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(lines: &[&str]) -> String {
        lines.join("\n")
    }

    #[test]
    fn readers_see_only_the_last_lines_of_a_long_log() {
        let log: String = (0..MAX_LOG_LINES + 5).map(|i| format!("{i}\n")).collect();
        let tail = bounded_tail(&log);
        assert_eq!(tail.lines().count(), MAX_LOG_LINES);
        assert!(tail.starts_with("5\n") && tail.ends_with(&format!("{}\n", MAX_LOG_LINES + 4)));
        assert_eq!(bounded_tail("a\nb"), "a\nb");
    }

    /// The fuzzer's 1 MB line: each reader sees its start, not all of it
    /// (it took 2.5 s per classification, unoptimized, before the cut).
    #[test]
    fn a_megabyte_line_is_cut_to_its_start_at_a_char_boundary() {
        let long = format!("error: é{}", "é".repeat(512 * 1024));
        let line = strip_ansi(&long);
        assert!(line.len() < MAX_LINE_BYTES + 40, "{}", line.len());
        assert!(line.starts_with("error: é"));
        assert!(line.ends_with("bytes cut]"), "{}", &line[line.len() - 40..]);
        let short = "\x1b[31merror:\x1b[0m short";
        assert_eq!(strip_ansi(short), "error: short");
        let d = crate::diagnose::classify(
            crate::runner::Step::Build,
            &format!("building\n{long}\nfatal error: zlib.h: No such file or directory\n"),
            None,
        );
        assert!(d.excerpt.len() < 4 * MAX_LINE_BYTES, "{}", d.excerpt.len());
    }

    #[test]
    fn tail_and_pages_are_numbered_from_the_end() {
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let v = LogView::new(&text);
        let t = v.tail(3);
        assert_eq!(t.text, "   8: line 8\n   9: line 9\n  10: line 10");
        assert!(t.more_before);
        let p = v.page(3, 3);
        assert_eq!((p.first, p.last), (5, 7));
        let start = v.page(8, 5);
        assert_eq!((start.first, start.last, start.more_before), (1, 2, false));
        let past = v.page(50, 5);
        assert_eq!((past.first, past.text.as_str()), (0, ""));
    }

    #[test]
    fn normalisation_blurs_hashes_times_and_build_dirs() {
        assert_eq!(
            normalize_line("\x1b[31mcopying /nix/store/0123456789abcdfghijklmnpqrsvwxyz-foo in 12.5s at 10:01:02\x1b[0m"),
            "copying /nix/store/<hash>-foo in <time> at <time>"
        );
        assert_eq!(normalize_line("cd /build/source-1234"), "cd <builddir>");
    }

    #[test]
    fn comparison_cuts_from_divergence_and_keeps_numbers() {
        let prev = log(&["a", "b", "c", "d", "e", "error: X"]);
        let new = log(&["a", "b", "c", "d", "e", "f", "g", "error: Y"]);
        let c = compare_logs(&prev, &new, 100);
        assert_eq!(c.previous_diverges_at, 6);
        assert_eq!(c.new_diverges_at, 6);
        assert_eq!(c.previous, "   3: c\n   4: d\n   5: e\n   6: error: X");
        assert!(c.new.starts_with("   3: c\n"));
        assert!(c.new.ends_with("   8: error: Y"));
        assert!(!c.truncated && !c.identical);
        let capped = compare_logs(&prev, &new, 2);
        assert!(capped.truncated);
        assert_eq!(capped.new, "   7: g\n   8: error: Y");
    }

    #[test]
    fn reordered_parallel_output_is_not_divergence() {
        let prev = log(&["cc a.c", "cc b.c", "cc c.c", "error: z"]);
        let new = log(&["cc b.c", "cc a.c", "cc c.c", "cc d.c", "error: w"]);
        let c = compare_logs(&prev, &new, 100);
        assert_eq!(c.previous_diverges_at, 4);
        assert_eq!(c.new_diverges_at, 4);
    }

    #[test]
    fn prejudgements() {
        let a = log(&[
            "building '/nix/store/0123456789abcdfghijklmnpqrsvwxyz-x.drv'...",
            "Running phase: unpackPhase",
            "Running phase: configurePhase",
            "error: cannot find zlib",
        ]);
        let same = a.replace(
            "0123456789abcdfghijklmnpqrsvwxyz",
            "zyxwvsrqpnmlkjihgfdcba9876543210",
        );
        assert_eq!(prejudge(&a, &same).unwrap().verdict, Verdict::Stagnation);
        let later = log(&[
            "Running phase: unpackPhase",
            "Running phase: configurePhase",
            "Running phase: buildPhase",
            "main.c:1: error: x",
        ]);
        assert_eq!(prejudge(&a, &later).unwrap().verdict, Verdict::Progress);
        assert_eq!(prejudge(&later, &a).unwrap().verdict, Verdict::Regress);
        let other = log(&[
            "Running phase: unpackPhase",
            "Running phase: configurePhase",
            "error: cannot find openssl",
        ]);
        assert_eq!(
            prejudge(&a, &other),
            None,
            "a different error in the same phase needs a model"
        );
        let garbled = "\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[0m progress\r50%\r60%\r70%\n".repeat(10);
        assert_eq!(prejudge(&a, &garbled).unwrap().verdict, Verdict::BrokenLog);
    }
}
