//! A text flattened for phrase matching (lower case, one space between
//! words, comment leaders gone) that still knows each phrase's line.

/// Characters that open a comment line in the languages whose headers carry
/// licence notices (`//`, `/*`, ` * `, `#`, `--`, `;`, `!`, `%`).
const COMMENT_LEADERS: &[char] = &['/', '*', '#', '-', ';', '!', '%'];

/// The flattened text, and where each source line starts in it.
pub struct Normalised {
    text: String,
    /// (byte offset in `text`, 1-based line) for every non-blank line.
    line_starts: Vec<(usize, u32)>,
}

impl Normalised {
    pub fn new(source: &str) -> Self {
        let mut text = String::new();
        let mut line_starts = Vec::new();
        for (index, line) in source.lines().enumerate() {
            let words = flattened_line(line);
            if words.is_empty() {
                continue;
            }
            if !text.is_empty() {
                text.push(' ');
            }
            line_starts.push((text.len(), index as u32 + 1));
            text.push_str(&words);
        }
        Self { text, line_starts }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where `phrase` (already lower case, single-spaced) first occurs.
    pub fn find(&self, phrase: &str) -> Option<usize> {
        self.text.find(phrase)
    }

    /// The 1-based line of the source that holds byte `offset` of the text.
    pub fn line_of(&self, offset: usize) -> u32 {
        let after = self
            .line_starts
            .partition_point(|(start, _)| *start <= offset);
        after
            .checked_sub(1)
            .and_then(|i| self.line_starts.get(i))
            .map_or(0, |(_, line)| *line)
    }
}

/// One line lower-cased, without its comment leader or a closing `*/`,
/// typographic quotes made plain and runs of whitespace made one space.
fn flattened_line(line: &str) -> String {
    let line = line.trim();
    let line = line.strip_suffix("*/").unwrap_or(line);
    line.trim_start_matches(COMMENT_LEADERS)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
        .replace(['\u{2018}', '\u{2019}'], "'")
        .replace(['\u{201c}', '\u{201d}'], "\"")
}

#[cfg(test)]
mod tests {
    use super::Normalised;

    #[test]
    fn phrases_across_comment_lines_keep_their_line() {
        let source = "#include <x.h>\n\n/*\n * either version 3 of the License, or\n * (at your option) any later version.\n */\n";
        let text = Normalised::new(source);
        let at = text.find("license, or (at your option) any later").unwrap();
        assert_eq!(text.line_of(at), 4);
        assert_eq!(text.line_of(text.find("any later").unwrap()), 5);
        assert_eq!(text.line_of(0), 1);
    }

    #[test]
    fn an_empty_text_has_no_lines() {
        let text = Normalised::new("\n  \n");
        assert_eq!(text.text(), "");
        assert_eq!(text.line_of(0), 0);
    }
}
