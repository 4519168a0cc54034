//! PEP 508 requirement strings → name, extras, specifier, marker.

use packsmith_core::{Evidence, PythonRequirement};

/// Normalises a distribution name (PEP 503: lower case, runs of `-_.` → `-`).
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// Parses `requests[security] >= 2.8, <3 ; python_version < "3.11"`.
/// None for blank lines, comments and pip options (`-r`, `--index-url`).
pub fn parse(text: &str, evidence: Evidence) -> Option<PythonRequirement> {
    let text = text.split(" #").next().unwrap_or_default().trim();
    if text.is_empty() || text.starts_with('#') || text.starts_with('-') {
        return None;
    }
    let (spec_part, marker) = match text.split_once(';') {
        Some((a, m)) => (
            a.trim(),
            Some(m.trim().to_string()).filter(|m| !m.is_empty()),
        ),
        None => (text, None),
    };
    let name_end = spec_part
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec_part.len());
    let name = normalize_name(&spec_part[..name_end]);
    if name.is_empty() {
        return None;
    }
    let mut rest = spec_part[name_end..].trim_start();
    let mut extras = Vec::new();
    if let Some(after) = rest.strip_prefix('[') {
        let close = after.find(']').unwrap_or(after.len());
        extras = after[..close]
            .split(',')
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty())
            .collect();
        rest = after.get(close + 1..).unwrap_or_default().trim_start();
    }
    let specifier = rest
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Some(PythonRequirement {
        name,
        extras,
        specifier,
        marker,
        evidence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<PythonRequirement> {
        parse(s, Evidence::file("x"))
    }

    #[test]
    fn pep508() {
        let r = p("Requests[security, socks] >= 2.8.1, ==2.8.* ; python_version < \"2.7\"");
        let Some(r) = r else { panic!() };
        assert_eq!(r.name, "requests");
        assert_eq!(r.extras, ["security", "socks"]);
        assert_eq!(r.specifier, ">= 2.8.1, ==2.8.*");
        assert_eq!(r.marker.as_deref(), Some("python_version < \"2.7\""));
        let Some(r) = p("Zope.Interface (>=4.0)") else {
            panic!()
        };
        assert_eq!(
            (r.name.as_str(), r.specifier.as_str()),
            ("zope-interface", ">=4.0")
        );
        let Some(r) = p("pkg @ https://x.org/pkg.whl") else {
            panic!()
        };
        assert_eq!(r.specifier, "@ https://x.org/pkg.whl");
        assert!(p("# comment").is_none());
        assert!(p("-r base.txt").is_none());
    }
}
