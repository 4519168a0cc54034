//! Reading the knowledge base: statistics, one package, text search, and
//! the name index that implements [`SpackNames`].

use std::collections::{HashMap, HashSet};

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::{sql, KbError, KnowledgeBase};
use crate::mapping::{Known, SpackNames};

#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    pub label: String,
    pub repo_path: String,
    pub indexed_at: String,
    pub packages: i64,
    pub versions: i64,
    pub variants: i64,
    pub dependencies: i64,
    pub conflicts: i64,
    pub provides: i64,
    pub define_keys: i64,
    pub with_syntax_errors: i64,
    pub generations: Vec<(String, i64)>,
    pub build_systems: Vec<(String, i64)>,
    /// Virtuals with the most providers.
    pub top_virtuals: Vec<(String, i64)>,
    pub tags: Vec<(String, i64)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct VersionRow {
    pub version: String,
    pub sha256: Option<String>,
    pub tag: Option<String>,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub preferred: bool,
    pub deprecated: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct VariantRow {
    pub name: String,
    pub default: Option<String>,
    pub values: Option<String>,
    pub when: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DependencyRow {
    pub spec: String,
    pub when: Option<String>,
    pub types: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ConditionalSpec {
    pub spec: String,
    pub when: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PackageSummary {
    pub name: String,
    pub class: Option<String>,
    pub bases: String,
    pub build_systems: String,
    pub generation: String,
    pub homepage: Option<String>,
    pub url: Option<String>,
    pub git: Option<String>,
    pub docstring: Option<String>,
    pub path: String,
    pub versions: Vec<VersionRow>,
    pub variants: Vec<VariantRow>,
    pub dependencies: Vec<DependencyRow>,
    pub conflicts: Vec<ConditionalSpec>,
    pub provides: Vec<ConditionalSpec>,
    pub define_keys: Vec<String>,
    pub tags: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    pub name: String,
    pub score: u32,
    /// What matched: `name`, `name prefix`, `name contains`, `description`.
    pub why: Vec<String>,
    pub description: Option<String>,
}

impl KnowledgeBase {
    fn count(&self, table: &str) -> Result<i64, KbError> {
        self.conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .map_err(sql(&self.path))
    }

    fn grouped(&self, query: &str) -> Result<Vec<(String, i64)>, KbError> {
        let mut stmt = self.conn.prepare(query).map_err(sql(&self.path))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(sql(&self.path))?;
        rows.collect::<Result<_, _>>().map_err(sql(&self.path))
    }

    pub fn stats(&self) -> Result<Stats, KbError> {
        Ok(Stats {
            label: self.meta("label").unwrap_or_default(),
            repo_path: self.meta("repo_path").unwrap_or_default(),
            indexed_at: self.meta("indexed_at").unwrap_or_default(),
            packages: self.count("packages")?,
            versions: self.count("versions")?,
            variants: self.count("variants")?,
            dependencies: self.count("dependencies")?,
            conflicts: self.count("conflicts")?,
            provides: self.count("provides")?,
            define_keys: self.count("define_keys")?,
            with_syntax_errors: self
                .conn
                .query_row("SELECT count(*) FROM packages WHERE syntax_errors > 0", [], |r| r.get(0))
                .map_err(sql(&self.path))?,
            generations: self.grouped(
                "SELECT generation, count(*) n FROM packages GROUP BY generation ORDER BY n DESC, generation",
            )?,
            build_systems: self.grouped(
                "SELECT name, count(*) n FROM features WHERE kind = 'bs' GROUP BY name ORDER BY n DESC, name",
            )?,
            top_virtuals: self.grouped(
                "SELECT virtual, count(DISTINCT pkg_id) n FROM provides GROUP BY virtual ORDER BY n DESC, virtual LIMIT 15",
            )?,
            tags: self.grouped(
                "SELECT tag, count(*) n FROM (SELECT tag, pkg_id AS who FROM tags UNION SELECT tag, name FROM list_tags)
                 GROUP BY tag ORDER BY n DESC, tag LIMIT 20",
            )?,
        })
    }

    /// The indexed `package.py` text of `name`, or None when the name is
    /// unknown.
    pub fn recipe_text(&self, name: &str) -> Result<Option<String>, KbError> {
        self.conn
            .query_row("SELECT recipe FROM packages WHERE name = ?1", [name], |r| {
                r.get::<_, String>(0)
            })
            .optional()
            .map_err(sql(&self.path))
    }

    /// One package, or None when the name is unknown.
    pub fn show(&self, name: &str) -> Result<Option<PackageSummary>, KbError> {
        let e = sql(&self.path);
        let row = self.conn.query_row(
            "SELECT id, class, bases, build_systems, generation, homepage, url, git, docstring, path
             FROM packages WHERE name = ?1",
            [name],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    PackageSummary {
                        name: name.to_string(),
                        class: r.get(1)?,
                        bases: r.get(2)?,
                        build_systems: r.get(3)?,
                        generation: r.get(4)?,
                        homepage: r.get(5)?,
                        url: r.get(6)?,
                        git: r.get(7)?,
                        docstring: r.get(8)?,
                        path: r.get(9)?,
                        versions: Vec::new(),
                        variants: Vec::new(),
                        dependencies: Vec::new(),
                        conflicts: Vec::new(),
                        provides: Vec::new(),
                        define_keys: Vec::new(),
                        tags: Vec::new(),
                    },
                ))
            },
        );
        let (id, mut p) = match row {
            Ok(v) => v,
            Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(None),
            Err(err) => return Err(e(err)),
        };
        macro_rules! rows {
            ($q:expr, $f:expr) => {{
                let mut stmt = self.conn.prepare($q).map_err(&e)?;
                let out = stmt
                    .query_map(params![id], $f)
                    .map_err(&e)?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(&e)?;
                out
            }};
        }
        p.versions = rows!(
            "SELECT version, sha256, tag, git_commit, branch, preferred, deprecated FROM versions WHERE pkg_id = ?1 ORDER BY rowid",
            |r| Ok(VersionRow {
                version: r.get(0)?,
                sha256: r.get(1)?,
                tag: r.get(2)?,
                commit: r.get(3)?,
                branch: r.get(4)?,
                preferred: r.get(5)?,
                deprecated: r.get(6)?,
            })
        );
        p.variants = rows!(
            "SELECT name, default_value, vals, cond, description FROM variants WHERE pkg_id = ?1 ORDER BY rowid",
            |r| Ok(VariantRow {
                name: r.get(0)?,
                default: r.get(1)?,
                values: r.get(2)?,
                when: r.get(3)?,
                description: r.get(4)?,
            })
        );
        p.dependencies = rows!(
            "SELECT spec, cond, types FROM dependencies WHERE pkg_id = ?1 ORDER BY rowid",
            |r| Ok(DependencyRow {
                spec: r.get(0)?,
                when: r.get(1)?,
                types: r.get(2)?,
            })
        );
        p.conflicts = rows!(
            "SELECT spec, cond FROM conflicts WHERE pkg_id = ?1 ORDER BY rowid",
            |r| Ok(ConditionalSpec {
                spec: r.get(0)?,
                when: r.get(1)?,
            })
        );
        p.provides = rows!(
            "SELECT spec, cond FROM provides WHERE pkg_id = ?1 ORDER BY rowid",
            |r| Ok(ConditionalSpec {
                spec: r.get(0)?,
                when: r.get(1)?,
            })
        );
        p.define_keys = rows!(
            "SELECT DISTINCT key FROM define_keys WHERE pkg_id = ?1 ORDER BY rowid",
            |r| r.get(0)
        );
        p.tags = rows!(
            "SELECT tag FROM tags WHERE pkg_id = ?1 UNION SELECT tag FROM list_tags WHERE name = (SELECT name FROM packages WHERE id = ?1) ORDER BY 1",
            |r| r.get(0)
        );
        Ok(Some(p))
    }

    /// The packages providing a virtual, sorted.
    pub fn providers(&self, virtual_name: &str) -> Result<Vec<String>, KbError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT DISTINCT p.name FROM provides v JOIN packages p ON p.id = v.pkg_id
                 WHERE v.virtual = ?1 ORDER BY p.name",
            )
            .map_err(sql(&self.path))?;
        let rows = stmt
            .query_map([virtual_name], |r| r.get(0))
            .map_err(sql(&self.path))?;
        rows.collect::<Result<_, _>>().map_err(sql(&self.path))
    }

    /// Name and description match, best first: exact name, name prefix,
    /// name substring, then description words; ties by name.
    pub fn search(&self, text: &str, limit: usize) -> Result<Vec<SearchHit>, KbError> {
        let needle = text.trim().to_ascii_lowercase();
        let words: Vec<&str> = needle.split_whitespace().collect();
        let mut stmt = self
            .conn
            .prepare("SELECT name, docstring FROM packages")
            .map_err(sql(&self.path))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
            })
            .map_err(sql(&self.path))?;
        let mut hits = Vec::new();
        for row in rows {
            let (name, doc) = row.map_err(sql(&self.path))?;
            let mut score = 0;
            let mut why = Vec::new();
            if name == needle {
                score += 100;
                why.push("name".to_string());
            } else if name.starts_with(&needle) {
                score += 50;
                why.push("name prefix".to_string());
            } else if !needle.is_empty() && name.contains(&needle) {
                score += 30;
                why.push("name contains".to_string());
            }
            if let Some(doc) = &doc {
                let lower = doc.to_ascii_lowercase();
                let found = words.iter().filter(|w| lower.contains(*w)).count();
                if found > 0 {
                    score += 10 * found as u32;
                    why.push(format!("description ({found}/{} words)", words.len()));
                }
            }
            if score > 0 {
                let description = doc.map(|d| {
                    d.split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .chars()
                        .take(100)
                        .collect()
                });
                hits.push(SearchHit {
                    name,
                    score,
                    why,
                    description,
                });
            }
        }
        hits.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
        hits.truncate(limit);
        Ok(hits)
    }

    /// Every package and virtual name, loaded once.
    pub fn names(&self) -> Result<NameIndex, KbError> {
        let e = sql(&self.path);
        let mut packages = HashSet::new();
        let mut stmt = self.conn.prepare("SELECT name FROM packages").map_err(&e)?;
        for name in stmt.query_map([], |r| r.get::<_, String>(0)).map_err(&e)? {
            packages.insert(name.map_err(&e)?);
        }
        // Each query's rows are (key, value), ordered: the values of one key
        // keep that order.
        let virtuals = self.grouped_lists(
            "SELECT DISTINCT v.virtual, p.name FROM provides v JOIN packages p ON p.id = v.pkg_id
             ORDER BY v.virtual, p.name",
        )?;
        let variants = self.grouped_lists(
            "SELECT DISTINCT p.name, v.name FROM variants v JOIN packages p ON p.id = v.pkg_id
             WHERE v.default_value IN ('True', 'False') ORDER BY p.name, v.name",
        )?;
        let versions = self.grouped_lists(
            "SELECT p.name, v.version FROM versions v JOIN packages p ON p.id = v.pkg_id
             ORDER BY p.name, v.rowid",
        )?;
        Ok(NameIndex {
            packages,
            virtuals,
            variants,
            versions,
        })
    }

    /// The rows of a two-column query, the second column's values grouped
    /// under the first's.
    fn grouped_lists(&self, query: &str) -> Result<HashMap<String, Vec<String>>, KbError> {
        let e = sql(&self.path);
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        let mut stmt = self.conn.prepare(query).map_err(&e)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(&e)?;
        for row in rows {
            let (key, value) = row.map_err(&e)?;
            out.entry(key).or_default().push(value);
        }
        Ok(out)
    }
}

/// Package and virtual names of one knowledge base, in memory.
#[derive(Debug, Clone, Default)]
pub struct NameIndex {
    pub packages: HashSet<String>,
    /// Virtual → its providers (sorted).
    pub virtuals: HashMap<String, Vec<String>>,
    /// Package → its boolean variants (sorted).
    pub variants: HashMap<String, Vec<String>>,
    /// Package → the versions its recipe declares, in the recipe's order.
    pub versions: HashMap<String, Vec<String>>,
}

impl SpackNames for NameIndex {
    fn lookup(&self, name: &str) -> Known {
        if self.packages.contains(name) {
            Known::Package
        } else if self.virtuals.contains_key(name) {
            Known::Virtual
        } else {
            Known::Unknown
        }
    }

    fn bool_variants(&self, package: &str) -> Vec<String> {
        self.variants.get(package).cloned().unwrap_or_default()
    }

    fn versions(&self, package: &str) -> Vec<String> {
        self.versions.get(package).cloned().unwrap_or_default()
    }

    fn provided_by(&self, package: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .virtuals
            .iter()
            .filter(|(_, providers)| providers.iter().any(|p| p == package))
            .map(|(v, _)| v.clone())
            .collect();
        out.sort();
        out
    }

    /// Known names by edit distance (at most 2, and at most a third of the
    /// name, rounded up), ties by name.
    fn closest(&self, name: &str, n: usize) -> Vec<String> {
        let limit = name.chars().count().div_ceil(3).clamp(1, 2);
        let mut close: Vec<(usize, &String)> = self
            .packages
            .iter()
            .chain(self.virtuals.keys())
            .filter(|c| c.len().abs_diff(name.len()) <= limit)
            .map(|c| (edit_distance(name, c), c))
            .filter(|(d, _)| *d <= limit)
            .collect();
        close.sort();
        close.into_iter().take(n).map(|(_, c)| c.clone()).collect()
    }
}

impl NameIndex {
    /// The closest known name (see [`SpackNames::closest`]).
    pub fn did_you_mean(&self, name: &str) -> Option<String> {
        self.closest(name, 1).into_iter().next()
    }
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance() {
        assert_eq!(edit_distance("hdf5", "hdf5"), 0);
        assert_eq!(edit_distance("hdf", "hdf5"), 1);
        assert_eq!(edit_distance("openmpi", "opnempi"), 2);
    }

    #[test]
    fn suggestion() {
        let idx = NameIndex {
            packages: ["zlib", "zstd", "hdf5"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            virtuals: [("mpi".to_string(), vec!["openmpi".to_string()])]
                .into_iter()
                .collect(),
            ..Default::default()
        };
        assert_eq!(idx.did_you_mean("zlb").as_deref(), Some("zlib"));
        assert_eq!(idx.did_you_mean("mpii").as_deref(), Some("mpi"));
        assert_eq!(idx.did_you_mean("completely-else"), None);
        assert_eq!(idx.lookup("mpi"), Known::Virtual);
    }
}
