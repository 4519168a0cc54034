//! The Spack packages an upstream dependency name may stand for when no
//! rule maps it (`TurboJpeg`, `libdw`, `GTHREAD2`): known names close in
//! spelling, names that contain one of its words, and packages whose
//! description names it. Each candidate says why it is one, so whoever
//! picks (a model's small job, or a person reading `packsmith kb pick`)
//! can weigh the evidence. Nothing here decides: the list is ranked, and
//! the rules never declare a dependency from it on their own.

use serde::Serialize;

use super::{KbError, KnowledgeBase};
use crate::mapping::{NameSource, SpackNames};

/// Most candidates listed: a small model reads a short list well.
pub const MAX_CANDIDATES: usize = 8;

/// One package an upstream name may stand for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NameCandidate {
    pub name: String,
    /// Why it is a candidate (`name contains "jpeg"`, `spelled like …`).
    pub why: String,
    /// The package's description, shortened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Higher is closer; only for the order.
    #[serde(skip)]
    score: u32,
}

impl NameCandidate {
    /// A candidate listed by hand (a test, a caller's own list).
    pub fn new(
        name: impl Into<String>,
        why: impl Into<String>,
        description: Option<String>,
    ) -> Self {
        Self {
            name: name.into(),
            why: why.into(),
            description,
            score: 0,
        }
    }
}

/// The words of an upstream name that can name a package: the whole name
/// (lower-cased, `_` and `.` as `-`) and its parts, split at punctuation
/// and case changes; each also without a version suffix (`gthread2` →
/// `gthread`, `libnl-3.0` → `libnl`) and without a `lib` prefix, and a
/// pkg-config version constraint (`libpulse >= 0.9`) dropped. The whole
/// name may be three letters; a part needs four (`cpp`, `gss` in a longer
/// name match too much to say anything).
pub fn name_words(upstream: &str) -> Vec<String> {
    let bare = upstream.split_whitespace().next().unwrap_or(upstream);
    let mut parts: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in bare.chars() {
        if !c.is_ascii_alphanumeric() {
            parts.push(std::mem::take(&mut current));
            prev_lower = false;
            continue;
        }
        // `TurboJpeg` → `Turbo`, `Jpeg`; `HIPToolkit` stays one word up to
        // the lower-case run.
        if c.is_ascii_uppercase() && prev_lower {
            parts.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    parts.push(current);
    let whole = bare.to_ascii_lowercase().replace(['_', '.'], "-");
    let mut out: Vec<String> = Vec::new();
    let mut keep = |w: &str, least: usize| {
        if w.len() >= least && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    };
    let words = std::iter::once((whole, 3)).chain(parts.into_iter().map(|p| (p, 4)));
    for (word, least) in words {
        let trimmed = word.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
        // Digits right after letters are part of the name (`hdf5`,
        // `sqlite3`); after a `-` or `.` they are a version (`libnl-3.0`).
        let stem = word.trim_end_matches(|c: char| c.is_ascii_digit());
        if stem.len() < word.len() && stem.ends_with(|c: char| c.is_ascii_alphabetic()) {
            keep(&word, least);
        }
        keep(trimmed, least);
        if let Some(rest) = trimmed.strip_prefix("lib") {
            keep(rest, least);
        }
    }
    out
}

/// Whether `candidate` belongs to another language's ecosystem than the
/// lookup, unless it is that ecosystem's package of the same name:
/// `py-gssapi` is not what a CMake lookup of `Globus_GSSAPI_GSI` wants,
/// though `py-numpy` is what `find_package(NumPy)` does.
fn other_language(candidate: &str, upstream: &str, source: NameSource) -> bool {
    if source == NameSource::Python {
        return false;
    }
    let same = upstream
        .split_whitespace()
        .next()
        .unwrap_or(upstream)
        .to_ascii_lowercase()
        .replace(['_', '.'], "-");
    packsmith_core::package_names::LANGUAGE_PREFIXES
        .iter()
        .any(|p| candidate.strip_prefix(p).is_some_and(|rest| rest != same))
}

/// The candidates for `upstream`, found by `source`, best first, at most
/// [`MAX_CANDIDATES`].
pub fn name_candidates(
    upstream: &str,
    source: NameSource,
    names: &dyn SpackNames,
    kb: &KnowledgeBase,
) -> Result<Vec<NameCandidate>, KbError> {
    let mut found: Vec<NameCandidate> = Vec::new();
    let mut add = |name: String, why: String, score: u32, description: Option<String>| match found
        .iter_mut()
        .find(|c| c.name == name)
    {
        Some(c) => {
            if score > c.score {
                c.score = score;
                c.why = why;
            }
            if c.description.is_none() {
                c.description = description;
            }
        }
        None => found.push(NameCandidate {
            name,
            why,
            description,
            score,
        }),
    };
    let lower = upstream
        .split_whitespace()
        .next()
        .unwrap_or(upstream)
        .to_ascii_lowercase();
    let prefix = if source == NameSource::Python {
        "py-"
    } else {
        ""
    };
    for close in names.closest(&format!("{prefix}{lower}"), 3) {
        add(
            close.clone(),
            format!("spelled like `{upstream}`"),
            60,
            None,
        );
    }
    for word in name_words(upstream) {
        for hit in kb.search(&word, 6)? {
            let (score, why) = if hit.name == word || hit.name == format!("lib{word}") {
                (90, format!("named `{word}`"))
            } else if hit.why.iter().any(|w| w.starts_with("name")) {
                (50, format!("name contains `{word}`"))
            } else {
                (20, format!("description mentions `{word}`"))
            };
            add(hit.name, why, score, hit.description);
        }
    }
    found.retain(|c| !other_language(&c.name, upstream, source));
    // Packages by the same words rank first; ties keep the shorter name
    // (`jpeg` before `jpeg-xl-tools`), then the alphabet.
    found.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.name.len().cmp(&b.name.len()))
            .then_with(|| a.name.cmp(&b.name))
    });
    found.truncate(MAX_CANDIDATES);
    for c in &mut found {
        if c.description.is_none() {
            c.description = kb.show(&c.name)?.and_then(|s| s.docstring).map(shorten);
        }
    }
    Ok(found)
}

fn shorten(doc: String) -> String {
    doc.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(100)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_drop_lib_versions_and_constraints() {
        assert_eq!(name_words("TurboJpeg"), ["turbojpeg", "turbo", "jpeg"]);
        assert_eq!(name_words("libnl-3.0"), ["libnl"]);
        assert_eq!(name_words("libpulse >= 0.9.11"), ["libpulse", "pulse"]);
        assert_eq!(name_words("GTHREAD2"), ["gthread2", "gthread"]);
        assert_eq!(
            name_words("alps-hdf5"),
            ["alps-hdf5", "alps-hdf", "alps", "hdf5"]
        );
        assert_eq!(
            name_words("Globus_GSS_ASSIST"),
            ["globus-gss-assist", "globus", "assist"]
        );
        assert!(name_words("ws").is_empty());
    }

    #[test]
    fn another_languages_package_is_a_candidate_only_by_the_same_name() {
        assert!(other_language(
            "py-gssapi",
            "Globus_GSSAPI_GSI",
            NameSource::Cmake
        ));
        assert!(other_language(
            "perl-params-util",
            "alps-params",
            NameSource::Cmake
        ));
        assert!(!other_language("py-numpy", "NumPy", NameSource::Cmake));
        assert!(!other_language("py-gssapi", "gssapi", NameSource::Python));
        assert!(!other_language(
            "libgssglue",
            "Globus_GSSAPI_GSI",
            NameSource::Cmake
        ));
    }
}
