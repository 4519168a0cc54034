//! What each common build-system base class declares as dependencies, so
//! that S_d can drop what a recipe merely inherits (SpackIt's
//! `data/buildsys.pkl`). Facts read from Spack 0.23
//! (`lib/spack/spack/build_systems/*.py`) and from spack-packages 1.x
//! (`repos/spack_repo/builtin/build_systems/*.py`).
//!
//! Conventions: `when` is the full condition after nesting `with when(...)`
//! blocks, in canonical spec form; `extends(x)` declares `x` with types
//! build+run, and extending `python` also adds `python-venv`; a plain
//! `depends_on` without `type=` is build+link. A class lists only its own
//! directives; [`inherited_dependencies`] adds those of its parents.

use super::ScoreDep;

/// Which Spack the reference recipes come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SpackRelease {
    /// Spack 0.23, `spack.build_systems`.
    V0_23,
    /// Spack 1.x with the separate spack-packages repository (SpackIt's
    /// container ran this).
    #[default]
    V1,
}

const B: &[&str] = &["build"];
const BL: &[&str] = &["build", "link"];
const BR: &[&str] = &["build", "run"];

/// `(spec, when, types)`; an empty `when` means unconditional.
type Decl = (&'static str, &'static str, &'static [&'static str]);

struct BaseClass {
    name: &'static str,
    parents: &'static [&'static str],
    v0_23: &'static [Decl],
    v1: &'static [Decl],
    /// Per-architecture `cuda@...`/`llvm-amdgpu@...` bounds, expanded below.
    arch_table: ArchTable,
}

#[derive(Clone, Copy)]
enum ArchTable {
    None,
    Cuda,
    Rocm,
}

// keep-sorted start: one entry per class, by name.
const BASE_CLASSES: &[BaseClass] = &[
    BaseClass {
        name: "AspellDictPackage",
        parents: &["AutotoolsPackage"],
        v0_23: &[("aspell", "build_system=autotools", BR)],
        v1: &[("aspell", "build_system=autotools", BR)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "AutotoolsPackage",
        parents: &[],
        v0_23: &[
            ("gmake", "build_system=autotools", B),
            ("gnuconfig", "build_system=autotools target=aarch64:", B),
            ("gnuconfig", "build_system=autotools target=ppc64le:", B),
            ("gnuconfig", "build_system=autotools target=riscv64:", B),
        ],
        // Unchanged in 1.x.
        v1: &[
            ("gmake", "build_system=autotools", B),
            ("gnuconfig", "build_system=autotools target=aarch64:", B),
            ("gnuconfig", "build_system=autotools target=ppc64le:", B),
            ("gnuconfig", "build_system=autotools target=riscv64:", B),
        ],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "BundlePackage",
        parents: &[],
        v0_23: &[],
        v1: &[],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // 1.x adds the C and C++ language virtuals.
        name: "CachedCMakePackage",
        parents: &["CMakePackage"],
        v0_23: &[],
        v1: &[("c", "", B), ("cxx", "", B)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "CargoPackage",
        parents: &[],
        v0_23: &[("rust", "build_system=cargo", B)],
        v1: &[("rust", "build_system=cargo", B)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // Language virtuals (c, cxx, fortran) are NOT inherited: recipes
        // declare them, and they count in S_d.
        name: "CMakePackage",
        parents: &[],
        v0_23: &[
            ("cmake", "build_system=cmake", B),
            ("gmake", "build_system=cmake generator=make", B),
            ("ninja", "build_system=cmake generator=ninja", B),
        ],
        v1: &[
            ("cmake", "build_system=cmake", B),
            ("gmake", "build_system=cmake generator=make", B),
            ("ninja", "build_system=cmake generator=ninja", B),
        ],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // Plus one `cuda@<range>` per `cuda_arch` value (CUDA_ARCHS_*).
        name: "CudaPackage",
        parents: &[],
        v0_23: &[("cuda", "+cuda", BL)],
        v1: &[("cuda", "+cuda", BL)],
        arch_table: ArchTable::Cuda,
    },
    BaseClass {
        // 0.23 extends go@1.14: for building; 1.x depends on plain go.
        name: "GoPackage",
        parents: &[],
        v0_23: &[("go@1.14:", "build_system=go", B)],
        v1: &[("go", "build_system=go", B)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "IntelOneApiLibraryPackage",
        parents: &["IntelOneApiPackage"],
        v0_23: &[],
        v1: &[("c", "", B)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "IntelOneApiPackage",
        parents: &[],
        v0_23: &[],
        v1: &[],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "LuaPackage",
        parents: &[],
        v0_23: &[
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
        ],
        v1: &[
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
        ],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "MakefilePackage",
        parents: &[],
        v0_23: &[("gmake", "build_system=makefile", B)],
        v1: &[("gmake", "build_system=makefile", B)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "MavenPackage",
        parents: &[],
        v0_23: &[
            ("java", "build_system=maven", BR),
            ("maven", "build_system=maven", B),
        ],
        v1: &[
            ("java", "build_system=maven", BR),
            ("maven", "build_system=maven", B),
        ],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // 1.x adds pkgconfig on the three Unix platforms.
        name: "MesonPackage",
        parents: &[],
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
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "OctavePackage",
        parents: &[],
        v0_23: &[("octave", "build_system=octave", BR)],
        v1: &[("octave", "build_system=octave", BR)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // The generic build system declares nothing.
        name: "Package",
        parents: &[],
        v0_23: &[],
        v1: &[],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // 1.x adds gmake.
        name: "PerlPackage",
        parents: &[],
        v0_23: &[("perl", "build_system=perl", BR)],
        v1: &[
            ("gmake", "build_system=perl", B),
            ("perl", "build_system=perl", BR),
        ],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "PythonPackage",
        parents: &[],
        v0_23: &[
            ("py-pip", "build_system=python_pip", B),
            ("py-wheel", "build_system=python_pip", B),
            ("python", "build_system=python_pip", BR),
            ("python-venv", "build_system=python_pip", BR),
        ],
        v1: &[
            ("py-pip", "build_system=python_pip", B),
            ("py-wheel", "build_system=python_pip", B),
            ("python", "build_system=python_pip", BR),
            ("python-venv", "build_system=python_pip", BR),
        ],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // 1.x adds an unconditional gmake.
        name: "QMakePackage",
        parents: &[],
        v0_23: &[("qmake", "build_system=qmake", B)],
        v1: &[("gmake", "", B), ("qmake", "build_system=qmake", B)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "RacketPackage",
        parents: &[],
        v0_23: &[("racket", "build_system=racket", BR)],
        v1: &[("racket", "build_system=racket", BR)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // Plus one `llvm-amdgpu@<min>:` per newer `amdgpu_target` (ROCM_TARGETS).
        // 1.x narrows llvm-amdgpu to a build dependency.
        name: "ROCmPackage",
        parents: &[],
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
        arch_table: ArchTable::Rocm,
    },
    BaseClass {
        // 1.x adds gmake when any compiled language is used.
        name: "RPackage",
        parents: &[],
        v0_23: &[("r", "", BR)],
        v1: &[
            ("gmake", "%c", B),
            ("gmake", "%cxx", B),
            ("gmake", "%fortran", B),
            ("r", "", BR),
        ],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "RubyPackage",
        parents: &[],
        v0_23: &[("ruby", "build_system=ruby", BR)],
        v1: &[("ruby", "build_system=ruby", BR)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "SConsPackage",
        parents: &[],
        v0_23: &[("scons", "build_system=scons", B)],
        v1: &[("scons", "build_system=scons", B)],
        arch_table: ArchTable::None,
    },
    BaseClass {
        // `extends("python", type=(build, link, run))`; 1.x adds gmake.
        name: "SIPPackage",
        parents: &[],
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
        arch_table: ArchTable::None,
    },
    BaseClass {
        name: "WafPackage",
        parents: &[],
        v0_23: &[("python@2.5:", "build_system=waf", B)],
        v1: &[("python@2.5:", "build_system=waf", B)],
        arch_table: ArchTable::None,
    },
];
// keep-sorted end

/// `(cuda_arch, cuda version range)`: CudaPackage's
/// `depends_on("cuda@<range>", when="cuda_arch=<arch>")`, Spack 0.23.
#[rustfmt::skip]
const CUDA_ARCHS_0_23: &[(&str, &str)] = &[
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
const CUDA_ARCHS_1: &[(&str, &str)] = &[
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
const ROCM_TARGETS: &[(&str, &str)] = &[
    ("gfx940", "5.2.0"), ("gfx941", "5.7.0"), ("gfx942", "5.7.0"), ("gfx1036", "5.2.0"),
    ("gfx1100", "5.3.0"), ("gfx1101", "5.3.0"), ("gfx1102", "5.3.0"), ("gfx1103", "5.3.0"),
];

/// Names of the base classes the table knows.
pub fn known_base_classes() -> impl Iterator<Item = &'static str> {
    BASE_CLASSES.iter().map(|b| b.name)
}

/// Every dependency a recipe inherits from `base` (its own directives and
/// its parents'), or an empty list for an unknown class.
pub fn inherited_dependencies(base: &str, release: SpackRelease) -> Vec<ScoreDep> {
    let Some(class) = BASE_CLASSES.iter().find(|b| b.name == base) else {
        return Vec::new();
    };
    let decls = match release {
        SpackRelease::V0_23 => class.v0_23,
        SpackRelease::V1 => class.v1,
    };
    let to_dep = |spec: String, when: &str, types: &[&str]| ScoreDep {
        spec,
        when: (!when.is_empty()).then(|| when.to_string()),
        types: types.iter().map(|t| t.to_string()).collect(),
    };
    let mut deps: Vec<ScoreDep> = class
        .parents
        .iter()
        .flat_map(|p| inherited_dependencies(p, release))
        .chain(decls.iter().map(|(s, w, t)| to_dep(s.to_string(), w, t)))
        .collect();
    match class.arch_table {
        ArchTable::None => {}
        ArchTable::Cuda => {
            let table = match release {
                SpackRelease::V0_23 => CUDA_ARCHS_0_23,
                SpackRelease::V1 => CUDA_ARCHS_1,
            };
            deps.extend(table.iter().map(|(arch, range)| {
                to_dep(format!("cuda@{range}"), &format!("cuda_arch={arch}"), BL)
            }));
        }
        ArchTable::Rocm => {
            deps.extend(ROCM_TARGETS.iter().map(|(target, min)| {
                to_dep(
                    format!("llvm-amdgpu@{min}:"),
                    &format!("amdgpu_target={target}"),
                    BL,
                )
            }));
        }
    }
    deps
}
