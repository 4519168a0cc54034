//! S_d (SpackIt `deps_score`), its semantic variant and the precision
//! counterpart.

use crate::spec::{self, Spec};

use super::inherited::{inherited_dependencies, SpackRelease};
use super::{DepMatch, DepReport, ScoreDep, ScoreRecipe};

/// Weight for a same-name candidate (α), type overlap (β), equal spec (γ)
/// and equal condition (λ), as in SpackIt and the paper.
const ALPHA: f64 = 0.6;
const BETA: f64 = 0.2;
const GAMMA: f64 = 0.1;
const LAMBDA: f64 = 0.1;

/// Spack's canonical dependency-type order.
const TYPE_ORDER: [&str; 4] = ["build", "link", "run", "test"];

/// A dependency in the form SpackIt compares: canonical spec and condition
/// strings (Spack's `str(Spec)`), canonical type tuple.
#[derive(Debug, Clone)]
pub(super) struct Dep {
    pub name: String,
    spec: String,
    when: Option<String>,
    pub types: Vec<String>,
    pub spec_ast: Option<Spec>,
    /// The empty spec when unconditional; None when it did not parse.
    pub when_ast: Option<Spec>,
}

impl PartialEq for Dep {
    /// SpackIt's dataclass equality (patches are never set here).
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.spec == other.spec
            && self.when == other.when
            && self.types == other.types
    }
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn normalize(dep: &ScoreDep) -> Dep {
    let spec_ast = spec::parse(dep.spec.trim()).ok();
    let spec = spec_ast
        .as_ref()
        .map_or_else(|| collapse_ws(&dep.spec), ToString::to_string);
    let name = spec_ast
        .as_ref()
        .and_then(|s| s.short_name().map(str::to_string))
        .unwrap_or_else(|| {
            let t = dep.spec.trim();
            t[..t
                .find(|c: char| !(c.is_ascii_alphanumeric() || "-_".contains(c)))
                .unwrap_or(t.len())]
                .to_string()
        });
    let (when, when_ast) = match dep.when.as_deref().map(str::trim).filter(|w| !w.is_empty()) {
        None => (None, Some(Spec::default())),
        Some(text) => match spec::parse(text) {
            Ok(w) if w.is_empty() => (None, Some(w)),
            Ok(w) => (Some(w.to_string()), Some(w)),
            Err(_) => (Some(collapse_ws(text)), None),
        },
    };
    Dep {
        name,
        spec,
        when,
        types: canonical_types(&dep.types),
        spec_ast,
        when_ast,
    }
}

/// Deduplicated, in Spack's order; none given means build+link.
fn canonical_types(types: &[String]) -> Vec<String> {
    if types.is_empty() {
        return vec!["build".into(), "link".into()];
    }
    let mut out: Vec<String> = TYPE_ORDER
        .iter()
        .filter(|t| types.iter().any(|x| x == *t))
        .map(|t| t.to_string())
        .collect();
    let mut others: Vec<String> = types
        .iter()
        .filter(|t| !TYPE_ORDER.contains(&t.as_str()))
        .cloned()
        .collect();
    others.sort();
    others.dedup();
    out.extend(others);
    out
}

pub(super) fn render(d: &Dep) -> String {
    let mut s = format!("depends_on(\"{}\"", d.spec);
    if let Some(w) = &d.when {
        s.push_str(&format!(", when=\"{w}\""));
    }
    let quoted: Vec<String> = d.types.iter().map(|t| format!("\"{t}\"")).collect();
    match quoted.as_slice() {
        [one] => s.push_str(&format!(", type={one})")),
        _ => s.push_str(&format!(", type=({}))", quoted.join(", "))),
    }
    s
}

/// Drops dependencies exactly equal to one a listed base class declares.
pub(super) fn split_inherited(recipe: &ScoreRecipe, release: SpackRelease) -> (Vec<Dep>, Vec<Dep>) {
    let inherited: Vec<Dep> = recipe
        .bases
        .iter()
        .flat_map(|b| inherited_dependencies(b, release))
        .map(|d| normalize(&d))
        .collect();
    recipe
        .dependencies
        .iter()
        .map(normalize)
        .partition(|d| !inherited.contains(d))
}

fn type_overlap(o: &Dep, g: &Dep) -> f64 {
    let shared = o.types.iter().filter(|t| g.types.contains(t)).count();
    shared as f64 / o.types.len().max(1) as f64
}

/// SpackIt's M(o, g) for a same-name pair.
fn textual_match(o: &Dep, g: &Dep) -> f64 {
    ALPHA
        + BETA * type_overlap(o, g)
        + GAMMA * f64::from(u8::from(o.spec == g.spec))
        + LAMBDA * f64::from(u8::from(o.when == g.when))
}

/// 1 for equivalent constraints, 0.5 for compatible ones, 0 for disjoint;
/// falls back to text equality when either side did not parse.
fn relation(
    a: Option<&Spec>,
    b: Option<&Spec>,
    a_text: Option<&String>,
    b_text: Option<&String>,
) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) if a.equivalent(b) => 1.0,
        (Some(a), Some(b)) if a.intersects(b) => 0.5,
        (Some(_), Some(_)) => 0.0,
        _ => f64::from(u8::from(a_text == b_text)),
    }
}

/// M with the spec and condition terms judged semantically.
fn semantic_match(o: &Dep, g: &Dep) -> f64 {
    ALPHA
        + BETA * type_overlap(o, g)
        + GAMMA
            * relation(
                o.spec_ast.as_ref(),
                g.spec_ast.as_ref(),
                Some(&o.spec),
                Some(&g.spec),
            )
        + LAMBDA
            * relation(
                o.when_ast.as_ref(),
                g.when_ast.as_ref(),
                o.when.as_ref(),
                g.when.as_ref(),
            )
}

/// The first candidate with the highest score (Python's `max` keeps the first).
fn best<'a>(o: &Dep, candidates: &[&'a Dep], m: fn(&Dep, &Dep) -> f64) -> Option<(&'a Dep, f64)> {
    candidates.iter().fold(None, |acc, g| {
        let s = m(o, g);
        match acc {
            Some((_, top)) if top >= s => acc,
            _ => Some((*g, s)),
        }
    })
}

pub(super) struct DepScores {
    pub recall: f64,
    pub semantic_recall: Option<f64>,
    pub precision: Option<f64>,
    pub report: DepReport,
}

pub(super) fn score_dependencies(
    reference: &ScoreRecipe,
    generated: &ScoreRecipe,
    release: SpackRelease,
) -> DepScores {
    let (orig, orig_inherited) = split_inherited(reference, release);
    let (new, new_inherited) = split_inherited(generated, release);
    let same_name = |d: &Dep, pool: &'_ [Dep]| -> Vec<usize> {
        pool.iter()
            .enumerate()
            .filter(|(_, p)| p.name == d.name)
            .map(|(i, _)| i)
            .collect()
    };
    let mut report = DepReport {
        inherited_reference: orig_inherited.iter().map(render).collect(),
        inherited_generated: new_inherited.iter().map(render).collect(),
        ..DepReport::default()
    };
    let (mut total, mut semantic_total) = (0.0, 0.0);
    for o in &orig {
        let candidates: Vec<&Dep> = same_name(o, &new).into_iter().map(|i| &new[i]).collect();
        match (
            best(o, &candidates, textual_match),
            best(o, &candidates, semantic_match),
        ) {
            (Some((g, score)), Some((_, semantic_score))) => {
                total += score;
                semantic_total += semantic_score;
                report.matched.push(DepMatch {
                    reference: render(o),
                    generated: render(g),
                    score,
                    semantic_score,
                });
            }
            _ => report.missing.push(render(o)),
        }
    }
    let mut precision_total = 0.0;
    for g in &new {
        let candidates: Vec<&Dep> = same_name(g, &orig).into_iter().map(|i| &orig[i]).collect();
        match best(g, &candidates, textual_match) {
            Some((_, score)) => precision_total += score,
            None => report.extra.push(render(g)),
        }
    }
    DepScores {
        // SpackIt divides by max(n, 1): no reference deps scores 0.0.
        recall: total / orig.len().max(1) as f64,
        semantic_recall: (!orig.is_empty()).then(|| semantic_total / orig.len() as f64),
        precision: (!new.is_empty()).then(|| precision_total / new.len() as f64),
        report,
    }
}
