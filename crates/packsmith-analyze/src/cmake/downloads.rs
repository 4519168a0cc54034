//! What a configure-time download fetches and how the project lets its
//! user do without it: the upstream name read from the URL, the switch
//! around it (`if(NOT FOO_USE_SYSTEM_FMT)`, `if(NOT fmt_FOUND)`,
//! `FIND_PACKAGE_ARGS`), and `git clone` run through `execute_process`.

use super::state::{Site, Walker};
use packsmith_core::{DownloadFact, DownloadKind, DownloadSwitch, DownloadSwitchKind, Evidence};

/// Archive suffixes stripped from a file name to find the project's name.
const ARCHIVE_SUFFIXES: &[&str] = &[
    ".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tgz", ".tbz2", ".txz", ".zip", ".tar", ".git",
];

/// The upstream project a download fetches: the repository of a forge URL
/// (`https://github.com/fmtlib/fmt/archive/v9.tar.gz` → `fmt`), the file
/// name of another URL without archive suffix and version, or failing
/// that the declared name.
pub fn upstream_name(url: Option<&str>, declared: &str) -> Option<String> {
    let from_url = url.and_then(|u| {
        let rest = u.split_once("://").map_or(u, |(_, r)| r);
        let rest = rest.split(['?', '#']).next().unwrap_or(rest);
        // `git@github.com:owner/repo.git`
        let rest = rest
            .strip_prefix("git@")
            .map_or(rest.to_string(), |r| r.replacen(':', "/", 1));
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        let host = parts.first()?.to_ascii_lowercase();
        let segment = if packsmith_core::forge::names_owner_repo(&host) && parts.len() >= 3 {
            parts[2]
        } else {
            parts.get(1..).and_then(|p| p.last()).copied()?
        };
        let mut name = segment.to_string();
        for suffix in ARCHIVE_SUFFIXES {
            if let Some(s) = name.strip_suffix(suffix) {
                name = s.to_string();
            }
        }
        // `fmt-9.1.0` → `fmt`
        if let Some((stem, _)) = name
            .match_indices(['-', '_'])
            .find(|(i, _)| name[i + 1..].starts_with(|c: char| c.is_ascii_digit()))
            .map(|(i, _)| name.split_at(i))
        {
            name = stem.to_string();
        }
        let plain = !name.is_empty()
            && !name.contains("${")
            && name.chars().any(|c| c.is_ascii_alphabetic());
        plain.then_some(name)
    });
    from_url.or_else(|| (!declared.contains("${")).then(|| declared.to_string()))
}

/// Words in an option that says "use the installed copy" when on.
const USE_INSTALLED: &[&str] = &[
    "USE_SYSTEM",
    "SYSTEM_",
    "USE_EXTERNAL",
    "EXTERNAL_",
    "USE_INSTALLED",
    "PREFER_SYSTEM",
    "FIND_",
    "USE_SHARED_",
];

/// Words in an option that says "download it" when on.
const USE_DOWNLOAD: &[&str] = &[
    "DOWNLOAD",
    "FETCH",
    "BUNDLED",
    "VENDORED",
    "BUILTIN",
    "INTERNAL_",
    "_INTERNAL",
    "VENDOR_",
];

/// The enclosing condition as (identifier, negated), for `X`, `NOT X` and
/// `NOT (X)` (how an `else()` branch reads).
fn single_identifier(cond: &str) -> Option<(&str, bool)> {
    let c = cond.trim();
    let (rest, negated) = match c.strip_prefix("NOT ") {
        Some(r) => (r.trim(), true),
        None => (c, false),
    };
    let rest = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .map_or(rest, str::trim);
    let (rest, negated) = match rest.strip_prefix("NOT ") {
        Some(r) => (r.trim(), !negated),
        None => (rest, negated),
    };
    let ident = !rest.is_empty()
        && rest
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-');
    ident.then_some((rest, negated))
}

/// The switch that turns this download off, read from the enclosing
/// conditions (innermost first) and the declaration's own arguments.
pub fn switch_for(
    w: &Walker<'_, '_>,
    name: &str,
    args: &[String],
    site: &Site,
) -> Option<DownloadSwitch> {
    let found_first = |pkg: &str| DownloadSwitch {
        kind: DownloadSwitchKind::FindPackageFirst,
        name: pkg.to_string(),
        value: String::new(),
        evidence: site.evidence.clone(),
    };
    // FetchContent tries find_package first when the project asks it to.
    if let Some(at) = args
        .iter()
        .position(|a| a == "FIND_PACKAGE_ARGS" || a == "OVERRIDE_FIND_PACKAGE")
    {
        // `FIND_PACKAGE_ARGS NAMES nlohmann_json`: the name find_package uses.
        let rest = &args[at + 1..];
        let alias = rest
            .iter()
            .position(|a| a == "NAMES")
            .and_then(|i| rest.get(i + 1));
        return Some(found_first(alias.map_or(name, String::as_str)));
    }
    for cond in site.conditions.iter().rev() {
        let c = cond.trim();
        // `if(NOT TARGET fmt::fmt)`
        if let Some(target) = c.strip_prefix("NOT TARGET ") {
            let pkg = target.split("::").next().unwrap_or(target).trim();
            if !pkg.is_empty() && !pkg.contains(' ') {
                return Some(found_first(pkg));
            }
        }
        let Some((ident, negated)) = single_identifier(c) else {
            continue;
        };
        let upper = ident.to_ascii_uppercase();
        // `if(NOT fmt_FOUND)` after a find_package(fmt)
        if let Some(pkg) = ident
            .strip_suffix("_FOUND")
            .or_else(|| ident.strip_suffix("_Found"))
        {
            if negated {
                let declared = w
                    .facts
                    .find_packages
                    .iter()
                    .find(|p| p.name.eq_ignore_ascii_case(pkg));
                let name = declared.map_or(pkg, |p| p.name.as_str());
                return Some(found_first(name));
            }
            continue;
        }
        let builds_it = upper
            .strip_prefix("BUILD_")
            .or_else(|| upper.split_once("_BUILD_").map(|(_, r)| r))
            .is_some_and(|what| related(what, name));
        let value = if negated && USE_INSTALLED.iter().any(|k| upper.contains(k)) {
            "ON"
        } else if !negated && (builds_it || USE_DOWNLOAD.iter().any(|k| upper.contains(k))) {
            "OFF"
        } else {
            continue;
        };
        let evidence = declared_at(w, ident).unwrap_or_else(|| site.evidence.clone());
        return Some(DownloadSwitch {
            kind: DownloadSwitchKind::Option,
            name: ident.to_string(),
            value: value.into(),
            evidence,
        });
    }
    None
}

/// `BUILD_FMT` is about `fmt`; `BUILD_TESTING` is not about `googletest`.
fn related(what: &str, name: &str) -> bool {
    let a = what.to_ascii_lowercase().replace(['-', '_'], "");
    let b = name.to_ascii_lowercase().replace(['-', '_'], "");
    !a.is_empty() && !b.is_empty() && (a.contains(&b) || b.contains(&a))
}

/// Where an option or cache variable was declared, when it was.
fn declared_at(w: &Walker<'_, '_>, name: &str) -> Option<Evidence> {
    w.facts
        .options
        .iter()
        .find(|o| o.name == name)
        .map(|o| o.evidence.clone())
        .or_else(|| {
            w.facts
                .cache_vars
                .iter()
                .find(|v| v.name == name)
                .map(|v| v.evidence.clone())
        })
}

/// Options of `git clone` that take a value.
const CLONE_VALUE_FLAGS: &[&str] = &[
    "-b",
    "--branch",
    "--depth",
    "-o",
    "--origin",
    "-c",
    "--config",
    "--reference",
    "--shallow-since",
    "-j",
    "--jobs",
];

/// `execute_process(COMMAND git clone [flags] URL [dir])`: the build itself
/// clones a repository.
pub fn git_clone(w: &mut Walker<'_, '_>, args: &[String], site: Site) {
    let Some(at) = args.iter().position(|a| a == "clone") else {
        return;
    };
    let git = at
        .checked_sub(1)
        .and_then(|i| args.get(i))
        .is_some_and(|g| g.ends_with("git") || g.contains("GIT_EXECUTABLE"));
    if !git {
        return;
    }
    let mut pin = None;
    let mut url = None;
    let mut i = at + 1;
    while let Some(a) = args.get(i) {
        if CLONE_VALUE_FLAGS.contains(&a.as_str()) {
            if a == "-b" || a == "--branch" {
                pin = args.get(i + 1).cloned();
            }
            i += 2;
            continue;
        }
        if a.starts_with('-') {
            i += 1;
            continue;
        }
        url = Some(a.clone());
        break;
    }
    let Some(url) = url.filter(|u| u.contains('/') || u.contains(':')) else {
        return;
    };
    let name = upstream_name(Some(&url), "").unwrap_or_else(|| url.clone());
    let switch = switch_for(w, &name, args, &site);
    let mut fact = DownloadFact::new(DownloadKind::GitClone, name.clone(), site.evidence);
    fact.url = Some(url);
    fact.pin = pin;
    fact.conditions = site.conditions;
    fact.upstream = Some(name);
    fact.switch = switch;
    w.ctx.downloads.push(fact);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_names_come_from_the_url() {
        let cases = [
            ("https://github.com/fmtlib/fmt.git", "fmt"),
            (
                "https://github.com/nlohmann/json/releases/download/v3.11.2/json.tar.xz",
                "json",
            ),
            (
                "https://gitlab.com/libeigen/eigen/-/archive/3.4.0/eigen-3.4.0.tar.gz",
                "eigen",
            ),
            ("https://example.org/dl/zstd-1.5.5.tar.gz", "zstd"),
            ("git@github.com:LLNL/blt.git", "blt"),
        ];
        for (url, want) in cases {
            assert_eq!(
                upstream_name(Some(url), "x").as_deref(),
                Some(want),
                "{url}"
            );
        }
        assert_eq!(upstream_name(None, "fmt").as_deref(), Some("fmt"));
        assert_eq!(upstream_name(None, "${NAME}"), None);
    }

    #[test]
    fn conditions_read_as_one_identifier() {
        assert_eq!(
            single_identifier("NOT X_USE_SYSTEM_FMT"),
            Some(("X_USE_SYSTEM_FMT", true))
        );
        assert_eq!(single_identifier("NOT (X)"), Some(("X", true)));
        assert_eq!(single_identifier("NOT (NOT X)"), Some(("X", false)));
        assert_eq!(single_identifier("A AND B"), None);
    }

    #[test]
    fn build_switches_must_name_the_download() {
        assert!(related("FMT", "fmt"));
        assert!(related("BUNDLED_FMT", "fmt"));
        assert!(!related("TESTING", "googletest"));
    }
}
