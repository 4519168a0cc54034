//! A plain Makefile's dependencies: the libraries it links (`-lz`), the
//! modules it asks pkg-config about, and the well-known headers its
//! sources include on every build. Without them a `MakefilePackage`
//! builds against whatever the host has in `/usr`, or not at all.

use packsmith_core::{BuildSystemKind, RepoFacts};

use super::{
    add_dependency, dep, header_library, push_dep, ConditionMap, Found, NameSource, SpackBrief,
};
use crate::mapping::SpackNames;

pub(super) fn makefile_dependencies(
    facts: &RepoFacts,
    kb: &dyn SpackNames,
    cond_map: &ConditionMap,
    brief: &mut SpackBrief,
) {
    if facts.primary_build_system != Some(BuildSystemKind::Makefile) {
        return;
    }
    let Some(make) = &facts.make else {
        return;
    };
    let found = |name, source, evidence| Found::named(name, source, true, &[], evidence);
    for module in &make.pkg_config_modules {
        let f = found(&module.value, NameSource::Pkgconfig, &module.evidence);
        add_dependency(brief, kb, cond_map, f);
    }
    for library in &make.libraries {
        let f = found(&library.value, NameSource::Library, &library.evidence);
        add_dependency(brief, kb, cond_map, f);
    }
    // A header names its library only when it is well known (`zlib.h`).
    for include in &facts.includes {
        if let Some(lib) = header_library(&include.value) {
            let f = found(lib, NameSource::Library, &include.evidence);
            add_dependency(brief, kb, cond_map, f);
        }
    }
    if let Some(first) = make.pkg_config_modules.first() {
        if make.uses_pkg_config {
            push_dep(
                &mut brief.dependencies,
                dep(
                    "pkgconfig",
                    None,
                    vec!["build".into()],
                    "pkg-config",
                    0.9,
                    "the Makefile runs pkg-config",
                    first.evidence.clone(),
                ),
            );
        }
    }
}
