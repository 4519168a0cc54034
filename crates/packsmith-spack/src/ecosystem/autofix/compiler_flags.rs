//! Repair of a `compiler_compat` failure: the flags of the matching rules
//! (`diagnose::COMPAT_RULES`) go into a `flag_handler` for the compiler
//! range that needs them. A recipe's own `flag_handler` takes them before
//! its `return (flags, …)`; one of another shape is left to the model.

use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::recipe::parse_recipe;

use crate::diagnose::{compat_rule, CompatRule};
use crate::ecosystem::RECIPE_FILE;

/// `flag_handler` with one branch per rule.
fn render(rules: &[&CompatRule]) -> Vec<String> {
    let mut out = vec!["    def flag_handler(self, name, flags):".to_string()];
    for r in rules {
        out.push(format!("        # {}", r.why));
        out.push(format!(
            "        if name == \"{}\" and self.spec.satisfies(\"{}\"):",
            r.flags, r.when
        ));
        out.push(format!("            flags.append(\"{}\")", r.flag));
    }
    out.push("        return (flags, None, None)".into());
    out
}

/// Adds the flags of the rules named `ids`, as (recipe text, what changed).
pub fn add_compat_flags(text: &str, ids: &[String]) -> Option<(String, String)> {
    let rules: Vec<&CompatRule> = ids
        .iter()
        .filter_map(|id| compat_rule(id))
        .filter(|r| !text.contains(r.flag))
        .collect();
    if rules.is_empty() {
        return None;
    }
    let what = rules
        .iter()
        .map(|r| format!("{} for {} {}", r.flag, r.when, r.flags))
        .collect::<Vec<_>>()
        .join(", ");
    // A handler the recipe has (one an earlier rule wrote) takes the new
    // tests before its `return (flags, …)`; any other shape is refused by
    // the edit and left to the model.
    let merged = parse_recipe(text, RECIPE_FILE).has_method("flag_handler");
    let edits: Vec<EditOp> = if merged {
        rules
            .iter()
            .map(|r| EditOp::AddCompilerFlag {
                flag: r.flag.into(),
                flags: r.flags.into(),
                when: r.when.into(),
            })
            .collect()
    } else {
        vec![EditOp::AddMethod {
            text: render(&rules).join("\n"),
        }]
    };
    Some((
        apply_edits(text, &edits).ok()?,
        if merged {
            format!("known compiler-compatibility error: added {what} to the recipe's flag_handler")
        } else {
            format!("known compiler-compatibility error: added a flag_handler with {what}")
        },
    ))
}
