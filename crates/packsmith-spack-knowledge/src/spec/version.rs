//! Spack's version model: component-wise comparison, prefix-closed ranges
//! (`@1.2:1.4` includes `1.4.7`) and version constraints.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Names Spack treats as newer than any numbered release, oldest first.
const INFINITY_NAMES: [&str; 6] = ["stable", "trunk", "head", "master", "main", "develop"];

/// One release component. The derived order is Spack's: ordinary words sort
/// below numbers, infinity names above them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Component {
    Word(String),
    /// Decimal digits without leading zeros, compared by length then text.
    Number(NumDigits),
    Infinity(usize),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct NumDigits(String);

impl Ord for NumDigits {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for NumDigits {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Pre-release marker; a final release sorts after alpha, beta and rc.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Stage {
    Alpha,
    Beta,
    Rc,
    Final,
}

/// A single version such as `1.2.3`, `2.0rc1` or `develop`.
///
/// Equality and order follow Spack: `1.2` < `1.2.0` < `1.10` < `develop`,
/// and `1.2rc1` < `1.2`.
#[derive(Debug, Clone)]
pub struct Version {
    text: String,
    release: Vec<Component>,
    stage: (Stage, Option<NumDigits>),
}

impl Version {
    /// Parses version text (letters, digits, `.`, `-`, `_`).
    pub fn parse(text: &str) -> Option<Version> {
        let valid = !text.is_empty()
            && text
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
        if !valid {
            return None;
        }
        let mut segments = segments(text);
        let stage = split_prerelease(&mut segments);
        let release = segments
            .into_iter()
            .map(|s| match s {
                Segment::Num(d) => Component::Number(d),
                Segment::Word(w) => match INFINITY_NAMES.iter().position(|n| *n == w) {
                    Some(i) => Component::Infinity(i),
                    None => Component::Word(w),
                },
            })
            .collect();
        Some(Version {
            text: text.to_string(),
            release,
            stage,
        })
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// True for `develop`, `main` and the other names newer than any release.
    pub fn is_infinity(&self) -> bool {
        self.release
            .iter()
            .any(|c| matches!(c, Component::Infinity(_)))
    }

    /// Whether `self` lies in the prefix family of `other` (`1.4.2` is in
    /// `1.4`), which is what an upper bound `:1.4` admits.
    pub fn has_prefix(&self, other: &Version) -> bool {
        other.stage.0 == Stage::Final
            && self.release.len() >= other.release.len()
            && self.release[..other.release.len()] == other.release[..]
            && (self.release.len() > other.release.len() || self.stage == other.stage)
    }
}

enum Segment {
    Num(NumDigits),
    Word(String),
}

/// Splits into runs of digits or letters; `.`, `-`, `_` only separate.
fn segments(text: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_digit() {
            let mut run = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                run.push(d);
                chars.next();
            }
            let trimmed = run.trim_start_matches('0');
            let digits = if trimmed.is_empty() { "0" } else { trimmed };
            out.push(Segment::Num(NumDigits(digits.to_string())));
        } else if c.is_ascii_alphabetic() {
            let mut run = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_alphabetic()) {
                run.push(d);
                chars.next();
            }
            out.push(Segment::Word(run));
        } else {
            chars.next();
        }
    }
    out
}

/// Removes a trailing `alpha|beta|rc[N]` the way Spack does and returns it.
fn split_prerelease(segments: &mut Vec<Segment>) -> (Stage, Option<NumDigits>) {
    let stage_of = |s: &Segment| match s {
        Segment::Word(w) => match w.as_str() {
            "alpha" => Some(Stage::Alpha),
            "beta" => Some(Stage::Beta),
            "rc" => Some(Stage::Rc),
            "final" => Some(Stage::Final),
            _ => None,
        },
        Segment::Num(_) => None,
    };
    let n = segments.len();
    if n >= 3 {
        if let (Some(stage), Segment::Num(num)) = (stage_of(&segments[n - 2]), &segments[n - 1]) {
            let num = num.clone();
            segments.truncate(n - 2);
            return (stage, Some(num));
        }
    }
    if n >= 2 {
        if let Some(stage) = stage_of(&segments[n - 1]) {
            segments.truncate(n - 1);
            return (stage, None);
        }
    }
    (Stage::Final, None)
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.release
            .cmp(&other.release)
            .then_with(|| self.stage.cmp(&other.stage))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Version::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("invalid version '{text}'")))
    }
}

/// `lo:hi` with either end open. The upper bound is prefix-closed, as in
/// Spack: `:1.4` admits `1.4.9`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionRange {
    pub lo: Option<Version>,
    pub hi: Option<Version>,
}

impl VersionRange {
    /// The range a plain `@1.2` denotes: every `1.2.*`.
    pub fn prefix(v: Version) -> VersionRange {
        VersionRange {
            lo: Some(v.clone()),
            hi: Some(v),
        }
    }

    pub fn contains(&self, v: &Version) -> bool {
        self.lo.as_ref().is_none_or(|lo| v >= lo)
            && self.hi.as_ref().is_none_or(|hi| below_hi(v, hi))
    }

    pub fn intersects(&self, other: &VersionRange) -> bool {
        let lo_fits = |lo: &Option<Version>, hi: &Option<Version>| match (lo, hi) {
            (Some(lo), Some(hi)) => below_hi(lo, hi),
            _ => true,
        };
        lo_fits(&self.lo, &other.hi) && lo_fits(&other.lo, &self.hi)
    }

    /// Every version in `self` is also in `other`.
    pub fn is_subset_of(&self, other: &VersionRange) -> bool {
        let lo_ok = match (&self.lo, &other.lo) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => a >= b,
        };
        let hi_ok = match (&self.hi, &other.hi) {
            (_, None) => true,
            (None, Some(_)) => false,
            // `:1.4` is inside `:1.4` and `:1.5`, but not inside `:1.4.9`.
            (Some(a), Some(b)) => a.has_prefix(b) || (a < b && !b.has_prefix(a)),
        };
        lo_ok && hi_ok
    }
}

/// `v` is at or below an upper bound `hi`, counting `hi`'s prefix family.
fn below_hi(v: &Version, hi: &Version) -> bool {
    v <= hi || v.has_prefix(hi)
}

/// One element of a version list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VersionItem {
    /// `@1.2`: the version and everything under it (`1.2.3`).
    Prefix { version: Version },
    /// `@=1.2`: exactly this version.
    Exact { version: Version },
    /// `@1.2:1.4`, `@:1.4`, `@1.2:`, `@:`.
    Range { range: VersionRange },
    /// `@git.<ref>` or a 40-hex commit, optionally `=<version>`.
    Git {
        reference: String,
        version: Option<Version>,
    },
}

impl VersionItem {
    /// The set as a range; `None` for a git ref without a version.
    fn as_range(&self) -> Option<VersionRange> {
        match self {
            VersionItem::Prefix { version } => Some(VersionRange::prefix(version.clone())),
            VersionItem::Range { range } => Some(range.clone()),
            VersionItem::Exact { .. } | VersionItem::Git { .. } => None,
        }
    }

    /// The single version an exact or versioned git item pins.
    fn pinned(&self) -> Option<&Version> {
        match self {
            VersionItem::Exact { version } => Some(version),
            VersionItem::Git { version, .. } => version.as_ref(),
            _ => None,
        }
    }

    fn satisfies(&self, other: &VersionItem) -> bool {
        if let (VersionItem::Git { reference: a, .. }, VersionItem::Git { reference: b, .. }) =
            (self, other)
        {
            if a == b {
                return true;
            }
        }
        match (
            self.pinned(),
            other.pinned(),
            self.as_range(),
            other.as_range(),
        ) {
            (Some(a), Some(b), _, _) => a == b,
            (Some(a), None, _, Some(r)) => r.contains(a),
            (None, None, Some(a), Some(b)) => a.is_subset_of(&b),
            _ => false,
        }
    }

    fn intersects(&self, other: &VersionItem) -> bool {
        if self.satisfies(other) || other.satisfies(self) {
            return true;
        }
        match (self.as_range(), other.as_range()) {
            (Some(a), Some(b)) => a.intersects(&b),
            _ => false,
        }
    }
}

impl fmt::Display for VersionItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionItem::Prefix { version } => write!(f, "{version}"),
            VersionItem::Exact { version } => write!(f, "={version}"),
            VersionItem::Range { range } => {
                if let Some(lo) = &range.lo {
                    write!(f, "{lo}")?;
                }
                f.write_str(":")?;
                if let Some(hi) = &range.hi {
                    write!(f, "{hi}")?;
                }
                Ok(())
            }
            VersionItem::Git { reference, version } => {
                f.write_str(reference)?;
                if let Some(v) = version {
                    write!(f, "={v}")?;
                }
                Ok(())
            }
        }
    }
}

/// The `@...` part of a spec: a union of items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionConstraint {
    pub items: Vec<VersionItem>,
}

impl VersionConstraint {
    /// Every version allowed by `self` is allowed by `other` (per item).
    pub fn satisfies(&self, other: &VersionConstraint) -> bool {
        self.items
            .iter()
            .all(|a| other.items.iter().any(|b| a.satisfies(b)))
    }

    /// Some version is allowed by both.
    pub fn intersects(&self, other: &VersionConstraint) -> bool {
        self.items
            .iter()
            .any(|a| other.items.iter().any(|b| a.intersects(b)))
    }

    /// Whether the concrete version `v` is allowed.
    pub fn contains(&self, v: &Version) -> bool {
        let exact = VersionItem::Exact { version: v.clone() };
        self.items.iter().any(|i| exact.satisfies(i))
    }
}

impl fmt::Display for VersionConstraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}
