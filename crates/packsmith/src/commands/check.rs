//! `packsmith check`: static diagnostics for package.py files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use packsmith_spack_knowledge::check::{
    check, package_name_for, CheckOptions, Diagnostic, Severity,
};
use packsmith_spack_knowledge::generation::infer_generation;
use packsmith_spack_knowledge::kb::{KbError, KnowledgeBase, NameIndex};
use packsmith_spack_knowledge::recipe::{ParsedRecipe, RecipeTree};
use packsmith_spack_knowledge::target::TargetSpack;

use crate::cli::CheckArgs;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::target_arg::spack_version;

/// The recipes named by the arguments: files as given, directories
/// expanded to their `package.py` or every `*/package.py` below them.
fn recipe_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_file() {
            out.push(path.clone());
        } else if path.is_dir() {
            if path.join("package.py").is_file() {
                out.push(path.join("package.py"));
                continue;
            }
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| {
                    CliError::new(
                        Exit::BadInput,
                        format!("cannot read {}: {e}", path.display()),
                    )
                })?
                .filter_map(Result::ok)
                .map(|e| e.path().join("package.py"))
                .filter(|p| p.is_file())
                .collect();
            if found.is_empty() {
                return Err(CliError::new(
                    Exit::BadInput,
                    format!("no package.py in or below {}", path.display()),
                )
                .hint("pass a package.py file or a packages/ directory"));
            }
            found.sort();
            out.extend(found);
        } else {
            return Err(CliError::new(
                Exit::BadInput,
                format!("{} does not exist", path.display()),
            )
            .hint("pass the path of a package.py file"));
        }
    }
    Ok(out)
}

/// The knowledge base's name index (`kb`: a path or label; the most
/// recent when `None`), or none with `no_kb` or when none is indexed.
pub(super) fn names(kb: Option<&str>, no_kb: bool) -> Result<Option<NameIndex>, CliError> {
    if no_kb {
        return Ok(None);
    }
    match KnowledgeBase::select(&cache_dir(), kb) {
        Ok(kb) => kb.names().map(Some).map_err(CliError::from),
        // Without --kb, a missing knowledge base only turns the name rule off.
        Err(KbError::NoneIndexed { .. }) if kb.is_none() => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "note: no knowledge base indexed; dependency names are not checked (run `packsmith kb index <repo>`)"
            );
            Ok(None)
        }
        Err(e) => Err(CliError::from(e)),
    }
}

fn read_text(path: &Path) -> Result<String, CliError> {
    let bytes = std::fs::read(path).map_err(|e| {
        CliError::new(
            Exit::BadInput,
            format!("cannot read {}: {e}", path.display()),
        )
        .hint("check that the file exists and is readable")
    })?;
    String::from_utf8(bytes).map_err(|_| {
        CliError::new(
            Exit::BadInput,
            format!(
                "{} is not UTF-8 text, so it cannot be a package.py",
                path.display()
            ),
        )
        .hint("pass a Spack recipe (Python source)")
    })
}

/// The generation a recipe is checked for: `--spack-version`, else what its
/// repository or imports say, else Spack 1.x. Counts the inferred ones.
fn generation_for(
    chosen: Option<TargetSpack>,
    file: &Path,
    recipe: &ParsedRecipe,
    inferred: &mut BTreeMap<(&'static str, &'static str), usize>,
) -> TargetSpack {
    if let Some(target) = chosen {
        return target;
    }
    match infer_generation(file, recipe) {
        Some(found) => {
            let label = match found.target {
                TargetSpack::V0_23 => "0.23",
                TargetSpack::V1 => "1.x",
            };
            *inferred.entry((label, found.from)).or_default() += 1;
            found.target
        }
        None => TargetSpack::V1,
    }
}

pub fn run(args: &CheckArgs) -> Result<Exit, CliError> {
    let chosen = args
        .spack_version
        .as_deref()
        .map(spack_version)
        .transpose()?;
    let mut inferred = BTreeMap::new();
    let files = recipe_files(&args.paths)?;
    let names = names(args.kb.as_deref(), args.no_kb)?;
    let mut reports: Vec<(String, Vec<Diagnostic>)> = Vec::new();
    let mut check_time = Duration::ZERO;
    let total = Instant::now();
    let single = files.len() == 1;
    let mut unreadable = 0;
    for file in &files {
        let text = match read_text(file) {
            Ok(t) => t,
            Err(e) if single => return Err(e),
            Err(e) => {
                unreadable += 1;
                let _ = writeln!(std::io::stderr().lock(), "error: {}", e.message);
                continue;
            }
        };
        let package = args.name.clone().or_else(|| package_name_for(file));
        // Timed from the parse: the one parse serves the generation and the check.
        let start = Instant::now();
        let tree = RecipeTree::parse(&text, &file.display().to_string());
        let opts = CheckOptions {
            spack: generation_for(chosen, file, tree.recipe(), &mut inferred),
            names: names.as_ref(),
            package: package.as_deref(),
        };
        let diags = check(&tree, &opts);
        check_time += start.elapsed();
        reports.push((file.display().to_string(), diags));
    }
    let total = total.elapsed();
    let mut by_code: BTreeMap<(Severity, String), usize> = BTreeMap::new();
    for d in reports.iter().flat_map(|(_, d)| d) {
        *by_code
            .entry((d.severity, format!("{} {}", d.code, d.code.slug())))
            .or_default() += 1;
    }
    let errors: usize = by_code
        .iter()
        .filter(|((s, _), _)| *s == Severity::Error)
        .map(|(_, n)| n)
        .sum::<usize>()
        + unreadable;
    let warnings: usize = by_code
        .iter()
        .filter(|((s, _), _)| *s == Severity::Warning)
        .map(|(_, n)| n)
        .sum();
    // Say which recipes were checked as 0.23 without being told, so a
    // surprising PS101 (or its absence) can be traced and overridden.
    for ((label, from), n) in &inferred {
        let _ = writeln!(
            std::io::stderr().lock(),
            "note: {n} recipe(s) checked as Spack {label}, from {from}; --spack-version overrides"
        );
    }
    let mut out = std::io::stdout().lock();
    if args.json && !args.summary {
        let value: Vec<serde_json::Value> = reports
            .iter()
            .map(|(f, d)| serde_json::json!({"file": f, "diagnostics": d}))
            .collect();
        let text = serde_json::to_string_pretty(&value)
            .map_err(|e| CliError::new(Exit::Failure, format!("could not encode JSON: {e}")))?;
        let _ = writeln!(out, "{text}");
    } else if !args.summary {
        for (file, diags) in &reports {
            for d in diags {
                let _ = writeln!(out, "{}", d.render(file));
            }
        }
    }
    if args.summary || files.len() > 1 {
        let n = reports.len().max(1);
        let codes: Vec<String> = by_code
            .iter()
            .map(|((_, c), n)| format!("{c}: {n}"))
            .collect();
        let _ = writeln!(
            out,
            "checked {} recipes: {errors} errors, {warnings} warnings{}{}\ntime: {:.0} ms total, {:.3} ms per recipe in the check ({:.3} ms with reading)",
            reports.len(),
            if codes.is_empty() { String::new() } else { format!(" ({})", codes.join(", ")) },
            if unreadable > 0 { format!(", {unreadable} unreadable") } else { String::new() },
            total.as_secs_f64() * 1e3,
            check_time.as_secs_f64() * 1e3 / n as f64,
            total.as_secs_f64() * 1e3 / n as f64,
        );
    }
    Ok(if errors > 0 {
        Exit::Failure
    } else {
        Exit::Success
    })
}
