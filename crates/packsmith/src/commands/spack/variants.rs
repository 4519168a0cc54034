//! The variant check after success: flip up to five boolean variants one
//! at a time and see which still concretize (or install), as SpackIt's
//! authors did by hand. The result goes into the report.

use std::io::Write;
use std::path::Path;

use packsmith_spack::ecosystem::Validation;
use packsmith_spack::validate::{check_variants, prepare_attempt, Attempt, VariantCheckOptions};
use packsmith_spack_knowledge::recipe::parse_recipe;

/// Runs the check on the recipe that passed (attempt `attempt`, whose
/// overlay the stages left in `prepared` when it still holds the recipe)
/// and returns its result as report JSON; a check that cannot run is
/// reported, not fatal: the package installed either way.
pub fn check(
    validation: &Validation,
    package: &str,
    recipe_text: &str,
    run_dir: &Path,
    attempt: u32,
    prepared: Option<Attempt>,
    install: bool,
) -> serde_json::Value {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "variant check: flipping up to five boolean variants ({})",
        if install {
            "concretize and install"
        } else {
            "concretize"
        }
    );
    let prepared = match prepared {
        Some(a) => Ok(a),
        None => prepare_attempt(
            run_dir,
            package,
            attempt,
            package,
            recipe_text,
            validation.mirror.as_deref(),
        ),
    };
    let attempt = match prepared {
        Ok(a) => a,
        Err(e) => return serde_json::json!({"error": e.with_hint()}),
    };
    let recipe = parse_recipe(recipe_text, "package.py");
    let options = VariantCheckOptions {
        install,
        stages: validation.options.clone(),
        ..VariantCheckOptions::default()
    };
    match check_variants(
        &validation.setup,
        &validation.sandbox,
        &attempt,
        &recipe,
        &options,
    ) {
        Ok(result) => {
            for r in &result.results {
                let _ = writeln!(
                    err,
                    "  {:<28} {}",
                    r.spec,
                    if r.passed {
                        "ok".to_string()
                    } else {
                        format!(
                            "FAILED at {} ({})",
                            r.stage,
                            r.failure
                                .map(|c| format!("{c:?}").to_ascii_lowercase())
                                .unwrap_or_else(|| "unknown".into())
                        )
                    }
                );
            }
            serde_json::to_value(&result)
                .unwrap_or_else(|e| serde_json::json!({"error": e.to_string()}))
        }
        Err(e) => {
            let _ = writeln!(err, "  the variant check could not run: {}", e.with_hint());
            serde_json::json!({"error": e.with_hint()})
        }
    }
}
