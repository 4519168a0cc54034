//! Externals: the packages Spack detects itself, and packsmith's own
//! detection (pkg-config files, headers) for libraries Spack has no
//! detector for.

use std::path::Path;
use std::time::Duration;

use packsmith_exec::CommandSpec;

use super::build_backends::BUILD_BACKENDS;
use super::python_sites;
use crate::validate::hermetic::DEFAULT_LIBRARY_DIRS;

/// One probe (a pkg-config or python query) never holds the set-up up longer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// Packages handed to `spack external find`.
pub(crate) const SPACK_DETECTABLE: &[&str] = &[
    "cmake",
    "gmake",
    "autoconf",
    "automake",
    "libtool",
    "m4",
    "pkgconf",
    "perl",
    "python",
    "git",
    "openssl",
    "openmpi",
    "mpich",
    "hwloc",
    "bison",
    "flex",
    "ninja",
    "meson",
    "curl",
    "tar",
    "gawk",
    "diffutils",
    "findutils",
    "sed",
    "xz",
    "bzip2",
    "zstd",
    "texinfo",
    "nasm",
    "doxygen",
];

/// The PATH Spack's detection searches: the user's PATH without version
/// managers' shims (pyenv, rbenv, asdf) and without anything under the home
/// directory, so an external is a system package, never a shim that
/// resolves per shell or a copy only one user has.
pub(crate) fn system_path() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    system_path_of(&path, home.as_deref())
}

fn system_path_of(path: &std::ffi::OsStr, home: Option<&std::path::Path>) -> std::ffi::OsString {
    let kept: Vec<std::path::PathBuf> = std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| !dir.components().any(|c| c.as_os_str() == "shims"))
        .filter(|dir| home.is_none_or(|h| h.as_os_str().len() <= 1 || !dir.starts_with(h)))
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
}

/// Spack package name and the pkg-config module that reveals it.
const PKG_CONFIG: &[(&str, &str)] = &[
    ("zlib", "zlib"),
    ("bzip2", "bzip2"),
    ("xz", "liblzma"),
    ("zstd", "libzstd"),
    ("lz4", "liblz4"),
    ("openssl", "openssl"),
    ("fmt", "fmt"),
    ("gsl", "gsl"),
    ("openblas", "openblas"),
    ("fftw", "fftw3"),
    ("hdf5", "hdf5"),
    ("netcdf-c", "netcdf"),
    ("hwloc", "hwloc"),
    ("elfutils", "libelf"),
    ("googletest", "gtest"),
    ("py-pybind11", "pybind11"),
    ("eigen", "eigen3"),
    ("libxml2", "libxml-2.0"),
    ("sqlite", "sqlite3"),
    ("ncurses", "ncurses"),
    ("readline", "readline"),
    ("libtiff", "libtiff-4"),
    ("libjpeg-turbo", "libjpeg"),
    ("libpng", "libpng"),
    ("libffi", "libffi"),
    ("expat", "expat"),
    ("yaml-cpp", "yaml-cpp"),
    ("nlohmann-json", "nlohmann_json"),
    ("gmp", "gmp"),
    ("glib", "glib-2.0"),
    ("netcdf-fortran", "netcdf-fortran"),
    ("libx11", "x11"),
    ("cli11", "CLI11"),
    ("libdrm", "libdrm"),
    ("pugixml", "pugixml"),
    ("libuv", "libuv"),
    ("json-c", "json-c"),
    ("pcre2", "libpcre2-8"),
    ("libyaml", "yaml-0.1"),
    ("spdlog", "spdlog"),
    ("libzip", "libzip"),
    ("libconfig", "libconfig"),
    ("libtirpc", "libtirpc"),
    ("alsa-lib", "alsa"),
    ("libunwind", "libunwind"),
    ("gflags", "gflags"),
    ("rapidjson", "RapidJSON"),
    ("numactl", "numa"),
    ("libxext", "xext"),
    ("arpack-ng", "arpack"),
    ("libxc", "libxc"),
    ("givaro", "givaro"),
];

/// Python packages Spack recipes need that Debian ships for its python3
/// (the `python` external): Spack package and the distribution whose
/// installed files `importlib.metadata` lists. Each is declared at a prefix
/// of its own that links those files (see `python_sites`).
const PYTHON_DISTRIBUTIONS: &[(&str, &str)] = &[
    ("py-pip", "pip"),
    ("py-setuptools", "setuptools"),
    ("py-wheel", "wheel"),
    ("py-numpy", "numpy"),
    ("py-setuptools-scm", "setuptools-scm"),
    ("py-packaging", "packaging"),
    ("py-pyyaml", "PyYAML"),
    ("py-requests", "requests"),
    ("py-typing-extensions", "typing_extensions"),
    ("py-hatchling", "hatchling"),
    ("py-cython", "Cython"),
    ("py-scipy", "scipy"),
    ("py-matplotlib", "matplotlib"),
    ("py-pandas", "pandas"),
    ("py-lxml", "lxml"),
    ("py-python-dateutil", "python-dateutil"),
    ("py-colorama", "colorama"),
    ("py-chardet", "chardet"),
    ("py-flit-core", "flit_core"),
    ("py-hatch-vcs", "hatch-vcs"),
    ("py-cryptography", "cryptography"),
    ("py-importlib-metadata", "importlib-metadata"),
    ("py-click", "click"),
    ("py-tqdm", "tqdm"),
    // Debian's python3-pybind11: the module a setup.py imports for its
    // include directory. Without it, pybind11-dev's pkg-config entry stands
    // for py-pybind11 (headers and CMake files only).
    ("py-pybind11", "pybind11"),
];

/// One package packsmith found on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnExternal {
    pub package: String,
    pub version: String,
    /// Variants the host build has (`+hl`, `+thread`).
    pub variants: String,
    pub prefix: String,
}

impl OwnExternal {
    /// The `spec:` of its packages.yaml entry.
    pub fn spec(&self) -> String {
        format!("{}@{}{}", self.package, self.version, self.variants)
    }
}

/// Everything found through pkg-config, Boost's version header and the
/// system python; the Python distributions' prefixes are made under
/// `python_sites`.
pub fn detect_own_externals(python_sites: &Path, backends: Option<&Path>) -> Vec<OwnExternal> {
    let python = python_externals(python_sites, backends);
    let mut found: Vec<OwnExternal> = PKG_CONFIG
        .iter()
        .filter(|(package, _)| !python.iter().any(|p| p.package == *package))
        .filter_map(|(package, module)| from_pkg_config(package, module))
        .collect();
    found.extend(python);
    if let Ok(text) = std::fs::read_to_string("/usr/include/boost/version.hpp") {
        if let Some(version) = boost_version(&text) {
            found.push(OwnExternal {
                package: "boost".into(),
                version,
                variants: boost_variants(&library_names(DEFAULT_LIBRARY_DIRS)),
                prefix: "/usr".into(),
            });
        }
    }
    found
}

/// The Boost library files in the directories the dynamic linker searches.
fn library_names(dirs: &[&str]) -> Vec<String> {
    dirs.iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|entries| entries.flatten())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("libboost_"))
        .collect()
}

/// Spack's Boost variants of a compiled library, each with the start of
/// its shared library's file name (Debian names Boost.Python after the
/// Python it was built for: `libboost_python311.so`).
const BOOST_COMPILED: &[(&str, &str)] = &[
    ("atomic", "libboost_atomic."),
    ("chrono", "libboost_chrono."),
    ("container", "libboost_container."),
    ("context", "libboost_context."),
    ("contract", "libboost_contract."),
    ("coroutine", "libboost_coroutine."),
    ("date_time", "libboost_date_time."),
    ("fiber", "libboost_fiber."),
    ("filesystem", "libboost_filesystem."),
    ("graph", "libboost_graph."),
    ("iostreams", "libboost_iostreams."),
    ("json", "libboost_json."),
    ("locale", "libboost_locale."),
    ("log", "libboost_log."),
    ("math", "libboost_math_"),
    ("mpi", "libboost_mpi."),
    ("nowide", "libboost_nowide."),
    ("program_options", "libboost_program_options."),
    ("python", "libboost_python3"),
    ("numpy", "libboost_numpy3"),
    ("random", "libboost_random."),
    ("regex", "libboost_regex."),
    ("serialization", "libboost_serialization."),
    ("stacktrace", "libboost_stacktrace_"),
    ("system", "libboost_system."),
    ("test", "libboost_unit_test_framework."),
    ("thread", "libboost_thread."),
    ("timer", "libboost_timer."),
    ("type_erasure", "libboost_type_erasure."),
    ("wave", "libboost_wave."),
];

/// The host Boost's variants: `+name` for each compiled library whose
/// shared library is installed (Spack's Boost variants default off, so
/// one not named is one the host lacks). Declaring a library the host
/// lacks lets Spack pick the external and the link fail.
fn boost_variants(files: &[String]) -> String {
    BOOST_COMPILED
        .iter()
        .filter(|(_, start)| {
            files
                .iter()
                .any(|f| f.starts_with(start) && f.contains(".so"))
        })
        .map(|(variant, _)| format!("+{variant}"))
        .collect()
}

fn from_pkg_config(package: &str, module: &str) -> Option<OwnExternal> {
    let version = pkg_config(&["--modversion", module])?;
    let libs_only_l = pkg_config(&["--libs-only-L", module]);
    let prefix = install_prefix(
        pkg_config(&["--variable=prefix", module]).as_deref(),
        libs_only_l.as_deref(),
        &|dir| {
            let dir = Path::new(dir);
            dir.join("include").is_dir() && dir.join("lib").is_dir()
        },
    );
    let variants = match package {
        "hdf5" => hdf5_variants(
            libs_only_l.as_deref(),
            pkg_config(&["--exists", "hdf5_hl"]).is_some(),
        ),
        "netcdf-c" => netcdf_variants(nc_config_parallel().as_deref()),
        _ => String::new(),
    };
    Some(OwnExternal {
        package: package.into(),
        version: clean_version(&version),
        variants,
        prefix,
    })
}

/// The host HDF5's variants: `+hl` when its high-level library has a
/// module of its own, and whether it was built for MPI, read from the
/// directory its libraries are in (Debian's `hdf5/serial` and
/// `hdf5/openmpi`). A serial HDF5 declared without `~mpi` lets Spack
/// pick it for `hdf5+mpi`, and the link fails on `H5Pset_fapl_mpio`.
fn hdf5_variants(libs_only_l: Option<&str>, hl: bool) -> String {
    let dirs = libs_only_l.unwrap_or_default();
    let mut variants = String::from(if hl { "+hl" } else { "" });
    if dirs.contains("/hdf5/serial") {
        variants.push_str("~mpi");
    } else if dirs.contains("/hdf5/openmpi") || dirs.contains("/hdf5/mpich") {
        variants.push_str("+mpi");
    }
    variants
}

/// The system python's distributions, each at a prefix of its own under
/// `root`; one whose prefix cannot be made is left out (Spack then builds
/// or lacks it, as without the external). `backends`: the set-up's build
/// backends from PyPI, which stand for the system's of the same package.
fn python_externals(root: &Path, backends: Option<&Path>) -> Vec<OwnExternal> {
    let from_pypi =
        |package: &str| backends.is_some() && BUILD_BACKENDS.iter().any(|(p, _, _)| *p == package);
    let names: Vec<&str> = PYTHON_DISTRIBUTIONS
        .iter()
        .filter(|(package, _)| !from_pypi(package))
        .map(|(_, d)| *d)
        .collect();
    let (sites, mut dists) = python_sites::probe(&names, None);
    if let Some(dir) = backends {
        let names: Vec<&str> = BUILD_BACKENDS.iter().map(|(_, d, _)| *d).collect();
        let (_, pypi) = python_sites::probe(&names, Some(dir));
        // Only what the directory itself holds: never the system's again.
        dists.extend(pypi.into_iter().filter(|(_, d)| d.base == dir));
    }
    if sites.is_empty() || std::fs::create_dir_all(root).is_err() {
        return Vec::new();
    }
    // The backends are among PYTHON_DISTRIBUTIONS: only where their files
    // come from differs.
    PYTHON_DISTRIBUTIONS
        .iter()
        .filter_map(|(package, name)| {
            let dist = dists.get(*name)?;
            let prefix = python_sites::make_site(root, package, &sites, dist).ok()?;
            Some(OwnExternal {
                package: (*package).into(),
                version: clean_version(&dist.version),
                variants: String::new(),
                prefix: prefix.display().to_string(),
            })
        })
        .collect()
}

/// The prefix Spack gets: pkg-config's own when it names a directory, else
/// the first `-L` directory when it is a prefix of its own (`is_tree`: it
/// holds `include/` and `lib/`, as Debian's `hdf5/serial` does, whose
/// headers are in no directory Spack's compiler wrapper adds for `/usr`),
/// else the part of that directory before its `lib…` component (Debian's
/// openblas.pc and hdf5.pc leave `prefix` empty), else `/usr`. An empty
/// prefix makes the whole packages.yaml invalid to Spack.
fn install_prefix(
    prefix: Option<&str>,
    libs_only_l: Option<&str>,
    is_tree: &dyn Fn(&str) -> bool,
) -> String {
    if let Some(p) = prefix.map(str::trim).filter(|p| p.starts_with('/')) {
        return p.trim_end_matches('/').to_string();
    }
    libs_only_l
        .and_then(|libs| {
            libs.split_whitespace()
                .find_map(|flag| flag.strip_prefix("-L"))
                .and_then(|dir| {
                    let whole = dir.trim_end_matches('/');
                    if whole.starts_with('/') && is_tree(whole) {
                        return Some(whole.to_string());
                    }
                    let cut = dir.find("/lib")?;
                    Some(dir[..cut].to_string()).filter(|p| p.starts_with('/'))
                })
        })
        .unwrap_or_else(|| "/usr".into())
}

fn pkg_config(args: &[&str]) -> Option<String> {
    let mut spec = CommandSpec::new("pkg-config").args(args.iter().copied());
    // The user's own module directories count, as for any pkg-config call.
    for key in ["PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR"] {
        if let Some(value) = std::env::var_os(key) {
            spec = spec.env(key, value);
        }
    }
    probe_output(spec)
}

/// What a host probe printed, trimmed, when it ran and exited 0.
fn probe_output(spec: CommandSpec) -> Option<String> {
    let out = packsmith_exec::run(&spec.timeout(PROBE_TIMEOUT)).ok()?;
    out.success().then(|| out.stdout.trim().to_string())
}

/// What `nc-config --has-parallel` answers (`yes`/`no`), when it runs.
fn nc_config_parallel() -> Option<String> {
    probe_output(CommandSpec::new("nc-config").arg("--has-parallel"))
}

/// The host netCDF-C's `mpi` variant from `nc-config --has-parallel`:
/// as for HDF5, a serial one declared without `~mpi` stands in for
/// `netcdf-c+mpi`.
fn netcdf_variants(has_parallel: Option<&str>) -> String {
    match has_parallel {
        Some("yes") => "+mpi".into(),
        Some("no") => "~mpi".into(),
        _ => String::new(),
    }
}

/// Spack versions are dotted numbers: `1.2.13-dfsg` becomes `1.2.13`.
pub(crate) fn clean_version(raw: &str) -> String {
    raw.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .unwrap_or(raw)
        .trim_end_matches('.')
        .to_string()
}

/// `#define BOOST_VERSION 108300` is 1.83.0.
pub(crate) fn boost_version(header: &str) -> Option<String> {
    let number: u32 = header.lines().find_map(|l| {
        l.trim()
            .strip_prefix("#define BOOST_VERSION ")
            .and_then(|v| v.trim().parse().ok())
    })?;
    Some(format!(
        "{}.{}.{}",
        number / 100_000,
        number / 100 % 1000,
        number % 100
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pybind11 is both a Python distribution (python3-pybind11) and a
    /// pkg-config module (pybind11-dev): declared once, as the distribution
    /// when the system python has it, so `import pybind11` works in a build.
    #[test]
    fn a_package_the_system_python_has_is_declared_once_as_its_distribution() {
        let sites = tempfile::tempdir().unwrap();
        let found = detect_own_externals(sites.path(), None);
        let pybind11: Vec<&OwnExternal> = found
            .iter()
            .filter(|e| e.package == "py-pybind11")
            .collect();
        assert!(pybind11.len() <= 1, "{pybind11:?}");
        let (_, dists) = python_sites::probe(&["pybind11"], None);
        if dists.contains_key("pybind11") {
            assert!(
                pybind11[0]
                    .prefix
                    .starts_with(&sites.path().display().to_string()),
                "{pybind11:?}"
            );
        } else {
            eprintln!("SKIPPED in part: the system python has no pybind11 (python3-pybind11)");
        }
    }

    #[test]
    fn boost_declares_the_compiled_libraries_the_host_has() {
        let files: Vec<String> = [
            "libboost_system.so",
            "libboost_system.so.1.74.0",
            "libboost_python311.so",
            "libboost_math_c99.so.1.74.0",
            "libboost_thread.a",
            "libboost_date_time.so",
        ]
        .map(String::from)
        .to_vec();
        // A static archive alone is no shared library to link against.
        assert_eq!(boost_variants(&files), "+date_time+math+python+system");
        assert_eq!(boost_variants(&[]), "");
    }

    #[test]
    fn detection_searches_no_shims_and_nothing_under_home() {
        let path = std::ffi::OsString::from(
            "/root/.pyenv/shims:/home/u/.asdf/shims:/home/u/bin:/usr/local/bin:/usr/bin:relative:/bin",
        );
        let kept = system_path_of(&path, Some(std::path::Path::new("/home/u")));
        assert_eq!(kept, "/usr/local/bin:/usr/bin:/bin");
        // No home known: only the shims go.
        let kept = system_path_of(&path, None);
        assert_eq!(kept, "/home/u/bin:/usr/local/bin:/usr/bin:/bin");
    }

    #[test]
    fn every_build_backend_from_pypi_is_a_python_distribution_of_the_setup() {
        for (package, dist, _) in BUILD_BACKENDS {
            assert!(
                PYTHON_DISTRIBUTIONS.contains(&(package, dist)),
                "{package} ({dist}) is not in PYTHON_DISTRIBUTIONS"
            );
        }
    }

    #[test]
    fn versions_are_cleaned_for_spack() {
        assert_eq!(clean_version("1.2.13-dfsg"), "1.2.13");
        assert_eq!(clean_version("3.0.13"), "3.0.13");
        assert_eq!(
            boost_version("#define BOOST_VERSION 108300\n").as_deref(),
            Some("1.83.0")
        );
        assert_eq!(boost_version("nothing"), None);
    }

    #[test]
    fn a_serial_hdf5_is_declared_without_mpi() {
        let serial = Some("-L/usr/lib/x86_64-linux-gnu/hdf5/serial");
        assert_eq!(hdf5_variants(serial, false), "~mpi");
        assert_eq!(hdf5_variants(serial, true), "+hl~mpi");
        let parallel = Some("-L/usr/lib/x86_64-linux-gnu/hdf5/openmpi");
        assert_eq!(hdf5_variants(parallel, false), "+mpi");
        // Nothing says which: nothing is claimed.
        assert_eq!(hdf5_variants(Some("-L/opt/hdf5/lib"), false), "");
        assert_eq!(hdf5_variants(None, false), "");
        assert_eq!(netcdf_variants(Some("no")), "~mpi");
        assert_eq!(netcdf_variants(Some("yes")), "+mpi");
        assert_eq!(netcdf_variants(None), "");
    }

    #[test]
    fn an_empty_pkg_config_prefix_falls_back_to_the_library_directory() {
        let no_tree = |_: &str| false;
        assert_eq!(install_prefix(Some("/opt/x/"), None, &no_tree), "/opt/x");
        let serial = "/usr/lib/x86_64-linux-gnu/hdf5/serial";
        assert_eq!(
            install_prefix(Some(""), Some(&format!("-L{serial}")), &no_tree),
            "/usr"
        );
        assert_eq!(
            install_prefix(Some(""), Some("-L/opt/ob/lib64 -L/other/lib"), &no_tree),
            "/opt/ob"
        );
        assert_eq!(install_prefix(None, Some(""), &no_tree), "/usr");
        assert_eq!(install_prefix(Some("${pcfiledir}"), None, &no_tree), "/usr");
        // Debian's HDF5 directory holds include/ and lib/ of its own: it is
        // the prefix, so the wrapper adds its headers; pkg-config's own
        // prefix still wins.
        let is_serial = |d: &str| d == serial;
        assert_eq!(
            install_prefix(Some(""), Some(&format!("-L{serial}/")), &is_serial),
            serial
        );
        assert_eq!(
            install_prefix(Some("/usr"), Some(&format!("-L{serial}")), &is_serial),
            "/usr"
        );
    }
}
