//! The stage itself: the installed prefix named by the install log, the
//! records Spack keeps in it (`.spack/spec.json`, the gzipped build log,
//! `archived-files/**/CMakeCache.txt`), the ELF files, the judgement, and
//! the stage log `<attempt>/logs/hermeticity.log`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use packsmith_exec::atomic_write;
use packsmith_spack_knowledge::mapping::SpackNames;

use super::shipped::keep_shipped;
use super::{
    autotools_probes, cmake_cache, compiler_commands, configure_output, elf_observations,
    judge_with_closure, meson_output, Dag, HermeticityReport, HostLibraries, Observation,
    DEFAULT_LIBRARY_DIRS,
};
use crate::validate::{Attempt, SpackStageOutcome, Stage, ValidateError};

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

/// The log observations of an installed prefix (its configure output and
/// its archived `CMakeCache.txt`), and its build log's text.
fn log_observations(
    prefix: &Path,
    report: &mut HermeticityReport,
) -> (Vec<Observation>, Option<String>) {
    let meta = prefix.join(".spack");
    let mut out = Vec::new();
    let log = ["spack-build-out.txt.gz", "spack-build-out.txt"]
        .iter()
        .map(|n| meta.join(n))
        .find(|p| p.is_file());
    let log = log.as_deref().and_then(|p| Some((p, read_record(p)?)));
    match &log {
        Some((path, text)) => {
            let rel = relative(prefix, path);
            out.extend(configure_output(text, &rel));
            out.extend(meson_output(text, &rel));
            out.extend(autotools_probes(text, &rel));
            out.extend(compiler_commands(text, &rel, DEFAULT_LIBRARY_DIRS));
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
    (out, log.map(|(_, text)| text))
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
    let (mut observations, build_log) = log_observations(prefix, &mut report);
    let (elf, files) = elf_observations(prefix, DEFAULT_LIBRARY_DIRS);
    report.elf_files = files;
    observations.extend(elf);
    let host = HostLibraries {
        default_dirs: DEFAULT_LIBRARY_DIRS,
    };
    let (findings, notes) = judge_with_closure(&observations, &dag, kb, &host);
    let (findings, unshipped) = keep_shipped(findings, build_log.as_deref());
    report.findings = findings;
    report.notes.extend(notes);
    report.notes.extend(unshipped);
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

    /// An installed prefix as Spack leaves it, built against Debian's
    /// Open MPI (declared external at /usr) and the host's zlib (not
    /// declared), linked without `--as-needed` as MPI's full library
    /// list links it: `bin/demo` needs libmpi, libopen-pal and libz.
    fn mpi_prefix(root: &Path, lib: &str) -> Option<PathBuf> {
        use packsmith_exec::CommandSpec;
        let prefix = root.join("demo-1.0-hhhh");
        let archived = prefix.join(".spack/archived-files/spack-build-hhhh");
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        std::fs::create_dir_all(&archived).unwrap();
        std::fs::write(root.join("main.c"), "int main(void) { return 0; }\n").unwrap();
        let exe = prefix.join("bin/demo").display().to_string();
        let args = [
            "-o",
            &exe,
            "main.c",
            "-Wl,--no-as-needed",
            "-L",
            lib,
            "-lmpi",
            "-lopen-pal",
            "-lz",
        ];
        let out = packsmith_exec::run(&CommandSpec::new("cc").args(args).cwd(root)).ok()?;
        assert!(out.success(), "cc failed: {}", out.stderr);
        std::fs::write(
            prefix.join(".spack/spec.json"),
            r#"{"spec": {"nodes": [
              {"name": "demo", "hash": "hhhh", "dependencies": [
                {"name": "openmpi", "hash": "o", "parameters": {"virtuals": ["mpi"]}}]},
              {"name": "openmpi", "hash": "o", "external": {"path": "/usr"}}]}}"#,
        )
        .unwrap();
        let cache = format!(
            "MPI_mpi_LIBRARY:FILEPATH={lib}/libmpi.so\n\
             MPI_open-pal_LIBRARY:FILEPATH={lib}/libopen-pal.so\n\
             ZLIB_LIBRARY_RELEASE:FILEPATH={lib}/libz.so\n"
        );
        std::fs::write(archived.join("CMakeCache.txt"), cache).unwrap();
        Some(prefix)
    }

    #[test]
    fn an_external_mpis_own_library_is_a_note_and_the_packages_libz_a_finding() {
        let lib = "/usr/lib/x86_64-linux-gnu";
        let dir = Path::new(lib);
        if !dir.join("libmpi.so").exists() || !dir.join("libopen-pal.so").exists() {
            eprintln!("SKIPPED: no Debian Open MPI (libopenmpi-dev) under {lib}");
            return;
        }
        let root = tempfile::tempdir().unwrap();
        let Some(prefix) = mpi_prefix(root.path(), lib) else {
            eprintln!("SKIPPED: no `cc` on PATH to build the test's ELF file");
            return;
        };
        let report =
            check_prefix(&prefix, &packsmith_spack_knowledge::mapping::NoKnowledge).unwrap();
        // libz stays the package's: MPI needs it too, but no MPI lookup
        // listed it (the loader finds it under /lib or /usr/lib).
        assert_eq!(report.findings.len(), 1, "{report:#?}");
        let zlib = &report.findings[0];
        assert_eq!(zlib.package.as_deref(), Some("zlib-api"));
        assert_eq!(zlib.paths[0], format!("{lib}/libz.so"));
        assert!(zlib.paths[1].ends_with("/libz.so.1"), "{zlib:#?}");
        let pal = report
            .notes
            .iter()
            .find(|n| n.starts_with("libopen-pal.so.40: needed by "))
            .unwrap_or_else(|| panic!("{:#?}", report.notes));
        assert!(
            pal.contains(" of mpi (openmpi, external at /usr); not the package's (bin/demo: DT_NEEDED libopen-pal.so.40"),
            "{pal}"
        );
        assert!(render_log(&report).contains(&format!("note: {pal}\n")));
    }
}
