//! The deterministic Spack brief: everything a recipe needs, derived from
//! `RepoFacts` by rules, at zero token cost. It replaces SpackIt's
//! model-written "distillation" and is what the first draft is rendered
//! from.

mod conditions;
mod downloads;
mod gpu;
mod install;
mod library_kind;
mod makefile;
mod names;
mod option_roles;
mod option_words;
mod own_name;
mod platform;
pub(crate) mod python_floors;
mod render;
mod virtuals;

pub use conditions::{ConditionMap, When};
pub use install::InstallPlan;
pub use names::{
    class_name, package_name, positive_variant_name, positive_variant_name_in, variant_name,
    variant_name_in, OptionPrefixes,
};
pub use option_words::is_extras_or_test_variant;
pub use render::{render_brief, render_raw_facts};

use option_roles::OptionRole;
use packsmith_core::headers::library_of_header;
use packsmith_core::{BuildSystemKind, Evidence, FeatureKind, Language, LicenseFact, RepoFacts};
use packsmith_spack_knowledge::base_classes::class_for_kind;
use packsmith_spack_knowledge::mapping::{map_name, Known, MappingKind, NameSource, SpackNames};
use packsmith_spack_knowledge::target::TargetSpack;
use platform::other_platform;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A variant's default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum VariantDefault {
    Bool(bool),
    Str(String),
}

/// A candidate `variant(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BriefVariant {
    pub name: String,
    pub default: VariantDefault,
    /// Allowed values for a multi-valued variant (empty for booleans).
    pub values: Vec<String>,
    pub description: String,
    /// A `when=` spec, for options offered only under a condition.
    pub when: Option<String>,
    /// The upstream option it drives (`define_from_variant(option, name)`).
    pub option: String,
    /// True when a base class already declares this variant (`+cuda`).
    pub inherited: bool,
    pub evidence: Evidence,
}

/// A candidate `depends_on(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BriefDependency {
    /// The spec to depend on (`hdf5@1.10:`, `mpi`).
    pub spec: String,
    pub when: Option<String>,
    /// Dependency types; empty means Spack's default (build and link).
    pub types: Vec<String>,
    /// The upstream name and how it was mapped.
    pub upstream: String,
    pub confidence: f32,
    pub why: String,
    pub evidence: Evidence,
}

/// Something found upstream that the brief could not turn into a directive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BriefNote {
    pub message: String,
    pub evidence: Option<Evidence>,
}

/// Where the source comes from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FetchPlan {
    pub version: Option<String>,
    /// Release archive (`url = ...` and `version(v, sha256=...)`).
    pub url: Option<String>,
    /// Filled by the caller that downloaded or packed the archive.
    pub sha256: Option<String>,
    /// Git repository (`git = ...`), with the tag or commit to use.
    pub git: Option<String>,
    pub tag: Option<String>,
    pub commit: Option<String>,
    /// The build needs a submodule no Spack package stands in for: fetch
    /// with git and `submodules=True`.
    pub submodules: bool,
    /// Earlier releases with their archive checksums, newest first (as
    /// `spack checksum` lists them); filled by the caller that made them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub older: Vec<ReleaseChecksum>,
}

/// One release archive's checksum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseChecksum {
    pub version: String,
    pub sha256: String,
}

/// The brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpackBrief {
    pub target: TargetSpack,
    pub package: String,
    pub class_name: String,
    pub build_system: Option<BuildSystemKind>,
    pub base_classes: Vec<String>,
    pub description: Option<String>,
    pub homepage: Option<String>,
    pub license: Option<String>,
    /// The licence file whose text matched no known licence: the draft asks
    /// for the SPDX id where `license(...)` would go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecognised_license: Option<String>,
    pub fetch: FetchPlan,
    pub variants: Vec<BriefVariant>,
    pub dependencies: Vec<BriefDependency>,
    /// Found upstream but optional and not behind any option: left out of
    /// the first draft, listed so the model or user can add them.
    pub optional_dependencies: Vec<BriefDependency>,
    /// `c`, `cxx`, `fortran` for Spack generations with language virtuals.
    pub language_virtuals: Vec<String>,
    /// `cmake@3.18:` from `cmake_minimum_required`.
    pub cmake_constraint: Option<String>,
    /// `(CMake key, variant)`; a `None` variant means a fixed value in `value`.
    pub defines: Vec<BriefDefine>,
    pub notes: Vec<BriefNote>,
    /// `root_cmakelists_dir` when the top CMakeLists.txt is below the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_cmakelists_dir: Option<String>,
    /// CMake files whose `install()` writes under `$ENV{HOME}`: the
    /// recipe's `patch()` points them at the prefix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub home_install_files: Vec<String>,
    /// Files the Python metadata in `build_directory` names that only the
    /// top of the source has: `patch()` copies them in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_into_build_directory: Vec<String>,
    /// `configure_directory` of an Autotools build below the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configure_directory: Option<String>,
    /// `build_directory` of a Makefile build whose Makefile is below the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_directory: Option<String>,
    /// `build_targets` of a Makefile build whose plain `make` builds none
    /// of its programs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_targets: Vec<String>,
    /// Compiler variables configure must get MPI's wrappers in (`CC`,
    /// `CXX`, `FC`, `F77`): the project asks for `AC_PROG_CC([mpicc])`,
    /// which Spack's own `CC` would otherwise override.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mpi_wrappers: Vec<String>,
    /// `configure.ac.in`: the template Spack's autoreconf phase copies to
    /// `configure.ac` before running autoreconf.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configure_template: Option<String>,
    /// The shipped `configure` lacks its executable bit: a step before the
    /// configure phase sets it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub configure_made_executable: bool,
    /// Installation directories configure.ac would point at the system
    /// (`sysconfdir`, `localstatedir`): configure_args keeps them in the
    /// prefix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prefix_dirs: Vec<String>,
    /// A Makefile shipped under another name (`src-mpi/Makefile.vanilla`):
    /// `patch()` copies it to `Makefile` beside it, as its README says to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub makefile_template: Option<String>,
    /// The Makefile's installation-prefix variable (`prefix`, `PREFIX`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub make_prefix_variable: Option<String>,
    /// That variable names the programs' directory (`prefix.bin`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub make_prefix_is_bin: bool,
    /// The recipe's own `install()`, for a build without install rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<InstallPlan>,
    /// Things the draft must show a maintainer as `# FIXME` comments
    /// (an option the brief could not turn into a variant).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixmes: Vec<String>,
    /// Environment variables that tell a git-versioned Python build its
    /// version (`SETUPTOOLS_SCM_PRETEND_VERSION`): the source has no `.git`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scm_version_env: Vec<String>,
    /// Dependencies found upstream that no rule could name in Spack: left
    /// out of the draft, kept so a repair can pick a package for them
    /// from the knowledge base's candidates (`packsmith kb pick`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<UnresolvedLookup>,
}

/// An upstream dependency lookup no Spack name was found for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnresolvedLookup {
    /// As upstream wrote it (`TurboJpeg`, `libdw >= 0.154`).
    pub upstream: String,
    /// What looked for it.
    pub source: NameSource,
    /// The lookup fails the build without it (not behind an option).
    pub required: bool,
    pub evidence: Evidence,
}

/// One CMake define the recipe should pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BriefDefine {
    pub key: String,
    pub variant: Option<String>,
    /// Python expression for a fixed value (`self.run_tests`, `False`).
    pub value: Option<String>,
}

fn parse_bool(value: Option<&str>) -> Option<bool> {
    match value.map(|v| v.trim().to_ascii_uppercase()).as_deref() {
        None => Some(false),
        Some("ON" | "TRUE" | "YES" | "Y" | "1") => Some(true),
        Some("OFF" | "FALSE" | "NO" | "N" | "0" | "") => Some(false),
        _ => None,
    }
}

/// What the user fixed on the command line (`--name`, `--version`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BriefOverrides {
    /// The Spack package name (the class name follows it).
    pub name: Option<String>,
    /// The version to package.
    pub version: Option<String>,
}

impl BriefOverrides {
    fn apply(&self, brief: &mut SpackBrief) {
        if let Some(name) = &self.name {
            brief.package = name.clone();
            brief.class_name = class_name(name);
        }
        if let Some(version) = &self.version {
            brief.fetch.version = Some(version.clone());
        }
    }
}

/// Builds the brief for `target` from the facts, confirming names against
/// `kb` (pass `&NoKnowledge` when no knowledge base is indexed).
pub fn build_brief(facts: &RepoFacts, target: TargetSpack, kb: &dyn SpackNames) -> SpackBrief {
    build_brief_with(facts, target, kb, &BriefOverrides::default())
}

/// [`build_brief`] with the user's overrides applied to the metadata first,
/// so everything derived afterwards sees the package as the user named it.
pub fn build_brief_with(
    facts: &RepoFacts,
    target: TargetSpack,
    kb: &dyn SpackNames,
    overrides: &BriefOverrides,
) -> SpackBrief {
    // A CMake build that refuses to be the top-level project is a part for
    // other CMake builds, and one beside a Python build that never runs
    // CMake is another build: none of its lookups or options are this
    // package's.
    let without_part;
    let facts = match &facts.cmake {
        Some(c)
            if (c.refuses_top_level.is_some()
                && facts.primary_build_system != Some(BuildSystemKind::Cmake))
                || python_build_without_cmake(facts) =>
        {
            without_part = RepoFacts {
                cmake: None,
                ..facts.clone()
            };
            &without_part
        }
        _ => facts,
    };
    let mut brief = metadata(facts, target);
    overrides.apply(&mut brief);
    base_classes(facts, &mut brief);
    let cond_map = cmake_variants(facts, &mut brief);
    gpu::drop_test_only_bases(facts, &cond_map, &mut brief);
    cmake_dependencies(facts, kb, &cond_map, &mut brief);
    disable_optional_lookups(facts, kb, &cond_map, &mut brief);
    autotools_dependencies(facts, kb, &cond_map, &mut brief);
    autotools_bootstrap_tools(facts, &mut brief);
    makefile::makefile_dependencies(facts, kb, &cond_map, &mut brief);
    meson_dependencies(facts, kb, &cond_map, &mut brief);
    python_dependencies(facts, kb, &mut brief);
    languages(facts, &mut brief);
    downloads::apply(facts, kb, &cond_map, &mut brief);
    keep_declared_lookups(kb, &mut brief);
    install::apply(facts, &mut brief);
    virtuals::apply(kb, &mut brief);
    parallel_hdf5(facts, &mut brief);
    own_name::drop_self(facts, &mut brief);
    brief
}

/// Python build requirements that run CMake (the backends that drive it,
/// or the tool itself for a `setup.py` that calls it).
const CMAKE_DRIVERS: &[&str] = &[
    "cmake",
    "scikit-build",
    "scikit-build-core",
    "py-build-cmake",
];

/// The package is a Python build that asks for nothing that runs CMake
/// (stringzilla's `setup.py` beside the C library's CMakeLists.txt).
fn python_build_without_cmake(facts: &RepoFacts) -> bool {
    facts.primary_build_system == Some(BuildSystemKind::Python)
        && facts.python.as_ref().is_some_and(|p| {
            !p.build_requires.iter().any(|r| {
                let name = r.name.to_ascii_lowercase().replace('_', "-");
                CMAKE_DRIVERS.contains(&name.as_str())
            })
        })
}

/// Sources that call HDF5's MPI-IO driver need a parallel HDF5: the
/// dependency asks for `+mpi` (a serial one builds and then fails to
/// compile those calls).
fn parallel_hdf5(facts: &RepoFacts, brief: &mut SpackBrief) {
    let Some(call) = &facts.hdf5_mpi_io else {
        return;
    };
    let lists = [&mut brief.dependencies, &mut brief.optional_dependencies];
    let mut changed = false;
    for d in lists.into_iter().flatten() {
        if spec_package(&d.spec) == "hdf5" && !d.spec.contains("mpi") {
            d.spec.push_str("+mpi");
            changed = true;
        }
    }
    if changed {
        brief.notes.push(BriefNote {
            message: format!(
                "hdf5+mpi: the sources call HDF5's MPI-IO driver ({})",
                call.value
            ),
            evidence: Some(call.evidence.clone()),
        });
    }
}

/// A brief with the package's names, metadata and fetch plan, and nothing
/// else yet.
fn metadata(facts: &RepoFacts, target: TargetSpack) -> SpackBrief {
    let upstream_name = facts
        .name
        .as_ref()
        .map(|n| n.value.as_str())
        .unwrap_or("unnamed");
    let package = package_name(upstream_name);
    SpackBrief {
        target,
        class_name: class_name(&package),
        package,
        build_system: facts.primary_build_system,
        base_classes: Vec::new(),
        // Spack's docstrings are plain text: a README's links by their text.
        description: facts
            .description
            .as_ref()
            .map(|d| packsmith_core::markdown::plain_markdown(&d.value)),
        // The forge's page when the project names none.
        homepage: facts
            .homepage
            .as_ref()
            .map(|h| h.value.clone())
            .or_else(|| {
                let remote = facts.versions.remote.as_deref()?;
                packsmith_core::forge::ForgeRepo::parse_remote(remote).map(|r| r.web_url())
            }),
        license: facts
            .license
            .as_ref()
            .filter(|l| !l.spdx.starts_with("LicenseRef"))
            .map(|l| l.spdx.clone()),
        unrecognised_license: facts
            .license
            .as_ref()
            .filter(|l| l.spdx == LicenseFact::UNKNOWN)
            .map(|l| l.evidence.file.clone()),
        fetch: fetch_plan(facts),
        variants: Vec::new(),
        dependencies: Vec::new(),
        optional_dependencies: Vec::new(),
        language_virtuals: Vec::new(),
        cmake_constraint: None,
        defines: Vec::new(),
        notes: Vec::new(),
        root_cmakelists_dir: None,
        home_install_files: Vec::new(),
        files_into_build_directory: Vec::new(),
        build_directory: None,
        build_targets: Vec::new(),
        mpi_wrappers: Vec::new(),
        make_prefix_variable: None,
        configure_directory: None,
        make_prefix_is_bin: false,
        configure_template: None,
        configure_made_executable: false,
        prefix_dirs: Vec::new(),
        makefile_template: None,
        install: None,
        fixmes: Vec::new(),
        scm_version_env: Vec::new(),
        unresolved: Vec::new(),
    }
}

/// The build system's class, then the GPU mixins the sources use.
fn base_classes(facts: &RepoFacts, brief: &mut SpackBrief) {
    brief
        .base_classes
        .push(class_for_kind(facts.primary_build_system).to_string());
    let uses = |f: FeatureKind| facts.features.iter().any(|h| h.feature == f);
    if uses(FeatureKind::Cuda) {
        brief.base_classes.push("CudaPackage".into());
    }
    if uses(FeatureKind::Hip) {
        brief.base_classes.push("ROCmPackage".into());
    }
}

/// The CMake minimum as a `cmake@X:` constraint, then what `find_package`
/// and `pkg_check_modules` ask for.
fn cmake_dependencies(
    facts: &RepoFacts,
    kb: &dyn SpackNames,
    cond_map: &ConditionMap,
    brief: &mut SpackBrief,
) {
    if let Some(cmake) = &facts.cmake {
        if let Some(min) = &cmake.minimum_required {
            let v = min.value.split("...").next().unwrap_or(&min.value).trim();
            if !v.is_empty() {
                brief.cmake_constraint = Some(format!("cmake@{v}:"));
            }
        }
        for fp in &cmake.find_packages {
            let version = fp.version.as_deref();
            let conditions: Vec<String> = fp
                .conditions
                .iter()
                .filter(|c| !is_own_found_guard(&fp.name, c) && !is_own_target_guard(&fp.name, c))
                .cloned()
                .collect();
            add_dependency(
                brief,
                kb,
                cond_map,
                Found::lookup(fp, version, fp.required, &conditions),
            );
            if fp.required {
                continue;
            }
            // Needed where configure stops without it, or where an option
            // declared only when it is found (`if(BZIP2_FOUND)
            // option(PCRE2_SUPPORT_LIBBZ2 …)`) is on.
            let gate: Vec<String> = match cond_map.found_gates.get(&fp.name.to_ascii_uppercase()) {
                Some(option) if fp.required_when.is_empty() => vec![option.clone()],
                _ => fp.required_when.clone(),
            };
            if !gate.is_empty() {
                needed_when(fp, &conditions, &gate, kb, cond_map, brief);
            }
        }
        // A generator the build runs (bison_target) needs its tool even
        // where the find_package around it is optional.
        for g in &cmake.generators {
            let mut found =
                Found::named(&g.tool, NameSource::Cmake, true, &g.conditions, &g.evidence);
            // The lookup's components say what is run (Python's Interpreter).
            if let Some(fp) = cmake.find_packages.iter().find(|fp| fp.name == g.tool) {
                found.components = &fp.components;
            }
            add_dependency(brief, kb, cond_map, found);
        }
        if !cmake.generators.is_empty() {
            // A tool declared for its generator is no optional lookup.
            let always: Vec<String> = brief
                .dependencies
                .iter()
                .filter(|d| d.when.is_none())
                .map(|d| d.spec.clone())
                .collect();
            brief
                .optional_dependencies
                .retain(|o| !always.contains(&o.spec));
        }
        for pc in &cmake.pkg_config {
            for module in &pc.modules {
                add_dependency(
                    brief,
                    kb,
                    cond_map,
                    Found::named(
                        module,
                        NameSource::Pkgconfig,
                        pc.required,
                        &pc.conditions,
                        &pc.evidence,
                    ),
                );
            }
        }
        if let Some(first) = cmake.pkg_config.first() {
            pkg_config_tool(brief, "pkg_check_modules", &first.evidence);
        }
    }
}

/// An optional lookup that an option needs (`gate`: where configure stops
/// without it, `required_when`, or the option a found package unlocks):
/// the package is declared under that option's variant, and a lookup that
/// runs in every configuration is switched off while the variant is off,
/// so a host copy found but unused never shows in the configure output
/// and an unlocked feature is never on without its package.
fn needed_when(
    fp: &packsmith_core::CmakeFindPackage,
    conditions: &[String],
    gate: &[String],
    kb: &dyn SpackNames,
    cond_map: &ConditionMap,
    brief: &mut SpackBrief,
) {
    let mut when: Vec<String> = conditions.to_vec();
    when.extend(gate.iter().cloned());
    let version = fp.version.as_deref();
    add_dependency(brief, kb, cond_map, Found::lookup(fp, version, true, &when));
    // Declared, it is no longer an optional lookup to list.
    brief
        .optional_dependencies
        .retain(|o| !o.upstream.eq_ignore_ascii_case(&fp.name));
    let always = cond_map.translate(conditions) == When::Always;
    let When::Spec(spec) = cond_map.translate(gate) else {
        return;
    };
    let Some(variant) = spec.strip_prefix('+').filter(|v| !v.contains(' ')) else {
        return;
    };
    let key = format!("CMAKE_DISABLE_FIND_PACKAGE_{}", fp.name);
    if always && !brief.defines.iter().any(|d| d.key == key) {
        brief.defines.push(BriefDefine {
            key,
            variant: None,
            value: Some(format!("self.spec.satisfies(\"~{variant}\")")),
        });
    }
}

/// `find_package` names that the build environment provides and no
/// recipe declares (pkg-config's own lookup, git for version strings).
const BUILD_ENVIRONMENT_PACKAGES: &[&str] = &["PkgConfig", "Git"];

/// Every optional `find_package` the brief does not declare is switched
/// off (`CMAKE_DISABLE_FIND_PACKAGE_<Name>`), so the host cannot fill it
/// in: Spack's build environment does not hide `/usr`. A lookup that is
/// REQUIRED anywhere is left alone (CMake refuses to disable it), as are
/// the compiler's (OpenMP, Threads) and the base classes' (CUDA).
fn disable_optional_lookups(
    facts: &RepoFacts,
    kb: &dyn SpackNames,
    cond_map: &ConditionMap,
    brief: &mut SpackBrief,
) {
    let Some(cmake) = &facts.cmake else {
        return;
    };
    let finds = &cmake.find_packages;
    for fp in finds {
        let name = fp.name.as_str();
        let required_somewhere = finds.iter().any(|o| o.required && o.name == name);
        let declared = brief
            .dependencies
            .iter()
            .any(|d| d.upstream.eq_ignore_ascii_case(name));
        let environment = BUILD_ENVIRONMENT_PACKAGES
            .iter()
            .any(|p| p.eq_ignore_ascii_case(name));
        // A lookup under a switch the recipe turns off never runs.
        let unreachable = cond_map.translate(&fp.conditions) == When::Never;
        if required_somewhere || declared || environment || unreachable {
            continue;
        }
        let kind = map_name(name, NameSource::Cmake, kb).kind;
        if matches!(
            kind,
            MappingKind::Compiler | MappingKind::None | MappingKind::BaseClass
        ) {
            continue;
        }
        let key = format!("CMAKE_DISABLE_FIND_PACKAGE_{name}");
        if brief.defines.iter().any(|d| d.key == key) {
            continue;
        }
        brief.notes.push(BriefNote {
            message: format!(
                "{name} is looked for optionally and not declared: switched off (-D{key}=ON) so the host's copy is not used"
            ),
            evidence: Some(fp.evidence.clone()),
        });
        brief.defines.push(BriefDefine {
            key,
            variant: None,
            value: Some("True".into()),
        });
    }
}

/// A lookup switched off as optional whose package a later step declared
/// (the find_package a configure-time download tries first) is switched
/// back on: off, the build downloads instead of taking the dependency.
fn keep_declared_lookups(kb: &dyn SpackNames, brief: &mut SpackBrief) {
    let declared: BTreeSet<String> = brief
        .dependencies
        .iter()
        .flat_map(|d| {
            [
                d.upstream.to_ascii_lowercase(),
                spec_package(&d.spec).to_string(),
            ]
        })
        .collect();
    let kept_on: Vec<String> = brief
        .defines
        .iter()
        // A switch that follows a variant (`needed_when`) stays.
        .filter(|d| d.value.as_deref() == Some("True"))
        .filter_map(|d| d.key.strip_prefix("CMAKE_DISABLE_FIND_PACKAGE_"))
        .filter(|name| {
            declared.contains(&name.to_ascii_lowercase())
                || map_name(name, NameSource::Cmake, kb)
                    .spack
                    .is_some_and(|s| declared.contains(&s))
        })
        .map(|name| format!("CMAKE_DISABLE_FIND_PACKAGE_{name}"))
        .collect();
    brief.defines.retain(|d| !kept_on.contains(&d.key));
    brief.notes.retain(|n| {
        !kept_on
            .iter()
            .any(|key| n.message.contains(&format!("-D{key}=")))
    });
}

/// What `PKG_CHECK_MODULES` and the `AC_CHECK_LIB` family ask for.
fn autotools_dependencies(
    facts: &RepoFacts,
    kb: &dyn SpackNames,
    cond_map: &ConditionMap,
    brief: &mut SpackBrief,
) {
    // Another build system's probes say nothing about the one the recipe
    // drives (a CMake project's configure.ac may be stale or partial).
    if facts.primary_build_system != Some(BuildSystemKind::Autotools) {
        return;
    }
    if let Some(auto) = &facts.autotools {
        for pc in &auto.pkg_checks {
            for module in &pc.modules {
                add_dependency(
                    brief,
                    kb,
                    cond_map,
                    Found::named(
                        module,
                        NameSource::Pkgconfig,
                        pc.required,
                        &[],
                        &pc.evidence,
                    ),
                );
            }
        }
        // configure runs pkg-config, and autoreconf needs its `pkg.m4`.
        if let Some(first) = auto.pkg_checks.first() {
            pkg_config_tool(brief, "PKG_CHECK_MODULES", &first.evidence);
        }
        for check in &auto.checks {
            let headers = check.macro_name.starts_with("AC_CHECK_HEADER");
            // AC_SEARCH_LIBS lists alternatives (`mpi mpich mpi_cxx`): the
            // first names what is needed.
            let alternatives = check.macro_name == "AC_SEARCH_LIBS";
            let names = if alternatives {
                &check.names[..check.names.len().min(1)]
            } else {
                &check.names[..]
            };
            for name in names {
                // A header names its library only when it is well known.
                let lib = if headers {
                    header_library(name, kb)
                } else {
                    Some(name.as_str())
                };
                let Some(lib) = lib else { continue };
                add_dependency(
                    brief,
                    kb,
                    cond_map,
                    Found::named(
                        lib,
                        NameSource::Library,
                        check.required && check.conditions.is_empty(),
                        &check.conditions,
                        &check.evidence,
                    ),
                );
            }
        }
        mpi_compiler_wrappers(facts, auto, kb, cond_map, brief);
    }
}

/// The library stem of a header one library owns (`packsmith_core::headers`:
/// `mpi.h` is MPI), when its Spack name is sure: the curated table's or a
/// package of that very name. An include is weaker evidence than a `-l`
/// flag, so a guessed spelling is left to the build files.
fn header_library(header: &str, kb: &dyn SpackNames) -> Option<&'static str> {
    let stem = library_of_header(header)?;
    (map_name(stem, NameSource::Library, kb).confidence >= 0.8).then_some(stem)
}

/// `AC_PROG_CC([mpicc])` outside any condition: the project is built with
/// MPI's compiler wrappers, so it depends on `mpi` and configure gets the
/// wrappers (Spack's `CC` would win over the macro's search otherwise).
fn mpi_compiler_wrappers(
    facts: &RepoFacts,
    auto: &packsmith_core::AutotoolsFacts,
    kb: &dyn SpackNames,
    cond_map: &ConditionMap,
    brief: &mut SpackBrief,
) {
    for hint in facts.features.iter().filter(|h| {
        h.feature == FeatureKind::Mpi && h.conditions.is_empty() && h.detail.starts_with("AC_PROG_")
    }) {
        let var = match hint.detail.split('(').next() {
            Some("AC_PROG_CC") => "CC",
            Some("AC_PROG_CXX") => "CXX",
            Some("AC_PROG_FC") => "FC",
            Some("AC_PROG_F77") => "F77",
            _ => continue,
        };
        if auto.file.as_deref() != Some(hint.evidence.file.as_str()) {
            continue;
        }
        if !brief.mpi_wrappers.iter().any(|w| w == var) {
            brief.mpi_wrappers.push(var.to_string());
        }
        add_dependency(
            brief,
            kb,
            cond_map,
            Found::named("mpi", NameSource::Library, true, &[], &hint.evidence),
        );
    }
}

/// `if(NOT DEFINED Eigen3_FOUND)` or `if(NOT Eigen3_FOUND)` around
/// `find_package(Eigen3)`: a guard against finding it twice, not an option
/// that makes it optional.
fn is_own_found_guard(package: &str, condition: &str) -> bool {
    let found = format!("{}_FOUND", package.to_ascii_uppercase());
    let mut words = condition
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.trim_start_matches("${")
                .trim_end_matches('}')
                .to_ascii_uppercase()
        });
    words.all(|w| w == "NOT" || w == "DEFINED" || w == found)
        && condition.to_ascii_uppercase().contains(&found)
}

/// `if(NOT TARGET mctc-lib::mctc-lib)` around `find_package(mctc-lib)`: a
/// superproject may have made the target already; built on its own, the
/// project always looks the package up.
fn is_own_target_guard(package: &str, condition: &str) -> bool {
    let Some(target) = condition.trim().strip_prefix("NOT TARGET ") else {
        return false;
    };
    target
        .trim()
        .trim_matches('"')
        .split_once("::")
        .is_some_and(|(namespace, _)| namespace.eq_ignore_ascii_case(package))
}

/// An Autotools project that ships no `configure` is bootstrapped by
/// Spack's `autoreconf` phase, which refuses to run without the GNU tools
/// declared as build dependencies (`Cannot generate configure`).
fn autotools_bootstrap_tools(facts: &RepoFacts, brief: &mut SpackBrief) {
    if facts.primary_build_system != Some(BuildSystemKind::Autotools) {
        return;
    }
    let auto = facts.autotools.as_ref();
    if let Some(a) = auto {
        brief.configure_made_executable = a.configure_not_executable;
        brief.prefix_dirs = a.system_dirs.iter().map(|d| d.value.clone()).collect();
    }
    if auto.is_some_and(|a| a.has_configure_script) {
        return;
    }
    let file = auto
        .and_then(|a| a.file.clone())
        .unwrap_or_else(|| "Makefile.am".into());
    if file.ends_with(".ac.in") {
        brief.configure_template = Some(file.clone());
    }
    for tool in ["autoconf", "automake", "libtool", "m4"] {
        push_dep(
            &mut brief.dependencies,
            BriefDependency {
                spec: tool.into(),
                when: None,
                types: vec!["build".into()],
                upstream: tool.into(),
                confidence: 1.0,
                why: "no configure script ships, so Spack's autoreconf phase generates it".into(),
                evidence: Evidence::new(file.clone(), 1),
            },
        );
    }
}

/// What Meson's `dependency()` calls ask for.
fn meson_dependencies(
    facts: &RepoFacts,
    kb: &dyn SpackNames,
    cond_map: &ConditionMap,
    brief: &mut SpackBrief,
) {
    if facts.primary_build_system != Some(BuildSystemKind::Meson) {
        return;
    }
    if let Some(meson) = &facts.meson {
        for d in &meson.dependencies {
            // Meson's own conditions (`build_tests`, `get_option(...)`)
            // are no CMake option: a conditional lookup stays optional.
            let required = d.required.trim() == "true" && d.conditions.is_empty();
            add_dependency(
                brief,
                kb,
                cond_map,
                Found::named(&d.name, NameSource::Pkgconfig, required, &[], &d.evidence),
            );
        }
        // Meson asks pkg-config for all but its built-in dependencies;
        // Spack 1.x's MesonPackage declares pkgconfig itself, 0.23's not.
        let asks_pkg_config = meson
            .dependencies
            .iter()
            .find(|d| !MESON_BUILTIN_DEPENDENCIES.contains(&d.name.as_str()));
        if let Some(first) = asks_pkg_config {
            if brief.target == TargetSpack::V0_23 {
                pkg_config_tool(brief, "dependency()", &first.evidence);
            }
        }
    }
}

/// Meson's `dependency()` names it resolves itself, without pkg-config.
const MESON_BUILTIN_DEPENDENCIES: &[&str] = &[
    "threads",
    "openmp",
    "dl",
    "m",
    "intl",
    "iconv",
    "mpi",
    "boost",
    "python3",
    "gtest",
    "gmock",
    "cuda",
    "llvm",
    "qt4",
    "qt5",
    "qt6",
    "appleframeworks",
    "blocks",
    "coarray",
    "jni",
    "jdk",
];

/// A Python project's build requirements and unconditional runtime
/// dependencies (those with an environment marker are left out).
fn python_dependencies(facts: &RepoFacts, kb: &dyn SpackNames, brief: &mut SpackBrief) {
    if let Some(py) = &facts.python {
        if facts.primary_build_system == Some(BuildSystemKind::Python) {
            python_floors::requires_python(py, kb, brief);
            for r in &py.build_requires {
                add_python(brief, kb, r, &["build"]);
            }
            for r in py.dependencies.iter().filter(|r| r.marker.is_none()) {
                add_python(brief, kb, r, &["build", "run"]);
            }
            brief.scm_version_env.clone_from(&py.scm_version_env);
        }
    }
}

fn fetch_plan(facts: &RepoFacts) -> FetchPlan {
    let v = &facts.versions;
    let tag = v.latest_tag.as_ref();
    FetchPlan {
        version: tag
            .map(|t| t.version.clone())
            .or_else(|| v.declared.as_ref().map(|d| d.value.clone())),
        url: v.archive_url.clone(),
        sha256: None,
        git: v
            .remote
            .clone()
            .filter(|r| r.contains("://") || r.starts_with("git@")),
        tag: tag.map(|t| t.tag.clone()),
        commit: tag
            .and_then(|t| t.commit.clone())
            .or_else(|| v.commit.clone()),
        // Set by the submodules the build needs (`downloads`).
        submodules: false,
        older: Vec::new(),
    }
}

/// Variants from CMake options and enumerated cache variables; returns the
/// option → variant map used to translate conditions.
fn cmake_variants(facts: &RepoFacts, brief: &mut SpackBrief) -> ConditionMap {
    let mut map = ConditionMap::default();
    let Some(cmake) = &facts.cmake else {
        return map;
    };
    let switches = downloads::switch_options(facts);
    let (prefixes, roles) = option_roles::classify(cmake, &switches, &mut map);
    let has_cuda_base = brief.base_classes.iter().any(|b| b == "CudaPackage");
    let has_rocm_base = brief.base_classes.iter().any(|b| b == "ROCmPackage");
    for (opt, role) in roles {
        // A switch only a test build reaches (a vendored test framework's
        // own options) is nothing to the package.
        if role == OptionRole::Test || map.is_test_only(&opt.conditions) {
            continue;
        }
        if role != OptionRole::Feature {
            pin_option(opt, role, &prefixes, &mut map, brief);
            continue;
        }
        // An option declared only when a package is found unlocks an
        // optional feature: off by default, the package declared under it.
        let gated = found_gate(&opt.conditions, &cmake.find_packages);
        if let Some(package) = &gated {
            map.found_gates
                .entry(package.to_ascii_uppercase())
                .or_insert_with(|| opt.name.clone());
        }
        // `NO_ZLIB` becomes variant `zlib`, on when the option is off.
        let positive = positive_variant_name_in(&opt.name, &prefixes);
        let mut name = positive
            .clone()
            .unwrap_or_else(|| variant_name_in(&opt.name, &prefixes));
        if name == "hip" && has_rocm_base {
            name = "rocm".into();
        }
        // Two options that strip to one name keep their own names.
        if brief.variants.iter().any(|v| v.name == name) {
            name = opt.name.to_ascii_lowercase();
        }
        let inherited = (name == "cuda" && has_cuda_base) || (name == "rocm" && has_rocm_base);
        let default = match parse_bool(opt.default.as_deref()) {
            Some(b) => b,
            None => {
                brief.notes.push(BriefNote {
                    message: format!(
                        "option {} defaults to `{}`, computed upstream; the variant defaults to False",
                        opt.name,
                        opt.default.clone().unwrap_or_default()
                    ),
                    evidence: Some(opt.evidence.clone()),
                });
                false
            }
        };
        let default = if positive.is_some() {
            map.inverted.insert(opt.name.to_ascii_uppercase());
            !default
        } else {
            default
        };
        let default = if default && gated.is_some() && positive.is_none() {
            brief.notes.push(BriefNote {
                message: format!(
                    "option {} is offered when {} is found: an optional feature, off by default, its package declared under it",
                    opt.name,
                    gated.clone().unwrap_or_default()
                ),
                evidence: Some(opt.evidence.clone()),
            });
            false
        } else {
            default
        };
        map.variants
            .insert(opt.name.to_ascii_uppercase(), name.clone());
        brief.variants.push(BriefVariant {
            name: name.clone(),
            default: VariantDefault::Bool(default),
            values: Vec::new(),
            description: if positive.is_some() {
                format!("On when upstream {} is off: {}", opt.name, opt.help)
            } else {
                opt.help.clone()
            },
            when: None,
            option: opt.name.clone(),
            inherited,
            evidence: opt.evidence.clone(),
        });
    }
    // Conditions of dependent options need the full map, so translate after.
    for opt in &cmake.options {
        if let Some(depends) = &opt.depends {
            let clauses: Vec<String> = depends.split(';').map(|s| s.trim().to_string()).collect();
            if let When::Spec(spec) = map.translate(&clauses) {
                if let Some(v) = brief.variants.iter_mut().find(|v| v.option == opt.name) {
                    v.when = Some(spec);
                }
            }
        }
    }
    // As for options: a declaration for this platform first.
    let mut cache_vars: Vec<&packsmith_core::CmakeCacheVar> = cmake.cache_vars.iter().collect();
    cache_vars.sort_by_key(|v| v.conditions.iter().any(|c| other_platform(c)));
    for var in cache_vars {
        if var.name == "BUILD_SHARED_LIBS" {
            if brief.variants.iter().any(|v| v.name == "shared") {
                continue; // an option of the project's already is `shared`
            }
            map.variants.insert(var.name.clone(), "shared".into());
            brief.variants.push(BriefVariant {
                name: "shared".into(),
                default: VariantDefault::Bool(parse_bool(Some(&var.default)).unwrap_or(true)),
                values: Vec::new(),
                description: var.doc.clone(),
                when: None,
                option: var.name.clone(),
                inherited: false,
                evidence: var.evidence.clone(),
            });
            continue;
        }
        // Enumerated string options only; one with an empty default and a
        // single listed choice (`STRINGS "" serial`) is one too.
        let listed = var.choices.iter().filter(|c| !c.trim().is_empty()).count();
        let enumerated = var.choices.len() >= 2 || (listed == 1 && var.default.trim().is_empty());
        if !enumerated || listed == 0 || !var.cache_type.eq_ignore_ascii_case("STRING") {
            continue;
        }
        // Declared only for another processor or system (libpng's
        // `PNG_POWERPC_VSX` under `PNG_TARGET_ARCHITECTURE MATCHES
        // "^(powerpc|ppc64)"`): unset here, no variant.
        if var.conditions.iter().any(|c| other_platform(c)) {
            continue;
        }
        let name = variant_name_in(&var.name, &prefixes);
        if brief.variants.iter().any(|v| v.name == name) {
            continue;
        }
        let Some(default) = string_default(var, brief) else {
            continue;
        };
        map.variants
            .insert(var.name.to_ascii_uppercase(), name.clone());
        brief.variants.push(BriefVariant {
            name,
            default: VariantDefault::Str(default),
            values: var.choices.clone(),
            description: var.doc.clone(),
            when: None,
            option: var.name.clone(),
            inherited: false,
            evidence: var.evidence.clone(),
        });
    }
    library_kind::apply(cmake, &mut map, brief);
    for v in &brief.variants {
        // A negative option is on when its positive variant is off.
        let define = if map.inverted.contains(&v.option.to_ascii_uppercase()) {
            BriefDefine {
                key: v.option.clone(),
                variant: None,
                value: Some(format!("self.spec.satisfies(\"~{}\")", v.name)),
            }
        } else {
            BriefDefine {
                key: v.option.clone(),
                variant: Some(v.name.clone()),
                value: None,
            }
        };
        brief.defines.push(define);
    }
    // Every test option follows `self.run_tests`, not only the first: a
    // second one left at its upstream ON builds (and often downloads) tests.
    let mut test_keys: Vec<String> = Vec::new();
    for opt in &cmake.options {
        let upper = opt.name.to_ascii_uppercase();
        if map.test_options.contains(&upper)
            && !map.is_test_only(&opt.conditions)
            && !test_keys.iter().any(|k| k.eq_ignore_ascii_case(&opt.name))
        {
            test_keys.push(opt.name.clone());
        }
    }
    if test_keys.is_empty() && cmake.testing.is_some() {
        test_keys.push("BUILD_TESTING".into());
    }
    for key in test_keys {
        // `SKIP_PORTABILITY_TEST` is on when the tests are not built.
        let value = if map.inverted_tests.contains(&key.to_ascii_uppercase()) {
            "not self.run_tests"
        } else {
            "self.run_tests"
        };
        brief.defines.push(BriefDefine {
            key,
            variant: None,
            value: Some(value.into()),
        });
    }
    map
}

/// The package whose found-test (`BZIP2_FOUND`, `${MPI_C_FOUND}`) one of
/// `conditions` is, not negated: an option declared there exists only when
/// the package was found.
fn found_gate(conditions: &[String], finds: &[packsmith_core::CmakeFindPackage]) -> Option<String> {
    conditions.iter().find_map(|c| {
        let var = c.trim().trim_start_matches("${").trim_end_matches('}');
        let stem = var.strip_suffix("_FOUND")?;
        finds
            .iter()
            .find(|fp| {
                stem.eq_ignore_ascii_case(&fp.name)
                    || stem
                        .get(..fp.name.len() + 1)
                        .is_some_and(|head| head.eq_ignore_ascii_case(&format!("{}_", fp.name)))
            })
            .map(|fp| fp.name.clone())
    })
}

/// Sets a maintainer's switch once in `cmake_args` instead of offering it
/// as a variant: extras and developer switches off, install switches on,
/// another platform's left at upstream's Linux default. The value is
/// recorded so the lookups under the switch follow it (a dependency only
/// the examples need is not declared).
fn pin_option(
    opt: &packsmith_core::CmakeOption,
    role: OptionRole,
    prefixes: &OptionPrefixes,
    map: &mut ConditionMap,
    brief: &mut SpackBrief,
) {
    let upper = opt.name.to_ascii_uppercase();
    let negative = option_roles::is_negative(&opt.name, prefixes);
    let upstream = parse_bool(opt.default.as_deref());
    // Whether what the option names should be on.
    let wanted = match role {
        OptionRole::Install => true,
        OptionRole::Extras | OptionRole::Developer => false,
        OptionRole::Deprecated => {
            if let Some(value) = upstream {
                map.pinned.insert(upper, value);
            }
            brief.notes.push(BriefNote {
                message: format!(
                    "option {} is deprecated upstream ({}): not offered as a variant",
                    opt.name, opt.help
                ),
                evidence: Some(opt.evidence.clone()),
            });
            return;
        }
        OptionRole::OtherPlatform => {
            // Declared only for another platform, it is unset here.
            let here = !opt.conditions.iter().any(|c| other_platform(c));
            if let Some(value) = upstream.filter(|_| here) {
                map.pinned.insert(upper, value);
            } else if !here {
                map.pinned.insert(upper, false);
            }
            return;
        }
        OptionRole::Test | OptionRole::Feature => return,
    };
    let value = wanted != negative;
    map.pinned.insert(upper, value);
    if upstream == Some(value) {
        return; // upstream already builds it so
    }
    let why = match role {
        OptionRole::Install => "installs the package",
        OptionRole::Extras => "builds what an installed package does not hold",
        _ => "tunes the developer's build",
    };
    brief.notes.push(BriefNote {
        message: format!(
            "option {} {why}: set to {} in cmake_args, not offered as a variant",
            opt.name,
            if value { "ON" } else { "OFF" }
        ),
        evidence: Some(opt.evidence.clone()),
    });
    brief.defines.push(BriefDefine {
        key: opt.name.clone(),
        variant: None,
        value: Some(if value { "True" } else { "False" }.into()),
    });
}

/// The default of a string variant. Spack refuses `default=""` at load
/// time, so an empty upstream default becomes the one non-empty choice
/// when there is exactly one, else no variant and a FIXME naming the
/// option (the build keeps upstream's empty value).
fn string_default(var: &packsmith_core::CmakeCacheVar, brief: &mut SpackBrief) -> Option<String> {
    if !var.default.trim().is_empty() {
        return Some(var.default.clone());
    }
    let candidates: Vec<&String> = var
        .choices
        .iter()
        .filter(|c| !c.trim().is_empty())
        .collect();
    if let [only] = candidates.as_slice() {
        brief.notes.push(BriefNote {
            message: format!(
                "{} defaults to an empty string upstream; its variant defaults to its only choice `{only}`",
                var.name
            ),
            evidence: Some(var.evidence.clone()),
        });
        return Some((*only).clone());
    }
    let listed = candidates
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let message = format!(
        "upstream {} defaults to an empty string (choices: {listed}); Spack refuses an empty variant default, so it is no variant: add one with a real default, or set it in cmake_args",
        var.name
    );
    brief.notes.push(BriefNote {
        message: message.clone(),
        evidence: Some(var.evidence.clone()),
    });
    brief.fixmes.push(message);
    None
}

fn dep(
    spec: &str,
    when: Option<String>,
    types: Vec<String>,
    upstream: &str,
    confidence: f32,
    why: &str,
    evidence: Evidence,
) -> BriefDependency {
    BriefDependency {
        spec: spec.to_string(),
        when,
        types,
        upstream: upstream.to_string(),
        confidence,
        why: why.to_string(),
        evidence,
    }
}

/// `pkgconfig` as a build dependency: the build runs pkg-config (`upstream`
/// names what runs it), and the host's would answer for the host's
/// libraries. One place for every build system that asks it.
fn pkg_config_tool(brief: &mut SpackBrief, upstream: &str, evidence: &Evidence) {
    push_dep(
        &mut brief.dependencies,
        dep(
            "pkgconfig",
            None,
            vec!["build".into()],
            upstream,
            0.9,
            "the build runs pkg-config",
            evidence.clone(),
        ),
    );
}

/// The package a dependency spec names: `hdf5@1.10:+mpi` → `hdf5`.
fn spec_package(spec: &str) -> &str {
    spec.split(['@', '+', '~', ' ']).next().unwrap_or(spec)
}

fn push_dep(list: &mut Vec<BriefDependency>, d: BriefDependency) {
    // A language virtual is the compiler: the languages the build compiles
    // declare it, build type only (Spack refuses any other type at load).
    // A lookup or a download named for it (`libcxx` → `cxx`) adds nothing.
    if matches!(spec_package(&d.spec), "c" | "cxx" | "fortran") {
        return;
    }
    if let Some(existing) = list
        .iter_mut()
        .find(|e| spec_package(&e.spec) == spec_package(&d.spec) && e.when == d.when)
    {
        // Keep the stricter spec (one with a version) and every variant
        // either lookup asks for (`find_package(Boost)`, then
        // `find_package(Boost COMPONENTS python)`: `boost+python`).
        let (mut kept, other) = if !existing.spec.contains('@') && d.spec.contains('@') {
            (d.spec, std::mem::take(&mut existing.spec))
        } else {
            (std::mem::take(&mut existing.spec), d.spec)
        };
        for variant in enabled_variants(&other) {
            if !enabled_variants(&kept).contains(&variant) {
                kept.push('+');
                kept.push_str(variant);
            }
        }
        existing.spec = kept;
        existing.types = union_of_types(&existing.types, &d.types);
        return;
    }
    list.push(d);
}

/// Every dependency type either declaration asks for (numpy a build
/// requirement and a run-time one is both), in Spack's order; none stands
/// for Spack's default, build and link.
fn union_of_types(a: &[String], b: &[String]) -> Vec<String> {
    const ORDER: [&str; 4] = ["build", "link", "run", "test"];
    const DEFAULT: [&str; 2] = ["build", "link"];
    let effective = |t: &[String]| -> Vec<String> {
        if t.is_empty() {
            DEFAULT.iter().map(|s| s.to_string()).collect()
        } else {
            t.to_vec()
        }
    };
    let (a, b) = (effective(a), effective(b));
    let union: Vec<String> = ORDER
        .iter()
        .filter(|t| a.iter().chain(&b).any(|x| x == *t))
        .map(|t| t.to_string())
        .collect();
    if union == DEFAULT {
        Vec::new()
    } else {
        union
    }
}

/// The `+name` variants a spec turns on (`hdf5@1.10:+hl+mpi`: hl, mpi).
fn enabled_variants(spec: &str) -> Vec<&str> {
    spec.split('+')
        .skip(1)
        .map(|v| v.split(['~', '^', ' ', '@']).next().unwrap_or(v))
        .filter(|v| !v.is_empty())
        .collect()
}

/// Upstream versions are minimums: `1.10` becomes `@1.10:`.
fn version_constraint(version: Option<&str>) -> String {
    match version {
        Some(v) if v.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
            let v = v.split("...").next().unwrap_or(v);
            format!("@{v}:")
        }
        _ => String::new(),
    }
}

/// A dependency as the build files name it, with where and under which
/// conditions they do.
struct Found<'a> {
    name: &'a str,
    source: NameSource,
    /// Minimum version, when the build files give one.
    version: Option<&'a str>,
    required: bool,
    conditions: &'a [String],
    evidence: &'a Evidence,
    /// What the lookup asks of the package (`find_package(Boost
    /// COMPONENTS serialization)`): the package's variants of those names
    /// are asked for in the spec (`boost+serialization`).
    components: &'a [String],
}

impl<'a> Found<'a> {
    /// A name the build files give with no version or components.
    fn named(
        name: &'a str,
        source: NameSource,
        required: bool,
        conditions: &'a [String],
        evidence: &'a Evidence,
    ) -> Self {
        Found {
            name,
            source,
            version: None,
            required,
            conditions,
            evidence,
            components: &[],
        }
    }

    /// A `find_package` call, under `conditions`.
    fn lookup(
        fp: &'a packsmith_core::CmakeFindPackage,
        version: Option<&'a str>,
        required: bool,
        conditions: &'a [String],
    ) -> Self {
        Found {
            name: &fp.name,
            source: NameSource::Cmake,
            version,
            required,
            conditions,
            evidence: &fp.evidence,
            components: &fp.components,
        }
    }
}

fn add_dependency(
    brief: &mut SpackBrief,
    kb: &dyn SpackNames,
    conds: &ConditionMap,
    found: Found<'_>,
) {
    let Found {
        name: upstream,
        source,
        version,
        required,
        conditions,
        evidence,
        components,
    } = found;
    let mapping = map_name(upstream, source, kb);
    let spack = match (mapping.kind, &mapping.spack) {
        (MappingKind::Compiler | MappingKind::None, _) | (_, None) => {
            brief.notes.push(BriefNote {
                message: format!("{upstream}: not a dependency ({})", mapping.evidence),
                evidence: Some(evidence.clone()),
            });
            return;
        }
        // A GPU toolkit only the tests look for (fmt's `find_package(CUDA)`
        // under `FMT_TEST`) is no mixin of the package; see `gpu`.
        (MappingKind::BaseClass, _) if conds.is_test_only(conditions) => return,
        (MappingKind::BaseClass, _) => {
            if let Some(base) = &mapping.base_class {
                if !brief.base_classes.contains(base) {
                    brief.base_classes.push(base.clone());
                }
            }
            return;
        }
        (_, Some(name)) => name.clone(),
    };
    // A name this Spack does not know would fail the static check and
    // concretization; say so instead of writing it.
    if kb.knows_names() && kb.lookup(&spack) == Known::Unknown {
        brief.unresolved.push(UnresolvedLookup {
            upstream: upstream.to_string(),
            source,
            required,
            evidence: evidence.clone(),
        });
        brief.notes.push(BriefNote {
            message: format!(
                "{upstream}: no Spack package named `{spack}` was found; left out (add it by hand if it is needed)"
            ),
            evidence: Some(evidence.clone()),
        });
        return;
    }
    let test_only = conds.is_test_only(conditions);
    // `find_package(Python COMPONENTS Interpreter)` runs a script at build
    // time; it links nothing.
    let interpreter_only = upstream.to_ascii_lowercase().starts_with("python")
        && !components.is_empty()
        && components.iter().all(|c| c == "Interpreter");
    let mut types: Vec<String> = match mapping.kind {
        MappingKind::BuildTool => vec!["build".into()],
        _ if interpreter_only => vec!["build".into()],
        _ => Vec::new(),
    };
    if test_only {
        types = vec!["test".into()];
    }
    let when = match conds.translate(conditions) {
        When::Always => None,
        When::Spec(spec) => Some(spec),
        When::Untranslatable(text) if !test_only => {
            brief.notes.push(BriefNote {
                message: format!(
                    "{upstream} is used only when `{text}`, which is not a variant; left optional"
                ),
                evidence: Some(evidence.clone()),
            });
            let d = dep(
                &spack,
                None,
                types,
                upstream,
                mapping.confidence,
                &mapping.evidence,
                evidence.clone(),
            );
            push_dep(&mut brief.optional_dependencies, d);
            return;
        }
        When::Untranslatable(_) => None,
        // The lookup sits where no build goes; declaring it would only
        // write a `when=` Spack refuses.
        When::Never => return,
    };
    let spec = format!(
        "{spack}{}{}",
        if mapping.kind == MappingKind::Virtual {
            String::new()
        } else {
            version_constraint(version)
        },
        component_variants(kb, &spack, components)
    );
    let numpy = numpy_component(upstream, components, kb).then(|| {
        dep(
            "py-numpy",
            when.clone(),
            types.clone(),
            upstream,
            mapping.confidence,
            "the NumPy component of the Python lookup",
            evidence.clone(),
        )
    });
    let d = dep(
        &spec,
        when.clone(),
        types,
        upstream,
        mapping.confidence,
        &mapping.evidence,
        evidence.clone(),
    );
    let list = if required || when.is_some() || test_only {
        &mut brief.dependencies
    } else {
        &mut brief.optional_dependencies
    };
    push_dep(list, d);
    if let Some(numpy) = numpy {
        push_dep(list, numpy);
    }
}

/// `find_package(Python COMPONENTS NumPy)` compiles against NumPy's
/// headers: py-numpy is a dependency beside python.
fn numpy_component(upstream: &str, components: &[String], kb: &dyn SpackNames) -> bool {
    upstream.to_ascii_lowercase().starts_with("python")
        && components.iter().any(|c| c == "NumPy")
        && (!kb.knows_names() || kb.lookup("py-numpy") != Known::Unknown)
}

/// `+serialization+filesystem` for `find_package(Boost COMPONENTS
/// serialization filesystem)`: the components that are boolean variants of
/// the Spack package (`hdf5`'s `hl`, `cxx`), so a Spack-built dependency
/// has what the lookup needs. Components with no such variant say nothing.
fn component_variants(kb: &dyn SpackNames, package: &str, components: &[String]) -> String {
    if components.is_empty() {
        return String::new();
    }
    let variants = kb.bool_variants(package);
    let mut wanted: Vec<String> = components
        .iter()
        .map(|c| c.to_ascii_lowercase().replace('-', "_"))
        .filter(|c| variants.contains(c))
        .collect();
    wanted.sort();
    wanted.dedup();
    wanted.iter().map(|v| format!("+{v}")).collect()
}

fn add_python(
    brief: &mut SpackBrief,
    kb: &dyn SpackNames,
    req: &packsmith_core::PythonRequirement,
    types: &[&str],
) {
    let mapping = map_name(&req.name, NameSource::Python, kb);
    let Some(name) = mapping.spack else { return };
    // `>=4.13` is `@4.13:`, as maintainers write it; an upper bound or a
    // pin is left out (Spack's versions of a package rarely match its
    // releases' pins, and a cap guessed wrong forbids a good build).
    let floor = python_floors::pep440_floor(&req.specifier)
        .filter(|floor| python_floors::known_floor(kb, &name, floor, &req.evidence, brief));
    let spec = match floor {
        Some(floor) => format!("{name}@{floor}:"),
        None => name,
    };
    let d = dep(
        &spec,
        None,
        types.iter().map(|t| t.to_string()).collect(),
        &req.name,
        mapping.confidence,
        &mapping.evidence,
        req.evidence.clone(),
    );
    push_dep(&mut brief.dependencies, d);
}

fn languages(facts: &RepoFacts, brief: &mut SpackBrief) {
    if !brief.target.has_language_virtuals() {
        return;
    }
    for (lang, virt) in [
        (Language::C, "c"),
        (Language::Cxx, "cxx"),
        (Language::Fortran, "fortran"),
    ] {
        let uses = facts.languages.iter().any(|l| l.language == lang);
        if uses && !brief.language_virtuals.iter().any(|v| v == virt) {
            brief.language_virtuals.push(virt.to_string());
        }
    }
}
