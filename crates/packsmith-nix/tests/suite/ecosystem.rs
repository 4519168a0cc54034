//! The Nix backend driven by the real agent loop: real Nix 2.8 in its
//! sandbox against the test "nixpkgs" (tests/fake-nixpkgs), with a
//! scripted model. Covers trust-on-first-use without the model, the
//! runtime check under bubblewrap, log-driven repair with progress
//! judgement and rollback, and the verdicts on recorded logs.

use std::path::Path;
use std::time::Duration;

use packsmith_agent::{
    Agent, AgentEvent, AgentOptions, AttemptSnapshot, Ecosystem, Failure, NoEvents, ProgressCheck,
    ProgressInput, ProgressVerdict, Recipe, RunStatus, Task,
};
use packsmith_llm::ScriptedModel;
use packsmith_nix::ecosystem::runtime::RuntimeStatus;
use packsmith_nix::ecosystem::search::NixpkgsIndex;
use packsmith_nix::ecosystem::{HashStatus, NixSettings, PreparedDraft};
use packsmith_nix::{Builder, NixConfig, NixEcosystem, NixpkgsPin, SyntaxCheck};

use super::common::{crate_dir, host_program_paths, nix_available};

fn pin() -> NixpkgsPin {
    NixpkgsPin::Path {
        path: crate_dir().join("tests/fake-nixpkgs"),
    }
}

fn settings(extra: &[&Path]) -> NixSettings {
    let mut paths = host_program_paths(&["/bin/sh", "/bin/mkdir", "/bin/chmod"]);
    paths.extend(extra.iter().map(|p| p.display().to_string()));
    let config = NixConfig {
        sandbox: true,
        extra_sandbox_paths: paths,
        offline: true,
        eval_timeout: Duration::from_secs(60),
        build_timeout: Duration::from_secs(60),
        ..NixConfig::default()
    };
    let mut s = NixSettings::new(config, Some(pin()));
    // The scripted models here answer the loop's requests only.
    s.project_question = false;
    s.runtime.extra_binds = host_program_paths(&["/bin/sh"]);
    s
}

fn eco(text: &str, extra: &[&Path]) -> NixEcosystem {
    let draft = PreparedDraft {
        builder: Builder::Generic,
        chosen_by: "test".into(),
        text: text.to_string(),
        hash: HashStatus::Placeholder {
            reason: "test".into(),
        },
        input: None,
    };
    NixEcosystem::new(settings(extra), Ok(draft), "a test package".into())
}

/// The draft of `demo` 1.0 from a source that was not analysed.
fn unanalysed_draft(source: &packsmith_nix::SourceSpec, prefetch: bool) -> PreparedDraft {
    packsmith_nix::ecosystem::prepare_draft(
        &packsmith_nix::ecosystem::DraftInput {
            pname: "demo",
            version: "1.0",
            source,
            rev: None,
            facts: None,
            prefetch,
            attr_path: None,
            source_root: None,
            maintainers: &[],
        },
        &NixConfig::default(),
    )
    .unwrap()
}

fn task(repo: &Path) -> Task {
    Task {
        name: "demo".into(),
        repo_root: repo.to_path_buf(),
        version: Some("1.0".into()),
        references: Default::default(),
        context: serde_json::Value::Null,
    }
}

fn options(out: &Path) -> AgentOptions {
    let mut o = AgentOptions::nix_style(out);
    o.max_attempts = 6;
    o
}

/// A shDerivation whose script prints stdenv-like phase lines, then runs `tail`.
fn phased(phases: &[&str], tail: &str) -> String {
    let mut script = String::new();
    for p in phases {
        script.push_str(&format!("    echo 'Running phase: {p}'\n"));
    }
    format!(
        "{{ shDerivation }}:\nshDerivation {{\n  name = \"demo\";\n  script = ''\n{script}    {tail}\n  '';\n}}\n"
    )
}

const WORKS: &str = r#"{ shDerivation }:
shDerivation {
  name = "demo";
  script = ''
    echo 'Running phase: installPhase'
    /bin/mkdir -p $out/bin
    echo '#!/bin/sh' > $out/bin/demo
    echo 'echo demo 1.0' >> $out/bin/demo
    /bin/chmod +x $out/bin/demo
  '';
}
"#;

#[test]
fn the_source_hash_is_fixed_without_the_model_and_the_program_runs() {
    if !nix_available("the_source_hash_is_fixed_without_the_model_and_the_program_runs") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("src.txt"), "hello\n").unwrap();
    let recipe = WORKS.replace(
        "  name = \"demo\";\n",
        &format!(
            "  name = \"demo\";\n  src = fetchurl {{\n    url = \"file://{}/src.txt\";\n    hash = lib.fakeHash;\n  }};\n",
            src.display()
        ),
    )
    .replace("{ shDerivation }:", "{ lib, fetchurl, shDerivation }:");
    let eco = eco(&recipe, &[&src]);
    // No model call is scripted: the hash must be fixed without one.
    let model = ScriptedModel::new("scripted").text("NONE");
    let mut events = Vec::new();
    let mut sink = |e: &AgentEvent| events.push(e.clone());
    let report = Agent::run(
        &task(&src),
        &eco,
        &model,
        &options(&tmp.path().join("out")),
        &mut sink,
    )
    .unwrap();
    assert_eq!(report.status, RunStatus::Succeeded, "{report:#?}");
    assert_eq!(report.attempts.len(), 1);
    let final_text = std::fs::read_to_string(tmp.path().join("out/demo/package.nix")).unwrap();
    assert!(
        final_text.contains("hash = \"sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=\";"),
        "{final_text}"
    );
    assert!(events.iter().any(
        |e| matches!(e, AgentEvent::Note { message } if message.contains("trust on first use"))
    ));
    assert_eq!(eco.hash_fixes().len(), 1);
    // Refinement ran the program under bubblewrap and asked the evaluator.
    let check = eco.runtime_check(&final_text).unwrap();
    assert_eq!(check.status, RuntimeStatus::Passed, "{check:#?}");
    assert!(check.output.contains("demo 1.0"), "{check:#?}");
    let asked = model.requests();
    assert_eq!(asked.len(), 1, "only the evaluator was asked");
    assert!(asked[0].messages[0].content.contains("exited 0"));
}

#[test]
fn repairs_are_judged_and_a_regression_is_rolled_back() {
    if !nix_available("repairs_are_judged_and_a_regression_is_rolled_back") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let draft = phased(
        &["unpackPhase", "configurePhase"],
        "echo 'configure: error: missing libfoo' >&2; exit 1",
    );
    let worse = phased(&["unpackPhase"], "echo 'tar: bad archive' >&2; exit 1");
    let further = phased(
        &["unpackPhase", "configurePhase", "buildPhase"],
        "echo 'main.c:1: error: boom' >&2; exit 2",
    );
    let eco = eco(&draft, &[]);
    let model = ScriptedModel::new("scripted")
        // attempt 2 (model draft): fails earlier → REGRESS, rolled back
        .text(format!("```nix\n{worse}```"))
        // attempt 3 (repair of attempt 1): gets further → PROGRESS
        .text(format!("```nix\n{further}```"))
        // attempt 4: an edit tool call replaces the failing script, then a note
        .tool_call(
            "replace_in_recipe",
            serde_json::json!({
                "old": "echo 'main.c:1: error: boom' >&2; exit 2",
                "new": "/bin/mkdir -p $out/bin; echo '#!/bin/sh' > $out/bin/demo; echo 'echo demo 1.0' >> $out/bin/demo; /bin/chmod +x $out/bin/demo"
            })
            .to_string(),
        )
        .text("edited with the tool")
        // refinement: the evaluator has nothing to add
        .text("NONE");
    let report = Agent::run(
        &task(tmp.path()),
        &eco,
        &model,
        &options(&tmp.path().join("out")),
        &mut NoEvents,
    )
    .unwrap();
    assert_eq!(report.status, RunStatus::Succeeded, "{report:#?}");
    let verdicts: Vec<_> = report.attempts.iter().map(|a| a.verdict).collect();
    assert_eq!(
        verdicts,
        [
            Some(ProgressVerdict::Progress),
            Some(ProgressVerdict::Regress),
            Some(ProgressVerdict::Progress),
            None
        ]
    );
    assert!(report.attempts[1].rolled_back);
    assert_eq!(
        report.attempts[2].base,
        Some(1),
        "the repair starts from attempt 1"
    );
    let failure = report.attempts[0].failure.as_ref().unwrap();
    assert_eq!(failure.class, "build_failure");
    assert!(
        failure.excerpt.contains("missing libfoo"),
        "{}",
        failure.excerpt
    );
    // The repair prompt after the rollback shows attempt 1's recipe and log.
    let requests = model.requests();
    let repair = &requests[1].messages[0].content;
    assert!(repair.contains("from attempt 1"), "{repair}");
    assert!(repair.contains("missing libfoo"), "{repair}");
    assert!(requests[2].tools.iter().any(|t| t.name == "read_build_log"));
    assert!(requests[2].tools.iter().any(|t| t.name == "search_nixpkgs"));
    assert!(requests[2]
        .tools
        .iter()
        .any(|t| t.name == "nixpkgs_read_file"));
}

fn snapshot(attempt: u32, stage: &str, class: &str, log: &str) -> AttemptSnapshot {
    let mut f = Failure::new(stage, class, "");
    f.log_path = Some(crate_dir().join("tests/logs").join(log));
    AttemptSnapshot {
        attempt,
        recipe: Recipe::new("package.nix", ""),
        failure: Some(f),
        stages_passed: usize::from(stage == "build"),
    }
}

#[test]
fn verdicts_on_recorded_logs() {
    let eco = eco("{ }: { }", &[]);
    let builder = snapshot(1, "build", "build_failure", "build-builder-failure.log");
    let check = |accepted: &AttemptSnapshot, candidate: AttemptSnapshot| {
        eco.progress_check(&ProgressInput {
            accepted: Some(accepted.clone()),
            candidate,
        })
    };
    // The same log again is stagnation.
    match check(
        &builder,
        snapshot(2, "build", "build_failure", "build-builder-failure.log"),
    ) {
        ProgressCheck::Decided { verdict, .. } => assert_eq!(verdict, ProgressVerdict::Stagnation),
        other => panic!("{other:?}"),
    }
    // Back to an evaluation error is a regression.
    match check(
        &builder,
        snapshot(2, "evaluate", "eval_error", "eval-syntax-error.log"),
    ) {
        ProgressCheck::Decided { verdict, .. } => assert_eq!(verdict, ProgressVerdict::Regress),
        other => panic!("{other:?}"),
    }
    // A failing dependency that stops in configurePhase is a regression,
    // a timeout in checkPhase is progress (stdenv's phase order).
    match check(
        &builder,
        snapshot(
            2,
            "build",
            "dependency_failure",
            "build-dependency-failure.log",
        ),
    ) {
        ProgressCheck::Decided { verdict, .. } => assert_eq!(verdict, ProgressVerdict::Regress),
        other => panic!("{other:?}"),
    }
    match check(
        &builder,
        snapshot(2, "build", "timeout", "build-timeout.log"),
    ) {
        ProgressCheck::Decided { verdict, .. } => assert_eq!(verdict, ProgressVerdict::Progress),
        other => panic!("{other:?}"),
    }
    // Another error in the same phase: the model decides, shown both logs
    // from where they diverge.
    let tmp = tempfile::tempdir().unwrap();
    let recorded =
        std::fs::read_to_string(crate_dir().join("tests/logs/build-builder-failure.log")).unwrap();
    let other = tmp.path().join("other.log");
    std::fs::write(
        &other,
        recorded.replace(
            "zlib.h: No such file or directory",
            "png.h: No such file or directory",
        ),
    )
    .unwrap();
    let mut candidate = snapshot(2, "build", "build_failure", "build-builder-failure.log");
    if let Some(f) = candidate.failure.as_mut() {
        f.log_path = Some(other);
    }
    match check(&builder, candidate) {
        ProgressCheck::AskModel(request) => {
            let text = &request.messages[0].content;
            assert!(text.contains("zlib.h"), "{text}");
            assert!(text.contains("png.h"), "{text}");
            assert!(
                !text.contains("this derivation will be built"),
                "cut at the divergence: {text}"
            );
            assert!(text.contains("BROKEN_LOG"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn package_search_reads_the_pinned_nixpkgs() {
    if !nix_available("package_search_reads_the_pinned_nixpkgs") {
        return;
    }
    let index = NixpkgsIndex::new(pin(), NixConfig::default());
    let hits = index.search("compression", 10).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].attr, "zlib");
    assert_eq!(index.search("hello", 10).unwrap()[0].version, "2.12");
}

#[test]
fn the_draft_prefetches_a_local_archive_hash() {
    if !nix_available("the_draft_prefetches_a_local_archive_hash") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("demo-1.0.tar.gz");
    std::fs::write(&archive, "hello\n").unwrap();
    // A release archive URL (file:// here; parse_source reads a bare
    // file:// as a local path, so the spec is built directly).
    let source = packsmith_nix::SourceSpec::Url {
        url: format!("file://{}", archive.display()),
    };
    let draft = unanalysed_draft(&source, true);
    // sha256 of "hello\n", as Nix prints it for a flat file.
    let sri = "sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=";
    assert!(
        matches!(&draft.hash, HashStatus::Prefetched { sri: s, .. } if s == sri),
        "{:?}",
        draft.hash
    );
    assert!(
        draft.text.contains(&format!("hash = \"{sri}\";")),
        "{}",
        draft.text
    );
    assert!(
        draft.text.contains("${finalAttrs.version}"),
        "{}",
        draft.text
    );
    packsmith_nix::NixParser::default()
        .check(&draft.text)
        .map_err(|e| e.to_string())
        .unwrap();
}

/// The facts left the builder open (no analysis): the project question
/// lists the templates, the model's pick re-renders the draft before the
/// loop starts, and its summary reaches the draft prompt.
#[test]
fn the_model_picks_the_builder_when_the_facts_left_it_open() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("README.md"), "# demo\nA small C tool.\n").unwrap();
    std::fs::write(tmp.path().join("GNUmakefile"), "all:\n").unwrap();
    let source = packsmith_nix::parse_source(tmp.path().to_str().unwrap()).unwrap();
    let draft = unanalysed_draft(&source, false);
    assert_eq!(
        (draft.builder, draft.chosen_by.as_str()),
        (Builder::Generic, "fallback")
    );
    let mut s = settings(&[]);
    s.project_question = true;
    let eco = NixEcosystem::new(s, Ok(draft), "(no analysis of the source)".into());
    let t = task(tmp.path());
    let question = eco.project_request(&t).unwrap();
    let text = &question.messages[0].content;
    assert!(text.contains("A small C tool."), "{text}");
    assert!(text.contains("GNUmakefile"), "{text}");
    assert!(text.contains("- make: "), "{text}");

    let note = eco
        .accept_project_answer("A C program built by a GNUmakefile.\nBUILDER: make")
        .unwrap();
    assert!(note.contains("`make` template"), "{note}");
    let chosen = eco.current_draft().unwrap();
    assert_eq!(
        (chosen.builder, chosen.chosen_by.as_str()),
        (Builder::Make, "model")
    );
    let first = eco.first_draft(&t).unwrap();
    assert_eq!(first.text, chosen.text);
    assert!(first.text.contains("stdenv.mkDerivation"), "{}", first.text);
    assert!(first.text.contains("makeFlags"), "{}", first.text);
    let request = eco.draft_request(&t, &first, &Default::default(), None);
    let prompt = &request.messages[0].content;
    assert!(prompt.contains("`make` template"), "{prompt}");
    assert!(
        prompt.contains("A C program built by a GNUmakefile."),
        "{prompt}"
    );
    assert!(!prompt.contains("BUILDER:"), "{prompt}");
}

/// When the facts chose the builder, the model is asked for a summary
/// only, and a builder line in its answer changes nothing.
#[test]
fn a_builder_chosen_by_the_facts_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let mut eco = eco(WORKS, &[]);
    eco = NixEcosystem::new(
        {
            let mut s = settings(&[]);
            s.project_question = true;
            s
        },
        eco.current_draft().map(|mut d| {
            d.chosen_by = "facts".into();
            d
        }),
        "cmake project".into(),
    );
    let t = task(tmp.path());
    let text = eco.project_request(&t).unwrap().messages[0].content.clone();
    assert!(!text.contains("BUILDER"), "{text}");
    eco.accept_project_answer("A library.\nBUILDER: rust");
    assert_eq!(eco.current_draft().unwrap().builder, Builder::Generic);
    assert_eq!(eco.project_summary().as_deref(), Some("A library."));
}

/// A draft whose description is a FIXME asks the model for one line; the
/// line is kept when it passes the conventions check, cleaned as the
/// template cleans a project's own, and refused when it does not.
#[test]
fn the_model_writes_a_missing_description_that_passes_the_conventions() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("GNUmakefile"), "all:\n").unwrap();
    let source = packsmith_nix::parse_source(tmp.path().to_str().unwrap()).unwrap();
    let open = || {
        let mut s = settings(&[]);
        s.project_question = true;
        NixEcosystem::new(
            s,
            Ok(unanalysed_draft(&source, false)),
            "(no analysis of the source)".into(),
        )
    };
    let t = task(tmp.path());
    let eco = open();
    let question = eco.project_request(&t).unwrap().messages[0].content.clone();
    assert!(question.contains("DESCRIPTION: <phrase>"), "{question}");
    let note = eco
        .accept_project_answer(
            "A C tool.\nDESCRIPTION: A tool that frobnicates widgets.\nBUILDER: make",
        )
        .unwrap();
    assert!(note.contains("written by the model"), "{note}");
    let text = eco.first_draft(&t).unwrap().text;
    assert!(
        text.contains("description = \"Tool that frobnicates widgets\";"),
        "{text}"
    );
    assert!(text.contains("makeFlags"), "the builder pick stays: {text}");

    let eco = open();
    let note = eco
        .accept_project_answer("A C tool.\nDESCRIPTION: Frobnicates widgets for:")
        .unwrap();
    assert!(note.contains("not kept"), "{note}");
    assert!(eco
        .first_draft(&t)
        .unwrap()
        .text
        .contains("FIXME: one line"));
}

/// The model's builder pick is checked against the tree: CMake for a tree
/// with no CMakeLists.txt is refused and the fallback kept.
#[test]
fn a_builder_the_tree_cannot_use_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("cube.lpr"), "program cube;\n").unwrap();
    let source = packsmith_nix::parse_source(tmp.path().to_str().unwrap()).unwrap();
    let mut s = settings(&[]);
    s.project_question = true;
    let eco = NixEcosystem::new(
        s,
        Ok(unanalysed_draft(&source, false)),
        "(no analysis of the source)".into(),
    );
    let t = task(tmp.path());
    eco.project_request(&t).unwrap();
    let note = eco
        .accept_project_answer("A Pascal program.\nBUILDER: cmake")
        .unwrap();
    assert!(note.contains("has no CMakeLists.txt"), "{note}");
    assert_eq!(eco.current_draft().unwrap().builder, Builder::Generic);
}

/// A model's recipe is written in nixfmt's format when it parses; one
/// that does not is kept as written, for the parse check to explain.
#[test]
fn the_models_recipe_is_formatted_as_nixfmt_formats() {
    let e = eco("{ }: { }\n", &[]);
    let start = Recipe::new("package.nix", "");
    let answer = "```nix\n{ stdenv }:\nstdenv.mkDerivation {\n  pname = \"demo\";\n  version = \"1\";\n  buildInputs = [ a b ];\n}\n```";
    assert_eq!(
        e.answer_to_recipe(&start, answer).as_deref(),
        Ok("{ stdenv }:\nstdenv.mkDerivation {\n  pname = \"demo\";\n  version = \"1\";\n  buildInputs = [\n    a\n    b\n  ];\n}\n")
    );
    let broken = "{ stdenv }:\nstdenv.mkDerivation { pname = ; }\n";
    assert_eq!(e.answer_to_recipe(&start, broken).as_deref(), Ok(broken));
}
