//! `embedding:N`: the target's feature card against every package's card
//! (and, when asked, the best of its chunks), by cosine similarity, with
//! the exclusions and the build-system filter of `similar:N`.

use std::collections::BTreeSet;
use std::time::Instant;

use rusqlite::params;

use super::card::FeatureCard;
use super::chunks::ChunkKind;
use super::store::{decode, embedded_models, has_table, normalize};
use super::EmbedError;
use crate::kb::{sql, KbError, KnowledgeBase};
use crate::retrieve::{is_excluded, Match, Retrieval, RetrieveOptions, Strategy, Target};
use packsmith_core::embed::Embedder;

/// Which vectors a package is scored with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Pieces {
    /// Its card only.
    #[default]
    Cards,
    /// The best of its card and its chunks (packages without chunks are
    /// scored by their card).
    CardsAndChunks,
}

/// One package's current vectors.
struct Candidate {
    name: String,
    build_systems: Vec<String>,
    /// Row range in `vectors` (card first).
    card: usize,
    chunks: Vec<(ChunkKind, String, usize)>,
}

/// A candidate's score: the best of its card and (when asked) its chunks.
struct Scored<'a> {
    score: f32,
    card_score: f32,
    /// The best chunk: kind, label, cosine.
    best_chunk: Option<(ChunkKind, &'a str, f32)>,
    candidate: &'a Candidate,
}

/// The vectors of one embedding model, loaded once per run.
pub struct EmbeddingRetriever<'kb> {
    kb: &'kb KnowledgeBase,
    model: String,
    dims: usize,
    /// Row-major, one unit vector per row.
    vectors: Vec<f32>,
    candidates: Vec<Candidate>,
    /// Rows skipped because their recipe changed since they were embedded.
    stale: usize,
}

impl<'kb> EmbeddingRetriever<'kb> {
    /// Loads the current vectors of `model` (the embedder's
    /// [`Embedder::model_id`]). Vectors of other models are never read.
    pub fn load(kb: &'kb KnowledgeBase, model: &str) -> Result<Self, EmbedError> {
        let not_embedded = || -> Result<EmbedError, EmbedError> {
            Ok(EmbedError::NotEmbedded {
                path: kb.path.clone(),
                model: model.to_string(),
                available: embedded_models(kb)?.into_iter().map(|(m, _)| m).collect(),
            })
        };
        if !has_table(&kb.conn) {
            return Err(not_embedded()?);
        }
        let e = sql(&kb.path);
        let mut stmt = kb
            .conn
            .prepare(
                "SELECT e.package, e.kind, e.label, e.dims, e.vector, p.build_systems,
                        e.file_hash = p.file_hash
                 FROM embeddings e JOIN packages p ON p.name = e.package
                 WHERE e.model = ?1
                 ORDER BY e.package, e.kind = 'card' DESC, e.kind, e.label",
            )
            .map_err(&e)?;
        let rows = stmt
            .query_map(params![model], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Vec<u8>>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, bool>(6)?,
                ))
            })
            .map_err(&e)?;
        let mut dims = 0usize;
        let mut vectors = Vec::new();
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut stale = 0;
        let mut rows_read = 0usize;
        for row in rows {
            let (package, kind, label, d, blob, bs, current) = row.map_err(&e)?;
            let Some(kind) = ChunkKind::parse(&kind) else {
                continue;
            };
            if !current {
                stale += 1;
                continue;
            }
            let v = decode(&blob);
            if dims == 0 {
                dims = v.len();
            }
            if v.len() != dims || d as usize != dims {
                return Err(EmbedError::Shape {
                    model: model.to_string(),
                    why: format!(
                        "{package} {}: {} dimensions where the others have {dims}",
                        kind.as_str(),
                        v.len()
                    ),
                });
            }
            let row_index = rows_read;
            rows_read += 1;
            vectors.extend_from_slice(&v);
            if kind == ChunkKind::Card {
                candidates.push(Candidate {
                    name: package,
                    build_systems: bs.split_whitespace().map(str::to_string).collect(),
                    card: row_index,
                    chunks: Vec::new(),
                });
            } else if let Some(c) = candidates.last_mut().filter(|c| c.name == package) {
                c.chunks.push((kind, label, row_index));
            }
            // A chunk without its card (the card is stale) is not scored.
        }
        if candidates.is_empty() {
            return Err(not_embedded()?);
        }
        Ok(EmbeddingRetriever {
            kb,
            model: model.to_string(),
            dims,
            vectors,
            candidates,
            stale,
        })
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Packages with a current card vector.
    pub fn packages(&self) -> usize {
        self.candidates.len()
    }

    /// Vectors left out because their recipe changed after they were
    /// embedded (`kb embed` again refreshes them).
    pub fn stale(&self) -> usize {
        self.stale
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.vectors[i * self.dims..(i + 1) * self.dims]
    }

    /// Embeds `card` with `embedder` (which must be the model this
    /// retriever loaded) and ranks the packages against it.
    pub fn retrieve(
        &self,
        embedder: &dyn Embedder,
        card: &FeatureCard,
        opts: &RetrieveOptions,
        pieces: Pieces,
    ) -> Result<Retrieval, EmbedError> {
        let start = Instant::now();
        if embedder.model_id() != self.model {
            return Err(EmbedError::ModelMismatch {
                loaded: self.model.clone(),
                given: embedder.model_id(),
            });
        }
        let mut vectors = embedder
            .embed(&[card.render()])
            .map_err(|source| EmbedError::Model {
                model: self.model.clone(),
                source,
            })?;
        let mut query = vectors.pop().ok_or_else(|| EmbedError::Shape {
            model: self.model.clone(),
            why: "no vector for the target's card".into(),
        })?;
        let mut result = self.retrieve_vector(&mut query, card, opts, pieces)?;
        result.elapsed_us = start.elapsed().as_micros();
        Ok(result)
    }

    /// Ranks the packages against an already embedded card.
    pub fn retrieve_vector(
        &self,
        query: &mut [f32],
        card: &FeatureCard,
        opts: &RetrieveOptions,
        pieces: Pieces,
    ) -> Result<Retrieval, EmbedError> {
        let start = Instant::now();
        if query.len() != self.dims {
            return Err(EmbedError::Shape {
                model: self.model.clone(),
                why: format!(
                    "the query has {} dimensions, the stored vectors {}",
                    query.len(),
                    self.dims
                ),
            });
        }
        normalize(query);
        let target = target_of(card);
        let lowered = target.name.to_ascii_lowercase();
        let dot = |i: usize| -> f32 {
            self.row(i)
                .iter()
                .zip(query.iter())
                .map(|(a, b)| a * b)
                .sum()
        };
        let mut scored: Vec<Scored> = Vec::new();
        for c in &self.candidates {
            if is_excluded(&c.name, &lowered, &opts.exclude) {
                continue;
            }
            if let Some(bs) = &target.build_system {
                if !c.build_systems.iter().any(|b| b == bs) {
                    continue;
                }
            }
            let card_score = dot(c.card);
            let best_chunk = match pieces {
                Pieces::Cards => None,
                Pieces::CardsAndChunks => c
                    .chunks
                    .iter()
                    .map(|(k, l, i)| (*k, l.as_str(), dot(*i)))
                    .max_by(|a, b| a.2.total_cmp(&b.2)),
            };
            let score = best_chunk.map_or(card_score, |(_, _, s)| s.max(card_score));
            scored.push(Scored {
                score,
                card_score,
                best_chunk,
                candidate: c,
            });
        }
        let candidates = scored.len();
        scored.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.candidate.name.cmp(&b.candidate.name))
        });
        scored.truncate(opts.n);
        let mut matches = Vec::with_capacity(scored.len());
        for Scored {
            score,
            card_score,
            best_chunk,
            candidate: c,
        } in scored
        {
            let (shared_deps, shared_opts) = self.shared(&c.name, &target)?;
            let why = match best_chunk {
                Some((kind, label, s)) if s > card_score => format!(
                    "cosine {s:.3} of its {} chunk `{label}` ({}; card {card_score:.3})",
                    kind.as_str(),
                    self.model
                ),
                _ => format!("cosine {card_score:.3} of feature cards ({})", self.model),
            };
            matches.push(Match {
                name: c.name.clone(),
                score: f64::from(score),
                shared_deps,
                shared_opts,
                why,
            });
        }
        Ok(Retrieval {
            strategy: Strategy::Embedding,
            target,
            candidates,
            matches,
            elapsed_us: start.elapsed().as_micros(),
        })
    }

    /// The target's dependencies and options the package has too (for the
    /// report; they do not change the score).
    fn shared(&self, name: &str, target: &Target) -> Result<(Vec<String>, Vec<String>), KbError> {
        let e = sql(&self.kb.path);
        let mut stmt = self
            .kb
            .conn
            .prepare_cached(
                "SELECT f.kind, f.name FROM features f JOIN packages p ON p.id = f.pkg_id
                 WHERE p.name = ?1 AND f.kind IN ('dep', 'opt') ORDER BY f.name",
            )
            .map_err(&e)?;
        let rows = stmt
            .query_map([name], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(&e)?;
        let (mut deps, mut opts) = (Vec::new(), Vec::new());
        for row in rows {
            let (kind, item) = row.map_err(&e)?;
            if kind == "dep" && target.deps.contains(&item) {
                deps.push(item);
            } else if kind == "opt" && target.opts.contains(&item) {
                opts.push(item);
            }
        }
        Ok((deps, opts))
    }
}

/// The card as the `Target` that `Retrieval` reports.
fn target_of(card: &FeatureCard) -> Target {
    Target {
        name: card.name.clone(),
        build_system: card.build_systems.first().cloned(),
        deps: card.dependencies.iter().cloned().collect::<BTreeSet<_>>(),
        opts: card
            .variants
            .iter()
            .map(|v| v.to_ascii_lowercase())
            .collect(),
    }
}
