//! Vectors in the knowledge base: table `embeddings`, one row per
//! (embedding model, package, chunk kind, label), with the SHA-256 of the
//! embedded text and the recipe file hash it was taken from.
//!
//! Incremental: a chunk whose text hash is stored for the model is not
//! embedded again. The table sits beside the index's tables and is added
//! on the first `kb embed` (`CREATE TABLE IF NOT EXISTS`); the index never
//! touches it, so re-indexing keeps the vectors, and the recipe file hash
//! tells the query which of them are still current.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{params, Connection};
use serde::Serialize;

use super::card::FeatureCard;
use super::chunks::{recipe_chunks, Chunk, ChunkKind};
use super::EmbedError;
use crate::kb::{sql, KbError, KnowledgeBase};
use crate::recipe::parse_recipe;
use packsmith_core::embed::Embedder;

/// The embeddings table (created by `kb embed`, read by queries).
pub const EMBEDDINGS_DDL: &str = "
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    package TEXT NOT NULL,
    kind TEXT NOT NULL,
    label TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    file_hash TEXT NOT NULL,
    dims INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, package, kind, label)
);
";

/// Which packages get chunks besides their card (embedding every method of
/// 8,000 recipes takes long on a small machine; cards are cheap).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ChunkScope {
    /// Cards only.
    #[default]
    None,
    /// Every package.
    All,
    /// These packages.
    Packages(BTreeSet<String>),
}

impl ChunkScope {
    fn includes(&self, name: &str) -> bool {
        match self {
            Self::None => false,
            Self::All => true,
            Self::Packages(names) => names.contains(name),
        }
    }
}

#[derive(Debug, Clone)]
pub struct EmbedOptions {
    pub chunks: ChunkScope,
    /// Texts per embedder call (and per SQLite transaction).
    pub batch: usize,
    /// Only the first N packages by name (for trials and tests).
    pub limit: Option<usize>,
}

impl Default for EmbedOptions {
    fn default() -> Self {
        Self {
            chunks: ChunkScope::None,
            batch: 32,
            limit: None,
        }
    }
}

/// Where `kb embed` is.
#[derive(Debug, Clone, Serialize)]
pub struct EmbedProgress {
    /// Texts embedded so far in this run, of `total` to embed.
    pub done: usize,
    pub total: usize,
    /// The package of the last text embedded.
    pub package: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct EmbedReport {
    pub db: PathBuf,
    pub model: String,
    pub dims: usize,
    pub packages: usize,
    /// Packages whose chunks (beyond the card) were in scope.
    pub chunked_packages: usize,
    /// Chunks in scope, cards included.
    pub chunks: usize,
    /// Embedded in this run.
    pub embedded: usize,
    /// Already embedded with this model (same text).
    pub unchanged: usize,
    /// Rows deleted: packages gone from the index, chunks gone from recipes.
    pub removed: usize,
    pub chunks_by_kind: BTreeMap<String, usize>,
    /// Wall time in the embedder alone, and in all.
    pub embed_ms: f64,
    pub elapsed_ms: f64,
}

/// Little-endian f32s.
pub(crate) fn encode(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn decode(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Scales `v` to unit length (cosine then is a dot product).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// One package as the index stored it.
pub(crate) struct StoredPackage {
    pub card: FeatureCard,
    pub file_hash: String,
}

/// Every package's card, built from the index's rows (the same card
/// `chunks::card_from_recipe` builds from the recipe), by name.
pub(crate) fn load_cards(
    conn: &Connection,
    path: &Path,
) -> Result<BTreeMap<String, StoredPackage>, KbError> {
    let e = sql(path);
    let mut by_id: HashMap<i64, StoredPackage> = HashMap::new();
    {
        let mut stmt = conn
            .prepare("SELECT id, name, docstring, build_systems, file_hash FROM packages")
            .map_err(&e)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                ))
            })
            .map_err(&e)?;
        for row in rows {
            let (id, name, doc, bs, file_hash) = row.map_err(&e)?;
            by_id.insert(
                id,
                StoredPackage {
                    card: FeatureCard {
                        name,
                        description: doc,
                        build_systems: bs.split_whitespace().map(str::to_string).collect(),
                        ..FeatureCard::default()
                    },
                    file_hash,
                },
            );
        }
    }
    for (query, field) in [
        ("SELECT pkg_id, name FROM variants", 0),
        ("SELECT pkg_id, name FROM features WHERE kind = 'dep'", 1),
        ("SELECT pkg_id, key FROM define_keys", 2),
    ] {
        let mut stmt = conn.prepare(query).map_err(&e)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .map_err(&e)?;
        for row in rows {
            let (id, item) = row.map_err(&e)?;
            if let Some(p) = by_id.get_mut(&id) {
                match field {
                    0 => p.card.variants.push(item),
                    1 => p.card.dependencies.push(item),
                    _ => p.card.defines.push(item),
                }
            }
        }
    }
    Ok(by_id
        .into_values()
        .map(|mut p| {
            p.card = p.card.normalized();
            (p.card.name.clone(), p)
        })
        .collect())
}

/// True when the database has the embeddings table.
pub(crate) fn has_table(conn: &Connection) -> bool {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'embeddings'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .is_ok_and(|n| n > 0)
}

/// The models the database holds vectors for, with their card counts.
pub fn embedded_models(kb: &KnowledgeBase) -> Result<Vec<(String, usize)>, KbError> {
    if !has_table(&kb.conn) {
        return Ok(Vec::new());
    }
    let e = sql(&kb.path);
    let mut stmt = kb
        .conn
        .prepare("SELECT model, count(*) FROM embeddings WHERE kind = 'card' GROUP BY model ORDER BY model")
        .map_err(&e)?;
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as usize))
        })
        .map_err(&e)?;
    rows.collect::<Result<_, _>>().map_err(&e)
}

type Key = (String, ChunkKind, String);

/// Embeds the cards of every package of the knowledge base at `path`, and
/// the chunks of the packages `opts.chunks` names, with `embedder`;
/// `progress` is called after each batch. Batches are committed as they
/// finish, so an interrupted run keeps what it did and the next one goes on
/// from there.
pub fn embed_kb(
    path: &Path,
    embedder: &dyn Embedder,
    opts: &EmbedOptions,
    progress: &mut dyn FnMut(&EmbedProgress),
) -> Result<EmbedReport, EmbedError> {
    let start = Instant::now();
    // Validates the file and its schema before anything is written.
    drop(KnowledgeBase::open(path)?);
    let e = sql(path);
    let mut conn = Connection::open(path).map_err(&e)?;
    conn.busy_timeout(Duration::from_secs(30)).map_err(&e)?;
    conn.execute_batch(EMBEDDINGS_DDL).map_err(&e)?;
    let model = embedder.model_id();

    let mut packages = load_cards(&conn, path)?;
    if let Some(limit) = opts.limit {
        let keep: BTreeSet<String> = packages.keys().take(limit).cloned().collect();
        packages.retain(|name, _| keep.contains(name));
    }

    let stored = stored_rows(&conn, path, &model)?;
    let mut dims: Option<usize> = stored.values().next().map(|s| s.2);

    // The chunks in scope, and which of them need a vector.
    let mut current: BTreeSet<Key> = BTreeSet::new();
    let mut chunked: BTreeSet<String> = BTreeSet::new();
    let mut todo: Vec<(Chunk, String, String)> = Vec::new(); // chunk, text hash, file hash
    let mut refresh: Vec<(Key, String)> = Vec::new(); // same text, newer file hash
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut recipe_stmt = conn
        .prepare("SELECT recipe, path FROM packages WHERE name = ?1")
        .map_err(&e)?;
    for (name, pkg) in &packages {
        let mut chunks = vec![Chunk::card(&pkg.card)];
        if opts.chunks.includes(name) {
            let (text, rel): (String, String) = recipe_stmt
                .query_row([name], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(&e)?;
            chunks.extend(recipe_chunks(name, &parse_recipe(&text, &rel), &text));
            chunked.insert(name.clone());
        }
        for chunk in chunks {
            *by_kind.entry(chunk.kind.as_str().to_string()).or_default() += 1;
            let key = (chunk.package.clone(), chunk.kind, chunk.label.clone());
            let hash = chunk.text_hash();
            match stored.get(&key) {
                Some((h, f, _)) if *h == hash => {
                    if *f != pkg.file_hash {
                        refresh.push((key.clone(), pkg.file_hash.clone()));
                    }
                }
                _ => todo.push((chunk, hash, pkg.file_hash.clone())),
            }
            current.insert(key);
        }
    }
    drop(recipe_stmt);
    // Rows to drop: packages gone from the index, and chunks gone from a
    // package whose chunks were rebuilt now (others keep theirs).
    let stale: Vec<&Key> = stored
        .keys()
        .filter(|k| !current.contains(*k))
        .filter(|(package, kind, _)| match packages.get(package) {
            // Gone from the index (unless this run looked at a few only).
            None => opts.limit.is_none(),
            Some(_) => *kind == ChunkKind::Card || chunked.contains(package),
        })
        .collect();

    drop_and_refresh(&mut conn, path, &model, &stale, &refresh)?;

    let total = todo.len();
    let embed_time = embed_and_store(
        &mut conn, path, embedder, &todo, opts.batch, &mut dims, progress,
    )?;
    Ok(EmbedReport {
        db: path.to_path_buf(),
        model,
        dims: dims.unwrap_or(0),
        packages: packages.len(),
        chunked_packages: chunked.len(),
        chunks: current.len(),
        embedded: total,
        unchanged: current.len() - total,
        removed: stale.len(),
        chunks_by_kind: by_kind,
        embed_ms: embed_time.as_secs_f64() * 1e3,
        elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

/// Embeds the chunks in batches of `batch` and stores each batch's vectors
/// (normalized) in its own transaction, so an interrupted run keeps what it
/// finished; returns the time spent in the model.
fn embed_and_store(
    conn: &mut Connection,
    path: &Path,
    embedder: &dyn Embedder,
    todo: &[(Chunk, String, String)],
    batch: usize,
    dims: &mut Option<usize>,
    progress: &mut dyn FnMut(&EmbedProgress),
) -> Result<Duration, EmbedError> {
    let e = sql(path);
    let model = embedder.model_id();
    let total = todo.len();
    let mut done = 0;
    let mut embed_time = Duration::ZERO;
    for batch in todo.chunks(batch.max(1)) {
        let texts: Vec<String> = batch.iter().map(|(c, _, _)| c.text.clone()).collect();
        let t = Instant::now();
        let vectors = embedder.embed(&texts).map_err(|source| EmbedError::Model {
            model: model.to_string(),
            source,
        })?;
        embed_time += t.elapsed();
        if vectors.len() != texts.len() {
            return Err(EmbedError::Shape {
                model: model.to_string(),
                why: format!("{} vectors for {} texts", vectors.len(), texts.len()),
            });
        }
        let tx = conn.transaction().map_err(&e)?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO embeddings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(&e)?;
            for ((chunk, hash, file_hash), mut v) in batch.iter().zip(vectors) {
                let expected = *dims.get_or_insert(v.len());
                if v.len() != expected || v.is_empty() {
                    return Err(EmbedError::Shape {
                        model: model.to_string(),
                        why: format!(
                            "a vector of {} dimensions where the others have {expected}",
                            v.len()
                        ),
                    });
                }
                normalize(&mut v);
                insert
                    .execute(params![
                        model,
                        chunk.package,
                        chunk.kind.as_str(),
                        chunk.label,
                        hash,
                        file_hash,
                        v.len() as i64,
                        encode(&v)
                    ])
                    .map_err(&e)?;
            }
        }
        tx.commit().map_err(&e)?;
        done += batch.len();
        progress(&EmbedProgress {
            done,
            total,
            package: batch
                .last()
                .map(|(c, _, _)| c.package.clone())
                .unwrap_or_default(),
        });
    }
    Ok(embed_time)
}

/// What is stored for `model`: key → (text hash, file hash, dims).
fn stored_rows(
    conn: &Connection,
    path: &Path,
    model: &str,
) -> Result<HashMap<Key, (String, String, usize)>, EmbedError> {
    let e = sql(path);
    let mut stored: HashMap<Key, (String, String, usize)> = HashMap::new();
    let mut stmt = conn
        .prepare("SELECT package, kind, label, text_hash, file_hash, dims FROM embeddings WHERE model = ?1")
        .map_err(&e)?;
    let rows = stmt
        .query_map([model], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, i64>(5)?,
            ))
        })
        .map_err(&e)?;
    for row in rows {
        let (package, kind, label, text_hash, file_hash, dims) = row.map_err(&e)?;
        if let Some(kind) = ChunkKind::parse(&kind) {
            stored.insert(
                (package, kind, label),
                (text_hash, file_hash, dims as usize),
            );
        }
    }
    Ok(stored)
}

/// Deletes the stale rows and moves unchanged chunks to their recipe's new
/// file hash, in one transaction.
fn drop_and_refresh(
    conn: &mut Connection,
    path: &Path,
    model: &str,
    stale: &[&Key],
    refresh: &[(Key, String)],
) -> Result<(), EmbedError> {
    let e = sql(path);
    let tx = conn.transaction().map_err(&e)?;
    for (package, kind, label) in stale {
        tx.execute(
            "DELETE FROM embeddings WHERE model = ?1 AND package = ?2 AND kind = ?3 AND label = ?4",
            params![model, package, kind.as_str(), label],
        )
        .map_err(&e)?;
    }
    for ((package, kind, label), file_hash) in refresh {
        tx.execute(
            "UPDATE embeddings SET file_hash = ?5 WHERE model = ?1 AND package = ?2 AND kind = ?3 AND label = ?4",
            params![model, package, kind.as_str(), label, file_hash],
        )
        .map_err(&e)?;
    }
    tx.commit().map_err(&e)?;
    Ok(())
}
