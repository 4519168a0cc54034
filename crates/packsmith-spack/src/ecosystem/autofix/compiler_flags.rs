//! Repair of a `compiler_compat` failure: the flags of the matching rules
//! (`diagnose::COMPAT_RULES`) go into a `flag_handler` for the compiler
//! range that needs them. A recipe that already has a `flag_handler` is
//! left to the model, which can merge the flags into it.

use super::lines::{append_method, class_runs_to_end};
use crate::diagnose::{compat_rule, CompatRule};

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
    if rules.is_empty() || text.contains("def flag_handler(") || !class_runs_to_end(text) {
        return None;
    }
    let what = rules
        .iter()
        .map(|r| format!("{} for {} {}", r.flag, r.when, r.flags))
        .collect::<Vec<_>>()
        .join(", ");
    Some((
        append_method(text, &render(&rules)),
        format!("known compiler-compatibility error: added a flag_handler with {what}"),
    ))
}
