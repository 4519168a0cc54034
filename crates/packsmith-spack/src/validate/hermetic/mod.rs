//! The hermeticity check, a validation stage after a successful install:
//! what did the build take from the host instead of the concretized DAG?
//!
//! Spack's build environment does not hide `/usr`, so an optional
//! `find_package(ZLIB)` succeeds against the host's copy when the recipe
//! declares no dependency: the install passes and the recipe is wrong.
//! The evidence is read from the install itself: the configure output
//! and `CMakeCache.txt` Spack keeps under `<prefix>/.spack/`
//! (`logs.rs`), and the `DT_NEEDED` entries of the installed ELF files
//! resolved through their RPATH/RUNPATH and the system's default
//! directories (`elf.rs`, `resolve.rs`). A host path is fine when it
//! belongs to the compiler or the C library, or to a package of the DAG
//! (a declared external at `/usr`, `dag.rs`); anything else is a finding,
//! mapped to the Spack package that would provide it.

mod dag;
mod elf;
mod logs;
mod resolve;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use packsmith_exec::atomic_write;
use packsmith_spack_knowledge::mapping::{
    fallbacks_of, is_system_runtime, library_stem, map_library_file, map_name, Mapping,
    MappingKind, NameSource, SpackNames,
};
use serde::{Deserialize, Serialize};

pub use dag::Dag;
pub use elf::{parse_dynamic, read_dynamic, DynamicInfo};
pub use logs::{cmake_cache, configure_output, meson_output};
pub use resolve::{elf_observations, resolve_needed, DEFAULT_LIBRARY_DIRS};

use super::{Attempt, SpackStageOutcome, Stage, ValidateError};

/// Where a piece of evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceSource {
    /// A `-- Found X: /path` line of the configure output.
    ConfigureOutput,
    /// A path-valued `CMakeCache.txt` entry.
    CmakeCache,
    /// A `DT_NEEDED` entry of an installed file, resolved.
    Elf,
}

/// One line of evidence: the file it is in (relative to the prefix) and
/// the entry as written there.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Evidence {
    pub source: EvidenceSource,
    pub file: String,
    pub entry: String,
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.entry)
    }
}

/// A path the build used, before it is judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The name the build looked it up by, when a log says (`ZLIB`).
    pub upstream: Option<String>,
    /// How `upstream` was looked up.
    pub lookup: NameSource,
    /// The host path; empty when the log names only what was found
    /// (Meson's `Run-time dependency zlib found: YES`): pkg-config looks
    /// in the DAG's prefixes and then the host's, so what the DAG does
    /// not hold came from the host.
    pub path: String,
    pub evidence: Evidence,
}

/// Something the build took from outside the DAG: one per Spack package
/// (or per path, when no package is known), with all its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndeclaredDependency {
    /// The Spack package or virtual that provides it (`zlib-api`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The names the build files use for it (`ZLIB`), as the logs spell
    /// them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream: Vec<String>,
    /// The host paths taken.
    pub paths: Vec<String>,
    pub evidence: Vec<Evidence>,
}

impl UndeclaredDependency {
    /// `zlib-api (ZLIB): /usr/lib/x86_64-linux-gnu/libz.so`.
    pub fn headline(&self) -> String {
        let name = self.package.as_deref().unwrap_or("an unknown package");
        let paths = if self.paths.is_empty() {
            "found by name".to_string()
        } else {
            self.paths.join(", ")
        };
        let upstream = if self.upstream.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.upstream.join(", "))
        };
        format!("{name}{upstream}: {paths}")
    }
}

/// What the check read and found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HermeticityReport {
    /// The installed prefix that was checked.
    pub prefix: PathBuf,
    /// The DAG's package names.
    pub dag: Vec<String>,
    /// The records read, relative to the prefix.
    pub read: Vec<String>,
    /// How many installed ELF files were read.
    pub elf_files: usize,
    pub findings: Vec<UndeclaredDependency>,
    /// What could not be read, and why (the check still ran).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why the check could not run at all (no prefix, no `spec.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl HermeticityReport {
    pub fn passed(&self) -> bool {
        self.findings.is_empty() && self.error.is_none()
    }
}

/// Top-level directories of the host system: a path under one of these
/// that is no Spack prefix came from the host.
const HOST_ROOTS: &[&str] = &[
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin",
];

/// Tools of the build environment that no recipe declares: the build
/// takes nothing from them into the package.
const BUILD_ENVIRONMENT: &[&str] = &["git", "pkgconfig", "pkg-config", "pkgconf"];

fn is_host_path(path: &str) -> bool {
    HOST_ROOTS
        .iter()
        .any(|root| path == *root || path.starts_with(&format!("{root}/")))
}

/// Segments of a cache key between the package and the key's ending:
/// languages and parts (`MPI_C_HEADER_DIR`, `HDF5_HL_INCLUDE_DIR`).
const KEY_PARTS: &[&str] = &["C", "CXX", "Fortran", "HEADER", "HL", "ADDITIONAL_INCLUDE"];

/// A CMake name as logs and caches spell it (`MPI_C_HEADER` from
/// `MPI_C_HEADER_DIR`, `MPI_mpi_cxx` from `MPI_mpi_cxx_LIBRARY`): with
/// language, part and lower-case component segments taken off the end
/// until the table or the knowledge base knows it (`MPI`), else the
/// mapping of the whole. Other segments stay (`CLANG_FORMAT` is no Clang).
fn map_upstream(upstream: &str, kb: &dyn SpackNames) -> Mapping {
    let mut name = upstream;
    loop {
        let m = map_name(name, NameSource::Cmake, kb);
        if m.kind != MappingKind::Unmapped {
            return m;
        }
        let shorter = KEY_PARTS
            .iter()
            .find_map(|p| name.strip_suffix(p)?.strip_suffix('_'))
            .or_else(|| {
                let (head, last) = name.rsplit_once('_')?;
                last.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                    .then_some(head)
            })
            .filter(|s| !s.is_empty());
        match shorter {
            Some(s) => name = s,
            None => return map_name(upstream, NameSource::Cmake, kb),
        }
    }
}

/// The Spack name a host path stands for, and the names under which the
/// DAG would hold it. `None` for the compiler, the C library and the
/// build environment (nothing to declare).
fn owner(obs: &Observation, kb: &dyn SpackNames) -> Option<(Option<String>, Vec<String>)> {
    let file = obs.path.rsplit('/').next().unwrap_or(&obs.path);
    let by_file = library_stem(file).and_then(|_| map_library_file(file, kb));
    if by_file.as_ref().is_some_and(is_system_runtime) {
        return None;
    }
    let by_upstream = obs.upstream.as_deref().map(|u| match obs.lookup {
        NameSource::Cmake => map_upstream(u, kb),
        // Meson names its special lookups (threads, openmp, dl) like
        // CMake's modules or plain libraries.
        other => [other, NameSource::Cmake, NameSource::Library]
            .into_iter()
            .map(|s| map_name(u, s, kb))
            .find(|m| m.kind != MappingKind::Unmapped)
            .unwrap_or_else(|| map_name(u, other, kb)),
    });
    if by_upstream
        .as_ref()
        .is_some_and(|m| matches!(m.kind, MappingKind::Compiler | MappingKind::None))
    {
        return None;
    }
    // A curated or known mapping wins over a guess.
    let mapping = [by_file, by_upstream]
        .into_iter()
        .flatten()
        .filter(|m| m.spack.is_some())
        .min_by_key(|m| u8::from(m.kind == MappingKind::Unmapped));
    // A cache entry of a name nobody knows that is no library
    // (`FOO_HEADER_DIR:PATH=/usr/include`) says too little to act on;
    // a library taken is seen in the ELF files anyway.
    let unknown = mapping
        .as_ref()
        .is_none_or(|m| m.kind == MappingKind::Unmapped);
    if unknown && obs.evidence.source == EvidenceSource::CmakeCache && library_stem(file).is_none()
    {
        return None;
    }
    // A guess the knowledge base does not confirm is no Spack package.
    let spack = if unknown && kb.knows_names() {
        None
    } else {
        mapping.as_ref().and_then(|m| m.spack.clone())
    };
    let mut aliases: Vec<String> = spack.iter().cloned().collect();
    if let Some(s) = &spack {
        aliases.extend(fallbacks_of(s));
    }
    if let Some(stem) = library_stem(file) {
        aliases.push(stem.to_string());
        aliases.push(format!("lib{stem}"));
    }
    if let Some(u) = &obs.upstream {
        aliases.push(u.to_ascii_lowercase());
    }
    if aliases
        .iter()
        .any(|a| BUILD_ENVIRONMENT.contains(&a.as_str()))
    {
        return None;
    }
    Some((spack, aliases))
}

/// Judges observations against the DAG: the undeclared dependencies, one
/// per Spack package (or host path when none is known), in the order
/// first seen.
pub fn judge(
    observations: &[Observation],
    dag: &Dag,
    kb: &dyn SpackNames,
) -> Vec<UndeclaredDependency> {
    let mut findings: Vec<UndeclaredDependency> = Vec::new();
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    for obs in observations {
        let named_only = obs.path.is_empty() && obs.upstream.is_some();
        if !named_only && (!is_host_path(&obs.path) || dag.built_path(&obs.path)) {
            continue;
        }
        let Some((package, aliases)) = owner(obs, kb) else {
            continue;
        };
        // A declared external at /usr is part of the DAG.
        if aliases.iter().any(|a| dag.has(a)) {
            continue;
        }
        let key = package
            .clone()
            .or_else(|| (!obs.path.is_empty()).then(|| obs.path.clone()))
            .or_else(|| obs.upstream.clone())
            .unwrap_or_default();
        let at = *by_key.entry(key).or_insert_with(|| {
            findings.push(UndeclaredDependency {
                package: package.clone(),
                upstream: Vec::new(),
                paths: Vec::new(),
                evidence: Vec::new(),
            });
            findings.len() - 1
        });
        let f = &mut findings[at];
        if let Some(u) = &obs.upstream {
            if !f.upstream.contains(u) {
                f.upstream.push(u.clone());
            }
        }
        if !obs.path.is_empty() && !f.paths.contains(&obs.path) {
            f.paths.push(obs.path.clone());
        }
        if !f.evidence.contains(&obs.evidence) {
            f.evidence.push(obs.evidence.clone());
        }
    }
    findings
}

/// The root's prefix from `spack install`'s output: the last `[+] /path`
/// line whose directory is named after the package (externals end with
/// `(external …)` and dependencies come first).
pub fn installed_prefix(install_log: &str, package: &str) -> Option<PathBuf> {
    install_log.lines().rev().find_map(|l| {
        let l = strip_ansi(l);
        let path = l.trim().strip_prefix("[+] ")?.trim().to_string();
        let name = path.rsplit('/').next()?.to_string();
        (path.starts_with('/') && !path.contains(' ') && name.starts_with(&format!("{package}-")))
            .then(|| PathBuf::from(path))
    })
}

fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A record Spack keeps in the prefix, read whole (gzipped or not).
fn read_record(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    if path.extension().is_some_and(|e| e == "gz") {
        use std::io::Read;
        let mut text = String::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_string(&mut text)
            .ok()?;
        Some(text)
    } else {
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Files under `dir` named `name`, at most `depth` levels down.
fn find_named(dir: &Path, name: &str, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() && depth > 0 {
            find_named(&p, name, depth - 1, out);
        } else if ft.is_file() && e.file_name() == name {
            out.push(p);
        }
    }
}

fn relative(prefix: &Path, path: &Path) -> String {
    path.strip_prefix(prefix)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The log observations of an installed prefix: its configure output and
/// its archived `CMakeCache.txt`.
fn log_observations(prefix: &Path, report: &mut HermeticityReport) -> Vec<Observation> {
    let meta = prefix.join(".spack");
    let mut out = Vec::new();
    let log = ["spack-build-out.txt.gz", "spack-build-out.txt"]
        .iter()
        .map(|n| meta.join(n))
        .find(|p| p.is_file());
    match log.as_deref().and_then(|p| Some((p, read_record(p)?))) {
        Some((path, text)) => {
            let rel = relative(prefix, path);
            out.extend(configure_output(&text, &rel));
            out.extend(meson_output(&text, &rel));
            report.read.push(rel);
        }
        None => report
            .notes
            .push("no build log in .spack/ (spack-build-out.txt.gz)".into()),
    }
    let mut caches = Vec::new();
    find_named(
        &meta.join("archived-files"),
        "CMakeCache.txt",
        4,
        &mut caches,
    );
    for path in caches {
        if let Some(text) = read_record(&path) {
            let rel = relative(prefix, &path);
            out.extend(cmake_cache(&text, &rel));
            report.read.push(rel);
        }
    }
    out
}

/// Checks an installed prefix: reads its DAG, logs and ELF files and
/// judges what came from the host.
pub fn check_prefix(prefix: &Path, kb: &dyn SpackNames) -> Result<HermeticityReport, String> {
    let dag = Dag::read(prefix)?;
    let mut report = HermeticityReport {
        prefix: prefix.to_path_buf(),
        dag: dag.names.clone(),
        ..HermeticityReport::default()
    };
    let mut observations = log_observations(prefix, &mut report);
    let (elf, files) = elf_observations(prefix, DEFAULT_LIBRARY_DIRS);
    report.elf_files = files;
    observations.extend(elf);
    report.findings = judge(&observations, &dag, kb);
    Ok(report)
}

/// The text of the stage log: what was read and each finding with its
/// evidence.
pub fn render_log(report: &HermeticityReport) -> String {
    let mut s = format!(
        "packsmith hermeticity check of {}\nDAG: {}\nread: {}; {} ELF file(s)\n",
        report.prefix.display(),
        report.dag.join(", "),
        if report.read.is_empty() {
            "no build records".to_string()
        } else {
            report.read.join(", ")
        },
        report.elf_files
    );
    for n in &report.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    if report.passed() {
        s.push_str("nothing was taken from outside the DAG\n");
    }
    for f in &report.findings {
        s.push_str(&format!("undeclared dependency: {}\n", f.headline()));
        for e in &f.evidence {
            s.push_str(&format!("  {e}\n"));
        }
    }
    s
}

/// The stage: finds the prefix the install stage of `attempt` reported,
/// checks it, writes `<attempt>/logs/hermeticity.log`. A prefix that
/// cannot be found or read fails the stage with a note saying why.
pub fn run_hermeticity(
    attempt: &Attempt,
    kb: &dyn SpackNames,
) -> Result<(SpackStageOutcome, HermeticityReport), ValidateError> {
    let started = Instant::now();
    let install_log = attempt.logs.join(format!("{}.log", Stage::Install));
    let text = std::fs::read_to_string(&install_log)
        .map_err(|e| ValidateError::io("read", &install_log, e))?;
    let checked = match installed_prefix(&text, &attempt.package) {
        Some(prefix) => check_prefix(&prefix, kb),
        None => Err(format!(
            "the install log {} names no installed prefix of {}",
            install_log.display(),
            attempt.package
        )),
    };
    let (report, log) = match checked {
        Ok(r) => {
            let log = render_log(&r);
            (r, log)
        }
        Err(why) => (
            HermeticityReport {
                error: Some(why.clone()),
                ..HermeticityReport::default()
            },
            format!("packsmith hermeticity check: could not run: {why}\n"),
        ),
    };
    let passed = report.passed();
    let log_path = attempt.logs.join(format!("{}.log", Stage::Hermeticity));
    atomic_write(&log_path, log.as_bytes()).map_err(|e| ValidateError::Io {
        action: "write",
        path: log_path.clone(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let outcome = SpackStageOutcome {
        stage: Stage::Hermeticity,
        passed,
        duration: started.elapsed(),
        log_path,
        exit_code: None,
        timed_out: false,
        command: "packsmith hermeticity check".into(),
        would_build: Vec::new(),
        build_log: None,
        sandbox_events: Vec::new(),
    };
    Ok((outcome, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_spack_knowledge::mapping::NoKnowledge;

    fn obs(upstream: Option<&str>, path: &str, source: EvidenceSource, entry: &str) -> Observation {
        Observation {
            upstream: upstream.map(str::to_string),
            lookup: NameSource::Cmake,
            path: path.into(),
            evidence: Evidence {
                source,
                file: "f".into(),
                entry: entry.into(),
            },
        }
    }

    fn dag(names: &[&str], virtuals: &[&str]) -> Dag {
        Dag {
            names: names.iter().map(|s| s.to_string()).collect(),
            virtuals: virtuals.iter().map(|s| s.to_string()).collect(),
            built_hashes: ["hhhh".to_string()].into(),
            externals: BTreeMap::new(),
        }
    }

    fn observations() -> Vec<Observation> {
        vec![
            obs(
                Some("ZLIB"),
                "/usr/lib/x86_64-linux-gnu/libz.so",
                EvidenceSource::ConfigureOutput,
                "-- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so",
            ),
            obs(
                None,
                "/usr/lib/x86_64-linux-gnu/libz.so.1",
                EvidenceSource::Elf,
                "DT_NEEDED libz.so.1",
            ),
            obs(
                None,
                "/lib/x86_64-linux-gnu/libc.so.6",
                EvidenceSource::Elf,
                "DT_NEEDED libc.so.6",
            ),
            obs(
                None,
                "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                EvidenceSource::Elf,
                "x",
            ),
            obs(
                Some("PkgConfig"),
                "/usr/bin/pkg-config",
                EvidenceSource::ConfigureOutput,
                "x",
            ),
            obs(
                Some("Git"),
                "/usr/bin/git",
                EvidenceSource::ConfigureOutput,
                "x",
            ),
            obs(
                None,
                "/s/opt/gcc-12/fmt-10-hhhh/lib/libfmt.so.10",
                EvidenceSource::Elf,
                "DT_NEEDED libfmt.so.10",
            ),
            obs(
                Some("Boost"),
                "/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0",
                EvidenceSource::CmakeCache,
                "Boost_DIR:PATH=/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0",
            ),
        ]
    }

    #[test]
    fn host_libraries_outside_the_dag_are_findings_grouped_by_package() {
        let found = judge(&observations(), &dag(&["demo", "cmake"], &[]), &NoKnowledge);
        let heads: Vec<String> = found.iter().map(|f| f.headline()).collect();
        assert_eq!(
            heads,
            [
                "zlib-api (ZLIB): /usr/lib/x86_64-linux-gnu/libz.so, /usr/lib/x86_64-linux-gnu/libz.so.1",
                "boost (Boost): /usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0",
            ]
        );
        assert_eq!(found[0].evidence.len(), 2);
        assert_eq!(found[0].evidence[1].source, EvidenceSource::Elf);
    }

    #[test]
    fn a_declared_external_at_usr_is_no_finding() {
        // zlib external at /usr, reached as the zlib-api virtual.
        let found = judge(
            &observations(),
            &dag(&["demo", "zlib", "boost"], &["zlib-api"]),
            &NoKnowledge,
        );
        assert_eq!(found, Vec::new());
        // The provider's name alone (an older Spack) is enough too.
        let found = judge(
            &observations()[..2],
            &dag(&["demo", "zlib"], &[]),
            &NoKnowledge,
        );
        assert_eq!(found, Vec::new(), "{found:?}");
    }

    #[test]
    fn cache_keys_map_through_their_known_prefix() {
        let cache = [
            obs(
                Some("MPI_C_HEADER"),
                "/usr/lib/x86_64-linux-gnu/openmpi/include",
                EvidenceSource::CmakeCache,
                "MPI_C_HEADER_DIR:PATH=/usr/lib/x86_64-linux-gnu/openmpi/include",
            ),
            obs(
                Some("CLANG_FORMAT"),
                "/usr/bin/clang-format",
                EvidenceSource::CmakeCache,
                "CLANG_FORMAT_EXECUTABLE:FILEPATH=/usr/bin/clang-format",
            ),
            obs(
                Some("MPI_mpi_cxx"),
                "/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_cxx.so",
                EvidenceSource::CmakeCache,
                "MPI_mpi_cxx_LIBRARY:FILEPATH=/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_cxx.so",
            ),
            obs(
                Some("PKG_CONFIG"),
                "/usr/bin/pkg-config",
                EvidenceSource::CmakeCache,
                "PKG_CONFIG_EXECUTABLE:FILEPATH=/usr/bin/pkg-config",
            ),
        ];
        // MPI declared (openmpi external, the mpi virtual): nothing.
        assert_eq!(
            judge(&cache, &dag(&["demo", "openmpi"], &["mpi"]), &NoKnowledge),
            Vec::new()
        );
        // Not declared: MPI is the finding; the unknown tool and
        // pkg-config are not.
        let found = judge(&cache, &dag(&["demo"], &[]), &NoKnowledge);
        let names: Vec<Option<&str>> = found.iter().map(|f| f.package.as_deref()).collect();
        assert_eq!(names, [Some("mpi")], "{found:#?}");
    }

    #[test]
    fn what_meson_found_by_name_is_judged_by_name() {
        let named = |name: &str, lookup: NameSource| Observation {
            upstream: Some(name.into()),
            lookup,
            path: String::new(),
            evidence: Evidence {
                source: EvidenceSource::ConfigureOutput,
                file: "f".into(),
                entry: format!("Run-time dependency {name} found: YES"),
            },
        };
        let obs = [
            named("zlib", NameSource::Pkgconfig),
            named("m", NameSource::Library),
            named("threads", NameSource::Pkgconfig),
            named("OpenMP", NameSource::Pkgconfig),
        ];
        let found = judge(&obs, &dag(&["demo"], &[]), &NoKnowledge);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].headline(), "zlib-api (zlib): found by name");
        assert_eq!(
            judge(&obs, &dag(&["demo", "zlib"], &["zlib-api"]), &NoKnowledge),
            Vec::new()
        );
    }

    #[test]
    fn the_root_prefix_is_the_last_installed_line_of_the_package() {
        let log = "==> stdout\n[+] /usr (external cmake-3.25.1-abc)\n[+] /s/opt/x/gcc-runtime-12.2.0-ggg\n\
                   ==> demo: Successfully installed demo-1.0-xyz\n\u{1b}[1;32m[+]\u{1b}[0m /s/opt/x/demo-1.0-xyz\n";
        assert_eq!(
            installed_prefix(log, "demo"),
            Some(PathBuf::from("/s/opt/x/demo-1.0-xyz"))
        );
        assert_eq!(installed_prefix(log, "other"), None);
    }
}
