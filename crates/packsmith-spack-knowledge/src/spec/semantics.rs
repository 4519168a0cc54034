//! Approximate abstract-spec relations, good enough to compare dependency
//! constraints and `when=` conditions: `satisfies` (every concrete spec
//! matching `self` matches `other`) and `intersects` (some concrete spec
//! matches both). Unknown package facts (which variants are multi-valued,
//! target families) are treated conservatively and textually.

use super::ast::{Arch, Dependency, Spec, VariantSetting, VariantValue};

impl Spec {
    /// `self` is at least as strict as `other`.
    pub fn satisfies(&self, other: &Spec) -> bool {
        let name_ok = match (self.short_name(), other.short_name()) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => a == b,
        };
        let versions_ok = match (&self.versions, &other.versions) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => a.satisfies(b),
        };
        name_ok
            && versions_ok
            && other.variants.iter().all(|o| {
                self.variant(&o.name)
                    .is_some_and(|s| variant_satisfies(s, o))
            })
            && arch_satisfies(&self.arch, &other.arch)
            && other.flags.iter().all(|o| {
                self.flags
                    .iter()
                    .any(|s| s.name == o.name && s.value == o.value)
            })
            && edges_satisfy(&self.compilers, &other.compilers)
            && edges_satisfy(&self.dependencies, &other.dependencies)
    }

    /// Some concrete spec could satisfy both.
    pub fn intersects(&self, other: &Spec) -> bool {
        let name_ok = match (self.short_name(), other.short_name()) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let versions_ok = match (&self.versions, &other.versions) {
            (Some(a), Some(b)) => a.intersects(b),
            _ => true,
        };
        let arch_ok = [
            (&self.arch.platform, &other.arch.platform),
            (&self.arch.os, &other.arch.os),
            (&self.arch.target, &other.arch.target),
        ]
        .iter()
        .all(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => a == b || is_target_family(a) || is_target_family(b),
            _ => true,
        });
        name_ok
            && versions_ok
            && arch_ok
            && self.variants.iter().all(|s| {
                other
                    .variant(&s.name)
                    .is_none_or(|o| variants_compatible(s, o))
            })
            && edges_intersect(&self.compilers, &other.compilers)
            && edges_intersect(&self.dependencies, &other.dependencies)
    }

    /// Both specs allow exactly the same concrete specs (mutual satisfies).
    pub fn equivalent(&self, other: &Spec) -> bool {
        self.satisfies(other) && other.satisfies(self)
    }
}

fn values(v: &VariantSetting) -> Option<&[String]> {
    match &v.value {
        VariantValue::Values(vals) => Some(vals),
        VariantValue::Bool(_) => None,
    }
}

/// Boolean-looking values (`foo=True`) compare equal to `+foo`.
fn as_bool(v: &VariantSetting) -> Option<bool> {
    match &v.value {
        VariantValue::Bool(b) => Some(*b),
        VariantValue::Values(vals) => match vals.as_slice() {
            [one] if one.eq_ignore_ascii_case("true") => Some(true),
            [one] if one.eq_ignore_ascii_case("false") => Some(false),
            _ => None,
        },
    }
}

fn variant_satisfies(mine: &VariantSetting, theirs: &VariantSetting) -> bool {
    if let (Some(a), Some(b)) = (as_bool(mine), as_bool(theirs)) {
        return a == b;
    }
    match (values(mine), values(theirs)) {
        // A multi-valued requirement is met when all its values are set.
        (Some(a), Some(b)) => b.iter().all(|x| a.contains(x)),
        _ => false,
    }
}

fn variants_compatible(a: &VariantSetting, b: &VariantSetting) -> bool {
    if let (Some(x), Some(y)) = (as_bool(a), as_bool(b)) {
        return x == y;
    }
    match (values(a), values(b)) {
        // Without the package we cannot know whether the variant is
        // multi-valued, so only identical single values are compatible.
        (Some(x), Some(y)) => {
            x == y || (x.len() > 1 || y.len() > 1) && x.iter().any(|v| y.contains(v))
        }
        _ => false,
    }
}

/// `x86_64:` style ranges and families are not resolved here.
fn is_target_family(target: &str) -> bool {
    target.contains(':') || target.contains(',')
}

fn arch_satisfies(mine: &Arch, theirs: &Arch) -> bool {
    [
        (&mine.platform, &theirs.platform),
        (&mine.os, &theirs.os),
        (&mine.target, &theirs.target),
    ]
    .iter()
    .all(|(a, b)| match (a, b) {
        (_, None) => true,
        (Some(a), Some(b)) => a == b,
        (None, Some(_)) => false,
    })
}

fn edges_satisfy(mine: &[Dependency], theirs: &[Dependency]) -> bool {
    theirs.iter().all(|o| {
        mine.iter()
            .any(|s| s.spec.satisfies(&o.spec) && o.virtuals.iter().all(|v| s.virtuals.contains(v)))
            || (o.spec.name.is_none() && o.virtuals.is_empty())
    })
}

fn edges_intersect(mine: &[Dependency], theirs: &[Dependency]) -> bool {
    mine.iter().all(|s| {
        theirs
            .iter()
            .filter(|o| o.spec.short_name() == s.spec.short_name())
            .all(|o| s.spec.intersects(&o.spec))
    })
}
