//! Package search over the *pinned* nixpkgs (not whatever channel the
//! machine has): `nix-env -qaP --json --meta -f <nixpkgs>` once, kept in
//! memory, then substring matching on attribute path, name and description.

use std::sync::OnceLock;
use std::time::Duration;

use packsmith_exec::CommandSpec;
use serde::{Deserialize, Serialize};

use crate::runner::{NixConfig, NixpkgsPin};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageEntry {
    pub attr: String,
    pub name: String,
    pub version: String,
    pub description: String,
}

/// The index of one pinned nixpkgs, built on first use.
#[derive(Debug)]
pub struct NixpkgsIndex {
    pin: NixpkgsPin,
    config: NixConfig,
    entries: OnceLock<Result<Vec<PackageEntry>, String>>,
}

/// What `-f` gets for a pin.
pub fn nixpkgs_arg(pin: &NixpkgsPin) -> String {
    match pin {
        NixpkgsPin::Path { path } => path.display().to_string(),
        NixpkgsPin::Rev { rev, .. } => {
            format!("https://github.com/NixOS/nixpkgs/archive/{rev}.tar.gz")
        }
    }
}

/// Reads `nix-env -qaP --json --meta` output.
pub fn parse_index(json: &str) -> Result<Vec<PackageEntry>, String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("unreadable nix-env output: {e}"))?;
    let obj = v.as_object().ok_or("nix-env did not print an object")?;
    let s = |x: Option<&serde_json::Value>| x.and_then(|x| x.as_str()).unwrap_or("").to_string();
    let mut out: Vec<PackageEntry> = obj
        .iter()
        .map(|(attr, p)| PackageEntry {
            attr: attr.clone(),
            name: Some(s(p.get("pname")))
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| s(p.get("name"))),
            version: s(p.get("version")),
            description: s(p.get("meta").and_then(|m| m.get("description"))),
        })
        .collect();
    out.sort_by(|a, b| a.attr.cmp(&b.attr));
    Ok(out)
}

impl NixpkgsIndex {
    pub fn new(pin: NixpkgsPin, config: NixConfig) -> Self {
        Self {
            pin,
            config,
            entries: OnceLock::new(),
        }
    }

    fn load(&self) -> Result<Vec<PackageEntry>, String> {
        let spec = CommandSpec::new(self.config.program("nix-env"))
            .args(["-qaP", "--json", "--meta", "-f"])
            .arg(nixpkgs_arg(&self.pin))
            .timeout(Duration::from_secs(600));
        let mut spec = spec;
        spec.max_output = 512 * 1024 * 1024;
        let o = packsmith_exec::run(&spec).map_err(|e| e.to_string())?;
        if !o.success() {
            return Err(format!(
                "`{}` failed: {}",
                spec.display(),
                crate::logs::last_lines(&o.stderr, 5)
            ));
        }
        parse_index(&o.stdout)
    }

    pub fn entries(&self) -> Result<&[PackageEntry], String> {
        self.entries
            .get_or_init(|| self.load())
            .as_ref()
            .map(Vec::as_slice)
            .map_err(Clone::clone)
    }

    /// Up to `limit` matches: exact attribute or name first, then
    /// attribute/name containing the query, then description.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<PackageEntry>, String> {
        Ok(rank(self.entries()?, query, limit))
    }
}

/// The ranking behind [`NixpkgsIndex::search`].
pub fn rank(entries: &[PackageEntry], query: &str, limit: usize) -> Vec<PackageEntry> {
    let q = query.trim().to_ascii_lowercase();
    if q.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(u8, &PackageEntry)> = entries
        .iter()
        .filter_map(|e| {
            let attr = e.attr.to_ascii_lowercase();
            let name = e.name.to_ascii_lowercase();
            let last = attr.rsplit('.').next().unwrap_or(&attr).to_string();
            let score = if last == q || name == q {
                0
            } else if attr.contains(&q) || name.contains(&q) {
                1
            } else if e.description.to_ascii_lowercase().contains(&q) {
                2
            } else {
                return None;
            };
            Some((score, e))
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.attr.len().cmp(&b.1.attr.len())));
    scored
        .into_iter()
        .take(limit)
        .map(|(_, e)| e.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_parses_and_ranks_exact_names_first() {
        let json = r#"{
          "zlib": {"name": "zlib-1.3", "pname": "zlib", "version": "1.3", "meta": {"description": "Lossless data-compression library"}},
          "minizip": {"name": "minizip-1.3", "pname": "minizip", "version": "1.3", "meta": {"description": "Compression library implementing the zlib format"}},
          "python3Packages.zlib-ng": {"name": "zlib-ng-2", "version": "2", "meta": {}}
        }"#;
        let idx = parse_index(json).unwrap();
        let hits = rank(&idx, "zlib", 10);
        let attrs: Vec<&str> = hits.iter().map(|h| h.attr.as_str()).collect();
        assert_eq!(attrs, ["zlib", "python3Packages.zlib-ng", "minizip"]);
        assert_eq!(hits[1].name, "zlib-ng-2");
        assert!(rank(&idx, "  ", 10).is_empty());
    }
}
