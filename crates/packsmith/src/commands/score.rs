//! `packsmith score GENERATED REFERENCE`.

use std::io::Write;
use std::path::Path;

use packsmith_spack_knowledge::generation::infer_generation;
use packsmith_spack_knowledge::recipe::{read_recipe, ParsedRecipe};
use packsmith_spack_knowledge::score::{score, ScoreOptions, ScoreRecipe, SpackRelease};
use packsmith_spack_knowledge::target::TargetSpack;

use crate::cli::ScoreArgs;
use crate::exit::{CliError, Exit};
use crate::target_arg::spack_version;

fn load(path: &Path) -> Result<ParsedRecipe, CliError> {
    let recipe = read_recipe(path)?;
    if !recipe.is_spack_recipe() {
        return Err(CliError::new(
            Exit::BadInput,
            format!(
                "{} is not a Spack recipe: no package class found",
                path.display()
            ),
        )
        .hint("pass a package.py with `class Name(SomePackage):`"));
    }
    Ok(recipe)
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("n/a".to_string(), |x| format!("{x:.3}"))
}

pub fn run(args: &ScoreArgs) -> Result<Exit, CliError> {
    let generated = load(&args.generated)?;
    let reference = load(&args.reference)?;
    // The reference decides (it comes from a real repository), then the
    // generated recipe, then Spack 1.x.
    let target = match args.spack_version.as_deref() {
        Some(text) => spack_version(text)?,
        None => infer_generation(&args.reference, &reference)
            .or_else(|| infer_generation(&args.generated, &generated))
            .map_or(TargetSpack::V1, |found| found.target),
    };
    let release = match target {
        TargetSpack::V0_23 => SpackRelease::V0_23,
        TargetSpack::V1 => SpackRelease::V1,
    };
    let generated = ScoreRecipe::from_recipe(&generated);
    let reference = ScoreRecipe::from_recipe(&reference);
    let s = score(&reference, &generated, ScoreOptions { release });
    let mut out = std::io::stdout().lock();
    if args.json {
        let text = serde_json::to_string_pretty(&s)
            .map_err(|e| CliError::new(Exit::Failure, format!("could not encode JSON: {e}")))?;
        let _ = writeln!(out, "{text}");
        return Ok(Exit::Success);
    }
    let mut t = format!(
        "S_d {}   (semantic {})   dependency precision {}\nS_v {}   key precision {}   extra keys {}\n",
        fmt(s.s_d),
        fmt(s.s_d_semantic),
        fmt(s.dep_precision),
        fmt(s.s_v),
        fmt(s.key_precision),
        s.key_extras
    );
    for m in &s.deps.matched {
        t.push_str(&format!(
            "matched  {}  ~  {}  ({:.2})\n",
            m.reference, m.generated, m.score
        ));
    }
    for d in &s.deps.missing {
        t.push_str(&format!("missing  {d}\n"));
    }
    for d in &s.deps.extra {
        t.push_str(&format!("extra    {d}\n"));
    }
    t.push_str(&format!(
        "keys matched [{}] missing [{}] extra [{}]\n",
        s.keys.matched.join(", "),
        s.keys.missing.join(", "),
        s.keys.extra.join(", ")
    ));
    let f = &s.fidelity;
    t.push_str(&format!(
        "link/run dependencies: recall {}  precision {}  missing [{}] extra [{}]\n\
         test-only dependencies: human [{}] generated [{}]\n\
         variants: recall {}  missing [{}] extra [{}]",
        fmt(f.dep_recall),
        fmt(f.dep_precision),
        f.deps_missing.join(", "),
        f.deps_extra.join(", "),
        f.test_deps_reference.join(", "),
        f.test_deps_generated.join(", "),
        fmt(f.variant_recall),
        f.variants_missing.join(", "),
        f.variants_extra.join(", ")
    ));
    let _ = writeln!(out, "{t}");
    Ok(Exit::Success)
}
