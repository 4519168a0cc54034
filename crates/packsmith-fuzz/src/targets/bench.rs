//! The task and configuration readers: bench task files (JSON Lines),
//! bench configurations (TOML matrices), the model configuration
//! (`packsmith.toml`).

use super::{put, signature, text};
use crate::harness::Target;
use crate::mutate::Grammar;
use crate::seeds;
use packsmith_bench::config::BenchConfig;
use packsmith_bench::task::TaskFile;

pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "bench-tasks",
            readers: "task::TaskFile::parse (JSON Lines task sets)",
            grammar: Grammar {
                dict: &[
                    "{\"name\": \"x\", \"spack_dir\": \"x\", \"version\": \"1.0\"}\n",
                    "{\"attr_path\": \"hello\", \"version\": null}\n",
                    "\"version\": null",
                    "\"installable_here\": true",
                    "\"source\": \"../x\"",
                    "\"\\ud800\"",
                    "1e400",
                    "\n",
                ],
                open: "[",
                close: "]",
            },
            seeds: |root| {
                let mut s = seeds::files(root, |p| p.ends_with(".jsonl"));
                // One line each: a task line is what the reader reads.
                let lines: Vec<Vec<u8>> = s
                    .iter()
                    .flat_map(|f| f.split(|b| *b == b'\n').take(8).map(<[u8]>::to_vec))
                    .collect();
                s.extend(lines);
                s
            },
            run: |_, input| {
                let file = TaskFile::parse(&text(input), "fuzz.jsonl");
                let report = file.invalid_report();
                let tasks = file.into_tasks(true).map(|t| t.len());
                signature((report.len(), tasks.is_ok()))
            },
        },
        Target {
            name: "bench-config",
            readers: "config::BenchConfig::parse (configurations, matrices, baselines)",
            grammar: Grammar {
                dict: &[
                    "[[configuration]]\nname = \"a\"\nbaseline = \"zero-shot\"\n",
                    "[matrix]\nmodel = [\"a\", \"b\", \"c\", \"d\"]\nmax_attempts = [1, 2, 3, 4]\n",
                    "tools = [true, false]\n",
                    "timeout_secs = 18446744073709551615\n",
                    "[cache]\nmode = \"replay\"\n",
                    "[slurm]\n",
                    "knobs = { max_attempts = -1 }\n",
                ],
                open: "[",
                close: "]",
            },
            seeds: config_seeds,
            run: |_, input| {
                let parsed = BenchConfig::parse(&text(input), "fuzz.toml");
                match parsed {
                    Ok(c) => signature((c.configurations.len(), c.fingerprint().len())),
                    Err(e) => signature(e.to_string().len() / 8),
                }
            },
        },
        Target {
            name: "llm-config",
            readers: "packsmith-llm Config::load_with (packsmith.toml [llm])",
            grammar: Grammar {
                dict: &[
                    "[llm]\n",
                    "provider = \"openai\"\n",
                    "model = \"gpt-x\"\n",
                    "base_url = \"http://127.0.0.1:1/v1\"\n",
                    "cache = \"replay\"\n",
                    "max_retries = 4294967296\n",
                    "[llm.budget]\nmax_usd = -1.0\n",
                    "timeout_secs = 1e308\n",
                    "api_key_env = \"\"\n",
                ],
                open: "[",
                close: "]",
            },
            seeds: config_seeds,
            run: |s, input| {
                let path = s.dir.path().join("packsmith.toml");
                put(s.dir.path(), "packsmith.toml", input);
                let loaded = packsmith_llm::Config::load_with(None, Some(&path), &|_| None);
                match loaded {
                    Ok(c) => signature(format!("{c:?}").len() / 16),
                    Err(e) => signature(e.to_string().len() / 8),
                }
            },
        },
    ]
}

/// The repository's own TOML configurations (bench matrices, examples).
fn config_seeds(root: &std::path::Path) -> Vec<Vec<u8>> {
    seeds::files(root, |p| {
        (p.starts_with("bench/") || p.starts_with("examples/") || p.contains("/tests/"))
            && p.ends_with(".toml")
    })
}
