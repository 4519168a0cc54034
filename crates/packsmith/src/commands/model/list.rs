//! `packsmith model list`: the models packsmith knows by name, whether
//! each is present and how to get it, and any other GGUF files in the
//! models directory.

use std::io::Write;

use packsmith_llm::catalog::{models_dir, KNOWN_MODELS};

use super::human_size;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};

pub fn run() -> Result<Exit, CliError> {
    let dir = models_dir(&cache_dir());
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "models in {}", dir.display());
    let _ = writeln!(
        out,
        "{:<22} {:>8}  {:<26} {:<40} get it with",
        "name", "size", "status", "file"
    );
    for m in KNOWN_MODELS {
        let expected = m.download.map(|d| d.size);
        // Size only: hashing a gigabyte on every list would be slow;
        // `model pull` verifies the checksum.
        let status = match std::fs::metadata(dir.join(m.file)) {
            Ok(meta) if expected.is_none_or(|s| meta.len() == s) => "present".to_string(),
            Ok(meta) => format!("wrong size ({} bytes)", meta.len()),
            Err(_) => "absent".to_string(),
        };
        let how = if m.download.is_some() {
            format!("packsmith model pull {}", m.name)
        } else {
            format!("scripts/fetch-models.sh {}", m.fetch_target)
        };
        let _ = writeln!(
            out,
            "{:<22} {:>8}  {:<26} {:<40} {how}",
            m.name,
            expected.map(human_size).unwrap_or_else(|| "-".into()),
            status,
            m.file
        );
    }
    let mut others: Vec<(String, u64)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_other = name.ends_with(".gguf")
                && !name.starts_with('.')
                && !KNOWN_MODELS.iter().any(|m| m.file == name);
            let size = e.metadata().ok()?.len();
            is_other.then_some((name, size))
        })
        .collect();
    others.sort();
    if !others.is_empty() {
        let _ = writeln!(out, "\nother GGUF files:");
        for (name, size) in others {
            let path = dir.join(&name);
            // Known models are listed above, so these are only known by path.
            let _ = writeln!(
                out,
                "  {name} ({})  --model local:{}",
                human_size(size),
                path.display()
            );
        }
    }
    Ok(Exit::Success)
}
