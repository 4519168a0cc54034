//! One module per verb.

mod analyze;
pub mod bench;
mod bench_repairs;
mod check;
mod diagnose;
mod doctor;
mod hermeticity;
mod kb;
mod model;
mod nix;
mod optional_model;
mod repair;
mod score;
mod serve;
pub mod setup;
mod smoke_test;
mod spack;
pub mod spack_default;
mod update;

use crate::cli::{Cli, Command};
use crate::exit::{CliError, Exit};

pub fn dispatch(cli: Cli) -> Result<Exit, CliError> {
    match cli.command {
        Command::Analyze(args) => analyze::run(&args),
        Command::Doctor => doctor::run_doctor(),
        Command::Kb(args) => kb::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Score(args) => score::run(&args),
        Command::Hermeticity(args) => hermeticity::run(&args),
        Command::Diagnose(args) => diagnose::run(&args),
        Command::SmokeTest(args) => smoke_test::run(&args),
        Command::Model(args) => model::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Spack(args) => spack::run(&args),
        Command::Repair(args) => repair::run(&args),
        Command::Update(args) => update::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Nix(args) => nix::run(&args),
        Command::Setup(args) => setup::run(&args),
    }
}
