//! What the model wrote, made into a recipe: fences and prose removed, and
//! the facts the model must not change (the source URL and the checksum of
//! the version we packed) put back where it changed or invented them.

use regex::Regex;

use packsmith_agent::strip_fences;
use packsmith_spack_draft::brief::FetchPlan;

/// Lines that may stand at column 0 of a `package.py`.
fn is_python_top_level(line: &str) -> bool {
    let t = line.trim_end();
    t.is_empty()
        || t.starts_with('#')
        || t.starts_with('@')
        || t.starts_with(' ')
        || t.starts_with('\t')
        || t.starts_with(')')
        || t.starts_with(']')
        || t.starts_with('}')
        || t.starts_with("\"\"\"")
        || [
            "from ", "import ", "class ", "def ", "if ", "try:", "except", "else:",
        ]
        .iter()
        .any(|k| t.starts_with(k))
        || Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*\s*=")
            .map(|re| re.is_match(t))
            .unwrap_or(false)
}

/// The recipe inside a model's answer: the longest fenced block (or the
/// text), without the prose before the first Python line or after the
/// class body.
pub fn clean_model_output(raw: &str) -> String {
    let body = strip_fences(raw);
    let lines: Vec<&str> = body.lines().collect();
    let start = lines
        .iter()
        .position(|l| {
            let t = l.trim_start();
            t.starts_with("from ")
                || t.starts_with("import ")
                || t.starts_with("class ")
                || t.starts_with("# ")
                || *l == "#"
        })
        .unwrap_or(0);
    let mut kept: Vec<&str> = Vec::new();
    let mut seen_class = false;
    for line in &lines[start..] {
        if line.starts_with("class ") {
            seen_class = true;
        }
        if seen_class && !is_python_top_level(line) {
            break;
        }
        kept.push(line);
    }
    let text = kept.join("\n");
    let text = text.trim_end();
    if text.is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    }
}

/// The fetch facts the model may not alter.
#[derive(Debug, Clone, Default)]
pub struct PinnedFetch {
    pub url: Option<String>,
    pub version: Option<String>,
    pub sha256: Option<String>,
}

impl PinnedFetch {
    /// The URL, version and checksum a brief's fetch plan pins.
    pub fn of(fetch: &FetchPlan) -> Self {
        Self {
            url: fetch.url.clone(),
            version: fetch.version.clone(),
            sha256: fetch.sha256.clone(),
        }
    }

    /// Puts the known URL and checksum back: a class-level `url = "..."`
    /// gets the known URL, and the known version's `sha256=` the known
    /// checksum. A recipe that lost its version line gets it back after the
    /// `url` line. Returns the text and what was changed.
    pub fn apply(&self, text: &str) -> (String, Vec<String>) {
        let mut out = text.to_string();
        let mut changes = Vec::new();
        if let Some(url) = &self.url {
            if let Ok(re) = Regex::new(r#"(?m)^(\s+url\s*=\s*)(["'])([^"']*)(["'])"#) {
                let replaced = re
                    .replace(&out, |c: &regex::Captures| {
                        if &c[3] != url.as_str() {
                            changes.push(format!("url restored to {url}"));
                        }
                        format!("{}\"{url}\"", &c[1])
                    })
                    .into_owned();
                out = replaced;
            }
        }
        if let (Some(version), Some(sha)) = (&self.version, &self.sha256) {
            let pattern = format!(
                r#"version\(\s*["']{}["']\s*,\s*sha256\s*=\s*["']([^"']*)["']"#,
                regex::escape(version)
            );
            if let Ok(re) = Regex::new(&pattern) {
                if re.is_match(&out) {
                    let replaced = re
                        .replace_all(&out, |c: &regex::Captures| {
                            if &c[1] != sha.as_str() {
                                changes.push(format!("sha256 of {version} restored"));
                            }
                            format!("version(\"{version}\", sha256=\"{sha}\"")
                        })
                        .into_owned();
                    out = replaced;
                } else if !out.contains(&format!("version(\"{version}\"")) {
                    out = insert_version(&out, version, sha, &mut changes);
                }
            }
        }
        (out, changes)
    }
}

/// Adds `version(v, sha256=...)` after the class-level `url = ...` line.
fn insert_version(text: &str, version: &str, sha: &str, changes: &mut Vec<String>) -> String {
    let mut out = Vec::new();
    let mut done = false;
    for line in text.lines() {
        out.push(line.to_string());
        let t = line.trim_start();
        if !done && (t.starts_with("url =") || t.starts_with("url=")) {
            let indent = &line[..line.len() - t.len()];
            out.push(String::new());
            out.push(format!("{indent}version(\"{version}\", sha256=\"{sha}\")"));
            changes.push(format!("version {version} restored"));
            done = true;
        }
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_and_fences_are_removed() {
        let raw = "Here is the fixed recipe:\n```python\nfrom spack.package import *\n\n\nclass Foo(CMakePackage):\n    \"\"\"Foo.\"\"\"\n\n    version(\"1.0\", sha256=\"abc\")\n```\nThis should now work because I fixed the version.\n";
        let cleaned = clean_model_output(raw);
        assert!(cleaned.starts_with("from spack.package import *"));
        assert!(!cleaned.contains("should now work"));
        assert!(cleaned.ends_with("sha256=\"abc\")\n"));
    }

    #[test]
    fn trailing_prose_without_fences_is_cut() {
        let raw = "Sure!\nfrom spack.package import *\n\nclass Foo(Package):\n    pass\n\nThe change adds a class.\n";
        let cleaned = clean_model_output(raw);
        assert_eq!(
            cleaned,
            "from spack.package import *\n\nclass Foo(Package):\n    pass\n"
        );
    }

    #[test]
    fn invented_checksum_and_url_are_restored() {
        let pinned = PinnedFetch {
            url: Some("file:///m/foo/foo-1.0.tar.gz".into()),
            version: Some("1.0".into()),
            sha256: Some("a".repeat(64)),
        };
        let text = "class Foo(Package):\n    url = \"https://example.com/foo-1.0.tar.gz\"\n\n    version(\"1.0\", sha256=\"0123456789abcdef\")\n";
        let (out, changes) = pinned.apply(text);
        assert!(out.contains("url = \"file:///m/foo/foo-1.0.tar.gz\""));
        assert!(out.contains(&format!("version(\"1.0\", sha256=\"{}\")", "a".repeat(64))));
        assert_eq!(changes.len(), 2, "{changes:?}");
    }

    #[test]
    fn a_lost_version_comes_back_after_url() {
        let pinned = PinnedFetch {
            url: Some("file:///x.tar.gz".into()),
            version: Some("2.1".into()),
            sha256: Some("b".repeat(64)),
        };
        let text =
            "class Foo(Package):\n    url = \"file:///x.tar.gz\"\n\n    depends_on(\"zlib\")\n";
        let (out, changes) = pinned.apply(text);
        let url_at = out.find("url =").unwrap_or(usize::MAX);
        let ver_at = out.find("version(\"2.1\"").unwrap_or(0);
        assert!(ver_at > url_at, "{out}");
        assert_eq!(changes, vec!["version 2.1 restored".to_string()]);
    }

    #[test]
    fn a_correct_recipe_is_unchanged() {
        let pinned = PinnedFetch {
            url: Some("file:///x.tar.gz".into()),
            version: Some("2.1".into()),
            sha256: Some("b".repeat(64)),
        };
        let text = format!(
            "class Foo(Package):\n    url = \"file:///x.tar.gz\"\n\n    version(\"2.1\", sha256=\"{}\")\n",
            "b".repeat(64)
        );
        let (out, changes) = pinned.apply(&text);
        assert_eq!(out, text);
        assert!(changes.is_empty());
    }
}
