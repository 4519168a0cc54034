//! What the model wrote, made into a recipe: fences and prose removed, and
//! the facts the model must not change (the source URL and the checksum of
//! the version we packed) put back where it changed or invented them.

use regex::Regex;

use packsmith_agent::strip_fences;
use packsmith_spack_draft::brief::FetchPlan;
use packsmith_spack_knowledge::edit::{apply_edits_to, EditOp};
use packsmith_spack_knowledge::recipe::{parse_recipe, RecipeTree};

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

    /// Puts the known URL and checksum back, as edits of the parsed
    /// recipe ([`EditOp`]): the package class's class-level `url = ...`
    /// gets the known URL, and the known version's top-level `sha256=` the
    /// known checksum; a recipe that names the version nowhere gets it
    /// back (among the directives, after the class's header). A `url` in
    /// a method, a docstring or a comment is not the class's and stays.
    /// Returns the text and what was changed. A recipe whose package class
    /// cannot be read, or that an edit would leave with more syntax errors,
    /// is returned as it is.
    pub fn apply(&self, text: &str) -> (String, Vec<String>) {
        let tree = RecipeTree::parse(text, "package.py");
        let mut planned = self.restorations(&tree);
        // An edit the recipe refuses is dropped; the others still apply.
        while !planned.is_empty() {
            let edits: Vec<EditOp> = planned.iter().map(|(e, _)| e.clone()).collect();
            match apply_edits_to(&tree, &edits) {
                Ok(out) => {
                    let errors = parse_recipe(&out, "package.py").syntax_errors.len();
                    if errors > tree.recipe().syntax_errors.len() {
                        break;
                    }
                    return (out, planned.into_iter().map(|(_, c)| c).collect());
                }
                Err(e) => {
                    planned.remove(e.index.saturating_sub(1).min(planned.len() - 1));
                }
            }
        }
        (text.to_string(), Vec::new())
    }

    /// The edits that put the pinned facts back into `tree`, each with the
    /// change it makes.
    fn restorations(&self, tree: &RecipeTree) -> Vec<(EditOp, String)> {
        let Some(class) = tree.package_class() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(url) = &self.url {
            let changed = class
                .attributes
                .iter()
                .filter(|a| a.name == "url")
                .any(|a| a.literal.as_deref() != Some(url.as_str()));
            if changed {
                out.push((
                    EditOp::SetAttributeValue {
                        name: "url".into(),
                        value: url.as_str().into(),
                    },
                    format!("url restored to {url}"),
                ));
            }
        }
        if let (Some(version), Some(sha)) = (&self.version, &self.sha256) {
            // Every call naming the version, wherever it stands …
            let named: Vec<_> = class
                .calls
                .iter()
                .filter(|c| c.name == "version")
                .filter(|c| c.first_literal().is_some_and(|(v, _)| v == version))
                .collect();
            // … and the checksums set_checksum rewrites.
            let sums: Vec<_> = named
                .iter()
                .filter(|c| c.top_level && !c.in_branch)
                .filter_map(|c| c.keyword("sha256"))
                .collect();
            if sums
                .iter()
                .any(|a| a.literal.as_deref() != Some(sha.as_str()))
            {
                out.push((
                    EditOp::SetChecksum {
                        version: version.clone(),
                        sha256: sha.clone(),
                    },
                    format!("sha256 of {version} restored"),
                ));
            } else if named.is_empty() {
                out.push((
                    EditOp::AddVersion {
                        version: version.clone(),
                        sha256: Some(sha.clone()),
                    },
                    format!("version {version} restored"),
                ));
            }
        }
        out
    }
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

    fn pinned() -> PinnedFetch {
        PinnedFetch {
            url: Some("file:///m/foo/foo-1.0.tar.gz".into()),
            version: Some("1.0".into()),
            sha256: Some("a".repeat(64)),
        }
    }

    /// A recipe as packsmith pinned it, with `url`, `sha256` and the
    /// version line as given.
    fn recipe(url: &str, version_line: &str) -> String {
        format!(
            "from spack.package import *\n\n\nclass Foo(CMakePackage):\n    \"\"\"Foo.\"\"\"\n\n    homepage = \"https://example.com\"\n    url = \"{url}\"\n\n{version_line}    depends_on(\"zlib-api\")\n\n    def cmake_args(self):\n        return []\n"
        )
    }

    fn version_line(sha: &str) -> String {
        format!("    version(\"1.0\", sha256=\"{sha}\")\n\n")
    }

    #[test]
    fn a_changed_url_is_restored_and_nothing_else_moves() {
        let good = recipe(
            "file:///m/foo/foo-1.0.tar.gz",
            &version_line(&"a".repeat(64)),
        );
        let text = recipe(
            "https://github.com/foo/foo/archive/v1.0.tar.gz",
            &version_line(&"a".repeat(64)),
        );
        let (out, changes) = pinned().apply(&text);
        assert_eq!(out, good);
        assert_eq!(
            changes,
            vec!["url restored to file:///m/foo/foo-1.0.tar.gz".to_string()]
        );
        // A URL the model built from pieces is replaced whole.
        let built = text.replace(
            "url = \"https://github.com/foo/foo/archive/v1.0.tar.gz\"",
            "url = \"https://github.com/foo/\" + \"foo-1.0.tar.gz\"",
        );
        let (out, changes) = pinned().apply(&built);
        assert_eq!(out, good);
        assert_eq!(changes.len(), 1, "{changes:?}");
    }

    #[test]
    fn a_changed_checksum_is_restored() {
        let good = recipe(
            "file:///m/foo/foo-1.0.tar.gz",
            &version_line(&"a".repeat(64)),
        );
        let text = recipe(
            "file:///m/foo/foo-1.0.tar.gz",
            &version_line("0123456789abcdef"),
        );
        let (out, changes) = pinned().apply(&text);
        assert_eq!(out, good);
        assert_eq!(changes, vec!["sha256 of 1.0 restored".to_string()]);
        // Single quotes and other arguments are read too; only the value changes.
        let quoted = text.replace(
            "version(\"1.0\", sha256=\"0123456789abcdef\")",
            "version('1.0', sha256='0123456789abcdef', preferred=True)",
        );
        let (out, changes) = pinned().apply(&quoted);
        assert!(
            out.contains(&format!(
                "version('1.0', sha256=\"{}\", preferred=True)",
                "a".repeat(64)
            )),
            "{out}"
        );
        assert_eq!(changes, vec!["sha256 of 1.0 restored".to_string()]);
        // A version written without sha256= is left as the model wrote it.
        let tagged = text.replace(
            "version(\"1.0\", sha256=\"0123456789abcdef\")",
            "version(\"1.0\", tag=\"v1.0\")",
        );
        assert_eq!(pinned().apply(&tagged), (tagged.clone(), Vec::new()));
    }

    #[test]
    fn a_dropped_version_line_comes_back_before_the_directives() {
        let good = recipe(
            "file:///m/foo/foo-1.0.tar.gz",
            &version_line(&"a".repeat(64)),
        );
        let text = recipe("file:///m/foo/foo-1.0.tar.gz", "");
        let (out, changes) = pinned().apply(&text);
        assert_eq!(out, good);
        assert_eq!(changes, vec!["version 1.0 restored".to_string()]);
        // With no directive left: after the url line.
        let bare = text.replace("    depends_on(\"zlib-api\")\n\n", "");
        let (out, _) = pinned().apply(&bare);
        assert!(
            out.contains(&format!(
                "    url = \"file:///m/foo/foo-1.0.tar.gz\"\n\n    version(\"1.0\", sha256=\"{}\")\n\n    def cmake_args",
                "a".repeat(64)
            )),
            "{out}"
        );
        // Another version kept: the pinned one goes among them, newest first.
        let other = recipe(
            "file:///m/foo/foo-1.0.tar.gz",
            &format!("    version(\"0.9\", sha256=\"{}\")\n\n", "c".repeat(64)),
        );
        let (out, changes) = pinned().apply(&other);
        assert!(
            out.contains(&format!(
                "    version(\"1.0\", sha256=\"{}\")\n    version(\"0.9\"",
                "a".repeat(64)
            )),
            "{out}"
        );
        assert_eq!(changes, vec!["version 1.0 restored".to_string()]);
    }

    #[test]
    fn a_url_in_a_method_a_docstring_or_a_comment_is_not_touched() {
        let text = format!(
            "class Foo(Package):\n    \"\"\"Foo.\n\n    url = \"https://docstring\"\n    \"\"\"\n\n    # url = \"https://comment\"\n    git = \"https://github.com/foo/foo.git\"\n\n    version(\"1.0\", sha256=\"{}\")\n\n    def url_for_version(self, version):\n        url = \"https://method/foo-{{0}}.tar.gz\"\n        return url.format(version)\n",
            "a".repeat(64)
        );
        // No class-level url: nothing to restore (the old regex rewrote
        // the first indented `url =`, the docstring's).
        let (out, changes) = pinned().apply(&text);
        assert_eq!(out, text);
        assert!(changes.is_empty(), "{changes:?}");
        // A class-level one after them is the one restored.
        let with_url = text.replace("    git = ", "    url = \"https://wrong\"\n    git = ");
        let (out, changes) = pinned().apply(&with_url);
        assert_eq!(
            out,
            with_url.replace("\"https://wrong\"", "\"file:///m/foo/foo-1.0.tar.gz\"")
        );
        assert_eq!(
            changes,
            vec!["url restored to file:///m/foo/foo-1.0.tar.gz".to_string()]
        );
    }

    #[test]
    fn a_recipe_without_a_readable_class_is_left_as_it_is() {
        for text in [
            "url = \"https://wrong\"\nversion(\"1.0\", sha256=\"0\")\n".to_string(),
            "I could not write the recipe.\n    url = \"https://wrong\"\n".to_string(),
            String::new(),
        ] {
            assert_eq!(pinned().apply(&text), (text.clone(), Vec::new()));
        }
        // A syntax error the parser keeps inside a method does not stop
        // the restoration; one that leaves the class unreadable (an
        // unclosed bracket) leaves the text as the model wrote it.
        let wrong = recipe("https://wrong", &version_line("0"));
        let local = wrong.replace(
            "        return []\n",
            "        x = = 1\n        return []\n",
        );
        let (out, changes) = pinned().apply(&local);
        assert_eq!(
            out,
            recipe(
                "file:///m/foo/foo-1.0.tar.gz",
                &version_line(&"a".repeat(64))
            )
            .replace(
                "        return []\n",
                "        x = = 1\n        return []\n"
            )
        );
        assert_eq!(changes.len(), 2, "{changes:?}");
        let unclosed = wrong.replace("        return []\n", "        return [\n");
        assert_eq!(pinned().apply(&unclosed), (unclosed.clone(), Vec::new()));
    }
}
