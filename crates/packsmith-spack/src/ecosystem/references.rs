//! Reference recipes from the knowledge base, cut to what helps a model:
//! the class and its directives and methods, without the licence header.

use packsmith_agent::{Reference, References};

use packsmith_spack_knowledge::kb::{KbError, KnowledgeBase};
use packsmith_spack_knowledge::retrieve::Retrieval;

/// The recipe without its leading comment block and blank lines, at most
/// `max_lines` lines.
pub fn compact_recipe(text: &str, max_lines: usize) -> String {
    let body: Vec<&str> = text
        .lines()
        .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
        .collect();
    let mut out: Vec<&str> = Vec::new();
    let mut blank = false;
    for l in body {
        if l.trim().is_empty() {
            if blank {
                continue;
            }
            blank = true;
        } else {
            blank = false;
        }
        out.push(l);
        if out.len() >= max_lines {
            break;
        }
    }
    out.join("\n")
}

/// The retrieved packages' recipes as loop references.
pub fn references_from(
    kb: &KnowledgeBase,
    retrieval: &Retrieval,
    max_lines: usize,
) -> Result<References, KbError> {
    let mut items = Vec::new();
    for m in &retrieval.matches {
        if let Some(text) = kb.recipe_text(&m.name)? {
            items.push(Reference {
                name: m.name.clone(),
                text: compact_recipe(&text, max_lines),
                why: m.why.clone(),
            });
        }
    }
    Ok(References { items })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_dropped_and_length_capped() {
        let text = "# Copyright 2013\n# SPDX\n\nfrom spack.package import *\n\n\nclass A(Package):\n    pass\n";
        assert_eq!(
            compact_recipe(text, 3),
            "from spack.package import *\n\nclass A(Package):"
        );
    }
}
