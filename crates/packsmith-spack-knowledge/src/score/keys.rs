//! S_v: recall of CMake define keys (SpackIt `cmake_args_score`), and its
//! precision counterpart.

use std::collections::BTreeSet;

use super::KeyReport;

pub(super) struct KeyScores {
    pub recall: Option<f64>,
    pub precision: Option<f64>,
    pub report: KeyReport,
}

fn key_set(keys: &[String]) -> BTreeSet<String> {
    keys.iter().map(|k| k.trim().to_lowercase()).collect()
}

/// Both key lists are stripped, lower-cased and made sets, as SpackIt does.
pub(super) fn score_keys(reference: &[String], generated: &[String]) -> KeyScores {
    let orig = key_set(reference);
    let new = key_set(generated);
    let matched: Vec<String> = orig.intersection(&new).cloned().collect();
    let ratio = |total: usize| (total > 0).then(|| matched.len() as f64 / total as f64);
    KeyScores {
        recall: ratio(orig.len()),
        precision: ratio(new.len()),
        report: KeyReport {
            missing: orig.difference(&new).cloned().collect(),
            extra: new.difference(&orig).cloned().collect(),
            matched,
        },
    }
}
