//! Runs every reader over a repository and merges their findings into
//! [`RepoFacts`].

use crate::context::Ctx;
use crate::error::AnalyzeError;
use crate::view::RepoView;
use crate::{autotools, cargo, cmake, golang, meson, npm, python};
use packsmith_core::{RepoFacts, SourceInfo, VersionFacts, FACTS_SCHEMA_VERSION};
use std::path::Path;

/// Analyses the repository checked out at `root`. The tree is only read.
pub fn analyze_dir(root: &Path, source: SourceInfo) -> Result<RepoFacts, AnalyzeError> {
    let meta = std::fs::metadata(root).map_err(|_| AnalyzeError::NotFound {
        path: root.to_path_buf(),
    })?;
    if !meta.is_dir() {
        return Err(AnalyzeError::NotADirectory {
            path: root.to_path_buf(),
        });
    }
    let mut walk_warnings = Vec::new();
    let view = RepoView::walk(root, &mut walk_warnings);
    let mut ctx = Ctx::new(&view);
    ctx.warnings.append(&mut walk_warnings);

    let cmake = cmake::analyze(&mut ctx);
    let autotools = autotools::analyze(&mut ctx);
    let meson = meson::analyze(&mut ctx);
    let python = python::analyze(&mut ctx);
    let cargo = cargo::analyze(&mut ctx);
    let go = golang::analyze(&mut ctx);
    let npm = npm::analyze(&mut ctx);

    Ok(RepoFacts {
        schema_version: FACTS_SCHEMA_VERSION,
        source,
        name: None,
        build_systems: Vec::new(),
        primary_build_system: None,
        cmake,
        autotools,
        meson,
        python,
        cargo,
        go,
        npm,
        languages: ctx.languages,
        features: ctx.features,
        downloads: ctx.downloads,
        versions: VersionFacts::default(),
        license: None,
        homepage: None,
        description: None,
        tree: String::new(),
        warnings: ctx.warnings,
    })
}
