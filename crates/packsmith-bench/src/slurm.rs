//! The Slurm executor: an sbatch job array, one index per pending pair
//! (chunks of at most 1000, Slurm's default MaxArraySize), each array task
//! running `packsmith bench run-one OUT --index I`, which appends to the
//! journal on the shared filesystem.

use std::path::{Path, PathBuf};

use crate::config::SlurmSettings;
use crate::error::{BenchError, Result};
use crate::plan::Pair;

const CHUNK: usize = 1000;

/// `0-3,5,7-9` (indices sorted and unique).
pub fn array_spec(indices: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let start = indices[i];
        let mut end = start;
        while i + 1 < indices.len() && indices[i + 1] == end + 1 {
            i += 1;
            end = indices[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `--time` from the pair limit plus ten minutes for the harness.
fn default_time(timeout_secs: u64) -> String {
    let mins = timeout_secs.div_ceil(60) + 10;
    format!("{}:{:02}:00", mins / 60, mins % 60)
}

/// The batch script of one chunk: array index + `offset` = pair index.
pub fn batch_script(
    out: &Path,
    runner: &Path,
    settings: &SlurmSettings,
    timeout_secs: u64,
    indices: &[usize],
    offset: usize,
    max_parallel: Option<usize>,
) -> String {
    let local: Vec<usize> = indices.iter().map(|i| i - offset).collect();
    let mut array = array_spec(&local);
    if let Some(n) = max_parallel {
        array.push_str(&format!("%{n}"));
    }
    let logs = out.join("slurm");
    let mut s = String::from("#!/bin/sh\n");
    s.push_str("#SBATCH --job-name=packsmith-bench\n");
    s.push_str(&format!("#SBATCH --array={array}\n"));
    s.push_str(&format!(
        "#SBATCH --cpus-per-task={}\n",
        settings.cpus_per_task
    ));
    s.push_str(&format!("#SBATCH --mem={}\n", settings.mem));
    let time = settings
        .time
        .clone()
        .unwrap_or_else(|| default_time(timeout_secs));
    s.push_str(&format!("#SBATCH --time={time}\n"));
    if let Some(p) = &settings.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    for e in &settings.extra {
        s.push_str(&format!("#SBATCH {e}\n"));
    }
    s.push_str(&format!("#SBATCH --output={}/%A_%a.log\n", logs.display()));
    s.push_str(&format!(
        "exec {} bench run-one {} --index \"$((SLURM_ARRAY_TASK_ID + {offset}))\"\n",
        quote(&runner.display().to_string()),
        quote(&out.display().to_string())
    ));
    s
}

/// Writes and submits the job arrays; returns the job ids.
pub fn submit(
    out: &Path,
    runner: &Path,
    settings: &SlurmSettings,
    timeout_secs: u64,
    pending: &[Pair],
    max_parallel: Option<usize>,
    sbatch: &str,
) -> Result<Vec<String>> {
    let dir = out.join("slurm");
    std::fs::create_dir_all(&dir).map_err(|e| BenchError::io("create", &dir, e))?;
    let mut indices: Vec<usize> = pending.iter().map(|p| p.index).collect();
    indices.sort_unstable();
    indices.dedup();
    let mut jobs = Vec::new();
    for chunk in indices.chunk_by(|a, b| a / CHUNK == b / CHUNK) {
        let offset = chunk[0] / CHUNK * CHUNK;
        let script = batch_script(
            out,
            runner,
            settings,
            timeout_secs,
            chunk,
            offset,
            max_parallel,
        );
        let path: PathBuf = dir.join(format!("array-{offset}.sbatch"));
        packsmith_exec::atomic_write(&path, script.as_bytes())
            .map_err(|e| BenchError::environment(e.to_string()))?;
        // sbatch runs with our environment (SLURM_CONF, the model's keys):
        // array tasks inherit it, so packsmith_exec's allowlist is not used.
        let spec = packsmith_exec::CommandSpec::new(sbatch)
            .arg("--parsable")
            .arg(&path)
            .cwd(out)
            .inherit_environment()
            .timeout(std::time::Duration::from_secs(300));
        let o = packsmith_exec::run(&spec).map_err(|e| {
            BenchError::environment(format!("could not run `{sbatch}`: {e}"))
                .hint("run on a Slurm login node (sbatch on PATH), or use --executor local")
        })?;
        if !o.success() {
            let why = if o.cancelled {
                "interrupted (Ctrl-C)".to_string()
            } else if o.timed_out {
                "no answer in 300 s".to_string()
            } else {
                o.stderr.trim().to_string()
            };
            return Err(BenchError::environment(format!(
                "sbatch rejected {}: {why}",
                path.display()
            ))
            .hint("check the [slurm] settings (partition, mem, time) in the configuration"));
        }
        let stdout = &o.stdout;
        let id = stdout.trim().split(';').next().unwrap_or("").to_string();
        jobs.push(id);
    }
    let ids = dir.join("jobs.txt");
    let mut prior = std::fs::read_to_string(&ids).unwrap_or_default();
    for j in &jobs {
        prior.push_str(j);
        prior.push('\n');
    }
    packsmith_exec::atomic_write(&ids, prior.as_bytes())
        .map_err(|e| BenchError::environment(e.to_string()))?;
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_spec_compresses_runs() {
        assert_eq!(array_spec(&[0, 1, 2, 3, 5, 7, 8, 9]), "0-3,5,7-9");
        assert_eq!(array_spec(&[4]), "4");
        assert_eq!(array_spec(&[]), "");
    }

    #[test]
    fn script_has_resources_and_offset() {
        let s = batch_script(
            Path::new("/shared/out"),
            Path::new("/opt/packsmith"),
            &SlurmSettings::default(),
            3600,
            &[1000, 1001, 1005],
            1000,
            Some(4),
        );
        assert!(s.contains("#SBATCH --array=0-1,5%4\n"), "{s}");
        assert!(s.contains("--cpus-per-task=2"));
        assert!(s.contains("--mem=8G"));
        assert!(s.contains("--time=1:10:00"));
        assert!(s.contains("run-one '/shared/out' --index \"$((SLURM_ARRAY_TASK_ID + 1000))\""));
    }
}
