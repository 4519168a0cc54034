//! The concretized DAG of an installed package, read from the
//! `<prefix>/.spack/spec.json` Spack writes with every install: each
//! node's name and hash, which nodes are externals (and where), and the
//! virtuals each edge provides (`zlib` as `zlib-api`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct SpecFile {
    spec: SpecBody,
}

#[derive(Debug, Deserialize)]
struct SpecBody {
    nodes: Vec<Node>,
}

#[derive(Debug, Deserialize)]
struct Node {
    name: String,
    #[serde(default)]
    hash: String,
    #[serde(default)]
    external: Option<External>,
    #[serde(default)]
    dependencies: Vec<Edge>,
}

#[derive(Debug, Deserialize)]
struct External {
    #[serde(default)]
    path: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Edge {
    #[serde(default)]
    name: String,
    #[serde(default)]
    parameters: Option<EdgeParameters>,
}

#[derive(Debug, Deserialize)]
struct EdgeParameters {
    #[serde(default)]
    deptypes: Vec<String>,
    #[serde(default)]
    virtuals: Vec<String>,
}

/// What the hermeticity check needs of the DAG.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dag {
    /// Every node's package name, the root first.
    pub names: Vec<String>,
    /// The virtuals some edge of the DAG satisfies (`zlib-api`, `mpi`).
    pub virtuals: BTreeSet<String>,
    /// Hashes of the nodes Spack built (their prefixes end in `-<hash>`).
    pub built_hashes: BTreeSet<String>,
    /// External nodes → their prefix (`zlib` → `/usr`).
    pub externals: BTreeMap<String, String>,
    /// Each virtual → the node an edge takes it from (`mpi` → `openmpi`).
    pub providers: BTreeMap<String, String>,
    /// Nodes (and the virtuals they provide) that no edge links or runs:
    /// build tools only. Spack gives a build dependency's libraries no
    /// `-L` or RPATH, so an installed file that needs one found the host's.
    pub build_only: BTreeSet<String>,
}

impl Dag {
    /// Parses the text of a `spec.json`.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        let file: SpecFile = serde_json::from_str(text)?;
        let mut dag = Dag::default();
        let mut build = BTreeSet::new();
        let mut linked = BTreeSet::new();
        for node in file.spec.nodes {
            for edge in &node.dependencies {
                if let Some(p) = &edge.parameters {
                    dag.virtuals.extend(p.virtuals.iter().cloned());
                    for v in &p.virtuals {
                        dag.providers.insert(v.clone(), edge.name.clone());
                    }
                    let names = std::iter::once(&edge.name).chain(&p.virtuals).cloned();
                    if p.deptypes.iter().any(|t| t == "link" || t == "run") {
                        linked.extend(names);
                    } else if !p.deptypes.is_empty() {
                        build.extend(names);
                    }
                }
            }
            match node.external.and_then(|e| e.path) {
                Some(path) => {
                    dag.externals.insert(node.name.clone(), path);
                }
                None if !node.hash.is_empty() => {
                    dag.built_hashes.insert(node.hash.clone());
                }
                None => {}
            }
            if !dag.names.contains(&node.name) {
                dag.names.push(node.name);
            }
        }
        dag.build_only = build.difference(&linked).cloned().collect();
        Ok(dag)
    }

    /// Reads `<prefix>/.spack/spec.json`.
    pub fn read(prefix: &Path) -> Result<Self, String> {
        let path = prefix.join(".spack").join("spec.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("cannot parse {}: {e}", path.display()))
    }

    /// Whether a package or virtual of this name is in the DAG.
    pub fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name) || self.virtuals.contains(name)
    }

    /// A DAG name as a note tells it: the virtual's provider and where an
    /// external lives (`mpi (openmpi, external at /usr)`).
    pub fn describe(&self, name: &str) -> String {
        let node = self
            .providers
            .get(name)
            .filter(|p| !p.is_empty())
            .map_or(name, String::as_str);
        let mut parts = Vec::new();
        if node != name {
            parts.push(node.to_string());
        }
        if let Some(prefix) = self.externals.get(node) {
            parts.push(format!("external at {prefix}"));
        }
        if parts.is_empty() {
            name.to_string()
        } else {
            format!("{name} ({})", parts.join(", "))
        }
    }

    /// Whether `path` lies under the prefix of an external of its own
    /// (`cuda` at `/usr/local/cuda`); externals at a shared system prefix
    /// (`/usr`, `/usr/local`, `/`) say nothing about the files there.
    pub fn in_own_external(&self, path: &str) -> bool {
        self.externals.values().any(|prefix| {
            let p = prefix.trim_end_matches('/');
            !matches!(p, "" | "/usr" | "/usr/local" | "/opt")
                && path
                    .strip_prefix(p)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    }

    /// Whether `path` lies in the prefix of a node Spack built: Spack's
    /// prefixes end in `-<hash>`, so a path component does.
    pub fn built_path(&self, path: &str) -> bool {
        path.split('/').any(|component| {
            component
                .rsplit_once('-')
                .is_some_and(|(_, hash)| self.built_hashes.contains(hash))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a Spack 0.23 `spec.json`, cut to what is read.
    pub(crate) const SPEC_JSON: &str = r#"{"spec": {"_meta": {"version": 4}, "nodes": [
      {"name": "demo", "version": "1.0", "hash": "abcdefghijklmnopqrstuvwxyz234567",
       "dependencies": [
         {"name": "cmake", "hash": "c0000000000000000000000000000000", "parameters": {"deptypes": ["build"], "virtuals": []}},
         {"name": "zlib", "hash": "z0000000000000000000000000000000", "parameters": {"deptypes": ["build", "link"], "virtuals": ["zlib-api"]}}]},
      {"name": "cmake", "version": "3.25.1", "hash": "c0000000000000000000000000000000", "external": {"path": "/usr", "module": null, "extra_attributes": {}}},
      {"name": "zlib", "version": "1.2.13", "hash": "z0000000000000000000000000000000", "external": {"path": "/usr", "module": null, "extra_attributes": {}}},
      {"name": "gcc-runtime", "version": "12.2.0", "hash": "g0000000000000000000000000000000"}
    ]}}"#;

    #[test]
    fn names_virtuals_externals_and_built_prefixes() {
        let dag = Dag::parse(SPEC_JSON).unwrap();
        assert_eq!(dag.names, ["demo", "cmake", "zlib", "gcc-runtime"]);
        assert_eq!(dag.build_only, BTreeSet::from(["cmake".to_string()]));
        assert!(dag.has("zlib-api") && dag.has("zlib") && !dag.has("boost"));
        assert_eq!(dag.externals.get("zlib").map(String::as_str), Some("/usr"));
        assert_eq!(
            dag.describe("zlib-api"),
            "zlib-api (zlib, external at /usr)"
        );
        assert_eq!(dag.describe("cmake"), "cmake (external at /usr)");
        assert_eq!(dag.describe("gcc-runtime"), "gcc-runtime");
        assert!(dag.built_path(
            "/s/opt/linux-x86_64/gcc-12.2.0/gcc-runtime-12.2.0-g0000000000000000000000000000000/lib/libgcc_s.so.1"
        ));
        assert!(!dag.built_path("/usr/lib/x86_64-linux-gnu/libz.so.1"));
        assert!(!dag.in_own_external("/usr/lib/x86_64-linux-gnu/libz.so.1"));
        let mut cuda = dag.clone();
        cuda.externals
            .insert("cuda".into(), "/usr/local/cuda".into());
        assert!(cuda.in_own_external("/usr/local/cuda/lib64/libcudart.so.12"));
        assert!(!cuda.in_own_external("/usr/local/cudax/lib/libfoo.so"));
        // An external's hash is no built prefix.
        assert!(!dag.built_path("/x/zlib-1.2.13-z0000000000000000000000000000000/lib"));
    }
}
