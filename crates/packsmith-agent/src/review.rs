//! The review gate's table, shared by the backends: each item a machine
//! can check of an ecosystem's bar for new packages (Spack's Package
//! Review Guide, nixpkgs' new-package checklist), and the three levels a
//! run reports (installed, smoke-tested, review-clean) in its extras.

use serde::Serialize;
use serde_json::Value;

/// One checked item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewItem {
    pub check: &'static str,
    pub passed: bool,
    /// What is wrong, or what was seen.
    pub detail: String,
}

/// The item `check`: passed when `problems` is empty (then `seen` is its
/// detail), else the problems joined.
pub fn item(check: &'static str, problems: Vec<String>, seen: &str) -> ReviewItem {
    ReviewItem {
        check,
        passed: problems.is_empty(),
        detail: if problems.is_empty() {
            seen.to_string()
        } else {
            problems.join("; ")
        },
    }
}

/// Every item passed.
pub fn is_clean(items: &[ReviewItem]) -> bool {
    items.iter().all(|i| i.passed)
}

/// The report's `review` extra: the verdict and the table.
pub fn to_extra(items: &[ReviewItem]) -> Value {
    serde_json::json!({
        "clean": is_clean(items),
        "items": items,
    })
}

/// The report's `levels` extra.
pub fn levels(installed: bool, smoke_tested: bool, items: &[ReviewItem]) -> Value {
    serde_json::json!({
        "installed": installed,
        "smoke_tested": smoke_tested,
        "review_clean": is_clean(items),
    })
}
