//! A README's Markdown as the plain text a package description wants:
//! links and images by their text, emphasis and code marks dropped. Both
//! the Spack docstring and nixpkgs' `meta.description` take it.

/// `[text](url)`, `[text][ref]`, `[text][]` and `![alt](url)` become their
/// text; `*` and backticks go (underscores stay: they are in identifiers as
/// often as emphasis), and so do inline HTML marks (`R<sup>2</sup>` → `R^2`).
pub fn plain_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let (before, from) = rest.split_at(open);
        // `matrix[i][j]` indexes, it links nothing.
        let indexes = before.ends_with(|c: char| c.is_alphanumeric());
        let Some((label, after)) = link_at(from).filter(|_| !indexes) else {
            out.push_str(before);
            out.push('[');
            rest = &from[1..];
            continue;
        };
        out.push_str(before.strip_suffix('!').unwrap_or(before));
        out.push_str(label);
        rest = after;
    }
    out.push_str(rest);
    without_marks(&out)
}

/// `[label](target)` or `[label][ref]` at the start of `s`: the label and
/// what follows.
fn link_at(s: &str) -> Option<(&str, &str)> {
    let close = s.find(']')?;
    let label = &s[1..close];
    let after = &s[close + 1..];
    let (open, shut) = match after.chars().next()? {
        '(' => ('(', ')'),
        '[' => ('[', ']'),
        _ => return None,
    };
    let target = after.strip_prefix(open)?;
    let end = target.find(shut)?;
    Some((label, &target[end + 1..]))
}

/// Inline HTML a README's prose uses, and what each becomes.
const INLINE_HTML: &[(&str, &str)] = &[
    ("<sup>", "^"),
    ("</sup>", ""),
    ("<sub>", "_"),
    ("</sub>", ""),
    ("<b>", ""),
    ("</b>", ""),
    ("<i>", ""),
    ("</i>", ""),
    ("<em>", ""),
    ("</em>", ""),
    ("<strong>", ""),
    ("</strong>", ""),
    ("<code>", ""),
    ("</code>", ""),
    ("<br>", " "),
    ("<br/>", " "),
    ("<br />", " "),
];

/// Drops emphasis stars, code backticks and inline HTML marks.
fn without_marks(s: &str) -> String {
    let mut out = s.replace(['*', '`'], "");
    for (tag, text) in INLINE_HTML {
        out = out.replace(tag, text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::plain_markdown;

    #[test]
    fn links_images_emphasis_and_code_become_text() {
        assert_eq!(
            plain_markdown(
                "[OpenGL Mathematics](http://glm.g-truc.net/) (*GLM*) is a header only library"
            ),
            "OpenGL Mathematics (GLM) is a header only library"
        );
        assert_eq!(
            plain_markdown(
                "`yaml-cpp` is a [YAML](http://www.yaml.org/) parser with **more** speed"
            ),
            "yaml-cpp is a YAML parser with more speed"
        );
        assert_eq!(plain_markdown("![logo](a.png) x_y stays"), "logo x_y stays");
        // Brackets that are no link stay.
        assert_eq!(plain_markdown("array[0] and [note]"), "array[0] and [note]");
        assert_eq!(plain_markdown("a [b](c"), "a [b](c");
        // Reference links, and HTML marks; an include's brackets stay.
        assert_eq!(
            plain_markdown("used by [Node.js][], [Luvit][luvit] and R<sup>2</sup>"),
            "used by Node.js, Luvit and R^2"
        );
        assert_eq!(
            plain_markdown("add #include <x.hpp>"),
            "add #include <x.hpp>"
        );
        // As the regex `!?\[([^\]]*)\]\([^)]*\)` replaced by its label.
        assert_eq!(plain_markdown("[![Build](x)](y)"), "![Build](y)");
    }
}
