//! The stage: the prefix the install stage reported, the test derived from
//! it, `spack test run /<hash>` with the attempt's scope in the stages'
//! sandbox, and the stage log `<attempt>/logs/smoke.log` (what was probed
//! and found, the command, and Spack's test log, also copied to
//! `logs/smoke-test-out.txt`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use packsmith_spack_knowledge::edit::smoke::{ExeCheck, SmokeTest};

use super::library::{derive_header_check, derive_link_check};

use super::{
    executable_candidates, installed_spec, probe_executable, probe_sandbox, python_modules,
};
use super::{InstalledSpec, PROBE_ARGS, PROBE_TIMEOUT};
use crate::validate::hermetic::installed_prefix;
use crate::validate::stages::{
    packsmith_lines, run_sandboxed, spack_command, stage_log, write_log,
};
use crate::validate::{
    Attempt, Sandbox, SpackSetup, SpackStageOutcome, Stage, StageOptions, ValidateError,
};

/// The test derived from an installed prefix, and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmokeDerivation {
    pub prefix: PathBuf,
    pub spec: InstalledSpec,
    pub test: SmokeTest,
    /// What was looked at and what it gave, one line each, for the log.
    pub notes: Vec<String>,
}

/// A version short enough to match by chance (`1`) is not looked for.
fn mentions_version(output: &str, version: &str) -> bool {
    version.len() >= 3 && output.contains(version)
}

/// Derives the smoke test of the install `attempt`'s install stage
/// reported: probes the executables of `bin/` in a sandbox stricter than
/// `sandbox` and reads the Python modules. `Err` says why there is no
/// prefix to test.
pub fn derive_smoke_test(attempt: &Attempt, sandbox: &Sandbox) -> Result<SmokeDerivation, String> {
    let install_log = attempt.logs.join(format!("{}.log", Stage::Install));
    let text = std::fs::read_to_string(&install_log)
        .map_err(|e| format!("cannot read the install log {}: {e}", install_log.display()))?;
    let prefix = installed_prefix(&text, &attempt.package).ok_or_else(|| {
        format!(
            "the install log {} names no installed prefix of {}",
            install_log.display(),
            attempt.package
        )
    })?;
    let spec = installed_spec(&prefix, &attempt.package).ok_or_else(|| {
        format!(
            "{} is not named <package>-<version>-<hash> (Spack's default projection), so the \
             install cannot be picked by its hash",
            prefix.display()
        )
    })?;
    let mut notes = Vec::new();
    let mut test = SmokeTest::default();
    let candidates = executable_candidates(&prefix, &attempt.package);
    if candidates.is_empty() {
        notes.push("bin/: no executable".to_string());
    }
    let scratch = attempt.dir.join("smoke-probe");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let strict = probe_sandbox(sandbox, &scratch);
    // A program that refused both flags but started is the fallback.
    let mut refused: Option<ExeCheck> = None;
    // A program that cannot load a shared library is a broken install.
    let mut unloadable: Option<ExeCheck> = None;
    for name in candidates {
        let probe = probe_executable(
            &strict,
            &prefix.join("bin").join(&name),
            &scratch,
            PROBE_TIMEOUT,
        );
        notes.push(format!("probe bin/{name}: {}", probe.tried.join("; ")));
        let loader = probe
            .tried
            .iter()
            .any(|t| t.contains("error while loading shared libraries"));
        if loader && unloadable.is_none() {
            unloadable = Some(ExeCheck {
                name: name.clone(),
                arg: PROBE_ARGS[0].to_string(),
                expect_version: false,
                refused_with: None,
                loads_only: true,
            });
        }
        if let Some((arg, output)) = probe.answered {
            test.executables.push(ExeCheck {
                expect_version: mentions_version(&output, &spec.version),
                name,
                arg,
                refused_with: None,
                loads_only: false,
            });
            break;
        }
        if let (None, Some((arg, code))) = (&refused, probe.refused) {
            refused = Some(ExeCheck {
                name,
                arg,
                expect_version: false,
                refused_with: Some(code),
                loads_only: false,
            });
        }
    }
    if let Some(check) = unloadable {
        notes.push(format!(
            "bin/{} cannot load a shared library: its test checks that it loads, and fails \
             until the install has the library",
            check.name
        ));
        test.executables.push(check);
    }
    if let (true, Some(check)) = (test.executables.is_empty(), refused) {
        notes.push(format!(
            "no program answered with exit 0; bin/{} starts and refuses {} with exit {}",
            check.name,
            check.arg,
            check.refused_with.unwrap_or_default()
        ));
        test.executables.push(check);
    }
    let link_scratch = scratch.join("link");
    std::fs::create_dir_all(&link_scratch)
        .map_err(|e| format!("cannot create {}: {e}", link_scratch.display()))?;
    match derive_link_check(&strict, &prefix, &attempt.package, &link_scratch) {
        Ok(Some(check)) => {
            notes.push(format!(
                "link lib{} (include <{}>, {}): compiled, linked and ran",
                check.library, check.header, check.symbol
            ));
            test.links.push(check);
        }
        Ok(None) => header_check(
            &strict,
            &prefix,
            attempt,
            &link_scratch,
            false,
            &mut test,
            &mut notes,
        ),
        Err(why) => {
            notes.push(format!("link check left out: {why}"));
            header_check(
                &strict,
                &prefix,
                attempt,
                &link_scratch,
                true,
                &mut test,
                &mut notes,
            );
        }
    }
    test.import_modules = python_modules(&prefix);
    notes.push(match test.import_modules.as_slice() {
        [] => "site-packages: no Python module".to_string(),
        modules => format!("site-packages: {}", modules.join(", ")),
    });
    Ok(SmokeDerivation {
        prefix,
        spec,
        test,
        notes,
    })
}

/// The header check, when the link check had nothing to test or could not
/// test the library (`despite_library`), into `test` with a note.
fn header_check(
    sandbox: &Sandbox,
    prefix: &Path,
    attempt: &Attempt,
    scratch: &Path,
    despite_library: bool,
    test: &mut SmokeTest,
    notes: &mut Vec<String>,
) {
    match derive_header_check(sandbox, prefix, &attempt.package, scratch, despite_library) {
        Ok(Some(check)) => {
            let why = if despite_library {
                "the library's own link check left out"
            } else {
                "no library: header-only"
            };
            notes.push(format!(
                "include <{}> ({}): compiled and ran ({why})",
                check.header,
                if check.cxx { "C++" } else { "C" }
            ));
            test.headers.push(check);
        }
        Ok(None) if !despite_library => {
            notes.push("lib/, include/: no library and no header".to_string())
        }
        Ok(None) => {}
        Err(why) => notes.push(format!("include check left out: {why}")),
    }
}

/// Spack's test log of a run with its test stage at `dir`.
fn find_test_log(dir: &Path) -> Option<PathBuf> {
    let suites = std::fs::read_dir(dir).ok()?;
    suites.flatten().find_map(|suite| {
        let files = std::fs::read_dir(suite.path()).ok()?;
        files
            .flatten()
            .map(|f| f.path())
            .find(|p| p.to_string_lossy().ends_with("-test-out.txt"))
    })
}

fn header(derivation_lines: &[String]) -> String {
    let mut s = String::from("packsmith smoke test\n");
    for line in derivation_lines {
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// Runs `spack test run /<hash>` for the install of `derivation` with the
/// recipe as it is now in the attempt's overlay (with the test written in,
/// or its own), and writes `<attempt>/logs/smoke.log`: `lines` first
/// (what was derived and what became of the recipe). The test stage lives
/// in the attempt's directory, so the log is found without asking Spack.
pub fn run_smoke_test(
    setup: &SpackSetup,
    sandbox: &Sandbox,
    attempt: &Attempt,
    derivation: &SmokeDerivation,
    lines: &[String],
    options: &StageOptions,
) -> Result<SpackStageOutcome, ValidateError> {
    let test_stage = attempt.dir.join("smoke-test");
    // A rerun of the attempt (after a rule fix) must not read an old log.
    if test_stage.exists() {
        std::fs::remove_dir_all(&test_stage)
            .map_err(|e| ValidateError::io("remove", &test_stage, e))?;
    }
    let args = vec![
        "-c".to_string(),
        format!("config:test_stage:{}", test_stage.display()),
        "test".into(),
        "run".into(),
        format!("/{}", derivation.spec.hash),
    ];
    let limit = options.timeouts.get(Stage::Smoke);
    let command = spack_command(setup, attempt, args, limit, options);
    let (out, command, sandbox_events) = run_sandboxed(sandbox, command)?;
    let test_log = find_test_log(&test_stage);
    let mut trailer = packsmith_lines(&[], &sandbox_events);
    if test_log.is_none() {
        trailer.push_str(&format!(
            "packsmith: spack test run left no test log under {}: nothing was tested\n",
            test_stage.display()
        ));
    }
    let copied = test_log.as_ref().and_then(|src| {
        let dest = attempt.logs.join("smoke-test-out.txt");
        std::fs::copy(src, &dest).ok().map(|_| dest)
    });
    let mut log = header(lines);
    log.push_str(&stage_log(&command, &out, &trailer, limit));
    if let Some(path) = &copied {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        log.push_str(&format!("==> spack test log ({})\n{text}", path.display()));
    }
    let log_path = attempt.logs.join(format!("{}.log", Stage::Smoke));
    write_log(&log_path, &log)?;
    Ok(SpackStageOutcome {
        stage: Stage::Smoke,
        passed: out.success() && copied.is_some(),
        duration: out.duration,
        log_path,
        exit_code: out.code,
        timed_out: out.timed_out,
        command,
        would_build: Vec::new(),
        build_log: copied,
        sandbox_events,
    })
}

/// The stage when Spack has nothing to run: no prefix to derive from
/// (`passed` false) or nothing to test (`passed` true). Writes the log.
pub fn smoke_without_spack(
    attempt: &Attempt,
    lines: &[String],
    passed: bool,
    started: Instant,
) -> Result<SpackStageOutcome, ValidateError> {
    let log_path = attempt.logs.join(format!("{}.log", Stage::Smoke));
    write_log(&log_path, &header(lines))?;
    Ok(SpackStageOutcome {
        stage: Stage::Smoke,
        passed,
        duration: started.elapsed().max(Duration::from_millis(1)),
        log_path,
        exit_code: None,
        timed_out: false,
        command: "packsmith smoke test".into(),
        would_build: Vec::new(),
        build_log: None,
        sandbox_events: Vec::new(),
    })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::validate::prepare_attempt_in;

    const HASH: &str = "ws23qsgtjbutjim2ftk6sfgpyk44hpvs";

    const RECIPE: &str = "from spack.package import *\n\n\nclass Demo(Package):\n    \"\"\"Demo.\"\"\"\n\n    version(\"1.2.0\", sha256=\"00\")\n";

    /// An attempt whose install log names `prefix`, an install of demo
    /// 1.2.0 with `bin/demo` (answers `--version` with its version) and a
    /// Python module.
    fn installed(root: &Path) -> (Attempt, PathBuf) {
        let attempt =
            prepare_attempt_in(&root.join("attempt"), "ns", "demo", RECIPE, None).unwrap();
        let prefix = root.join(format!("opt/demo-1.2.0-{HASH}"));
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        let exe = prefix.join("bin/demo");
        super::super::write_executable(
            &exe,
            "#!/bin/sh\n[ \"$1\" = --version ] && echo 'demo 1.2.0'\n",
        );
        let site = prefix.join("lib/python3.11/site-packages/demo");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::write(site.join("__init__.py"), "").unwrap();
        std::fs::create_dir_all(&attempt.logs).unwrap();
        std::fs::write(
            attempt.logs.join("install.log"),
            format!("==> stdout\n[+] {}\n", prefix.display()),
        )
        .unwrap();
        (attempt, prefix)
    }

    #[test]
    fn a_program_that_cannot_load_a_library_gets_a_test_that_it_loads() {
        let root = tempfile::tempdir().unwrap();
        let (attempt, prefix) = installed(root.path());
        // The loader's own words and exit code, as a missing library gives.
        std::fs::write(
            prefix.join("bin/demo"),
            "#!/bin/sh\necho \"$0: error while loading shared libraries: libdemo_trace.so: \
             cannot open shared object file: No such file or directory\" >&2\nexit 127\n",
        )
        .unwrap();
        let d = derive_smoke_test(&attempt, &Sandbox::None).unwrap();
        assert_eq!(d.test.executables.len(), 1, "{:?}", d.test);
        let check = &d.test.executables[0];
        assert!(check.loads_only, "{check:?}");
        assert_eq!(check.name, "demo");
        assert!(
            d.notes
                .iter()
                .any(|n| n.contains("bin/demo cannot load a shared library")),
            "{:?}",
            d.notes
        );
    }

    #[test]
    fn the_test_is_derived_from_the_prefix_the_install_named() {
        let root = tempfile::tempdir().unwrap();
        let (attempt, prefix) = installed(root.path());
        let d = derive_smoke_test(&attempt, &Sandbox::None).unwrap();
        assert_eq!(d.prefix, prefix);
        assert_eq!(d.spec.hash, HASH);
        assert_eq!(
            d.test.executables,
            [ExeCheck {
                name: "demo".into(),
                arg: "--version".into(),
                expect_version: true,
                refused_with: None,
                loads_only: false,
            }]
        );
        assert_eq!(d.test.import_modules, ["demo"]);
        assert!(
            d.notes[0].starts_with("probe bin/demo: --version: exit 0 in "),
            "{:?}",
            d.notes
        );
        assert_eq!(d.notes[1], "lib/, include/: no library and no header");
        assert_eq!(d.notes[2], "site-packages: demo");
        assert!(d.test.links.is_empty());
    }

    #[test]
    fn no_prefix_in_the_install_log_is_an_error_that_says_so() {
        let root = tempfile::tempdir().unwrap();
        let (attempt, _) = installed(root.path());
        std::fs::write(attempt.logs.join("install.log"), "==> stdout\n").unwrap();
        let err = derive_smoke_test(&attempt, &Sandbox::None).unwrap_err();
        assert!(err.contains("names no installed prefix of demo"), "{err}");
    }

    #[test]
    fn a_stage_without_spack_writes_its_lines() {
        let root = tempfile::tempdir().unwrap();
        let (attempt, _) = installed(root.path());
        let lines = ["nothing to test".to_string()];
        let out = smoke_without_spack(&attempt, &lines, true, Instant::now()).unwrap();
        assert!(out.passed);
        assert_eq!(out.log_path, attempt.logs.join("smoke.log"));
        assert_eq!(
            std::fs::read_to_string(&out.log_path).unwrap(),
            "packsmith smoke test\nnothing to test\n"
        );
    }
}
