//! The checksum of the new version, and the archive Spack installs it
//! from in the run's mirror. In order: the release archive given as the
//! new source when its file name is the one the recipe's URL gives for the
//! version (a downloaded sdist or tarball: its own checksum); the archive
//! the recipe's `url` pattern gives for the version when it is a local
//! `file://` archive (exactly what the recipe will fetch); the forge's
//! release archive reproduced from a clean checkout at the version's tag
//! (GitHub's own checksum, when the recipe's URL is that archive's);
//! otherwise no checksum (`# FIXME: checksum`) and the new tree packed as
//! a stand-in, installed with `--no-checksum`.

use std::path::{Path, PathBuf};

use packsmith_core::RepoFacts;
use packsmith_exec::atomic_write;
use packsmith_spack_draft::update::{recipe_url, url_for_version};
use packsmith_spack_knowledge::recipe::ParsedRecipe;
use serde::{Deserialize, Serialize};

use crate::validate::{
    archive_extension, pack_as_archive, pack_upstream_release, sha256_file, UpstreamRelease,
    ValidateError,
};

/// Where the new version's checksum came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChecksumSource {
    /// The release archive given as the new source.
    GivenArchive,
    /// The local archive the recipe's URL names for the version.
    RecipeUrl,
    /// The forge's release archive, reproduced from the checkout's tag.
    ForgeRelease,
    /// None: the recipe says `# FIXME: checksum`.
    Unknown,
}

/// The new version's checksum and its archive in the run's mirror.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewArchive {
    pub sha256: Option<String>,
    pub source: ChecksumSource,
    /// The URL the recipe gives for the version, when it names one.
    pub url: Option<String>,
    /// The archive as Spack finds it in the run's mirror.
    pub path: PathBuf,
    pub mirror: PathBuf,
    /// Install with `--no-checksum`: the mirror holds a stand-in packed
    /// from the tree, not the archive the recipe names.
    pub no_checksum: bool,
}

/// What the checksum is worked out from.
pub struct ArchiveInputs<'a> {
    pub recipe: &'a ParsedRecipe,
    pub package: &'a str,
    pub old_version: &'a str,
    pub new_version: &'a str,
    pub new_root: &'a Path,
    pub new_facts: &'a RepoFacts,
    /// The release archive the new source was unpacked from, if it was one.
    pub new_archive: Option<&'a Path>,
    pub mirror: &'a Path,
}

/// Works the checksum out and puts the archive into the mirror.
pub fn new_archive(inputs: &ArchiveInputs<'_>) -> Result<NewArchive, ValidateError> {
    let declared: Vec<&str> = std::iter::once(inputs.old_version)
        .chain(inputs.recipe.versions.iter().map(|v| v.version.as_str()))
        .collect();
    let url =
        recipe_url(inputs.recipe).and_then(|u| url_for_version(&u, &declared, inputs.new_version));
    let ext = archive_extension(url.as_deref()).unwrap_or("tar.gz");
    // An archive on this machine that is the one the URL fetches: the
    // release archive given as the source, else a `file://` URL's.
    let local = inputs
        .new_archive
        .filter(|a| same_file_name(a, url.as_deref()))
        .map(|a| (a.to_path_buf(), ChecksumSource::GivenArchive))
        .or_else(|| {
            let found = url.as_deref().and_then(local_archive)?;
            Some((found, ChecksumSource::RecipeUrl))
        });
    if let Some((archive, source)) = local {
        let target = mirror_path(inputs, ext);
        copy_into(&archive, &target)?;
        return Ok(NewArchive {
            sha256: Some(sha256_file(&target)?),
            source,
            url,
            path: target,
            mirror: inputs.mirror.to_path_buf(),
            no_checksum: false,
        });
    }
    if let Some(release) = forge_release(inputs, url.as_deref()) {
        if let Some(packed) = pack_upstream_release(
            inputs.new_root,
            inputs.package,
            inputs.new_version,
            inputs.mirror,
            &release,
        )? {
            return Ok(NewArchive {
                sha256: Some(packed.sha256),
                source: ChecksumSource::ForgeRelease,
                url,
                path: packed.path,
                mirror: packed.mirror,
                no_checksum: false,
            });
        }
    }
    let packed = pack_as_archive(
        inputs.new_root,
        inputs.package,
        inputs.new_version,
        inputs.mirror,
        ext,
    )?;
    Ok(NewArchive {
        sha256: None,
        source: ChecksumSource::Unknown,
        url,
        path: packed.path,
        mirror: packed.mirror,
        no_checksum: true,
    })
}

/// Whether `archive` is the file `url` names (`demo-2.0.tar.gz` both):
/// only then is its checksum the one the recipe will fetch.
fn same_file_name(archive: &Path, url: Option<&str>) -> bool {
    let name = archive.file_name().map(|n| n.to_string_lossy());
    let from_url = url.and_then(|u| u.split(['?', '#']).next()?.rsplit('/').next());
    matches!((name, from_url), (Some(n), Some(u)) if n == u)
}

/// The file a `file://` URL names, when it exists.
fn local_archive(url: &str) -> Option<PathBuf> {
    let path = PathBuf::from(url.strip_prefix("file://")?);
    path.is_file().then_some(path)
}

/// `<mirror>/<name>/<name>-<version>.<ext>`, where Spack looks.
fn mirror_path(inputs: &ArchiveInputs<'_>, ext: &str) -> PathBuf {
    inputs
        .mirror
        .join(inputs.package)
        .join(format!("{}-{}.{ext}", inputs.package, inputs.new_version))
}

fn copy_into(from: &Path, to: &Path) -> Result<(), ValidateError> {
    let bytes = std::fs::read(from).map_err(|e| ValidateError::io("read", from, e))?;
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ValidateError::io("create", parent, e))?;
    }
    atomic_write(to, &bytes).map_err(|e| ValidateError::Io {
        action: "write",
        path: to.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// The GitHub release of the new version, when the checkout has its tag
/// and the recipe fetches exactly that archive.
fn forge_release(inputs: &ArchiveInputs<'_>, url: Option<&str>) -> Option<UpstreamRelease> {
    let remote = inputs.new_facts.versions.remote.as_deref()?;
    let tag = inputs
        .new_facts
        .versions
        .recent_tags
        .iter()
        .find(|t| t.version == inputs.new_version)?;
    let release = UpstreamRelease::github(remote, &tag.tag)?;
    let short = |u: &str| u.replacen("/archive/refs/tags/", "/archive/", 1);
    // GitHub serves one archive under both `archive/refs/tags/v1.tar.gz`
    // and `archive/v1.tar.gz`; recipes use either.
    (url.map(short) == Some(short(&release.url))).then_some(release)
}
