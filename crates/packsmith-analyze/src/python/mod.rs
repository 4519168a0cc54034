//! Reader for Python packaging metadata: pyproject.toml (PEP 621 and
//! Poetry), setup.cfg and setup.py (scanned, never executed), and
//! requirements.txt when nothing else lists the dependencies and a manifest
//! reads it.

mod named;
mod pyproject;
mod requirement;
mod setup_cfg;
mod setup_py;

use crate::context::Ctx;
pub use named::{files_from_top, named_subproject, top_declares};
use packsmith_core::{Evidence, FeatureHint, PythonFacts, PythonRequirement};

const MANIFESTS: &[&str] = &["pyproject.toml", "setup.cfg", "setup.py"];

/// Reads the python facts of the repository, or None when it has none.
pub fn analyze(ctx: &mut Ctx<'_>) -> Option<PythonFacts> {
    let dir = find_root(ctx)?;
    let path = |f: &str| crate::view::join(&dir, f);
    let mut facts = PythonFacts {
        subdir: (!dir.is_empty()).then(|| dir.clone()),
        ..PythonFacts::default()
    };
    if facts.subdir.is_some() {
        ctx.warn(
            &dir,
            0,
            format!("no Python metadata at the top level; read the bindings in {dir}/"),
        );
    }
    let pyproject = path("pyproject.toml");
    let has_build_system =
        ctx.view.exists(&pyproject) && pyproject::read(ctx, &pyproject, &mut facts);
    let cfg = path("setup.cfg");
    if ctx.view.exists(&cfg) {
        setup_cfg::read(ctx, &cfg, &mut facts);
    }
    let setup = path("setup.py");
    if ctx.view.exists(&setup) {
        setup_py::read(ctx, &setup, &mut facts);
    }
    // No `[build-system]`: pip builds a setup.py or setup.cfg project with
    // setuptools' legacy backend (PEP 517's fallback), whatever other
    // tool's table the pyproject has, so setuptools is a build requirement.
    if !has_build_system {
        if let Some(manifest) = [&setup, &cfg].into_iter().find(|f| ctx.view.exists(f)) {
            facts.build_backend = Some("setuptools.build_meta:__legacy__".into());
            facts
                .build_requires
                .extend(requirement::parse("setuptools", Evidence::new(manifest, 1)));
        }
    }
    // requirements.txt is the package's dependencies only when its build
    // reads it (pip reads no such file itself): a manifest that never
    // names it keeps it for developers (`pytest`, `tox`).
    let reqs = path("requirements.txt");
    if facts.dependencies.is_empty()
        && ctx.view.exists(&reqs)
        && [&pyproject, &cfg, &setup]
            .into_iter()
            .any(|m| ctx.view.exists(m) && ctx.read(m).is_some_and(|t| t.contains("requirements")))
    {
        read_requirements_txt(ctx, &reqs, &mut facts);
    }
    dedupe(&mut facts);
    if facts.requires_python.is_none() {
        facts.requires_python = pkg_info_requires_python(ctx, &path("PKG-INFO"));
    }
    scm_version(ctx, &path("PKG-INFO"), &mut facts);
    facts.is_application = !facts.scripts.is_empty();
    add_binding_hints(ctx, &facts);
    Some(facts)
}

/// An sdist's `PKG-INFO` says `Requires-Python:` even where setup.py
/// computes it (a kwargs dict, a variable): the metadata pip reads.
fn pkg_info_requires_python(ctx: &mut Ctx<'_>, pkg_info: &str) -> Option<String> {
    if !ctx.view.exists(pkg_info) {
        return None;
    }
    let text = ctx.read(pkg_info)?;
    text.lines()
        .take_while(|l| !l.is_empty())
        .find_map(|l| l.strip_prefix("Requires-Python:"))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// "" for the top level; else a bindings directory one or two levels down
/// (`python/`, `bindings/python/`) holding a manifest.
fn find_root(ctx: &Ctx<'_>) -> Option<String> {
    if MANIFESTS.iter().any(|m| ctx.view.exists(m)) {
        return Some(String::new());
    }
    ctx.view
        .dirs()
        .iter()
        .filter(|d| d.matches('/').count() <= 1)
        .filter(|d| {
            let last = d.rsplit('/').next().unwrap_or(d).to_ascii_lowercase();
            last == "py" || last.contains("python")
        })
        .find(|d| {
            ["pyproject.toml", "setup.py"]
                .iter()
                .any(|m| ctx.view.exists(&format!("{d}/{m}")))
        })
        .cloned()
}

fn read_requirements_txt(ctx: &mut Ctx<'_>, file: &str, facts: &mut PythonFacts) {
    let Some(text) = ctx.read(file) else { return };
    facts.files.push(file.to_string());
    for (i, line) in text.lines().enumerate() {
        let ev = Evidence::new(file, u32::try_from(i + 1).unwrap_or(u32::MAX));
        facts.dependencies.extend(requirement::parse(line, ev));
    }
}

/// A build that takes its version from git (setuptools-scm, hatch-vcs,
/// pdm's `source = "scm"`) fails on a tree without `.git` or `PKG-INFO`
/// unless told the version; keeps `scm_version_env` only for such a tree.
fn scm_version(ctx: &Ctx<'_>, pkg_info: &str, facts: &mut PythonFacts) {
    let scm_plugin = facts
        .build_requires
        .iter()
        .any(|r| matches!(r.name.as_str(), "setuptools-scm" | "hatch-vcs"));
    if scm_plugin {
        facts
            .scm_version_env
            .insert(0, "SETUPTOOLS_SCM_PRETEND_VERSION".into());
    }
    if ctx.view.exists(pkg_info) {
        facts.scm_version_env.clear();
    }
}

/// pybind11 / nanobind / swig among the build requirements mean a compiled
/// extension.
fn add_binding_hints(ctx: &mut Ctx<'_>, facts: &PythonFacts) {
    for req in &facts.build_requires {
        if let Some(
            feature @ (packsmith_core::FeatureKind::Pybind11
            | packsmith_core::FeatureKind::Nanobind
            | packsmith_core::FeatureKind::Swig),
        ) = crate::support::hints::feature_for_dependency(&req.name)
        {
            ctx.features.push(FeatureHint {
                feature,
                detail: format!("build requirement {}", req.name),
                conditions: Vec::new(),
                evidence: req.evidence.clone(),
            });
        }
    }
}

/// Sets a field only when still unset (the first manifest read wins).
fn fill(slot: &mut Option<String>, value: Option<String>) {
    if slot.is_none() {
        *slot = value.filter(|v| !v.is_empty());
    }
}

/// Sets `name` / `version` with their evidence when still unset.
fn fill_sourced(
    slot: &mut Option<String>,
    evidence: &mut Option<Evidence>,
    value: Option<String>,
    ev: Evidence,
) {
    if slot.is_none() {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            *slot = Some(v);
            *evidence = Some(ev);
        }
    }
}

/// The same requirement, extra or script named in several manifests (setup.py
/// repeating setup.cfg) is kept once, from the first manifest read.
fn dedupe(facts: &mut PythonFacts) {
    dedupe_requirements(&mut facts.dependencies);
    dedupe_requirements(&mut facts.build_requires);
    let mut seen = std::collections::HashSet::new();
    facts.extras.retain(|e| seen.insert(e.name.clone()));
    let mut seen = std::collections::HashSet::new();
    facts.scripts.retain(|s| seen.insert(s.name.clone()));
}

/// A requirement (name and marker) once, where it first appears.
fn dedupe_requirements(requirements: &mut Vec<PythonRequirement>) {
    let mut seen = std::collections::HashSet::new();
    requirements.retain(|r| seen.insert((r.name.clone(), r.marker.clone())));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts_of(files: &[(&str, &str)]) -> PythonFacts {
        let (_dir, view) = crate::view::test_view_of(files);
        let mut ctx = Ctx::new(&view);
        analyze(&mut ctx).expect("python facts")
    }

    fn dependencies(files: &[(&str, &str)]) -> Vec<String> {
        let facts = facts_of(files);
        facts.dependencies.into_iter().map(|r| r.name).collect()
    }

    fn build_requires(files: &[(&str, &str)]) -> Vec<String> {
        let facts = facts_of(files);
        facts.build_requires.into_iter().map(|r| r.name).collect()
    }

    #[test]
    fn setup_requires_are_build_requirements_and_scm_versions_need_setuptools_scm() {
        // acme-tiny's shape: setuptools-scm named twice, a tree without .git.
        let setup = "from setuptools import setup\nsetup(name='x', use_scm_version=True,\n\
                     setup_requires=['setuptools_scm'], py_modules=['x'])\n";
        let facts = facts_of(&[("setup.py", setup)]);
        let names: Vec<_> = facts
            .build_requires
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(names, ["setuptools-scm", "setuptools"]);
        assert_eq!(facts.scm_version_env, ["SETUPTOOLS_SCM_PRETEND_VERSION"]);
        // use_scm_version alone still needs the plugin; `False` does not.
        let alone =
            "from setuptools import setup\nsetup(name='x', use_scm_version={'root': '.'})\n";
        assert_eq!(
            build_requires(&[("setup.py", alone)]),
            ["setuptools-scm", "setuptools"]
        );
        let off = "from setuptools import setup\nsetup(name='x', use_scm_version=False)\n";
        assert_eq!(build_requires(&[("setup.py", off)]), ["setuptools"]);
        // numdifftools' shape: a list plus a conditional name, the list kept.
        let plus = "from setuptools import setup\nsphinx = ['sphinx'] if x else []\n\
                    setup(name='x', setup_requires=['pytest-runner'] + sphinx)\n";
        assert_eq!(
            build_requires(&[("setup.py", plus)]),
            ["pytest-runner", "setuptools"]
        );
        // Needed only for `setup.py test`: neither inline nor through a name.
        let inline = "from setuptools import setup\n\
                      setup(name='x', setup_requires=['pytest-runner'] if t else [])\n";
        assert_eq!(build_requires(&[("setup.py", inline)]), ["setuptools"]);
        let named = "from setuptools import setup\nrunner = ['pytest-runner'] if t else []\n\
                     setup(name='x', setup_requires=runner)\n";
        assert_eq!(build_requires(&[("setup.py", named)]), ["setuptools"]);
        // setup.cfg's [options] says the same.
        let cfg = "[metadata]\nname = x\n[options]\nsetup_requires =\n    cffi>=1.0\n";
        assert_eq!(
            build_requires(&[
                ("setup.cfg", cfg),
                ("setup.py", "from setuptools import setup\nsetup()\n")
            ]),
            ["cffi", "setuptools"]
        );
    }

    #[test]
    fn a_requirements_file_no_manifest_reads_is_not_the_packages_dependencies() {
        // striprtf's shape: setup.py declares nothing, requirements.txt lists
        // what its developers run the tests with.
        let setup = "from setuptools import setup\nsetup(name=\"x\", packages=[\"x\"])\n";
        assert!(dependencies(&[("setup.py", setup), ("requirements.txt", "pytest\n")]).is_empty());
        // A setup.py that reads it: the file is the dependency list.
        let reading =
            "from setuptools import setup\nreqs = open(\"requirements.txt\").read().split()\n\
                       setup(name=\"x\", install_requires=reqs)\n";
        assert_eq!(
            dependencies(&[("setup.py", reading), ("requirements.txt", "numpy\n")]),
            ["numpy"]
        );
    }
}
