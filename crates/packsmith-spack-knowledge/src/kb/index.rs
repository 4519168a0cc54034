//! `kb index`: read every recipe of a repository into SQLite.
//!
//! Incremental: files whose SHA-256 matches the stored one are not parsed
//! again. Atomic: changes are written into a copy of the database beside
//! it, which is renamed over the old one only once complete; an
//! interrupted run leaves the previous database as it was (and at most a
//! stray `.tmp` file, removed by the next run).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::{params, Connection, Transaction};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::features::{build_systems, feature_sets};
use super::layout::{locate, recipe_files};
use super::schema::{DDL, INDEXES, SCHEMA_VERSION};
use super::{kb_dir, schema_version, sql, KbError};
use crate::recipe::{parse_recipe, ParsedRecipe, VariantValues};

/// Tag the packages named in a list file.
#[derive(Debug, Clone)]
pub struct TagList {
    pub path: PathBuf,
    pub tag: String,
}

#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    pub tag_list: Option<TagList>,
    /// Overrides the database label (default: checkout and namespace).
    pub label: Option<String>,
    /// Parser threads; 0 means the available cores.
    pub threads: usize,
    /// Tests only: fail after writing this many packages.
    #[doc(hidden)]
    pub fail_after: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IndexReport {
    pub db: PathBuf,
    pub label: String,
    pub packages_dir: PathBuf,
    pub packages: usize,
    pub parsed: usize,
    pub unchanged: usize,
    pub removed: usize,
    /// Names tagged from the list, and list names not in the repository.
    pub tagged: usize,
    pub tag_missing: Vec<String>,
    pub elapsed_ms: f64,
}

struct FileEntry {
    name: String,
    rel_path: String,
    bytes: Vec<u8>,
    hash: String,
}

/// Indexes the repository at `repo` into `<cache>/kb/`.
pub fn index_repo(repo: &Path, cache: &Path, opts: &IndexOptions) -> Result<IndexReport, KbError> {
    let start = Instant::now();
    let layout = locate(repo)?;
    let packages_dir = layout
        .packages
        .canonicalize()
        .map_err(|source| KbError::Io {
            path: layout.packages.clone(),
            source,
        })?;
    let label = opts
        .label
        .clone()
        .unwrap_or_else(|| default_label(&packages_dir, &layout.namespace));
    let dir = kb_dir(cache);
    std::fs::create_dir_all(&dir).map_err(|source| KbError::Io {
        path: dir.clone(),
        source,
    })?;
    let key = hex::encode(&Sha256::digest(packages_dir.to_string_lossy().as_bytes())[..4]);
    let db = dir.join(format!("{label}-{key}.sqlite"));
    let tags = opts.tag_list.as_ref().map(read_tag_list).transpose()?;

    let files = recipe_files(&packages_dir)?;
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        opts.threads
    };
    let entries = parallel_map(&files, threads, |(name, path)| {
        let bytes = std::fs::read(path).map_err(|source| KbError::Io {
            path: path.clone(),
            source,
        })?;
        let hash = hex::encode(Sha256::digest(&bytes));
        let rel_path = path
            .strip_prefix(&packages_dir)
            .unwrap_or(path)
            .display()
            .to_string();
        Ok(FileEntry {
            name: name.clone(),
            rel_path,
            bytes,
            hash,
        })
    })
    .into_iter()
    .collect::<Result<Vec<_>, KbError>>()?;

    let stored = stored_hashes(&db);
    let current: BTreeSet<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let removed: Vec<String> = stored
        .keys()
        .filter(|n| !current.contains(n.as_str()))
        .cloned()
        .collect();
    let changed: Vec<&FileEntry> = entries
        .iter()
        .filter(|e| stored.get(&e.name) != Some(&e.hash))
        .collect();
    let mut report = IndexReport {
        db: db.clone(),
        label: label.clone(),
        packages_dir: packages_dir.clone(),
        packages: entries.len(),
        parsed: changed.len(),
        unchanged: entries.len() - changed.len(),
        removed: removed.len(),
        tagged: 0,
        tag_missing: Vec::new(),
        elapsed_ms: 0.0,
    };

    let fresh = stored.is_empty() && !db.is_file();
    if changed.is_empty() && removed.is_empty() && !fresh {
        // Nothing to parse: a small in-place transaction (atomic by SQLite's
        // journal) records the run and any tag list.
        let mut conn = Connection::open(&db).map_err(sql(&db))?;
        let tx = conn.transaction().map_err(sql(&db))?;
        write_meta(&tx, &packages_dir, &label, &layout.namespace, entries.len())
            .map_err(sql(&db))?;
        if let Some((tag, names)) = &tags {
            apply_tags(&tx, tag, names, &mut report).map_err(sql(&db))?;
        }
        tx.commit().map_err(sql(&db))?;
        report.elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
        return Ok(report);
    }

    let tmp = TempFile(db.with_extension(format!("sqlite.tmp-{}", std::process::id())));
    if !fresh && !stored.is_empty() {
        std::fs::copy(&db, &tmp.0).map_err(|source| KbError::Io {
            path: db.clone(),
            source,
        })?;
    }
    {
        let mut conn = Connection::open(&tmp.0).map_err(sql(&tmp.0))?;
        // Durability comes from the final rename, not from a journal.
        conn.execute_batch(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = ON;",
        )
        .map_err(sql(&tmp.0))?;
        conn.execute_batch(DDL).map_err(sql(&tmp.0))?;
        let bulk = stored.is_empty();
        if !bulk {
            conn.execute_batch(INDEXES).map_err(sql(&tmp.0))?;
        }
        let tx = conn.transaction().map_err(sql(&tmp.0))?;
        for name in removed
            .iter()
            .map(String::as_str)
            .chain(changed.iter().map(|e| e.name.as_str()))
        {
            tx.execute("DELETE FROM packages WHERE name = ?1", [name])
                .map_err(sql(&tmp.0))?;
        }
        // Parse on worker threads while this thread inserts: with two
        // cores, parsing and SQLite overlap instead of adding up.
        let inserted = std::thread::scope(|scope| -> Result<(), KbError> {
            let (send, receive) = std::sync::mpsc::sync_channel::<(usize, ParsedRecipe)>(256);
            let workers = threads.clamp(1, changed.len().max(1));
            for w in 0..workers {
                let send = send.clone();
                let changed = &changed;
                scope.spawn(move || {
                    for (i, e) in changed.iter().enumerate().skip(w).step_by(workers) {
                        let text = String::from_utf8_lossy(&e.bytes);
                        if send.send((i, parse_recipe(&text, &e.rel_path))).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(send);
            for (count, (i, recipe)) in receive.iter().enumerate() {
                if opts.fail_after == Some(count) {
                    return Err(KbError::Injected { after: count });
                }
                insert_package(&tx, changed[i], &recipe).map_err(sql(&tmp.0))?;
            }
            Ok(())
        });
        inserted?;
        if bulk {
            tx.execute_batch(INDEXES).map_err(sql(&tmp.0))?;
        }
        update_weights(&tx).map_err(sql(&tmp.0))?;
        write_meta(&tx, &packages_dir, &label, &layout.namespace, entries.len())
            .map_err(sql(&tmp.0))?;
        if let Some((tag, names)) = &tags {
            apply_tags(&tx, tag, names, &mut report).map_err(sql(&tmp.0))?;
        }
        tx.commit().map_err(sql(&tmp.0))?;
    }
    let file = std::fs::File::open(&tmp.0).map_err(|source| KbError::Io {
        path: tmp.0.clone(),
        source,
    })?;
    file.sync_all().map_err(|source| KbError::Io {
        path: tmp.0.clone(),
        source,
    })?;
    std::fs::rename(&tmp.0, &db).map_err(|source| KbError::Io {
        path: db.clone(),
        source,
    })?;
    report.elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(report)
}

/// Removes the temporary database unless it was renamed into place.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `spack-builtin` for `.../spack/var/spack/repos/builtin/packages`,
/// `spack-packages-builtin` for `.../spack-packages/repos/spack_repo/builtin/packages`.
fn default_label(packages: &Path, namespace: &str) -> String {
    let parts: Vec<String> = packages
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let n = parts.len();
    let at = |back: usize| {
        n.checked_sub(back)
            .and_then(|i| parts.get(i))
            .map(String::as_str)
    };
    // .../<checkout>/var/spack/repos/<ns>/packages or .../<checkout>/repos/spack_repo/<ns>/packages
    let checkout = if at(5) == Some("var") && at(3) == Some("repos") {
        at(6)
    } else if at(4) == Some("repos") && at(3) == Some("spack_repo") {
        at(5)
    } else {
        at(2)
    };
    let base = checkout.unwrap_or("repo");
    let label = if base == namespace {
        base.to_string()
    } else {
        format!("{base}-{namespace}")
    };
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// name → hash of a previous index, or empty when there is none usable.
fn stored_hashes(db: &Path) -> HashMap<String, String> {
    let Ok(conn) = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return HashMap::new();
    };
    if !matches!(schema_version(&conn), Ok(Some(SCHEMA_VERSION))) {
        return HashMap::new();
    }
    let Ok(mut stmt) = conn.prepare("SELECT name, file_hash FROM packages") else {
        return HashMap::new();
    };
    stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .map(|rows| rows.filter_map(Result::ok).collect())
        .unwrap_or_default()
}

/// Order-preserving parallel map over `threads` scoped threads.
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

fn opt_str(v: &Option<String>) -> Option<&str> {
    v.as_deref()
}

fn insert_package(
    tx: &Transaction,
    entry: &FileEntry,
    recipe: &ParsedRecipe,
) -> rusqlite::Result<()> {
    let features = feature_sets(recipe);
    let text = String::from_utf8_lossy(&entry.bytes);
    tx.prepare_cached(
        "INSERT INTO packages (name, class, bases, build_systems, generation, homepage, url, git,
            docstring, path, file_hash, recipe, syntax_errors, n_deps, n_opts)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?
    .execute(params![
        entry.name,
        recipe.class_name,
        recipe.bases.join(" "),
        build_systems(recipe).join(" "),
        generation_name(recipe),
        recipe.homepage,
        recipe.url,
        recipe.git,
        recipe.docstring,
        entry.rel_path,
        entry.hash,
        text.as_ref(),
        recipe.syntax_errors.len() as i64,
        features.deps.len() as i64,
        features.opts.len() as i64,
    ])?;
    let id = tx.last_insert_rowid();
    let mut stmt =
        tx.prepare_cached("INSERT INTO versions VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")?;
    for v in &recipe.versions {
        stmt.execute(params![
            id,
            v.version,
            opt_str(&v.sha256),
            opt_str(&v.tag),
            opt_str(&v.commit),
            opt_str(&v.branch),
            opt_str(&v.url),
            v.preferred,
            v.deprecated,
            v.line
        ])?;
    }
    let mut stmt =
        tx.prepare_cached("INSERT INTO variants VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")?;
    for v in &recipe.variants {
        let values = v.values.as_ref().map(|vals| match vals {
            VariantValues::Items(items) => items
                .iter()
                .map(|i| i.to_text())
                .collect::<Vec<_>>()
                .join(", "),
            VariantValues::Expr(e) => e.clone(),
        });
        stmt.execute(params![
            id,
            v.name,
            opt_str(&v.default_source),
            values,
            v.multi.as_ref().map(|m| m.to_text()),
            opt_str(&v.description),
            opt_str(&v.when),
            v.line
        ])?;
    }
    let mut stmt = tx.prepare_cached("INSERT INTO dependencies VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
    for d in &recipe.dependencies {
        stmt.execute(params![
            id,
            d.name,
            d.spec,
            opt_str(&d.when),
            d.types.join(","),
            d.line
        ])?;
    }
    let mut stmt = tx.prepare_cached("INSERT INTO conflicts VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for c in &recipe.conflicts {
        stmt.execute(params![
            id,
            c.spec,
            opt_str(&c.when),
            opt_str(&c.msg),
            c.line
        ])?;
    }
    let mut stmt = tx.prepare_cached("INSERT INTO provides VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for p in &recipe.provides {
        for spec in &p.specs {
            let (name, _) = crate::recipe::split_spec_head(spec);
            if !name.is_empty() {
                stmt.execute(params![id, name, spec, opt_str(&p.when), p.line])?;
            }
        }
    }
    let mut stmt = tx.prepare_cached("INSERT INTO define_keys VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for k in &recipe.define_keys {
        let how = serde_json::to_value(k.how)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        stmt.execute(params![id, k.key, how, opt_str(&k.variant), k.line])?;
    }
    let mut stmt = tx.prepare_cached("INSERT OR IGNORE INTO tags VALUES (?1, ?2, 'recipe')")?;
    for t in &recipe.tags {
        stmt.execute(params![id, t])?;
    }
    let mut stmt = tx.prepare_cached("INSERT OR IGNORE INTO features VALUES (?1, ?2, ?3)")?;
    for (kind, set) in [
        ("dep", &features.deps),
        ("opt", &features.opts),
        ("bs", &features.build_systems),
    ] {
        for name in set {
            stmt.execute(params![id, kind, name])?;
        }
    }
    Ok(())
}

fn generation_name(recipe: &ParsedRecipe) -> &'static str {
    match recipe.generation {
        crate::recipe::SpackGeneration::V0 => "v0",
        crate::recipe::SpackGeneration::V1 => "v1",
        crate::recipe::SpackGeneration::Unknown => "unknown",
    }
}

/// Smoothed inverse document frequency, shared with retrieval.
pub fn idf(total: usize, df: usize) -> f64 {
    ((total as f64 + 1.0) / (df as f64 + 1.0)).ln() + 1.0
}

/// Recomputes each package's summed IDF weight of its dependency and
/// option sets (the denominators of `similar-normalized`).
fn update_weights(tx: &Transaction) -> rusqlite::Result<()> {
    let total: i64 = tx.query_row("SELECT count(*) FROM packages", [], |r| r.get(0))?;
    let mut df: HashMap<(String, String), usize> = HashMap::new();
    {
        let mut stmt =
            tx.prepare("SELECT kind, name, count(*) FROM features GROUP BY kind, name")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                (r.get::<_, String>(0)?, r.get::<_, String>(1)?),
                r.get::<_, i64>(2)?,
            ))
        })?;
        for row in rows {
            let (k, n) = row?;
            df.insert(k, n as usize);
        }
    }
    let mut sums: HashMap<i64, (f64, f64)> = HashMap::new();
    {
        let mut stmt = tx.prepare("SELECT pkg_id, kind, name FROM features WHERE kind != 'bs'")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        for row in rows {
            let (id, kind, name) = row?;
            let n = df.get(&(kind.clone(), name)).copied().unwrap_or(0);
            let w = idf(total as usize, n);
            let entry = sums.entry(id).or_default();
            if kind == "dep" {
                entry.0 += w;
            } else {
                entry.1 += w;
            }
        }
    }
    tx.execute("UPDATE packages SET w_deps = 0, w_opts = 0", [])?;
    let mut stmt = tx.prepare("UPDATE packages SET w_deps = ?2, w_opts = ?3 WHERE id = ?1")?;
    for (id, (d, o)) in sums {
        stmt.execute(params![id, d, o])?;
    }
    Ok(())
}

fn write_meta(
    tx: &Transaction,
    packages_dir: &Path,
    label: &str,
    namespace: &str,
    count: usize,
) -> rusqlite::Result<()> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut stmt = tx.prepare("INSERT OR REPLACE INTO meta VALUES (?1, ?2)")?;
    for (k, v) in [
        ("schema_version", SCHEMA_VERSION.to_string()),
        ("repo_path", packages_dir.display().to_string()),
        ("label", label.to_string()),
        ("namespace", namespace.to_string()),
        ("package_count", count.to_string()),
        ("indexed_at", now.to_string()),
    ] {
        stmt.execute(params![k, v])?;
    }
    Ok(())
}

/// Names from a tag list: JSON lines with a `name` field, or one name per line.
fn read_tag_list(list: &TagList) -> Result<(String, Vec<String>), KbError> {
    let text = std::fs::read_to_string(&list.path).map_err(|e| KbError::TagList {
        path: list.path.clone(),
        why: e.to_string(),
    })?;
    let mut names = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('{') {
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|e| KbError::TagList {
                    path: list.path.clone(),
                    why: format!("line {}: {e}", i + 1),
                })?;
            let name =
                value
                    .get("name")
                    .and_then(|n| n.as_str())
                    .ok_or_else(|| KbError::TagList {
                        path: list.path.clone(),
                        why: format!("line {}: no \"name\" string field", i + 1),
                    })?;
            names.push(name.to_string());
        } else {
            names.push(line.to_string());
        }
    }
    Ok((list.tag.clone(), names))
}

fn apply_tags(
    tx: &Transaction,
    tag: &str,
    names: &[String],
    report: &mut IndexReport,
) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM list_tags WHERE tag = ?1", [tag])?;
    let mut insert = tx.prepare("INSERT OR IGNORE INTO list_tags VALUES (?1, ?2)")?;
    let mut exists = tx.prepare("SELECT count(*) FROM packages WHERE name = ?1")?;
    for name in names {
        insert.execute(params![name, tag])?;
        let n: i64 = exists.query_row([name], |r| r.get(0))?;
        if n > 0 {
            report.tagged += 1;
        } else {
            report.tag_missing.push(name.clone());
        }
    }
    Ok(())
}
