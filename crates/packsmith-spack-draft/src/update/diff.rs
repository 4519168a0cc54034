//! What changed between two versions of a project, as a packager reads
//! it: each side is the facts and the brief built from them (the brief
//! already says which dependencies Spack needs and which options are
//! variants), and each change carries the evidence of both sides.

use packsmith_core::{Evidence, RepoFacts};
use serde::{Deserialize, Serialize};

use crate::brief::python_floors::pep440_floor;
use crate::brief::{BriefDependency, BriefVariant, SpackBrief, VariantDefault};
use packsmith_spack_knowledge::spec::{parse as parse_spec, Version};

/// One version of the project: its facts and the brief built from them.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    pub facts: &'a RepoFacts,
    pub brief: &'a SpackBrief,
}

/// What a change is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    Dependency,
    Option,
    CmakeMinimum,
    /// A dependency's (or Python's) lowest version raised: `>=0.2.1`.
    VersionFloor,
    LanguageStandard,
    BuildSystem,
}

impl Topic {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dependency => "dependency",
            Self::Option => "option",
            Self::CmakeMinimum => "CMake minimum",
            Self::VersionFloor => "lowest version",
            Self::LanguageStandard => "language standard",
            Self::BuildSystem => "build system",
        }
    }
}

/// How it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    Dropped,
    Changed,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Dropped => "dropped",
            Self::Changed => "changed",
        }
    }
}

/// One side's value, as a packager would write it, and where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

/// One change between the versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactChange {
    pub topic: Topic,
    pub change: Change,
    /// The Spack package (a dependency), the variant (an option), or the
    /// language (a standard).
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<Fact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Fact>,
}

/// Every change, in the order dependencies, options, CMake minimum,
/// language standard, build system.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactsDiff {
    pub changes: Vec<FactChange>,
}

impl FactsDiff {
    pub fn of(&self, topic: Topic) -> impl Iterator<Item = &FactChange> {
        self.changes.iter().filter(move |c| c.topic == topic)
    }
}

/// Compares the old version's side with the new one's.
pub fn diff_facts(old: Side<'_>, new: Side<'_>) -> FactsDiff {
    let mut changes = Vec::new();
    dependencies(old.brief, new, &mut changes);
    options(old.brief, new.brief, &mut changes);
    cmake_minimum(old.facts, new.facts, &mut changes);
    python_floors(old.facts, new, &mut changes);
    language_standard(old.facts, new.facts, &mut changes);
    build_system(old.facts, new.facts, &mut changes);
    FactsDiff { changes }
}

/// The package a dependency's spec names.
pub(crate) fn dependency_name(dep: &BriefDependency) -> Option<String> {
    parse_spec(&dep.spec).ok().and_then(|s| s.name)
}

fn dependency_fact(dep: &BriefDependency) -> Fact {
    let mut value = dep.spec.clone();
    if let Some(when) = &dep.when {
        value.push_str(&format!(" when {when}"));
    }
    if !dep.types.is_empty() {
        value.push_str(&format!(" ({})", dep.types.join(", ")));
    }
    Fact {
        value,
        evidence: Some(dep.evidence.clone()),
    }
}

/// The first dependency on each package (CMake is the CMake minimum's).
fn by_package(brief: &SpackBrief) -> Vec<(String, &BriefDependency)> {
    let mut out: Vec<(String, &BriefDependency)> = Vec::new();
    for dep in &brief.dependencies {
        let Some(name) = dependency_name(dep) else {
            continue;
        };
        if name != "cmake" && !out.iter().any(|(n, _)| *n == name) {
            out.push((name, dep));
        }
    }
    out
}

/// A lookup of one of the project's own libraries (`pkg_check_modules(…
/// zzipfseeko)` where the project builds `libzzipfseeko`): the build
/// finding what it installs, no dependency.
fn is_own_target(facts: &RepoFacts, upstream: &str) -> bool {
    let bare = |n: &str| {
        let n = n.to_ascii_lowercase();
        n.strip_prefix("lib").map(str::to_string).unwrap_or(n)
    };
    let wanted = bare(upstream);
    facts
        .cmake
        .as_ref()
        .is_some_and(|c| c.targets.iter().any(|t| bare(&t.name) == wanted))
}

fn dependencies(old: &SpackBrief, new: Side<'_>, out: &mut Vec<FactChange>) {
    let (olds, news) = (by_package(old), by_package(new.brief));
    for (name, dep) in &news {
        let before = olds.iter().find(|(n, _)| n == name).map(|(_, d)| *d);
        let change = match before {
            None if is_own_target(new.facts, &dep.upstream) => continue,
            None => Change::Added,
            Some(b) if b.spec != dep.spec || b.when != dep.when || b.types != dep.types => {
                Change::Changed
            }
            Some(_) => continue,
        };
        out.push(FactChange {
            topic: Topic::Dependency,
            change,
            name: name.clone(),
            old: before.map(dependency_fact),
            new: Some(dependency_fact(dep)),
        });
    }
    for (name, dep) in &olds {
        if !news.iter().any(|(n, _)| n == name) {
            out.push(FactChange {
                topic: Topic::Dependency,
                change: Change::Dropped,
                name: name.clone(),
                old: Some(dependency_fact(dep)),
                new: None,
            });
        }
    }
}

pub(crate) fn default_text(default: &VariantDefault) -> String {
    match default {
        VariantDefault::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        VariantDefault::Str(s) => s.clone(),
    }
}

fn variant_fact(v: &BriefVariant) -> Fact {
    Fact {
        value: format!("{} (default {})", v.option, default_text(&v.default)),
        evidence: Some(v.evidence.clone()),
    }
}

fn options(old: &SpackBrief, new: &SpackBrief, out: &mut Vec<FactChange>) {
    let own = |b: &'_ SpackBrief| -> Vec<BriefVariant> {
        b.variants
            .iter()
            .filter(|v| !v.inherited)
            .cloned()
            .collect()
    };
    let (olds, news) = (own(old), own(new));
    for v in &news {
        let before = olds.iter().find(|o| o.name == v.name);
        let change = match before {
            None => Change::Added,
            Some(b) if b.default != v.default => Change::Changed,
            Some(_) => continue,
        };
        out.push(FactChange {
            topic: Topic::Option,
            change,
            name: v.name.clone(),
            old: before.map(variant_fact),
            new: Some(variant_fact(v)),
        });
    }
    for v in &olds {
        if !news.iter().any(|n| n.name == v.name) {
            out.push(FactChange {
                topic: Topic::Option,
                change: Change::Dropped,
                name: v.name.clone(),
                old: Some(variant_fact(v)),
                new: None,
            });
        }
    }
}

/// A sourced value as a fact.
fn sourced(s: &packsmith_core::Sourced<String>) -> Fact {
    Fact {
        value: s.value.clone(),
        evidence: Some(s.evidence.clone()),
    }
}

/// Added, dropped or changed, when the two values differ.
fn compare(
    topic: Topic,
    name: &str,
    old: Option<Fact>,
    new: Option<Fact>,
    out: &mut Vec<FactChange>,
) {
    let change = match (&old, &new) {
        (None, None) => return,
        (None, Some(_)) => Change::Added,
        (Some(_), None) => Change::Dropped,
        (Some(a), Some(b)) if a.value == b.value => return,
        (Some(_), Some(_)) => Change::Changed,
    };
    out.push(FactChange {
        topic,
        change,
        name: name.to_string(),
        old,
        new,
    });
}

fn cmake_minimum(old: &RepoFacts, new: &RepoFacts, out: &mut Vec<FactChange>) {
    let min = |f: &RepoFacts| {
        f.cmake
            .as_ref()
            .and_then(|c| c.minimum_required.as_ref())
            .map(sourced)
    };
    let (a, b) = (min(old), min(new));
    // `3.16` and `3.16.0` ask for the same CMake.
    let same = match (&a, &b) {
        (Some(x), Some(y)) => Version::parse(&x.value)
            .zip(Version::parse(&y.value))
            .is_some_and(|(p, q)| p == q),
        _ => false,
    };
    if !same {
        compare(Topic::CmakeMinimum, "cmake", a, b, out);
    }
}

fn floor_raised(old: Option<&str>, new: &str) -> bool {
    match (old.and_then(Version::parse), Version::parse(new)) {
        (Some(o), Some(n)) => n > o,
        (None, Some(_)) => true,
        _ => false,
    }
}

/// A Python project's `requires-python` and its requirements' lowest
/// versions, where the new version raised them (a requirement new in it is
/// an added dependency instead).
fn python_floors(old: &RepoFacts, new: Side<'_>, out: &mut Vec<FactChange>) {
    let (Some(op), Some(np)) = (&old.python, &new.facts.python) else {
        return;
    };
    if let Some(floor) = np.requires_python.as_deref().and_then(pep440_floor) {
        let before = op.requires_python.as_deref().and_then(pep440_floor);
        if floor_raised(before.as_deref(), &floor) {
            out.push(FactChange {
                topic: Topic::VersionFloor,
                change: Change::Changed,
                name: "python".into(),
                old: before.map(|value| Fact {
                    value,
                    evidence: None,
                }),
                // The readers keep no line for requires-python.
                new: Some(Fact {
                    value: floor,
                    evidence: None,
                }),
            });
        }
    }
    let normal = |n: &str| n.to_ascii_lowercase().replace(['_', '.'], "-");
    let requirements = |p: &packsmith_core::PythonFacts| {
        p.dependencies
            .iter()
            .chain(&p.build_requires)
            .filter(|r| r.marker.is_none())
            .cloned()
            .collect::<Vec<_>>()
    };
    let olds = requirements(op);
    for r in requirements(np) {
        let Some(floor) = pep440_floor(&r.specifier) else {
            continue;
        };
        let Some(before) = olds.iter().find(|o| normal(&o.name) == normal(&r.name)) else {
            continue;
        };
        let old_floor = pep440_floor(&before.specifier);
        if !floor_raised(old_floor.as_deref(), &floor) {
            continue;
        }
        let Some(name) = new
            .brief
            .dependencies
            .iter()
            .find(|d| normal(&d.upstream) == normal(&r.name))
            .and_then(dependency_name)
        else {
            continue;
        };
        if out
            .iter()
            .any(|c| c.topic == Topic::VersionFloor && c.name == name)
        {
            continue;
        }
        out.push(FactChange {
            topic: Topic::VersionFloor,
            change: Change::Changed,
            name,
            old: Some(Fact {
                value: before.specifier.clone(),
                evidence: Some(before.evidence.clone()),
            }),
            new: Some(Fact {
                value: floor,
                evidence: Some(r.evidence.clone()),
            }),
        });
    }
}

fn language_standard(old: &RepoFacts, new: &RepoFacts, out: &mut Vec<FactChange>) {
    let std = |f: &RepoFacts| {
        f.cmake
            .as_ref()
            .and_then(|c| c.cxx_standard.as_ref())
            .map(sourced)
    };
    compare(Topic::LanguageStandard, "C++", std(old), std(new), out);
}

fn build_system(old: &RepoFacts, new: &RepoFacts, out: &mut Vec<FactChange>) {
    let primary = |f: &RepoFacts| {
        let kind = f.primary_build_system?;
        let evidence = f
            .build_systems
            .iter()
            .find(|b| b.kind == kind)
            .map(|b| b.evidence.clone());
        Some(Fact {
            value: kind.as_str().to_string(),
            evidence,
        })
    };
    compare(
        Topic::BuildSystem,
        "build system",
        primary(old),
        primary(new),
        out,
    );
}
