//! A dependency name the knowledge base does not hold, and its fix: the
//! Spack name it stands for when a rule finds one the knowledge base
//! confirms (`gmock` → `googletest` through the curated table, `libcereal`
//! → `cereal`, `glfw3` → `glfw`, `py-setuptools_scm` → `py-setuptools-scm`),
//! else the closest known names. The static check (PS401) and the draft
//! both ask here, so they resolve a name the same way.

use super::{table, Known, SpackNames, TableEntry};

/// How many close names a fix lists.
pub const CLOSEST: usize = 3;

/// What to do about one dependency name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameFix {
    /// The knowledge base holds the name, or there is no knowledge base to ask.
    Known,
    /// A known Spack name the upstream name stands for.
    Resolved { name: String, evidence: String },
    /// Nothing found; the closest known names, best first (maybe none).
    Unresolved { closest: Vec<String> },
}

/// The fix for dependency `name` (a bare package name, no version or variants).
pub fn fix_name(name: &str, kb: &dyn SpackNames) -> NameFix {
    if !kb.knows_names() || kb.lookup(name) != Known::Unknown {
        return NameFix::Known;
    }
    match alias_of(name, kb) {
        Some((name, evidence)) => NameFix::Resolved { name, evidence },
        None => NameFix::Unresolved {
            closest: kb.closest(name, CLOSEST),
        },
    }
}

/// A known Spack name that `name` is another spelling of, with the rule
/// that found it.
pub(super) fn alias_of(name: &str, kb: &dyn SpackNames) -> Option<(String, String)> {
    let known = |n: &str| kb.lookup(n) != Known::Unknown;
    let t = table();
    for (section, entries) in [
        ("cmake", &t.cmake),
        ("pkgconfig", &t.pkgconfig),
        ("library", &t.library),
    ] {
        let hit = entries
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .and_then(|(k, e)| curated_name(e, &known).map(|s| (k, s)));
        if let Some((key, spack)) = hit {
            return Some((spack, format!("curated table [{section}] {key}")));
        }
    }
    spellings(name)
        .into_iter()
        .find(|(candidate, _)| candidate != name && known(candidate))
        .map(|(candidate, how)| {
            (
                candidate,
                format!("another spelling the knowledge base holds: {how}"),
            )
        })
}

/// The table entry's Spack name, or its fallback, whichever is known.
fn curated_name(entry: &TableEntry, known: &dyn Fn(&str) -> bool) -> Option<String> {
    [&entry.spack, &entry.fallback]
        .into_iter()
        .flatten()
        .find(|n| known(n))
        .cloned()
}

/// Other spellings of a name, each with how it was derived, most
/// conservative first.
fn spellings(name: &str) -> Vec<(String, &'static str)> {
    let lower = name.to_ascii_lowercase();
    let dashed = lower.replace(['_', '.'], "-");
    let no_lib = dashed.strip_prefix("lib").map(str::to_string);
    let no_digits = |s: &str| {
        let trimmed = s.trim_end_matches(|c: char| c.is_ascii_digit());
        let trimmed = trimmed.trim_end_matches(['-', '.']);
        (trimmed.len() >= 2 && trimmed.len() < s.len()).then(|| trimmed.to_string())
    };
    let mut out = vec![
        (lower.clone(), "lower case"),
        (dashed.clone(), "`_` and `.` as `-`"),
    ];
    if let Some(n) = &no_lib {
        out.push((n.clone(), "without the `lib` prefix"));
    }
    if let Some(n) = no_digits(&dashed) {
        out.push((n, "without the trailing version number"));
    }
    if let Some(n) = no_lib.as_deref().and_then(no_digits) {
        out.push((n, "without the `lib` prefix and the version number"));
    }
    out.push((format!("lib{dashed}"), "with a `lib` prefix"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Kb(&'static [&'static str]);
    impl SpackNames for Kb {
        fn lookup(&self, name: &str) -> Known {
            if self.0.contains(&name) {
                Known::Package
            } else {
                Known::Unknown
            }
        }
        fn closest(&self, name: &str, n: usize) -> Vec<String> {
            self.0
                .iter()
                .filter(|k| k.starts_with(&name[..1]))
                .take(n)
                .map(|k| k.to_string())
                .collect()
        }
    }

    const KB: Kb = Kb(&[
        "cereal",
        "glfw",
        "googletest",
        "py-setuptools-scm",
        "libxml2",
        "zlib",
    ]);

    fn resolved(name: &str) -> Option<String> {
        match fix_name(name, &KB) {
            NameFix::Resolved { name, .. } => Some(name),
            _ => None,
        }
    }

    #[test]
    fn other_spellings_of_known_packages_resolve() {
        assert_eq!(resolved("gmock").as_deref(), Some("googletest"));
        assert_eq!(resolved("libcereal").as_deref(), Some("cereal"));
        assert_eq!(resolved("glfw3").as_deref(), Some("glfw"));
        assert_eq!(
            resolved("py-setuptools_scm").as_deref(),
            Some("py-setuptools-scm")
        );
        assert_eq!(resolved("xml2").as_deref(), Some("libxml2"));
    }

    #[test]
    fn known_names_and_no_knowledge_base_need_no_fix() {
        assert_eq!(fix_name("zlib", &KB), NameFix::Known);
        assert_eq!(
            fix_name("gmock", &super::super::NoKnowledge),
            NameFix::Known
        );
    }

    #[test]
    fn unknown_names_get_the_closest_known_ones() {
        assert_eq!(
            fix_name("zzz-nothing", &KB),
            NameFix::Unresolved {
                closest: vec!["zlib".into()]
            }
        );
    }
}
