//! The knowledge-base tables. One database per indexed package repository.

/// Bumped whenever a table changes; an older database is rebuilt from scratch.
pub const SCHEMA_VERSION: i64 = 1;

/// Tables. `features` holds the per-package sets retrieval
/// scores against (`dep`, `opt`, `bs`), precomputed at index time so a
/// query touches only the rows that share something with the target.
pub const DDL: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS packages (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    class TEXT,
    bases TEXT NOT NULL,
    build_systems TEXT NOT NULL,
    generation TEXT NOT NULL,
    homepage TEXT,
    url TEXT,
    git TEXT,
    docstring TEXT,
    path TEXT NOT NULL,
    file_hash TEXT NOT NULL,
    recipe TEXT NOT NULL,
    syntax_errors INTEGER NOT NULL,
    n_deps INTEGER NOT NULL,
    n_opts INTEGER NOT NULL,
    w_deps REAL NOT NULL DEFAULT 0,
    w_opts REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS versions (
    pkg_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    version TEXT NOT NULL, sha256 TEXT, tag TEXT, git_commit TEXT, branch TEXT,
    url TEXT, preferred INTEGER NOT NULL, deprecated INTEGER NOT NULL, line INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS variants (
    pkg_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    name TEXT NOT NULL, default_value TEXT, vals TEXT, multi TEXT,
    description TEXT, cond TEXT, line INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS dependencies (
    pkg_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    name TEXT NOT NULL, spec TEXT NOT NULL, cond TEXT, types TEXT NOT NULL, line INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS conflicts (
    pkg_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    spec TEXT NOT NULL, cond TEXT, msg TEXT, line INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS provides (
    pkg_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    virtual TEXT NOT NULL, spec TEXT NOT NULL, cond TEXT, line INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS define_keys (
    pkg_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    key TEXT NOT NULL, how TEXT NOT NULL, variant TEXT, line INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tags (
    pkg_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    tag TEXT NOT NULL, source TEXT NOT NULL,
    UNIQUE (pkg_id, tag)
);
CREATE TABLE IF NOT EXISTS list_tags (name TEXT NOT NULL, tag TEXT NOT NULL, UNIQUE (name, tag));
CREATE TABLE IF NOT EXISTS features (
    pkg_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    kind TEXT NOT NULL, name TEXT NOT NULL,
    UNIQUE (pkg_id, kind, name)
);
";

/// Secondary indexes, created after a bulk load of a fresh database
/// (cheaper than maintaining them row by row).
pub const INDEXES: &str = "
CREATE INDEX IF NOT EXISTS versions_pkg ON versions(pkg_id);
-- Covers retrieval's load, so it never reads the wide rows holding recipe text.
CREATE INDEX IF NOT EXISTS packages_retrieval ON packages(name, build_systems, w_deps, w_opts);
CREATE INDEX IF NOT EXISTS variants_pkg ON variants(pkg_id);
CREATE INDEX IF NOT EXISTS dependencies_pkg ON dependencies(pkg_id);
CREATE INDEX IF NOT EXISTS dependencies_name ON dependencies(name);
CREATE INDEX IF NOT EXISTS conflicts_pkg ON conflicts(pkg_id);
CREATE INDEX IF NOT EXISTS provides_pkg ON provides(pkg_id);
CREATE INDEX IF NOT EXISTS provides_virtual ON provides(virtual);
CREATE INDEX IF NOT EXISTS define_keys_pkg ON define_keys(pkg_id);
CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag);
CREATE INDEX IF NOT EXISTS features_kind_name ON features(kind, name, pkg_id);
";

/// Child tables cleared when a package is re-read (`ON DELETE CASCADE`
/// needs `PRAGMA foreign_keys`, which we set on every connection).
pub const CHILD_TABLES: &[&str] = &[
    "versions",
    "variants",
    "dependencies",
    "conflicts",
    "provides",
    "define_keys",
    "tags",
    "features",
];
