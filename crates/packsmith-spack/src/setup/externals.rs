//! Externals: the packages Spack detects itself, and packsmith's own
//! detection (pkg-config files, headers) for libraries Spack has no
//! detector for.

use std::process::Command;

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
];

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

/// Everything found through pkg-config and Boost's version header.
pub fn detect_own_externals() -> Vec<OwnExternal> {
    let mut found: Vec<OwnExternal> = PKG_CONFIG
        .iter()
        .filter_map(|(package, module)| from_pkg_config(package, module))
        .collect();
    if let Ok(text) = std::fs::read_to_string("/usr/include/boost/version.hpp") {
        if let Some(version) = boost_version(&text) {
            found.push(OwnExternal {
                package: "boost".into(),
                version,
                variants: "+thread+system+filesystem".into(),
                prefix: "/usr".into(),
            });
        }
    }
    found
}

fn from_pkg_config(package: &str, module: &str) -> Option<OwnExternal> {
    let version = pkg_config(&["--modversion", module])?;
    let prefix = prefix_or_usr(pkg_config(&["--variable=prefix", module]));
    let variants = match package {
        "hdf5" if pkg_config(&["--exists", "hdf5_hl"]).is_some() => "+hl",
        _ => "",
    };
    Some(OwnExternal {
        package: package.into(),
        version: clean_version(&version),
        variants: variants.into(),
        prefix,
    })
}

/// The `prefix` pkg-config gave, else `/usr`: a `.pc` without the
/// variable (Debian's openblas.pc) prints an empty line and succeeds, and
/// an empty `prefix:` makes Spack refuse the whole packages.yaml.
fn prefix_or_usr(prefix: Option<String>) -> String {
    prefix
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "/usr".into())
}

fn pkg_config(args: &[&str]) -> Option<String> {
    let out = Command::new("pkg-config").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
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

    #[test]
    fn an_empty_pkg_config_prefix_becomes_usr() {
        assert_eq!(prefix_or_usr(Some(String::new())), "/usr");
        assert_eq!(prefix_or_usr(None), "/usr");
        assert_eq!(prefix_or_usr(Some("/opt/x".into())), "/opt/x");
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
}
