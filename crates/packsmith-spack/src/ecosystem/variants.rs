//! The variant check after success: flip up to five boolean variants one
//! at a time and see which still concretize (or install), as SpackIt's
//! authors did by hand. The result goes into the report.

use std::path::Path;

use crate::ecosystem::Validation;
use crate::validate::{check_variants, prepare_attempt, Attempt, VariantCheckOptions};
use packsmith_spack_knowledge::recipe::parse_recipe;

/// The recipe that passed: attempt `attempt` of the run in `run_dir`,
/// whose overlay the stages left in `prepared` when it still holds it.
pub(super) struct Passed<'a> {
    pub package: &'a str,
    pub recipe_text: &'a str,
    pub run_dir: &'a Path,
    pub attempt: u32,
    pub prepared: Option<Attempt>,
}

/// Runs the check on the recipe that passed and returns its result as
/// report JSON; a check that cannot run is reported, not fatal: the
/// package installed either way.
pub(super) fn check(
    validation: &Validation,
    passed: Passed,
    install: bool,
    say: &mut dyn FnMut(&str),
) -> serde_json::Value {
    let Passed {
        package,
        recipe_text,
        run_dir,
        attempt,
        prepared,
    } = passed;
    say(&format!(
        "variant check: flipping up to five boolean variants ({})",
        if install {
            "concretize and install"
        } else {
            "concretize"
        }
    ));
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
                say(&format!(
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
                ));
            }
            serde_json::to_value(&result)
                .unwrap_or_else(|e| serde_json::json!({"error": e.to_string()}))
        }
        Err(e) => {
            say(&format!(
                "  the variant check could not run: {}",
                e.with_hint()
            ));
            serde_json::json!({"error": e.with_hint()})
        }
    }
}
