//! A project without install rules: the recipe's own `install()` copies
//! what the build made (executables to `bin`, libraries to `lib`, public
//! headers to `include`); and a build file below the top becomes
//! `root_cmakelists_dir`.

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
}

/// Fills in the install plan and the CMake root directory.
pub(super) fn apply(facts: &RepoFacts, brief: &mut SpackBrief) {
    let cmake = facts.primary_build_system == Some(BuildSystemKind::Cmake);
    if cmake {
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
    brief.make_prefix_variable = facts
        .install_rules
        .as_ref()
        .and_then(|r| r.prefix_variable.clone());
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
