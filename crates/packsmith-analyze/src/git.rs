//! The few git queries analysis needs, through packsmith-exec.

use packsmith_exec::{run, CommandSpec};
use std::path::Path;
use std::time::Duration;

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let spec = CommandSpec::new("git")
        .arg("-C")
        .arg(root)
        .args(args.iter().copied())
        .env("GIT_TERMINAL_PROMPT", "0")
        .timeout(Duration::from_secs(30));
    let out = run(&spec).ok()?;
    out.success().then_some(out.stdout)
}

pub fn head_commit(root: &Path) -> Option<String> {
    git(root, &["rev-parse", "HEAD"]).map(|s| s.trim().to_string())
}

pub fn origin_url(root: &Path) -> Option<String> {
    git(root, &["config", "--get", "remote.origin.url"])
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Every tag with the commit it points to (peeled for annotated tags).
pub fn tags(root: &Path) -> Vec<(String, String)> {
    let Some(out) = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname:short) %(objectname) %(*objectname)",
            "refs/tags",
        ],
    ) else {
        return Vec::new();
    };
    out.lines()
        .filter_map(|line| {
            let mut parts = line.split_whitespace();
            let tag = parts.next()?.to_string();
            let object = parts.next()?.to_string();
            let peeled = parts.next().map(str::to_string);
            Some((tag, peeled.unwrap_or(object)))
        })
        .collect()
}
