#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `packsmith nix` as a user runs it: without Nix, without nixpkgs, and
//! the whole loop on real Nix against the test "nixpkgs" with a model
//! served by a scripted OpenAI-compatible server on 127.0.0.1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::thread;

use crate::common;

fn packsmith(args: &[&str], cache: &Path, envs: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_packsmith"));
    cmd.args(args)
        .env("PACKSMITH_CACHE_DIR", cache)
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&cache).join("packsmith.toml"),
        )
        .env_remove("PACKSMITH_MODEL")
        .env("NIX_PATH", "");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().expect("run packsmith")
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A small Makefile project.
fn project(dir: &Path) -> PathBuf {
    let p = dir.join("hello");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(
        p.join("Makefile"),
        "hello: hello.c\n\t$(CC) -o hello hello.c\ninstall:\n\tinstall -D hello $(PREFIX)/bin/hello\n",
    )
    .unwrap();
    std::fs::write(p.join("hello.c"), "int main(){return 0;}\n").unwrap();
    std::fs::write(p.join("README.md"), "# hello\nA tiny greeting program.\n").unwrap();
    p
}

/// Serves chat completions from `replies`, in order; records the requests.
fn chat_server(replies: Vec<String>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    thread::spawn(move || {
        let mut replies = replies.into_iter();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            log.lock().unwrap().push(text(&body));
            let content = replies.next().unwrap_or_else(|| "NONE".into());
            let json = serde_json::json!({
                "id": "x", "object": "chat.completion", "model": "fake",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            })
            .to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{json}",
                json.len()
            );
        }
    });
    (url, seen)
}

#[test]
fn without_nix_the_error_points_at_doctor() {
    let tmp = tempfile::tempdir().unwrap();
    let p = project(tmp.path());
    let o = packsmith(
        &[
            "nix",
            p.to_str().unwrap(),
            "--model",
            "openai-compat:x@http://127.0.0.1:9/v1",
        ],
        tmp.path(),
        &[("PATH", tmp.path().to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("packsmith doctor"),
        "{}",
        text(&o.stderr)
    );
}

/// No nixpkgs (NIX_PATH is empty): the recipe is parsed, the run ends
/// `not_built`, never `succeeded`, and exits 3 with a hint (issue 45).
#[test]
fn without_nixpkgs_the_recipe_is_parsed_and_says_it_was_not_built() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = project(tmp.path());
    let out = tmp.path().join("runs");
    let o = packsmith(
        &[
            "nix",
            p.to_str().unwrap(),
            "--model",
            "openai-compat:x@http://127.0.0.1:9/v1",
            "--out",
            out.to_str().unwrap(),
        ],
        tmp.path(),
        &[],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    let stdout = text(&o.stdout);
    assert!(stdout.contains("NOT BUILT"), "{stdout}");
    assert!(stderr.contains("no nixpkgs"), "{stderr}");
    assert!(
        stderr.contains("error: ") && stderr.contains("was parsed but not built"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: ") && stderr.contains("--allow-unbuilt"),
        "{stderr}"
    );
    let report = read_json(&out.join("hello/report.json"));
    assert_eq!(report["status"], "not_built", "{report}");
    let md = std::fs::read_to_string(out.join("hello/report.md")).unwrap();
    assert!(md.contains("**not_built**"), "{md}");
    assert!(!md.contains("succeeded"), "{md}");
    let result: serde_json::Value = read_json(&out.join("hello/nix-result.json"));
    assert_eq!(result["parse"]["state"], "passed");
    assert_eq!(result["build"]["state"], "not_checked");
    let recipe = std::fs::read_to_string(out.join("hello/package.nix")).unwrap();
    assert!(
        recipe.contains("stdenv.mkDerivation (finalAttrs: {"),
        "{recipe}"
    );
}

/// `--allow-unbuilt` accepts a recipe that was only parsed: exit 0, and
/// the report still says it was not built and which checks ran.
#[test]
fn allow_unbuilt_exits_0_and_the_report_still_says_not_built() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = project(tmp.path());
    let out = tmp.path().join("runs");
    let o = packsmith(
        &[
            "nix",
            p.to_str().unwrap(),
            "--model",
            "none",
            "--out",
            out.to_str().unwrap(),
            "--allow-unbuilt",
            "--maintainer",
            "octocat",
        ],
        tmp.path(),
        &[],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("error: "), "{stderr}");
    assert!(text(&o.stdout).contains("NOT BUILT"), "{}", text(&o.stdout));
    let report = read_json(&out.join("hello/report.json"));
    assert_eq!(report["status"], "not_built", "{report}");
    let checks = &report["extras"]["checks"];
    let result_of = |check: &str| {
        checks
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["check"] == check)
            .unwrap_or_else(|| panic!("no {check:?} in {checks}"))["result"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(result_of("parsed with nix-instantiate --parse"), "yes");
    let no_nixpkgs = "no — no nixpkgs found (NIX_PATH / --nixpkgs)";
    assert_eq!(result_of("evaluated with nix-instantiate"), no_nixpkgs);
    assert_eq!(result_of("built with nix-build"), no_nixpkgs);
    let md = std::fs::read_to_string(out.join("hello/report.md")).unwrap();
    assert!(md.contains("**not_built**"), "{md}");
    assert!(!md.contains("succeeded"), "{md}");
    assert!(
        md.contains("| built with nix-build | no — no nixpkgs found (NIX_PATH / --nixpkgs) |"),
        "{md}"
    );
    // The review gate and the levels: nothing built, so nothing is
    // smoke-tested; the maintainer given is in the recipe.
    let recipe = std::fs::read_to_string(out.join("hello/package.nix")).unwrap();
    assert!(
        recipe.contains("maintainers = with lib.maintainers; [ octocat ];"),
        "{recipe}"
    );
    assert_eq!(report["extras"]["levels"]["installed"], false, "{report}");
    assert_eq!(
        report["extras"]["levels"]["smoke_tested"], false,
        "{report}"
    );
    let items = report["extras"]["review"]["items"].as_array().unwrap();
    let passed =
        |check: &str| items.iter().find(|i| i["check"] == check).unwrap()["passed"].clone();
    assert_eq!(passed("maintainers"), true, "{items:?}");
    assert_eq!(passed("source"), false, "a local path: {items:?}");
    assert!(md.contains("## review"), "{md}");
}

/// An empty directory (a `.git` aside) is bad input: exit 2, the error
/// names the directory and the hint says what to give instead.
#[test]
fn an_empty_directory_is_refused_and_named() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("nothing-here");
    std::fs::create_dir_all(empty.join(".git")).unwrap();
    let out = tmp.path().join("runs");
    let o = packsmith(
        &[
            "nix",
            empty.to_str().unwrap(),
            "--model",
            "none",
            "--out",
            out.to_str().unwrap(),
            "--allow-unbuilt",
        ],
        tmp.path(),
        &[],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let named = empty.canonicalize().unwrap().display().to_string();
    assert!(
        stderr.contains(&format!("error: {named} is empty")),
        "{stderr}"
    );
    assert!(stderr.contains("hint: "), "{stderr}");
    assert!(!out.exists(), "no run directory for nothing");
}

/// No --model and no PACKSMITH_MODEL: the draft is still made and checked,
/// no summary is asked for, and the run says so.
#[test]
fn without_a_model_the_draft_is_still_checked() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = project(tmp.path());
    let out = tmp.path().join("runs");
    let o = packsmith(
        &[
            "nix",
            p.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--allow-unbuilt",
        ],
        tmp.path(),
        &[],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("note: no model"), "{stderr}");
    let result: serde_json::Value = read_json(&out.join("hello/nix-result.json"));
    assert_eq!(result["parse"]["state"], "passed");
    assert!(result.get("project_summary").is_none(), "{result}");
    let report: serde_json::Value = read_json(&out.join("hello/report.json"));
    assert_eq!(report["model_calls"], 0, "{report}");
}

/// `--model none` means the draft alone, as for `packsmith spack`, and
/// overrides a model named by PACKSMITH_MODEL.
#[test]
fn model_none_runs_the_draft_alone() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = project(tmp.path());
    let out = tmp.path().join("runs");
    let o = packsmith(
        &[
            "nix",
            p.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--model",
            "none",
            "--allow-unbuilt",
        ],
        tmp.path(),
        &[(
            "PACKSMITH_MODEL",
            "openai-compat:never-called@http://127.0.0.1:9/v1",
        )],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("note: no model"), "{stderr}");
    let report: serde_json::Value = read_json(&out.join("hello/report.json"));
    assert_eq!(report["model_calls"], 0, "{report}");
}

/// A release archive on this machine, as a path and as a file:// URL: the
/// recipe fetches it by URL with a real hash, the version comes from its
/// name, and the unpacked tree is analysed (the Makefile's builder).
#[test]
fn a_local_release_archive_is_packaged() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let tree = project(tmp.path());
    std::fs::rename(&tree, tmp.path().join("hello-1.2")).unwrap();
    let archive = tmp.path().join("hello-1.2.tar.gz");
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(tmp.path())
        .arg("hello-1.2")
        .status()
        .unwrap();
    assert!(tar.success());
    let url = format!("file://{}", archive.display());
    for (i, given) in [archive.display().to_string(), url].iter().enumerate() {
        let out = tmp.path().join(format!("runs-{i}"));
        let o = packsmith(
            &[
                "nix",
                given,
                "--out",
                out.to_str().unwrap(),
                "--model",
                "none",
                "--allow-unbuilt",
            ],
            tmp.path(),
            &[],
        );
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{given}: {stderr}");
        assert!(!stderr.contains("not analysed"), "{stderr}");
        let recipe = std::fs::read_to_string(out.join("hello/package.nix")).unwrap();
        assert!(recipe.contains("fetchurl"), "{recipe}");
        assert!(
            recipe.contains("hello-${finalAttrs.version}.tar.gz"),
            "{recipe}"
        );
        assert!(recipe.contains("version = \"1.2\""), "{recipe}");
        assert!(!recipe.contains("lib.fakeHash"), "{recipe}");
        let result: serde_json::Value = read_json(&out.join("hello/nix-result.json"));
        assert_eq!(result["parse"]["state"], "passed", "{result}");
    }
    // A file that is no archive is named as such.
    let o = packsmith(
        &["nix", tree_file(tmp.path()).to_str().unwrap()],
        tmp.path(),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("neither a source directory nor a release archive"),
        "{}",
        text(&o.stderr)
    );
}

fn tree_file(dir: &Path) -> PathBuf {
    let f = dir.join("notes.txt");
    std::fs::write(&f, "not a project").unwrap();
    f
}

/// A tree with no build file the analysis knows: the draft falls back to
/// the generic builder and the project question lists the templates; the
/// model's pick is checked against the tree, so `make` without a Makefile
/// is refused and the generic draft is the one checked. (A pick the tree
/// fits is taken: `the_model_picks_the_builder_when_the_facts_left_it_open`
/// in packsmith-nix.)
#[test]
fn the_model_picks_the_builder_for_a_tree_the_analysis_cannot_read() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = |dir: &str, files: &[(&str, &str)], answer: &str| {
        let p = tmp.path().join(dir);
        std::fs::create_dir_all(&p).unwrap();
        for (name, body) in files {
            std::fs::write(p.join(name), body).unwrap();
        }
        let out = tmp.path().join("runs");
        let (url, seen) = chat_server(vec![answer.to_string()]);
        let o = packsmith(
            &[
                "nix",
                p.to_str().unwrap(),
                "--model",
                &format!("openai-compat:fake@{url}"),
                "--out",
                out.to_str().unwrap(),
                "--allow-unbuilt",
            ],
            tmp.path(),
            &[],
        );
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains("could not be analysed"), "{stderr}");
        let requests = seen.lock().unwrap().clone();
        assert_eq!(requests.len(), 1, "only the project question");
        assert!(requests[0].contains("BUILDER: <name>"), "{}", requests[0]);
        let result: serde_json::Value = read_json(&out.join(format!("{dir}/nix-result.json")));
        let recipe = std::fs::read_to_string(out.join(format!("{dir}/package.nix"))).unwrap();
        (stderr, requests[0].clone(), result, recipe)
    };

    let (stderr, request, result, recipe) = run(
        "hello",
        &[
            ("build.sh", "cc -o hello hello.c\n"),
            ("hello.c", "int main(){return 0;}\n"),
        ],
        "A C program compiled by build.sh.\nBUILDER: make",
    );
    assert!(request.contains("build.sh"), "{request}");
    assert!(
        stderr.contains("the model chose `make`, but the tree has no Makefile"),
        "{stderr}"
    );
    assert_eq!(result["builder_chosen_by"], "fallback", "{result}");
    assert!(!recipe.contains("makeFlags"), "{recipe}");
}

#[test]
fn the_loop_repairs_builds_and_runs_the_program_on_real_nix() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = project(tmp.path());
    let out = tmp.path().join("runs");
    let fake_nixpkgs =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../packsmith-nix/tests/fake-nixpkgs");
    // The test nixpkgs has no stdenv, so the Make template fails to
    // evaluate; the "model" answers with a recipe it can build.
    let recipe = "```nix\n{ shDerivation }:\nshDerivation {\n  name = \"hello\";\n  script = ''\n    /bin/mkdir -p $out/bin\n    echo '#!/bin/sh' > $out/bin/hello\n    echo 'echo hello 1.0' >> $out/bin/hello\n    /bin/chmod +x $out/bin/hello\n  '';\n}\n```";
    let summary = "hello: a tiny greeting program in C, built and installed by its Makefile.";
    let (url, seen) = chat_server(vec![
        summary.to_string(),
        recipe.to_string(),
        "NONE".to_string(),
    ]);
    let model = format!("openai-compat:fake@{url}");
    let mut args = vec![
        "nix".to_string(),
        p.display().to_string(),
        "--model".into(),
        model,
        "--nixpkgs".into(),
        fake_nixpkgs.display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "--offline".into(),
    ];
    for sp in common::nix_host_paths() {
        args.push("--sandbox-path".into());
        args.push(sp);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = packsmith(&args, tmp.path(), &[]);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{stderr}");
    // One line per model call (the project question first), per stage.
    let lines: Vec<&str> = stderr.lines().collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{stderr}"))
    };
    assert!(at("  model project") < at("attempt 1: deterministic draft"));
    let failed = at("  evaluate       FAILED");
    assert!(lines[failed].contains("eval_error"), "{stderr}");
    assert!(at("attempt 1: deterministic draft") < failed);
    assert!(failed < at("attempt 2: model completes the draft"));
    assert!(at("attempt 2: model completes the draft") < at("  build          ok"));
    assert!(
        stdout.contains("build: passed · runtime: passed"),
        "{stdout}"
    );
    let result: serde_json::Value = read_json(&out.join("hello/nix-result.json"));
    assert_eq!(result["build"]["state"], "passed");
    assert_eq!(result["runtime"]["state"], "passed");
    assert!(result["runtime_check"]["output"]
        .as_str()
        .unwrap()
        .contains("hello 1.0"));
    assert_eq!(result["project_summary"], summary);
    assert_eq!(result["builder"], "make");
    assert_eq!(result["builder_chosen_by"], "facts");
    let requests = seen.lock().unwrap();
    assert_eq!(
        requests.len(),
        3,
        "the project question, the draft, then the evaluator"
    );
    assert!(
        requests[0].contains("A tiny greeting program."),
        "the project question shows the README: {}",
        requests[0]
    );
    assert!(
        !requests[0].contains("BUILDER"),
        "the facts chose the builder"
    );
    assert!(
        requests[1].contains("stdenv"),
        "the draft prompt shows the failure"
    );
    assert!(
        requests[1].contains(summary),
        "the draft prompt carries the summary"
    );
}

/// `packsmith nix` on the Makefile project against the test nixpkgs, with
/// a model whose every recipe fails to parse; the stdout and stderr, the
/// requests the model saw and the run directory.
fn run_with_a_model_that_writes_broken_nix(
    tmp: &Path,
    extra: &[&str],
) -> (Output, Vec<String>, PathBuf) {
    let p = project(tmp);
    let out = tmp.join("runs");
    let fake_nixpkgs =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../packsmith-nix/tests/fake-nixpkgs");
    let broken = "```nix\n{ stdenv }:\nstdenv.mkDerivation {\n  name = \"hello\";\n```";
    let mut replies = vec!["hello: a greeting program.".to_string()];
    replies.extend(std::iter::repeat_n(broken.to_string(), 12));
    let (url, seen) = chat_server(replies);
    let model = format!("openai-compat:fake@{url}");
    let mut args = vec![
        "nix",
        p.to_str().unwrap(),
        "--model",
        &model,
        "--nixpkgs",
        fake_nixpkgs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--offline",
        "--max-iterations",
        "2",
    ];
    args.extend_from_slice(extra);
    let o = packsmith(&args, tmp, &[]);
    let requests = seen.lock().unwrap().clone();
    (o, requests, out.join("hello"))
}

#[test]
fn a_model_that_never_writes_valid_nix_is_named_as_the_cause() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The draft fails to evaluate (the test nixpkgs has no stdenv), which
    // alone reads like a missing dependency; every recipe the model writes
    // then fails to parse.
    let (o, requests, run) = run_with_a_model_that_writes_broken_nix(tmp.path(), &[]);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{stdout}\n{stderr}");
    let result = read_json(&run.join("nix-result.json"));
    let analysis = &result["failure_analysis"];
    assert_eq!(analysis["category"], "no_valid_nix", "{result}");
    assert_eq!(analysis["by_model"], false, "{result}");
    assert!(
        stdout.contains("why it does not build [no_valid_nix]"),
        "{stdout}"
    );
    // The model is not asked to explain its own syntax errors.
    assert!(
        requests
            .iter()
            .all(|r| !r.contains("could not be built with Nix")),
        "{requests:?}"
    );
    // The default two repair rounds for the recipe that did not parse.
    let report = read_json(&run.join("report.json"));
    assert_eq!(report["attempts"][1]["static_repairs"], 2, "{report}");
    assert_eq!(requests.len(), 4, "summary, draft, two repairs");
}

#[test]
fn static_repairs_zero_gives_a_recipe_that_does_not_parse_up_at_once() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (o, requests, run) =
        run_with_a_model_that_writes_broken_nix(tmp.path(), &["--static-repairs", "0"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let report = read_json(&run.join("report.json"));
    assert_eq!(report["attempts"][1]["static_repairs"], 0, "{report}");
    assert_eq!(report["attempts"][1]["stage_reached"], "static_check");
    assert_eq!(requests.len(), 2, "the summary and the draft only");
}

/// Stand-ins first on PATH: `nix-instantiate` passes `--parse` to the real
/// one and prints a derivation path otherwise; `nix-build` records its pid
/// and sleeps. `$STANDIN` is replaced by the test's temp dir, because the
/// runner passes the stand-ins no environment of the test's own.
const STAND_IN_NIX_INSTANTIATE: &str = "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = \"--parse\" ] && exec /usr/bin/nix-instantiate \"$@\"; done\necho /nix/store/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-hello-1.0.drv\n";
const STAND_IN_NIX_BUILD: &str = "#!/bin/sh\nsleep 300 &\necho $$ > $STANDIN/build.tmp\nmv $STANDIN/build.tmp $STANDIN/build.pid\nexec sleep 300\n";

/// Ctrl-C while `nix-build` runs: packsmith kills the build's process
/// group, exits 130 within seconds and leaves a report that says the run
/// was interrupted (issue 19: the nix command once registered a cancel
/// flag the runner never saw, so the build outlived it).
#[test]
fn ctrl_c_during_the_build_kills_it_and_exits_130() {
    use std::os::unix::fs::PermissionsExt;
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let standin = tmp.path().display().to_string();
    for (name, body) in [
        ("nix-instantiate", STAND_IN_NIX_INSTANTIATE),
        ("nix-build", STAND_IN_NIX_BUILD),
    ] {
        let path = bin.join(name);
        std::fs::write(&path, body.replace("$STANDIN", &standin)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let p = project(tmp.path());
    let out = tmp.path().join("runs");
    let fake_nixpkgs =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../packsmith-nix/tests/fake-nixpkgs");
    let mut child = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .arg("nix")
        .arg(&p)
        .arg("--nixpkgs")
        .arg(&fake_nixpkgs)
        .arg("--out")
        .arg(&out)
        .env("PACKSMITH_CACHE_DIR", tmp.path().join("cache"))
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&tmp.path().join("cache")).join("packsmith.toml"),
        )
        .env_remove("PACKSMITH_MODEL")
        .env("NIX_PATH", "")
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid_file = tmp.path().join("build.pid");
    let run = common::interrupt_once_started(&mut child, &pid_file);
    let report = read_json(&out.join("hello/report.json"));
    common::assert_interrupted_cleanly(&run, &report, "build");
    assert!(out.join("hello/nix-result.json").exists());
}

/// With no model configured, a known chat model in the cache is used (and
/// said so); `--model none` keeps the draft alone. The file here is no real
/// GGUF, so using it fails at load: that proves it was picked.
#[test]
fn a_local_model_at_hand_is_used_when_none_is_configured() {
    if !cfg!(feature = "local") || !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = project(tmp.path());
    let models = tmp.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    // The tests' SmolLM2 alone is never taken: the draft runs alone.
    std::fs::write(
        models.join("smollm2-135m-instruct-q4_1.gguf"),
        "not a model",
    )
    .unwrap();
    let o = packsmith(
        &[
            "nix",
            p.to_str().unwrap(),
            "--out",
            tmp.path().join("runs-smol").to_str().unwrap(),
            "--allow-unbuilt",
        ],
        tmp.path(),
        &[],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("using local:"), "{stderr}");
    std::fs::write(
        models.join("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
        "not a model",
    )
    .unwrap();
    let out = tmp.path().join("runs");
    let o = packsmith(
        &["nix", p.to_str().unwrap(), "--out", out.to_str().unwrap()],
        tmp.path(),
        &[],
    );
    let stderr = text(&o.stderr);
    assert!(
        stderr.contains("note: no model configured; using local:qwen2.5-coder-1.5b"),
        "{stderr}"
    );
    assert_ne!(o.status.code(), Some(0), "{stderr}");

    let o = packsmith(
        &[
            "nix",
            p.to_str().unwrap(),
            "--out",
            tmp.path().join("runs-none").to_str().unwrap(),
            "--model",
            "none",
            "--allow-unbuilt",
        ],
        tmp.path(),
        &[],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("using local:"), "{stderr}");
}

/// `--contribute` makes a bundle only of a recipe that built: a run that
/// was only parsed (`--allow-unbuilt`) gets an error naming the run, a
/// non-zero exit and no files.
#[test]
fn contribute_refuses_a_recipe_that_was_not_built() {
    if !common::nix_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = project(tmp.path());
    let out = tmp.path().join("runs");
    let bundle = tmp.path().join("bundle");
    let o = packsmith(
        &[
            "nix",
            p.to_str().unwrap(),
            "--model",
            "none",
            "--out",
            out.to_str().unwrap(),
            "--allow-unbuilt",
            "--contribute",
            bundle.to_str().unwrap(),
        ],
        tmp.path(),
        &[],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("did not succeed (not_built"), "{stderr}");
    assert!(stderr.contains("hint: "), "{stderr}");
    assert!(!bundle.exists() || std::fs::read_dir(&bundle).unwrap().count() == 0);
}
