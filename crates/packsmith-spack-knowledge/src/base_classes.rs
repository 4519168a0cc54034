//! The one table of Spack's builtin base classes: the 1.x module that
//! defines each (`spack_repo.builtin.build_systems.<module>`), the value
//! of the `build_system` variant it implies, the builtin classes it derives
//! from, and the dependencies it declares itself in Spack 0.23
//! (`lib/spack/spack/build_systems/*.py`) and in spack-packages 1.x
//! (`repos/spack_repo/builtin/build_systems/*.py`). `check`, `draft`,
//! `kb`, `brief` and `score` read it, so a class added here is known to all.
//!
//! Conventions of the inherited dependencies: `when` is the full condition
//! after nesting `with when(...)` blocks, in canonical spec form;
//! `extends(x)` declares `x` with types build+run, and extending `python`
//! also adds `python-venv`; a plain `depends_on` without `type=` is
//! build+link. A class lists only its own directives; its parents' come
//! through `parents` (`score::inherited_dependencies` adds them).

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
    /// Builtin classes it derives from whose directives it inherits.
    pub parents: &'static [&'static str],
    /// The dependencies its own directives declare.
    pub inherited: Inherited,
}

/// `(spec, when, types)` of one `depends_on`/`extends` a base class
/// declares; an empty `when` means unconditional.
pub type InheritedDep = (&'static str, &'static str, &'static [&'static str]);

/// What a base class declares, per Spack release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inherited {
    /// Spack 0.23, `spack.build_systems`.
    pub v0_23: &'static [InheritedDep],
    /// Spack 1.x with the spack-packages repository.
    pub v1: &'static [InheritedDep],
    /// Per-architecture bounds the class adds on top, expanded by the reader.
    pub per_arch: PerArch,
}

/// A per-architecture table of `depends_on` a class adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerArch {
    None,
    /// CudaPackage: `depends_on("cuda@<range>", when="cuda_arch=<arch>")`
    /// ([`CUDA_ARCHS_0_23`], [`CUDA_ARCHS_1`]).
    Cuda,
    /// ROCmPackage: `depends_on("llvm-amdgpu@<min>:", when="amdgpu_target=<t>")`
    /// ([`ROCM_TARGETS`]).
    Rocm,
}

impl Inherited {
    /// Nothing declared.
    pub const NONE: Inherited = Inherited::same(&[]);

    /// The same declarations in both releases.
    const fn same(deps: &'static [InheritedDep]) -> Self {
        Inherited {
            v0_23: deps,
            v1: deps,
            per_arch: PerArch::None,
        }
    }

    const fn per_arch(self, per_arch: PerArch) -> Self {
        Inherited { per_arch, ..self }
    }
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
        parents: &[],
        inherited: Inherited::NONE,
    }
}

impl BaseClass {
    const fn inherits(self, parents: &'static [&'static str], inherited: Inherited) -> Self {
        BaseClass {
            parents,
            inherited,
            ..self
        }
    }
}

const B: &[&str] = &["build"];
const BL: &[&str] = &["build", "link"];
const BR: &[&str] = &["build", "run"];

const ASPELL_DICT: Inherited = Inherited::same(&[("aspell", "build_system=autotools", BR)]);

/// Unchanged in 1.x.
const AUTOTOOLS: Inherited = Inherited::same(&[
    ("gmake", "build_system=autotools", B),
    ("gnuconfig", "build_system=autotools target=aarch64:", B),
    ("gnuconfig", "build_system=autotools target=ppc64le:", B),
    ("gnuconfig", "build_system=autotools target=riscv64:", B),
]);

/// 1.x adds the C and C++ language virtuals.
const CACHED_CMAKE: Inherited = Inherited {
    v0_23: &[],
    v1: &[("c", "", B), ("cxx", "", B)],
    per_arch: PerArch::None,
};

const CARGO: Inherited = Inherited::same(&[("rust", "build_system=cargo", B)]);

/// Language virtuals (c, cxx, fortran) are NOT inherited: recipes
/// declare them, and they count in S_d.
const CMAKE: Inherited = Inherited::same(&[
    ("cmake", "build_system=cmake", B),
    ("gmake", "build_system=cmake generator=make", B),
    ("ninja", "build_system=cmake generator=ninja", B),
]);

/// Plus one `cuda@<range>` per `cuda_arch` value (CUDA_ARCHS_*).
const CUDA: Inherited = Inherited::same(&[("cuda", "+cuda", BL)]).per_arch(PerArch::Cuda);

/// 0.23 extends go@1.14: for building; 1.x depends on plain go.
const GO: Inherited = Inherited {
    v0_23: &[("go@1.14:", "build_system=go", B)],
    v1: &[("go", "build_system=go", B)],
    per_arch: PerArch::None,
};

const INTEL_ONE_API_LIBRARY: Inherited = Inherited {
    v0_23: &[],
    v1: &[("c", "", B)],
    per_arch: PerArch::None,
};

const LUA: Inherited = Inherited::same(&[
    ("lua", "build_system=lua ^[virtuals=lua-lang] lua", BR),
    ("lua-lang", "build_system=lua", BL),
    (
        "lua-luajit+lualinks",
        "build_system=lua ^[virtuals=lua-lang] lua-luajit",
        BR,
    ),
    (
        "lua-luajit-openresty+lualinks",
        "build_system=lua ^[virtuals=lua-lang] lua-luajit-openresty",
        BR,
    ),
]);

const MAKEFILE: Inherited = Inherited::same(&[("gmake", "build_system=makefile", B)]);

const MAVEN: Inherited = Inherited::same(&[
    ("java", "build_system=maven", BR),
    ("maven", "build_system=maven", B),
]);

/// 1.x adds pkgconfig on the three Unix platforms.
const MESON: Inherited = Inherited {
    v0_23: &[
        ("meson", "build_system=meson", B),
        ("ninja", "build_system=meson", B),
    ],
    v1: &[
        ("meson", "build_system=meson", B),
        ("ninja", "build_system=meson", B),
        ("pkgconfig", "build_system=meson platform=darwin", B),
        ("pkgconfig", "build_system=meson platform=freebsd", B),
        ("pkgconfig", "build_system=meson platform=linux", B),
    ],
    per_arch: PerArch::None,
};

const OCTAVE: Inherited = Inherited::same(&[("octave", "build_system=octave", BR)]);

/// 1.x adds gmake.
const PERL: Inherited = Inherited {
    v0_23: &[("perl", "build_system=perl", BR)],
    v1: &[
        ("gmake", "build_system=perl", B),
        ("perl", "build_system=perl", BR),
    ],
    per_arch: PerArch::None,
};

const PYTHON: Inherited = Inherited::same(&[
    ("py-pip", "build_system=python_pip", B),
    ("py-wheel", "build_system=python_pip", B),
    ("python", "build_system=python_pip", BR),
    ("python-venv", "build_system=python_pip", BR),
]);

/// 1.x adds an unconditional gmake.
const QMAKE: Inherited = Inherited {
    v0_23: &[("qmake", "build_system=qmake", B)],
    v1: &[("gmake", "", B), ("qmake", "build_system=qmake", B)],
    per_arch: PerArch::None,
};

const RACKET: Inherited = Inherited::same(&[("racket", "build_system=racket", BR)]);

/// Plus one `llvm-amdgpu@<min>:` per newer `amdgpu_target` (ROCM_TARGETS).
/// 1.x narrows llvm-amdgpu to a build dependency.
const ROCM: Inherited = Inherited {
    v0_23: &[
        ("hip+rocm", "+rocm", BL),
        ("hsa-rocr-dev", "+rocm", BL),
        ("llvm-amdgpu", "+rocm", BL),
    ],
    v1: &[
        ("hip+rocm", "+rocm", BL),
        ("hsa-rocr-dev", "+rocm", BL),
        ("llvm-amdgpu", "+rocm", B),
    ],
    per_arch: PerArch::None,
}
.per_arch(PerArch::Rocm);

/// 1.x adds gmake when any compiled language is used.
const R: Inherited = Inherited {
    v0_23: &[("r", "", BR)],
    v1: &[
        ("gmake", "%c", B),
        ("gmake", "%cxx", B),
        ("gmake", "%fortran", B),
        ("r", "", BR),
    ],
    per_arch: PerArch::None,
};

const RUBY: Inherited = Inherited::same(&[("ruby", "build_system=ruby", BR)]);

const SCONS: Inherited = Inherited::same(&[("scons", "build_system=scons", B)]);

/// `extends("python", type=(build, link, run))`; 1.x adds gmake.
const SIP: Inherited = Inherited {
    v0_23: &[
        ("py-sip", "build_system=sip", B),
        ("python", "build_system=sip", &["build", "link", "run"]),
        ("python-venv", "build_system=sip", BR),
    ],
    v1: &[
        ("gmake", "build_system=sip", B),
        ("py-sip", "build_system=sip", B),
        ("python", "build_system=sip", &["build", "link", "run"]),
        ("python-venv", "build_system=sip", BR),
    ],
    per_arch: PerArch::None,
};

const WAF: Inherited = Inherited::same(&[("python@2.5:", "build_system=waf", B)]);

/// Every builtin base class, sorted by name.
pub const BASE_CLASSES: &[BaseClass] = &[
    class("AspellDictPackage", "aspell_dict", Some("autotools"))
        .inherits(&["AutotoolsPackage"], ASPELL_DICT),
    class("AutotoolsPackage", "autotools", Some("autotools")).inherits(&[], AUTOTOOLS),
    class("BundlePackage", "bundle", Some("bundle")),
    class("CMakePackage", "cmake", Some("cmake")).inherits(&[], CMAKE),
    class("CachedCMakePackage", "cached_cmake", Some("cmake"))
        .inherits(&["CMakePackage"], CACHED_CMAKE),
    class("CargoPackage", "cargo", Some("cargo")).inherits(&[], CARGO),
    class("CompilerPackage", "compiler", None),
    class("CudaPackage", "cuda", None).inherits(&[], CUDA),
    class("GNUMirrorPackage", "gnu", Some("autotools")),
    class("GoPackage", "go", Some("go")).inherits(&[], GO),
    class("IntelOneApiLibraryPackage", "oneapi", Some("generic"))
        .inherits(&["IntelOneApiPackage"], INTEL_ONE_API_LIBRARY),
    class("IntelOneApiLibraryPackageWithSdk", "oneapi", None),
    class("IntelOneApiPackage", "oneapi", Some("generic")),
    class("IntelOneApiStaticLibraryList", "oneapi", None),
    class("IntelPackage", "intel", None),
    class("LuaPackage", "lua", Some("lua")).inherits(&[], LUA),
    class("MSBuildPackage", "msbuild", Some("msbuild")),
    class("MakefilePackage", "makefile", Some("makefile")).inherits(&[], MAKEFILE),
    class("MavenPackage", "maven", Some("maven")).inherits(&[], MAVEN),
    class("MesonPackage", "meson", Some("meson")).inherits(&[], MESON),
    class("NMakePackage", "nmake", Some("nmake")),
    class("OctavePackage", "octave", Some("octave")).inherits(&[], OCTAVE),
    // The generic build system declares nothing.
    class("Package", "generic", Some("generic")),
    class("PerlPackage", "perl", Some("perl")).inherits(&[], PERL),
    class("PythonExtension", "python", None),
    class("PythonPackage", "python", Some("python_pip")).inherits(&[], PYTHON),
    class("QMakePackage", "qmake", Some("qmake")).inherits(&[], QMAKE),
    class("ROCmPackage", "rocm", None).inherits(&[], ROCM),
    class("RPackage", "r", Some("r")).inherits(&[], R),
    class("RacketPackage", "racket", Some("racket")).inherits(&[], RACKET),
    class("RubyPackage", "ruby", Some("ruby")).inherits(&[], RUBY),
    class("SConsPackage", "scons", Some("scons")).inherits(&[], SCONS),
    class("SIPPackage", "sip", Some("sip")).inherits(&[], SIP),
    class("SourceforgePackage", "sourceforge", None),
    class("SourcewarePackage", "sourceware", None),
    class("WafPackage", "waf", Some("waf")).inherits(&[], WAF),
    class("XorgPackage", "xorg", None),
];

/// `(cuda_arch, cuda version range)`: CudaPackage's
/// `depends_on("cuda@<range>", when="cuda_arch=<arch>")`, Spack 0.23.
#[rustfmt::skip]
pub const CUDA_ARCHS_0_23: &[(&str, &str)] = &[
    ("10", ":6.0"), ("11", ":6.5"), ("12", "2.1:6.5"), ("13", "2.1:6.5"),
    ("20", "3.0:8.0"), ("21", "3.2:8.0"), ("30", "5.0:10.2"), ("32", "5.0:10.2"),
    ("35", "5.0:"), ("37", "6.5:"), ("50", "6.0:"), ("52", "6.5:"), ("53", "6.5:"),
    ("60", "8.0:"), ("61", "8.0:"), ("62", "8.0:"), ("70", "9.0:"), ("72", "9.0:"),
    ("75", "10.0:"), ("80", "11.0:"), ("86", "11.1:"), ("87", "11.4:"), ("89", "11.8:"),
    ("90", "12.0:"),
];

/// The same for 1.x: upper bounds for dropped architectures and the
/// Blackwell (`100`..`121`, with `a`/`f` feature suffixes) entries.
#[rustfmt::skip]
pub const CUDA_ARCHS_1: &[(&str, &str)] = &[
    ("10", ":6.0"), ("11", ":6.5"), ("12", "2.1:6.5"), ("13", "2.1:6.5"),
    ("20", "3.0:8.0"), ("21", "3.2:8.0"), ("30", "5.0:10.2"), ("32", "5.0:10.2"),
    ("35", "5.0:11.8"), ("37", "6.5:11.8"), ("50", "6.0:12.9"), ("52", "6.5:12.9"),
    ("53", "6.5:12.9"), ("60", "8.0:12.9"), ("61", "8.0:12.9"), ("62", "8.0:12.9"),
    ("70", "9.0:12.9"), ("72", "9.0:"), ("75", "10.0:"), ("80", "11.0:"), ("86", "11.1:"),
    ("87", "11.4:"), ("89", "11.8:"), ("90", "12.0:"), ("90a", "12.0:"), ("100", "12.8:"),
    ("100a", "12.8:"), ("100f", "12.9:"), ("103", "12.9:"), ("103a", "12.9:"),
    ("103f", "12.9:"), ("101", "12.8:12.9"), ("101a", "12.8:12.9"), ("101f", "12.9"),
    ("110", "13.0:"), ("110a", "13.0:"), ("110f", "13.0:"), ("120", "12.8:"),
    ("120a", "12.8:"), ("120f", "12.9:"), ("121", "12.9:"), ("121a", "12.9:"),
    ("121f", "12.9:"),
];

/// `(amdgpu_target, minimum llvm-amdgpu)`: ROCmPackage, same in both releases.
#[rustfmt::skip]
pub const ROCM_TARGETS: &[(&str, &str)] = &[
    ("gfx940", "5.2.0"), ("gfx941", "5.7.0"), ("gfx942", "5.7.0"), ("gfx1036", "5.2.0"),
    ("gfx1100", "5.3.0"), ("gfx1101", "5.3.0"), ("gfx1102", "5.3.0"), ("gfx1103", "5.3.0"),
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
    fn every_parent_is_a_row_and_no_class_is_its_own_ancestor() {
        for class in BASE_CLASSES {
            let mut todo: Vec<&str> = class.parents.to_vec();
            let mut seen = 0;
            while let Some(parent) = todo.pop() {
                assert_ne!(parent, class.name, "{} derives from itself", class.name);
                let row = base_class(parent)
                    .unwrap_or_else(|| panic!("{}: parent {parent} is not a row", class.name));
                todo.extend(row.parents);
                seen += 1;
                assert!(seen < BASE_CLASSES.len(), "{}: parent cycle", class.name);
            }
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
