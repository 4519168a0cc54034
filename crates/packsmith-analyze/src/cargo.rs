//! Reader for Cargo: the top-level Cargo.toml (package or workspace), its
//! members' manifests for binaries, features, and the lockfile's packages.
//! A Tauri app keeps its crate in `src-tauri/`, read when the top level has
//! no Cargo.toml.

mod lock;

use crate::context::Ctx;
use crate::support::toml_doc::{str_of, strings_of, TomlDoc};
use packsmith_core::{CargoFacts, Evidence, ManifestDependency};
use toml_edit::{Item, TableLike};

/// Most workspace member manifests read.
const MAX_MEMBERS: usize = 200;

/// Where a Tauri app keeps its Rust crate; the top level holds the app's
/// web frontend (package.json).
pub(crate) const TAURI_DIR: &str = "src-tauri";

/// Reads the cargo facts of the repository, or None when it has none.
pub fn analyze(ctx: &mut Ctx<'_>) -> Option<CargoFacts> {
    let root = if ctx.view.exists("Cargo.toml") {
        ""
    } else if ctx.view.exists(&under(TAURI_DIR, "Cargo.toml")) {
        TAURI_DIR
    } else {
        return None;
    };
    let manifest = under(root, "Cargo.toml");
    let lockfile = under(root, "Cargo.lock");
    let mut facts = CargoFacts {
        has_lockfile: ctx.view.exists(&lockfile),
        root: (!root.is_empty()).then(|| root.to_string()),
        ..CargoFacts::default()
    };
    if facts.has_lockfile {
        facts.locked_packages = ctx
            .read(&lockfile)
            .map(|text| lock::package_names(&text))
            .unwrap_or_default();
    }
    let Some(doc) = load(ctx, &manifest, &mut facts) else {
        return Some(facts);
    };
    let workspace_package = doc.table(&["workspace", "package"]);
    if let Some(pkg) = doc.table(&["package"]) {
        let field = |k: &str| field(pkg, workspace_package, k);
        facts.name = field("name");
        facts.name_evidence = Some(Evidence::new(&manifest, doc.key_line(pkg, "name")));
        facts.version = field("version");
        facts.license =
            field("license").or_else(|| field("license-file").map(|f| format!("file: {f}")));
        facts.homepage = field("homepage").or_else(|| field("repository"));
        facts.description = field("description");
        facts.rust_version = field("rust-version");
        facts.edition = field("edition");
        read_targets(ctx, &doc, root, &mut facts);
    }
    // Settings a virtual manifest (or a package not inheriting them) leaves
    // to `[workspace.package]` still bind every member.
    if let Some(wp) = workspace_package {
        let inherit = |slot: &mut Option<String>, key: &str| {
            if slot.is_none() {
                *slot = str_of(wp, key);
            }
        };
        inherit(&mut facts.version, "version");
        inherit(&mut facts.license, "license");
        inherit(&mut facts.homepage, "homepage");
        inherit(&mut facts.description, "description");
        inherit(&mut facts.rust_version, "rust-version");
        inherit(&mut facts.edition, "edition");
    }
    read_dependencies(&doc, &manifest, &mut facts.dependencies);
    if let Some(features) = doc.table(&["features"]) {
        for (name, item) in features.iter() {
            if name == "default" {
                facts.default_features = strings_of(item).into_iter().map(|(s, _)| s).collect();
            } else {
                facts.features.push(name.to_string());
            }
        }
    }
    if let Some(ws) = doc.table(&["workspace"]) {
        facts.is_workspace = true;
        if let Some(deps) = ws.get("dependencies").and_then(Item::as_table_like) {
            push_deps(
                &doc,
                &manifest,
                deps,
                "workspace",
                None,
                &mut facts.dependencies,
            );
        }
        // Member paths are relative to the workspace's manifest.
        let paths = |key: &str| -> Vec<String> {
            ws.get(key)
                .map(|m| {
                    strings_of(m)
                        .into_iter()
                        .map(|(s, _)| under(root, &s))
                        .collect()
                })
                .unwrap_or_default()
        };
        let (excluded, patterns) = (paths("exclude"), paths("members"));
        let members = expand_members(ctx, &patterns, &excluded);
        if members.len() > MAX_MEMBERS {
            ctx.warn(
                &manifest,
                0,
                format!("more than {MAX_MEMBERS} workspace members; the rest not read"),
            );
        }
        for member in members.into_iter().take(MAX_MEMBERS) {
            let member_manifest = under(&member, "Cargo.toml");
            if let Some(mdoc) = load(ctx, &member_manifest, &mut facts) {
                read_targets(ctx, &mdoc, &member, &mut facts);
            }
            facts.workspace_members.push(member);
        }
    }
    Some(facts)
}

fn load(ctx: &mut Ctx<'_>, file: &str, facts: &mut CargoFacts) -> Option<TomlDoc> {
    let text = ctx.read(file)?;
    facts.files.push(file.to_string());
    match TomlDoc::parse(&text) {
        Ok(doc) => Some(doc),
        Err(err) => {
            ctx.warn(
                file,
                err.line,
                format!("invalid TOML, not read: {}", err.message),
            );
            None
        }
    }
}

/// A `[package]` string, following `field.workspace = true` to `[workspace.package]`.
fn field(pkg: &dyn TableLike, ws: Option<&dyn TableLike>, key: &str) -> Option<String> {
    let item = pkg.get(key)?;
    if let Some(s) = item.as_str() {
        return Some(s.to_string());
    }
    let inherits = item
        .as_table_like()
        .and_then(|t| t.get("workspace"))
        .and_then(Item::as_bool)
        .unwrap_or(false);
    if inherits {
        return ws
            .and_then(|w| str_of(w, key))
            .or(Some("(workspace)".into()));
    }
    None
}

/// `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]` and their
/// `[target.'cfg(…)'.…]` forms.
fn read_dependencies(doc: &TomlDoc, file: &str, out: &mut Vec<ManifestDependency>) {
    let sections = [
        ("dependencies", "normal"),
        ("dev-dependencies", "dev"),
        ("build-dependencies", "build"),
    ];
    for (section, kind) in sections {
        if let Some(t) = doc.table(&[section]) {
            push_deps(doc, file, t, kind, None, out);
        }
    }
    if let Some(targets) = doc.table(&["target"]) {
        for (cfg, t) in targets.iter() {
            let Some(t) = t.as_table_like() else { continue };
            for (section, kind) in sections {
                if let Some(deps) = t.get(section).and_then(Item::as_table_like) {
                    push_deps(doc, file, deps, kind, Some(cfg.to_string()), out);
                }
            }
        }
    }
}

fn push_deps(
    doc: &TomlDoc,
    file: &str,
    deps: &dyn TableLike,
    kind: &str,
    condition: Option<String>,
    out: &mut Vec<ManifestDependency>,
) {
    for (name, spec) in deps.iter() {
        let table = spec.as_table_like();
        let get = |k: &str| table.and_then(|t| str_of(t, k));
        let flag = |k: &str| {
            table
                .and_then(|t| t.get(k))
                .and_then(Item::as_bool)
                .unwrap_or(false)
        };
        let requirement = spec
            .as_str()
            .map(str::to_string)
            .or_else(|| get("version"))
            .or_else(|| {
                get("git").map(|g| {
                    let pin = get("tag").or_else(|| get("rev")).or_else(|| get("branch"));
                    pin.map_or(format!("git:{g}"), |p| format!("git:{g}@{p}"))
                })
            })
            .or_else(|| get("path").map(|p| format!("path:{p}")))
            .or_else(|| flag("workspace").then(|| "workspace".to_string()))
            .unwrap_or_default();
        let kind = if kind == "normal" && flag("optional") {
            "optional"
        } else {
            kind
        };
        out.push(ManifestDependency {
            name: name.to_string(),
            requirement,
            kind: kind.to_string(),
            condition: condition.clone(),
            evidence: Evidence::new(file, doc.key_line(deps, name)),
        });
    }
}

/// `file` in the directory `dir` (`""` is the top level).
fn under(dir: &str, file: &str) -> String {
    if dir.is_empty() {
        file.to_string()
    } else {
        format!("{dir}/{file}")
    }
}

/// Binaries and library of the package whose manifest is `doc` in `dir`.
fn read_targets(ctx: &Ctx<'_>, doc: &TomlDoc, dir: &str, facts: &mut CargoFacts) {
    let path = |f: &str| under(dir, f);
    let pkg = doc.table(&["package"]);
    let pkg_name = pkg.and_then(|p| str_of(p, "name"));
    let autobins = pkg
        .and_then(|p| p.get("autobins"))
        .and_then(Item::as_bool)
        .unwrap_or(true);
    let mut bins: Vec<String> = Vec::new();
    // Paths claimed by `[[bin]]` are not discovered a second time.
    let mut claimed: Vec<String> = Vec::new();
    if let Some(list) = doc.root().get("bin").and_then(Item::as_array_of_tables) {
        for t in list.iter() {
            bins.extend(str_of(t, "name"));
            claimed.extend(str_of(t, "path").map(|p| path(p.trim_start_matches("./"))));
        }
    }
    if autobins {
        if ctx.view.exists(&path("src/main.rs")) && !claimed.contains(&path("src/main.rs")) {
            bins.extend(pkg_name.clone());
        }
        let bin_dir = path("src/bin");
        for f in ctx.view.files() {
            let Some(rest) = f.rel.strip_prefix(&format!("{bin_dir}/")) else {
                continue;
            };
            if claimed.contains(&f.rel) {
                continue;
            }
            let name = match rest.split_once('/') {
                None => rest.strip_suffix(".rs"),
                Some((d, "main.rs")) => Some(d),
                _ => None,
            };
            bins.extend(name.map(str::to_string));
        }
    }
    for b in bins {
        if !facts.binaries.contains(&b) {
            facts.binaries.push(b);
        }
    }
    if dir == facts.root.as_deref().unwrap_or_default() {
        facts.has_library = doc.table(&["lib"]).is_some() || ctx.view.exists(&path("src/lib.rs"));
    }
}

/// Workspace member globs (`crates/*`, exact paths) → member directories
/// holding a Cargo.toml, minus `exclude`.
fn expand_members(ctx: &Ctx<'_>, patterns: &[String], excluded: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for pat in patterns {
        let pat = pat.trim_end_matches('/');
        let candidates: Vec<String> = match pat.strip_suffix("/*") {
            Some(parent) => ctx
                .view
                .dirs()
                .iter()
                .filter(|d| {
                    d.strip_prefix(&format!("{parent}/"))
                        .is_some_and(|r| !r.contains('/'))
                })
                .cloned()
                .collect(),
            None if pat.contains('*') => ctx
                .view
                .dirs()
                .iter()
                .filter(|d| glob_match(pat, d))
                .cloned()
                .collect(),
            None => vec![pat.to_string()],
        };
        for c in candidates {
            if ctx.view.exists(&format!("{c}/Cargo.toml"))
                && !excluded.contains(&c)
                && !out.contains(&c)
            {
                out.push(c);
            }
        }
    }
    out
}

/// `*` within one path segment.
fn glob_match(pat: &str, s: &str) -> bool {
    let (p, t): (Vec<&str>, Vec<&str>) = (pat.split('/').collect(), s.split('/').collect());
    p.len() == t.len()
        && p.iter().zip(&t).all(|(p, t)| match p.split_once('*') {
            Some((a, b)) => t.len() >= a.len() + b.len() && t.starts_with(a) && t.ends_with(b),
            None => p == t,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::RepoView;

    /// A repository holding `files` (path, text).
    fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoView) {
        crate::view::test_view_of(files)
    }

    const LOCK: &str = "version = 4\n\n[[package]]\nname = \"tauri\"\nversion = \"2.8.5\"\n\n\
        [[package]]\nname = \"webkit2gtk-sys\"\nversion = \"2.0.1\"\n";

    #[test]
    fn a_top_level_lock_lists_its_packages() {
        let (_d, view) = repo(&[
            (
                "Cargo.toml",
                "[package]\nname = \"vault\"\nversion = \"1.0.0\"\n",
            ),
            ("Cargo.lock", LOCK),
            ("src/main.rs", "fn main() {}"),
        ]);
        let facts = analyze(&mut Ctx::new(&view)).unwrap();
        assert!(facts.has_lockfile);
        assert_eq!(facts.locked_packages, ["tauri", "webkit2gtk-sys"]);
        assert_eq!(facts.root, None);
    }

    #[test]
    fn a_tauri_app_is_read_from_src_tauri() {
        let (_d, view) = repo(&[
            ("package.json", "{\"name\": \"frontend\"}"),
            (
                "src-tauri/Cargo.toml",
                "[package]\nname = \"kide\"\nversion = \"1.0.40\"\n\n\
                 [dependencies]\ntauri = { version = \"2\" }\n",
            ),
            ("src-tauri/Cargo.lock", LOCK),
            ("src-tauri/tauri.conf.json", "{}"),
            ("src-tauri/src/main.rs", "fn main() {}"),
            ("src-tauri/src/lib.rs", ""),
        ]);
        let facts = analyze(&mut Ctx::new(&view)).unwrap();
        assert_eq!(facts.root.as_deref(), Some("src-tauri"));
        assert_eq!(facts.files, ["src-tauri/Cargo.toml"]);
        assert_eq!(facts.name.as_deref(), Some("kide"));
        assert_eq!(facts.binaries, ["kide"]);
        assert!(facts.has_library);
        assert_eq!(facts.locked_packages, ["tauri", "webkit2gtk-sys"]);
        let tauri = &facts.dependencies[0];
        assert_eq!(tauri.name, "tauri");
        assert_eq!(tauri.evidence, Evidence::new("src-tauri/Cargo.toml", 6));
    }

    #[test]
    fn a_repository_without_a_manifest_has_no_cargo_facts() {
        let (_d, view) = repo(&[("package.json", "{}"), ("Cargo.lock", LOCK)]);
        assert_eq!(analyze(&mut Ctx::new(&view)), None);
    }
}
