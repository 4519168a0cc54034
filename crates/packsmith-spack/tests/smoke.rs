//! The smoke stage against the real Spack: a CMake project installing one
//! program that prints its version. A recipe without tests gains one
//! derived from the install (`--version`, with the version checked) and
//! passes; a recipe whose own test fails the program fails the attempt at
//! the smoke stage as `test`. Skipped with a loud SKIPPED line without
//! PACKSMITH_TEST_SPACK=/path/to/spack-checkout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::path::Path;

use crate::real_loop::{ecosystem, AfterInstall, LoopEnv};
use packsmith_agent::{Agent, AgentEvent, AgentOptions, RunReport, RunStatus, Task};
use packsmith_llm::ScriptedModel;

/// `bin/smokey`: `--version` prints it, anything else is refused.
fn smokey_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\n\
         project(smokey VERSION 0.3.0 LANGUAGES C)\n\
         add_executable(smokey src/smokey.c)\n\
         install(TARGETS smokey)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/smokey.c"),
        "#include <stdio.h>\n#include <string.h>\n\
         int main(int argc, char **argv) {\n\
           if (argc > 1 && strcmp(argv[1], \"--version\") == 0) { puts(\"smokey 0.3.0\"); return 0; }\n\
           fprintf(stderr, \"smokey: unknown argument\\n\");\n  return 2;\n}\n",
    )
    .unwrap();
}

fn recipe(extra: &str) -> String {
    format!(
        "from spack.package import *\n\n\nclass Smokey(CMakePackage):\n    \"\"\"A program that knows its version.\"\"\"\n\n    \
         homepage = \"https://example.invalid/smokey\"\n    url = \"file:///wrong/smokey-0.3.0.tar.gz\"\n\n    \
         version(\"0.3.0\", sha256=\"{}\")\n\n    depends_on(\"cmake@3.18:\", type=\"build\")\n{extra}",
        "0".repeat(64)
    )
}

/// A CMake recipe of `class` with no tests, its source URL to be replaced
/// by the run's mirror.
fn cmake_recipe(class: &str, name: &str, version: &str, doc: &str) -> String {
    format!(
        "from spack.package import *\n\n\nclass {class}(CMakePackage):\n    \"\"\"{doc}\"\"\"\n\n    \
         homepage = \"https://example.invalid/{name}\"\n    url = \"file:///wrong/{name}-{version}.tar.gz\"\n\n    \
         version(\"{version}\", sha256=\"{}\")\n\n    depends_on(\"cmake@3.18:\", type=\"build\")\n",
        "0".repeat(64)
    )
}

struct Run {
    report: RunReport,
    recipe: String,
    smoke_log: String,
}

/// One attempt with the scripted model's answer as the recipe (the
/// deterministic draft off), every stage but audit and hermeticity.
fn run_once(answer: &str) -> Option<Run> {
    run_project(("smokey", "0.3.0"), smokey_project, answer)
}

/// One attempt on the project `make` writes, packaged as `(name,
/// version)` by the recipe `answer`.
fn run_project(package: (&str, &str), make: fn(&Path), answer: &str) -> Option<Run> {
    run_project_then(package, make, answer, &[])
}

/// As [`run_project`], the scripted model answering `later` after the
/// recipe (the after-run smoke job's question), the run's directory kept.
fn run_project_then(
    package: (&str, &str),
    make: fn(&Path),
    answer: &str,
    later: &[&str],
) -> Option<Run> {
    let _spack = crate::spack_real::SPACK
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let run = tempfile::tempdir().unwrap();
    let after = AfterInstall {
        hermeticity: false,
        smoke: true,
    };
    let LoopEnv { eco, src, .. } = ecosystem(run.path(), "smoke", package, make, after)?;
    let mut model = ScriptedModel::new("scripted:test").text(format!("```python\n{answer}```"));
    for text in later {
        model = model.text(*text);
    }
    let mut options = AgentOptions::new(run.path().join("out"));
    options.tools = false;
    options.max_attempts = 1;
    let task = Task {
        name: package.0.into(),
        repo_root: src.clone(),
        version: Some(package.1.into()),
        references: Default::default(),
        context: serde_json::Value::Null,
    };
    let mut sink = |_: &AgentEvent| {};
    let report = Agent::run(&task, &eco, &model, &options, &mut sink).unwrap();
    let out = run.path().join("out").join(package.0);
    let recipe = std::fs::read_to_string(out.join("package.py"))
        .or_else(|_| std::fs::read_to_string(out.join("attempts/01/package.py")))
        .unwrap_or_default();
    let smoke_log =
        std::fs::read_to_string(out.join("attempts/01/logs/smoke.log")).unwrap_or_default();
    Some(Run {
        report,
        recipe,
        smoke_log,
    })
}

#[test]
fn a_recipe_without_tests_gains_a_smoke_test_that_passes() {
    let Some(run) = run_once(&recipe("")) else {
        return;
    };
    eprintln!("{}", run.smoke_log);
    assert_eq!(run.report.status, RunStatus::Succeeded, "{:#?}", run.report);
    let stages: Vec<(&str, bool)> = run.report.attempts[0]
        .stages
        .iter()
        .map(|s| (s.name.as_str(), s.passed))
        .collect();
    assert_eq!(stages.last(), Some(&("smoke", true)), "{stages:?}");
    // The version was in the probe's output, so the test checks it.
    assert!(
        run.recipe.contains(
            "    def test_smokey_version(self):\n        \"\"\"run smokey --version (smoke test)\"\"\"\n        \
             exe = which(self.prefix.bin.join(\"smokey\"), required=True)\n        \
             out = exe(\"--version\", output=str, error=str)\n        \
             assert str(self.spec.version) in out\n"
        ),
        "{}",
        run.recipe
    );
    assert!(
        run.smoke_log
            .contains("probe bin/smokey: --version: exit 0 in "),
        "{}",
        run.smoke_log
    );
    assert!(
        run.smoke_log
            .contains("PASSED: Smokey::test_smokey_version"),
        "{}",
        run.smoke_log
    );
}

#[test]
fn a_failing_smoke_test_fails_the_attempt() {
    let own_test = "\n    def test_refused(self):\n        \"\"\"an argument smokey refuses\"\"\"\n        \
                    exe = which(self.prefix.bin.smokey, required=True)\n        exe(\"--frobnicate\")\n";
    let Some(run) = run_once(&recipe(own_test)) else {
        return;
    };
    eprintln!("{}", run.smoke_log);
    // No model to repair it: the one attempt is spent.
    assert_eq!(
        run.report.status,
        RunStatus::AttemptsExhausted,
        "{:#?}",
        run.report
    );
    assert_eq!(run.report.final_recipe, None);
    let attempt = &run.report.attempts[0];
    let failure = attempt.failure.as_ref().unwrap();
    assert_eq!(failure.stage, "smoke");
    assert_eq!(failure.class, "test");
    assert!(
        failure
            .excerpt
            .contains("the smoke test failed: Smokey::test_refused"),
        "{}",
        failure.excerpt
    );
    // The recipe's own test ran; none was added beside it.
    assert!(
        run.smoke_log
            .contains("recipe: has tests of its own; running them"),
        "{}",
        run.smoke_log
    );
    assert!(
        !run.recipe.contains("test_smokey_version"),
        "{}",
        run.recipe
    );
    assert!(
        run.smoke_log.contains("smokey: unknown argument"),
        "{}",
        run.smoke_log
    );
}

/// `lib/libtinylib.so` and `include/tinylib.h`: a library, no program.
fn tinylib_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("include")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\n\
         project(tinylib VERSION 1.2.0 LANGUAGES C)\n\
         add_library(tinylib SHARED src/tinylib.c)\n\
         target_include_directories(tinylib PRIVATE include)\n\
         install(TARGETS tinylib LIBRARY DESTINATION lib)\n\
         install(FILES include/tinylib.h DESTINATION include)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("include/tinylib.h"),
        "#ifndef TINYLIB_H\n#define TINYLIB_H\nint tinylib_answer(void);\n#endif\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/tinylib.c"),
        "#include \"tinylib.h\"\nint tinylib_answer(void) { return 42; }\n",
    )
    .unwrap();
}

/// A library's recipe gains a test that compiles, links and runs a
/// program against it, and `spack test run` passes it.
#[test]
fn a_library_gains_a_link_test_that_passes() {
    let recipe = cmake_recipe("Tinylib", "tinylib", "1.2.0", "A library.");
    let Some(Run {
        report,
        recipe: written,
        smoke_log: log,
    }) = run_project(("tinylib", "1.2.0"), tinylib_project, &recipe)
    else {
        return;
    };
    eprintln!("{log}");
    assert_eq!(report.status, RunStatus::Succeeded, "{report:#?}");
    assert!(
        written.contains("    def test_link_tinylib(self):\n"),
        "{written}"
    );
    assert!(written.contains("-ltinylib"), "{written}");
    assert!(
        log.contains(
            "link libtinylib (include <tinylib.h>, tinylib_answer): compiled, linked and ran"
        ),
        "{log}"
    );
    assert!(log.contains("PASSED: Tinylib::test_link_tinylib"), "{log}");
}

/// `include/tinyhdr/tinyhdr.h`, C++ only, and no library: header-only.
fn tinyhdr_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("include/tinyhdr")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\n\
         project(tinyhdr VERSION 0.9.0 LANGUAGES CXX)\n\
         install(DIRECTORY include/ DESTINATION include)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("include/tinyhdr/tinyhdr.h"),
        "#pragma once\n#include <string>\ninline std::string tinyhdr() { return \"t\"; }\n",
    )
    .unwrap();
}

/// A header-only library's recipe gains a test that includes its header
/// (tried as C, compiled as C++), and `spack test run` passes it.
#[test]
fn a_header_only_library_gains_an_include_test_that_passes() {
    let recipe = cmake_recipe("Tinyhdr", "tinyhdr", "0.9.0", "Headers.");
    let Some(Run {
        report,
        recipe: written,
        smoke_log: log,
    }) = run_project(("tinyhdr", "0.9.0"), tinyhdr_project, &recipe)
    else {
        return;
    };
    eprintln!("{log}");
    assert_eq!(report.status, RunStatus::Succeeded, "{report:#?}");
    assert!(
        written.contains("    def test_include_tinyhdr(self):\n"),
        "{written}"
    );
    assert!(
        log.contains("include <tinyhdr/tinyhdr.h> (C++): compiled and ran"),
        "{log}"
    );
    assert!(
        log.contains("PASSED: Tinyhdr::test_include_tinyhdr"),
        "{log}"
    );
}

/// `bin/stubborn`: refuses every flag with exit 3 and says so.
fn stubborn_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\n\
         project(stubborn VERSION 0.2.0 LANGUAGES C)\n\
         add_executable(stubborn src/stubborn.c)\n\
         install(TARGETS stubborn)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/stubborn.c"),
        "#include <stdio.h>\n\
         int main(int argc, char **argv) {\n\
           fprintf(stderr, \"ERROR: Invalid argument \\\"%s\\\"\\n\", argc > 1 ? argv[1] : \"\");\n  return 3;\n}\n",
    )
    .unwrap();
}

/// A program that answers neither `--version` nor `--help` with exit 0
/// but starts and refuses the flag gets a test that it starts and refuses
/// it so, and `spack test run` passes it.
#[test]
fn a_program_that_refuses_the_flags_is_tested_to_start() {
    let recipe = cmake_recipe("Stubborn", "stubborn", "0.2.0", "A program.");
    let Some(Run {
        report,
        recipe: written,
        smoke_log: log,
    }) = run_project(("stubborn", "0.2.0"), stubborn_project, &recipe)
    else {
        return;
    };
    eprintln!("{log}");
    assert_eq!(report.status, RunStatus::Succeeded, "{report:#?}");
    assert!(
        written.contains("assert exe.returncode == 3, out"),
        "{written}"
    );
    assert!(
        log.contains("bin/stubborn starts and refuses --version with exit 3"),
        "{log}"
    );
    assert!(
        log.contains("PASSED: Stubborn::test_stubborn_version"),
        "{log}"
    );
}

/// `bin/waiter`: `-V` prints its version; anything else makes it wait for
/// work, so the probes of `--version` and `--help` are cut off.
fn waiter_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\n\
         project(waiter VERSION 0.5.0 LANGUAGES C)\n\
         add_executable(waiter src/waiter.c)\n\
         install(TARGETS waiter)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/waiter.c"),
        "#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n\
         int main(int argc, char **argv) {\n\
           if (argc > 1 && strcmp(argv[1], \"-V\") == 0) { puts(\"waiter 0.5.0\"); return 0; }\n\
           sleep(60);\n  return 0;\n}\n",
    )
    .unwrap();
}

/// Where nothing derived can be tested, the model's one check is proved
/// on the prefix, run with `spack test run` on the same install and
/// written into the recipe the run hands over; a check that does not
/// answer is refused and nothing is written.
#[test]
fn the_models_smoke_test_is_written_where_nothing_derived_ran() {
    let recipe = cmake_recipe("Waiter", "waiter", "0.5.0", "A program.");
    let answer = r#"{"op": "run", "program": "waiter", "arg": "-V"}"#;
    let Some(run) = run_project_then(("waiter", "0.5.0"), waiter_project, &recipe, &[answer])
    else {
        return;
    };
    eprintln!("{}", run.smoke_log);
    assert_eq!(run.report.status, RunStatus::Succeeded, "{:#?}", run.report);
    assert!(
        run.smoke_log.contains("recipe: nothing to test"),
        "{}",
        run.smoke_log
    );
    let job = &run.report.extras["smoke_job"];
    assert_eq!(job["written"], true, "{job:#}");
    assert_eq!(job["spack_test_run"]["passed"], true, "{job:#}");
    assert_eq!(run.report.extras["levels"]["smoke_tested"], true);
    assert!(
        run.recipe.contains("    def test_waiter_v(self):\n")
            && run.recipe.contains("        exe(\"-V\")\n"),
        "{}",
        run.recipe
    );
    assert_eq!(run.report.model_calls, 2, "the recipe and the smoke job");

    // An argument the program does not answer at once: refused, not written.
    let wrong = r#"{"op": "run", "program": "waiter", "arg": "--usage"}"#;
    let Some(run) = run_project_then(("waiter", "0.5.0"), waiter_project, &recipe, &[wrong]) else {
        return;
    };
    let job = &run.report.extras["smoke_job"];
    assert_eq!(job["written"], false, "{job:#}");
    assert!(
        job["refused"].as_str().unwrap().contains("did not exit 0"),
        "{job:#}"
    );
    assert_eq!(run.report.extras["levels"]["smoke_tested"], false);
    assert!(!run.recipe.contains("def test_"), "{}", run.recipe);
}

/// `bin/halfinst` links `libhalfinst_core.so`, which the install leaves
/// out: the program cannot start once installed.
fn halfinst_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\n\
         project(halfinst VERSION 0.1.0 LANGUAGES C)\n\
         add_library(halfinst_core SHARED src/core.c)\n\
         add_executable(halfinst src/main.c)\n\
         target_link_libraries(halfinst halfinst_core)\n\
         install(TARGETS halfinst)\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/core.c"), "int core(void) { return 0; }\n").unwrap();
    std::fs::write(
        dir.join("src/main.c"),
        "#include <stdio.h>\nint core(void);\n\
         int main(void) { puts(\"halfinst 0.1.0\"); return core(); }\n",
    )
    .unwrap();
}

/// An install whose program cannot load a library it links fails the
/// smoke stage as `test`, naming the library, instead of passing with
/// nothing tested.
#[test]
fn a_program_missing_its_library_fails_the_smoke_stage() {
    let recipe = cmake_recipe("Halfinst", "halfinst", "0.1.0", "A program.");
    let Some(run) = run_project(("halfinst", "0.1.0"), halfinst_project, &recipe) else {
        return;
    };
    let excerpt = smoke_test_failure(&run);
    assert!(excerpt.contains("libhalfinst_core.so"), "{excerpt}");
    assert!(
        run.smoke_log
            .contains("bin/halfinst cannot load a shared library"),
        "{}",
        run.smoke_log
    );
}

/// The excerpt of the run's first attempt, which must have failed its
/// smoke stage as `test`.
fn smoke_test_failure(run: &Run) -> String {
    eprintln!("{}", run.smoke_log);
    assert_ne!(run.report.status, RunStatus::Succeeded, "{:#?}", run.report);
    let failure = run.report.attempts[0].failure.as_ref().unwrap();
    assert_eq!(
        (failure.stage.as_str(), failure.class.as_str()),
        ("smoke", "test")
    );
    failure.excerpt.clone()
}

/// `hollow`: a program the build makes; the recipe's install() makes
/// `bin/` and copies nothing into it.
fn hollow_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\n\
         project(hollow VERSION 0.1.0 LANGUAGES C)\n\
         add_executable(hollow src/main.c)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.c"),
        "#include <stdio.h>\nint main(void) { puts(\"hollow 0.1.0\"); return 0; }\n",
    )
    .unwrap();
}

/// An install that leaves only empty directories in its prefix fails the
/// smoke stage as `test`, saying so, instead of passing with nothing to
/// test.
#[test]
fn an_install_that_copied_nothing_fails_the_smoke_stage() {
    let mut recipe = cmake_recipe("Hollow", "hollow", "0.1.0", "A program.");
    recipe.push_str("\n    def install(self, spec, prefix):\n        mkdirp(prefix.bin)\n");
    let Some(run) = run_project(("hollow", "0.1.0"), hollow_project, &recipe) else {
        return;
    };
    let excerpt = smoke_test_failure(&run);
    assert!(excerpt.contains("put no file into its prefix"), "{excerpt}");
    assert!(
        !run.smoke_log.contains("recipe: nothing to test"),
        "{}",
        run.smoke_log
    );
}
