//! Turning CMake `if()` conditions into Spack `when=` specs.
//!
//! Only conditions made of option names joined by AND (each possibly
//! negated) translate; anything else (`CMAKE_CUDA_COMPILER`, `WIN32`,
//! version comparisons) is reported as untranslatable so the brief can say
//! so rather than invent a spec.

use std::collections::{BTreeMap, BTreeSet};

/// What a condition chain becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum When {
    /// No condition at all.
    Always,
    /// A Spack anonymous spec such as `+mpi ~hdf5`.
    Spec(String),
    /// Could not be expressed; the original text is kept for the reader.
    Untranslatable(String),
    /// Asks for a variant both on and off (`+x ~x`): no build reaches it,
    /// and Spack refuses such a `when=` when it loads the recipe.
    Never,
}

/// Maps option names (upper-cased) to variant names, plus options whose
/// conditions mean "tests are being built".
#[derive(Debug, Clone, Default)]
pub struct ConditionMap {
    pub variants: BTreeMap<String, String>,
    pub test_options: Vec<String>,
    /// Options named in the negative (upper-cased) whose variant names the
    /// feature: `NO_ZLIB` is `~zlib`.
    pub inverted: BTreeSet<String>,
    /// Test options named in the negative (`SKIP_PORTABILITY_TEST`): on
    /// when the tests are not built.
    pub inverted_tests: BTreeSet<String>,
    /// Options the recipe sets to one value and offers no variant for
    /// (examples off, the install switch on): a condition on one holds or
    /// fails outright.
    pub pinned: BTreeMap<String, bool>,
    /// A package's name (upper-cased) → the option declared only when the
    /// package is found (`if(BZIP2_FOUND) option(PCRE2_SUPPORT_LIBBZ2 …)`).
    pub found_gates: BTreeMap<String, String>,
}

/// What one clause of a condition becomes.
enum Clause {
    Spec(String),
    Holds,
    Fails,
}

impl ConditionMap {
    fn variant_for(&self, token: &str) -> Option<&String> {
        let bare = token.trim().trim_start_matches("${").trim_end_matches('}');
        self.variants.get(&bare.to_ascii_uppercase())
    }

    /// True when a chain of conditions mentions the testing switch.
    pub fn is_test_only(&self, conditions: &[String]) -> bool {
        conditions.iter().any(|c| {
            c.split_whitespace().any(|tok| {
                let t = tok
                    .trim_matches(|ch: char| ch == '(' || ch == ')')
                    .to_ascii_uppercase();
                t == "BUILD_TESTING" || self.test_options.contains(&t)
            })
        })
    }

    /// Translates a chain of enclosing conditions (outermost first).
    pub fn translate(&self, conditions: &[String]) -> When {
        let mut parts: Vec<String> = Vec::new();
        let mut leftovers: Vec<String> = Vec::new();
        let mut failed = false;
        for cond in conditions {
            if cond.starts_with("in function") || cond.starts_with("in macro") {
                continue;
            }
            for clause in split_and(cond) {
                match self.clause(&clause) {
                    Some(Clause::Spec(spec)) => parts.push(spec),
                    Some(Clause::Holds) => {}
                    Some(Clause::Fails) => failed = true,
                    None => leftovers.push(clause),
                }
            }
        }
        if failed {
            // Under a switch the recipe turns off: no build reaches it.
            When::Never
        } else if parts.is_empty() && leftovers.is_empty() {
            When::Always
        } else if leftovers
            .iter()
            .any(|l| l.to_ascii_uppercase().contains(" OR "))
        {
            When::Untranslatable(conditions.join(" AND "))
        } else if parts.is_empty() {
            When::Untranslatable(leftovers.join(" AND "))
        } else {
            parts.sort();
            parts.dedup();
            let on = |p: &String| p.strip_prefix('+').map(str::to_string);
            let off = |p: &String| p.strip_prefix('~').map(str::to_string);
            let wanted: BTreeSet<String> = parts.iter().filter_map(on).collect();
            if parts.iter().filter_map(off).any(|v| wanted.contains(&v)) {
                return When::Never;
            }
            When::Spec(parts.join(" "))
        }
    }

    fn clause(&self, clause: &str) -> Option<Clause> {
        let c = clause.trim();
        let (negated, inner) = match strip_not(c) {
            Some(rest) => (true, rest),
            None => (false, c),
        };
        let inner = inner
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .trim();
        if inner.contains(' ') {
            return None;
        }
        let bare = inner.trim_start_matches("${").trim_end_matches('}');
        if let Some(&value) = self.pinned.get(&bare.to_ascii_uppercase()) {
            return Some(if value != negated {
                Clause::Holds
            } else {
                Clause::Fails
            });
        }
        let variant = self.variant_for(inner)?;
        let negated = negated != self.inverted.contains(&bare.to_ascii_uppercase());
        Some(Clause::Spec(format!(
            "{}{}",
            if negated { "~" } else { "+" },
            variant
        )))
    }
}

fn strip_not(c: &str) -> Option<&str> {
    let upper = c.to_ascii_uppercase();
    if upper.starts_with("NOT ") || upper.starts_with("NOT(") {
        Some(&c[3..])
    } else {
        None
    }
}

/// Splits `A AND B AND (C)` at top-level ANDs.
fn split_and(cond: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    let words: Vec<&str> = cond.split_whitespace().collect();
    for word in words {
        if depth == 0 && word.eq_ignore_ascii_case("AND") {
            out.push(std::mem::take(&mut current));
            continue;
        }
        depth += word.matches('(').count() as i32 - word.matches(')').count() as i32;
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> ConditionMap {
        let mut variants = BTreeMap::new();
        variants.insert("FOO_ENABLE_MPI".into(), "mpi".into());
        variants.insert("FOO_ENABLE_HDF5".into(), "hdf5".into());
        ConditionMap {
            variants,
            test_options: vec!["FOO_BUILD_TESTS".into()],
            ..ConditionMap::default()
        }
    }

    #[test]
    fn option_conditions_become_specs() {
        let m = map();
        assert_eq!(m.translate(&[]), When::Always);
        assert_eq!(
            m.translate(&["FOO_ENABLE_MPI".into()]),
            When::Spec("+mpi".into())
        );
        assert_eq!(
            m.translate(&["FOO_ENABLE_MPI".into(), "NOT (FOO_ENABLE_HDF5)".into()]),
            When::Spec("+mpi ~hdf5".into())
        );
        assert_eq!(
            m.translate(&["CMAKE_CUDA_COMPILER AND FOO_ENABLE_MPI".into()]),
            When::Spec("+mpi".into())
        );
        assert_eq!(
            m.translate(&["WIN32".into()]),
            When::Untranslatable("WIN32".into())
        );
        assert!(matches!(
            m.translate(&["FOO_ENABLE_MPI OR FOO_ENABLE_HDF5".into()]),
            When::Untranslatable(_)
        ));
        assert!(m.is_test_only(&["BUILD_TESTING".into()]));
        assert!(m.is_test_only(&["FOO_BUILD_TESTS AND X".into()]));
        assert!(!m.is_test_only(&["FOO_ENABLE_MPI".into()]));
    }

    /// `if(X) … if(NOT X) find_package(Y)` can never run: no `when=`.
    #[test]
    fn a_condition_on_both_values_of_a_variant_never_holds() {
        let m = map();
        assert_eq!(
            m.translate(&["FOO_ENABLE_MPI".into(), "NOT FOO_ENABLE_MPI".into()]),
            When::Never
        );
        assert_eq!(
            m.translate(&["FOO_ENABLE_MPI".into(), "FOO_ENABLE_MPI".into()]),
            When::Spec("+mpi".into())
        );
    }

    #[test]
    fn a_negative_option_reads_as_its_positive_variant() {
        let mut m = map();
        m.variants.insert("FOO_NO_ZLIB".into(), "zlib".into());
        m.inverted.insert("FOO_NO_ZLIB".into());
        assert_eq!(
            m.translate(&["FOO_NO_ZLIB".into()]),
            When::Spec("~zlib".into())
        );
        assert_eq!(
            m.translate(&["NOT FOO_NO_ZLIB".into()]),
            When::Spec("+zlib".into())
        );
    }

    /// A switch the recipe pins: a lookup under it is declared outright or
    /// not at all.
    #[test]
    fn a_pinned_switch_decides_its_conditions() {
        let mut m = map();
        m.pinned.insert("FOO_BUILD_EXAMPLES".into(), false);
        m.pinned.insert("FOO_INSTALL".into(), true);
        assert_eq!(m.translate(&["FOO_BUILD_EXAMPLES".into()]), When::Never);
        assert_eq!(
            m.translate(&["NOT FOO_BUILD_EXAMPLES".into(), "FOO_ENABLE_MPI".into()]),
            When::Spec("+mpi".into())
        );
        assert_eq!(m.translate(&["FOO_INSTALL".into()]), When::Always);
        assert_eq!(
            m.translate(&["FOO_ENABLE_MPI AND FOO_BUILD_EXAMPLES".into()]),
            When::Never
        );
    }
}
