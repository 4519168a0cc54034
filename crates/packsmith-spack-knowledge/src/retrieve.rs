//! Picking reference recipes for a target from the knowledge base.
//!
//! Strategies:
//! - `none`: no references.
//! - `random` / `random-same-build-system`: seeded draws without
//!   replacement from all packages, or from those sharing the target's
//!   build system.
//! - `similar`: SpackIt's Package Affinity Score,
//!   `0.6·|shared dependencies| + 0.4·|shared build options|`, candidates
//!   filtered by build system, the target excluded by name and by
//!   substring (as SpackIt did); ties broken by name.
//! - `similar-normalized`: the same weights over IDF-weighted Jaccard
//!   similarities, `0.6·J(deps) + 0.4·J(options)` with
//!   `J(T, C) = W(T∩C) / (W(T) + W(C) − W(T∩C))`, `W(S) = Σ idf(x)` and
//!   `idf(x) = ln((N+1)/(df(x)+1)) + 1`. A hub recipe (axom, trilinos)
//!   shares many items with everything, but its large `W(C)` divides them
//!   away, and a shared rare dependency counts more than a shared `cmake`.
//! - `embedding`: cosine of feature-card vectors (see [`crate::embed`];
//!   needs an embedder, so [`Retriever`] refuses it).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::kb::index::idf;
use crate::kb::{sql, KbError, KnowledgeBase};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    None,
    Random,
    RandomSameBuildSystem,
    Similar,
    SimilarNormalized,
    Embedding,
}

impl Strategy {
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "none" => Self::None,
            "random" => Self::Random,
            "random-same-build-system" => Self::RandomSameBuildSystem,
            "similar" => Self::Similar,
            "similar-normalized" => Self::SimilarNormalized,
            "embedding" => Self::Embedding,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Random => "random",
            Self::RandomSameBuildSystem => "random-same-build-system",
            Self::Similar => "similar",
            Self::SimilarNormalized => "similar-normalized",
            Self::Embedding => "embedding",
        }
    }
}

/// References given when `--refs` names a strategy without `:N`.
pub const DEFAULT_REFS: usize = 3;

/// `--refs`: a strategy and how many references (`similar:3`,
/// `embedding:5`, `random`, `none`; `random-build-system` is accepted for
/// `random-same-build-system`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefsMode {
    pub strategy: Strategy,
    pub n: usize,
}

impl RefsMode {
    pub fn parse(text: &str) -> Result<Self, String> {
        let (name, count) = match text.split_once(':') {
            Some((name, count)) => (name.trim(), Some(count.trim())),
            None => (text.trim(), None),
        };
        let name = if name == "random-build-system" {
            "random-same-build-system"
        } else {
            name
        };
        let strategy = Strategy::parse(name).ok_or_else(|| {
            format!(
                "unknown --refs `{text}`; use none, random[:N], random-build-system[:N], \
                 similar[:N], similar-normalized[:N] or embedding[:N]"
            )
        })?;
        let n = match (strategy, count) {
            (Strategy::None, None) => 0,
            (Strategy::None, Some(_)) => return Err("--refs none takes no count".into()),
            (_, None) => DEFAULT_REFS,
            (_, Some(c)) => c.parse::<usize>().map_err(|_| {
                format!("--refs `{text}`: `{c}` is not a number of references (e.g. {name}:3)")
            })?,
        };
        Ok(RefsMode { strategy, n })
    }
}

impl std::fmt::Display for RefsMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.strategy {
            Strategy::None => f.write_str("none"),
            s => write!(f, "{}:{}", s.as_str(), self.n),
        }
    }
}

/// The exclusion rule every strategy shares: the target itself and any
/// package whose name contains it (as SpackIt did), and `exclude` exactly.
/// `target_lower` is the target name, lower-cased.
pub(crate) fn is_excluded(name: &str, target_lower: &str, exclude: &[String]) -> bool {
    (!target_lower.is_empty() && name.contains(target_lower)) || exclude.iter().any(|x| x == name)
}

/// What the target looks like in Spack terms.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub name: String,
    /// Spack `build_system` value (`cmake`), if known.
    pub build_system: Option<String>,
    pub deps: BTreeSet<String>,
    pub opts: BTreeSet<String>,
}

#[derive(Debug, Clone)]
pub struct RetrieveOptions {
    pub strategy: Strategy,
    pub n: usize,
    pub seed: u64,
    /// Further names to leave out (exactly).
    pub exclude: Vec<String>,
}

/// One reference and why it was picked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    pub name: String,
    pub score: f64,
    pub shared_deps: Vec<String>,
    pub shared_opts: Vec<String>,
    pub why: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Retrieval {
    pub strategy: Strategy,
    pub target: Target,
    /// Packages left after exclusion and the build-system filter.
    pub candidates: usize,
    pub matches: Vec<Match>,
    pub elapsed_us: u128,
}

/// Per-package data retrieval needs, loaded once from SQLite.
pub struct Retriever<'kb> {
    kb: &'kb KnowledgeBase,
    /// id → (name, W(deps), W(opts)).
    packages: BTreeMap<i64, (String, f64, f64)>,
    /// id → space-separated build systems.
    build_systems: HashMap<i64, String>,
}

impl<'kb> Retriever<'kb> {
    pub fn load(kb: &'kb KnowledgeBase) -> Result<Self, KbError> {
        let e = sql(&kb.path);
        let mut stmt = kb
            .conn
            .prepare_cached("SELECT id, name, build_systems, w_deps, w_opts FROM packages")
            .map_err(&e)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get(1)?,
                    r.get::<_, String>(2)?,
                    r.get(3)?,
                    r.get(4)?,
                ))
            })
            .map_err(&e)?;
        let mut packages = BTreeMap::new();
        let mut build_systems = HashMap::new();
        for row in rows {
            let (id, name, bs, wd, wo) = row.map_err(&e)?;
            packages.insert(id, (name, wd, wo));
            build_systems.insert(id, bs);
        }
        Ok(Retriever {
            kb,
            packages,
            build_systems,
        })
    }

    /// Package ids holding feature `kind:name`.
    fn posting(&self, kind: &str, name: &str) -> Result<Vec<i64>, KbError> {
        let e = sql(&self.kb.path);
        let mut stmt = self
            .kb
            .conn
            .prepare_cached("SELECT pkg_id FROM features WHERE kind = ?1 AND name = ?2")
            .map_err(&e)?;
        let rows = stmt.query_map([kind, name], |r| r.get(0)).map_err(&e)?;
        rows.collect::<Result<_, _>>().map_err(&e)
    }

    pub fn retrieve(&self, target: &Target, opts: &RetrieveOptions) -> Result<Retrieval, KbError> {
        let start = Instant::now();
        // Spack package names are lower case; lower the target once here
        // instead of per candidate (this loop runs thousands of times).
        let lowered = target.name.to_ascii_lowercase();
        let excluded = |name: &str| is_excluded(name, &lowered, &opts.exclude);
        let same_bs = |id: &i64| match &target.build_system {
            Some(bs) => self
                .build_systems
                .get(id)
                .is_some_and(|all| all.split(' ').any(|b| b == bs)),
            None => true,
        };
        let allowed = |id: &i64, filter: bool| -> bool {
            let Some((name, _, _)) = self.packages.get(id) else {
                return false;
            };
            !excluded(name) && (!filter || same_bs(id))
        };
        let (candidates, matches) = match opts.strategy {
            Strategy::None => (0, Vec::new()),
            Strategy::Random | Strategy::RandomSameBuildSystem => {
                let filter = opts.strategy == Strategy::RandomSameBuildSystem;
                // Ordered by name, not row id, so that the same seed picks
                // the same packages from any index of the same repository.
                let mut pool: Vec<(&str, i64)> = self
                    .packages
                    .iter()
                    .filter(|(id, _)| allowed(id, filter))
                    .map(|(id, (name, _, _))| (name.as_str(), *id))
                    .collect();
                pool.sort();
                let pool: Vec<i64> = pool.into_iter().map(|(_, id)| id).collect();
                let picked = draw(&pool, opts.n, opts.seed);
                let why = format!(
                    "seeded draw (seed {}) from {} packages",
                    opts.seed,
                    pool.len()
                );
                let matches = picked
                    .into_iter()
                    .filter_map(|id| self.packages.get(&id))
                    .map(|(name, _, _)| Match {
                        name: name.clone(),
                        score: 0.0,
                        shared_deps: Vec::new(),
                        shared_opts: Vec::new(),
                        why: why.clone(),
                    })
                    .collect();
                (pool.len(), matches)
            }
            Strategy::Similar | Strategy::SimilarNormalized => {
                self.similar(target, opts, &|id| allowed(id, true))?
            }
            Strategy::Embedding => return Err(KbError::NeedsEmbedder),
        };
        Ok(Retrieval {
            strategy: opts.strategy,
            target: target.clone(),
            candidates,
            matches,
            elapsed_us: start.elapsed().as_micros(),
        })
    }

    fn similar(
        &self,
        target: &Target,
        opts: &RetrieveOptions,
        allowed: &dyn Fn(&i64) -> bool,
    ) -> Result<(usize, Vec<Match>), KbError> {
        let total = self.packages.len();
        // id → (shared deps, shared opts, W(shared deps), W(shared opts))
        let mut shared: HashMap<i64, (Vec<String>, Vec<String>, f64, f64)> = HashMap::new();
        let mut w_target = (0.0, 0.0);
        for (kind, items) in [("dep", &target.deps), ("opt", &target.opts)] {
            for item in items {
                let ids = self.posting(kind, item)?;
                let w = idf(total, ids.len());
                if kind == "dep" {
                    w_target.0 += w;
                } else {
                    w_target.1 += w;
                }
                for id in ids.into_iter().filter(|id| allowed(id)) {
                    let entry = shared.entry(id).or_default();
                    if kind == "dep" {
                        entry.0.push(item.clone());
                        entry.2 += w;
                    } else {
                        entry.1.push(item.clone());
                        entry.3 += w;
                    }
                }
            }
        }
        let jaccard = |inter: f64, t: f64, c: f64| {
            let union = t + c - inter;
            if union > 0.0 {
                inter / union
            } else {
                0.0
            }
        };
        let mut scored: Vec<Match> = shared
            .into_iter()
            .filter_map(|(id, (deps, options, wd, wo))| {
                let (name, cd, co) = self.packages.get(&id)?;
                let (score, why) = if opts.strategy == Strategy::Similar {
                    (
                        0.6 * deps.len() as f64 + 0.4 * options.len() as f64,
                        format!(
                            "0.6×{} shared deps + 0.4×{} shared options",
                            deps.len(),
                            options.len()
                        ),
                    )
                } else {
                    let jd = jaccard(wd, w_target.0, *cd);
                    let jo = jaccard(wo, w_target.1, *co);
                    (
                        0.6 * jd + 0.4 * jo,
                        format!("0.6×J_idf(deps)={jd:.3} + 0.4×J_idf(options)={jo:.3}"),
                    )
                };
                Some(Match {
                    name: name.clone(),
                    score,
                    shared_deps: deps,
                    shared_opts: options,
                    why,
                })
            })
            .collect();
        let candidates = scored.len();
        scored.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.name.cmp(&b.name))
        });
        scored.truncate(opts.n);
        Ok((candidates, scored))
    }
}

/// `n` distinct items drawn with a splitmix64 stream (stable across
/// platforms and Rust versions, unlike a library RNG's algorithm).
fn draw(pool: &[i64], n: usize, seed: u64) -> Vec<i64> {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut pool = pool.to_vec();
    let mut out = Vec::new();
    while out.len() < n && !pool.is_empty() {
        let i = (next() % pool.len() as u64) as usize;
        out.push(pool.swap_remove(i));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_seeded_and_distinct() {
        let pool: Vec<i64> = (0..50).collect();
        let a = draw(&pool, 5, 7);
        assert_eq!(a, draw(&pool, 5, 7));
        assert_ne!(a, draw(&pool, 5, 8));
        let set: std::collections::HashSet<_> = a.iter().collect();
        assert_eq!(set.len(), 5);
        assert_eq!(draw(&pool[..2], 5, 1).len(), 2);
    }

    #[test]
    fn strategy_names_round_trip() {
        for s in [
            "none",
            "random",
            "random-same-build-system",
            "similar",
            "similar-normalized",
            "embedding",
        ] {
            assert_eq!(Strategy::parse(s).map(Strategy::as_str), Some(s));
        }
    }

    #[test]
    fn refs_modes_parse_with_and_without_counts() {
        let parse = |t: &str| RefsMode::parse(t).map(|m| (m.strategy, m.n));
        assert_eq!(parse("embedding:5"), Ok((Strategy::Embedding, 5)));
        assert_eq!(parse("similar:2"), Ok((Strategy::Similar, 2)));
        assert_eq!(parse("similar"), Ok((Strategy::Similar, DEFAULT_REFS)));
        assert_eq!(
            parse("random-build-system:4"),
            Ok((Strategy::RandomSameBuildSystem, 4))
        );
        assert_eq!(parse("none"), Ok((Strategy::None, 0)));
        assert!(parse("none:2").is_err());
        assert!(parse("embedding:x")
            .unwrap_err()
            .contains("`x` is not a number"));
        assert!(parse("nearest:3").unwrap_err().contains("unknown --refs"));
        let shown = RefsMode::parse("embedding:5").unwrap().to_string();
        assert_eq!(shown, "embedding:5");
    }
}
