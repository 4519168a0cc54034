//! Cutting a log down to what a model should read.

use std::sync::LazyLock;

use regex::Regex;

/// Most lines an excerpt has.
pub const MAX_LINES: usize = 40;
/// Most bytes an excerpt has.
pub const MAX_BYTES: usize = 4096;
/// Longer lines (a full cmake command line) are cut to this many bytes.
const MAX_LINE: usize = 300;

static ANSI: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").ok());

/// Removes colour codes.
pub fn strip_ansi(text: &str) -> String {
    match ANSI.as_ref() {
        Some(re) => re.replace_all(text, "").into_owned(),
        None => text.to_string(),
    }
}

fn cut_line(line: &str) -> String {
    if line.len() <= MAX_LINE {
        return line.to_string();
    }
    let mut end = MAX_LINE;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …[{} bytes cut]", &line[..end], line.len() - end)
}

/// Caps `lines` to [`MAX_LINES`] lines and [`MAX_BYTES`] bytes, cutting
/// over-long lines and dropping repeated blank lines.
pub fn cap<S: AsRef<str>>(lines: &[S]) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut last_blank = true;
    for line in lines {
        let line = cut_line(line.as_ref().trim_end());
        let blank = line.trim().is_empty();
        if blank && last_blank {
            continue;
        }
        if count == MAX_LINES || out.len() + line.len() + 1 > MAX_BYTES {
            out.push_str("…(excerpt cut)\n");
            break;
        }
        out.push_str(&line);
        out.push('\n');
        count += 1;
        last_blank = blank;
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The lines from `start` while `keep` holds for them (the first line is
/// always kept), at most `max`.
pub fn block<'a>(
    lines: &[&'a str],
    start: usize,
    max: usize,
    keep: impl Fn(&str) -> bool,
) -> Vec<&'a str> {
    let mut out = vec![lines[start]];
    for line in lines.iter().skip(start + 1).take(max.saturating_sub(1)) {
        if !keep(line) {
            break;
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_lines_bytes_and_long_lines() {
        let many: Vec<String> = (0..100).map(|i| format!("line {i}")).collect();
        let text = cap(&many);
        assert_eq!(text.lines().count(), MAX_LINES + 1);
        let long = vec!["x".repeat(5000)];
        assert!(cap(&long).len() < 400);
        assert_eq!(strip_ansi("\x1b[0;91m==> Error\x1b[0m"), "==> Error");
    }
}
