//! Versions from git: release tags sorted the way a packager reads them,
//! the HEAD commit, the remote, and the archive URL a recipe should fetch.

use crate::git;
use packsmith_core::forge::ForgeRepo;
use packsmith_core::{TagVersion, VersionFacts};
use std::cmp::Ordering;
use std::path::Path;

/// How many of the newest release tags are reported.
const RECENT_TAGS: usize = 5;

/// What git said about a checkout, before versions are read from it.
#[derive(Debug, Default)]
pub struct GitProbe {
    commit: Option<String>,
    remote: Option<String>,
    tags: Vec<(String, String)>,
}

/// Starts reading git facts of `root` on a thread, so the `git` process
/// runs while the tree is walked.
pub fn probe_git(root: &Path) -> std::thread::JoinHandle<GitProbe> {
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        if !root.join(".git").exists() {
            return GitProbe::default();
        }
        GitProbe {
            commit: git::head_commit(&root),
            remote: git::origin_url(&root),
            tags: git::tags(&root),
        }
    })
}

/// Turns a git probe into version facts (nothing when `root` is not a git
/// checkout of its own).
pub fn from_git(probe: GitProbe, project_name: Option<&str>) -> VersionFacts {
    let mut facts = VersionFacts {
        commit: probe.commit,
        remote: probe.remote,
        ..VersionFacts::default()
    };
    let mut tags: Vec<TagVersion> = probe
        .tags
        .into_iter()
        .filter_map(|(tag, commit)| {
            let version = tag_to_version(&tag, project_name)?;
            Some(TagVersion {
                tag,
                version,
                commit: Some(commit),
            })
        })
        .collect();
    tags.sort_by(|a, b| compare_versions(&b.version, &a.version));
    tags.dedup_by(|a, b| a.version == b.version);
    let (stable, pre): (Vec<_>, Vec<_>) =
        tags.into_iter().partition(|t| !is_prerelease(&t.version));
    let ordered: Vec<TagVersion> = stable.into_iter().chain(pre).collect();
    facts.latest_tag = ordered.first().cloned();
    facts.recent_tags = ordered.into_iter().take(RECENT_TAGS).collect();
    if let (Some(remote), Some(latest)) = (&facts.remote, &facts.latest_tag) {
        facts.archive_url = archive_url(remote, &latest.tag);
    }
    facts
}

/// The tag that names `version` (`v1.2.0`, `1.2.0`, or any tag the
/// analysis reads as that version), when the checkout has one.
pub fn tag_for_version(root: &Path, version: &str) -> Option<String> {
    let tags = git::tags(root);
    let exact = [format!("v{version}"), version.to_string()];
    exact
        .iter()
        .find(|want| tags.iter().any(|(t, _)| t == *want))
        .cloned()
        .or_else(|| {
            tags.iter()
                .find(|(t, _)| tag_to_version(t, None).as_deref() == Some(version))
                .map(|(t, _)| t.clone())
        })
}

/// Turns a tag into a version: `v1.2.3` → `1.2.3`, `release-1_2_3` →
/// `1.2.3`, `zfp-1.0.1` → `1.0.1`, `2024.01` → `2024.01`. Tags that hold no
/// version (`latest`, `nightly`) give None.
pub fn tag_to_version(tag: &str, project_name: Option<&str>) -> Option<String> {
    let mut rest = tag.trim();
    if let Some(name) = project_name {
        let lower = rest.to_ascii_lowercase();
        let name = name.to_ascii_lowercase();
        if lower.starts_with(&name) {
            let after = &rest[name.len()..];
            if after.starts_with(['-', '_', '.']) || after.starts_with(['v', 'V']) {
                rest = after.trim_start_matches(['-', '_', '.']);
            }
        }
    }
    for prefix in [
        "release-", "release_", "release", "rel-", "rel_", "version-", "version_", "ver-",
    ] {
        if rest.len() > prefix.len() && rest[..prefix.len()].eq_ignore_ascii_case(prefix) {
            rest = &rest[prefix.len()..];
            break;
        }
    }
    if let Some(stripped) = rest.strip_prefix(['v', 'V']) {
        if stripped.starts_with(|c: char| c.is_ascii_digit()) {
            rest = stripped;
        }
    }
    rest = rest.trim_start_matches(['-', '_']);
    if !rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if !rest
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+'))
    {
        return None;
    }
    // `1_2_3` is how some projects spell 1.2.3 in tags.
    let version = if !rest.contains('.') && rest.contains('_') {
        rest.replace('_', ".")
    } else {
        rest.to_string()
    };
    Some(version)
}

/// True for alpha, beta, release-candidate, dev and pre-release versions.
pub fn is_prerelease(version: &str) -> bool {
    let lower = version.to_ascii_lowercase();
    ["alpha", "beta", "rc", "dev", "pre", "snapshot", "nightly"]
        .iter()
        .any(|w| lower.contains(w))
        || segments(&lower)
            .iter()
            .any(|s| matches!(s, Segment::Alpha(a) if a == "a" || a == "b"))
}

#[derive(Debug, PartialEq, Eq)]
enum Segment {
    Num(u64),
    Alpha(String),
}

fn segments(version: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut chars = version.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_digit() {
            let mut n: u64 = 0;
            while let Some(&d) = chars.peek() {
                let Some(v) = d.to_digit(10) else { break };
                n = n.saturating_mul(10).saturating_add(u64::from(v));
                chars.next();
            }
            out.push(Segment::Num(n));
        } else if c.is_ascii_alphabetic() {
            let mut s = String::new();
            while let Some(&d) = chars.peek() {
                if !d.is_ascii_alphabetic() {
                    break;
                }
                s.push(d.to_ascii_lowercase());
                chars.next();
            }
            out.push(Segment::Alpha(s));
        } else {
            chars.next();
        }
    }
    out
}

/// Orders versions component by component: numbers numerically, a
/// pre-release word below any number (`1.0rc1` < `1.0` < `1.0.1`).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let (sa, sb) = (segments(a), segments(b));
    for pair in sa.iter().zip(sb.iter()) {
        let ord = match pair {
            (Segment::Num(x), Segment::Num(y)) => x.cmp(y),
            (Segment::Alpha(x), Segment::Alpha(y)) => x.cmp(y),
            (Segment::Num(_), Segment::Alpha(_)) => Ordering::Greater,
            (Segment::Alpha(_), Segment::Num(_)) => Ordering::Less,
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    // A longer version is newer unless what follows is a pre-release word.
    match sa.len().cmp(&sb.len()) {
        Ordering::Greater => match &sa[sb.len()] {
            Segment::Alpha(_) => Ordering::Less,
            Segment::Num(_) => Ordering::Greater,
        },
        Ordering::Less => match &sb[sa.len()] {
            Segment::Alpha(_) => Ordering::Greater,
            Segment::Num(_) => Ordering::Less,
        },
        Ordering::Equal => Ordering::Equal,
    }
}

/// The forge repository of `remote`, when it is on github.com or gitlab.com.
/// Self-hosted forges are left out: their archive URLs would change the
/// briefs written today (issue 13's publishable URLs will decide them).
fn main_forge_repo(remote: &str) -> Option<ForgeRepo> {
    ForgeRepo::parse_remote(remote).filter(|r| r.forge.is_main_instance())
}

/// The release-archive URL for `tag` on GitHub or GitLab.
pub fn archive_url(remote: &str, tag: &str) -> Option<String> {
    main_forge_repo(remote).map(|r| r.tag_archive_url(tag))
}

/// The web page of a GitHub or GitLab remote.
pub fn web_url(remote: &str) -> Option<String> {
    main_forge_repo(remote).map(|r| r.web_url())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_become_versions() {
        let cases = [
            ("v1.2.3", Some("1.2.3")),
            ("1.2.3", Some("1.2.3")),
            ("release-1_2_3", Some("1.2.3")),
            ("zfp-1.0.1", Some("1.0.1")),
            ("zfp_v0.5.5", Some("0.5.5")),
            ("hdf5-1_14_3", Some("1.14.3")),
            ("2024.01.15", Some("2024.01.15")),
            ("v4.0.0-rc1", Some("4.0.0-rc1")),
            ("latest", None),
            ("nightly", None),
            ("vtest", None),
        ];
        for (tag, want) in cases {
            let name = if tag.starts_with("zfp") {
                Some("zfp")
            } else if tag.starts_with("hdf5") {
                Some("hdf5")
            } else {
                None
            };
            assert_eq!(tag_to_version(tag, name).as_deref(), want, "{tag}");
        }
    }

    #[test]
    fn versions_order_like_a_packager_expects() {
        let mut v = vec!["1.10.0", "1.9.2", "1.10.0-rc1", "2.0", "1.10.1", "0.9"];
        v.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(v, ["0.9", "1.9.2", "1.10.0-rc1", "1.10.0", "1.10.1", "2.0"]);
        assert!(is_prerelease("4.0.0-rc1"));
        assert!(is_prerelease("2.1b1"));
        assert!(!is_prerelease("2.1.0"));
    }

    #[test]
    fn archive_urls_for_github_and_gitlab() {
        assert_eq!(
            archive_url("git@github.com:LLNL/zfp.git", "1.0.1").as_deref(),
            Some("https://github.com/LLNL/zfp/archive/refs/tags/1.0.1.tar.gz")
        );
        assert_eq!(
            archive_url("https://gitlab.com/group/proj", "v2").as_deref(),
            Some("https://gitlab.com/group/proj/-/archive/v2/proj-v2.tar.gz")
        );
        assert_eq!(archive_url("/local/mirror", "v1"), None);
        // Self-hosted forges get no archive URL (yet): see `main_forge_repo`.
        assert_eq!(
            archive_url("https://gitlab.kitware.com/vtk/fides.git", "v1"),
            None
        );
        assert_eq!(
            archive_url("https://codeberg.org/ziglang/zig.git", "0.1"),
            None
        );
    }
}
