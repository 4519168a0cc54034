//! A plain Makefile's dependencies: the libraries it links (`-lz`), the
//! modules it asks pkg-config about, and the well-known headers its
//! sources include on every build. Without them a `MakefilePackage`
//! builds against whatever the host has in `/usr`, or not at all.

use packsmith_core::{BuildSystemKind, RepoFacts};

use super::{
    add_dependency, header_library, pkg_config_tool, ConditionMap, Found, NameSource, SpackBrief,
};
use packsmith_spack_knowledge::mapping::SpackNames;

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
    // `CC = mpicc`: the build is compiled with MPI's wrappers.
    if let Some(first) = make.mpi_compilers.first() {
        let f = Found::named("mpi", NameSource::Library, true, &[], &first.evidence);
        add_dependency(brief, kb, cond_map, f);
    }
    for library in &make.libraries {
        let f = found(&library.value, NameSource::Library, &library.evidence);
        add_dependency(brief, kb, cond_map, f);
    }
    // A header names its library only when it is well known (`zlib.h`).
    for include in &facts.includes {
        if let Some(lib) = header_library(&include.value, kb) {
            let f = found(lib, NameSource::Library, &include.evidence);
            add_dependency(brief, kb, cond_map, f);
            if lib == "mpi" && make.mpi_compilers.is_empty() {
                mpi_wrapper_for(&include.evidence.file, brief);
            }
        }
    }
    if let Some(first) = make.pkg_config_modules.first() {
        if make.uses_pkg_config {
            pkg_config_tool(brief, "pkg-config", &first.evidence);
        }
    }
}

/// Sources that include `mpi.h` under a Makefile that compiles with the
/// plain compiler (`CC = cc`): Spack's wrapper adds no include path for
/// an external MPI, so make gets MPI's wrapper for that source's language.
fn mpi_wrapper_for(source: &str, brief: &mut SpackBrief) {
    let ext = source.rsplit_once('.').map_or("", |(_, e)| e);
    let var = match ext {
        "c" | "h" => "CC",
        "cc" | "cpp" | "cxx" | "C" | "hpp" | "hh" | "hxx" => "CXX",
        _ => return,
    };
    if !brief.mpi_wrappers.iter().any(|w| w == var) {
        brief.mpi_wrappers.push(var.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::header_library;
    use packsmith_spack_knowledge::mapping::{Known, NoKnowledge, SpackNames};

    struct Kb;
    impl SpackNames for Kb {
        fn lookup(&self, name: &str) -> Known {
            match name {
                "libx11" => Known::Package,
                _ => Known::Unknown,
            }
        }
    }

    #[test]
    fn a_header_names_its_library_only_when_the_spack_name_is_sure() {
        // Curated stems hold without a knowledge base.
        assert_eq!(header_library("zlib.h", &NoKnowledge), Some("z"));
        assert_eq!(
            header_library("glib/gi18n.h", &NoKnowledge),
            Some("glib-2.0")
        );
        assert_eq!(header_library("mpi.h", &NoKnowledge), Some("mpi"));
        // Others need the knowledge base to know the very name.
        assert_eq!(header_library("X11/Xlib.h", &NoKnowledge), None);
        assert_eq!(header_library("X11/Xlib.h", &Kb), Some("X11"));
        assert_eq!(header_library("portaudio.h", &Kb), None);
        assert_eq!(header_library("stdio.h", &Kb), None);
    }
}
