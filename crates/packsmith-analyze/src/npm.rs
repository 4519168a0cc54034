//! Reader for npm: package.json, its dependency groups, bin, scripts and lockfile.

use crate::context::Ctx;
use crate::support::json_lines::key_lines;
use packsmith_core::{Evidence, ManifestDependency, NpmFacts};
use serde_json::Value;

const LOCKFILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
];

/// Reads the npm facts of the repository, or None when it has none.
pub fn analyze(ctx: &mut Ctx<'_>) -> Option<NpmFacts> {
    const FILE: &str = "package.json";
    if !ctx.view.exists(FILE) {
        return None;
    }
    let mut facts = NpmFacts {
        file: FILE.into(),
        lockfile: LOCKFILES
            .iter()
            .find(|f| ctx.view.exists(f))
            .map(|f| f.to_string()),
        ..NpmFacts::default()
    };
    let text = ctx.read(FILE)?;
    let json: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(err) => {
            let line = u32::try_from(err.line()).unwrap_or(0);
            ctx.warn(FILE, line, format!("invalid JSON, not read: {err}"));
            return Some(facts);
        }
    };
    let Some(obj) = json.as_object() else {
        ctx.warn(FILE, 1, "package.json is not a JSON object");
        return Some(facts);
    };
    let lines = key_lines(&text);
    let line_of = |path: &[&str]| {
        let key: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        lines.get(&key).copied().unwrap_or(0)
    };
    let string = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
    facts.name = string("name");
    if facts.name.is_some() {
        facts.name_evidence = Some(Evidence::new(FILE, line_of(&["name"])));
    }
    facts.version = string("version");
    facts.homepage = string("homepage");
    facts.description = string("description");
    facts.license = match obj.get("license") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Object(o)) => o.get("type").and_then(Value::as_str).map(str::to_string),
        _ => obj
            .get("licenses")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|l| l.get("type").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(" OR ")
            })
            .filter(|s| !s.is_empty()),
    };
    facts.node_engine = obj
        .get("engines")
        .and_then(|e| e.get("node"))
        .and_then(Value::as_str)
        .map(str::to_string);
    facts.workspaces = match obj.get("workspaces") {
        Some(Value::Array(a)) => strings(a),
        Some(Value::Object(o)) => o
            .get("packages")
            .and_then(Value::as_array)
            .map(|a| strings(a))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    for (group, kind) in [
        ("dependencies", "normal"),
        ("devDependencies", "dev"),
        ("peerDependencies", "peer"),
        ("optionalDependencies", "optional"),
    ] {
        let Some(deps) = obj.get(group).and_then(Value::as_object) else {
            continue;
        };
        for (name, req) in deps {
            facts.dependencies.push(ManifestDependency {
                name: name.clone(),
                requirement: req.as_str().unwrap_or_default().to_string(),
                kind: kind.into(),
                condition: None,
                evidence: Evidence::new(FILE, line_of(&[group, name])),
            });
        }
    }
    // serde_json sorts keys; restore file order, which reviewers expect.
    facts.dependencies.sort_by_key(|d| d.evidence.line);
    facts.binaries = match obj.get("bin") {
        Some(Value::String(_)) => facts
            .name
            .as_deref()
            .map(|n| n.rsplit('/').next().unwrap_or(n).to_string())
            .into_iter()
            .collect(),
        Some(Value::Object(o)) => o.keys().cloned().collect(),
        _ => Vec::new(),
    };
    if let Some(scripts) = obj.get("scripts").and_then(Value::as_object) {
        let mut names: Vec<(u32, String)> = scripts
            .keys()
            .map(|k| (line_of(&["scripts", k]), k.clone()))
            .collect();
        names.sort();
        facts.scripts = names.into_iter().map(|(_, k)| k).collect();
    }
    Some(facts)
}

fn strings(a: &[Value]) -> Vec<String> {
    a.iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}
