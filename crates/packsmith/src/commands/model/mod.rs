//! `packsmith model`: local GGUF models in `<cache>/models`.

mod list;
mod pull;

use crate::cli::{ModelArgs, ModelCommand};
use crate::exit::{CliError, Exit};

pub fn run(args: &ModelArgs) -> Result<Exit, CliError> {
    match &args.command {
        ModelCommand::Pull(a) => pull::run(a),
        ModelCommand::List => list::run(),
    }
}

/// `1117320768` → `1.1 GB`.
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "kB", "MB", "GB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn human_size() {
        assert_eq!(super::human_size(1_117_320_768), "1.1 GB");
        assert_eq!(super::human_size(512), "512 B");
        assert_eq!(super::human_size(98_000_000), "98.0 MB");
    }
}
