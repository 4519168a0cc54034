//! `AC_INIT` and the version it declares, following simple `m4_define`s.

use super::m4::{unquote, Call};
use crate::context::Ctx;
use crate::support::lines::LineIndex;
use packsmith_core::{AutotoolsFacts, Evidence};
use std::collections::HashMap;

pub fn read_init(
    ctx: &mut Ctx<'_>,
    file: &str,
    lines: &LineIndex,
    calls: &[Call],
    facts: &mut AutotoolsFacts,
) {
    let defines = literal_defines(calls);
    let Some(init) = calls.iter().find(|c| c.name == "AC_INIT") else {
        ctx.warn(file, 0, "no AC_INIT found");
        return;
    };
    let line = lines.line(init.offset);
    facts.init_evidence = Some(Evidence::new(file, line));
    let field = |i: usize| {
        let v = init.arg(i);
        (!v.is_empty()).then_some(v)
    };
    facts.package = field(0).map(|v| expand(&v, &defines).unwrap_or(v));
    facts.bug_report = field(2);
    facts.url = field(4);
    let Some(version) = field(1) else {
        return;
    };
    if is_literal(&version) {
        facts.version = Some(version);
    } else if let Some(expanded) = expand(&version, &defines) {
        ctx.warn(
            file,
            line,
            format!("AC_INIT version `{version}` expanded from m4_define to `{expanded}`"),
        );
        facts.version = Some(expanded);
    } else {
        facts.version_is_literal = false;
        ctx.warn(
            file,
            line,
            format!(
                "AC_INIT version is computed (`{version}`), recorded as written; take the version from tags or the release archive"
            ),
        );
        facts.version = Some(version);
    }
}

/// A version string that needs no evaluation.
fn is_literal(v: &str) -> bool {
    !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '~'))
        && !v.contains("m4_")
        && !v.chars().any(|c| c.is_ascii_uppercase() && v.contains('_'))
}

/// `m4_define([name], [literal])` / `define(...)` values.
fn literal_defines(calls: &[Call]) -> HashMap<String, String> {
    calls
        .iter()
        .filter(|c| {
            matches!(
                c.name.as_str(),
                "m4_define" | "define" | "m4_define_default"
            )
        })
        .filter_map(|c| {
            let value = c.arg(1);
            (!c.arg(0).is_empty() && is_literal(&value)).then(|| (c.arg(0), value))
        })
        .collect()
}

/// Replaces macro names in `text` by their literal definitions; Some only
/// when something was replaced and the result is literal.
fn expand(text: &str, defines: &HashMap<String, String>) -> Option<String> {
    let mut out = String::new();
    let mut word = String::new();
    let mut replaced = false;
    let flush = |word: &mut String, out: &mut String, replaced: &mut bool| {
        if let Some(v) = defines.get(word.as_str()) {
            out.push_str(v);
            *replaced = true;
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in unquote(text).chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out, &mut replaced);
            out.push(c);
        }
    }
    flush(&mut word, &mut out, &mut replaced);
    let out = unquote(&out);
    (replaced && is_literal(&out)).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_versions() {
        assert!(is_literal("1.2.3"));
        assert!(is_literal("2.0rc1"));
        assert!(!is_literal("m4_esyscmd([git describe])"));
        assert!(!is_literal("MY_VERSION"));
        assert!(!is_literal("$VERSION"));
    }
}
