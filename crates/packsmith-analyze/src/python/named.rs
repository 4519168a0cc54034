//! A repository of several Python projects (`client-python/`,
//! `streaming/py/`, `python/caliper-reader/`): the package asked for is
//! the project that declares its name, wherever it sits.

use super::requirement::normalize_name;
use super::{pyproject, setup_cfg, setup_py, MANIFESTS};
use crate::context::Ctx;
use crate::support::toml_doc::{str_of, TomlDoc};
use crate::view::RepoView;
use packsmith_core::PythonFacts;

/// How deep below the top a named project is looked for.
const MAX_DEPTH: usize = 3;

/// The directory of the Python project declaring `wanted` (a Spack name,
/// `py-langchain-protocol`), when it is not the top level's: the
/// shallowest outside tests, examples and vendored code. None when the
/// name is no Python package's, when the top level declares it, or when
/// no project does.
pub fn named_subproject(view: &RepoView, wanted: &str) -> Option<String> {
    let wanted = normalize_name(wanted.strip_prefix("py-")?);
    let declares = |dir: &str| declared_name(view, dir).is_some_and(|n| names_match(&n, &wanted));
    if declares("") {
        return None;
    }
    let mut dirs: Vec<&String> = view
        .dirs()
        .iter()
        .filter(|d| !d.is_empty() && d.split('/').count() <= MAX_DEPTH)
        .filter(|d| !crate::detect::is_noise_dir(d))
        .filter(|d| MANIFESTS.iter().any(|m| view.exists(&format!("{d}/{m}"))))
        .collect();
    dirs.sort_by_key(|d| (d.split('/').count(), d.as_str()));
    dirs.into_iter().find(|d| declares(d)).cloned()
}

/// Whether the top level's Python project declares `wanted` (a Spack
/// name, `py-stringzilla`): the package asked for is that project even
/// when a CMake, Cargo or npm build sits beside it. A `setup.py` whose
/// name is computed (`setup(name=__lib_name__)`) declares no name to
/// compare and counts; call this only when no project below the top
/// declares the name ([`named_subproject`]).
pub fn top_declares(view: &RepoView, wanted: &str) -> bool {
    let Some(wanted) = wanted.strip_prefix("py-") else {
        return false;
    };
    match declared_name(view, "") {
        Some(name) => names_match(&name, &normalize_name(wanted)),
        None => view.exists("setup.py"),
    }
}

/// Whether the distribution name `declared` is the package `wanted` (a
/// normalized Spack name less `py-`): the same, or the same behind the
/// `py` that PyPI's name carries and Spack's drops (`pymdi` for py-mdi).
/// Other marks are a different project (`tree-sitter-python` is a grammar,
/// not py-tree-sitter).
fn names_match(declared: &str, wanted: &str) -> bool {
    let declared = normalize_name(declared);
    declared == wanted || declared.strip_prefix("py") == Some(wanted)
}

/// The files `dir/pyproject.toml` names for its metadata (`readme`,
/// `license = {file = …}`) that `dir` lacks and the repository's top has:
/// upstream's release copies them in before building (roman-numerals'
/// `LICENCE.rst`), and the backend refuses the project without them.
pub fn files_from_top(view: &RepoView, dir: &str) -> Vec<String> {
    let manifest = format!("{dir}/pyproject.toml");
    let Some(text) = view.read_text(&manifest, &mut Vec::new()) else {
        return Vec::new();
    };
    let Ok(doc) = TomlDoc::parse(&text.text) else {
        return Vec::new();
    };
    let Some(project) = doc.table(&["project"]) else {
        return Vec::new();
    };
    let in_table = |key: &str| {
        project
            .get(key)
            .and_then(|i| i.as_table_like())
            .and_then(|t| str_of(t, "file"))
    };
    [
        str_of(project, "readme"),
        in_table("readme"),
        in_table("license"),
    ]
    .into_iter()
    .flatten()
    .filter(|f| !f.contains("..") && !f.starts_with('/'))
    .filter(|f| !view.exists(&format!("{dir}/{f}")) && view.exists(f))
    .collect()
}

/// The distribution name a directory's manifests declare.
fn declared_name(view: &RepoView, dir: &str) -> Option<String> {
    // A scratch context: what these reads warn about is not the analysis'.
    let mut scratch = Ctx::new(view);
    let mut facts = PythonFacts::default();
    for manifest in MANIFESTS {
        let file = if dir.is_empty() {
            manifest.to_string()
        } else {
            format!("{dir}/{manifest}")
        };
        if facts.name.is_some() || !view.exists(&file) {
            continue;
        }
        match *manifest {
            "pyproject.toml" => {
                pyproject::read(&mut scratch, &file, &mut facts);
            }
            "setup.cfg" => setup_cfg::read(&mut scratch, &file, &mut facts),
            _ => setup_py::read(&mut scratch, &file, &mut facts),
        }
    }
    facts.name
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::view::test_view_of as view_of;

    /// agent-protocol's shape: three Python projects, none at the top; the
    /// one asked for is two levels down, behind one that sorts first.
    #[test]
    fn the_project_declaring_the_name_is_found_wherever_it_sits() {
        let (_d, view) = view_of(&[
            ("client-python/setup.py", "from setuptools import setup\nsetup(name=\"ap_client\", version=\"1.0\")\n"),
            ("server/pyproject.toml", "[project]\nname = \"agent-server\"\n"),
            ("streaming/py/pyproject.toml", "[build-system]\nrequires = [\"hatchling\"]\n\n[project]\nname = \"langchain-protocol\"\nversion = \"0.0.16\"\n"),
            ("tests/langchain/pyproject.toml", "[project]\nname = \"langchain_protocol\"\n"),
        ]);
        assert_eq!(
            named_subproject(&view, "py-langchain-protocol").as_deref(),
            Some("streaming/py")
        );
        // Compared as PyPI does, in setup.py as in pyproject.toml.
        assert_eq!(
            named_subproject(&view, "py-AP.client").as_deref(),
            Some("client-python")
        );
        // Not a Python package's name, or no project declares it.
        assert_eq!(named_subproject(&view, "langchain-protocol"), None);
        assert_eq!(named_subproject(&view, "py-other"), None);
    }

    /// roman-numerals' shape: `python/pyproject.toml` names `LICENCE.rst`,
    /// which only the top has; its own README is where it says.
    #[test]
    fn metadata_files_only_the_top_has_are_listed() {
        let (_d, view) = view_of(&[
            ("LICENCE.rst", "0BSD\n"),
            ("README.rst", "top\n"),
            ("python/README.rst", "py\n"),
            ("python/pyproject.toml", "[project]\nname = \"roman-numerals-py\"\nreadme = \"README.rst\"\nlicense.file = \"LICENCE.rst\"\n"),
        ]);
        assert_eq!(
            files_from_top(&view, "python"),
            vec!["LICENCE.rst".to_string()]
        );
        assert!(files_from_top(&view, "nowhere").is_empty());
    }

    #[test]
    fn a_top_level_that_declares_the_name_is_no_subproject() {
        let (_d, view) = view_of(&[
            ("setup.cfg", "[metadata]\nname = caliper-reader\n"),
            (
                "python/caliper-reader/setup.cfg",
                "[metadata]\nname = caliper-reader\n",
            ),
        ]);
        assert_eq!(named_subproject(&view, "py-caliper-reader"), None);
        assert!(top_declares(&view, "py-Caliper_Reader"));
        // Only a Spack Python name asks for the Python project.
        assert!(!top_declares(&view, "caliper-reader"));
        assert!(!top_declares(&view, "py-caliper"));
        // PyPI's Python marks that Spack's names drop (py-mdi is `pymdi`).
        let (_d, view) = view_of(&[("pyproject.toml", "[project]\nname = \"pymdi\"\n")]);
        assert!(top_declares(&view, "py-mdi"));
        assert!(top_declares(&view, "py-pymdi"));
        assert!(!top_declares(&view, "py-md"));
        let (_d, view) = view_of(&[("setup.cfg", "[metadata]\nname = tree-sitter-python\n")]);
        assert!(!top_declares(&view, "py-tree-sitter"));
        // A name computed at run time is no name to compare.
        let (_d, view) = view_of(&[(
            "setup.py",
            "from setuptools import setup\nsetup(name=__lib_name__)\n",
        )]);
        assert!(top_declares(&view, "py-stringzilla"));
        let (_d, view) = view_of(&[("pyproject.toml", "[tool.black]\nline-length = 120\n")]);
        assert!(!top_declares(&view, "py-stringzilla"));
    }
}
