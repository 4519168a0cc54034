//! One module per verb.

mod analyze;
mod doctor;

use crate::cli::{Cli, Command};
use crate::exit::{CliError, Exit};

pub fn dispatch(cli: Cli) -> Result<Exit, CliError> {
    match cli.command {
        Command::Analyze(args) => analyze::run(&args),
        Command::Doctor => doctor::run_doctor(),
    }
}
