//! Repairs by rule, without a model, for failures whose fix is certain:
//! an optional dependency that cannot be had here (offline, not external)
//! gets its variant switched off; a dependency Spack does not know is
//! taken out. The model only sees what these rules cannot fix.

use std::collections::BTreeSet;

use regex::Regex;

/// A single-line `depends_on("name...", ...)`: the name and its `when=`.
struct DependsOn {
    line: usize,
    name: String,
    when: Option<String>,
}

fn depends_on_lines(text: &str) -> Vec<DependsOn> {
    let Ok(re) =
        Regex::new(r#"^\s*depends_on\(\s*["']([A-Za-z0-9_.-]+)[^"']*["'](.*)\)\s*(#.*)?$"#)
    else {
        return Vec::new();
    };
    let Ok(when_re) = Regex::new(r#"when\s*=\s*["']([^"']+)["']"#) else {
        return Vec::new();
    };
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let c = re.captures(l)?;
            Some(DependsOn {
                line: i,
                name: c[1].to_string(),
                when: when_re.captures(&c[2]).map(|w| w[1].trim().to_string()),
            })
        })
        .collect()
}

/// Names after "would build from source (a download each):".
fn offline_downloads(excerpt: &str) -> BTreeSet<String> {
    excerpt
        .lines()
        .find_map(|l| l.split_once("would build from source").map(|(_, r)| r))
        .and_then(|rest| rest.split_once(':').map(|(_, names)| names))
        .map(|names| {
            names
                .split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Names in "Package 'x' not found" / "unknown package: x".
fn unknown_packages(excerpt: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for pattern in [
        r#"[Pp]ackage '([A-Za-z0-9_.-]+)' not found"#,
        r#"unknown package:? `?([A-Za-z0-9_.-]+)"#,
    ] {
        if let Ok(re) = Regex::new(pattern) {
            out.extend(re.captures_iter(excerpt).map(|c| c[1].to_string()));
        }
    }
    out
}

/// `variant("name", default=True|False` → the other default.
fn flip_variant_default(text: &str, variant: &str, to: bool) -> Option<String> {
    let pattern = format!(
        r#"(variant\(\s*["']{}["']\s*,\s*default\s*=\s*)(True|False)"#,
        regex::escape(variant)
    );
    let re = Regex::new(&pattern).ok()?;
    let from = if to { "False" } else { "True" };
    let caps = re.captures(text)?;
    if &caps[2] != from {
        return None;
    }
    let new = if to { "True" } else { "False" };
    Some(re.replacen(text, 1, format!("${{1}}{new}")).into_owned())
}

/// A boolean condition on one variant: `+v` → (v, true), `~v` → (v, false).
fn single_variant(when: &str) -> Option<(String, bool)> {
    let w = when.trim();
    let (on, name) = if let Some(n) = w.strip_prefix('+') {
        (true, n)
    } else if let Some(n) = w.strip_prefix('~') {
        (false, n)
    } else {
        return None;
    };
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then(|| (name.to_string(), on))
}

/// Offline: switch off the variants that pull in what cannot be had.
fn switch_off_unavailable(text: &str, excerpt: &str) -> Option<(String, String)> {
    let missing = offline_downloads(excerpt);
    if missing.is_empty() {
        return None;
    }
    let mut out = text.to_string();
    let mut flipped = Vec::new();
    let mut deps = BTreeSet::new();
    for d in depends_on_lines(text) {
        if !missing.contains(&d.name) {
            continue;
        }
        let Some((variant, on)) = d.when.as_deref().and_then(single_variant) else {
            continue;
        };
        // The dependency is there when the variant is `on`: default it off.
        if let Some(next) = flip_variant_default(&out, &variant, !on) {
            out = next;
            flipped.push(format!("{}{variant}", if on { "~" } else { "+" }));
        }
        if flipped.iter().any(|f| f.ends_with(&variant)) {
            deps.insert(d.name);
        }
    }
    if flipped.is_empty() {
        return None;
    }
    Some((
        out,
        format!(
            "defaults changed to {}: {} cannot be installed here",
            flipped.join(" "),
            deps.into_iter().collect::<Vec<_>>().join(", ")
        ),
    ))
}

/// Spack does not know the package: take the `depends_on` out, with a note.
fn drop_unknown(text: &str, excerpt: &str) -> Option<(String, String)> {
    let unknown = unknown_packages(excerpt);
    if unknown.is_empty() {
        return None;
    }
    let targets: Vec<DependsOn> = depends_on_lines(text)
        .into_iter()
        .filter(|d| unknown.contains(&d.name))
        .collect();
    if targets.is_empty() {
        return None;
    }
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for d in &targets {
        let original = lines[d.line].clone();
        let indent: String = original.chars().take_while(|c| c.is_whitespace()).collect();
        lines[d.line] = format!(
            "{indent}# FIXME: Spack has no package `{}`: {}",
            d.name,
            original.trim()
        );
    }
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    let names: BTreeSet<&str> = targets.iter().map(|d| d.name.as_str()).collect();
    Some((
        out,
        format!(
            "removed the dependency on {}, which Spack does not know",
            names.into_iter().collect::<Vec<_>>().join(", ")
        ),
    ))
}

/// Words that mark a download-prone, non-essential part of a build.
const EXTRAS: &[&str] = &[
    "bench", "example", "doc", "demo", "test", "sandbox", "tutorial",
];

fn mentions_network_failure(excerpt: &str) -> bool {
    [
        "Could not resolve host",
        "Couldn't resolve host",
        "Temporary failure in name resolution",
        "Network is unreachable",
    ]
    .iter()
    .any(|m| excerpt.contains(m))
}

/// The build tried to download (tests, benchmarks and examples often fetch
/// googletest and friends at configure time): switch those variants off.
fn switch_off_downloading_extras(text: &str, excerpt: &str) -> Option<(String, String)> {
    if !mentions_network_failure(excerpt) {
        return None;
    }
    let re = Regex::new(r#"variant\(\s*["']([A-Za-z0-9_-]+)["']\s*,\s*default\s*=\s*True"#).ok()?;
    let names: Vec<String> = re
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .filter(|n| {
            let l = n.to_ascii_lowercase();
            EXTRAS.iter().any(|w| l.contains(w))
        })
        .collect();
    let mut out = text.to_string();
    for n in &names {
        out = flip_variant_default(&out, n, false)?;
    }
    (!names.is_empty()).then(|| {
        (
            out,
            format!(
                "the build tried to download and there is no network: variants {} now default off",
                names.join(", ")
            ),
        )
    })
}

/// The first rule that applies to this failure, as (recipe text, what changed).
pub fn auto_repair(text: &str, class: &str, excerpt: &str) -> Option<(String, String)> {
    match class {
        "fetch" => switch_off_unavailable(text, excerpt)
            .or_else(|| switch_off_downloading_extras(text, excerpt)),
        "unknown_package" => drop_unknown(text, excerpt),
        _ => switch_off_downloading_extras(text, excerpt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = r#"class Cereal(CMakePackage):
    variant("doc", default=True, description="Build documentation")
    variant("skip_perf", default=False, description="Skip the comparison")
    variant("threads", default=True, description="Threads")

    depends_on("cmake@3.6:", type="build")
    depends_on("boost", when="~skip_perf")
    depends_on("doxygen", when="+doc", type="build")
    depends_on("zlib-api")
"#;

    #[test]
    fn offline_downloads_switch_their_variants_off() {
        let excerpt = "packsmith: offline, but the concretized DAG would build from source (a download each): boost, doxygen, bison, m4\nhint: drop them";
        let (out, why) = auto_repair(RECIPE, "fetch", excerpt).unwrap();
        assert!(out.contains(r#"variant("doc", default=False"#), "{out}");
        assert!(
            out.contains(r#"variant("skip_perf", default=True"#),
            "{out}"
        );
        assert!(out.contains(r#"variant("threads", default=True"#));
        assert!(why.contains("~doc") && why.contains("+skip_perf"), "{why}");
        assert!(why.contains("boost") && why.contains("doxygen"));
        // Applied again, nothing is left to switch: no second repair.
        assert!(auto_repair(&out, "fetch", excerpt).is_none());
    }

    #[test]
    fn an_unconditional_download_is_left_to_the_model() {
        let excerpt =
            "offline, but the concretized DAG would build from source (a download each): zlib-api";
        assert!(auto_repair(RECIPE, "fetch", excerpt).is_none());
    }

    #[test]
    fn unknown_packages_are_commented_out() {
        let excerpt = "==> Error: Package 'zlib-api' not found.";
        let (out, why) = auto_repair(RECIPE, "unknown_package", excerpt).unwrap();
        assert!(out.contains("# FIXME: Spack has no package `zlib-api`: depends_on(\"zlib-api\")"));
        assert!(!out.lines().any(|l| l.trim() == "depends_on(\"zlib-api\")"));
        assert!(why.contains("zlib-api"));
        assert!(out.ends_with('\n'));
    }

    #[test]
    fn a_configure_time_download_switches_extras_off() {
        let recipe = "class F(CMakePackage):\n    variant(\"benchmarks\", default=True, description=\"b\")\n    variant(\"inline\", default=True, description=\"i\")\n";
        let excerpt = "CMake Error: Each download failed!\n  Could not resolve host: github.com";
        let (out, why) = auto_repair(recipe, "cmake_configure", excerpt).unwrap();
        assert!(
            out.contains(r#"variant("benchmarks", default=False"#),
            "{out}"
        );
        assert!(out.contains(r#"variant("inline", default=True"#));
        assert!(why.contains("benchmarks"));
        assert!(auto_repair(&out, "cmake_configure", excerpt).is_none());
    }

    #[test]
    fn other_failures_get_no_rule() {
        assert!(auto_repair(RECIPE, "compilation", "error: x").is_none());
    }
}
