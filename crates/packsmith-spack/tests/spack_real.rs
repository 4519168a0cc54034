//! Real Spack, real bubblewrap. Skipped (with a loud SKIPPED line) unless
//! `PACKSMITH_TEST_SPACK` names a Spack checkout, which the tests set up
//! with `packsmith_spack::setup` (so the set-up is tested too). Slow: minutes.
//!
//! `PACKSMITH_CAPTURE_LOGS=1` rewrites `tests/spack-logs/` from these runs
//! (machine paths replaced by placeholders).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use packsmith_spack::diagnose::{classify, diagnose_outcome, FailureClass};
use packsmith_spack::setup::{setup_spack, SetupOptions};
use packsmith_spack::validate::{
    check_variants, pack_local_source, prepare_attempt, run_stages, Sandbox, SandboxPolicy,
    SpackPaths, SpackSandboxPolicy, SpackSetup, SpackStageOutcome, Stage, StageOptions,
    VariantCheckOptions,
};
use packsmith_spack_draft::brief::build_brief;
use packsmith_spack_draft::draft::{render_recipe, DraftOptions};
use packsmith_spack_knowledge::mapping::NoKnowledge;
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::target::TargetSpack;

/// Spack commands share one install tree and caches: one test at a time.
pub(crate) static SPACK: Mutex<()> = Mutex::new(());

struct Env {
    setup: SpackSetup,
    paths: SpackPaths,
    run: tempfile::TempDir,
}

/// The env file of a Spack set up by `setup_spack` from the checkout in
/// `PACKSMITH_TEST_SPACK`, made once per test run (a rerun is cheap).
pub(crate) fn test_spack_env() -> Result<PathBuf, String> {
    static ENV: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        let checkout =
            std::env::var_os("PACKSMITH_TEST_SPACK").ok_or("PACKSMITH_TEST_SPACK is not set")?;
        let prefix = std::env::temp_dir().join("packsmith-test-spack");
        let report = setup_spack(&SetupOptions {
            from: PathBuf::from(checkout),
            prefix,
            packages: None,
        })
        .map_err(|e| e.to_string())?;
        Ok(report.env_file)
    })
    .clone()
}

fn spack_or_skip(test: &str) -> Option<Env> {
    let run = tempfile::tempdir().unwrap();
    let setup = test_spack_env()
        .and_then(|env| SpackSetup::from_env_script(&env, run.path()).map_err(|e| e.to_string()));
    let setup = match setup {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "SKIPPED: no Spack for {test} ({e}); set PACKSMITH_TEST_SPACK=/path/to/spack-checkout"
            );
            return None;
        }
    };
    let paths = setup.probe_paths().unwrap();
    Some(Env { setup, paths, run })
}

fn sandbox(env: &Env, tweak: impl FnOnce(&mut SandboxPolicy)) -> Sandbox {
    let mut writable = env.paths.writable();
    writable.push(env.run.path().to_path_buf());
    let mut policy = SandboxPolicy::for_spack(
        writable,
        env.setup.read_only_roots(),
        env.run.path().join("home"),
    );
    tweak(&mut policy);
    Sandbox::new(policy, false).unwrap()
}

/// The small CMake project the failure recipes build. Options make it fail
/// in one way each.
fn tiny_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        r#"cmake_minimum_required(VERSION 3.18)
project(tinyproj VERSION 1.0.0 LANGUAGES CXX)
option(TINY_FAIL "Stop at configure time" OFF)
option(TINY_NEEDS_FOO "Require the LibFoo package" OFF)
option(TINY_BROKEN "Compile the broken code path" OFF)
option(TINY_INSTALL_HIP "Install a directory the source lacks" OFF)
if(TINY_FAIL)
  message(FATAL_ERROR "TINY_FAIL is set: this configuration is not supported")
endif()
if(TINY_NEEDS_FOO)
  find_package(LibFoo 2.0 REQUIRED)
endif()
add_library(tiny src/tiny.cpp)
if(TINY_BROKEN)
  target_compile_definitions(tiny PRIVATE TINY_BROKEN)
endif()
install(TARGETS tiny)
if(TINY_INSTALL_HIP)
  install( DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/cmake/hip"
     DESTINATION share/tiny )
endif()
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("src/tiny.cpp"),
        r#"#include <string>
int tiny_answer() { return 42; }
#ifdef TINY_BROKEN
std::string tiny_broken() {
    int count = "not a number";
    return undeclared_helper(count);
}
#endif
"#,
    )
    .unwrap();
}

fn tiny_recipe(url: &str, version_line: &str, extra_directives: &str, cmake_args: &str) -> String {
    format!(
        r#"from spack.package import *


class Tinyproj(CMakePackage):
    """A tiny project that breaks on purpose."""

    homepage = "https://example.invalid/tinyproj"
    url = "{url}"

    {version_line}
{extra_directives}
    def cmake_args(self):
        return [{cmake_args}]
"#
    )
}

fn placeholders(env: &Env) -> Vec<(String, String)> {
    // The sandbox's home lies in the run directory; named apart so that no
    // captured log reads like a path under `/home`.
    let mut subs: Vec<(String, String)> = vec![
        (
            env.run.path().join("home").display().to_string(),
            "{SANDBOX_HOME}".into(),
        ),
        (env.run.path().display().to_string(), "{RUN}".into()),
    ];
    let p = &env.paths;
    let mut named: Vec<(PathBuf, &str)> = vec![(p.install_root.clone(), "{INSTALL_ROOT}")];
    // Spack stages under `<build_stage>/<user>/`: the user's name is this
    // machine's, not the log's.
    let user = std::env::var("USER").or_else(|_| std::env::var("LOGNAME"));
    for s in &p.build_stage {
        if let Ok(user) = &user {
            named.push((s.join(user), "{STAGE}/{USER}"));
        }
        named.push((s.clone(), "{STAGE}"));
    }
    for (path, name) in [
        (&p.source_cache, "{SOURCE_CACHE}"),
        (&p.misc_cache, "{MISC_CACHE}"),
        (&p.user_cache, "{USER_CACHE}"),
        (&p.test_stage, "{TEST_STAGE}"),
    ] {
        if let Some(path) = path {
            named.push((path.clone(), name));
        }
    }
    for (var, name) in [
        ("SPACK_USER_CONFIG_PATH", "{SPACK_CONFIG}"),
        ("SPACK_PYTHON", "{SPACK_PYTHON}"),
        ("SPACK_ROOT", "{SPACK_ROOT}"),
    ] {
        if let Some(v) = env.setup.env.get(var) {
            named.push((PathBuf::from(v), name));
        }
    }
    for root in env.setup.read_only_roots() {
        named.push((root, "{READ_ONLY_ROOT}"));
    }
    for (path, name) in named {
        subs.push((path.display().to_string(), name.to_string()));
    }
    if let Some(home) = std::env::var_os("HOME") {
        subs.push((format!(" {} ", home.to_string_lossy()), " {HOME} ".into()));
    }
    // The host's tools (the external cmake, bubblewrap, prlimit) and
    // CMake's modules: where they live is this machine's layout.
    for (dir, name) in [
        ("/usr/bin/", "{HOST_BIN}/"),
        ("/usr/share/", "{HOST_SHARE}/"),
    ] {
        subs.push((dir.into(), name.into()));
    }
    // Longest first, so nested paths are replaced before their parents.
    subs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    subs
}

fn scrub(text: &str, subs: &[(String, String)]) -> String {
    let mut out = text.to_string();
    for (from, to) in subs {
        out = out.replace(from, to);
    }
    out
}

/// Writes the stage's logs as fixtures, this machine's paths replaced by
/// placeholders (`extra`: paths only this case knows, longest first).
fn capture(env: &Env, case: &str, outcome: &SpackStageOutcome, extra: &[(String, String)]) {
    if std::env::var_os("PACKSMITH_CAPTURE_LOGS").is_none() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spack-logs");
    std::fs::create_dir_all(&dir).unwrap();
    let mut subs = extra.to_vec();
    subs.extend(placeholders(env));
    let log = std::fs::read_to_string(&outcome.log_path).unwrap();
    std::fs::write(
        dir.join(format!("{case}.{}.log", outcome.stage)),
        scrub(&log, &subs),
    )
    .unwrap();
    if let Some(b) = &outcome.build_log {
        let text = std::fs::read_to_string(b).unwrap();
        std::fs::write(dir.join(format!("{case}.build.log")), scrub(&text, &subs)).unwrap();
    }
}

struct Case {
    name: &'static str,
    stages: &'static [Stage],
    expect: FailureClass,
}

#[test]
fn captured_failures_classify() {
    let Some(env) = spack_or_skip("captured_failures_classify") else {
        return;
    };
    let _guard = SPACK.lock().unwrap_or_else(|e| e.into_inner());
    let sb = sandbox(&env, |_| {});
    let project = env.run.path().join("tinyproj-src");
    tiny_project(&project);
    let mirror = env.run.path().join("mirror");
    let src = pack_local_source(&project, "tinyproj", "1.0.0", &mirror).unwrap();
    let good = format!("version(\"1.0.0\", sha256=\"{}\")", src.sha256);
    let mut wrong = src.sha256.clone();
    wrong.replace_range(0..1, if wrong.starts_with('0') { "1" } else { "0" });
    let wrong = format!("version(\"1.0.0\", sha256=\"{wrong}\")");
    let missing_url = src.url.replace("tinyproj-1.0.0", "tinyproj-9.9.9");
    let missing = format!("version(\"9.9.9\", sha256=\"{}\")", "ab".repeat(32));
    let all = &[Stage::Load, Stage::Audit, Stage::Concretize, Stage::Install];
    let cases: Vec<(Case, String)> = vec![
        (
            Case {
                name: "syntax",
                stages: all,
                expect: FailureClass::Syntax,
            },
            tiny_recipe(&src.url, &good, "", "")
                .replace("def cmake_args(self):", "def cmake_args(self)"),
        ),
        (
            Case {
                name: "unknown-dependency",
                stages: all,
                expect: FailureClass::UnknownPackage,
            },
            tiny_recipe(
                &src.url,
                &good,
                "    depends_on(\"libdoesnotexist@2:\")\n",
                "",
            ),
        ),
        (
            Case {
                name: "unknown-dependency-spec",
                stages: &[Stage::Concretize],
                expect: FailureClass::UnknownPackage,
            },
            tiny_recipe(
                &src.url,
                &good,
                "    depends_on(\"libdoesnotexist@2:\")\n",
                "",
            ),
        ),
        (
            Case {
                name: "depends-on-c",
                stages: all,
                expect: FailureClass::UnknownPackage,
            },
            tiny_recipe(
                &src.url,
                &good,
                "    depends_on(\"c\", type=\"build\")\n",
                "",
            ),
        ),
        (
            Case {
                name: "unsatisfiable",
                stages: &[Stage::Load, Stage::Concretize],
                expect: FailureClass::Constraint,
            },
            tiny_recipe(&src.url, &good, "    depends_on(\"zlib@99:\")\n", ""),
        ),
        (
            Case {
                name: "cmake-define-fails",
                stages: &[Stage::Install],
                expect: FailureClass::CmakeConfigure,
            },
            tiny_recipe(&src.url, &good, "", "self.define(\"TINY_FAIL\", True)"),
        ),
        (
            Case {
                name: "missing-find-package",
                stages: &[Stage::Install],
                expect: FailureClass::MissingDependency,
            },
            tiny_recipe(&src.url, &good, "", "self.define(\"TINY_NEEDS_FOO\", True)"),
        ),
        (
            Case {
                name: "compile-error",
                stages: &[Stage::Install],
                expect: FailureClass::Compilation,
            },
            tiny_recipe(&src.url, &good, "", "self.define(\"TINY_BROKEN\", True)"),
        ),
        (
            Case {
                name: "install-missing-source-path",
                stages: &[Stage::Install],
                expect: FailureClass::MissingSourceFile,
            },
            tiny_recipe(
                &src.url,
                &good,
                "",
                "self.define(\"TINY_INSTALL_HIP\", True)",
            ),
        ),
        (
            Case {
                name: "recipe-exception",
                stages: &[Stage::Install],
                expect: FailureClass::Syntax,
            },
            tiny_recipe(
                &src.url,
                &good,
                "",
                "self.define_from_variant(\"TINY_X\", \"nosuchvariant\")",
            ),
        ),
        (
            Case {
                name: "spec-without-dependency",
                stages: &[Stage::Install],
                expect: FailureClass::MissingDependency,
            },
            tiny_recipe(
                &src.url,
                &good,
                "",
                "self.define(\"TINY_ZLIB_ROOT\", self.spec[\"zlib\"].prefix)",
            ),
        ),
        (
            Case {
                name: "wrong-sha256",
                stages: &[Stage::Install],
                expect: FailureClass::Fetch,
            },
            tiny_recipe(&src.url, &wrong, "", ""),
        ),
        (
            Case {
                name: "missing-tarball",
                stages: &[Stage::Install],
                expect: FailureClass::Fetch,
            },
            tiny_recipe(&missing_url, &missing, "", ""),
        ),
    ];
    let options = StageOptions::default();
    let mut report = Vec::new();
    for (n, (case, recipe)) in cases.into_iter().enumerate() {
        assert!(parse_recipe(&recipe, "package.py").class_name.is_some());
        let attempt = prepare_attempt(
            env.run.path(),
            "capture",
            n as u32 + 1,
            "tinyproj",
            &recipe,
            Some(&src.mirror),
        )
        .unwrap();
        let outcomes = run_stages(&env.setup, &sb, &attempt, case.stages, &options).unwrap();
        let last = outcomes.last().unwrap();
        assert!(
            !last.passed,
            "{}: expected a failure, got {outcomes:?}",
            case.name
        );
        capture(&env, case.name, last, &[]);
        let d = diagnose_outcome(last).unwrap().unwrap();
        let times: Vec<String> = outcomes
            .iter()
            .map(|o| format!("{} {:.1}s", o.stage, o.duration.as_secs_f64()))
            .collect();
        report.push(format!(
            "{}: {:?} at {} ({})",
            case.name,
            d.class,
            last.stage,
            times.join(", ")
        ));
        assert_eq!(d.class, case.expect, "{}: {d:#?}", case.name);
        // The classification does not depend on where the log came from.
        let log = std::fs::read_to_string(&last.log_path).unwrap();
        let build = last
            .build_log
            .as_ref()
            .map(|p| std::fs::read_to_string(p).unwrap());
        assert_eq!(
            classify(last.stage, &log, build.as_deref()).class,
            case.expect
        );
    }
    eprintln!("captured failures:\n  {}", report.join("\n  "));
}

/// A Fortran library that gfortran >= 10 refuses (argument mismatch between
/// two calls): the install fails as `compiler_compat`, the rule repair adds
/// the flag through `flag_handler`, and the repaired recipe installs.
#[test]
fn a_compiler_compat_error_is_repaired_by_its_flag() {
    let Some(env) = spack_or_skip("a_compiler_compat_error_is_repaired_by_its_flag") else {
        return;
    };
    let _guard = SPACK.lock().unwrap_or_else(|e| e.into_inner());
    let sb = sandbox(&env, |_| {});
    let project = env.run.path().join("fmismatch-src");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\nproject(fmismatch VERSION 1.0.0 LANGUAGES Fortran)\nadd_library(fmismatch src/mm.f90)\ninstall(TARGETS fmismatch)\n",
    )
    .unwrap();
    std::fs::write(
        project.join("src/mm.f90"),
        "subroutine user()\n  real(8) :: x(4)\n  integer :: n\n  call sink(x, 4)\n  call sink(n, 1)\nend subroutine user\n",
    )
    .unwrap();
    let mirror = env.run.path().join("mirror");
    let src = pack_local_source(&project, "fmismatch", "1.0.0", &mirror).unwrap();
    let recipe = format!(
        r#"from spack.package import *


class Fmismatch(CMakePackage):
    """A Fortran library with an old-style argument mismatch."""

    homepage = "https://example.invalid/fmismatch"
    url = "{}"

    version("1.0.0", sha256="{}")
"#,
        src.url, src.sha256
    );
    let options = StageOptions::default();
    let install = |n: u32, text: &str| {
        let attempt = prepare_attempt(
            env.run.path(),
            "compat",
            n,
            "fmismatch",
            text,
            Some(&src.mirror),
        )
        .unwrap();
        run_stages(&env.setup, &sb, &attempt, &[Stage::Install], &options).unwrap()
    };
    let outcomes = install(1, &recipe);
    let last = outcomes.last().unwrap();
    assert!(!last.passed, "{outcomes:?}");
    let d = diagnose_outcome(last).unwrap().unwrap();
    assert_eq!(d.class, FailureClass::CompilerCompat, "{d:#?}");
    assert_eq!(d.names, ["gfortran-argument-mismatch"]);
    let (fixed, why) = packsmith_spack::ecosystem::auto_repair_with(&recipe, &d, None).unwrap();
    eprintln!("repair: {why}\n{fixed}");
    let outcomes = install(2, &fixed);
    assert!(
        outcomes.iter().all(|o| o.passed),
        "{outcomes:?}\n{}",
        std::fs::read_to_string(&outcomes.last().unwrap().log_path).unwrap_or_default()
    );
}

#[test]
fn heatsim_installs_end_to_end() {
    let Some(env) = spack_or_skip("heatsim_installs_end_to_end") else {
        return;
    };
    let _guard = SPACK.lock().unwrap_or_else(|e| e.into_inner());
    let sb = sandbox(&env, |_| {});
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/heatsim");
    let facts = packsmith_analyze::analyze_dir(
        &root,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: root.display().to_string(),
            release_tag: None,
        },
    )
    .unwrap();
    let mut brief = build_brief(&facts, TargetSpack::V0_23, &NoKnowledge);
    let version = brief.fetch.version.clone().unwrap();
    let t = Instant::now();
    let src = pack_local_source(
        &root,
        &brief.package,
        &version,
        &env.run.path().join("mirror"),
    )
    .unwrap();
    let pack_time = t.elapsed();
    brief.fetch.url = Some(src.url.clone());
    brief.fetch.sha256 = Some(src.sha256.clone());
    let recipe = render_recipe(&brief, &DraftOptions::default());
    let attempt = prepare_attempt(
        env.run.path(),
        "heatsim",
        1,
        &brief.package,
        &recipe,
        Some(&src.mirror),
    )
    .unwrap();
    let outcomes = run_stages(
        &env.setup,
        &sb,
        &attempt,
        &Stage::ALL,
        &StageOptions::default(),
    )
    .unwrap();
    let mut timings = BTreeMap::new();
    for o in &outcomes {
        timings.insert(
            o.stage.as_str(),
            format!("{:.1}s", o.duration.as_secs_f64()),
        );
    }
    eprintln!(
        "heatsim: pack {:.2}s ({}), stages {timings:?}",
        pack_time.as_secs_f64(),
        src.method
    );
    let last = outcomes.last().unwrap();
    if !last.passed {
        let d = diagnose_outcome(last).unwrap();
        panic!(
            "heatsim failed at {}: {d:#?}\nrecipe:\n{recipe}\nlog: {}",
            last.stage,
            std::fs::read_to_string(&last.log_path).unwrap()
        );
    }
    assert_eq!(outcomes.len(), 4);
}

/// Whether a `sleep <secs>` process is alive on the host.
fn daemon_alive(secs: &str) -> bool {
    let wanted = format!("sleep\0{secs}\0");
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .any(|c| c == wanted.as_bytes())
}

/// sha256 over every path and file content under `dir`.
fn tree_hash(dir: &Path) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            files.push(p);
        }
    }
    files.sort();
    for f in files {
        h.update(f.display().to_string().as_bytes());
        if f.is_file() {
            h.update(std::fs::read(&f).unwrap());
        }
    }
    hex::encode(h.finalize())
}

/// A recipe whose `cmake_args()` attacks the machine; each attack reports
/// what happened, and the install then fails with the report.
fn evil_recipe(
    url: &str,
    sha: &str,
    host_home: &Path,
    outside: &Path,
    run_parent: &Path,
) -> String {
    let home = host_home.display();
    let outside = outside.display();
    let run_parent = run_parent.display();
    let host_pid = std::process::id();
    format!(
        r#"from spack.package import *


class Tinyproj(CMakePackage):
    """A recipe that tries to escape."""

    homepage = "https://example.invalid/tinyproj"
    url = "{url}"

    version("1.0.0", sha256="{sha}")

    def cmake_args(self):
        import os, socket, time
        report = []

        def attempt(label, fn):
            try:
                report.append(label + ": ALLOWED " + str(fn()))
            except Exception as e:
                report.append(label + ": BLOCKED " + type(e).__name__ + ": " + str(e))

        def write(path):
            with open(path, "w") as f:
                f.write("pwned")
            return path

        attempt("write-host-home", lambda: write("{home}/pwned"))
        attempt("write-expanduser-home", lambda: write(os.path.expanduser("~/pwned")))
        attempt("write-outside", lambda: write("{outside}"))
        attempt("read-ssh-key", lambda: open("{home}/.ssh/id_rsa").read())

        def connect():
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(5)
            t = time.time()
            try:
                s.connect(("1.1.1.1", 53))
            finally:
                s.close()
            return "connected after %.1fs" % (time.time() - t)

        attempt("network", connect)

        def fill_disk():
            chunk = b"x" * (1 << 20)
            with open(os.path.join(self.stage.path, "fill"), "wb") as f:
                for _ in range(64):
                    f.write(chunk)
                    f.flush()
            return "wrote 64 MiB"

        attempt("fill-disk", fill_disk)

        def fork_bomb():
            pids = []
            try:
                for _ in range(2000):
                    pid = os.fork()
                    if pid == 0:
                        time.sleep(3)
                        os._exit(0)
                    pids.append(pid)
            finally:
                report.append("forked %d children" % len(pids))
                for pid in pids:
                    os.waitpid(pid, 0)
            return "no limit hit"

        attempt("fork-bomb", fork_bomb)

        def secrets():
            words = ("KEY", "TOKEN", "SECRET", "PASSWORD")
            found = sorted(k for k in os.environ if any(w in k.upper() for w in words))
            if not found:
                raise KeyError("no secret in the environment")
            return "found " + ",".join(found)

        attempt("read-secret-env", secrets)

        def through_symlink():
            # Spack calls cmake_args more than once: plant the link anew.
            link = os.path.join(self.stage.path, "parent-link")
            if os.path.lexists(link):
                os.remove(link)
            os.symlink("{run_parent}", link)
            return write(os.path.join(link, "escaped-via-link"))

        attempt("write-via-symlink", through_symlink)

        def ptrace():
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.ptrace(16, {host_pid}, 0, 0) != 0:  # PTRACE_ATTACH
                err = ctypes.get_errno()
                raise OSError(err, os.strerror(err))
            libc.ptrace(17, {host_pid}, 0, 0)  # PTRACE_DETACH
            return "attached to the test process"

        attempt("ptrace-host", ptrace)

        def daemon():
            import subprocess
            p = subprocess.Popen(
                ["sleep", "4242"],
                start_new_session=True,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            return "started pid %d" % p.pid

        attempt("daemon", daemon)
        raise InstallError("containment report:\n" + "\n".join(report))
"#
    )
}

#[test]
fn sandbox_contains_malicious_recipes() {
    let Some(env) = spack_or_skip("sandbox_contains_malicious_recipes") else {
        return;
    };
    let _guard = SPACK.lock().unwrap_or_else(|e| e.into_inner());
    // A stand-in for the user's home, with a dummy key, hidden in the sandbox.
    let host_home = tempfile::tempdir().unwrap();
    std::fs::create_dir(host_home.path().join(".ssh")).unwrap();
    std::fs::write(
        host_home.path().join(".ssh/id_rsa"),
        "dummy key, not a secret\n",
    )
    .unwrap();
    let before = tree_hash(host_home.path());
    let outside_dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let outside = outside_dir.path().join("escaped");
    let sb = sandbox(&env, |p| {
        p.hidden.push(host_home.path().to_path_buf());
        p.max_file_size = Some(16 << 20);
        p.max_processes = Some(128);
    });
    let project = env.run.path().join("tinyproj-src");
    tiny_project(&project);
    let src = pack_local_source(
        &project,
        "tinyproj",
        "1.0.0",
        &env.run.path().join("mirror"),
    )
    .unwrap();
    let run_parent = env.run.path().parent().unwrap().to_path_buf();
    let recipe = evil_recipe(
        &src.url,
        &src.sha256,
        host_home.path(),
        &outside,
        &run_parent,
    );
    // A secret in packsmith's own environment, as a user's API key is
    // (edition 2021; the real-Spack tests run one at a time under SPACK).
    std::env::set_var("OPENAI_API_KEY", "sk-sandbox-test-not-a-secret");
    let attempt = prepare_attempt(
        env.run.path(),
        "evil",
        1,
        "tinyproj",
        &recipe,
        Some(&src.mirror),
    )
    .unwrap();
    let mut options = StageOptions::default();
    options.timeouts.install = std::time::Duration::from_secs(300);
    let outcomes = run_stages(&env.setup, &sb, &attempt, &[Stage::Install], &options).unwrap();
    let out = &outcomes[0];
    let home = (host_home.path().display().to_string(), "{HOST_HOME}".into());
    capture(&env, "sandbox-escape", out, &[home]);
    let log = std::fs::read_to_string(&out.log_path).unwrap();
    let build = out
        .build_log
        .as_ref()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap_or_default();
    let all = format!("{log}\n{build}");
    let report: Vec<&str> = all
        .lines()
        .filter(|l| {
            [
                "write-",
                "read-ssh",
                "network:",
                "fill-disk",
                "fork-bomb",
                "forked ",
                "read-secret-env",
                "write-via-symlink",
                "ptrace-host",
                "daemon",
            ]
            .iter()
            .any(|k| l.trim_start().starts_with(k))
        })
        .collect();
    eprintln!(
        "containment report ({:.1}s):\n  {}\n  sandbox events: {:?}",
        out.duration.as_secs_f64(),
        report.join("\n  "),
        out.sandbox_events
    );
    assert!(!out.passed);
    let line = |k: &str| {
        report
            .iter()
            .find(|l| l.trim_start().starts_with(k))
            .copied()
            .unwrap_or_default()
    };
    assert!(
        line("write-host-home").contains("BLOCKED") || !host_home.path().join("pwned").exists()
    );
    assert!(line("write-outside").contains("BLOCKED"), "{report:?}");
    assert!(line("read-ssh-key").contains("BLOCKED"), "{report:?}");
    assert!(line("network").contains("BLOCKED"), "{report:?}");
    assert!(line("fill-disk").contains("File too large"), "{report:?}");
    assert!(line("fork-bomb").contains("BLOCKED"), "{report:?}");
    assert!(line("read-secret-env").contains("BLOCKED"), "{report:?}");
    assert!(line("ptrace-host").contains("BLOCKED"), "{report:?}");
    // The daemon may start, but not outlive the sandbox.
    assert!(!line("daemon").is_empty(), "{report:?}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while daemon_alive("4242") && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!daemon_alive("4242"), "a daemon outlived the sandbox");
    // Nothing outside the sandbox changed.
    assert!(
        !run_parent.join("escaped-via-link").exists(),
        "a write through a planted symlink reached {}",
        run_parent.display()
    );
    assert_eq!(tree_hash(host_home.path()), before, "the host home changed");
    assert!(!host_home.path().join("pwned").exists());
    assert!(!outside.exists(), "a file escaped to {}", outside.display());
    let d = diagnose_outcome(out).unwrap().unwrap();
    assert_eq!(d.class, FailureClass::Sandbox, "{d:#?}");
}

#[test]
fn no_sandbox_runs_directly_and_a_broken_bwrap_is_a_clear_error() {
    let policy =
        SandboxPolicy::for_spack(vec![], vec![], std::env::temp_dir().join("packsmith-home"));
    assert_eq!(Sandbox::new(policy.clone(), true).unwrap(), Sandbox::None);
    // A policy bwrap cannot set up (binding a directory that is a file)
    // must fail with the --no-sandbox hint, not run unconfined.
    let file = tempfile::NamedTempFile::new().unwrap();
    let broken = Sandbox::Bubblewrap {
        bwrap: "/usr/bin/bwrap".into(),
        prlimit: None,
        policy: SandboxPolicy {
            writable: vec![file.path().join("not-a-dir")],
            ..policy
        },
    };
    if Path::new("/usr/bin/bwrap").exists() {
        let err = broken.probe().unwrap_err().to_string();
        assert!(err.contains("--no-sandbox"), "{err}");
    } else {
        eprintln!("SKIPPED: bwrap not installed");
    }
}

/// After the defaults concretize, the variant check flips each boolean
/// variant: `~shared` concretizes, `+bad` hits a conflict, `+foo` asks for
/// a version of zlib that does not exist. (A dependency on an unknown
/// package fails even the defaults: Spack resolves every `depends_on` name.)
#[test]
fn variant_check_reports_which_flips_fail() {
    let Some(env) = spack_or_skip("variant_check_reports_which_flips_fail") else {
        return;
    };
    let _guard = SPACK.lock().unwrap_or_else(|e| e.into_inner());
    let sb = sandbox(&env, |_| {});
    let project = env.run.path().join("tinyproj-src");
    tiny_project(&project);
    let src = pack_local_source(
        &project,
        "tinyproj",
        "1.0.0",
        &env.run.path().join("mirror"),
    )
    .unwrap();
    let recipe_text = tiny_recipe(
        &src.url,
        &format!("version(\"1.0.0\", sha256=\"{}\")", src.sha256),
        r#"    variant("shared", default=True, description="Build shared libraries")
    variant("bad", default=False, description="A configuration that is not supported")
    variant("foo", default=False, description="Use LibFoo")
    variant("build_kind", default="fast", values=("fast", "small"), description="Not boolean")

    conflicts("+bad", msg="tinyproj cannot be built with +bad")
    depends_on("zlib@99:", when="+foo")
"#,
        "self.define_from_variant(\"BUILD_SHARED_LIBS\", \"shared\")",
    );
    let attempt = prepare_attempt(
        env.run.path(),
        "variants",
        1,
        "tinyproj",
        &recipe_text,
        Some(&src.mirror),
    )
    .unwrap();
    let options = StageOptions::default();
    let base = run_stages(
        &env.setup,
        &sb,
        &attempt,
        &[Stage::Load, Stage::Concretize],
        &options,
    )
    .unwrap();
    if let Some(failed) = base.iter().find(|o| !o.passed) {
        panic!(
            "defaults must pass: {}",
            std::fs::read_to_string(&failed.log_path).unwrap()
        );
    }

    let recipe = parse_recipe(&recipe_text, "package.py");
    let t = Instant::now();
    let check = check_variants(
        &env.setup,
        &sb,
        &attempt,
        &recipe,
        &VariantCheckOptions {
            stages: options,
            ..VariantCheckOptions::default()
        },
    )
    .unwrap();
    let lines: Vec<String> = check
        .results
        .iter()
        .map(|r| {
            format!(
                "{} → {} at {} in {:.1}s {:?}",
                r.spec,
                if r.passed { "ok" } else { "FAILED" },
                r.stage,
                r.duration.as_secs_f64(),
                r.failure
            )
        })
        .collect();
    eprintln!(
        "variant check in {:.1}s:\n  {}",
        t.elapsed().as_secs_f64(),
        lines.join("\n  ")
    );
    let by_name = |n: &str| check.results.iter().find(|r| r.variant == n).unwrap();
    assert_eq!(check.results.len(), 3, "{check:#?}");
    assert_eq!(check.skipped.len(), 1, "build_kind is not boolean");

    let shared = by_name("shared");
    assert_eq!(shared.spec, "tinyproj~shared");
    assert!(shared.passed && shared.failure.is_none(), "{shared:#?}");
    assert_eq!(shared.stage, Stage::Concretize);

    let bad = by_name("bad");
    assert_eq!(bad.spec, "tinyproj+bad");
    assert!(!bad.passed, "{bad:#?}");
    assert_eq!(bad.failure, Some(FailureClass::Constraint), "{bad:#?}");
    assert!(
        bad.excerpt
            .as_deref()
            .unwrap_or("")
            .contains("cannot be built with +bad"),
        "{bad:#?}"
    );

    let foo = by_name("foo");
    assert!(!foo.passed, "{foo:#?}");
    assert_eq!(foo.failure, Some(FailureClass::Constraint), "{foo:#?}");
    assert!(foo.logs.join("concretize.log").is_file());
    // The flips leave the attempt's own logs alone.
    assert!(attempt.logs.join("concretize.log").is_file());
    assert_ne!(foo.logs, attempt.logs);
    let json = serde_json::to_value(&check).unwrap();
    assert_eq!(json["results"][1]["value"], serde_json::json!(true));

    // --variant-install: the first flip (~shared) also installs.
    let t = Instant::now();
    let installed = check_variants(
        &env.setup,
        &sb,
        &attempt,
        &recipe,
        &VariantCheckOptions {
            max_variants: 1,
            install: true,
            stages: StageOptions::default(),
        },
    )
    .unwrap();
    eprintln!("~shared installed in {:.1}s", t.elapsed().as_secs_f64());
    let r = &installed.results[0];
    assert_eq!((r.variant.as_str(), r.stage), ("shared", Stage::Install));
    assert!(r.passed, "{r:#?}");
    assert!(r.logs.join("install.log").is_file());
}

/// A package the site also has as an external (the set-up declares
/// Debian's libffi) is built from the recipe under test, not taken from
/// `/usr`: the attempt's scope drops the package's own externals.
#[test]
fn the_package_under_test_is_built_even_when_the_site_has_it_as_an_external() {
    let Some(env) =
        spack_or_skip("the_package_under_test_is_built_even_when_the_site_has_it_as_an_external")
    else {
        return;
    };
    let _guard = SPACK.lock().unwrap_or_else(|e| e.into_inner());
    let sb = sandbox(&env, |_| {});
    let project = env.run.path().join("libffi-src");
    tiny_project(&project);
    let src =
        pack_local_source(&project, "libffi", "1.0.0", &env.run.path().join("mirror")).unwrap();
    let recipe_text = tiny_recipe(
        &src.url,
        &format!("version(\"1.0.0\", sha256=\"{}\")", src.sha256),
        "",
        "self.define(\"TINY_FAIL\", False)",
    )
    .replace("class Tinyproj(", "class Libffi(");
    let attempt = prepare_attempt(
        env.run.path(),
        "external",
        1,
        "libffi",
        &recipe_text,
        Some(&src.mirror),
    )
    .unwrap();
    let outcomes = run_stages(
        &env.setup,
        &sb,
        &attempt,
        &[Stage::Load, Stage::Concretize, Stage::Install],
        &StageOptions::default(),
    )
    .unwrap();
    let install = outcomes.last().unwrap();
    let log = std::fs::read_to_string(&install.log_path).unwrap();
    assert!(install.passed && install.stage == Stage::Install, "{log}");
    assert!(
        !log.contains("(external libffi"),
        "took the site's copy:\n{log}"
    );
}

/// A human-style recipe whose every line the install needs: the install
/// classes of the repair set break one each, and real Spack refuses each
/// mutant at install (configure stops) or at the hermeticity check (the
/// host's zlib found with the dependency removed), never before.
#[test]
fn install_stage_repair_tasks_fail_at_install_and_keep_their_source() {
    use packsmith_spack::repair_set::{build_repair_set, InstallSource, RepairSetOptions};
    use packsmith_spack_knowledge::mutate::MutationClass;
    let Some(env) =
        spack_or_skip("install_stage_repair_tasks_fail_at_install_and_keep_their_source")
    else {
        return;
    };
    let _guard = SPACK.lock().unwrap_or_else(|e| e.into_inner());
    let sb = sandbox(&env, |_| {});
    let project = env.run.path().join("zippy-src");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("CMakeLists.txt"),
        r#"cmake_minimum_required(VERSION 3.18)
project(zippy VERSION 1.0.0 LANGUAGES C)
option(ZIPPY_SAFE "The configuration the project supports" OFF)
option(ZIPPY_TESTS "Build the tests (they need LibFoo)" OFF)
if(NOT ZIPPY_SAFE)
  message(FATAL_ERROR "configure with -DZIPPY_SAFE=ON")
endif()
if(ZIPPY_TESTS)
  find_package(LibFoo REQUIRED)
endif()
find_package(ZLIB REQUIRED)
add_library(zippy zippy.c)
target_link_libraries(zippy ZLIB::ZLIB)
install(TARGETS zippy)
"#,
    )
    .unwrap();
    std::fs::write(
        project.join("zippy.c"),
        "#include <zlib.h>\nconst char *zippy(void) { return zlibVersion(); }\n",
    )
    .unwrap();
    let repo = env.run.path().join("builtin");
    let pkg = repo.join("packages/zippy");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("package.py"),
        r#"from spack.package import *


class Zippy(CMakePackage):
    """Zips."""

    homepage = "https://example.invalid/zippy"
    url = "https://example.invalid/zippy-1.0.0.tar.gz"

    version("1.0.0", sha256="0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

    depends_on("cmake@3.18:", type="build")
    depends_on("zlib-api")

    def cmake_args(self):
        return [
            self.define("ZIPPY_SAFE", True),
            self.define("ZIPPY_TESTS", self.run_tests),
        ]
"#,
    )
    .unwrap();
    let out = env.run.path().join("set");
    std::fs::create_dir_all(&out).unwrap();
    let sources = BTreeMap::from([(
        "zippy".to_string(),
        InstallSource {
            tree: project.clone(),
            version: "1.0.0".into(),
        },
    )]);
    let known = |_: &str| true;
    let opts = RepairSetOptions {
        packages: &repo.join("packages"),
        out: &out,
        n: 3,
        seed: 7,
        classes: MutationClass::INSTALL.to_vec(),
        known: &known,
        sources: &sources,
        names: &NoKnowledge,
    };
    let mut heard = Vec::new();
    let summary =
        build_repair_set(&opts, &env.setup, &sb, &mut |l| heard.push(l.to_string())).unwrap();
    assert_eq!(summary.originals_failing, 0, "{heard:#?}");
    assert_eq!(summary.tasks, 3, "{heard:#?}\n{summary:#?}");
    let tasks = std::fs::read_to_string(out.join("tasks.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = tasks
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let stage_of = |class: &str| {
        lines
            .iter()
            .find(|l| l["class"] == class)
            .map(|l| l["stage"].as_str().unwrap().to_string())
    };
    assert_eq!(
        stage_of("removed_dependency").as_deref(),
        Some("hermeticity")
    );
    assert_eq!(stage_of("removed_define").as_deref(), Some("install"));
    assert_eq!(stage_of("tests_on").as_deref(), Some("install"));
    for l in &lines {
        assert_eq!(l["version"], "1.0.0");
        let source = out.join(l["source"].as_str().unwrap());
        assert!(source.is_file(), "{}", source.display());
    }
}

/// `git -C dir args…`, which must succeed (local file submodules allowed).
fn git_in(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "protocol.file.allow=always", "-c", "user.name=t"])
        .args([
            "-c",
            "user.email=t@example.org",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A recursive clone of a CMake project that compiles a source file of a
/// git submodule (pumgen's tinyxml2 shape), with a forge remote and a tag.
fn project_with_submodule(root: &Path) -> PathBuf {
    let vend = root.join("vend");
    std::fs::create_dir_all(&vend).unwrap();
    std::fs::write(vend.join("vend.cpp"), "int vend_answer() { return 7; }\n").unwrap();
    git_in(&vend, &["init", "-q"]);
    git_in(&vend, &["add", "."]);
    git_in(&vend, &["commit", "-q", "-m", "vend"]);
    let src = root.join("subdemo");
    std::fs::create_dir_all(src.join("src")).unwrap();
    std::fs::write(
        src.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\nproject(subdemo VERSION 1.0.0 LANGUAGES CXX)\n\
         add_library(subdemo src/subdemo.cpp ext/vend/vend.cpp)\ninstall(TARGETS subdemo)\n",
    )
    .unwrap();
    std::fs::write(
        src.join("src/subdemo.cpp"),
        "int vend_answer();\nint subdemo_answer() { return vend_answer() * 6; }\n",
    )
    .unwrap();
    git_in(&src, &["init", "-q"]);
    git_in(
        &src,
        &["submodule", "add", "-q", vend.to_str().unwrap(), "ext/vend"],
    );
    git_in(&src, &["add", "."]);
    git_in(&src, &["commit", "-q", "-m", "subdemo 1.0.0"]);
    git_in(&src, &["tag", "v1.0.0"]);
    git_in(
        &src,
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/example/subdemo.git",
        ],
    );
    src
}

/// A build that compiles a submodule's file: the recipe fetches with git
/// and `submodules=True` (no archive URL, no file:// path), and the run
/// installs the checkout, submodule included, from its mirror.
#[test]
fn a_build_that_needs_a_submodule_installs_from_git_with_submodules() {
    let Some(env) =
        spack_or_skip("a_build_that_needs_a_submodule_installs_from_git_with_submodules")
    else {
        return;
    };
    let _guard = SPACK.lock().unwrap_or_else(|e| e.into_inner());
    let src = project_with_submodule(env.run.path());
    let facts = packsmith_analyze::analyze_dir(
        &src,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: src.display().to_string(),
            release_tag: None,
        },
    )
    .unwrap();
    let prepared = packsmith_spack::prepare::prepare_run(packsmith_spack::prepare::RunInputs {
        facts: &facts,
        source_root: &src,
        setup: env.setup.clone(),
        target: TargetSpack::V0_23,
        names: &NoKnowledge,
        overrides: Default::default(),
        out: &env.run.path().join("runs"),
        replace: false,
        no_sandbox: false,
    })
    .unwrap();
    let fetch = &prepared.brief.fetch;
    assert_eq!(
        fetch.git.as_deref(),
        Some("https://github.com/example/subdemo.git")
    );
    assert_eq!(fetch.tag.as_deref(), Some("v1.0.0"));
    assert!(fetch.url.is_none() && fetch.sha256.is_none(), "{fetch:?}");
    assert!(
        prepared.notes.iter().any(|n| n.contains("`ext/vend`")),
        "{:?}",
        prepared.notes
    );
    let recipe = render_recipe(&prepared.brief, &DraftOptions::default());
    assert!(recipe.contains("submodules=True"), "{recipe}");
    assert!(
        !recipe.contains("file://") && !recipe.contains("url ="),
        "{recipe}"
    );
    let attempt = prepare_attempt(
        &prepared.run_dir,
        "subdemo",
        1,
        &prepared.brief.package,
        &recipe,
        Some(&prepared.source.mirror),
    )
    .unwrap();
    let outcomes = run_stages(
        &env.setup,
        &prepared.sandbox,
        &attempt,
        &Stage::ALL,
        &StageOptions::default(),
    )
    .unwrap();
    let last = outcomes.last().unwrap();
    assert!(
        last.passed && outcomes.len() == 4,
        "failed at {}: {}\nrecipe:\n{recipe}",
        last.stage,
        std::fs::read_to_string(&last.log_path).unwrap_or_default()
    );
}
