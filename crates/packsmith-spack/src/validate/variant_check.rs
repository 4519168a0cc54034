//! The variant check: after a recipe passed, flip each of its boolean
//! variants (up to [`MAX_VARIANT_FLIPS`]) from its default, one at a time,
//! and concretize (optionally install) `<name>+v` / `<name>~v` in the same
//! overlay repo and sandbox. A recipe whose default works but whose
//! `+cuda` names a dependency that does not exist is caught here, which a
//! single install of the defaults never sees.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{run_stage_spec, Attempt, Sandbox, SpackSetup, Stage, StageOptions, ValidateError};
use crate::diagnose::{diagnose_outcome, FailureClass};
use packsmith_spack_knowledge::recipe::{ParsedRecipe, Value, VariantValues};

/// Most variants flipped by default (each costs a concretization).
pub const MAX_VARIANT_FLIPS: usize = 5;
/// Lines of the failure excerpt kept in the result.
const EXCERPT_LINES: usize = 12;

/// One variant to try with its non-default value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantFlip {
    pub variant: String,
    pub default: bool,
}

impl VariantFlip {
    /// The value tried: the opposite of the default.
    pub fn tried(&self) -> bool {
        !self.default
    }

    /// `demo+mpi` or `demo~mpi`.
    pub fn spec(&self, package: &str) -> String {
        let sigil = if self.tried() { '+' } else { '~' };
        format!("{package}{sigil}{}", self.variant)
    }
}

/// A variant the check leaves alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantSkip {
    pub variant: String,
    pub why: String,
}

/// The boolean variants to flip, in the recipe's order, at most `max`;
/// the others with the reason they are left out. A variant declared more
/// than once or under `when=` is skipped: whether its flip is even allowed
/// depends on a condition the check does not set.
pub fn pick_variants(recipe: &ParsedRecipe, max: usize) -> (Vec<VariantFlip>, Vec<VariantSkip>) {
    let mut picked: Vec<VariantFlip> = Vec::new();
    let mut skipped: Vec<VariantSkip> = Vec::new();
    let declarations = |name: &str| recipe.variants.iter().filter(|v| v.name == name).count();
    for v in &recipe.variants {
        let name = v.name.as_str();
        let seen =
            picked.iter().any(|p| p.variant == name) || skipped.iter().any(|s| s.variant == name);
        if seen {
            continue;
        }
        let boolean_values = match &v.values {
            None => true,
            Some(VariantValues::Items(items)) => {
                items.len() == 2 && items.iter().all(|i| matches!(i, Value::Bool(_)))
            }
            Some(VariantValues::Expr(_)) => false,
        };
        let why = match &v.default {
            _ if declarations(name) > 1 => "declared more than once",
            Some(Value::Bool(_)) if !boolean_values => "not a boolean variant",
            Some(Value::Bool(_)) if v.when.is_some() => "conditional (when=)",
            Some(Value::Bool(default)) => {
                picked.push(VariantFlip {
                    variant: name.to_string(),
                    default: *default,
                });
                continue;
            }
            _ => "not a boolean variant with a literal default",
        };
        skipped.push(VariantSkip {
            variant: name.to_string(),
            why: why.to_string(),
        });
    }
    for extra in picked.split_off(max.min(picked.len())) {
        skipped.push(VariantSkip {
            variant: extra.variant,
            why: format!("beyond the first {max}"),
        });
    }
    (picked, skipped)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantCheckOptions {
    pub max_variants: usize,
    /// Install each flipped spec too (`--variant-install`), not only
    /// concretize it.
    pub install: bool,
    pub stages: StageOptions,
}

impl Default for VariantCheckOptions {
    fn default() -> Self {
        Self {
            max_variants: MAX_VARIANT_FLIPS,
            install: false,
            stages: StageOptions::default(),
        }
    }
}

/// What one flip did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantResult {
    pub variant: String,
    pub default: bool,
    /// The value tried.
    pub value: bool,
    /// The spec asked for (`demo~shared`).
    pub spec: String,
    /// The last stage run (concretize, or install when it got there).
    pub stage: Stage,
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureClass>,
    /// One line, then the decisive lines of the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
    #[serde(with = "secs")]
    pub duration: Duration,
    /// Directory of this flip's stage logs.
    pub logs: PathBuf,
}

/// The check of one recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantCheck {
    pub package: String,
    pub results: Vec<VariantResult>,
    pub skipped: Vec<VariantSkip>,
    #[serde(with = "secs")]
    pub duration: Duration,
}

impl VariantCheck {
    /// The flips that failed.
    pub fn failed(&self) -> impl Iterator<Item = &VariantResult> {
        self.results.iter().filter(|r| !r.passed)
    }
}

mod secs {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64((d.as_secs_f64() * 1000.0).round() / 1000.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v = f64::deserialize(d)?;
        Ok(Duration::from_secs_f64(v.max(0.0)))
    }
}

/// Flips the boolean variants of `recipe` (the recipe that passed in
/// `attempt`) one at a time. Logs go to
/// `<attempt>/variants/<variant>-<on|off>/<stage>.log`. A flip that fails
/// is a result, not an error; errors are for the machinery (a log that
/// cannot be written, Spack that cannot start).
pub fn check_variants(
    setup: &SpackSetup,
    sandbox: &Sandbox,
    attempt: &Attempt,
    recipe: &ParsedRecipe,
    options: &VariantCheckOptions,
) -> Result<VariantCheck, ValidateError> {
    let start = Instant::now();
    let (flips, skipped) = pick_variants(recipe, options.max_variants);
    let mut results = Vec::with_capacity(flips.len());
    for flip in flips {
        let spec = flip.spec(&attempt.package);
        let logs = attempt.dir.join("variants").join(format!(
            "{}-{}",
            flip.variant,
            if flip.tried() { "on" } else { "off" }
        ));
        std::fs::create_dir_all(&logs).map_err(|e| ValidateError::io("create", &logs, e))?;
        let scoped = Attempt {
            logs: logs.clone(),
            ..attempt.clone()
        };
        let stages: &[Stage] = if options.install {
            &[Stage::Concretize, Stage::Install]
        } else {
            &[Stage::Concretize]
        };
        let t = Instant::now();
        let mut last = None;
        for &stage in stages {
            let outcome = run_stage_spec(setup, sandbox, &scoped, stage, &spec, &options.stages)?;
            let passed = outcome.passed;
            last = Some(outcome);
            if !passed {
                break;
            }
        }
        let Some(outcome) = last else {
            continue;
        };
        let diagnosis = diagnose_outcome(&outcome)
            .map_err(|e| ValidateError::io("read", &outcome.log_path, e))?;
        results.push(VariantResult {
            variant: flip.variant.clone(),
            default: flip.default,
            value: flip.tried(),
            spec,
            stage: outcome.stage,
            passed: outcome.passed,
            failure: diagnosis.as_ref().map(|d| d.class),
            summary: diagnosis.as_ref().map(|d| d.summary.clone()),
            excerpt: diagnosis.as_ref().map(|d| {
                d.excerpt
                    .lines()
                    .take(EXCERPT_LINES)
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            duration: t.elapsed(),
            logs,
        });
    }
    Ok(VariantCheck {
        package: attempt.package.clone(),
        results,
        skipped,
        duration: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_spack_knowledge::recipe::parse_recipe;

    fn recipe(variants: &str) -> ParsedRecipe {
        parse_recipe(
            &format!(
                "from spack.package import *\n\n\nclass Demo(CMakePackage):\n    \"\"\"Demo.\"\"\"\n\n{variants}"
            ),
            "package.py",
        )
    }

    fn names(flips: &[VariantFlip]) -> Vec<(&str, bool)> {
        flips
            .iter()
            .map(|f| (f.variant.as_str(), f.tried()))
            .collect()
    }

    #[test]
    fn only_literal_boolean_variants_are_flipped_in_recipe_order() {
        let r = recipe(
            r#"    variant("shared", default=True, description="shared")
    variant("build_type", default="Release", values=("Debug", "Release"), description="x")
    variant("mpi", default=False, description="MPI")
    variant("fancy", default=sys.platform != "darwin", description="expr")
    variant("docs", default=False, values=(True, False), description="docs")
    variant("gpu", default=False, when="@2:", description="conditional")
    variant("levels", default="1", values=("1", "2"), multi=True, description="multi")
"#,
        );
        let (flips, skipped) = pick_variants(&r, MAX_VARIANT_FLIPS);
        assert_eq!(
            names(&flips),
            vec![("shared", false), ("mpi", true), ("docs", true)]
        );
        assert_eq!(flips[0].spec("demo"), "demo~shared");
        assert_eq!(flips[1].spec("demo"), "demo+mpi");
        let skipped: Vec<&str> = skipped.iter().map(|s| s.variant.as_str()).collect();
        assert_eq!(skipped, vec!["build_type", "fancy", "gpu", "levels"]);
    }

    #[test]
    fn at_most_max_are_flipped_and_the_rest_are_reported() {
        let many: String = (0..8)
            .map(|i| {
                format!(
                    "    variant(\"v{i}\", default={}, description=\"v\")\n",
                    if i % 2 == 0 { "True" } else { "False" }
                )
            })
            .collect();
        let r = recipe(&many);
        let (flips, skipped) = pick_variants(&r, MAX_VARIANT_FLIPS);
        let got: Vec<&str> = flips.iter().map(|f| f.variant.as_str()).collect();
        assert_eq!(got, vec!["v0", "v1", "v2", "v3", "v4"]);
        assert_eq!(skipped.len(), 3);
        assert!(skipped.iter().all(|s| s.why == "beyond the first 5"));
        // The same recipe always gives the same flips.
        assert_eq!(pick_variants(&r, MAX_VARIANT_FLIPS).0, flips);
        assert_eq!(pick_variants(&r, 2).0.len(), 2);
    }

    #[test]
    fn variants_declared_twice_are_skipped() {
        let r = recipe(
            r#"    variant("openmp", default=False, description="a")
    variant("shared", default=True, description="b")
    variant("openmp", default=True, description="again")
"#,
        );
        let (flips, skipped) = pick_variants(&r, MAX_VARIANT_FLIPS);
        assert_eq!(names(&flips), vec![("shared", false)]);
        assert_eq!(skipped[0].variant, "openmp");
        assert_eq!(skipped[0].why, "declared more than once");
    }
}
