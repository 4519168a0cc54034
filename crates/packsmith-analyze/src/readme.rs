//! A one-paragraph description from the README.

use crate::context::Ctx;
use packsmith_core::{Evidence, Sourced};

const README_FILES: &[&str] = &[
    "README.md",
    "README.rst",
    "README.markdown",
    "README.txt",
    "README",
    "readme.md",
    "Readme.md",
];

/// The longest description kept, in characters.
const MAX_DESCRIPTION: usize = 600;

/// The README's first paragraph of prose, skipping headings, badges,
/// HTML, tables, code blocks and link-only lines.
pub fn description(ctx: &mut Ctx<'_>) -> Option<Sourced<String>> {
    let name = README_FILES.iter().find(|n| ctx.view.exists(n))?;
    let text = ctx.read(name)?;
    man_page_summary(&text)
        .or_else(|| tagline_heading(&text))
        .or_else(|| first_paragraph(&text))
        .map(|(para, line)| Sourced::new(para, Evidence::new(*name, line)))
}

/// A README that is a rendered manual page: the summary of its NAME
/// section (`nextvi - A small vi/ex terminal text editor`).
fn man_page_summary(text: &str) -> Option<(String, u32)> {
    let lines: Vec<&str> = text.lines().take(12).collect();
    let name_at = lines.iter().position(|l| l.trim() == "NAME")?;
    let (offset, line) = lines
        .iter()
        .enumerate()
        .skip(name_at + 1)
        .find(|(_, l)| !l.trim().is_empty())?;
    let (_, summary) = line.trim().split_once(" - ")?;
    let summary = summary.trim();
    (!summary.is_empty()).then(|| (summary.to_string(), offset as u32 + 1))
}

/// The file's first heading when it is a tagline rather than a name:
/// four words or more opening with an article (`## A portable, simple
/// zip library written in C`).
fn tagline_heading(text: &str) -> Option<(String, u32)> {
    let (n, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with('#'))?;
    let heading = line.trim().trim_start_matches('#').trim();
    let opens_with_article = ["A ", "An ", "The "].iter().any(|a| heading.starts_with(a));
    (opens_with_article && heading.split_whitespace().count() >= 4)
        .then(|| (heading.to_string(), n as u32 + 1))
}

fn is_noise(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('#')
        || t.starts_with('<')
        || t.starts_with("[![")
        || t.starts_with("![")
        || t.starts_with('|')
        || t.starts_with(".. ")
        || t.starts_with(':')
        || t.chars().all(|c| "=-~*^_`#+".contains(c))
        || (t.starts_with('[') && t.ends_with(')'))
        || (t.starts_with("http") && !t.contains(' '))
        || is_link_definition(t)
        || is_list_item(t)
        || t.starts_with('>')
        || t.starts_with('&')
}

/// `[read the docs]: https://…`: a Markdown link reference definition.
fn is_link_definition(t: &str) -> bool {
    t.strip_prefix('[')
        .and_then(|r| r.split_once("]:"))
        .is_some_and(|(label, _)| !label.is_empty() && !label.contains(']'))
}

/// `- item`, `* item`, `1. item`: a list is no paragraph of prose (a
/// "Requirements" list is no description).
fn is_list_item(t: &str) -> bool {
    let numbered = t
        .split_once(". ")
        .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") || numbered
}

fn first_paragraph(text: &str) -> Option<(String, u32)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut in_code = false;
    // Whether the paragraph before ended with a colon: what follows it,
    // indented, is the example it introduces (`make CC=clang …`).
    let mut after_colon = false;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
            i += 1;
            continue;
        }
        // An RST title is the line above an underline; skip both.
        let underlined = lines
            .get(i + 1)
            .map(|n| {
                let n = n.trim();
                !n.is_empty() && n.chars().all(|c| "=-~^*".contains(c)) && n.len() >= 3
            })
            .unwrap_or(false);
        if in_code || t.is_empty() || is_noise(t) || underlined {
            i += if underlined { 2 } else { 1 };
            continue;
        }
        let start = i;
        let mut para = Vec::new();
        while i < lines.len() {
            let t = lines[i].trim();
            if t.is_empty() || is_noise(t) {
                break;
            }
            para.push(t);
            i += 1;
        }
        // Indented four columns it is a code block; indented at all after
        // a line that introduces something, an example: no prose either.
        let indent: usize = lines[start]
            .chars()
            .take_while(|c| c.is_whitespace())
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum();
        if indent >= 4 || (indent > 0 && after_colon) {
            continue;
        }
        after_colon = para.last().is_some_and(|l| l.ends_with(':'));
        // A short first line (three words or fewer) is a caption unless
        // its sentence goes on below it, unfinished and in lower case:
        // then it is the subject (`mimalloc (pronounced "me-malloc")` /
        // `is a …`).
        let short = |l: &str| l.split_whitespace().count() < 4;
        let open = para
            .first()
            .is_some_and(|l| !l.ends_with(['.', '!', '?', ':']));
        let continues = open
            && para
                .get(1)
                .and_then(|l| l.chars().next())
                .is_some_and(|c| c.is_lowercase());
        if para.first().is_some_and(|l| short(l)) && !continues {
            i = start + 1;
            continue;
        }
        let mut joined = para
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        // "You can install it with pip:" introduces a command, it
        // describes nothing; "X is a module for Y. It allows you to:"
        // describes in the sentences before the one that introduces.
        if joined.ends_with(':') {
            match joined.rfind(". ") {
                Some(end) if joined[..end].split_whitespace().count() >= 4 => {
                    joined.truncate(end + 1);
                }
                _ => continue,
            }
        }
        if joined.chars().count() > MAX_DESCRIPTION {
            joined = joined.chars().take(MAX_DESCRIPTION).collect::<String>() + "…";
        }
        return Some((joined, start as u32 + 1));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::first_paragraph;

    #[test]
    fn a_short_first_line_is_the_paragraphs_subject() {
        let md = "# mimalloc\n\n&nbsp;\n\nmimalloc (pronounced \"me-malloc\")\nis a general purpose allocator.\n";
        assert_eq!(
            first_paragraph(md).unwrap().0,
            "mimalloc (pronounced \"me-malloc\") is a general purpose allocator."
        );
        // Alone, or before a sentence of its own, a short line is a caption.
        let md = "Welcome!\nzfp is an open-source library for arrays.\n";
        assert_eq!(
            first_paragraph(md).unwrap().0,
            "zfp is an open-source library for arrays."
        );
        let md = "Fast and small\n\nzfp is an open-source library for arrays.\n";
        assert_eq!(
            first_paragraph(md).unwrap().0,
            "zfp is an open-source library for arrays."
        );
    }

    #[test]
    fn skips_link_definitions_and_lists() {
        let text = "# aio\n\n[pypi_]: https://pypi.org/project/aio/\n[read the docs]: https://aio.readthedocs.io/\n\n## Requirements\n\n- Go 1.25+ - Required for proper module support\n1. first step of many here\n\nAsync client for the owserver protocol of OWFS.\n";
        let (para, line) = first_paragraph(text).unwrap();
        assert_eq!(para, "Async client for the owserver protocol of OWFS.");
        let install = "# x\n\nYou can install x via pip from PyPI:\n\n> A quoted remark on fonts here.\n\nX reads widgets from files.\n";
        assert_eq!(
            first_paragraph(install).unwrap().0,
            "X reads widgets from files."
        );
        assert_eq!(line, 11);
        let list = "# u\n\n`u` is a small module designed for macOS. It allows you to:\n\n- do one thing\n";
        assert_eq!(
            first_paragraph(list).unwrap().0,
            "`u` is a small module designed for macOS."
        );
    }

    /// A plain-text README shows its commands indented under the line
    /// that introduces them (tinycbor): they are no description.
    #[test]
    fn indented_examples_and_code_blocks_are_not_prose() {
        let text = "Concise Binary Object Representation (CBOR) Library\n---------------------------------------------------\n\nTo build TinyCBOR:\n\n  make\n\nIf you want to change the compiler or pass extra compiler flags:\n\n  make CC=clang CFLAGS=\"-m32 -Oz\" LDFLAGS=\"-m32\"\n\nDocumentation: https://intel.github.io/tinycbor/current/\n";
        assert_eq!(first_paragraph(text), None);
        let code = "# x\n\n    x --input a.txt --output b.txt --verbose\n\nX converts text files between encodings.\n";
        assert_eq!(
            first_paragraph(code).unwrap().0,
            "X converts text files between encodings."
        );
        // Indented prose that nothing introduces is still prose.
        let indented = "  X converts text files between encodings.\n";
        assert_eq!(
            first_paragraph(indented).unwrap().0,
            "X converts text files between encodings."
        );
    }

    #[test]
    fn a_tagline_heading_or_a_manual_pages_name_section() {
        let md = "## A portable, simple zip library written in C\n\nThis is done by hacking miniz and layering functions on it.\n";
        assert_eq!(
            super::tagline_heading(md),
            Some(("A portable, simple zip library written in C".to_string(), 1))
        );
        assert_eq!(super::tagline_heading("# zfp\n\nzfp is a library.\n"), None);
        assert_eq!(super::tagline_heading("# A tool\n"), None);
        let man = "Nextvi(1)    General Commands Manual    Nextvi(1)\n\nNAME\n     Nextvi - A small vi/ex terminal text editor\n\nSYNOPSIS\n";
        assert_eq!(
            super::man_page_summary(man),
            Some(("A small vi/ex terminal text editor".to_string(), 4))
        );
        assert_eq!(super::man_page_summary(md), None);
    }

    #[test]
    fn skips_badges_and_headings() {
        let md = "# zfp\n[![Build](x)](y)\n\nzfp is an open-source library for compressed\nnumerical arrays.\n\nMore.";
        let (p, line) = first_paragraph(md).unwrap();
        assert_eq!(
            p,
            "zfp is an open-source library for compressed numerical arrays."
        );
        assert_eq!(line, 4);
        let rst = "Kokkos\n======\n\nKokkos Core implements a programming model in C++.\n";
        assert_eq!(
            first_paragraph(rst).unwrap().0,
            "Kokkos Core implements a programming model in C++."
        );
    }
}
