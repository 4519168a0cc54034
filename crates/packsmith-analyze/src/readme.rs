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

/// The description: what the README's opening says (a manual page's NAME,
/// a tagline heading, the first describing paragraph under the title),
/// else the one the build or package metadata declares (`declared`), else
/// what the README says further down (the title's tagline, a later
/// paragraph). A project's declared one-liner beats a guess.
pub fn description(
    ctx: &mut Ctx<'_>,
    declared: Option<Sourced<String>>,
) -> Option<Sourced<String>> {
    let Some(name) = README_FILES.iter().find(|n| ctx.view.exists(n)) else {
        return declared;
    };
    let Some(text) = ctx.read(name) else {
        return declared;
    };
    let (opening, further) = readme_descriptions(&text);
    let sourced = |(para, line): (String, u32)| {
        let para = if name.ends_with(".rst") {
            rst_references_as_text(&para)
        } else {
            para
        };
        Sourced::new(para, Evidence::new(*name, line))
    };
    opening
        .map(sourced)
        .or(declared)
        .or_else(|| further.map(sourced))
}

/// A description found in the README, with its line.
type Found = Option<(String, u32)>;

/// What the README's opening says, and what it says further down (the
/// title's tagline, a later paragraph).
fn readme_descriptions(text: &str) -> (Found, Found) {
    let paras = paragraphs(text);
    let opening = man_page_summary(text)
        .or_else(|| tagline_heading(text))
        .or_else(|| intro_paragraph(&paras));
    let further = title_tagline(text).or_else(|| later_paragraph(&paras));
    (opening, further)
}

/// reStructuredText's hyperlink references as their text: `Jansson_` →
/// `Jansson`, `` `Comprehensive documentation`_ `` and `` `text <url>`__ ``
/// → the text.
fn rst_references_as_text(para: &str) -> String {
    let mut out = String::new();
    let mut rest = para;
    // Backquoted references first: `…`_ or `…`__, opened by the last
    // backquote before them (an inline literal `x` may come first).
    while let Some(close) = rest.find("`_") {
        let Some(open) = rest[..close].rfind('`') else {
            break;
        };
        let inner = &rest[open + 1..close];
        let text = match inner.rfind(" <") {
            Some(at) if inner.ends_with('>') => &inner[..at],
            _ => inner,
        };
        out.push_str(&rest[..open]);
        out.push_str(text);
        rest = rest[close + 2..].trim_start_matches('_');
    }
    out.push_str(rest);
    out.split(' ')
        .map(|word| {
            let end = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
            let bare = end.trim_end_matches('_');
            let reference = bare.len() < end.len()
                && bare.chars().next().is_some_and(char::is_alphanumeric)
                && bare
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '.');
            if reference {
                format!("{bare}{}", &word[end.len()..])
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
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

/// `[text](url)`, possibly with punctuation after it: a Markdown link
/// (not a badge, `[![…`).
fn is_inline_link(t: &str) -> bool {
    t.starts_with('[') && !t.starts_with("[![") && t.contains("](")
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

/// A paragraph of prose, with where it starts and the section it is in.
struct Paragraph {
    text: String,
    line: u32,
    /// Headings seen before it: 0 before any, 1 under the title.
    section: usize,
    /// Under a heading of notes rather than description (installation,
    /// changes, authors, licence, …).
    in_notes: bool,
    /// Under a heading that announces a description (Overview, About, …).
    in_overview: bool,
}

/// Words of a heading whose first paragraph is the description.
const OVERVIEW_HEADINGS: &[&str] = &[
    "overview",
    "about",
    "introduction",
    "description",
    "summary",
];

fn is_overview_heading(heading: &str) -> bool {
    heading
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| OVERVIEW_HEADINGS.contains(&w.to_lowercase().as_str()))
}

/// Words of a section heading whose paragraphs say how to build, what
/// changed, who wrote it or under which terms, not what the project is.
const NOTES_HEADINGS: &[&str] = &[
    "install",
    "installation",
    "installing",
    "build",
    "building",
    "compile",
    "compiling",
    "compilation",
    "usage",
    "using",
    "changelog",
    "changes",
    "change",
    "news",
    "release",
    "releases",
    "what's",
    "authors",
    "author",
    "credits",
    "contributors",
    "contributing",
    "license",
    "licence",
    "licensing",
    "copyright",
    "testing",
    "tests",
    "examples",
    "example",
    "requirements",
    "dependencies",
    "prerequisites",
    "documentation",
    "support",
    "contact",
    "acknowledgments",
    "acknowledgements",
    "citation",
    "citing",
    "contents",
    "content",
    "faq",
    "quickstart",
    "download",
    "history",
];

fn is_notes_heading(heading: &str) -> bool {
    heading
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| NOTES_HEADINGS.contains(&w.to_lowercase().as_str()))
}

/// Openings of paragraphs that instruct, credit, license or announce
/// rather than describe.
const NOT_DESCRIPTIONS: &[&str] = &[
    "copyright",
    "(c)",
    "©",
    "author",
    "written by",
    "maintained by",
    "contact",
    "see ",
    "please ",
    "for more",
    "for a detailed",
    "for details",
    "looking for",
    "to build",
    "to install",
    "to compile",
    "to use",
    "to run",
    "to get",
    "to introduce",
    "if you",
    "you should",
    "you may",
    "note:",
    "note that",
    "warning",
    "important:",
    "maintainance release",
    "maintenance release",
    "this release",
    "what's new",
    "table of contents",
    "first,",
    "second,",
    "then,",
    "next,",
    "finally,",
    "!note",
    "!warning",
    "!important",
    "!tip",
];

/// Whether a paragraph says what the project is: not a notice, a credit,
/// an instruction, a question, a bar of links or a table of contents.
fn describes(paragraph: &str) -> bool {
    let lower = paragraph
        .trim_start_matches(['*', '_', '`', '['])
        .to_lowercase();
    let licence_terms = [
        "all rights reserved",
        "redistribution",
        "warrant",
        "hereby granted",
    ];
    if NOT_DESCRIPTIONS.iter().any(|o| lower.starts_with(o))
        || licence_terms.iter().any(|t| lower.contains(t))
        || shouts(paragraph)
        || looks_like_code(paragraph)
        || fields(paragraph)
    {
        return false;
    }
    let first_sentence = lower.split(". ").next().unwrap_or(&lower);
    let links_bar = paragraph.contains(" • ") || paragraph.matches(" | ").count() >= 2;
    let contents = (lower.starts_with("a)") && lower.contains(" b)"))
        || (lower.starts_with("1)") && lower.contains(" 2)"));
    !first_sentence.trim_end().ends_with('?') && !links_bar && !contents
}

/// `Key: value` at the start of a line (or after the previous field, the
/// paragraph's lines joined), the key a capitalised word or three.
static FIELD: std::sync::LazyLock<Option<regex::Regex>> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(?:^|\s)[A-Z][\w/-]*(?: [\w/-]+){0,2}: ").ok());

/// A paragraph of fields (`Base code: Rockstar`, `Repository: https://…`,
/// `Paper: …`): the project's particulars, not what it is.
fn fields(paragraph: &str) -> bool {
    FIELD
        .as_ref()
        .is_some_and(|re| re.find_iter(paragraph).count() >= 2)
}

/// A paragraph mostly in capitals: a licence's disclaimer, a banner.
fn shouts(paragraph: &str) -> bool {
    let letters = paragraph.chars().filter(|c| c.is_alphabetic());
    let (upper, all) = letters.fold((0, 0), |(u, a), c| (u + c.is_uppercase() as usize, a + 1));
    all >= 40 && upper * 2 > all
}

/// Settings or code outside a code block (`BUILD_TYPE="Release" # …`):
/// prose seldom has one in twenty characters of `=;{}#$"`.
fn looks_like_code(paragraph: &str) -> bool {
    let marks = paragraph
        .chars()
        .filter(|c| "=;{}#$\"".contains(*c))
        .count();
    marks * 20 > paragraph.chars().count()
}

/// Whether a paragraph tells how to get or build the project (`X can be
/// built and installed …`), which a notes section's prose often does.
fn instructs(paragraph: &str) -> bool {
    let lower = paragraph.to_lowercase();
    [
        "install", "built", "build", "compil", "download", "cmake", "conda", "pip ",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// The title heading's text and how many lines it takes, when line `i`
/// starts one: `# Title`, or a line underlined with `=`, `-`, `~`, … (RST,
/// Setext).
fn heading_at(lines: &[&str], i: usize) -> Option<(String, usize)> {
    let t = lines.get(i)?.trim();
    if t.starts_with('#') {
        let text = t.trim_start_matches('#').trim_end_matches('#').trim();
        // A badge is no word of the heading (`# Commons [![Build Status](…)]`
        // is no build section).
        let text = text.split("[![").next().unwrap_or(text);
        let text = text.split("![").next().unwrap_or(text).trim();
        return Some((text.to_string(), 1));
    }
    let underline = lines.get(i + 1)?.trim();
    let is_rule = |l: &str| l.len() >= 3 && l.chars().all(|c| "=-~^*".contains(c));
    (!t.is_empty() && !is_rule(t) && is_rule(underline)).then(|| (t.to_string(), 2))
}

/// The prose of a line of HTML (`<p>cereal is a header-only …</p>`),
/// when it holds a sentence of its own.
fn html_prose(line: &str) -> Option<String> {
    let text = without_tags(line);
    (text.split_whitespace().count() >= 6 && text.contains('.')).then_some(text)
}

/// The text of a line of HTML, its words single-spaced.
fn without_tags(line: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in line.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every paragraph of prose in the README, in order: code blocks,
/// badges, lists, HTML, link definitions, captions, indented examples
/// and commands they introduce left out.
fn paragraphs(text: &str) -> Vec<Paragraph> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut in_code = false;
    let mut section = 0;
    let mut in_notes = false;
    let mut in_overview = false;
    // Whether prose came before: a quote after it is a remark.
    let mut seen_prose = false;
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
        if in_code {
            i += 1;
            continue;
        }
        if let Some((heading, taken)) = heading_at(&lines, i) {
            section += 1;
            in_notes = is_notes_heading(&heading);
            in_overview = is_overview_heading(&heading);
            i += taken;
            continue;
        }
        if t.starts_with('<') {
            if let Some(prose) = html_prose(t) {
                let line = i as u32 + 1;
                out.push(Paragraph {
                    text: prose,
                    line,
                    section,
                    in_notes,
                    in_overview,
                });
            }
            i += 1;
            continue;
        }
        // A block quote right under the title is its tagline (cohomCalg's
        // `> A software package for computation of …`); after prose, a
        // remark.
        if t.starts_with('>') {
            let start = i;
            let mut quoted = Vec::new();
            while let Some(q) = lines.get(i).and_then(|l| l.trim().strip_prefix('>')) {
                let q = q.trim();
                if !q.is_empty() && !q.starts_with("![") {
                    quoted.push(q);
                }
                i += 1;
            }
            let text = quoted.join(" ");
            if section <= 1 && !seen_prose && text.split_whitespace().count() >= 4 {
                out.push(Paragraph {
                    text,
                    line: start as u32 + 1,
                    section,
                    in_notes,
                    in_overview,
                });
            }
            continue;
        }
        if t.is_empty() || is_noise(t) {
            i += 1;
            continue;
        }
        let start = i;
        seen_prose = true;
        let mut para = Vec::new();
        while i < lines.len() {
            let t = lines[i].trim();
            // A link on a line of its own inside an unfinished sentence
            // (`capable of splitting,` / `[merging](…),`) is part of it.
            let link_in_sentence = is_inline_link(t)
                && para
                    .last()
                    .is_some_and(|l: &&str| !l.ends_with(['.', '!', '?', ':']));
            if t.is_empty() || (is_noise(t) && !link_in_sentence) || heading_at(&lines, i).is_some()
            {
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
        let joined = within_limit(joined);
        out.push(Paragraph {
            text: joined,
            line: start as u32 + 1,
            section,
            in_notes,
            in_overview,
        });
    }
    out
}

/// A paragraph cut to [`MAX_DESCRIPTION`] characters of its text as read
/// (a link counts by its words, not its address): at the last whole
/// sentence that fits, else mid-sentence with an ellipsis.
fn within_limit(para: String) -> String {
    let read_length = |t: &str| packsmith_core::markdown::plain_markdown(t).chars().count();
    if read_length(&para) <= MAX_DESCRIPTION {
        return para;
    }
    let whole = para
        .match_indices(". ")
        .map(|(at, _)| &para[..=at])
        .take_while(|s| read_length(s) <= MAX_DESCRIPTION)
        .last();
    match whole {
        Some(s) => s.to_string(),
        None => para.chars().take(MAX_DESCRIPTION).collect::<String>() + "…",
    }
}

/// The first describing paragraph before or under the title.
fn intro_paragraph(paras: &[Paragraph]) -> Option<(String, u32)> {
    paras
        .iter()
        .find(|p| p.section <= 1 && !p.in_notes && describes(&p.text))
        .map(|p| (p.text.clone(), p.line))
}

/// The first describing paragraph anywhere: the first under an Overview
/// or About heading, else one outside notes sections, else one in them that
/// does not instruct; past the opening, only whole sentences count
/// (`module load cray-hdf5` is a command without a code block).
fn later_paragraph(paras: &[Paragraph]) -> Option<(String, u32)> {
    let sentences = |p: &&Paragraph| p.text.ends_with(['.', '!', '…']) && describes(&p.text);
    paras
        .iter()
        .find(|p| p.in_overview && describes(&p.text))
        .or_else(|| paras.iter().filter(sentences).find(|p| !p.in_notes))
        .or_else(|| paras.iter().filter(sentences).find(|p| !instructs(&p.text)))
        .map(|p| (p.text.clone(), p.line))
}

/// The paragraph rules alone, as the tests read them.
#[cfg(test)]
fn first_paragraph(text: &str) -> Option<(String, u32)> {
    let paras = paragraphs(text);
    intro_paragraph(&paras).or_else(|| later_paragraph(&paras))
}

/// The title's tagline when the README's opening says nothing: `cereal -
/// A C++11 library for serialization`, `CLI11: Command line parser for
/// C++11`, a title of four words or more that is no file name (`Concise
/// Binary Object Representation (CBOR) Library`), or a heading right under
/// the title that reads as one (`## Compute quality functions of …`).
fn title_tagline(text: &str) -> Option<(String, u32)> {
    let lines: Vec<&str> = text.lines().collect();
    let (at, (title, taken)) =
        (0..lines.len()).find_map(|i| heading_at(&lines, i).map(|h| (i, h)))?;
    // `*<div align = right><sub>Design By Achno</sub></div>*`: its words.
    let title = without_tags(&title)
        .trim_matches(['*', '_'])
        .trim()
        .to_string();
    let words = |s: &str| s.split_whitespace().count();
    let capitalized = |s: &str| {
        let mut c = s.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    let split = [" - ", " — ", " – ", ": "]
        .iter()
        .find_map(|sep| title.split_once(sep));
    if let Some((name, tagline)) = split {
        if words(name) <= 3 && words(tagline) >= 3 && !is_notes_heading(tagline) {
            return Some((capitalized(tagline.trim()), at as u32 + 1));
        }
    }
    let lower = title.to_lowercase();
    // `libfaketime, version 0.9.12 (June 2025)` names a release.
    let names_a_release = lower.contains("version")
        || title
            .split_whitespace()
            .any(|w| w.split('.').count() >= 2 && w.split('.').all(|p| p.parse::<u32>().is_ok()));
    if split.is_none()
        && words(&title) >= 4
        && !lower.contains("readme")
        && !names_a_release
        && !is_notes_heading(&title)
    {
        return Some((title, at as u32 + 1));
    }
    let next = (at + taken..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    let (sub, _) = heading_at(&lines, next)?;
    let tagline = words(&sub) >= 4 && !sub.ends_with(':') && !is_notes_heading(&sub);
    tagline.then(|| (sub, next as u32 + 1))
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

    /// A link on a line of its own inside a sentence goes on with it (the
    /// link's markup is the renderer's to drop); at a paragraph's start, or
    /// after a finished sentence, it stays noise.
    #[test]
    fn a_link_line_inside_a_sentence_is_part_of_the_paragraph() {
        let md = "# pypdf\n\npypdf is a PDF library capable of splitting,\n[merging](https://x.io/m.html),\n[cropping, and transforming](https://x.io/c.html)\nthe pages of PDF files.\n";
        assert_eq!(
            first_paragraph(md).unwrap().0,
            "pypdf is a PDF library capable of splitting, [merging](https://x.io/m.html), \
             [cropping, and transforming](https://x.io/c.html) the pages of PDF files."
        );
        let md = "[docs](https://x.io)\n\nzfp is a library for arrays.\n[docs](https://x.io)\n";
        assert_eq!(
            first_paragraph(md).unwrap().0,
            "zfp is a library for arrays."
        );
    }

    /// The limit counts what a reader reads: long link addresses do not cut
    /// a paragraph short; a paragraph over it ends on its last whole
    /// sentence that fits.
    #[test]
    fn a_long_paragraph_ends_on_a_whole_sentence() {
        let link = format!("[merging](https://example.org/{}.html)", "m".repeat(700));
        let md = format!("pypdf is a PDF library capable of {link} PDF files. It reads text.\n");
        assert!(md.len() > super::MAX_DESCRIPTION);
        assert!(first_paragraph(&md).unwrap().0.ends_with("It reads text."));
        let sentence = "This library does one useful thing for its users. ";
        let md = sentence.repeat(20);
        let cut = first_paragraph(&md).unwrap().0;
        assert!(cut.chars().count() <= super::MAX_DESCRIPTION, "{cut}");
        assert!(cut.ends_with("for its users."), "{cut}");
        let words = "word ".repeat(200);
        assert!(first_paragraph(&words).unwrap().0.ends_with('…'));
    }

    /// A badge in the title is none of its words: `Build Status` does not
    /// make the title a build section whose prose describes nothing.
    #[test]
    fn a_badge_in_the_title_is_no_heading_word() {
        let md = "# Commons [![Build Status](https://ci.org/x.svg)](https://ci.org/x)\n\n\
                  Contains common codes used for ISCD softwares (Linear algebra, Chrono, I/O...)\n";
        assert_eq!(
            first_paragraph(md).unwrap().0,
            "Contains common codes used for ISCD softwares (Linear algebra, Chrono, I/O...)"
        );
        assert_eq!(
            super::heading_at(&["## Build ![ok](b.svg)"], 0).unwrap().0,
            "Build"
        );
    }

    #[test]
    fn rst_references_become_their_text() {
        assert_eq!(
            super::rst_references_as_text("Jansson_ is a C library for JSON data."),
            "Jansson is a C library for JSON data."
        );
        assert_eq!(
            super::rst_references_as_text(
                "See `the docs <https://x.org>`__ and `Comprehensive documentation`_, or zlib_."
            ),
            "See the docs and Comprehensive documentation, or zlib."
        );
        // Underscores inside a word, or a word of underscores, stay.
        assert_eq!(
            super::rst_references_as_text("call my_func or __init__ here"),
            "call my_func or __init__ here"
        );
    }

    /// What the README's opening or title says, when its first prose is a
    /// notice, a credit, an instruction or a question.
    fn describe(text: &str) -> Option<String> {
        let (opening, further) = super::readme_descriptions(text);
        opening.or(further).map(|(p, _)| p)
    }

    #[test]
    fn notices_credits_instructions_and_questions_are_no_description() {
        let notices = "# Tool

Copyright 2025 A. Person

**Authors:** A, B

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AS IS AND WITHOUT WARRANTY.

Looking for documentation? Visit the site.

See INSTALL for instructions.

## Overview

Tool converts meshes between formats
";
        assert_eq!(
            describe(notices).as_deref(),
            Some("Tool converts meshes between formats")
        );
        // A bar of links and a table of contents.
        let bars = "[What's new](a) • [Docs](b) • [API](c)

a) Basics b) Advanced use c) Limits

Tool converts meshes between formats.
";
        assert_eq!(
            describe(bars).as_deref(),
            Some("Tool converts meshes between formats.")
        );
        // Settings outside a code block, and commands past the opening.
        let code = "# t

## Setup

BUILD_TYPE=\"Release\" # or Debug
ENABLE_MPI=\"ON\"

## Cluster

module load cray-hdf5
";
        assert_eq!(describe(code), None);
    }

    #[test]
    fn a_paragraph_of_fields_is_no_description() {
        let text = "# MPI-Halo: a parallel halo finder\n\nCopyright(c) 2024 A. Author\n\n\
                    Base code: Halo ( (c) 2011 B. Author)\nRepository: https://example.org/halo/\n\
                    Science Paper: https://example.org/paper/\n\n\
                    MPI-Halo is a massively parallel halo finder.\n";
        assert_eq!(
            describe(text).as_deref(),
            Some("MPI-Halo is a massively parallel halo finder.")
        );
        // One colon in a sentence is prose.
        let prose = "# Tool\n\nTool: a fast parser for logs of every kind.\n";
        assert_eq!(
            describe(prose).as_deref(),
            Some("Tool: a fast parser for logs of every kind.")
        );
    }

    #[test]
    fn a_title_tagline_when_the_opening_says_nothing() {
        let dash =
            "cereal - A C++11 library for serialization\n===\n\n### Docs\n\nLooking for more?\n";
        assert_eq!(
            describe(dash).as_deref(),
            Some("A C++11 library for serialization")
        );
        let colon = "muparser: fast math parser library\n===\n\nChange Notes\n===\n\nMaintenance release of the build.\n";
        assert_eq!(describe(colon).as_deref(), Some("Fast math parser library"));
        let subheading = "# Verdict\n## Compute quality functions of 2 and 3-dimensional regions.\n\n## Building\n\nTo build with CMake\n";
        assert_eq!(
            describe(subheading).as_deref(),
            Some("Compute quality functions of 2 and 3-dimensional regions.")
        );
        let long = "Concise Binary Object Representation (CBOR) Library\n---\n\nTo build TinyCBOR:\n\n  make\n";
        assert_eq!(
            describe(long).as_deref(),
            Some("Concise Binary Object Representation (CBOR) Library")
        );
        // A title that names a release is none; the Introduction is read.
        let release = "libfaketime, version 0.9.12 (June 2025)\n===\n\nContent of this file:\n---\n\n1. Introduction\n---\n\nlibfaketime intercepts system calls that read the time.\n";
        assert_eq!(
            describe(release).as_deref(),
            Some("libfaketime intercepts system calls that read the time.")
        );
        // Prose in the opening wins over the tagline.
        let prose = "# CLI11: Command line parser for C++11\n\n[Docs](d) • [API](a)\n\nCLI11 is a command line parser for C++11 and beyond.\n";
        assert_eq!(
            describe(prose).as_deref(),
            Some("CLI11 is a command line parser for C++11 and beyond.")
        );
    }

    #[test]
    fn a_quote_under_the_title_or_a_line_of_html_is_prose() {
        let quote = "# cohomCalg\n[![release](b)](r)\n\n> ![logo](l.png)\n> A software package for computation of sheaf cohomologies\n> for line bundles on toric varieties.\n\n**Authors:** A, B\n";
        assert_eq!(
            describe(quote).as_deref(),
            Some("A software package for computation of sheaf cohomologies for line bundles on toric varieties.")
        );
        let html = "cereal\n===\n\n<img src=\"x.png\"/><p>cereal is a header-only C++11 serialization library. It is fast.</p>\n";
        assert_eq!(
            describe(html).as_deref(),
            Some("cereal is a header-only C++11 serialization library. It is fast.")
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
