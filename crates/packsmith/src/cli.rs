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
