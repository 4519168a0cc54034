//! A project without install rules: the recipe's own `install()` copies
//! what the build made (executables to `bin`, libraries to `lib`, public
//! headers to `include`), or, when a CMake build makes nothing but its
//! tests, only the headers, with nothing built; and a build file below the
//! top becomes `root_cmakelists_dir` (CMake) or `build_directory` (Makefile).

use super::{BriefNote, SpackBrief};
use packsmith_core::{BuildSystemKind, CmakeTargetKind, RepoFacts};
use serde::{Deserialize, Serialize};

/// What the recipe's `install()` copies when the build installs nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstallPlan {
    /// Executable targets, found in the build directory by name.
    pub executables: Vec<String>,
    /// Library targets (`dlfcore` → `libdlfcore.a`, `libdlfcore.so*`).
    pub libraries: Vec<String>,
    /// Repository-relative directory of the public headers.
    pub headers: Option<String>,
    /// Why the recipe installs by hand.
    pub why: String,
    /// The build makes only test programs (`executables` names them): the
    /// headers are the library, and the recipe (a plain `Package`) installs
    /// them without building.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub headers_only: bool,
    /// Where the build writes the executables, relative to the source
    /// root (`""`: the root itself), when not in its build directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub products_dir: Option<String>,
}

/// Fills in the install plan and the CMake root directory.
pub(super) fn apply(facts: &RepoFacts, brief: &mut SpackBrief) {
    let cmake = facts.primary_build_system == Some(BuildSystemKind::Cmake);
    if cmake {
        install_paths_into_prefix(facts, brief);
        home_installs_into_prefix(facts, brief);
        if let Some(root) = &facts.build_root {
            brief.root_cmakelists_dir = Some(root.value.clone());
            brief.notes.push(BriefNote {
                message: format!(
                    "the top CMakeLists.txt is in `{}`: root_cmakelists_dir",
                    root.value
                ),
                evidence: Some(root.evidence.clone()),
            });
        }
    }
    // A Makefile, or a Python project, below the top (`python/`, or the one
    // of several that declares the package asked for): the build runs in
    // its directory.
    let build_file = match facts.primary_build_system {
        Some(BuildSystemKind::Makefile) => Some("the Makefile"),
        Some(BuildSystemKind::Python) => Some("the Python project"),
        _ => None,
    };
    if facts.primary_build_system == Some(BuildSystemKind::Makefile) {
        brief.makefile_template = facts
            .build_systems
            .iter()
            .find_map(|b| b.makefile_under_another_name())
            .map(str::to_string);
    }
    if let (Some(BuildSystemKind::Autotools), Some(root)) =
        (facts.primary_build_system, &facts.build_root)
    {
        brief.configure_directory = Some(root.value.clone());
        brief.notes.push(BriefNote {
            message: format!(
                "the Autotools build is in `{}`: configure_directory",
                root.value
            ),
            evidence: Some(root.evidence.clone()),
        });
    }
    if let (Some(what), Some(root)) = (build_file, &facts.build_root) {
        brief.build_directory = Some(root.value.clone());
        brief.notes.push(BriefNote {
            message: format!("{what} is in `{}`: build_directory", root.value),
            evidence: Some(root.evidence.clone()),
        });
        if let Some(py) = facts
            .python
            .as_ref()
            .filter(|_| facts.primary_build_system == Some(BuildSystemKind::Python))
        {
            brief
                .files_into_build_directory
                .clone_from(&py.files_from_top);
        }
    }
    brief.make_prefix_variable = facts
        .install_rules
        .as_ref()
        .and_then(|r| r.prefix_variable.clone());
    brief.make_prefix_is_bin = facts
        .install_rules
        .as_ref()
        .is_some_and(|r| r.prefix_variable_is_bin);
    let Some(rules) = facts.install_rules.as_ref().filter(|r| !r.present) else {
        return;
    };
    let makefile = facts.primary_build_system == Some(BuildSystemKind::Makefile);
    if !cmake && !makefile {
        brief.notes.push(BriefNote {
            message: format!(
                "the build has no install rules ({}): the recipe must install the files itself",
                rules.how
            ),
            evidence: Some(rules.evidence.clone()),
        });
        return;
    }
    let mut plan = InstallPlan {
        headers: rules.headers.clone(),
        why: rules.how.clone(),
        ..InstallPlan::default()
    };
    for t in facts.cmake.iter().flat_map(|c| &c.targets) {
        match t.kind {
            CmakeTargetKind::Executable => plan.executables.push(t.name.clone()),
            _ => plan.libraries.push(t.name.clone()),
        }
    }
    if cmake && only_tests(facts, &plan) {
        headers_only(brief, plan, &rules.evidence);
        return;
    }
    if makefile {
        name_unbuilt_programs(facts, brief, &mut plan);
    }
    brief.notes.push(BriefNote {
        message: format!(
            "the build has no install rules ({}): the recipe's install() copies {} executable(s), {} library(ies){}",
            rules.how,
            plan.executables.len(),
            plan.libraries.len(),
            plan.headers
                .as_deref()
                .map(|h| format!(" and the headers in {h}"))
                .unwrap_or_default()
        ),
        evidence: Some(rules.evidence.clone()),
    });
    brief.install = Some(plan);
}

/// Plain `make` builds none of the programs the Makefile links (its first
/// rule makes an object): `build_targets` names them, and `install()`
/// copies them by name from where their link lines write them.
fn name_unbuilt_programs(facts: &RepoFacts, brief: &mut SpackBrief, plan: &mut InstallPlan) {
    let Some(make) = facts.make.as_ref() else {
        return;
    };
    if make.unbuilt_programs.is_empty() {
        // Plain `make` builds them, into another directory of the tree.
        plan.products_dir = written_to(make, brief);
        return;
    }
    let names: Vec<String> = make
        .unbuilt_programs
        .iter()
        .map(|p| p.value.clone())
        .collect();
    brief.notes.push(BriefNote {
        message: format!(
            "plain `make` builds none of the programs the Makefile links (its first rule makes \
             an object file): build_targets = {}",
            names.join(", ")
        ),
        evidence: Some(make.unbuilt_programs[0].evidence.clone()),
    });
    brief.build_targets = names.clone();
    plan.executables = names;
    plan.products_dir = written_to(make, brief);
}

/// Where the Makefile's link lines write its programs, from the source
/// root, when not beside the Makefile.
fn written_to(make: &packsmith_core::MakefileFacts, brief: &SpackBrief) -> Option<String> {
    make.programs_written_to.as_deref().and_then(|to| {
        let base = brief.build_directory.as_deref().unwrap_or("");
        relative_join(base, to)
    })
}

/// `base/rel` as a path from the source root, `..` resolved; `None` when
/// it leaves the source tree.
fn relative_join(base: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            parts.pop()?;
        } else {
            parts.push(part);
        }
    }
    Some(parts.join("/"))
}

/// Every target the CMake build makes is a test program (an executable
/// with `test` in its name, in a build that registers tests), and there are
/// public headers: a header-only library whose build is its test suite.
fn only_tests(facts: &RepoFacts, plan: &InstallPlan) -> bool {
    let registers_tests = facts.cmake.as_ref().is_some_and(|c| c.tests.is_some());
    registers_tests
        && plan.headers.is_some()
        && plan.libraries.is_empty()
        && !plan.executables.is_empty()
        && plan
            .executables
            .iter()
            .all(|e| e.to_ascii_lowercase().contains("test"))
}

/// A header-only library: a plain `Package` whose `install()` copies the
/// headers. Nothing is configured or built, so what only the build used
/// (the CMake minimum, defines, variants for its options, compilers) goes;
/// the dependencies its lookups found stay listed for the maintainer, not
/// declared, since the tests may be all that need them.
fn headers_only(
    brief: &mut SpackBrief,
    mut plan: InstallPlan,
    evidence: &packsmith_core::Evidence,
) {
    let tests = plan.executables.join(", ");
    plan.headers_only = true;
    if let Some(base) = brief.base_classes.first_mut() {
        *base = "Package".into();
    }
    brief.cmake_constraint = None;
    brief.defines.clear();
    brief.variants.clear();
    brief.root_cmakelists_dir = None;
    brief.language_virtuals.clear();
    brief.optional_dependencies.append(&mut brief.dependencies);
    brief.notes.push(BriefNote {
        message: format!(
            "the build has no install rules and makes only its tests ({tests}): a header-only \
             library, installed from {} without building",
            plan.headers.as_deref().unwrap_or("include")
        ),
        evidence: Some(evidence.clone()),
    });
    brief.install = Some(plan);
}

/// A cache variable naming an install directory on the host
/// (`CMAKE_INSTALL_COMPLETION_PREFIX` = `/usr/share`): Spack installs into
/// its own prefix and the sandbox refuses writes elsewhere, so the recipe
/// points it under `self.prefix` (`/usr/share` → `share`, `/etc` → `etc`).
/// The declaration that holds on Linux wins, as for options.
fn install_paths_into_prefix(facts: &RepoFacts, brief: &mut SpackBrief) {
    let Some(cmake) = &facts.cmake else { return };
    let mut vars: Vec<&packsmith_core::CmakeCacheVar> = cmake
        .cache_vars
        .iter()
        .filter(|v| matches!(v.cache_type.as_str(), "PATH" | "STRING"))
        .filter(|v| v.name.to_ascii_uppercase().contains("INSTALL"))
        .collect();
    vars.sort_by_key(|v| v.conditions.iter().any(|c| super::other_platform(c)));
    for var in vars {
        if brief.defines.iter().any(|d| d.key == var.name) {
            continue;
        }
        let Some(rest) = host_directory(&var.default) else {
            continue;
        };
        let value = if rest.is_empty() {
            "self.prefix".to_string()
        } else {
            format!(
                "join_path(self.prefix, {})",
                packsmith_spack_knowledge::pystr::py_str(rest)
            )
        };
        brief.notes.push(BriefNote {
            message: format!(
                "{} installs into `{}` on the host: pointed under the prefix",
                var.name, var.default
            ),
            evidence: Some(var.evidence.clone()),
        });
        brief.defines.push(super::BriefDefine {
            key: var.name.clone(),
            variant: None,
            value: Some(value),
        });
    }
}

/// `install(… DESTINATION "$ENV{HOME}/lib")`: Spack installs nothing into
/// its prefix then (and the sandbox hides the real home), so the recipe's
/// `patch()` writes `${CMAKE_INSTALL_PREFIX}` where the file says home.
fn home_installs_into_prefix(facts: &RepoFacts, brief: &mut SpackBrief) {
    let Some(cmake) = &facts.cmake else { return };
    for at in &cmake.home_installs {
        brief.notes.push(BriefNote {
            message: format!(
                "{} installs into $ENV{{HOME}}: patched to install into the prefix",
                at.file
            ),
            evidence: Some(at.clone()),
        });
        brief.home_install_files.push(at.file.clone());
    }
}

/// `/usr/share/bash-completion` → `share/bash-completion`, `/usr/local` →
/// ``, `/etc/x` → `etc/x`; None for a path that is not a host system
/// directory.
fn host_directory(path: &str) -> Option<&str> {
    let path = path.trim().trim_end_matches('/');
    for root in ["/usr/local", "/usr"] {
        if let Some(rest) = path.strip_prefix(root) {
            if rest.is_empty() || rest.starts_with('/') {
                return Some(rest.trim_start_matches('/'));
            }
        }
    }
    let rest = path.strip_prefix('/')?;
    let top = rest.split('/').next().unwrap_or("");
    matches!(top, "etc" | "opt" | "var").then_some(rest)
}
