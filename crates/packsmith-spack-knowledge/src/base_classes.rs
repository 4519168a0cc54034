//! The one table of Spack's builtin base classes: the 1.x module that
//! defines each (`spack_repo.builtin.build_systems.<module>`) and the value
//! of the `build_system` variant it implies. `check`, `draft` and `kb` read
//! it, so a class added here is known to all three.

/// One builtin base class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseClass {
    /// The class name (`CMakePackage`).
    pub name: &'static str,
    /// The `spack_repo.builtin.build_systems` module that defines it in 1.x.
    pub module: &'static str,
    /// The `build_system` variant value it implies; `None` for mixins and
    /// helpers (`CudaPackage`, `XorgPackage`) that imply none.
    pub build_system: Option<&'static str>,
}

const fn class(
    name: &'static str,
    module: &'static str,
    build_system: Option<&'static str>,
) -> BaseClass {
    BaseClass {
        name,
        module,
        build_system,
    }
}

/// Every builtin base class, sorted by name.
pub const BASE_CLASSES: &[BaseClass] = &[
    class("AspellDictPackage", "aspell_dict", Some("autotools")),
    class("AutotoolsPackage", "autotools", Some("autotools")),
    class("BundlePackage", "bundle", Some("bundle")),
    class("CMakePackage", "cmake", Some("cmake")),
    class("CachedCMakePackage", "cached_cmake", Some("cmake")),
    class("CargoPackage", "cargo", Some("cargo")),
    class("CompilerPackage", "compiler", None),
    class("CudaPackage", "cuda", None),
    class("GNUMirrorPackage", "gnu", Some("autotools")),
    class("GoPackage", "go", Some("go")),
    class("IntelOneApiLibraryPackage", "oneapi", Some("generic")),
    class("IntelOneApiLibraryPackageWithSdk", "oneapi", None),
    class("IntelOneApiPackage", "oneapi", Some("generic")),
    class("IntelOneApiStaticLibraryList", "oneapi", None),
    class("IntelPackage", "intel", None),
    class("LuaPackage", "lua", Some("lua")),
    class("MSBuildPackage", "msbuild", Some("msbuild")),
    class("MakefilePackage", "makefile", Some("makefile")),
    class("MavenPackage", "maven", Some("maven")),
    class("MesonPackage", "meson", Some("meson")),
    class("NMakePackage", "nmake", Some("nmake")),
    class("OctavePackage", "octave", Some("octave")),
    class("Package", "generic", Some("generic")),
    class("PerlPackage", "perl", Some("perl")),
    class("PythonExtension", "python", None),
    class("PythonPackage", "python", Some("python_pip")),
    class("QMakePackage", "qmake", Some("qmake")),
    class("ROCmPackage", "rocm", None),
    class("RPackage", "r", Some("r")),
    class("RacketPackage", "racket", Some("racket")),
    class("RubyPackage", "ruby", Some("ruby")),
    class("SConsPackage", "scons", Some("scons")),
    class("SIPPackage", "sip", Some("sip")),
    class("SourceforgePackage", "sourceforge", None),
    class("SourcewarePackage", "sourceware", None),
    class("WafPackage", "waf", Some("waf")),
    class("XorgPackage", "xorg", None),
];

/// The builtin base class named `name`, if it is one.
pub fn base_class(name: &str) -> Option<&'static BaseClass> {
    BASE_CLASSES.iter().find(|c| c.name == name)
}

/// The 1.x `spack_repo.builtin.build_systems` module of a builtin class.
pub fn builtin_module(name: &str) -> Option<&'static str> {
    base_class(name).map(|c| c.module)
}

/// The `build_system` value a builtin class implies, if any.
pub fn implied_build_system(name: &str) -> Option<&'static str> {
    base_class(name).and_then(|c| c.build_system)
}

/// The base class a recipe for a project built with `kind` derives from;
/// the generic `Package` when the build system is unknown or has no class
/// of its own (npm).
pub fn class_for_kind(kind: Option<packsmith_core::BuildSystemKind>) -> &'static str {
    use packsmith_core::BuildSystemKind as K;
    match kind {
        Some(K::Cmake) => "CMakePackage",
        Some(K::Autotools) => "AutotoolsPackage",
        Some(K::Meson) => "MesonPackage",
        Some(K::Python) => "PythonPackage",
        Some(K::Makefile) => "MakefilePackage",
        Some(K::Cargo) => "CargoPackage",
        Some(K::Go) => "GoPackage",
        Some(K::Npm) | None => "Package",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_sorted() {
        for pair in BASE_CLASSES.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} then {}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn lookups_read_the_table() {
        assert_eq!(builtin_module("CMakePackage"), Some("cmake"));
        assert_eq!(implied_build_system("PythonPackage"), Some("python_pip"));
        assert_eq!(implied_build_system("CudaPackage"), None);
        assert_eq!(builtin_module("cmake.CMakePackage"), None);
    }

    #[test]
    fn score_knows_no_class_this_table_lacks() {
        // score/base_classes.rs still keeps each class's inherited
        // directives beside this table; hold the two to the same names.
        for name in crate::score::known_base_classes() {
            assert!(
                base_class(name).is_some(),
                "{name} is scored but not in BASE_CLASSES"
            );
        }
    }

    #[test]
    fn every_build_system_kind_maps_to_a_class_with_a_build_system() {
        use packsmith_core::BuildSystemKind as K;
        let kinds = [
            K::Cmake,
            K::Meson,
            K::Autotools,
            K::Makefile,
            K::Python,
            K::Cargo,
            K::Go,
            K::Npm,
        ];
        for kind in kinds.into_iter().map(Some).chain([None]) {
            let class = class_for_kind(kind);
            assert!(implied_build_system(class).is_some(), "{class}");
        }
        assert_eq!(class_for_kind(None), "Package");
    }
}
