//! pyproject.toml: `[build-system]`, PEP 621 `[project]`, Poetry's `[tool.poetry]`.

use super::requirement::parse as parse_req;
use super::{fill, fill_sourced};
use crate::context::Ctx;
use crate::support::toml_doc::{str_of, strings_of, TomlDoc};
use packsmith_core::{Evidence, PythonEntryPoint, PythonExtra, PythonFacts, PythonRequirement};
use toml_edit::{Item, TableLike};

/// Reads `file` into `facts`; true when it has a `[build-system]` table
/// (without one, pip builds with setuptools' legacy backend).
pub fn read(ctx: &mut Ctx<'_>, file: &str, facts: &mut PythonFacts) -> bool {
    let Some(text) = ctx.read(file) else {
        return false;
    };
    facts.files.push(file.to_string());
    let doc = match TomlDoc::parse(&text) {
        Ok(doc) => doc,
        Err(err) => {
            ctx.warn(
                file,
                err.line,
                format!("invalid TOML, not read: {}", err.message),
            );
            return false;
        }
    };
    let r = Reader { doc: &doc, file };
    let build_system = doc.table(&["build-system"]);
    let has_build_system = build_system.is_some();
    if let Some(bs) = build_system {
        facts.build_backend = str_of(bs, "build-backend");
        if let Some(reqs) = bs.get("requires") {
            facts.build_requires = r.requirements(reqs);
        }
    }
    let pdm_source = doc
        .table(&["tool", "pdm", "version"])
        .and_then(|t| str_of(t, "source"));
    if pdm_source.as_deref() == Some("scm") {
        facts.scm_version_env.push("PDM_BUILD_SCM_VERSION".into());
    }
    if let Some(project) = doc.table(&["project"]) {
        r.project(project, facts);
    }
    if let Some(poetry) = doc.table(&["tool", "poetry"]) {
        r.poetry(poetry, facts);
        if facts.build_backend.is_none() {
            facts.build_backend = Some("poetry.core.masonry.api".into());
        }
    }
    has_build_system
}

struct Reader<'a> {
    doc: &'a TomlDoc,
    file: &'a str,
}

impl Reader<'_> {
    fn ev(&self, line: u32) -> Evidence {
        Evidence::new(self.file, line)
    }

    fn key_ev(&self, t: &dyn TableLike, key: &str) -> Evidence {
        self.ev(self.doc.key_line(t, key))
    }

    /// An array of PEP 508 strings, each with its own line.
    fn requirements(&self, item: &Item) -> Vec<PythonRequirement> {
        strings_of(item)
            .into_iter()
            .filter_map(|(s, v)| parse_req(&s, self.ev(self.doc.value_line(v))))
            .collect()
    }

    fn project(&self, p: &dyn TableLike, facts: &mut PythonFacts) {
        fill_sourced(
            &mut facts.name,
            &mut facts.name_evidence,
            str_of(p, "name"),
            self.key_ev(p, "name"),
        );
        fill_sourced(
            &mut facts.version,
            &mut facts.version_evidence,
            str_of(p, "version"),
            self.key_ev(p, "version"),
        );
        if let Some(d) = p.get("dynamic") {
            facts
                .dynamic
                .extend(strings_of(d).into_iter().map(|(s, _)| s));
        }
        fill(&mut facts.requires_python, str_of(p, "requires-python"));
        fill(&mut facts.description, str_of(p, "description"));
        fill(&mut facts.license, license(p));
        if let Some(urls) = p.get("urls").and_then(Item::as_table_like) {
            let home = [
                "Homepage",
                "homepage",
                "Home",
                "home",
                "Source",
                "source",
                "Repository",
            ]
            .iter()
            .find_map(|k| str_of(urls, k));
            fill(&mut facts.homepage, home);
        }
        if let Some(deps) = p.get("dependencies") {
            facts.dependencies.extend(self.requirements(deps));
        }
        if let Some(extras) = p.get("optional-dependencies").and_then(Item::as_table_like) {
            for (name, item) in extras.iter() {
                facts.extras.push(PythonExtra {
                    name: name.to_string(),
                    requirements: self.requirements(item),
                });
            }
        }
        for (key, kind) in [("scripts", "console"), ("gui-scripts", "gui")] {
            if let Some(t) = p.get(key).and_then(Item::as_table_like) {
                self.entry_points(t, kind, facts);
            }
        }
        if let Some(groups) = p.get("entry-points").and_then(Item::as_table_like) {
            for (group, t) in groups.iter() {
                if let Some(t) = t.as_table_like() {
                    self.entry_points(t, group, facts);
                }
            }
        }
    }

    fn entry_points(&self, t: &dyn TableLike, kind: &str, facts: &mut PythonFacts) {
        for (name, target) in t.iter() {
            let target = match target.as_str() {
                Some(s) => s.to_string(),
                // Poetry: `name = { reference = "...", type = "file" }`
                None => target
                    .as_table_like()
                    .and_then(|t| str_of(t, "reference").or_else(|| str_of(t, "callable")))
                    .unwrap_or_default(),
            };
            facts.scripts.push(PythonEntryPoint {
                name: name.to_string(),
                kind: kind.to_string(),
                target,
                evidence: self.key_ev(t, name),
            });
        }
    }

    fn poetry(&self, p: &dyn TableLike, facts: &mut PythonFacts) {
        fill_sourced(
            &mut facts.name,
            &mut facts.name_evidence,
            str_of(p, "name"),
            self.key_ev(p, "name"),
        );
        fill_sourced(
            &mut facts.version,
            &mut facts.version_evidence,
            str_of(p, "version"),
            self.key_ev(p, "version"),
        );
        fill(&mut facts.description, str_of(p, "description"));
        fill(&mut facts.license, str_of(p, "license"));
        fill(
            &mut facts.homepage,
            str_of(p, "homepage").or_else(|| str_of(p, "repository")),
        );
        let mut optional: Vec<PythonRequirement> = Vec::new();
        if let Some(deps) = p.get("dependencies").and_then(Item::as_table_like) {
            for (name, spec) in deps.iter() {
                let ev = self.key_ev(deps, name);
                if name == "python" {
                    fill(
                        &mut facts.requires_python,
                        spec.as_str().map(str::to_string),
                    );
                    continue;
                }
                let (req, is_optional) = poetry_requirement(name, spec, ev);
                if is_optional {
                    optional.push(req);
                } else {
                    facts.dependencies.push(req);
                }
            }
        }
        if let Some(extras) = p.get("extras").and_then(Item::as_table_like) {
            for (extra, names) in extras.iter() {
                let wanted: Vec<String> = strings_of(names)
                    .into_iter()
                    .map(|(s, _)| super::requirement::normalize_name(&s))
                    .collect();
                facts.extras.push(PythonExtra {
                    name: extra.to_string(),
                    requirements: optional
                        .iter()
                        .filter(|r| wanted.contains(&r.name))
                        .cloned()
                        .collect(),
                });
            }
        }
        if let Some(t) = p.get("scripts").and_then(Item::as_table_like) {
            self.entry_points(t, "console", facts);
        }
    }
}

/// A Poetry dependency (`"^1.2"` or `{ version = "^1.2", optional = true,
/// markers = "...", python = "<3.11" }`) and whether it is optional.
fn poetry_requirement(name: &str, spec: &Item, evidence: Evidence) -> (PythonRequirement, bool) {
    let table = spec.as_table_like();
    let get = |k: &str| table.and_then(|t| str_of(t, k));
    let specifier = spec
        .as_str()
        .map(str::to_string)
        .or_else(|| get("version"))
        .or_else(|| get("git").map(|g| format!("@ git+{g}")))
        .or_else(|| get("path").map(|p| format!("@ {p}")))
        .unwrap_or_default();
    let marker = get("markers").or_else(|| get("python").map(|p| python_marker(&p)));
    let optional = table
        .and_then(|t| t.get("optional"))
        .and_then(Item::as_bool)
        .unwrap_or(false);
    let extras = table
        .and_then(|t| t.get("extras"))
        .map(|e| strings_of(e).into_iter().map(|(s, _)| s).collect())
        .unwrap_or_default();
    let req = PythonRequirement {
        name: super::requirement::normalize_name(name),
        extras,
        specifier,
        marker,
        evidence,
    };
    (req, optional)
}

/// `license = "MIT"` (SPDX, PEP 639), `{ text = "MIT" }` or `{ file = "LICENSE" }`.
fn license(p: &dyn TableLike) -> Option<String> {
    let item = p.get("license")?;
    if let Some(s) = item.as_str() {
        return Some(s.to_string());
    }
    let t = item.as_table_like()?;
    str_of(t, "text").or_else(|| str_of(t, "file").map(|f| format!("file: {f}")))
}

/// Poetry's `python = "<3.11"` as a PEP 508 marker (`python_version < "3.11"`);
/// other forms (`^3.8`, ranges) are kept as written after `python_version`.
fn python_marker(spec: &str) -> String {
    let spec = spec.trim();
    let op_len = spec.len() - spec.trim_start_matches(['<', '>', '=', '!', '~']).len();
    let (op, version) = spec.split_at(op_len);
    let version = version.trim();
    if op.is_empty() || version.contains([',', ' ', '|']) {
        format!("python_version {spec}")
    } else {
        format!("python_version {op} \"{version}\"")
    }
}
