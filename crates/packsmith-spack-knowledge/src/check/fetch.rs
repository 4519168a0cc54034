//! A recipe needs at least one version and a place to fetch it from.

use super::{Code, Diagnostic, Input};
use crate::base_classes::builtin_module;

/// Class attributes through which build systems derive a download URL.
const SOURCE_ATTRIBUTES: &[&str] = &[
    "pypi",
    "cran",
    "bioc",
    "cpan",
    "git",
    "url",
    "urls",
    "hg",
    "svn",
    "gitlab",
    "gnu_mirror_path",
    "sourceforge_mirror_path",
    "sourceware_mirror_path",
    "xorg_mirror_path",
    "maven",
    "hackage",
    "rubygem",
    "go",
];

/// True when every base of every class is local or a builtin build system,
/// so nothing outside the file can contribute versions or URLs.
pub(super) fn self_contained(input: &Input) -> bool {
    let classes = &input.layout.classes;
    classes.iter().all(|c| {
        c.base_names()
            .all(|b| builtin_module(b).is_some() || classes.iter().any(|l| l.name == b))
    })
}

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    let recipe = input.recipe;
    let line = recipe.class_line.unwrap_or(1);
    let has_version_call = input.layout.calls().any(|c| c.name == "version");
    let bundle = recipe.bases.iter().any(|b| b.ends_with("BundlePackage"));
    if recipe.versions.is_empty() && !has_version_call && self_contained(input) {
        out.push(Diagnostic::new(
            Code::NoVersion,
            line,
            1,
            "no `version(...)`: Spack cannot concretize a package without versions",
        ));
    }
    let has_source = recipe.url.is_some()
        || recipe.git.is_some()
        || recipe.versions.iter().any(|v| {
            v.url.is_some()
                || v.git.is_some()
                || v.extra
                    .keys()
                    .any(|k| matches!(k.as_str(), "svn" | "hg" | "cvs"))
        })
        || recipe
            .attributes
            .iter()
            .any(|a| SOURCE_ATTRIBUTES.contains(&a.name.as_str()))
        || recipe.has_method("url_for_version")
        || recipe
            .attributes
            .iter()
            .any(|a| a.name == "has_code" && a.value.to_text() == "False");
    if !has_source && !bundle && self_contained(input) && !recipe.versions.is_empty() {
        out.push(Diagnostic::new(
            Code::NoFetchSource,
            line,
            1,
            "no `url`, `git` or per-version source: Spack will not know where to fetch from",
        ));
    }
}
