//! What an installed prefix offers to test, read from its files alone:
//! the installed spec's version and hash (from the prefix's name), the
//! executables of `bin/` in the order they are worth trying, and the
//! top-level modules of `lib/python*/site-packages`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Executables probed at most: one that answers is enough for a smoke
/// test, and each probe costs up to [`super::PROBE_TIMEOUT`].
pub const MAX_CANDIDATES: usize = 3;

/// The installed root as its prefix names it
/// (`<name>-<version>-<hash>`, Spack's default projection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledSpec {
    pub version: String,
    /// The full DAG hash: `spack test run /<hash>` picks exactly this
    /// install, not an earlier attempt's install of the same package.
    pub hash: String,
}

/// The version and hash of `package`'s install at `prefix`; `None` when
/// the directory is not named as Spack names an install.
pub fn installed_spec(prefix: &Path, package: &str) -> Option<InstalledSpec> {
    let name = prefix.file_name()?.to_str()?;
    let rest = name.strip_prefix(package)?.strip_prefix('-')?;
    let (version, hash) = rest.rsplit_once('-')?;
    let is_hash = hash.len() == 32
        && hash
            .chars()
            .all(|c| c.is_ascii_lowercase() || ('2'..='7').contains(&c));
    (is_hash && !version.is_empty()).then(|| InstalledSpec {
        version: version.to_string(),
        hash: hash.to_string(),
    })
}

/// Whether `prefix` holds a file of the package's own: anything but a
/// directory outside Spack's `.spack` metadata. An install whose
/// `install()` copied nothing has only the directories it made.
pub fn installed_anything(prefix: &Path) -> bool {
    let mut stack = vec![prefix.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            if dir == prefix && e.file_name() == ".spack" {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(_) => return true,
                Err(_) => {}
            }
        }
    }
    false
}

/// How well a file name of `bin/` stands for the package: its own name
/// first, then names that start with it (`heatsim-run`), then the rest.
fn rank(name: &str, package: &str) -> u8 {
    let bare = package.strip_prefix("py-").unwrap_or(package);
    if name == package || name == bare {
        0
    } else if name.starts_with(bare) {
        1
    } else {
        2
    }
}

/// The executables of `prefix/bin` worth probing, best first, at most
/// [`MAX_CANDIDATES`]. A link is followed (it may point into the prefix
/// or a dependency); a shared library, a hidden file, or a file that is
/// neither a binary nor a `#!` script (a `Makefile` a copy-everything
/// install left with its executable bit) is no program.
pub fn executable_candidates(prefix: &Path, package: &str) -> Vec<String> {
    let bin = prefix.join("bin");
    let mut names: Vec<String> = bin_executables(prefix)
        .into_iter()
        .filter(|n| !n.contains(".so") && runs_by_itself(&bin.join(n)))
        .collect();
    names.sort_by(|a, b| (rank(a, package), a).cmp(&(rank(b, package), b)));
    names.truncate(MAX_CANDIDATES);
    names
}

/// Whether the kernel can start `path`: an ELF binary or a `#!` script.
/// Anything else fails with "Exec format error" whatever the package.
fn runs_by_itself(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| f.read(&mut head));
    matches!(read, Ok(n) if (n >= 4 && head == *b"\x7fELF") || (n >= 2 && head.starts_with(b"#!")))
}

/// The executable files of `prefix/bin` (a link followed), hidden ones
/// left out, sorted.
pub fn bin_executables(prefix: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(prefix.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            std::fs::metadata(e.path())
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// The `site-packages` directories of `prefix` (`lib*/python*/site-packages`).
pub fn site_packages(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lib in ["lib", "lib64"] {
        for python in std::fs::read_dir(prefix.join(lib))
            .into_iter()
            .flatten()
            .flatten()
        {
            let dir = python.path().join("site-packages");
            if python.file_name().to_string_lossy().starts_with("python") && dir.is_dir() {
                out.push(dir);
            }
        }
    }
    out
}

/// A name Python can import as written (`import name`).
fn importable(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The module a file of `site-packages` provides: `demo.py` → `demo`,
/// `_speedups.cpython-311-x86_64-linux-gnu.so` → `_speedups`.
fn module_of_file(file: &str) -> Option<&str> {
    if let Some(stem) = file.strip_suffix(".py") {
        return Some(stem);
    }
    let stem = file.strip_suffix(".so")?;
    Some(stem.split('.').next().unwrap_or(stem))
}

/// A module worth importing: importable, not private, not a test suite.
fn public(name: &str) -> bool {
    importable(name) && !name.starts_with('_') && name != "test" && name != "tests"
}

/// The packages (directories with `__init__.py`) directly inside a
/// namespace package's directory.
fn namespace_packages(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("__init__.py").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| public(n))
        .collect()
}

/// The top-level modules installed under `prefix/lib*/python*/site-packages`:
/// packages (a directory with `__init__.py`), single-file modules and
/// extension modules. Private (`_name`) and test modules are left out:
/// importing the public ones is the smoke test. Sorted.
pub fn python_modules(prefix: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for site in site_packages(prefix) {
        let Ok(entries) = std::fs::read_dir(&site) else {
            continue;
        };
        for e in entries.flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            if path.is_dir() && !path.join("__init__.py").is_file() && importable(&file) {
                // A namespace package (PEP 420, `pdm/backend/`): its
                // packages are the modules.
                out.extend(
                    namespace_packages(&path)
                        .into_iter()
                        .map(|sub| format!("{file}.{sub}")),
                );
                continue;
            }
            let module = if path.is_dir() {
                path.join("__init__.py").is_file().then_some(file.as_str())
            } else {
                module_of_file(&file)
            };
            if let Some(m) = module.filter(|m| public(m)) {
                out.push(m.to_string());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_of_empty_directories_installed_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path();
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        std::fs::create_dir_all(prefix.join("lib/pkgconfig")).unwrap();
        std::fs::create_dir_all(prefix.join(".spack")).unwrap();
        std::fs::write(prefix.join(".spack/spec.json"), "{}").unwrap();
        assert!(!installed_anything(prefix));
        std::fs::write(prefix.join("lib/pkgconfig/demo.pc"), "").unwrap();
        assert!(installed_anything(prefix));
    }

    const HASH: &str = "ws23qsgtjbutjim2ftk6sfgpyk44hpvs";

    #[test]
    fn the_prefix_name_gives_version_and_hash() {
        let prefix = format!("/opt/linux-x86_64/gcc-12.2.0/heatsim-2.1.0-rc1-{HASH}");
        assert_eq!(
            installed_spec(Path::new(&prefix), "heatsim"),
            Some(InstalledSpec {
                version: "2.1.0-rc1".into(),
                hash: HASH.into()
            })
        );
        assert_eq!(installed_spec(Path::new(&prefix), "heat"), None);
        assert_eq!(
            installed_spec(Path::new("/opt/heatsim-2.1.0-xyz"), "heatsim"),
            None
        );
    }

    fn executable(path: &Path, mode: u32) {
        std::fs::write(path, "#!/bin/sh\necho 1.0\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn the_packages_own_program_is_tried_first() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        for name in ["aaa-tool", "demo-run", "demo", "zz", "libdemo.so.1"] {
            executable(&bin.join(name), 0o755);
        }
        executable(&bin.join("demo.conf"), 0o644);
        std::os::unix::fs::symlink(bin.join("demo"), bin.join("demo-link")).unwrap();
        assert_eq!(
            executable_candidates(dir.path(), "demo"),
            ["demo", "demo-link", "demo-run"]
        );
        // A Python package's console script carries the name without py-.
        assert_eq!(executable_candidates(dir.path(), "py-demo")[0], "demo");
        // A text file with its executable bit is no program (nvdimmsim's
        // Makefile, copied to bin/ by an install of every executable).
        let makefile = bin.join("demo");
        std::fs::write(&makefile, "all:\n\tcc -o demo demo.c\n").unwrap();
        // (its link goes with it)
        assert_eq!(
            executable_candidates(dir.path(), "demo"),
            ["demo-run", "aaa-tool", "zz"]
        );
        // A binary counts by its ELF header.
        std::fs::write(&makefile, b"\x7fELF\x02\x01\x01").unwrap();
        assert_eq!(executable_candidates(dir.path(), "demo")[0], "demo");
        assert!(executable_candidates(&dir.path().join("none"), "demo").is_empty());
    }

    #[test]
    fn top_level_python_modules_are_found_in_site_packages() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("lib/python3.11/site-packages");
        for d in [
            "demo",
            "demo_cli",
            "_private",
            "tests",
            "demo-1.0.dist-info",
            "namespace",
        ] {
            std::fs::create_dir_all(site.join(d)).unwrap();
        }
        for f in [
            "demo/__init__.py",
            "demo_cli/__init__.py",
            "_private/__init__.py",
        ] {
            std::fs::write(site.join(f), "").unwrap();
        }
        std::fs::write(site.join("tests/__init__.py"), "").unwrap();
        // A namespace package: its packages count, its data directories do not.
        std::fs::create_dir_all(site.join("nsp/backend")).unwrap();
        std::fs::create_dir_all(site.join("nsp/data")).unwrap();
        std::fs::write(site.join("nsp/backend/__init__.py"), "").unwrap();
        std::fs::write(site.join("single.py"), "").unwrap();
        std::fs::write(site.join("fast.cpython-311-x86_64-linux-gnu.so"), "").unwrap();
        std::fs::write(site.join("demo.pth"), "").unwrap();
        let lib64 = dir.path().join("lib64/python3.11/site-packages/demo");
        std::fs::create_dir_all(&lib64).unwrap();
        std::fs::write(lib64.join("__init__.py"), "").unwrap();
        assert_eq!(
            python_modules(dir.path()),
            ["demo", "demo_cli", "fast", "nsp.backend", "single"]
        );
        assert!(python_modules(&dir.path().join("none")).is_empty());
    }
}
