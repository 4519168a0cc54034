//! Command-line definitions.

use clap::{Parser, Subcommand};

/// packsmith turns a source repository into a Spack or Nix package recipe.
#[derive(Debug, Parser)]
#[command(name = "packsmith", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report what a packager needs to know about a repository: build
    /// systems, options, dependencies, languages, versions, licence.
    Analyze(AnalyzeArgs),
    /// Say which models, package managers and sandboxes are usable here,
    /// and what to do about each that is not.
    Doctor,
    /// The Spack knowledge base: index, stats, show, search, similar.
    Kb(KbArgs),
    /// Static check of package.py recipes (milliseconds, no Spack needed).
    Check(CheckArgs),
    /// SpackIt's S_d and S_v of a generated recipe against a reference.
    Score(ScoreArgs),
    /// Check installed Spack prefixes for what their builds took from the
    /// host that their DAG does not hold (the check `packsmith spack` runs
    /// after an install). Exit 1 when any prefix has a finding.
    Hermeticity(HermeticityArgs),
    /// Why a Spack stage failed, from its log: the rules' class, and with
    /// --model the model's class and cause read from the reduced log.
    Diagnose(DiagnoseArgs),
    /// Ask a model for one smoke test of an installed Spack prefix (run an
    /// installed program with one argument, or import a module) and prove
    /// it on the prefix: the job `packsmith spack` runs after a pass when
    /// nothing derived could be tested. Exit 1 when no check passed.
    SmokeTest(SmokeTestArgs),
    /// Local models (GGUF) for `--model local:NAME`: pull, list.
    Model(ModelArgs),
    /// Serve a model as an OpenAI-compatible endpoint (POST
    /// /v1/chat/completions, GET /v1/models), on loopback unless --host says
    /// otherwise, so parallel workers share one loaded model.
    Serve(ServeArgs),
    /// Package a repository for Spack: analyze it, draft package.py, and
    /// repair it with a model until the real Spack loads, concretizes and
    /// installs it (sandboxed). Writes a run directory with every attempt.
    Spack(SpackArgs),
    /// Repair a broken package.py: the rules, then a model's edits, until
    /// the real Spack loads and concretizes it (and installs it, with
    /// `--until install`). Writes a run directory with every attempt.
    Repair(RepairArgs),
    /// Bring a recipe you have to a new upstream version: diff the build
    /// facts of the old and the new source, edit the recipe as a maintainer
    /// would (Spack: a new version(), when="@V:" on what is new; Nix: the
    /// version, hash and inputs), validate with the real Spack or Nix, and
    /// report.
    Update(UpdateArgs),
    /// Benchmarks: run task sets under configurations (resumable, local or
    /// Slurm), then tables, plots and paired comparisons.
    Bench(crate::commands::bench::BenchArgs),
    /// Package a project for Nix: a nixpkgs-style package.nix, evaluated
    /// and built against a pinned nixpkgs and repaired from Nix's logs.
    Nix(NixArgs),
    /// Set a tool up for packsmith: `setup spack` makes an isolated,
    /// ready Spack (concretizer, compilers, externals) used by default.
    Setup(crate::commands::setup::SetupArgs),
}

#[derive(Debug, clap::Args)]
pub struct RepairArgs {
    /// The package.py to repair (read, never written).
    pub recipe: std::path::PathBuf,
    /// Spack package name (default: the recipe's directory name).
    #[arg(long)]
    pub name: Option<String>,
    /// The last stage that must pass: load, audit, concretize or install.
    #[arg(long, default_value = "install", value_parser = ["load", "audit", "concretize", "install"])]
    pub until: String,
    /// provider:name, as for `packsmith spack`; without one only the rules
    /// repair.
    #[arg(long)]
    pub model: Option<String>,
    /// Leave the hermeticity check out after an install.
    #[arg(long)]
    pub no_hermeticity_check: bool,
    /// Leave the smoke test out after an install (by default one is
    /// derived from the installed prefix, written into the recipe when it
    /// has no tests of its own, and run with `spack test run`).
    #[arg(long)]
    pub no_smoke_test: bool,
    /// The version to concretize and install (default: Spack's preferred
    /// one of the recipe).
    #[arg(long)]
    pub version: Option<String>,
    /// A source tree of that version, or its `.tar.gz` (needs --version),
    /// for a sandbox that cannot fetch the recipe's archive: it is put into
    /// the run's mirror as that archive and installed with `--no-checksum`
    /// (the recipe's checksum is the upstream archive's, not this tree's).
    #[arg(long, requires = "version")]
    pub source: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub run: LoopFlags,
}

#[derive(Debug, clap::Args)]
pub struct UpdateArgs {
    /// The package.py to update (read; written only with --in-place), a
    /// package name the Spack knows (its recipe in the Spack's repos), or
    /// a nixpkgs package.nix.
    pub recipe: std::path::PathBuf,
    /// The new version's source: a directory, a git URL, or a release
    /// archive on this machine (its checksum is the new version's when its
    /// file name is the one the recipe's URL gives).
    pub source: String,
    /// The new version (default: what the source's tag or build files say).
    #[arg(long)]
    pub version: Option<String>,
    /// The old version's source tree or release archive (default: the new
    /// source's git tag of the recipe's newest version, `vX.Y` or `X.Y`).
    #[arg(long)]
    pub old_source: Option<std::path::PathBuf>,
    /// Spack package name (default: the recipe's directory name).
    #[arg(long)]
    pub name: Option<String>,
    /// Also write the updated recipe over the one given.
    #[arg(long)]
    pub in_place: bool,
    /// Exit 0 when no Spack is configured and the update could not be
    /// validated (the report still says `not validated`).
    #[arg(long)]
    pub allow_unvalidated: bool,
    /// Write the update without running Spack's stages (reported `not
    /// validated`, exit 0); the Spack's package names are still read.
    #[arg(long)]
    pub no_validate: bool,
    /// The Spack to validate with (default: the one `packsmith setup
    /// spack` made, else spack on PATH; without one, not validated).
    #[arg(long)]
    pub spack: Option<std::path::PathBuf>,
    /// The Spack generation to write for: auto (ask Spack), 0.23 or 1.
    #[arg(long, default_value = "auto")]
    pub spack_version: String,
    /// Where run directories go (the run is <out>/<name>/).
    #[arg(long, default_value = "packsmith-runs")]
    pub out: std::path::PathBuf,
    /// Replace an earlier run of the same package in --out.
    #[arg(long)]
    pub replace: bool,
    /// Run Spack without bubblewrap, or Nix's build without its sandbox
    /// (the recipe's code then runs with your rights).
    #[arg(long)]
    pub no_sandbox: bool,
    /// For a package.nix: the nixpkgs to build the update against, a
    /// checkout or a commit (default: `<nixpkgs>` from NIX_PATH; without
    /// one the update is parsed, not built).
    #[arg(long)]
    pub nixpkgs: Option<String>,
    /// For a package.nix: extra paths for Nix's sandbox, repeatable.
    #[arg(long = "sandbox-path", value_name = "PATH")]
    pub sandbox_paths: Vec<String>,
    /// For a package.nix: fetch nothing (the new hash then comes from a
    /// release archive given, else the build) and ask no binary cache.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, clap::Args)]
pub struct NixArgs {
    /// A project URL (GitHub, GitLab, Codeberg/Gitea, any git URL, a
    /// release archive), `pypi:NAME`, `crate:NAME`, a local directory, or a
    /// local release archive (a path or `file://` URL).
    pub source: String,
    /// Tag or commit to package (default: the latest tag, else HEAD).
    #[arg(long)]
    pub rev: Option<String>,
    /// The nixpkgs to build against: a local checkout or a commit
    /// (default: `<nixpkgs>` from NIX_PATH; without one only parsing and
    /// hashes are checked).
    #[arg(long)]
    pub nixpkgs: Option<String>,
    /// provider:name, or `none` for the draft alone (default:
    /// PACKSMITH_MODEL or packsmith.toml).
    #[arg(long)]
    pub model: Option<String>,
    /// Attempts, the first recipe (the draft, or the recipe given) included.
    #[arg(long, default_value_t = 20)]
    pub max_iterations: u32,
    /// Stop after this many consecutive attempts without progress.
    #[arg(long, default_value_t = 10)]
    pub max_no_progress: u32,
    /// Rounds per attempt in which the model fixes a recipe that fails to
    /// parse, before the attempt is given up (0 = none).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub static_repairs: u32,
    /// Refinement rounds after a successful build (0 = off).
    #[arg(long, default_value_t = 1)]
    pub refine: u32,
    /// Offer the model no tools.
    #[arg(long)]
    pub no_tools: bool,
    /// Skip the model's project summary (and builder pick) before the
    /// first draft.
    #[arg(long)]
    pub no_summary: bool,
    /// Where run directories go.
    #[arg(long, default_value = "packsmith-runs")]
    pub out: std::path::PathBuf,
    /// Replace an earlier run of the same package.
    #[arg(long)]
    pub replace: bool,
    /// Build without Nix's sandbox (not recommended: generated recipes
    /// are untrusted).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Package name (default: from the repository).
    #[arg(long)]
    pub name: Option<String>,
    /// Package version (default: from the tag or the project's metadata).
    #[arg(long)]
    pub version: Option<String>,
    /// The nixpkgs attribute the package will have (`python3Packages.foo`,
    /// `foo`): a Python package set's module is drafted with
    /// buildPythonPackage, from the repository's Python project when its
    /// top holds none (`sourceRoot`).
    #[arg(long, value_name = "ATTR")]
    pub attr_path: Option<String>,
    /// Extra paths for Nix's sandbox (`extra-sandbox-paths`, `PATH` or
    /// `DEST=SRC`), repeatable; the runtime check mounts them too.
    #[arg(long = "sandbox-path", value_name = "PATH")]
    pub sandbox_paths: Vec<String>,
    /// Ask no binary cache (for offline machines).
    #[arg(long)]
    pub offline: bool,
    /// Exit 0 when the recipe could only be parsed, not built (no
    /// nixpkgs); the report still says `not built`.
    #[arg(long)]
    pub allow_unbuilt: bool,
    /// Your nixpkgs maintainer handle (an attribute of `lib.maintainers`),
    /// written into `meta.maintainers`; repeat for several. The review gate
    /// asks for one.
    #[arg(long, value_name = "HANDLE")]
    pub maintainer: Vec<String>,
    /// After a run that built: write a contribution bundle into OUT — the
    /// recipe at `pkgs/by-name/<xx>/<name>/package.nix`, a `git
    /// format-patch` file (`<name>: init at <version>`, with the
    /// `Assisted-by:` trailer) and PR.md with the run's evidence.
    #[arg(long, value_name = "OUT")]
    pub contribute: Option<std::path::PathBuf>,
    /// With --contribute: leave the `Assisted-by:` trailer out of the
    /// commit; the disclosure is then in PR.md only.
    #[arg(long, requires = "contribute")]
    pub no_disclosure_trailer: bool,
}

#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    pub command: ModelCommand,
}

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download a known model (or any GGUF with --url and --sha256) into
    /// <cache>/models, checking its size and sha256.
    Pull(ModelPullArgs),
    /// The known models and which are present, and other GGUF files there.
    List,
}

#[derive(Debug, clap::Args)]
pub struct ModelPullArgs {
    /// A known model (see `packsmith model list`), or the name to save a
    /// custom GGUF under (with --url and --sha256).
    pub name: String,
    /// Download from here instead (a mirror, or a custom GGUF).
    #[arg(long)]
    pub url: Option<String>,
    /// The file's sha256 (required for a custom GGUF).
    #[arg(long)]
    pub sha256: Option<String>,
    /// Download again even when a verified file is present.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// provider:name, e.g. local:qwen2.5-coder-1.5b (default: PACKSMITH_MODEL
    /// or `model` under [llm] in packsmith.toml).
    #[arg(long)]
    pub model: Option<String>,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on; anything but loopback exposes the model to the
    /// network.
    #[arg(long)]
    pub host: Option<String>,
    /// HTTP worker threads; the model itself runs one call at a time.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub parallel: u16,
}

#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// A local directory (read in place, never written) or a git URL
    /// (cloned into the user cache).
    pub source: String,
    /// Print the full facts as JSON instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// The package the facts are for (`py-langchain-protocol`): in a
    /// repository of several Python projects, the one declaring that name
    /// is read, as `packsmith spack --name` reads it.
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct KbArgs {
    #[command(subcommand)]
    pub command: KbCommand,
}

#[derive(Debug, Subcommand)]
pub enum KbCommand {
    /// Index a Spack package repository (a Spack checkout, a spack-packages
    /// checkout, or any directory with repo.yaml) into the user cache.
    Index(KbIndexArgs),
    /// Counts, generations, build systems, top virtuals.
    Stats(KbSelect),
    /// One package: versions, variants, dependencies, provided virtuals.
    Show(KbShowArgs),
    /// Packages whose name or description matches TEXT, best first.
    Search(KbSearchArgs),
    /// Reference recipes for a repository (path or facts.json).
    Similar(KbSimilarArgs),
    /// The dependencies of a repository no rule maps to a Spack name (left
    /// out of the draft), each with the knowledge base's candidates; with
    /// --model, the model picks one (or none) and the pick is checked.
    Pick(KbPickArgs),
    /// Embed every package's feature card (and, with --chunks, recipe
    /// chunks) for `--refs embedding:N`; incremental per embedding model.
    Embed(KbEmbedArgs),
}

#[derive(Debug, clap::Args)]
pub struct KbSelect {
    /// A database path or label (default: the most recently indexed).
    #[arg(long)]
    pub kb: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct KbIndexArgs {
    pub repo: std::path::PathBuf,
    /// Tag the packages named in FILE (JSON lines with "name", or one name per line).
    #[arg(long, requires = "tag")]
    pub tag_list: Option<std::path::PathBuf>,
    /// The tag to give them (e.g. e4s).
    #[arg(long, requires = "tag_list")]
    pub tag: Option<String>,
    /// Label of the database (default: checkout and namespace, e.g. spack-builtin).
    #[arg(long)]
    pub label: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct KbShowArgs {
    pub name: String,
    #[command(flatten)]
    pub select: KbSelect,
}

#[derive(Debug, clap::Args)]
pub struct KbSearchArgs {
    pub text: String,
    #[arg(short, long, default_value_t = 20)]
    pub limit: usize,
    #[command(flatten)]
    pub select: KbSelect,
}

#[derive(Debug, clap::Args)]
pub struct KbSimilarArgs {
    /// A source directory (analyzed) or a facts.json from `analyze --json`.
    pub target: std::path::PathBuf,
    /// none | random | random-same-build-system | similar | similar-normalized | embedding
    #[arg(long, default_value = "similar")]
    pub strategy: String,
    /// Embedding model for --strategy embedding (the one `kb embed` used).
    #[arg(long, default_value = DEFAULT_EMBED_MODEL)]
    pub embed_model: String,
    /// --strategy embedding: score each package by the best of its card and
    /// its embedded recipe chunks, not by its card alone.
    #[arg(long)]
    pub chunks: bool,
    #[arg(short, default_value_t = 2)]
    pub n: usize,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Leave this package out too (repeatable).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Spack generation the names are mapped for (0.23 or 1).
    #[arg(long, default_value = "1")]
    pub spack_version: String,
    #[command(flatten)]
    pub select: KbSelect,
}

#[derive(Debug, clap::Args)]
pub struct KbPickArgs {
    /// A source directory (analyzed) or a facts.json from `analyze --json`.
    pub target: std::path::PathBuf,
    /// A model to pick with (e.g. local:qwen2.5-coder-1.5b); without it the
    /// candidates are listed only.
    #[arg(long)]
    pub model: Option<String>,
    /// Spack generation the names are mapped for (0.23 or 1).
    #[arg(long, default_value = "1")]
    pub spack_version: String,
    #[command(flatten)]
    pub select: KbSelect,
}

/// The embedding model `kb embed` and `--refs embedding:N` use unless told.
pub const DEFAULT_EMBED_MODEL: &str = "local:all-minilm-l6-v2";

#[derive(Debug, clap::Args)]
pub struct KbEmbedArgs {
    /// local:all-minilm-l6-v2 (embedded; needs the `local` feature),
    /// openai:text-embedding-3-small, or openai-compat:NAME@URL.
    #[arg(long, default_value = DEFAULT_EMBED_MODEL)]
    pub model: String,
    /// Recipe chunks to embed besides the cards: none, all, or a file of
    /// package names (JSON lines with "name", or one name per line).
    #[arg(long, default_value = "none")]
    pub chunks: String,
    /// Only the first N packages by name (a trial run).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Texts per embedder call and per database transaction.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    #[command(flatten)]
    pub select: KbSelect,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// package.py files, or package directories to check every */package.py in.
    #[arg(required = true)]
    pub paths: Vec<std::path::PathBuf>,
    /// Knowledge base for dependency names (path or label; default: most recent, if any).
    #[arg(long)]
    pub kb: Option<String>,
    /// Check without a knowledge base (dependency names are not checked).
    #[arg(long, conflicts_with = "kb")]
    pub no_kb: bool,
    /// Spack generation: 0.23 or 1 (default: what each recipe's repository
    /// (repo.yaml) or imports say, else 1).
    #[arg(long)]
    pub spack_version: Option<String>,
    /// The package name the class must match (default: the directory of package.py).
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long)]
    pub json: bool,
    /// Print only the summary (counts by code, timing).
    #[arg(long)]
    pub summary: bool,
}

#[derive(Debug, clap::Args)]
pub struct HermeticityArgs {
    /// Install prefixes (`spack location -i <spec>`).
    #[arg(required = true)]
    pub prefixes: Vec<std::path::PathBuf>,
    /// Knowledge base for library and package names (path or label;
    /// default: most recent, if any).
    #[arg(long)]
    pub kb: Option<String>,
    /// Check without a knowledge base (names only from the built-in table).
    #[arg(long, conflicts_with = "kb")]
    pub no_kb: bool,
    /// One JSON array of reports instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct SmokeTestArgs {
    /// The install prefix (`spack location -i <spec>`).
    pub prefix: std::path::PathBuf,
    /// The model to ask (e.g. local:qwen2.5-coder-1.5b; default: the
    /// configured one).
    #[arg(long)]
    pub model: Option<String>,
    /// The source tree, for its README.
    #[arg(long)]
    pub source: Option<std::path::PathBuf>,
    /// Run the check without the sandbox (where user namespaces are
    /// unavailable): installed programs run with your rights.
    #[arg(long)]
    pub no_sandbox: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct DiagnoseArgs {
    /// The stage's log (a packsmith run's `attempts/NN/logs/STAGE.log`, or
    /// any Spack output).
    pub log: std::path::PathBuf,
    /// Spack's build log beside it (`spack-build-out.txt`), if any.
    pub build_log: Option<std::path::PathBuf>,
    /// The stage that failed: load, audit, concretize, install or smoke.
    #[arg(long, default_value = "install")]
    pub stage: String,
    /// A model to explain the failure too (e.g. local:qwen2.5-coder-1.5b).
    #[arg(long)]
    pub model: Option<String>,
    /// Give the model the whole log instead of the reduced one (to compare).
    #[arg(long, requires = "model")]
    pub whole: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    pub generated: std::path::PathBuf,
    pub reference: std::path::PathBuf,
    #[arg(long)]
    pub json: bool,
    /// Which release's base classes remove inherited dependencies (0.23 or
    /// 1; default: what the reference's repository or imports say, else 1).
    #[arg(long)]
    pub spack_version: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct SpackArgs {
    /// A local directory (read in place, never written) or a git URL
    /// (cloned into the user cache).
    pub source: String,
    /// Spack package name (default: derived from the project name).
    #[arg(long)]
    pub name: Option<String>,
    /// Version to package (default: the newest release tag).
    #[arg(long)]
    pub version: Option<String>,
    /// provider:name, e.g. local:qwen2.5-coder-1.5b (default: PACKSMITH_MODEL
    /// or packsmith.toml). Without one, or with `none`, only the
    /// deterministic draft is tried.
    #[arg(long)]
    pub model: Option<String>,
    /// Reference recipes: none | random | random-build-system | similar:N | embedding:N.
    #[arg(long, default_value = "similar:2")]
    pub refs: String,
    /// What the prompt says about the project: rules (the deterministic
    /// brief), llm (a model's distillation of the facts), raw (the facts as JSON).
    #[arg(long, default_value = "rules", value_parser = ["rules", "llm", "raw"])]
    pub brief: String,
    /// The first recipe: rules (rendered from the brief, validated before
    /// any model call) or none (the model writes it from nothing).
    #[arg(long, default_value = "rules", value_parser = ["rules", "none"])]
    pub draft: String,
    /// After the install, check that the build took nothing from the host
    /// that the recipe does not declare (default; a finding fails the
    /// attempt as `undeclared_dependency`).
    #[arg(long, overrides_with = "no_hermeticity_check")]
    pub hermeticity_check: bool,
    #[arg(long, overrides_with = "hermeticity_check")]
    pub no_hermeticity_check: bool,
    /// After the install, derive a smoke test from the installed prefix
    /// (a program of `bin/` with `--version` or `--help`, the modules of a
    /// Python package), write it into the recipe as Spack stand-alone
    /// tests and run it with `spack test run` (default; a failure fails
    /// the attempt as `test`).
    #[arg(long, overrides_with = "no_smoke_test")]
    pub smoke_test: bool,
    #[arg(long, overrides_with = "smoke_test")]
    pub no_smoke_test: bool,
    /// After success, flip up to five boolean variants and concretize each (default).
    #[arg(long, overrides_with = "no_variant_check")]
    pub variant_check: bool,
    #[arg(long, overrides_with = "variant_check")]
    pub no_variant_check: bool,
    /// Install each flipped variant too (slow).
    #[arg(long)]
    pub variant_install: bool,
    /// Install with `--test=root`.
    #[arg(long)]
    pub test: bool,
    /// The embedding model for `--refs embedding:N` (the knowledge base
    /// must hold its vectors: `packsmith kb embed --model ...`).
    #[arg(long, default_value = DEFAULT_EMBED_MODEL)]
    pub embed_model: String,
    /// Seed for random references and sampling.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// After a run that succeeded, write a contribution for spack-packages
    /// into OUT: the recipe in Spack 1.x's idiom at its path in that
    /// repository, OUT/<name>.patch (`git format-patch`) and OUT/PR.md.
    #[arg(long, value_name = "OUT")]
    pub contribute: Option<std::path::PathBuf>,
    /// With --contribute: leave the `Assisted-by: packsmith` trailer out of
    /// the commit; the disclosure is then in PR.md only.
    #[arg(long, requires = "contribute")]
    pub no_disclosure_trailer: bool,
    /// A GitHub handle written into the recipe as `maintainers("NAME")`
    /// (the review gate asks for one); with --contribute also the commit's
    /// author when git has no user.name.
    #[arg(long, value_name = "NAME")]
    pub maintainer: Option<String>,
    #[command(flatten)]
    pub run: LoopFlags,
}

/// What `packsmith spack` and `packsmith repair` share: the Spack, the
/// loop's limits, the model's tools and how it repairs, and the run
/// directory.
#[derive(Debug, clap::Args)]
pub struct LoopFlags {
    /// Run `spack audit packages` as a stage (default).
    #[arg(long, overrides_with = "no_audit")]
    pub audit: bool,
    #[arg(long, overrides_with = "audit")]
    pub no_audit: bool,
    /// Attempts, the first recipe (the draft, or the recipe given) included.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub max_attempts: u32,
    /// Rounds per attempt in which the model fixes a recipe that fails the
    /// static check, before the attempt is given up (0 = none).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub static_repairs: u32,
    /// The Spack to validate with: an env script of `export` lines (see
    /// docs/offline-spack.md) or a `spack` executable (default: spack on PATH).
    #[arg(long)]
    pub spack: Option<std::path::PathBuf>,
    /// The Spack generation to write for: auto (ask Spack), 0.23 or 1.
    #[arg(long, default_value = "auto")]
    pub spack_version: String,
    /// Knowledge base (path or label; default: the one indexed from this Spack).
    #[arg(long)]
    pub kb: Option<String>,
    /// Where run directories go (the run is <out>/<name>/).
    #[arg(long, default_value = "packsmith-runs")]
    pub out: std::path::PathBuf,
    /// Replace an earlier run of the same package in --out.
    #[arg(long)]
    pub replace: bool,
    /// Run Spack without bubblewrap (for machines without user namespaces;
    /// the recipe's code then runs with your rights).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Do not offer tools to the model (everything goes in the prompt).
    #[arg(long, overrides_with = "tools")]
    pub no_tools: bool,
    /// Offer tools to a local model too (off by default for `local:` models:
    /// a small model spends its budget on tool rounds, and the prompt
    /// already carries what the tools would find).
    #[arg(long, overrides_with = "no_tools")]
    pub tools: bool,
    /// Write every prompt and reply in full under attempts/NN/calls/.
    #[arg(long)]
    pub log_prompts: bool,
    /// How the model repairs: edits (a short JSON list of typed edits,
    /// for small models), rewrite (the whole recipe), or auto (edits for a
    /// `local:` model, rewrite for the rest).
    #[arg(long, default_value = "auto", value_parser = ["auto", "edits", "rewrite"])]
    pub repair_mode: String,
    /// Do not repair by rule (every repair is then the model's).
    #[arg(long)]
    pub no_rules: bool,
}
