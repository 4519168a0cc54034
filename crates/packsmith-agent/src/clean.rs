//! Cleaning a model's answer before it is checked: markdown fences and the
//! prose around them are the commonest cause of "syntax errors" in model
//! output (spackit-notes §11.11), and cost nothing to remove.

/// The recipe inside `raw`: the longest fenced code block when there is
/// one (an unterminated last fence runs to the end), otherwise the text
/// itself. Surrounding blank lines are trimmed; a trailing newline is kept.
pub fn strip_fences(raw: &str) -> String {
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in raw.lines() {
        let fence = line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~");
        match (&mut current, fence) {
            (None, true) => current = Some(Vec::new()),
            (Some(_), true) => {
                if let Some(block) = current.take() {
                    blocks.push(block);
                }
            }
            (Some(block), false) => block.push(line),
            (None, false) => {}
        }
    }
    if let Some(block) = current.take() {
        blocks.push(block);
    }
    let body = match blocks
        .into_iter()
        .max_by_key(|b| b.iter().map(|l| l.len() + 1).sum::<usize>())
    {
        Some(block) => block.join("\n"),
        None => raw.to_string(),
    };
    let trimmed = body.trim_matches('\n').trim_end();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("{trimmed}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_fenced_block_and_drops_prose() {
        let raw = "Here is the recipe:\n```python\nclass Foo:\n    pass\n```\nHope it helps.";
        assert_eq!(strip_fences(raw), "class Foo:\n    pass\n");
    }

    #[test]
    fn picks_the_longest_block() {
        let raw = "```sh\nspack install foo\n```\ntext\n```nix\n{ lib }:\nlib.id\n{ }\n```";
        assert_eq!(strip_fences(raw), "{ lib }:\nlib.id\n{ }\n");
    }

    #[test]
    fn unterminated_fence_runs_to_end() {
        assert_eq!(strip_fences("```\na\nb"), "a\nb\n");
    }

    #[test]
    fn plain_text_is_kept() {
        assert_eq!(
            strip_fences("\n\nclass A:\n  x = 1\n\n"),
            "class A:\n  x = 1\n"
        );
        assert_eq!(strip_fences("   \n"), "");
    }
}
