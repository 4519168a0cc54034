//! nixpkgs' conventions for a package expression, as warnings of the
//! static check (they never stop a build): nixfmt's layout (the text
//! against what nixfmt makes of it, through [`crate::format`]),
//! `meta.description` as the new-package checklist asks for it, and
//! `finalAttrs` over `rec` for builders that take it. The draft's printer
//! lays lists out with [`expand_list`] before nixfmt has the last word.

use packsmith_agent::{Diagnostic, Severity};
use regex::Regex;
use std::sync::LazyLock;

/// `name = [ a b ];` or `name = with set; [ a b ];` on one line.
static ONE_LINE_LIST: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(\s*)([\w.-]+ = (?:with [\w.]+; )?)\[ (.+) \];$").ok());

static DESCRIPTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"^\s*description = "(.*)";"#).ok());

/// The elements of a list written on one line, when each is a plain
/// attribute path (a string, call or nested list keeps its layout: the
/// printer never writes such lists on one line).
fn plain_elements(inner: &str) -> Option<Vec<&str>> {
    let items: Vec<&str> = inner.split_whitespace().collect();
    items
        .iter()
        .all(|i| i.chars().all(|c| c.is_alphanumeric() || "_-.'".contains(c)))
        .then_some(items)
}

/// nixfmt (RFC 166 style) writes a list of two or more elements one
/// element per line: `line` so laid out, or None when it already is.
pub fn expand_list(line: &str) -> Option<Vec<String>> {
    let caps = ONE_LINE_LIST.as_ref()?.captures(line)?;
    let items = plain_elements(caps.get(3)?.as_str())?;
    if items.len() < 2 {
        return None;
    }
    let indent = &caps[1];
    let mut out = vec![format!("{indent}{}[", &caps[2])];
    out.extend(items.iter().map(|i| format!("{indent}  {i}")));
    out.push(format!("{indent}];"));
    Some(out)
}

fn warning(code: &str, line: usize, message: String) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        code: code.into(),
        message,
        line: u32::try_from(line + 1).ok(),
    }
}

/// What a nixpkgs reviewer would ask to change in `text`, the package
/// `pname`.
pub fn check(text: &str, pname: &str) -> Vec<Diagnostic> {
    check_formatted(text, pname, crate::format::nixfmt(text).as_deref())
}

/// [`check`] with nixfmt's layout of `text` already made (None: nixfmt
/// could not read it), for a caller that needs the layout too.
pub fn check_formatted(text: &str, pname: &str, formatted: Option<&str>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(formatted) = formatted {
        // The final newline aside, which no reviewer asks about.
        if formatted.trim_end() != text.trim_end() {
            let at = text
                .lines()
                .zip(formatted.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| text.lines().count().min(formatted.lines().count()));
            out.push(warning(
                "nixfmt",
                at,
                "not laid out as nixfmt lays it out, from this line on (lists of two or more \
                 elements one per line, …): run nixfmt on it"
                    .into(),
            ));
        }
    }
    for (n, line) in text.lines().enumerate() {
        if let Some(caps) = DESCRIPTION.as_ref().and_then(|r| r.captures(line)) {
            out.extend(description_findings(&caps[1], pname).map(|m| warning("meta", n, m)));
        }
    }
    let finalattrs_builder = [
        "mkDerivation",
        "buildRustPackage",
        "buildGoModule",
        "buildNpmPackage",
    ]
    .iter()
    .any(|b| text.contains(&format!("{b} rec {{")));
    if finalattrs_builder {
        let at = text.lines().position(|l| l.contains(" rec {")).unwrap_or(0);
        out.push(warning(
            "finalattrs",
            at,
            "write `(finalAttrs: { … })` and refer to `finalAttrs.version` instead of `rec`".into(),
        ));
    }
    out
}

/// Whether `lower` (a lower-cased description) opens with the package's
/// name, its `-` and `_` read as spaces ("cucumber expressions is …").
fn starts_with_name(lower: &str, pname: &str) -> bool {
    let name = pname.to_ascii_lowercase().replace(['-', '_'], " ");
    let text = lower.replace(['-', '_'], " ");
    text.strip_prefix(&name)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':', ',']))
}

/// The new-package checklist on `meta.description`: short, a whole phrase,
/// no leading article, no trailing period, not the package's own name.
fn description_findings(d: &str, pname: &str) -> impl Iterator<Item = String> {
    let lower = d.to_ascii_lowercase();
    let first_word = lower.split_whitespace().next().unwrap_or_default();
    let findings = [
        (
            d.contains("FIXME"),
            "meta.description is still a FIXME".to_string(),
        ),
        (
            d.ends_with('.'),
            "meta.description ends with a period".to_string(),
        ),
        (
            matches!(first_word, "a" | "an" | "the"),
            "meta.description starts with an article".to_string(),
        ),
        (
            !pname.is_empty() && starts_with_name(&lower, pname),
            format!("meta.description repeats the package name `{pname}`"),
        ),
        (
            d.chars().count() > 120,
            "meta.description is longer than a short phrase (120 characters)".to_string(),
        ),
        (
            d.ends_with([',', ':', ';', '(', '-'])
                || lower
                    .split_whitespace()
                    .last()
                    .is_some_and(|w| DANGLING.contains(&w)),
            "meta.description is cut in the middle of a phrase".to_string(),
        ),
    ];
    findings.into_iter().filter(|(hit, _)| *hit).map(|(_, m)| m)
}

/// Words a whole phrase does not end on: a conjunction, a preposition
/// that wants its object, an article.
pub(crate) const DANGLING: &[&str] = &[
    "and", "or", "but", "nor", "for", "with", "to", "of", "by", "via", "from", "into", "the", "a",
    "an",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_two_or_more_are_laid_out_one_per_line() {
        assert_eq!(
            expand_list("  nativeBuildInputs = [ cmake pkg-config ];").unwrap(),
            [
                "  nativeBuildInputs = [",
                "    cmake",
                "    pkg-config",
                "  ];"
            ]
        );
        assert_eq!(
            expand_list("dependencies = with python3Packages; [ requests rich ];").unwrap(),
            [
                "dependencies = with python3Packages; [",
                "  requests",
                "  rich",
                "];"
            ]
        );
        assert_eq!(expand_list("  buildInputs = [ zlib ];"), None);
        assert_eq!(expand_list(r#"  pythonImportsCheck = [ "a" "b" ];"#), None);
    }

    #[test]
    fn reviewers_findings() {
        let text = r#"stdenv.mkDerivation rec {
  nativeBuildInputs = [ cmake ninja ];
  meta = {
    description = "The heatsim solver.";
  };
}"#;
        let codes: Vec<String> = check(text, "heatsim").iter().map(|d| d.render()).collect();
        assert_eq!(
            codes,
            [
                "line 2: nixfmt: not laid out as nixfmt lays it out, from this line on (lists of two or more elements one per line, …): run nixfmt on it",
                "line 4: meta: meta.description ends with a period",
                "line 4: meta: meta.description starts with an article",
                "line 1: finalattrs: write `(finalAttrs: { … })` and refer to `finalAttrs.version` instead of `rec`",
            ]
        );
        let clean = r#"stdenv.mkDerivation (finalAttrs: {
  nativeBuildInputs = [
    cmake
    ninja
  ];
  meta.description = "Solves the heat equation";
})"#;
        assert!(check(clean, "heatsim").is_empty());
        assert_eq!(
            check(r#"    description = "Heatsim: solves";"#, "heatsim").len(),
            1
        );
        assert_eq!(
            check(
                r#"    description = "Cucumber Expressions are nice";"#,
                "cucumber-expressions"
            )
            .len(),
            1
        );
        assert!(check(r#"    description = "Heatsimulator for grids";"#, "heatsim").is_empty());
        // A cut that leaves a conjunction or preposition hanging.
        for cut in [
            "Falls back to a cached dictionary for UTI and",
            "Reads grids of",
        ] {
            let line = format!("    description = \"{cut}\";");
            let found: Vec<String> = check(&line, "heatsim").iter().map(|d| d.render()).collect();
            assert!(
                found
                    .iter()
                    .any(|f| f.ends_with("cut in the middle of a phrase")),
                "{cut}: {found:?}"
            );
        }
    }
}
