//! The installed ELF files of a prefix and where each `DT_NEEDED` library
//! is found: the file's RPATH (when it has no RUNPATH) or RUNPATH, with
//! `$ORIGIN` expanded, then the system's default directories, as the
//! dynamic linker searches them (`LD_LIBRARY_PATH` aside: Spack installs
//! do not rely on it).

use std::path::{Path, PathBuf};

use super::elf::{read_dynamic, DynamicInfo};
use packsmith_spack_knowledge::mapping::NameSource;

use super::{Evidence, EvidenceSource, Observation};

/// Where the dynamic linker looks after the file's own paths (Debian's
/// multiarch directories first, then the classic ones).
pub const DEFAULT_LIBRARY_DIRS: &[&str] = &[
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/aarch64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
];

/// Files looked at, at most: a prefix with more is cut off (and says so
/// through the count).
const MAX_FILES: usize = 20_000;

fn expand_origin(entry: &str, origin: &Path) -> PathBuf {
    let o = origin.display().to_string();
    PathBuf::from(entry.replace("${ORIGIN}", &o).replace("$ORIGIN", &o))
}

/// The directory `needed` is found in for the file in `origin`, and the
/// path found; `None` when no directory holds it.
pub fn resolve_needed(
    needed: &str,
    info: &DynamicInfo,
    origin: &Path,
    default_dirs: &[&str],
) -> Option<PathBuf> {
    if needed.contains('/') {
        let p = expand_origin(needed, origin);
        return p.exists().then_some(p);
    }
    // RPATH is ignored when RUNPATH is present.
    let own = if info.runpath.is_empty() {
        &info.rpath
    } else {
        &info.runpath
    };
    own.iter()
        .map(|d| expand_origin(d, origin))
        .chain(default_dirs.iter().map(PathBuf::from))
        .map(|d| d.join(needed))
        .find(|p| p.exists())
}

/// Regular files under `dir` (symlinks are not followed: they point at
/// files listed anyway or outside the prefix), `.spack/` left out.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if out.len() >= MAX_FILES {
            return;
        }
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() && e.file_name() != ".spack" {
            files(&e.path(), out);
        } else if ft.is_file() {
            out.push(e.path());
        }
    }
}

/// One observation per resolved `DT_NEEDED` of every ELF file in
/// `prefix`, and how many ELF files there were.
pub fn elf_observations(prefix: &Path, default_dirs: &[&str]) -> (Vec<Observation>, usize) {
    let mut all = Vec::new();
    files(prefix, &mut all);
    let mut out = Vec::new();
    let mut count = 0;
    for file in all {
        let Some(info) = read_dynamic(&file) else {
            continue;
        };
        count += 1;
        let origin = file.parent().unwrap_or(prefix);
        let rel = file
            .strip_prefix(prefix)
            .unwrap_or(&file)
            .display()
            .to_string();
        for needed in &info.needed {
            let Some(found) = resolve_needed(needed, &info, origin, default_dirs) else {
                continue;
            };
            out.push(Observation {
                upstream: None,
                lookup: NameSource::Library,
                path: found.display().to_string(),
                evidence: Evidence {
                    source: EvidenceSource::Elf,
                    file: rel.clone(),
                    entry: format!("DT_NEEDED {needed} → {}", found.display()),
                },
            });
        }
    }
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::hermetic::{judge, Dag};
    use packsmith_exec::CommandSpec;
    use packsmith_spack_knowledge::mapping::NoKnowledge;

    fn cc(dir: &Path, args: &[&str]) -> bool {
        let out = packsmith_exec::run(&CommandSpec::new("cc").args(args.iter().copied()).cwd(dir));
        match out {
            Ok(o) if o.success() => true,
            Ok(o) => panic!("cc {args:?} failed: {}", o.stderr),
            Err(_) => false,
        }
    }

    /// A prefix as an install leaves it: `lib/libdemo.so` (linked against
    /// the host's libz) and `bin/demo` using it through `$ORIGIN/../lib`.
    fn built_prefix(root: &Path) -> Option<PathBuf> {
        let prefix = root.join("demo-1.0-hhhh");
        std::fs::create_dir_all(prefix.join("lib")).unwrap();
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        std::fs::write(
            root.join("demo.c"),
            "#include <zlib.h>\nconst char *demo_version(void) { return zlibVersion(); }\n",
        )
        .unwrap();
        std::fs::write(
            root.join("main.c"),
            "#include <stdio.h>\nconst char *demo_version(void);\nint main(void) { puts(demo_version()); return 0; }\n",
        )
        .unwrap();
        let lib = prefix.join("lib/libdemo.so").display().to_string();
        let exe = prefix.join("bin/demo").display().to_string();
        let libdir = prefix.join("lib").display().to_string();
        if !cc(root, &["-shared", "-fPIC", "-o", &lib, "demo.c", "-lz"]) {
            return None;
        }
        assert!(cc(
            root,
            &[
                "-o",
                &exe,
                "main.c",
                "-L",
                &libdir,
                "-ldemo",
                "-Wl,-rpath,$ORIGIN/../lib"
            ]
        ));
        // Not ELF: skipped without complaint.
        std::fs::write(prefix.join("bin/script.sh"), "#!/bin/sh\n").unwrap();
        Some(prefix)
    }

    #[test]
    fn needed_libraries_of_a_real_build_are_resolved_and_judged() {
        let root = tempfile::tempdir().unwrap();
        let Some(prefix) = built_prefix(root.path()) else {
            eprintln!("SKIPPED: no `cc` on PATH to build the test's ELF files");
            return;
        };
        let exe = read_dynamic(&prefix.join("bin/demo")).unwrap();
        assert!(exe.needed.contains(&"libdemo.so".to_string()), "{exe:?}");
        assert!(
            exe.needed.iter().any(|n| n.starts_with("libc.so")),
            "{exe:?}"
        );
        let paths: Vec<&String> = exe.runpath.iter().chain(&exe.rpath).collect();
        assert_eq!(paths, ["$ORIGIN/../lib"], "{exe:?}");
        let lib = read_dynamic(&prefix.join("lib/libdemo.so")).unwrap();
        assert!(lib.needed.iter().any(|n| n == "libz.so.1"), "{lib:?}");

        // $ORIGIN resolves inside the prefix; libz on the host.
        let origin = prefix.join("bin");
        assert_eq!(
            resolve_needed("libdemo.so", &exe, &origin, DEFAULT_LIBRARY_DIRS),
            Some(origin.join("../lib/libdemo.so"))
        );
        let (obs, files) = elf_observations(&prefix, DEFAULT_LIBRARY_DIRS);
        assert_eq!(files, 2);
        let libz = obs
            .iter()
            .find(|o| o.evidence.entry.starts_with("DT_NEEDED libz.so.1 → /"))
            .unwrap_or_else(|| panic!("{obs:#?}"));
        assert_eq!(libz.evidence.file, "lib/libdemo.so");

        // Without zlib in the DAG, libz is the one finding (libc is no
        // dependency, libdemo is the package's own).
        let dag = Dag::parse(
            r#"{"spec": {"nodes": [{"name": "demo", "hash": "hhhh"}, {"name": "cmake", "hash": "c", "external": {"path": "/usr"}}]}}"#,
        )
        .unwrap();
        let found = judge(&obs, &dag, &NoKnowledge);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].package.as_deref(), Some("zlib-api"));
        assert_eq!(found[0].evidence[0].source, EvidenceSource::Elf);
        // With zlib external at /usr in the DAG, nothing.
        let dag = Dag::parse(
            r#"{"spec": {"nodes": [{"name": "demo", "hash": "hhhh", "dependencies": [{"name": "zlib", "hash": "z", "parameters": {"virtuals": ["zlib-api"]}}]}, {"name": "zlib", "hash": "z", "external": {"path": "/usr"}}]}}"#,
        )
        .unwrap();
        assert_eq!(judge(&obs, &dag, &NoKnowledge), Vec::new());
    }
}
