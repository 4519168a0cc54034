#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]
//! Model-fault injection (issue 16 item 2): `packsmith nix` and `packsmith
//! spack` against a loopback model server that fails in each way a model
//! server fails. Every run either recovers or stops with a typed error;
//! each leaves a complete run directory, stops well inside its deadline,
//! and reports exactly the tokens and cost of the answers served whole.
//!
//! The whole matrix runs in the suite (about 15 s: 1 s timeouts, 50 ms
//! backoff); `cargo test -p packsmith --test model_faults -- --nocapture`
//! prints the table BENCHMARKS.md records.

use crate::common;
#[path = "common/fault_server.rs"]
mod fault_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use fault_server::Step;

/// One request may take 1 s; three tries in all, 50 ms apart; USD 10 and
/// 30 per million tokens for the fake model, so that cost is checkable.
const CONFIG: &str = "[llm]\nrequest_timeout_secs = 1\n\n[llm.retry]\nmax_attempts = 3\n\
    base_delay_ms = 50\nmax_retry_after_secs = 5\ndeadline_secs = 8\n\n\
    [llm.prices.fake]\nprompt = 10.0\ncompletion = 30.0\n";
const PRICE_PER_ANSWER: f64 = (100.0 * 10.0 + 20.0 * 30.0) / 1e6;

/// The longest a faulty run may take: the retries' deadline plus the
/// runs' own work, with room for a loaded 2-core machine.
const RUN_LIMIT: Duration = Duration::from_secs(45);

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every fault, in the matrix's order.
fn all_faults() -> Vec<Step> {
    vec![
        Step::RateLimited(1),
        Step::Status(500),
        Step::Status(503),
        Step::Stall,
        Step::Reset,
        Step::TruncatedJson,
        Step::NotJson,
        Step::MalformedToolCall,
        Step::UnknownToolCall,
        Step::WrongArgTypes,
        Step::ContextOverflow,
        Step::Empty,
        Step::WrongLanguage,
        Step::NeverStops,
    ]
}

/// What one run under one fault came to.
struct Outcome {
    output: Output,
    run: PathBuf,
    served: fault_server::Served,
    took: Duration,
    /// Holds the run directory until the checks are done.
    _tmp: tempfile::TempDir,
}

impl Outcome {
    /// The checks every fault must pass; returns the matrix's cell.
    fn check(&self, fault: &Step, eco: &str) -> String {
        let recovered = if eco == "spack" {
            // The stand-in Spack fails every install, so there the run
            // uses all its attempts.
            "attempts_exhausted"
        } else {
            "succeeded"
        };
        self.check_with(fault, eco, recovered, RUN_LIMIT)
    }

    /// [`Outcome::check`], with the status a recovered run ends in.
    fn check_with(&self, fault: &Step, eco: &str, recovered: &str, limit: Duration) -> String {
        let (stdout, stderr) = (text(&self.output.stdout), text(&self.output.stderr));
        let ctx = format!("{eco} / {}:\n{stdout}\n{stderr}", fault.name());
        assert!(!stderr.contains("panicked"), "{ctx}");
        let code = self.output.status.code().unwrap_or(-1);
        assert!(
            matches!(code, 0 | 1),
            "exit {code}: a finished or failed run, {ctx}"
        );
        assert!(self.took < limit, "took {:?}: {ctx}", self.took);
        let result_file = if eco == "nix" {
            "nix-result.json"
        } else {
            "report.json"
        };
        for file in ["report.json", "report.md", "trace.jsonl", result_file] {
            assert!(self.run.join(file).is_file(), "no {file}: {ctx}");
        }
        let report = read_json(&self.run.join("report.json"));
        assert_eq!(
            report["usage"]["prompt_tokens"],
            self.served.prompt_tokens(),
            "prompt tokens: {ctx}"
        );
        assert_eq!(
            report["usage"]["completion_tokens"],
            self.served.completion_tokens(),
            "completion tokens: {ctx}"
        );
        let cost = report["cost_usd"].as_f64().unwrap();
        let want = self.served.whole_answers as f64 * PRICE_PER_ANSWER;
        assert!((cost - want).abs() < 1e-9, "cost {cost} != {want}: {ctx}");
        let status = report["status"].as_str().unwrap().to_string();
        let reason = report["reason"].as_str().unwrap_or("").to_string();
        if stops(fault) {
            // A typed error, named in the report and on stderr.
            assert_eq!(status, "failed", "{ctx}");
            assert!(reason.starts_with("the model failed: "), "{ctx}");
            assert!(
                stdout.contains(&reason) || stderr.contains(&reason),
                "{ctx}"
            );
        } else {
            // The server was asked again after the fault (a retry, a
            // tool round or the next prompt) and the loop went on.
            assert!(self.served.requests.len() >= 2, "{ctx}");
            assert_eq!(status, recovered, "{ctx}");
        }
        format!(
            "{status} (exit {code}): {} · {} requests, {} whole answers · {:.1} s",
            reason.lines().next().unwrap_or(""),
            self.served.requests.len(),
            self.served.whole_answers,
            self.took.as_secs_f64()
        )
    }
}

/// Faults no retry or repair can cure: the run stops with the error.
fn stops(fault: &Step) -> bool {
    matches!(fault, Step::NotJson | Step::ContextOverflow)
}

/// The config file every run reads, in `dir`.
fn config(dir: &Path) -> PathBuf {
    let path = dir.join("packsmith.toml");
    std::fs::write(&path, CONFIG).unwrap();
    path
}

fn run_packsmith(args: &[String], dir: &Path, path_env: Option<String>) -> (Output, Duration) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_packsmith"));
    cmd.args(args)
        .current_dir(dir)
        .env("PACKSMITH_CACHE_DIR", dir.join("cache"))
        .env("PACKSMITH_CONFIG", config(dir))
        .env_remove("PACKSMITH_MODEL")
        .env("NIX_PATH", "");
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    let start = Instant::now();
    let output = cmd.output().expect("run packsmith");
    (output, start.elapsed())
}

// ---- nix ---------------------------------------------------------------

const NIX_RECIPE: &str = "```nix\n{ shDerivation }:\nshDerivation {\n  name = \"hello\";\n  script = ''\n    /bin/mkdir -p $out/bin\n    echo '#!/bin/sh' > $out/bin/hello\n    echo 'echo hello 1.0' >> $out/bin/hello\n    /bin/chmod +x $out/bin/hello\n  '';\n}\n```";

/// `packsmith nix` on a Makefile project against the test nixpkgs (whose
/// missing stdenv fails the draft, so the model is asked for a recipe);
/// `fault` answers the draft request, the next request gets a recipe
/// that builds.
fn nix_under(fault: &Step) -> Outcome {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("hello");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(
        p.join("Makefile"),
        "hello: hello.c\n\t$(CC) -o hello hello.c\ninstall:\n\tinstall -D hello $(PREFIX)/bin/hello\n",
    )
    .unwrap();
    std::fs::write(p.join("hello.c"), "int main(){return 0;}\n").unwrap();
    let fake_nixpkgs =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../packsmith-nix/tests/fake-nixpkgs");
    let steps = vec![
        Step::Answer("hello: a tiny greeting program in C.".into()),
        fault.clone(),
        Step::Answer(NIX_RECIPE.into()),
    ];
    let (url, served) = fault_server::start(steps, "NONE".into());
    let out = tmp.path().join("runs");
    let mut args: Vec<String> = [
        "nix",
        p.to_str().unwrap(),
        "--model",
        &format!("openai-compat:fake@{url}"),
        "--nixpkgs",
        fake_nixpkgs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--offline",
        "--max-iterations",
        "3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for sp in common::nix_host_paths() {
        args.push("--sandbox-path".into());
        args.push(sp);
    }
    let (output, took) = run_packsmith(&args, tmp.path(), None);
    let served = served.lock().unwrap().clone();
    Outcome {
        output,
        run: out.join("hello"),
        served,
        took,
        _tmp: tmp,
    }
}

// ---- spack -------------------------------------------------------------

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/heatsim")
        .display()
        .to_string()
}

/// A stand-in `spack` whose every install fails the same way, with a
/// compile error no rule repairs, so that the model is asked.
const FAILING_SPACK: &str = r#"#!/bin/sh
case "$*" in
  *--version*) echo 1.0.0; exit 0;;
  *PACKSMITH-PATHS*) echo "PACKSMITH-PATHS {\"install_root\": \"$STANDIN/inst\", \"build_stage\": [\"$STANDIN/stage\"], \"test_stage\": null, \"source_cache\": null, \"misc_cache\": null}"; exit 0;;
  *install*) echo "==> Installing heatsim"; echo "src/solver.cpp:12:5: error: 'heat_step' was not declared in this scope" >&2; echo "==> Error: ProcessError: Command exited with status 2" >&2; exit 1;;
esac
exit 0
"#;

const SPACK_RECIPE: &str = "```python\nfrom spack.package import *\n\n\nclass Heatsim(CMakePackage):\n    \"\"\"A heat solver.\"\"\"\n\n    homepage = \"https://example.org/heatsim\"\n    url = \"https://example.org/heatsim-1.0.tar.gz\"\n\n    version(\"1.0\", sha256=\"0000000000000000000000000000000000000000000000000000000000000000\")\n\n    depends_on(\"cmake@3.16:\", type=\"build\")\n```";

/// Which Spack a run uses.
enum Spack {
    /// [`FAILING_SPACK`], first on PATH.
    FailingStandIn,
    /// A real Spack: the env file `packsmith setup spack` wrote.
    Real(PathBuf),
}

/// `packsmith spack` on the bundled example with `extra` arguments;
/// `fault` answers the first model request, later ones a recipe.
fn spack_under(fault: &Step, spack: &Spack, extra: &[&str]) -> Outcome {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let (url, served) = fault_server::start(vec![fault.clone()], SPACK_RECIPE.into());
    let out = tmp.path().join("runs");
    let mut args: Vec<String> = [
        "spack",
        &example(),
        "--no-audit",
        "--model",
        &format!("openai-compat:fake@{url}"),
        "--out",
        out.to_str().unwrap(),
        "--max-attempts",
        "3",
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect();
    let path_env = match spack {
        Spack::FailingStandIn => {
            let bin = tmp.path().join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            let script = bin.join("spack");
            std::fs::write(
                &script,
                FAILING_SPACK.replace("$STANDIN", &tmp.path().display().to_string()),
            )
            .unwrap();
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
            args.push("--no-sandbox".into());
            Some(format!("{}:/usr/bin:/bin", bin.display()))
        }
        Spack::Real(env) => {
            args.push("--spack".into());
            args.push(env.display().to_string());
            None
        }
    };
    let (output, took) = run_packsmith(&args, tmp.path(), path_env);
    let served = served.lock().unwrap().clone();
    Outcome {
        output,
        run: out.join("heatsim"),
        served,
        took,
        _tmp: tmp,
    }
}

/// Runs each fault against both backends, prints the table, then fails
/// naming every cell that broke a promise.
fn matrix(faults: &[Step]) {
    let nix = common::nix_here();
    let cell = |f: &dyn Fn() -> String| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|e| {
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
    };
    let mut rows = Vec::new();
    let mut broken = Vec::new();
    for fault in faults {
        let mut cells = Vec::new();
        for eco in ["spack", "nix"] {
            let got = match eco {
                "nix" if !nix => Ok("skipped (no nix-instantiate)".to_string()),
                "nix" => cell(&|| nix_under(fault).check(fault, "nix")),
                _ => {
                    cell(&|| spack_under(fault, &Spack::FailingStandIn, &[]).check(fault, "spack"))
                }
            };
            cells.push(match got {
                Ok(c) => c,
                Err(e) => {
                    broken.push(e);
                    "BROKEN".to_string()
                }
            });
        }
        rows.push(format!(
            "| {} | {} | {} |",
            fault.name(),
            cells[0],
            cells[1]
        ));
    }
    eprintln!("| fault | spack | nix |\n| --- | --- | --- |");
    for r in rows {
        eprintln!("{r}");
    }
    assert!(broken.is_empty(), "{}", broken.join("\n\n"));
}

/// Every fault against both backends (about 15 s); with --nocapture it
/// prints the table BENCHMARKS.md records.
#[test]
fn every_model_fault_recovers_or_stops_cleanly() {
    matrix(&all_faults());
}

/// `--brief llm` asks the model before the loop: a 503 there is retried,
/// and the distillation's tokens and dollars are in report.json.
#[test]
fn a_fault_in_the_facts_distillation_is_retried_and_accounted() {
    let fault = Step::Status(503);
    let run = spack_under(&fault, &Spack::FailingStandIn, &["--brief", "llm"]);
    run.check(&fault, "spack");
    let report = read_json(&run.run.join("report.json"));
    assert_eq!(
        report["extras"]["facts_distillation"]["usage"]["prompt_tokens"], 100,
        "{report:#}"
    );
}

/// The same on real Spack (PACKSMITH_TEST_SPACK): the draft installs, the
/// run succeeds, and its report counts the distillation.
#[test]
fn real_spack_recovers_from_a_503_in_the_distillation() {
    let Some(env) = common::test_spack_env("real_spack_recovers_from_a_503_in_the_distillation")
    else {
        return;
    };
    let fault = Step::Status(503);
    let run = spack_under(
        &fault,
        &Spack::Real(env),
        &["--brief", "llm", "--no-variant-check"],
    );
    // Real concretization and install take their own minute or two.
    let limit = Duration::from_secs(300);
    eprintln!(
        "| 503 (real Spack, --brief llm) | {} |",
        run.check_with(&fault, "spack", "succeeded", limit)
    );
}
