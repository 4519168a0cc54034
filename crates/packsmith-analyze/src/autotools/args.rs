//! `AC_ARG_ENABLE` / `AC_ARG_WITH`: the options a recipe turns into variants.

use super::conditions::Conditions;
use super::m4::{unquote, Call};
use crate::context::Ctx;
use crate::support::hints::feature_for_dependency;
use packsmith_core::{AutotoolsArg, AutotoolsFacts, Evidence, FeatureHint, FeatureKind};
use regex::Regex;
use std::sync::LazyLock;

static HELP_DEFAULT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\bdefaults?(?:\s+value)?\s*(?:[:=]|\s(?:is|to)\b)\s*[\["'(]?\s*([A-Za-z0-9_./+-]+)"#,
    )
    .ok()
});

pub fn read_args(
    ctx: &mut Ctx<'_>,
    calls: &[Call],
    ev: &dyn Fn(usize) -> Evidence,
    facts: &mut AutotoolsFacts,
) {
    let conds = Conditions::new(calls);
    for call in calls {
        let kind = match call.name.as_str() {
            "AC_ARG_ENABLE" => "enable",
            "AC_ARG_WITH" => "with",
            _ => continue,
        };
        let name = call.arg(0);
        if name.is_empty() {
            continue;
        }
        let help = help_text(call);
        let default = default_from_help(&help)
            .or_else(|| default_from_action(kind, &name, &call.arg(3)))
            .or_else(|| default_from_flag(kind, &help));
        let evidence = ev(call.offset);
        if let Some(feature) = feature_of_option(&name) {
            super::add_feature(
                ctx,
                FeatureHint {
                    feature,
                    detail: format!("--{kind}-{name}"),
                    conditions: conds.of(call.offset),
                    evidence: evidence.clone(),
                },
            );
        }
        facts.args.push(AutotoolsArg {
            kind: kind.to_string(),
            name,
            help,
            default,
            evidence,
        });
    }
}

/// The help as a user sees it: AS_HELP_STRING's two parts joined.
fn help_text(call: &Call) -> String {
    let raw = strip_outer_quotes(call.raw(1));
    let trimmed = raw.trim_start();
    let inner = ["AS_HELP_STRING(", "AC_HELP_STRING("]
        .iter()
        .find_map(|p| trimmed.strip_prefix(p));
    let text = match inner {
        Some(rest) => {
            // The nested call's own arguments, re-scanned.
            let nested = super::m4::scan(&format!("X({rest}"));
            nested
                .first()
                .map(|c| {
                    c.args
                        .iter()
                        .take(2)
                        .map(|a| a.value())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default()
        }
        None => unquote(raw),
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `[text]` → `text` when one quote pair wraps the whole argument.
fn strip_outer_quotes(raw: &str) -> &str {
    let Some(inner) = raw.strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
        return raw;
    };
    let mut depth = 0i32;
    for c in inner.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return raw; // `[a] [b]`: not one pair
        }
    }
    inner
}

/// `[default=yes]`, `(default: no)`, `default is auto`.
fn default_from_help(help: &str) -> Option<String> {
    let re = HELP_DEFAULT.as_ref()?;
    let cap = re.captures(help)?;
    let v = cap.get(1)?.as_str().trim_end_matches(['.', ')', ']']);
    (!v.is_empty()).then(|| v.to_string())
}

/// `enable_foo=no` in the action-if-not-given.
fn default_from_action(kind: &str, name: &str, action: &str) -> Option<String> {
    let var = format!("{kind}_{}", name.replace(['-', '.'], "_"));
    let pos = action.find(&format!("{var}="))?;
    let rest = &action[pos + var.len() + 1..];
    let v: String = rest
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        .collect();
    Some(if v.is_empty() { "\"\"".to_string() } else { v })
}

/// `--disable-foo` in the help means the feature is on unless disabled.
fn default_from_flag(kind: &str, help: &str) -> Option<String> {
    let first = help.split_whitespace().next()?;
    match (kind, first) {
        ("enable", f) if f.starts_with("--disable-") => Some("yes".into()),
        ("with", f) if f.starts_with("--without-") => Some("yes".into()),
        _ => None,
    }
}

fn feature_of_option(name: &str) -> Option<FeatureKind> {
    match name.to_ascii_lowercase().as_str() {
        "openmp" | "omp" => Some(FeatureKind::Openmp),
        "rocm" | "hip" => Some(FeatureKind::Hip),
        n => feature_for_dependency(n).filter(|f| *f != FeatureKind::Python || n == "python"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        assert_eq!(
            default_from_help("--enable-x use x [default=yes]").as_deref(),
            Some("yes")
        );
        assert_eq!(
            default_from_help("build docs (default: no)").as_deref(),
            Some("no")
        );
        assert_eq!(
            default_from_help("Defaults to auto.").as_deref(),
            Some("auto")
        );
        assert_eq!(default_from_help("no default stated here").as_deref(), None);
        assert_eq!(
            default_from_action("with", "hdf5", "[with_hdf5=check]").as_deref(),
            Some("check")
        );
        assert_eq!(
            default_from_flag("enable", "--disable-shared no libs").as_deref(),
            Some("yes")
        );
    }
}
