//! A parsed TOML document that still knows where each key and value sits.

use super::lines::LineIndex;
use toml_edit::{ImDocument, Item, TableLike, Value};

pub struct TomlDoc {
    doc: ImDocument<String>,
    lines: LineIndex,
}

/// A parse failure: message and 1-based line (0 when unknown).
pub struct TomlParseError {
    pub message: String,
    pub line: u32,
}

impl TomlDoc {
    pub fn parse(text: &str) -> Result<Self, TomlParseError> {
        let lines = LineIndex::new(text);
        match ImDocument::parse(text.to_string()) {
            Ok(doc) => Ok(Self { doc, lines }),
            Err(err) => Err(TomlParseError {
                message: err
                    .message()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
                line: err.span().map_or(0, |s| lines.line(s.start)),
            }),
        }
    }

    pub fn root(&self) -> &dyn TableLike {
        self.doc.as_table()
    }

    /// The table at a dotted path (`["tool", "poetry"]`), table or inline.
    pub fn table(&self, path: &[&str]) -> Option<&dyn TableLike> {
        let mut t: &dyn TableLike = self.doc.as_table();
        for key in path {
            t = t.get(key)?.as_table_like()?;
        }
        Some(t)
    }

    /// Line of `key` in `table` (the key's own line, else its value's).
    pub fn key_line(&self, table: &dyn TableLike, key: &str) -> u32 {
        if let Some(span) = table.key(key).and_then(|k| k.span()) {
            return self.lines.line(span.start);
        }
        table.get(key).map_or(0, |item| self.item_line(item))
    }

    pub fn item_line(&self, item: &Item) -> u32 {
        item.span().map_or(0, |s| self.lines.line(s.start))
    }

    pub fn value_line(&self, value: &Value) -> u32 {
        value.span().map_or(0, |s| self.lines.line(s.start))
    }
}

/// A string value of `key` in `table`.
pub fn str_of(table: &dyn TableLike, key: &str) -> Option<String> {
    table.get(key)?.as_str().map(str::to_string)
}

/// The string items of an array value (non-strings skipped).
pub fn strings_of(item: &Item) -> Vec<(String, &Value)> {
    item.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(|s| (s.to_string(), v)))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_keys_and_items() {
        let text = "[project]\nname = \"x\"\ndependencies = [\n  \"a\",\n  \"b>=1\",\n]\n";
        let Ok(doc) = TomlDoc::parse(text) else {
            panic!("parse")
        };
        let Some(p) = doc.table(&["project"]) else {
            panic!("no project")
        };
        assert_eq!(doc.key_line(p, "name"), 2);
        let Some(deps) = p.get("dependencies") else {
            panic!("no deps")
        };
        let items = strings_of(deps);
        assert_eq!(doc.value_line(items[1].1), 5);
        let Err(err) = TomlDoc::parse("a = 1\nb = [\n") else {
            panic!("should fail")
        };
        assert!(err.line >= 2, "{}", err.line);
    }
}
