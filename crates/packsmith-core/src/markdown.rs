//! A README's Markdown as the plain text a package description wants:
//! links and images by their text, emphasis and code marks dropped. Both
//! the Spack docstring and nixpkgs' `meta.description` take it.

/// `[text](url)` and `![alt](url)` become their text; `*` and backticks
/// go (underscores stay: they are in identifiers as often as emphasis).
pub fn plain_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let (before, from) = rest.split_at(open);
        let Some((label, after)) = link_at(from) else {
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

/// `[label](target)` at the start of `s`: the label and what follows.
fn link_at(s: &str) -> Option<(&str, &str)> {
    let close = s.find(']')?;
    let label = &s[1..close];
    let target = s[close + 1..].strip_prefix('(')?;
    let end = target.find(')')?;
    Some((label, &target[end + 1..]))
}

/// Drops emphasis stars and code backticks.
fn without_marks(s: &str) -> String {
    s.replace(['*', '`'], "")
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
        // As the regex `!?\[([^\]]*)\]\([^)]*\)` replaced by its label.
        assert_eq!(plain_markdown("[![Build](x)](y)"), "![Build](y)");
    }
}
