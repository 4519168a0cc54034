//! The Spack backend: runs the real Spack on a recipe (load, audit,
//! concretize, install) in the sandbox, turns a failed stage into a typed
//! diagnosis, and puts Spack behind the agent loop's `Ecosystem` seam.
//! What can be known without starting Spack (recipes, specs, the knowledge
//! base, the static check, the brief and the draft) is in
//! `packsmith-spack-knowledge`.
//!
//! Modules:
//! - `prepare`: one call from the analysed source and a located Spack to a
//!   run ready for the loop (`prepare_run` → `PreparedRun`): the brief with
//!   `--name`/`--version` applied, the run directory claimed, the source
//!   packed into the run's mirror and pinned in the brief, Spack's scratch in
//!   the run, the sandbox set up and probed once. `prepare_repair` does the
//!   same for `packsmith repair` (a recipe the user has).
//! - `knowledge`: the knowledge base indexed from this Spack's own package
//!   repository, found in the cache.
//! - `validate/`: plain functions, not a loop. `setup` (`SpackSetup` from
//!   options or an env script); `source` (a reproducible tarball and its
//!   sha256 in a per-run `file://` mirror); `upstream` (the forge's own
//!   release archive reproduced offline, so the recipe can carry the forge
//!   URL and still install offline); `overlay` (one Spack repo with a unique
//!   namespace and one `-C` config scope per attempt, because one broken
//!   `package.py` breaks every Spack command while its repo is configured;
//!   written once per attempt and cached in `PreparedAttempts`); `stages`
//!   (load → audit → concretize → install, each with its timeout and log
//!   file; installs use `--fresh`); `hermetic/` (after install, no Spack
//!   command: the DAG from `.spack/spec.json`, configure logs and ELF
//!   `DT_NEEDED`/RPATH entries, judged for host paths the DAG does not
//!   hold); `smoke/` (after the hermeticity check: a test derived from the
//!   prefix, a program probed with `--version`/`--help` in a stricter
//!   sandbox and a Python package's modules, run with `spack test run`);
//!   `sandbox` (the Spack stages' `SandboxPolicy`; the mechanism is
//!   `packsmith_exec::sandbox`); `variant_check` (flips a few boolean
//!   variants of a passing recipe and checks each).
//! - `diagnose/`: ordered rules turn a failed stage's log into a
//!   `Diagnosis`: its `Stage`, `FailureClass`, names and an excerpt capped in
//!   lines and bytes. Specific rules run before generic ones (`build_rules`
//!   before the dependency and compilation rules; `compiler_compat` holds
//!   `COMPAT_RULES`, known compiler errors with the flag that fixes each).
//!   `hermetic` turns the hermeticity findings into `undeclared_dependency`;
//!   `smoke` reads a failed smoke test's parts from Spack's test log.
//!   The rules are tested on captured real logs in `tests/spack-logs/`
//!   (`PACKSMITH_CAPTURE_LOGS=1` re-captures them). `reduce` cuts a whole
//!   log to its error lines with context, repeats kept once, for a model
//!   to read when no rule classified it.
//! - `jobs/`: the model's small jobs, each one checkable question with a
//!   few tokens of answer under a grammar: `pick_package` (the Spack
//!   package for a dependency name no rule maps, from `kb::candidates`;
//!   `unresolved` lists a brief's such names for `packsmith kb pick`),
//!   `explain_failure` (a label of SpackIt's set and a cause, from a log;
//!   `log_diagnosis` sets it beside the rules' verdict for `packsmith
//!   diagnose`).
//! - `ecosystem/`: `SpackEcosystem`, Spack behind `Ecosystem`. `prompts`
//!   with its `prompts/*.j2` minijinja templates; `output` cleans model
//!   answers and pins the packed source's url, version and sha256; `stages`
//!   hands the loop `StageSpec`s carrying the typed `Stage` and returns
//!   failures whose detail is the `Diagnosis`; `autofix/` and
//!   `autofix/build` are the repairs by rule, dispatched on the diagnosis's
//!   class and names (`auto_repair_with`), never on its prose;
//!   `hermeticity` records the check for the report; `smoke` writes the
//!   derived test into the recipe and hands the amended recipe back to the
//!   loop with the stage's outcome; `edit_repair` is the
//!   structured-edit repair (`RepairMode`: edits or rewrite) and `rule_fix`,
//!   which tries the knowledge crate's candidates cheapest first;
//!   `pick_repair` answers a `missing_dependency` no rule names with the
//!   pick job (asked from `repair_request`, applied in `answer_to_recipe`);
//!   `references` (knowledge-base recipes, compacted); `tools`
//!   (`spack_lookup`, `show_recipe`, `check_recipe`).
//!   `--no-rules` switches every rule off.
//! - `contribute`: the bundle of a run that succeeded (`--contribute`): the
//!   recipe in 1.x's idiom at its spack-packages path, a `git format-patch`
//!   with the disclosure trailer, and `PR.md` with the run's evidence.
//! - `setup/`: `packsmith setup spack`: recognise a checkout, add clingo
//!   when Spack's Python lacks it, detect externals, write the config scope
//!   and `env.sh` (built in a temp directory and renamed into place);
//!   `status` reads a set-up back for `doctor`; `check` is
//!   `setup spack --check`.
//! - `repair_set/`: the repair benchmark's tasks. `pick` usable recipes,
//!   mutate them, `verify` with real Spack that the mutant fails at its
//!   class's stage and the original passes; `install` does the same for the
//!   install-stage classes from packed sources.
//! - `update/`: `packsmith update`: the new version's checksum
//!   (`checksum`: the recipe URL's local archive, the forge release
//!   reproduced, else none and a stand-in), the edited recipe validated
//!   (`validate`: the new version installed, the old one concretized, in
//!   the same overlay repos and sandbox), and `report`.
//!
//! Tests that need real Spack print `SKIPPED: …` unless
//! `PACKSMITH_TEST_SPACK` names a Spack checkout.

pub mod contribute;
pub mod diagnose;
pub mod ecosystem;
pub mod jobs;
pub mod knowledge;
pub mod prepare;
pub mod repair_set;
pub mod review;
pub mod run;
pub mod setup;
pub mod style;
pub mod update;
pub mod validate;
