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
    /// Local models (GGUF) for `--model local:NAME`: pull, list.
    Model(ModelArgs),
    /// Serve a model as an OpenAI-compatible endpoint (POST
    /// /v1/chat/completions, GET /v1/models), on loopback unless --host says
    /// otherwise, so parallel workers share one loaded model.
    Serve(ServeArgs),
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
    /// Spack generation: 0.23 or 1.
    #[arg(long, default_value = "1")]
    pub spack_version: String,
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
pub struct ScoreArgs {
    pub generated: std::path::PathBuf,
    pub reference: std::path::PathBuf,
    #[arg(long)]
    pub json: bool,
    /// Which release's base classes remove inherited dependencies (0.23 or 1).
    #[arg(long, default_value = "1")]
    pub spack_version: String,
}
