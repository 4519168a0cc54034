//! A small INI reader (setup.cfg, Meson .wrap files) that keeps line numbers.
//!
//! Continuation lines (indented) extend the previous key's value; each
//! non-empty value line is kept separately with its own line number.

/// One `key = value` entry, with the value split into its lines.
#[derive(Debug, Clone)]
pub struct IniEntry {
    pub section: String,
    pub key: String,
    pub line: u32,
    /// Non-empty value lines (the text after `=` first, then continuations).
    pub values: Vec<(String, u32)>,
}

impl IniEntry {
    /// The value lines joined with newlines.
    pub fn joined(&self) -> String {
        self.values
            .iter()
            .map(|(v, _)| v.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Parses `text`; malformed lines are skipped (they name no key anyway).
pub fn parse(text: &str) -> Vec<IniEntry> {
    let mut entries: Vec<IniEntry> = Vec::new();
    let mut section = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indented = raw.starts_with(' ') || raw.starts_with('\t');
        if indented {
            if let Some(last) = entries.last_mut() {
                if last.section == section {
                    last.values.push((strip_comment(trimmed), line_no));
                    continue;
                }
            }
        }
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            section = trimmed[1..trimmed.len() - 1].trim().to_string();
            continue;
        }
        let Some(eq) = trimmed.find(['=', ':']) else {
            continue;
        };
        let key = trimmed[..eq].trim().to_string();
        let value = strip_comment(trimmed[eq + 1..].trim());
        let values = if value.is_empty() {
            Vec::new()
        } else {
            vec![(value, line_no)]
        };
        entries.push(IniEntry {
            section: section.clone(),
            key,
            line: line_no,
            values,
        });
    }
    entries
}

/// Drops an inline ` #` comment (only after whitespace, so URLs keep `#`).
fn strip_comment(v: &str) -> String {
    match v.find(" #") {
        Some(i) => v[..i].trim_end().to_string(),
        None => v.to_string(),
    }
}

/// The entry `key` of `section`, if present.
pub fn get<'a>(entries: &'a [IniEntry], section: &str, key: &str) -> Option<&'a IniEntry> {
    entries
        .iter()
        .find(|e| e.section == section && e.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_lines_keep_their_numbers() {
        let text = "[options]\ninstall_requires =\n    numpy>=1.20\n    scipy\nzip_safe = False\n";
        let e = parse(text);
        let req = get(&e, "options", "install_requires").map(|e| e.values.clone());
        assert_eq!(
            req,
            Some(vec![("numpy>=1.20".into(), 3), ("scipy".into(), 4)])
        );
        assert_eq!(get(&e, "options", "zip_safe").map(|e| e.line), Some(5));
    }
}
