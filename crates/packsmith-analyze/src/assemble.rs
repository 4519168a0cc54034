//! Runs every reader over a repository and merges their findings into
//! [`RepoFacts`]: check the input, walk and detect, read, then merge name,
//! versions, licence, homepage and description by precedence.

use crate::context::Ctx;
use crate::error::AnalyzeError;
use crate::view::RepoView;
use crate::{
    autotools, cargo, cmake, detect, gi, golang, includes, layout, lazarus, license, makefile,
    meson, npm, python, readme,
};
use crate::{cli, sources, tree, versions};
use packsmith_core::{
    AutotoolsFacts, BuildSystemFact, BuildSystemKind, CargoFacts, CmakeFacts, CmakeProject,
    Evidence, GoFacts, MesonFacts, NpmFacts, PythonFacts, RepoFacts, SourceInfo, Sourced,
    VersionFacts, FACTS_SCHEMA_VERSION,
};
use std::path::Path;

/// Analyses the repository checked out at `root`. The tree is only read.
pub fn analyze_dir(root: &Path, source: SourceInfo) -> Result<RepoFacts, AnalyzeError> {
    analyze_dir_for(root, source, None)
}

/// [`analyze_dir`] for the package `wanted` (`py-langchain-protocol`): in a
/// repository of several Python projects, the one that declares that name
/// is analysed, and `build_root` says where it sits.
pub fn analyze_dir_for(
    root: &Path,
    source: SourceInfo,
    wanted: Option<&str>,
) -> Result<RepoFacts, AnalyzeError> {
    require_directory(root)?;
    // git runs on its own thread while the tree is walked.
    let git_probe = versions::probe_git(root);
    let mut walk_warnings = Vec::new();
    let view = RepoView::walk(root, &mut walk_warnings);
    let Some(dir) = wanted.and_then(|w| python::named_subproject(&view, w)) else {
        return analyze_view(root, &view, source, git_probe, walk_warnings, wanted);
    };
    let project_root = root.join(&dir);
    let project = RepoView::walk(&project_root, &mut walk_warnings);
    let mut facts = analyze_view(
        &project_root,
        &project,
        source,
        git_probe,
        walk_warnings,
        wanted,
    )?;
    let manifest = facts
        .python
        .as_ref()
        .and_then(|p| p.files.first())
        .map_or_else(|| dir.clone(), |f| format!("{dir}/{f}"));
    facts.build_root = Some(Sourced::new(dir.clone(), Evidence::file(manifest)));
    if let Some(python) = facts.python.as_mut() {
        python.subdir = Some(dir.clone());
        python.chosen_by_name = true;
        python.files_from_top = python::files_from_top(&view, &dir);
    }
    // The licence file is often the repository's alone.
    let unknown = |l: &Option<packsmith_core::LicenseFact>| {
        l.as_ref()
            .is_none_or(|l| l.spdx == packsmith_core::LicenseFact::UNKNOWN)
    };
    if unknown(&facts.license) {
        let top = license::detect(&mut Ctx::new(&view), None);
        if !unknown(&top) || facts.license.is_none() {
            facts.license = top;
        }
    }
    facts.warnings.push(packsmith_core::AnalysisWarning::new(
        &dir,
        0,
        format!("read the Python project in {dir}/, which declares the package asked for"),
    ));
    Ok(facts)
}

/// Which build is the package's: the top's Python project when a `py-`
/// name asks for the project it declares; else the usual precedence, less
/// a build that is no build of its own (a CMake part that refuses the top
/// level, a Makefile of chores beside a Python project).
fn choose_primary(
    view: &RepoView,
    readers: &Readers,
    systems: &mut Vec<BuildSystemFact>,
    wanted: Option<&str>,
) -> Option<BuildSystemKind> {
    if let Some(w) = wanted.filter(|w| python::top_declares(view, w)) {
        let why = format!("the top's Python project declares the package asked for ({w})");
        if let Some(kind) = detect::choose_asked_for(systems, BuildSystemKind::Python, &why) {
            return Some(kind);
        }
    }
    if let Some(kind) = wanted.and_then(|w| native_asked_for(readers, systems, w)) {
        return Some(kind);
    }
    let python_backend = readers
        .python
        .as_ref()
        .and_then(|p| p.build_backend.as_deref());
    let native_files = readers.cmake.as_ref().map_or(0, |c| c.files.len());
    let no_build = match readers
        .cmake
        .as_ref()
        .and_then(|c| c.refuses_top_level.as_ref())
    {
        Some(at) => Some((
            BuildSystemKind::Cmake,
            format!(
                "{}:{} refuses to be the top-level project (a part for other CMake builds)",
                at.file, at.line
            ),
        )),
        None => chores_makefile(view, systems).map(|file| {
            let why = format!("{file} only runs chores (no install rule, nothing compiled)");
            (BuildSystemKind::Makefile, why)
        }),
    };
    match no_build {
        Some((part, why)) => {
            detect::choose_primary_except(systems, part, &why, python_backend, native_files)
        }
        None => detect::choose_primary(systems, python_backend, native_files),
    }
}

/// Python build requirements that build a native project the Python
/// package only wraps (`cmake-build-extension` runs `rosco/controller`'s
/// CMake).
const NATIVE_DRIVERS: &[&str] = &[
    "cmake",
    "cmake-build-extension",
    "scikit-build",
    "scikit-build-core",
    "meson",
    "meson-python",
    "py-build-cmake",
];

/// The native build below the top when the package asked for is no Python
/// package's (`rosco`, not `py-rosco`: Spack names Python packages `py-`)
/// and the top's Python project only drives that build: Spack's recipe is
/// the library's. None when a native build sits at the top (the usual
/// precedence decides) or the Python build drives none.
fn native_asked_for(
    readers: &Readers,
    systems: &mut [BuildSystemFact],
    wanted: &str,
) -> Option<BuildSystemKind> {
    if packsmith_core::package_names::is_language_package(wanted) {
        return None;
    }
    let python = readers.python.as_ref()?;
    let drives_native = python
        .build_requires
        .iter()
        .any(|r| NATIVE_DRIVERS.contains(&r.name.as_str()));
    let python_at_top = systems
        .iter()
        .any(|s| s.kind == BuildSystemKind::Python && s.depth == 0);
    let native = |k: BuildSystemKind| {
        matches!(
            k,
            BuildSystemKind::Cmake | BuildSystemKind::Meson | BuildSystemKind::Autotools
        )
    };
    if !drives_native || !python_at_top || systems.iter().any(|s| native(s.kind) && s.depth == 0) {
        return None;
    }
    let kind = systems
        .iter()
        .filter(|s| native(s.kind) && s.reads_outside_tree.is_none())
        .min_by_key(|s| s.depth)?
        .kind;
    let why = format!(
        "`{wanted}` is no Python package's name and the top's Python project only drives this build"
    );
    detect::choose_asked_for_at_any_depth(systems, kind, &why)
}

/// The top-level Makefile, when a Python project sits beside it and the
/// Makefile only runs chores.
fn chores_makefile(view: &RepoView, systems: &[BuildSystemFact]) -> Option<String> {
    if !systems.iter().any(|s| s.kind == BuildSystemKind::Python) {
        return None;
    }
    let file = &systems
        .iter()
        .find(|s| s.kind == BuildSystemKind::Makefile && s.depth == 0)?
        .evidence
        .file;
    let text = view.read_text(file, &mut Vec::new())?;
    makefile::is_task_runner(&text.text).then(|| file.clone())
}

/// Everything after the walk, for the tree `view` of `root` and the
/// package `wanted`.
fn analyze_view(
    root: &Path,
    view: &RepoView,
    source: SourceInfo,
    git_probe: std::thread::JoinHandle<versions::GitProbe>,
    mut walk_warnings: Vec<packsmith_core::AnalysisWarning>,
    wanted: Option<&str>,
) -> Result<RepoFacts, AnalyzeError> {
    let mut build_systems = detect::detect(view);
    if build_systems.is_empty() && !lazarus::has_project(view) {
        return Err(AnalyzeError::NoProject {
            path: root.to_path_buf(),
        });
    }
    let mut ctx = Ctx::new(view);
    ctx.warnings.append(&mut walk_warnings);

    let readers = Readers::run(&mut ctx, &build_systems);
    let primary = choose_primary(view, &readers, &mut build_systems, wanted);
    let name = readers
        .declared_name()
        .or_else(|| directory_name(root, &source));
    let probe = git_probe.join().unwrap_or_default();
    let mut versions = git_versions(probe, name.as_ref(), &source);
    versions.declared = readers.declared_version();
    let license = license::detect(&mut ctx, readers.license_metadata());
    let homepage = readers.homepage(versions.remote.as_deref());
    let description = readme::description(&mut ctx, readers.description());

    let tree = tree::render(view, tree::DEFAULT_BUDGET);
    let mut languages = std::mem::take(&mut ctx.languages);
    dedup_in_place(&mut languages);
    let mut features = std::mem::take(&mut ctx.features);
    dedup_in_place(&mut features);
    let install_rules =
        layout::install_rules(&mut ctx, &build_systems, primary, readers.cmake.as_ref());
    let build_root = layout::build_root(&build_systems, primary);
    let make = makefile::analyze(&mut ctx, &build_systems, primary);
    let gi_requires = gi::analyze(&ctx);
    // A plain Makefile states little; its sources say what they use.
    let includes = if primary == Some(BuildSystemKind::Makefile) {
        includes::scan_includes(&mut ctx)
    } else {
        Vec::new()
    };
    // Only a build that looks for HDF5 is searched for its parallel driver.
    let hdf5_mpi_io = uses_hdf5(readers.cmake.as_ref())
        .then(|| includes::scan_hdf5_mpi_io(&mut ctx))
        .flatten();
    let lazarus = primary.is_none().then(|| lazarus::analyze(&ctx)).flatten();
    // Only a project that builds programs is searched for the flag.
    let version_flag = if readers.builds_programs(primary) || lazarus.is_some() {
        cli::version_flag(&mut ctx)
    } else {
        None
    };
    let mut downloads = std::mem::take(&mut ctx.downloads);
    layout::required_submodules(&ctx, &mut downloads, readers.cmake.as_ref());
    dedup_in_place(&mut downloads);

    Ok(RepoFacts {
        schema_version: FACTS_SCHEMA_VERSION,
        source,
        name,
        build_systems,
        primary_build_system: primary,
        cmake: readers.cmake,
        autotools: readers.autotools,
        meson: readers.meson,
        python: readers.python,
        cargo: readers.cargo,
        go: readers.go,
        npm: readers.npm,
        make,
        gi_requires,
        includes,
        hdf5_mpi_io,
        lazarus,
        version_flag,
        languages,
        features,
        downloads,
        install_rules,
        build_root,
        versions,
        license,
        homepage,
        description,
        tree,
        warnings: ctx.warnings,
    })
}

/// The input must be an existing directory.
fn require_directory(root: &Path) -> Result<(), AnalyzeError> {
    let meta = std::fs::metadata(root).map_err(|_| AnalyzeError::NotFound {
        path: root.to_path_buf(),
    })?;
    if !meta.is_dir() {
        return Err(AnalyzeError::NotADirectory {
            path: root.to_path_buf(),
        });
    }
    Ok(())
}

/// The name when no build file declares one: the directory's, or for a
/// cloned URL the repository's (the clone's directory is a cache key).
fn directory_name(root: &Path, source: &SourceInfo) -> Option<Sourced<String>> {
    let dir = root
        .canonicalize()
        .ok()?
        .file_name()?
        .to_string_lossy()
        .into_owned();
    let dir = if source.kind == "git" {
        url_name(&source.given).unwrap_or(dir)
    } else {
        dir
    };
    Some(Sourced::new(dir, Evidence::file(".")))
}

/// Versions from git tags; for a URL cloned without a remote of its own,
/// the URL the user gave is the remote.
fn git_versions(
    probe: versions::GitProbe,
    name: Option<&Sourced<String>>,
    source: &SourceInfo,
) -> VersionFacts {
    let mut versions = versions::from_git(probe, name.map(|n| n.value.as_str()));
    if versions.remote.is_none() && source.kind == "git" {
        versions.remote = Some(source.given.clone());
        if let Some(tag) = &versions.latest_tag {
            versions.archive_url = versions::archive_url(&source.given, &tag.tag);
        }
    }
    versions
}

/// The first candidate that is a declared value a recipe can use: not
/// empty, and not still holding a `${VAR}` the build computes.
fn first_declared(candidates: Vec<Option<Sourced<String>>>) -> Option<Sourced<String>> {
    candidates
        .into_iter()
        .flatten()
        .find(|s| !s.value.trim().is_empty() && !s.value.contains("${"))
}

/// What each build system's reader found; the candidates for each merged
/// fact are listed in order of precedence.
struct Readers {
    cmake: Option<CmakeFacts>,
    autotools: Option<AutotoolsFacts>,
    meson: Option<MesonFacts>,
    python: Option<PythonFacts>,
    cargo: Option<CargoFacts>,
    go: Option<GoFacts>,
    npm: Option<NpmFacts>,
}

impl Readers {
    /// Whether the build makes programs: a CMake executable, a Cargo,
    /// Go or npm binary, a Python script, or a Makefile, Autotools or
    /// Meson build (whose programs the readers do not list).
    fn builds_programs(&self, primary: Option<BuildSystemKind>) -> bool {
        self.cmake.as_ref().is_some_and(|c| {
            c.targets
                .iter()
                .any(|t| t.kind == packsmith_core::CmakeTargetKind::Executable)
        }) || self.cargo.as_ref().is_some_and(|c| !c.binaries.is_empty())
            || self.go.as_ref().is_some_and(|g| !g.binaries.is_empty())
            || self.npm.as_ref().is_some_and(|n| !n.binaries.is_empty())
            || self.python.as_ref().is_some_and(|p| !p.scripts.is_empty())
            || matches!(
                primary,
                Some(
                    BuildSystemKind::Makefile | BuildSystemKind::Autotools | BuildSystemKind::Meson
                )
            )
    }

    /// Runs every reader, then the source-language and submodule scans.
    fn run(ctx: &mut Ctx<'_>, systems: &[BuildSystemFact]) -> Readers {
        let readers = Readers {
            cmake: cmake::analyze_with(ctx, systems),
            autotools: autotools::analyze(ctx, systems),
            meson: meson::analyze(ctx),
            python: python::analyze(ctx),
            cargo: cargo::analyze(ctx),
            go: golang::analyze(ctx),
            npm: npm::analyze(ctx),
        };
        sources::scan_sources(ctx);
        sources::scan_submodules(ctx);
        readers
    }

    fn declared_name(&self) -> Option<Sourced<String>> {
        let (cmake, autotools, meson, python) =
            (&self.cmake, &self.autotools, &self.meson, &self.python);
        let (cargo, go, npm) = (&self.cargo, &self.go, &self.npm);
        first_declared(vec![
            cmake
                .as_ref()
                .and_then(|c| c.project.as_ref())
                .map(|p| Sourced::new(p.name.clone(), p.evidence.clone())),
            meson
                .as_ref()
                .and_then(|m| sourced(&m.project, m.project_evidence.as_ref())),
            autotools
                .as_ref()
                .and_then(|a| sourced(&a.package, a.init_evidence.as_ref())),
            python
                .as_ref()
                .and_then(|p| sourced_at(&p.name, p.name_evidence.as_ref(), p.files.first())),
            cargo
                .as_ref()
                .and_then(|c| sourced_at(&c.name, c.name_evidence.as_ref(), c.files.first())),
            npm.as_ref()
                .and_then(|n| sourced_at(&n.name, n.name_evidence.as_ref(), Some(&n.file))),
            go.as_ref().and_then(|g| {
                let last = g.module.as_ref()?.rsplit('/').next()?.to_string();
                let evidence = g
                    .module_evidence
                    .clone()
                    .unwrap_or_else(|| Evidence::file(g.file.clone()));
                Some(Sourced::new(last, evidence))
            }),
        ])
    }

    fn declared_version(&self) -> Option<Sourced<String>> {
        let Readers {
            cmake,
            autotools,
            meson,
            python,
            cargo,
            npm,
            ..
        } = self;
        first_declared(vec![
            cmake
                .as_ref()
                .and_then(|c| c.project.as_ref())
                .and_then(|p| {
                    p.version
                        .clone()
                        .map(|v| Sourced::new(v, p.evidence.clone()))
                }),
            meson
                .as_ref()
                .and_then(|m| sourced(&m.version, m.project_evidence.as_ref())),
            autotools
                .as_ref()
                .and_then(|a| sourced(&a.version, a.init_evidence.as_ref())),
            python
                .as_ref()
                .and_then(|p| sourced_at(&p.version, p.version_evidence.as_ref(), p.files.first())),
            cargo
                .as_ref()
                .and_then(|c| sourced_file(&c.version, c.files.first())),
            npm.as_ref()
                .and_then(|n| sourced_file(&n.version, Some(&n.file))),
        ])
    }

    /// The licence a metadata file declares, with that file.
    fn license_metadata(&self) -> Option<(String, String)> {
        let Readers {
            meson,
            python,
            cargo,
            npm,
            ..
        } = self;
        [
            meson
                .as_ref()
                .and_then(|m| Some((m.license.clone()?, m.files.first()?.clone()))),
            python
                .as_ref()
                .and_then(|p| Some((p.license.clone()?, p.files.first()?.clone()))),
            cargo
                .as_ref()
                .and_then(|c| Some((c.license.clone()?, c.files.first()?.clone()))),
            npm.as_ref()
                .and_then(|n| Some((n.license.clone()?, n.file.clone()))),
        ]
        .into_iter()
        .flatten()
        .next()
    }

    /// A declared homepage, else the git remote's web page.
    fn homepage(&self, remote: Option<&str>) -> Option<Sourced<String>> {
        let mut candidates = self.metadata_field(
            |p| &p.homepage_url,
            |p| &p.homepage,
            |c| &c.homepage,
            |n| &n.homepage,
        );
        candidates.push(
            self.autotools
                .as_ref()
                .and_then(|a| sourced(&a.url, a.init_evidence.as_ref())),
        );
        candidates.push(
            remote
                .and_then(versions::web_url)
                .map(|u| Sourced::new(u, Evidence::file(".git/config"))),
        );
        first_declared(candidates)
    }

    /// A declared description (used when the README's opening describes
    /// nothing).
    fn description(&self) -> Option<Sourced<String>> {
        first_declared(self.metadata_field(
            |p| &p.description,
            |p| &p.description,
            |c| &c.description,
            |n| &n.description,
        ))
    }

    /// One metadata field as CMake's `project()`, the Python metadata,
    /// Cargo.toml and package.json declare it, in that order.
    fn metadata_field(
        &self,
        cmake: impl Fn(&CmakeProject) -> &Option<String>,
        python: impl Fn(&PythonFacts) -> &Option<String>,
        cargo: impl Fn(&CargoFacts) -> &Option<String>,
        npm: impl Fn(&NpmFacts) -> &Option<String>,
    ) -> Vec<Option<Sourced<String>>> {
        vec![
            self.cmake
                .as_ref()
                .and_then(|c| c.project.as_ref())
                .and_then(|p| sourced(cmake(p), Some(&p.evidence))),
            self.python
                .as_ref()
                .and_then(|p| sourced_file(python(p), p.files.first())),
            self.cargo
                .as_ref()
                .and_then(|c| sourced_file(cargo(c), c.files.first())),
            self.npm
                .as_ref()
                .and_then(|n| sourced_file(npm(n), Some(&n.file))),
        ]
    }
}

fn sourced(value: &Option<String>, evidence: Option<&Evidence>) -> Option<Sourced<String>> {
    Some(Sourced::new(value.clone()?, evidence?.clone()))
}

/// A value with its line evidence when the reader has one, else the file.
fn sourced_at(
    value: &Option<String>,
    evidence: Option<&Evidence>,
    file: Option<&String>,
) -> Option<Sourced<String>> {
    match evidence {
        Some(e) => Some(Sourced::new(value.clone()?, e.clone())),
        None => sourced_file(value, file),
    }
}

fn sourced_file(value: &Option<String>, file: Option<&String>) -> Option<Sourced<String>> {
    Some(Sourced::new(value.clone()?, Evidence::file(file?.clone())))
}

fn url_name(url: &str) -> Option<String> {
    let last = url
        .trim_end_matches('/')
        .trim_end_matches(".git")
        .rsplit(['/', ':'])
        .next()?;
    (!last.is_empty()).then(|| last.to_string())
}

/// Removes exact repeats, keeping the first of each.
fn dedup_in_place<T: PartialEq + Clone>(items: &mut Vec<T>) {
    let mut kept: Vec<T> = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        if !kept.contains(&item) {
            kept.push(item);
        }
    }
    *items = kept;
}

/// Whether the CMake build looks for HDF5.
fn uses_hdf5(cmake: Option<&packsmith_core::CmakeFacts>) -> bool {
    cmake.is_some_and(|c| {
        c.find_packages
            .iter()
            .any(|f| f.name.eq_ignore_ascii_case("hdf5"))
    })
}
