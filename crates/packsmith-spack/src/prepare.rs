//! Everything a `packsmith spack` run needs before the loop starts, in one
//! call (as `packsmith_nix::ecosystem::prepare_draft` does for Nix): the
//! brief with the user's `--name`/`--version` applied before it is built,
//! the run directory claimed by the agent's one check, the source packed
//! into the run's mirror and pinned in the brief, Spack pointed at the run
//! directory, and the sandbox set up and probed once.

use std::path::{Path, PathBuf};

use packsmith_agent::rundir::RunDir;
use packsmith_agent::AgentError;
use packsmith_core::RepoFacts;
use packsmith_exec::sandbox::SandboxError;
use packsmith_spack_draft::brief::{build_brief_with, BriefOverrides, ReleaseChecksum, SpackBrief};
use packsmith_spack_knowledge::mapping::SpackNames;
use packsmith_spack_knowledge::target::TargetSpack;

use crate::validate::{
    pack_as_archive, pack_local_source, pack_tree, pack_upstream_release, recipe_archive_extension,
    upstream_release_sha256, LocalSource, Sandbox, SandboxPolicy, SpackSandboxPolicy, SpackSetup,
    UpstreamRelease, ValidateError,
};

/// What the caller decided: the analysed source, the located Spack and
/// the command line's choices.
pub struct RunInputs<'a> {
    pub facts: &'a RepoFacts,
    /// The source tree that is packed and built.
    pub source_root: &'a Path,
    pub setup: SpackSetup,
    pub target: TargetSpack,
    pub names: &'a dyn SpackNames,
    pub overrides: BriefOverrides,
    /// `--out`: the run goes in `<out>/<package>/`.
    pub out: &'a Path,
    pub replace: bool,
    pub no_sandbox: bool,
}

/// A run ready for the loop.
pub struct PreparedRun {
    /// The one brief: the draft, retrieval and the prompts all read it.
    pub brief: SpackBrief,
    pub version: String,
    pub run_dir: PathBuf,
    /// Spack with the run directory as its scratch space.
    pub setup: SpackSetup,
    pub sandbox: Sandbox,
    pub source: LocalSource,
    /// What the user should know about the run's inputs (printed by the
    /// caller before the loop starts).
    pub notes: Vec<String>,
}

/// Why a run cannot start; each names the input and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(
        "no release version found in {root}\nhint: pass --version X.Y.Z (the version to package)"
    )]
    NoVersion { root: PathBuf },
    #[error(transparent)]
    RunDir(#[from] AgentError),
    #[error("cannot pack the source: {0}")]
    Pack(#[source] ValidateError),
    #[error("cannot use Spack: {0}")]
    Spack(#[source] ValidateError),
    #[error("the sandbox does not work here: {0}")]
    Sandbox(#[source] SandboxError),
}

impl packsmith_core::Hint for PrepareError {
    fn hint(&self) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        match self {
            Self::NoVersion { .. } | Self::RunDir(_) => {
                packsmith_core::hint::split_hint(&self.to_string())
                    .1
                    .map(|h| Cow::Owned(h.to_string()))
            }
            Self::Pack(e) | Self::Spack(e) => e.hint().map(Cow::Owned),
            Self::Sandbox(_) => Some(Cow::Borrowed(
                "install bubblewrap and allow unprivileged user namespaces (check that `bwrap \
                 --ro-bind / / true` works), or pass --no-sandbox to run recipes unsandboxed \
                 (their code then runs with your rights)",
            )),
        }
    }

    fn message(&self) -> String {
        packsmith_core::hint::split_hint(&self.to_string())
            .0
            .to_string()
    }

    /// A missing version or an occupied run directory is the user's to fix;
    /// packing, Spack and the sandbox are the machine's.
    fn is_bad_input(&self) -> bool {
        matches!(self, Self::NoVersion { .. } | Self::RunDir(_))
    }
}

/// Builds the brief, claims the run directory, packs the source into the
/// run's mirror and pins it, and sets up the sandbox (probed once).
pub fn prepare_run(inputs: RunInputs<'_>) -> Result<PreparedRun, PrepareError> {
    let mut brief = build_brief_with(inputs.facts, inputs.target, inputs.names, &inputs.overrides);
    let version = brief
        .fetch
        .version
        .clone()
        .ok_or_else(|| PrepareError::NoVersion {
            root: inputs.source_root.to_path_buf(),
        })?;
    let run_dir = claim_run_dir(inputs.out, &brief.package, inputs.replace)?;
    let mut setup = inputs.setup;
    setup.scratch = run_dir.clone();
    let mut notes = Vec::new();
    let source = pack_and_pin(
        &mut brief,
        inputs.facts,
        inputs.source_root,
        &version,
        &run_dir.join("mirror"),
        &mut notes,
    )?;
    let sandbox = spack_sandbox(&setup, &run_dir, inputs.no_sandbox)?;
    Ok(PreparedRun {
        brief,
        version,
        run_dir,
        setup,
        sandbox,
        source,
        notes,
    })
}

/// Packs the tree into the run's mirror and pins the brief's fetch to it:
/// with git and its submodules when the build needs one (the tree as
/// checked out), else the forge's release archive a clean checkout at its
/// tag reproduces, else the packed tree by its `file://` URL.
fn pack_and_pin(
    brief: &mut SpackBrief,
    facts: &RepoFacts,
    root: &Path,
    version: &str,
    mirror: &Path,
    notes: &mut Vec<String>,
) -> Result<LocalSource, PrepareError> {
    let git = brief
        .fetch
        .submodules
        .then(|| git_source(facts, version))
        .flatten();
    if let Some(git) = git {
        // Spack looks for a git version in the mirror under the archive's
        // name, so the run installs the tree as checked out, submodules
        // included, while the recipe fetches with git.
        let source =
            pack_tree(root, &brief.package, version, mirror).map_err(PrepareError::Pack)?;
        notes.push(submodule_note(facts, &git));
        pin_git_source(brief, git);
        return Ok(source);
    }
    if brief.fetch.submodules {
        notes.push(format!(
            "the build needs a git submodule, but {} has no forge remote and tag (or commit) for \
             {version}: the recipe pins the packed tree by a file:// URL; package a clone of the \
             forge's repository for `git=` with `submodules=True`",
            root.display()
        ));
    }
    let upstream = upstream_release(facts, version);
    let released = match &upstream {
        Some(release) => pack_upstream_release(root, &brief.package, version, mirror, release)
            .map_err(PrepareError::Pack)?,
        None => None,
    };
    if let (Some(release), None) = (&upstream, &released) {
        notes.push(format!(
            "{} is not a clean checkout at {} (the GitHub release of {version}): the recipe pins \
             the packed tree by a file:// URL; `git checkout {}` there for the forge's URL and \
             checksum",
            root.display(),
            release.tag,
            release.tag
        ));
    }
    let source = match released {
        Some(source) => {
            pin_upstream_release(brief, &source, facts, root, version);
            source
        }
        None => {
            let source = pack_local_source(root, &brief.package, version, mirror)
                .map_err(PrepareError::Pack)?;
            pin_local_source(brief, &source);
            source
        }
    };
    Ok(source)
}

/// What `packsmith repair` decided: the recipe's package, Spack and the
/// command line's choices.
pub struct RepairInputs<'a> {
    pub package: &'a str,
    pub setup: SpackSetup,
    pub target: TargetSpack,
    pub names: &'a dyn SpackNames,
    pub out: &'a Path,
    pub replace: bool,
    pub no_sandbox: bool,
    /// The version to install, and a local tree of it when the recipe's
    /// archive cannot be fetched.
    pub version: Option<&'a str>,
    pub source: Option<RepairSource<'a>>,
    /// The facts of that tree, when it could be analyzed: the brief then
    /// knows the project's options (its test switches) as `packsmith
    /// spack`'s does, for the rules.
    pub facts: Option<&'a RepoFacts>,
}

/// A local tree standing in for the archive a recipe fetches.
pub struct RepairSource<'a> {
    pub tree: &'a Path,
    /// The recipe's text, whose URL for the version names the archive's kind.
    pub recipe: &'a str,
}

/// A repair run ready for the loop: the brief's name, target and version,
/// the run directory, the sandbox, and the run's mirror when a local tree
/// stands in for the recipe's archive (otherwise the recipe fetches its
/// own).
pub struct PreparedRepair {
    pub brief: SpackBrief,
    pub run_dir: PathBuf,
    pub setup: SpackSetup,
    pub sandbox: Sandbox,
    pub source: Option<LocalSource>,
}

/// Claims the run directory of a repair and sets up the sandbox.
pub fn prepare_repair(inputs: RepairInputs<'_>) -> Result<PreparedRepair, PrepareError> {
    let overrides = BriefOverrides {
        name: Some(inputs.package.to_string()),
        version: inputs.version.map(str::to_string),
    };
    let empty = RepoFacts::empty(packsmith_core::SourceInfo {
        kind: "recipe".into(),
        given: inputs.package.to_string(),
        release_tag: None,
    });
    let facts = inputs.facts.unwrap_or(&empty);
    let brief = build_brief_with(facts, inputs.target, inputs.names, &overrides);
    let run_dir = claim_run_dir(inputs.out, &brief.package, inputs.replace)?;
    let mut setup = inputs.setup;
    setup.scratch = run_dir.clone();
    let source = match (inputs.source, inputs.version) {
        (Some(src), Some(version)) => Some(pack_for_recipe(
            &src,
            &brief.package,
            version,
            &run_dir.join("mirror"),
        )?),
        (Some(src), None) => {
            return Err(PrepareError::NoVersion {
                root: src.tree.to_path_buf(),
            })
        }
        (None, _) => None,
    };
    let sandbox = spack_sandbox(&setup, &run_dir, inputs.no_sandbox)?;
    Ok(PreparedRepair {
        brief,
        run_dir,
        setup,
        sandbox,
        source,
    })
}

/// Packs the tree as the archive the recipe fetches for `version`.
fn pack_for_recipe(
    src: &RepairSource<'_>,
    package: &str,
    version: &str,
    mirror: &Path,
) -> Result<LocalSource, PrepareError> {
    let ext = recipe_archive_extension(src.recipe, version).map_err(PrepareError::Pack)?;
    pack_as_archive(src.tree, package, version, mirror, ext).map_err(PrepareError::Pack)
}

/// `<out>/<package>/`, claimed and absolute: the mirror URL and Spack's
/// scratch paths are written into files that other processes read.
fn claim_run_dir(out: &Path, package: &str, replace: bool) -> Result<PathBuf, PrepareError> {
    let claimed = RunDir::claim(out, package, replace)?;
    std::fs::canonicalize(&claimed).map_err(|e| {
        PrepareError::RunDir(AgentError::Io {
            path: claimed.clone(),
            source: e,
        })
    })
}

/// The forge release of `version`, when the project is on GitHub and a tag
/// names that version.
fn upstream_release(facts: &RepoFacts, version: &str) -> Option<UpstreamRelease> {
    let remote = facts.versions.remote.as_deref()?;
    let tag = facts
        .versions
        .recent_tags
        .iter()
        .find(|t| t.version == version)?;
    UpstreamRelease::github(remote, &tag.tag)
}

/// How many earlier releases the recipe lists beside the packaged one.
const OLDER_RELEASES: usize = 4;

/// The checkout reproduced the forge's own archive: the recipe fetches it
/// from the forge (the run installs it from the mirror, same checksum),
/// with the forge's git URL and page, and the earlier tags' releases with
/// their checksums as further versions.
fn pin_upstream_release(
    brief: &mut SpackBrief,
    source: &LocalSource,
    facts: &RepoFacts,
    root: &Path,
    version: &str,
) {
    brief.fetch.url = Some(source.url.clone());
    brief.fetch.sha256 = Some(source.sha256.clone());
    let repo = facts
        .versions
        .remote
        .as_deref()
        .and_then(packsmith_core::forge::ForgeRepo::parse_remote);
    if let Some(repo) = repo {
        brief.fetch.git = Some(format!("{}.git", repo.web_url()));
        brief.homepage.get_or_insert_with(|| repo.web_url());
    }
    let remote = facts.versions.remote.as_deref().unwrap_or_default();
    brief.fetch.older = facts
        .versions
        .recent_tags
        .iter()
        .skip_while(|t| t.version != version)
        .skip(1)
        // Releases only: `1.0rc1`, `2.0-beta` are not offered as versions.
        .filter(|t| !t.version.chars().any(|c| c.is_ascii_alphabetic()))
        .take(OLDER_RELEASES)
        .filter_map(|t| {
            let release = UpstreamRelease::github(remote, &t.tag)?;
            let sha256 = upstream_release_sha256(root, &release).ok()?;
            Some(ReleaseChecksum {
                version: t.version.clone(),
                sha256,
            })
        })
        .collect();
}

/// Where a recipe fetches with git: the forge's repository and the tag
/// and commit of the version.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GitSource {
    url: String,
    tag: Option<String>,
    commit: Option<String>,
}

/// The checkout's git source of `version`: a forge remote (or any
/// network URL) and the tag that names the version, else the commit the
/// checkout is at. None when either is unknown (a tarball, a tree with no
/// remote).
fn git_source(facts: &RepoFacts, version: &str) -> Option<GitSource> {
    let v = &facts.versions;
    let remote = v.remote.as_deref()?;
    let url = match packsmith_core::forge::ForgeRepo::parse_remote(remote) {
        Some(repo) => format!("{}.git", repo.web_url()),
        None if remote.contains("://") && !remote.starts_with("file:") => remote.to_string(),
        None => return None,
    };
    let tagged = v.recent_tags.iter().find(|t| t.version == version);
    let (tag, commit) = match tagged {
        Some(t) => (Some(t.tag.clone()), t.commit.clone()),
        None => (None, Some(v.commit.clone()?)),
    };
    Some(GitSource { url, tag, commit })
}

/// The recipe fetches the version with git and its submodules; no archive
/// URL or checksum (Spack checks a git version by its commit).
fn pin_git_source(brief: &mut SpackBrief, git: GitSource) {
    if let Some(repo) = packsmith_core::forge::ForgeRepo::parse_remote(&git.url) {
        brief.homepage.get_or_insert_with(|| repo.web_url());
    }
    brief.fetch.url = None;
    brief.fetch.sha256 = None;
    brief.fetch.git = Some(git.url);
    brief.fetch.tag = git.tag;
    brief.fetch.commit = git.commit;
    brief.fetch.older.clear();
}

/// What the user is told about a git source with submodules.
fn submodule_note(facts: &RepoFacts, git: &GitSource) -> String {
    let at = git
        .tag
        .as_deref()
        .or(git.commit.as_deref())
        .unwrap_or_default();
    let names: Vec<String> = facts
        .downloads
        .iter()
        .filter(|d| d.is_required_submodule())
        .map(|d| format!("`{}`", d.name))
        .collect();
    format!(
        "the build needs git submodule(s) {} that release archives lack: the recipe fetches \
         {} at {at} with submodules=True; the run installs this tree as checked out",
        names.join(", "),
        git.url
    )
}

/// The packed tarball is what the draft fetches: its `file://` URL and
/// checksum replace any upstream URL and git source.
fn pin_local_source(brief: &mut SpackBrief, source: &LocalSource) {
    brief.fetch.url = Some(source.url.clone());
    brief.fetch.sha256 = Some(source.sha256.clone());
    brief.fetch.git = None;
}

/// bubblewrap around every stage, writable only where Spack and the run
/// write; `no_sandbox` runs without it. `Sandbox::new` probes it.
pub fn spack_sandbox(
    setup: &SpackSetup,
    run_dir: &Path,
    no_sandbox: bool,
) -> Result<Sandbox, PrepareError> {
    let paths = setup.probe_paths().map_err(PrepareError::Spack)?;
    let mut writable = paths.writable();
    writable.push(run_dir.to_path_buf());
    let policy = SandboxPolicy::for_spack(
        writable,
        setup.read_only_roots(),
        run_dir.join("sandbox-home"),
    );
    Sandbox::new(policy, no_sandbox).map_err(PrepareError::Sandbox)
}
