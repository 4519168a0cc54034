//! The directory tree rendered for a prompt, within a character budget.
//!
//! Deeper levels are added while the rendering still fits; directories that
//! do not fit are collapsed to a one-line summary (`src/ (412 files)`), and
//! long listings end with `… N more`.

use crate::view::RepoView;
use std::collections::BTreeMap;

/// Directories that hold build outputs or tooling, never shown.
const HIDDEN_DIRS: &[&str] = &[
    "build",
    "_build",
    "builddir",
    "target",
    "CMakeFiles",
    "dist-newstyle",
];

/// The default budget, in characters.
pub const DEFAULT_BUDGET: usize = 3000;

#[derive(Default)]
struct Node {
    dirs: BTreeMap<String, Node>,
    files: Vec<String>,
    total_files: usize,
}

impl Node {
    fn insert(&mut self, parts: &[&str]) {
        self.total_files += 1;
        match parts {
            [] => {}
            [file] => self.files.push((*file).to_string()),
            [dir, rest @ ..] => self
                .dirs
                .entry((*dir).to_string())
                .or_default()
                .insert(rest),
        }
    }
}

fn shown(name: &str) -> bool {
    !name.starts_with('.') && !HIDDEN_DIRS.contains(&name)
}

/// Renders the tree of `view` in at most `budget` characters.
pub fn render(view: &RepoView, budget: usize) -> String {
    let mut root = Node::default();
    for file in view.files() {
        let parts: Vec<&str> = file.rel.split('/').collect();
        let dirs_shown = parts[..parts.len() - 1].iter().all(|p| shown(p));
        if dirs_shown {
            root.insert(&parts);
        }
    }
    let mut best: Option<String> = None;
    for max_entries in [40, 20, 10, 5] {
        for depth in 1..=12 {
            let mut out = String::new();
            render_node(&root, "", depth, max_entries, &mut out);
            if out.len() <= budget {
                best = Some(out);
            } else {
                break;
            }
        }
        if best.is_some() {
            break;
        }
    }
    best.unwrap_or_else(|| {
        let mut out = String::new();
        render_node(&root, "", 1, 5, &mut out);
        cut_to_budget(&out, budget)
    })
}

fn cut_to_budget(text: &str, budget: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if out.len() + line.len() + 1 + 16 > budget {
            out.push_str("… (truncated)\n");
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn render_node(node: &Node, prefix: &str, depth: usize, max_entries: usize, out: &mut String) {
    let mut dirs: Vec<(&String, &Node)> = node.dirs.iter().filter(|(n, _)| shown(n)).collect();
    dirs.sort_by_key(|(n, _)| n.to_lowercase());
    let mut files: Vec<&String> = node.files.iter().collect();
    files.sort_by_key(|n| n.to_lowercase());
    let entries: Vec<(&String, Option<&Node>)> = dirs
        .into_iter()
        .map(|(n, c)| (n, Some(c)))
        .chain(files.into_iter().map(|n| (n, None)))
        .collect();
    let hidden = entries.len().saturating_sub(max_entries);
    let listed = entries.len() - hidden;
    for (i, (name, child)) in entries.iter().take(listed).enumerate() {
        let last = hidden == 0 && i + 1 == listed;
        let (branch, indent) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        match child {
            Some(child) if depth <= 1 && child.total_files > 0 => {
                out.push_str(&format!(
                    "{prefix}{branch}{name}/ ({} files)\n",
                    child.total_files
                ));
            }
            Some(child) => {
                out.push_str(&format!("{prefix}{branch}{name}/\n"));
                render_node(
                    child,
                    &format!("{prefix}{indent}"),
                    depth.saturating_sub(1),
                    max_entries,
                    out,
                );
            }
            None => out.push_str(&format!("{prefix}{branch}{name}\n")),
        }
    }
    if hidden > 0 {
        out.push_str(&format!("{prefix}└── … {hidden} more\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tree_is_shown_whole() {
        let (_d, view) =
            crate::view::test_view(&["CMakeLists.txt", "src/a.c", "src/b.c", "build/junk.o"]);
        let tree = render(&view, 1000);
        assert_eq!(
            tree,
            "├── src/\n│   ├── a.c\n│   └── b.c\n└── CMakeLists.txt\n"
        );
    }

    #[test]
    fn big_tree_is_collapsed_within_budget() {
        let mut paths: Vec<String> = (0..500).map(|i| format!("src/deep/f{i}.c")).collect();
        paths.push("README.md".into());
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let (_d, view) = crate::view::test_view(&refs);
        let tree = render(&view, 400);
        assert!(tree.len() <= 400, "{tree}");
        assert!(tree.contains("README.md"));
        assert!(
            tree.contains("more") || tree.contains("(500 files)"),
            "{tree}"
        );
    }
}
