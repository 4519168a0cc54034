//! Parse every recipe under the given package directories and report.
//!
//! ```text
//! cargo run --release -p packsmith-spack-knowledge --example read_all -- DIR [DIR...]
//! cargo run -p packsmith-spack-knowledge --example read_all -- --show FILE
//! ```
//! DIR is a `packages/` directory (each recipe at `DIR/<name>/package.py`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use packsmith_spack_knowledge::recipe::{parse_recipe, read_recipe, SpackGeneration};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--show") {
        for file in &args[1..] {
            match read_recipe(Path::new(file)) {
                Ok(r) => println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default()),
                Err(e) => eprintln!("{e}"),
            }
        }
        return;
    }
    for dir in &args {
        report(Path::new(dir));
    }
}

fn recipes(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path().join("package.py"))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn report(dir: &Path) {
    let files = recipes(dir);
    let texts: Vec<(PathBuf, String)> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok().map(|t| (p.clone(), t)))
        .collect();
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    let mut total = Duration::ZERO;
    let mut slowest = (Duration::ZERO, String::new());
    let (mut errors, mut no_class, mut no_versions) = (Vec::new(), Vec::new(), Vec::new());
    let (mut v0, mut v1, mut unknown) = (0, 0, 0);
    let (mut deps, mut variants, mut versions, mut keys, mut others) = (0, 0, 0, 0, 0);
    let mut other_names = std::collections::BTreeMap::<String, usize>::new();
    let cpu_start = cpu_seconds();
    for (path, text) in &texts {
        let start = Instant::now();
        let r = parse_recipe(text, &path.display().to_string());
        let took = start.elapsed();
        total += took;
        if took > slowest.0 {
            slowest = (took, r.path.clone());
        }
        match r.generation {
            SpackGeneration::V0 => v0 += 1,
            SpackGeneration::V1 => v1 += 1,
            SpackGeneration::Unknown => unknown += 1,
        }
        if !r.syntax_errors.is_empty() {
            errors.push((r.path.clone(), r.syntax_errors.clone()));
        }
        if !r.is_spack_recipe() {
            no_class.push(r.path.clone());
        } else if r.versions.is_empty() {
            no_versions.push(r.path.clone());
        }
        deps += r.dependencies.len();
        variants += r.variants.len();
        versions += r.versions.len();
        keys += r.define_keys.len();
        others += r.other_directives.len();
        for o in &r.other_directives {
            *other_names.entry(o.name.clone()).or_default() += 1;
        }
    }
    let cpu = cpu_seconds() - cpu_start;
    let n = texts.len().max(1);
    println!("== {}", dir.display());
    println!(
        "recipes: {} ({} unreadable), {:.1} MiB; generation v0={v0} v1={v1} unknown={unknown}",
        texts.len(),
        files.len() - texts.len(),
        bytes as f64 / 1048576.0
    );
    println!(
        "parse: total {:.3} s, mean {:.1} µs/recipe, slowest {:.1} ms ({})",
        total.as_secs_f64(),
        total.as_secs_f64() * 1e6 / n as f64,
        slowest.0.as_secs_f64() * 1e3,
        slowest.1
    );
    println!(
        "cpu: {:.3} s, {:.1} µs/recipe (wall time above includes waiting for a shared CPU)",
        cpu,
        cpu * 1e6 / n as f64
    );
    println!(
        "items: versions {versions}, variants {variants}, dependencies {deps}, define keys {keys}, other directives {others}"
    );
    println!("other directive names: {other_names:?}");
    println!("with syntax errors: {}", errors.len());
    for (p, errs) in &errors {
        for e in errs.iter().take(3) {
            println!("  {p}:{}:{}: {}", e.line, e.col, e.message);
        }
    }
    println!("no package class: {}", no_class.len());
    for p in &no_class {
        println!("  {p}");
    }
    println!("no versions: {}", no_versions.len());
    for p in no_versions.iter().take(40) {
        println!("  {p}");
    }
}

/// User+system CPU seconds of this process (Linux `/proc`), 0 elsewhere.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|i| fields.get(*i).and_then(|f| f.parse::<f64>().ok()))
        .sum();
    ticks / 100.0
}
