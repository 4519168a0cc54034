//! The question before the first draft (Vibenix's project summary, plus a
//! builder pick): the model reads the analysis, the start of the README
//! and the top of the tree (more through the read-only repository tools),
//! writes a short summary the later prompts carry, and, only when the
//! facts left the builder open, names one template from a fixed list.

use std::path::Path;

use packsmith_core::chat::{ChatMessage, ChatRequest};
use serde_json::json;

use super::prompts;
use crate::templates::Builder;

/// README characters shown in the question.
const README_CHARS: usize = 2500;
/// Top-level entries shown in the question.
const TREE_ENTRIES: usize = 60;
/// Summary characters kept for later prompts.
const SUMMARY_CHARS: usize = 1200;
/// Room for the answer: six lines and the builder line.
const ANSWER_TOKENS: u32 = 320;

/// What the question is built from.
pub struct ProjectQuestion<'a> {
    pub name: &'a str,
    pub version: Option<&'a str>,
    pub facts: &'a str,
    pub repo_root: &'a Path,
    /// Whether the model should pick the builder (the facts did not).
    pub ask_builder: bool,
    /// Whether the model should write `meta.description` (the facts had
    /// none: the draft's is a FIXME).
    pub ask_description: bool,
    pub tools: bool,
}

/// The model's answer, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectAnswer {
    pub summary: String,
    /// The `BUILDER:` line, when it named a known template.
    pub builder: Option<Builder>,
    /// The `BUILDER:` line named something that is not a template.
    pub unknown_builder: Option<String>,
    /// The `DESCRIPTION:` line's phrase, as written.
    pub description: Option<String>,
}

pub fn request(q: &ProjectQuestion<'_>) -> ChatRequest {
    let builders: Vec<_> = if q.ask_builder {
        Builder::ALL
            .iter()
            .map(|b| json!({ "key": b.key(), "describe": b.describe() }))
            .collect()
    } else {
        Vec::new()
    };
    let user = prompts::render(
        "project",
        json!({
            "name": q.name, "version": q.version, "facts": q.facts,
            "readme": readme_excerpt(q.repo_root), "tree": tree_listing(q.repo_root),
            "tools": q.tools, "builders": builders, "ask_description": q.ask_description,
        }),
    );
    let mut request = ChatRequest::new(
        Some("You are a nixpkgs packager reading a project before packaging it.".into()),
        vec![ChatMessage::user(user)],
    );
    request.temperature = Some(0.0);
    request.max_tokens = Some(ANSWER_TOKENS);
    request
}

/// Splits the answer into the summary and the builder line.
pub fn parse_answer(answer: &str) -> ProjectAnswer {
    let mut builder = None;
    let mut unknown_builder = None;
    let mut description = None;
    let mut kept = Vec::new();
    for line in answer.lines() {
        if line.trim_start().starts_with("```") {
            continue;
        }
        if let Some((before, phrase)) = split_label(line, "description:") {
            let phrase = phrase.trim().trim_matches(['*', '`', '"', '\'']).trim();
            if !phrase.is_empty() {
                description = Some(phrase.to_string());
            }
            if !before.trim().is_empty() {
                kept.push(before);
            }
            continue;
        }
        // Models put the label on a line of its own or at the end of the
        // last sentence ("… in bin/. BUILDER: make").
        let Some((before, rest)) = split_label(line, "builder:") else {
            kept.push(line);
            continue;
        };
        let Some(value) = rest
            .split_whitespace()
            .map(|t| t.trim_matches(['*', '`', '"', '\'']))
            .find(|t| !t.is_empty())
        else {
            continue;
        };
        match Builder::from_key(value) {
            Some(b) => builder = Some(b),
            None => unknown_builder = Some(value.to_string()),
        }
        if !before.trim().is_empty() {
            kept.push(before);
        }
    }
    let summary: String = without_repeats(&kept.join("\n"))
        .trim()
        .chars()
        .take(SUMMARY_CHARS)
        .collect();
    ProjectAnswer {
        summary,
        builder,
        description,
        unknown_builder: if builder.is_some() {
            None
        } else {
            unknown_builder
        },
    }
}

/// The summary's first sentence when it reads as a description: a phrase
/// of three to sixteen words, with a lead-in such as "The project is"
/// taken off ("The project is a zsh plugin that …" → "a zsh plugin that …").
pub fn first_phrase(summary: &str) -> Option<String> {
    let line = summary.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.trim_start_matches(['-', '*', ' ']);
    let sentence = line.split(". ").next()?.trim_end_matches('.');
    let lower = sentence.to_ascii_lowercase();
    let lead_ins = [
        "the project is ",
        "this project is ",
        "it is ",
        "it's ",
        "this is ",
    ];
    let phrase = match lead_ins.iter().find(|p| lower.starts_with(*p)) {
        Some(p) => &sentence[p.len()..],
        None => sentence,
    };
    let words = phrase.split_whitespace().count();
    (3..=16).contains(&words).then(|| phrase.to_string())
}

/// `("text before", "rest of the line")` for a line holding `label`
/// (`builder:`, `description:`), matched without regard to case and to
/// list or code markup around it.
fn split_label<'l>(line: &'l str, label: &str) -> Option<(&'l str, &'l str)> {
    let lower = line.to_ascii_lowercase();
    let at = lower.rfind(label)?;
    // A word of its own: not `rustbuilder:`.
    if lower[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let rest = line[at + label.len()..].trim_start_matches(['*', '`', ' ']);
    let before = line[..at].trim_end_matches(['-', '*', '`', ' ']);
    Some((before, rest))
}

/// Drops sentences said before: small models fall into loops ("It uses
/// build.sh to build hello." twenty times), and every later prompt
/// carries the summary.
fn without_repeats(text: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            // Blank lines of the answer separate paragraphs; one is enough.
            if lines.last().is_some_and(|l| !l.is_empty()) {
                lines.push(String::new());
            }
            continue;
        }
        let kept: String = line
            .split_inclusive(". ")
            .filter(|sentence| seen.insert(sentence.trim().trim_end_matches('.').to_lowercase()))
            .collect();
        // A line whose every sentence was said before goes.
        if !kept.trim().is_empty() {
            lines.push(kept.trim_end().to_string());
        }
    }
    lines.join("\n")
}

/// The start of the first README in `root`.
fn readme_excerpt(root: &Path) -> Option<String> {
    let mut names: Vec<_> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.to_ascii_lowercase().starts_with("readme"))
        .collect();
    // README.md before README.rst before README.
    names.sort_by_key(|n| (!n.to_ascii_lowercase().ends_with(".md"), n.len(), n.clone()));
    let bytes = std::fs::read(root.join(names.first()?)).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let excerpt: String = text.chars().take(README_CHARS).collect();
    Some(excerpt.trim().to_string()).filter(|t| !t.is_empty())
}

/// The top-level entries of `root`, directories with a trailing `/`.
fn tree_listing(root: &Path) -> Option<String> {
    let mut entries: Vec<String> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            if name == ".git" {
                return None;
            }
            Some(if e.path().is_dir() {
                format!("{name}/")
            } else {
                name
            })
        })
        .collect();
    entries.sort();
    let more = entries.len().saturating_sub(TREE_ENTRIES);
    entries.truncate(TREE_ENTRIES);
    if more > 0 {
        entries.push(format!("(+{more} more)"));
    }
    Some(entries.join("  ")).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builder_line_is_read_and_left_out_of_the_summary() {
        let a = parse_answer(
            "A command-line tool in C that converts images.\nNeeds libpng.\n\nBUILDER: `make`\n",
        );
        assert_eq!(a.builder, Some(Builder::Make));
        assert_eq!(
            a.summary,
            "A command-line tool in C that converts images.\nNeeds libpng."
        );
        assert_eq!(a.unknown_builder, None);
    }

    #[test]
    fn a_summary_that_loops_is_cut_to_what_it_said_once() {
        let looping = format!(
            "A C program. It uses build.sh to build hello. {}It uses",
            "It uses build.sh to build hello. ".repeat(20)
        );
        let a = parse_answer(&looping);
        assert_eq!(
            a.summary,
            "A C program. It uses build.sh to build hello. It uses"
        );
        let two_lines = parse_answer("Needs zlib.\nNeeds zlib.\nInstalls bin/hello.");
        assert_eq!(two_lines.summary, "Needs zlib.\nInstalls bin/hello.");
    }

    #[test]
    fn a_builder_label_at_the_end_of_a_sentence_is_read() {
        // Qwen2.5-Coder-1.5B's answer in the end-to-end run.
        let a = parse_answer(
            "A simple C program. It installs the binary in the `bin/` directory. BUILDER: make",
        );
        assert_eq!(a.builder, Some(Builder::Make));
        assert_eq!(
            a.summary,
            "A simple C program. It installs the binary in the `bin/` directory."
        );
        assert_eq!(parse_answer("Uses a rustbuilder: cargo").builder, None);
        assert_eq!(
            parse_answer("**Builder:** `python-package`").builder,
            Some(Builder::PythonPackage)
        );
    }

    #[test]
    fn an_unknown_builder_is_reported_and_not_guessed() {
        let a = parse_answer("A Zig program.\n- Builder: zig\n");
        assert_eq!(a.builder, None);
        assert_eq!(a.unknown_builder.as_deref(), Some("zig"));
        assert_eq!(a.summary, "A Zig program.");
    }

    #[test]
    fn every_builder_key_reads_back() {
        for b in Builder::ALL {
            assert_eq!(Builder::from_key(b.key()), Some(*b));
            assert_eq!(
                Builder::from_key(&format!(" {}.", b.key().to_uppercase())),
                Some(*b)
            );
        }
    }

    #[test]
    fn the_question_shows_readme_and_tree_and_lists_builders_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("README.md"),
            "# frob\nFrobnicates widgets.\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("build.zig"), "").unwrap();
        let mut q = ProjectQuestion {
            name: "frob",
            version: Some("1.0"),
            facts: "no build system recognised",
            repo_root: dir.path(),
            ask_builder: true,
            ask_description: false,
            tools: true,
        };
        let text = request(&q).messages[0].content.clone();
        assert!(text.contains("Frobnicates widgets."), "{text}");
        assert!(text.contains("build.zig  src/"), "{text}");
        assert!(
            text.contains("- python-application: buildPythonApplication"),
            "{text}"
        );
        assert!(text.contains("BUILDER: <name>"), "{text}");
        q.ask_builder = false;
        let text = request(&q).messages[0].content.clone();
        assert!(!text.contains("BUILDER"), "{text}");
        assert!(!text.contains("python-application"), "{text}");
        assert!(!text.contains("DESCRIPTION"), "{text}");
        q.ask_description = true;
        let text = request(&q).messages[0].content.clone();
        assert!(text.contains("DESCRIPTION: <"), "{text}");
    }

    #[test]
    fn the_first_line_of_a_summary_may_serve_as_the_description() {
        assert_eq!(
            first_phrase("A simple opengl spinning cube in pascal\n\nA program\nPascal").as_deref(),
            Some("A simple opengl spinning cube in pascal")
        );
        assert_eq!(
            first_phrase(
                "The project is a zsh plugin that loads completions. It is written in shell."
            )
            .as_deref(),
            Some("a zsh plugin that loads completions")
        );
        assert_eq!(first_phrase("The project is a library."), None);
        assert_eq!(first_phrase("A program"), None);
    }

    #[test]
    fn the_description_line_is_read_and_left_out_of_the_summary() {
        let a = parse_answer(
            "A zsh plugin written in shell.\nDESCRIPTION: \"Zsh plugin that reloads completions\"\nBUILDER: generic",
        );
        assert_eq!(
            a.description.as_deref(),
            Some("Zsh plugin that reloads completions")
        );
        assert_eq!(a.builder, Some(Builder::Generic));
        assert_eq!(a.summary, "A zsh plugin written in shell.");
        assert_eq!(parse_answer("No label here.").description, None);
    }
}
