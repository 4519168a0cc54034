//! The compact attempt history a repair prompt carries, so the model sees
//! what was already tried and does not oscillate between two wrong ideas.
//! Each entry is a small diff against the recipe it started from plus what
//! failed, in one line.

use serde::{Deserialize, Serialize};

use crate::recipe::{ProgressVerdict, Recipe};
use crate::text::clip_chars;

/// How an attempt's recipe came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptKind {
    /// The deterministic first draft (no model call).
    Draft,
    /// The model completed the first draft.
    ModelDraft,
    /// The model repaired an earlier attempt.
    Repair,
    /// A refinement of a recipe that passed.
    Refine,
}

/// One earlier attempt, as the next prompt sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub attempt: u32,
    pub kind: AttemptKind,
    /// The attempt whose recipe this one started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<u32>,
    /// A small unified diff against the base (capped), or a note.
    pub change: String,
    /// `passed`, or the failing stage.
    pub stage: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<String>,
    /// The failure's first line.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub failure_line: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<ProgressVerdict>,
    /// True when the loop went back to an earlier recipe after this one.
    #[serde(default)]
    pub rolled_back: bool,
}

/// What a repair request is built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptHistory {
    /// The recipe to repair (after a rollback: the last accepted one).
    pub current: Recipe,
    /// The attempt `current` belongs to (0 for a candidate not yet
    /// validated, e.g. during a static-check repair).
    pub current_attempt: u32,
    /// Earlier attempts, oldest first.
    pub entries: Vec<HistoryEntry>,
    /// The progress check found the last log unreadable: the prompt should
    /// ask the model to make the build non-interactive / less noisy.
    #[serde(default)]
    pub broken_log: bool,
}

impl AttemptHistory {
    /// The history as a few lines per attempt, newest `max_entries` only.
    pub fn render_compact(&self, max_entries: usize) -> String {
        let skip = self.entries.len().saturating_sub(max_entries);
        let mut out = String::new();
        if skip > 0 {
            out.push_str(&format!("({skip} earlier attempts not shown)\n"));
        }
        for e in &self.entries[skip..] {
            let base = e.base.map(|b| format!(" from #{b}")).unwrap_or_default();
            let result = match &e.failure_class {
                None => "passed".to_string(),
                Some(class) => format!("failed at {} [{class}]: {}", e.stage, e.failure_line),
            };
            let verdict = match (e.verdict, e.rolled_back) {
                (Some(v), true) => format!(" — {v:?}, rolled back"),
                (Some(v), false) => format!(" — {v:?}"),
                (None, true) => " — rolled back".into(),
                (None, false) => String::new(),
            };
            out.push_str(&format!(
                "attempt {} ({:?}{base}): {result}{verdict}\n",
                e.attempt, e.kind
            ));
            for line in e.change.lines() {
                out.push_str("    ");
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }
}

/// The unified diff from `old` to `new`, labelled with `path`.
pub fn unified_diff(old: &str, new: &str, path: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// At most this many diff lines per history entry.
pub const MAX_DIFF_LINES: usize = 24;

/// A compact unified diff from `old` to `new`: changed lines with one line
/// of context, at most [`MAX_DIFF_LINES`] lines, each clipped to 160 chars.
pub fn compact_diff(old: &str, new: &str) -> String {
    if old == new {
        return "(no change)".into();
    }
    if old.is_empty() {
        return format!("(new recipe, {} lines)", new.lines().count());
    }
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff.unified_diff().context_radius(1).to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(MAX_DIFF_LINES)
        .map(|l| clip_chars(l, 160))
        .collect();
    if lines.len() > MAX_DIFF_LINES {
        out.push(format!(
            "… ({} more diff lines)",
            lines.len() - MAX_DIFF_LINES
        ));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_changed_lines_only() {
        let old = "a\nb\nc\nd\ne\nf\n";
        let new = "a\nb\nC\nd\ne\nf\n";
        let d = compact_diff(old, new);
        assert!(d.contains("-c") && d.contains("+C"), "{d}");
        assert!(!d.contains("\n a\n"), "{d}");
    }

    #[test]
    fn diff_is_capped() {
        let old: String = (0..100).map(|i| format!("{i}\n")).collect();
        let new: String = (0..100).map(|i| format!("x{i}\n")).collect();
        let d = compact_diff(&old, &new);
        assert!(d.lines().count() <= MAX_DIFF_LINES + 1);
        assert!(d.contains("more diff lines"));
    }

    #[test]
    fn render_mentions_failures_and_rollbacks() {
        let h = AttemptHistory {
            current: Recipe::new("p", "x"),
            current_attempt: 2,
            entries: vec![HistoryEntry {
                attempt: 2,
                kind: AttemptKind::Repair,
                base: Some(1),
                change: "-a\n+b".into(),
                stage: "build".into(),
                failure_class: Some("compile".into()),
                failure_line: "error: x".into(),
                verdict: Some(ProgressVerdict::Regress),
                rolled_back: true,
            }],
            broken_log: false,
        };
        let r = h.render_compact(5);
        assert!(r.contains("attempt 2 (Repair from #1): failed at build [compile]: error: x"));
        assert!(r.contains("Regress, rolled back"));
        assert!(r.contains("    +b"));
    }
}
