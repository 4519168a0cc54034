//! Repair of a `compiler_compat` failure: the flags of the matching rules
//! (`diagnose::COMPAT_RULES`) go into a `flag_handler` for the compiler
//! range that needs them. A recipe that already has a `flag_handler` is
//! left to the model, which can merge the flags into it.

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
    if rules.is_empty() || parse_recipe(text, RECIPE_FILE).has_method("flag_handler") {
        return None;
    }
    let what = rules
        .iter()
        .map(|r| format!("{} for {} {}", r.flag, r.when, r.flags))
        .collect::<Vec<_>>()
        .join(", ");
    let edit = EditOp::AddMethod {
        text: render(&rules).join("\n"),
    };
    Some((
        apply_edits(text, &[edit]).ok()?,
        format!("known compiler-compatibility error: added a flag_handler with {what}"),
    ))
}
