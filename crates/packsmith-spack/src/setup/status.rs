//! What a finished set-up holds, read back for `packsmith doctor`: the
//! Spack checkout, whether the concretizer's clingo imports, compilers,
//! externals, and which commonly needed libraries are not external (with
//! the distribution package that would provide each).

use std::path::{Path, PathBuf};

use super::checkout::{inspect_checkout, Checkout};
use super::scope::top_level_packages;

/// A library HPC recipes commonly depend on, and where the host gets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommonExternal {
    /// Spack package names any of which counts (a provider of a virtual).
    pub packages: &'static [&'static str],
    pub debian: &'static str,
    pub rhel: &'static str,
}

/// What HPC packages need most often; a set-up without one of these
/// builds it from source (a download each when offline).
pub const COMMON_EXTERNALS: &[CommonExternal] = &[
    CommonExternal {
        packages: &["zlib", "zlib-ng"],
        debian: "zlib1g-dev",
        rhel: "zlib-devel",
    },
    CommonExternal {
        packages: &["bzip2"],
        debian: "libbz2-dev",
        rhel: "bzip2-devel",
    },
    CommonExternal {
        packages: &["xz"],
        debian: "liblzma-dev",
        rhel: "xz-devel",
    },
    CommonExternal {
        packages: &["zstd"],
        debian: "libzstd-dev",
        rhel: "libzstd-devel",
    },
    CommonExternal {
        packages: &["openssl"],
        debian: "libssl-dev",
        rhel: "openssl-devel",
    },
    CommonExternal {
        packages: &["openmpi", "mpich"],
        debian: "libopenmpi-dev",
        rhel: "openmpi-devel",
    },
    CommonExternal {
        packages: &["openblas", "netlib-lapack"],
        debian: "libopenblas-dev",
        rhel: "openblas-devel",
    },
    CommonExternal {
        packages: &["boost"],
        debian: "libboost-all-dev",
        rhel: "boost-devel",
    },
    CommonExternal {
        packages: &["hdf5"],
        debian: "libhdf5-dev",
        rhel: "hdf5-devel",
    },
    CommonExternal {
        packages: &["fftw"],
        debian: "libfftw3-dev",
        rhel: "fftw-devel",
    },
    CommonExternal {
        packages: &["hwloc"],
        debian: "libhwloc-dev",
        rhel: "hwloc-devel",
    },
    CommonExternal {
        packages: &["python"],
        debian: "python3-dev",
        rhel: "python3-devel",
    },
    CommonExternal {
        packages: &["cmake"],
        debian: "cmake",
        rhel: "cmake",
    },
    CommonExternal {
        packages: &["pkgconf", "pkg-config"],
        debian: "pkgconf",
        rhel: "pkgconf",
    },
];

/// A set-up as found on disk.
#[derive(Debug, Clone)]
pub struct SetupStatus {
    pub prefix: PathBuf,
    pub env_file: PathBuf,
    /// The checkout env.sh names, if it is still one.
    pub checkout: Option<Checkout>,
    /// The Python Spack runs with (`SPACK_PYTHON`, else python3).
    pub python: String,
    /// Whether that Python can import clingo.
    pub clingo: bool,
    /// `gcc@12.2.0`, … from the scope's compilers.yaml.
    pub compilers: Vec<String>,
    /// Packages with an entry in the scope's packages.yaml.
    pub externals: Vec<String>,
    /// The mirror directory that replaces the public ones.
    pub mirror: Option<PathBuf>,
}

impl SetupStatus {
    /// The common libraries none of whose packages is declared.
    pub fn missing_common(&self) -> Vec<&'static CommonExternal> {
        COMMON_EXTERNALS
            .iter()
            .filter(|c| {
                !c.packages
                    .iter()
                    .any(|p| self.externals.iter().any(|e| e == p))
            })
            .collect()
    }
}

/// Reads the set-up under `prefix`; `None` when there is no `env.sh`.
pub fn inspect_setup(prefix: &Path) -> Option<SetupStatus> {
    let env_file = prefix.join("env.sh");
    let env = std::fs::read_to_string(&env_file).ok()?;
    let var = |name: &str| {
        env.lines().find_map(|l| {
            l.trim()
                .strip_prefix("export ")?
                .strip_prefix(name)?
                .strip_prefix('=')
                .map(|v| v.trim_matches('"').to_string())
        })
    };
    let checkout = var("SPACK_ROOT").and_then(|root| inspect_checkout(Path::new(&root)).ok());
    let python = var("SPACK_PYTHON").unwrap_or_else(|| "python3".into());
    let clingo = super::venv::runs(Path::new(&python), &["-c", "import clingo"]);
    let scope = var("SPACK_USER_CONFIG_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| prefix.join("scope"));
    let read = |name: &str| std::fs::read_to_string(scope.join(name)).unwrap_or_default();
    let externals = top_level_packages(&read("packages.yaml"))
        .into_iter()
        .filter(|p| p != "all")
        .collect();
    let mirror = Some(prefix.join("mirror")).filter(|m| m.is_dir());
    Some(SetupStatus {
        prefix: prefix.to_path_buf(),
        env_file,
        checkout,
        python,
        clingo,
        compilers: compiler_specs(&read("compilers.yaml")),
        externals,
        mirror,
    })
}

/// The `spec:` of each compiler entry (`spec: gcc@=12.2.0` → `gcc@12.2.0`).
fn compiler_specs(yaml: &str) -> Vec<String> {
    yaml.lines()
        .filter_map(|l| l.trim().strip_prefix("spec:"))
        .map(|s| s.trim().replace("@=", "@"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_is_read_back_from_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path();
        std::fs::create_dir_all(prefix.join("scope")).unwrap();
        std::fs::create_dir_all(prefix.join("mirror")).unwrap();
        std::fs::write(
            prefix.join("env.sh"),
            format!(
                "export SPACK_ROOT={}/nowhere\nexport SPACK_USER_CONFIG_PATH={}/scope\n",
                prefix.display(),
                prefix.display()
            ),
        )
        .unwrap();
        std::fs::write(
            prefix.join("scope/compilers.yaml"),
            "compilers:\n- compiler:\n    spec: gcc@=12.2.0\n    paths:\n      cc: /usr/bin/gcc\n",
        )
        .unwrap();
        std::fs::write(
            prefix.join("scope/packages.yaml"),
            "packages:\n  all:\n    target: [x86_64]\n  zlib:\n    buildable: false\n  openmpi:\n    buildable: false\n",
        )
        .unwrap();
        let status = inspect_setup(prefix).unwrap();
        assert!(
            status.checkout.is_none(),
            "the named checkout does not exist"
        );
        assert_eq!(status.compilers, vec!["gcc@12.2.0"]);
        assert_eq!(status.externals, vec!["zlib", "openmpi"]);
        assert!(status.mirror.is_some());
        let missing: Vec<&str> = status
            .missing_common()
            .iter()
            .map(|c| c.packages[0])
            .collect();
        assert!(
            !missing.contains(&"zlib") && !missing.contains(&"openmpi"),
            "{missing:?}"
        );
        assert!(
            missing.contains(&"hdf5") && missing.contains(&"boost"),
            "{missing:?}"
        );
        assert!(inspect_setup(&prefix.join("absent")).is_none());
    }
}
