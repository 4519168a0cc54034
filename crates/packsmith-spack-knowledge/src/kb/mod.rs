//! The knowledge base: every recipe of a Spack package repository, read
//! once and stored in SQLite, so that name look-ups, retrieval and the
//! static check never start Spack.
//!
//! One database per indexed repository lives in `<cache>/kb/`, named
//! `<label>-<hash of the packages dir>.sqlite`. Indexing is incremental by
//! file hash and atomic (see [`index`]).

pub mod candidates;
pub mod features;
pub mod index;
pub mod layout;
pub mod query;
pub mod schema;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use packsmith_core::Hint;

use rusqlite::{Connection, OpenFlags};

pub use index::{index_repo, IndexOptions, IndexReport, TagList};
pub use query::{NameIndex, PackageSummary, SearchHit, Stats};

/// Why the knowledge base could not be built or read.
#[derive(Debug, thiserror::Error)]
pub enum KbError {
    #[error("{path} is not a Spack package repository: {why}")]
    NoRepo { path: PathBuf, why: String },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("knowledge base {path} does not exist")]
    NotFound { path: PathBuf },
    #[error("no knowledge base matches `{selector}` in {dir}")]
    NoMatch { selector: String, dir: PathBuf },
    #[error("no knowledge base has been indexed yet (looked in {dir})")]
    NoneIndexed { dir: PathBuf },
    #[error("{path} is not a usable packsmith knowledge base: {why}")]
    Corrupt { path: PathBuf, why: String },
    #[error("knowledge base {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("tag list {path}: {why}")]
    TagList { path: PathBuf, why: String },
    #[error("reference strategy `embedding` needs an embedding model, which this retriever does not have")]
    NeedsEmbedder,
    #[error("indexing stopped on purpose after {after} packages (failure injection)")]
    Injected { after: usize },
}

impl Hint for KbError {
    fn hint(&self) -> Option<Cow<'_, str>> {
        Some(match self {
            KbError::NoRepo { .. } => "point at a Spack checkout, a spack-packages checkout, or a directory with repo.yaml and packages/".into(),
            KbError::Io { .. } => "check that the path exists and is readable".into(),
            KbError::NotFound { .. } | KbError::NoMatch { .. } | KbError::NoneIndexed { .. } => {
                "run `packsmith kb index <spack-package-repo>` first, or pass --kb with an existing database".into()
            }
            KbError::Corrupt { path, .. } => format!(
                "delete {} and run `packsmith kb index <spack-package-repo>` again",
                path.display()
            )
            .into(),
            KbError::Sqlite { .. } => "check free disk space and permissions of the cache directory, then re-run `packsmith kb index`".into(),
            KbError::TagList { .. } => "give a JSON-lines file with a \"name\" field per line, or one package name per line".into(),
            KbError::NeedsEmbedder => "use packsmith_spack_knowledge::embed::EmbeddingRetriever for `embedding:N` (the CLI does: `kb similar --strategy embedding --embed-model …`)".into(),
            KbError::Injected { .. } => "this only happens in tests".into(),
        })
    }

    /// Only a failing SQLite (disk, permissions) is the environment's fault.
    fn is_bad_input(&self) -> bool {
        !matches!(self, KbError::Sqlite { .. })
    }
}

pub(crate) fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> KbError + '_ {
    move |source| match &source {
        rusqlite::Error::SqliteFailure(e, _)
            if matches!(
                e.code,
                rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
            ) =>
        {
            KbError::Corrupt {
                path: path.to_path_buf(),
                why: source.to_string(),
            }
        }
        _ => KbError::Sqlite {
            path: path.to_path_buf(),
            source,
        },
    }
}

/// The directory holding the databases.
pub fn kb_dir(cache: &Path) -> PathBuf {
    cache.join("kb")
}

/// A read-only handle on one database.
pub struct KnowledgeBase {
    pub(crate) conn: Connection,
    pub path: PathBuf,
}

impl KnowledgeBase {
    /// Opens and validates a database file.
    pub fn open(path: &Path) -> Result<Self, KbError> {
        if !path.is_file() {
            return Err(KbError::NotFound {
                path: path.to_path_buf(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql(path))?;
        let version = schema_version(&conn).map_err(|e| match e {
            KbError::Sqlite { source, .. } => KbError::Corrupt {
                path: path.to_path_buf(),
                why: source.to_string(),
            },
            other => other,
        })?;
        if version != Some(schema::SCHEMA_VERSION) {
            return Err(KbError::Corrupt {
                path: path.to_path_buf(),
                why: format!(
                    "schema version {} (this packsmith reads {})",
                    version.map_or("none".to_string(), |v| v.to_string()),
                    schema::SCHEMA_VERSION
                ),
            });
        }
        Ok(KnowledgeBase {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens the database `selector` names (a path, or a label such as
    /// `spack-builtin`), or the most recently indexed one.
    pub fn select(cache: &Path, selector: Option<&str>) -> Result<Self, KbError> {
        Self::open(&resolve(cache, selector)?)
    }

    /// A `meta` value (`repo_path`, `label`, `indexed_at`, ...).
    pub fn meta(&self, key: &str) -> Option<String> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .ok()
    }
}

/// `meta.schema_version`, or None for a database without it.
pub(crate) fn schema_version(conn: &Connection) -> Result<Option<i64>, KbError> {
    let has_meta: bool = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .map_err(sql(Path::new("")))?;
    if !has_meta {
        return Ok(None);
    }
    let value: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .ok();
    Ok(value.and_then(|v| v.parse().ok()))
}

/// Resolves `--kb`: an existing file, else a label (or file stem) in the
/// cache, else the most recently indexed database.
pub fn resolve(cache: &Path, selector: Option<&str>) -> Result<PathBuf, KbError> {
    let dir = kb_dir(cache);
    if let Some(sel) = selector {
        let as_path = Path::new(sel);
        if as_path.is_file() {
            return Ok(as_path.to_path_buf());
        }
        if sel.contains(std::path::MAIN_SEPARATOR) || sel.ends_with(".sqlite") {
            return Err(KbError::NotFound {
                path: as_path.to_path_buf(),
            });
        }
        let mut matches: Vec<(std::time::SystemTime, PathBuf)> = databases(&dir)
            .into_iter()
            .filter(|(_, p)| {
                let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                stem == sel || label_of(stem) == sel
            })
            .collect();
        matches.sort();
        return matches.pop().map(|(_, p)| p).ok_or(KbError::NoMatch {
            selector: sel.to_string(),
            dir,
        });
    }
    let mut all = databases(&dir);
    all.sort();
    all.pop()
        .map(|(_, p)| p)
        .ok_or(KbError::NoneIndexed { dir })
}

/// `spack-builtin-0123abcd` → `spack-builtin`.
fn label_of(stem: &str) -> &str {
    stem.rsplit_once('-').map_or(stem, |(label, _)| label)
}

/// Every `*.sqlite` in the KB directory with its modification time.
fn databases(dir: &Path) -> Vec<(std::time::SystemTime, PathBuf)> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
                .filter_map(|p| {
                    let t = p.metadata().and_then(|m| m.modified()).ok()?;
                    Some((t, p))
                })
                .collect()
        })
        .unwrap_or_default()
}
