//! Model output often arrives wrapped in a markdown fence or with a line
//! of prose before the code. Detect it, and strip it for the agent.

use super::{Code, Diagnostic};
use crate::recipe::ParsedRecipe;

fn is_fence(line: &str) -> bool {
    line.trim_start().starts_with("```")
}

/// How a Python file may start: a comment, import, class, decorator,
/// docstring, or a statement.
fn looks_like_python(line: &str) -> bool {
    let t = line.trim_start();
    [
        "#", "from ", "import ", "class ", "def ", "@", "\"\"\"", "'''", "\"", "'", "if ", "try:",
    ]
    .iter()
    .any(|p| t.starts_with(p))
        || t.split_once('=').is_some_and(|(lhs, _)| {
            !lhs.trim().is_empty()
                && lhs
                    .trim()
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == ' ' || c == ',')
        })
}

pub(super) fn check(source: &str, recipe: &ParsedRecipe, out: &mut Vec<Diagnostic>) {
    for (i, line) in source.lines().enumerate() {
        if is_fence(line) {
            out.push(Diagnostic::new(
                Code::Markdown,
                i as u32 + 1,
                1,
                "markdown code fence in the recipe; the file must be plain Python (strip the ``` lines)",
            ));
        }
    }
    // Prose only counts when Python itself chokes on the first line.
    if let Some((i, line)) = source
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
    {
        let first_line = i as u32 + 1;
        if !is_fence(line)
            && !looks_like_python(line)
            && recipe
                .syntax_errors
                .iter()
                .any(|e| e.line <= first_line + 1)
        {
            out.push(Diagnostic::new(
                Code::Markdown,
                first_line,
                1,
                "text before the code; the file must start with Python (imports or a comment)",
            ));
        }
    }
}

/// Recipe text with fences and surrounding prose removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleaned {
    pub code: String,
    /// True when anything was removed.
    pub changed: bool,
}

/// Strips markdown around a model's recipe: the content of the first
/// ```python fence (else the first fence) when there is one, else the
/// prose lines before the first Python-looking line and after the last
/// indented or Python-looking line.
pub fn strip_markdown(text: &str) -> Cleaned {
    let lines: Vec<&str> = text.lines().collect();
    let fences: Vec<usize> = (0..lines.len()).filter(|&i| is_fence(lines[i])).collect();
    let body: Vec<&str> = if fences.len() >= 2 {
        let pairs: Vec<(usize, usize)> = fences
            .chunks(2)
            .filter(|c| c.len() == 2)
            .map(|c| (c[0], c[1]))
            .collect();
        let chosen = pairs
            .iter()
            .find(|(open, _)| {
                lines[*open]
                    .trim()
                    .trim_start_matches('`')
                    .trim()
                    .eq_ignore_ascii_case("python")
            })
            .or_else(|| pairs.iter().max_by_key(|(a, b)| b - a))
            .copied()
            .unwrap_or((fences[0], fences[1]));
        lines[chosen.0 + 1..chosen.1].to_vec()
    } else {
        let kept: Vec<&str> = lines.iter().copied().filter(|l| !is_fence(l)).collect();
        let start = kept.iter().position(|l| looks_like_python(l)).unwrap_or(0);
        let end = kept
            .iter()
            .rposition(|l| l.starts_with(' ') || l.starts_with('\t') || looks_like_python(l))
            .map_or(kept.len(), |i| i + 1);
        kept[start..end.max(start)].to_vec()
    };
    let mut code = body.join("\n");
    code.push('\n');
    let changed = code.trim_end() != text.trim_end();
    Cleaned { code, changed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_fences_and_prose() {
        let text = "Here is the recipe:\n```python\nfrom spack.package import *\n\nclass Foo(Package):\n    pass\n```\nHope it helps.\n";
        let c = strip_markdown(text);
        assert!(c.changed);
        assert_eq!(
            c.code,
            "from spack.package import *\n\nclass Foo(Package):\n    pass\n"
        );
        let plain = "from spack.package import *\n\nclass Foo(Package):\n    pass\n";
        assert_eq!(
            strip_markdown(plain),
            Cleaned {
                code: plain.to_string(),
                changed: false
            }
        );
        let prose = "Sure! Below.\nfrom spack.package import *\nclass Foo(Package):\n    pass\nLet me know.\n";
        assert_eq!(
            strip_markdown(prose).code,
            "from spack.package import *\nclass Foo(Package):\n    pass\n"
        );
    }
}
