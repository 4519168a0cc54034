//! The report's extras (a variant check, a distillation's tokens) in
//! report.md: what a backend adds is plain JSON the agent does not know,
//! so it is shown by shape: single values as a list, lists of records as
//! a table like the attempts, anything deeper as compact JSON.

use serde_json::{Map, Value};

/// Longest cell, in characters, before it is cut.
const CELL_CHARS: usize = 80;

/// One extra as a Markdown section.
pub fn section(name: &str, value: &Value) -> String {
    let mut s = format!("\n## {}\n\n", title(name));
    match value {
        Value::Object(fields) => {
            let (tables, scalars): (Vec<_>, Vec<_>) =
                fields.iter().partition(|(_, v)| records(v).is_some());
            for (key, v) in scalars {
                s.push_str(&format!("- {}: {}\n", title(key), cell(v)));
            }
            for (key, v) in tables {
                let rows = records(v).unwrap_or_default();
                s.push_str(&format!("\n{}:\n\n{}", title(key), table(&rows)));
            }
        }
        other => match records(other) {
            Some(rows) => s.push_str(&table(&rows)),
            None => s.push_str(&format!("{}\n", cell(other))),
        },
    }
    s
}

/// `variant_check` → `variant check`.
fn title(key: &str) -> String {
    key.replace('_', " ")
}

/// A non-empty array whose items are all objects.
fn records(value: &Value) -> Option<Vec<&Map<String, Value>>> {
    let items = value.as_array().filter(|a| !a.is_empty())?;
    items.iter().map(Value::as_object).collect()
}

/// Columns in first-seen order over all rows (a record's keys come
/// sorted); a missing field is empty.
fn table(rows: &[&Map<String, Value>]) -> String {
    let mut columns: Vec<&str> = Vec::new();
    for row in rows {
        for key in row.keys() {
            if !columns.contains(&key.as_str()) {
                columns.push(key);
            }
        }
    }
    let mut s = format!(
        "| {} |\n",
        columns
            .iter()
            .map(|c| title(c))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    s.push_str(&format!("|{}\n", " --- |".repeat(columns.len())));
    for row in rows {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| row.get(*c).map(cell).unwrap_or_default())
            .collect();
        s.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    s
}

/// One value on one table line: a text's first line, JSON for the rest,
/// cut at [`CELL_CHARS`], `|` escaped.
fn cell(value: &Value) -> String {
    let text = match value {
        Value::Null => String::new(),
        Value::String(t) => {
            let mut lines = t.lines();
            let first = lines.next().unwrap_or("").to_string();
            if lines.next().is_some() {
                format!("{first} …")
            } else {
                first
            }
        }
        other => other.to_string(),
    };
    let cut: String = text.chars().take(CELL_CHARS).collect();
    let cut = if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    };
    cut.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_records_is_a_table_and_single_values_a_list() {
        let value = serde_json::json!({
            "package": "demo",
            "duration": 1.5,
            "results": [
                {"variant": "mpi", "passed": true, "excerpt": "line one\nline two"},
                {"variant": "shared", "passed": false, "failure": "concretization"}
            ],
            "skipped": []
        });
        let md = section("variant_check", &value);
        assert!(md.starts_with("\n## variant check\n\n"), "{md}");
        assert!(md.contains("- package: demo\n"), "{md}");
        assert!(md.contains("- duration: 1.5\n"), "{md}");
        assert!(md.contains("- skipped: []\n"), "{md}");
        assert!(
            md.contains("| excerpt | passed | variant | failure |\n| --- | --- | --- | --- |\n"),
            "{md}"
        );
        assert!(md.contains("| line one … | true | mpi |  |\n"), "{md}");
        assert!(
            md.contains("|  | false | shared | concretization |\n"),
            "{md}"
        );
        assert!(!md.contains("```"), "{md}");
    }

    #[test]
    fn cells_stay_on_one_line_and_escape_bars() {
        assert_eq!(cell(&Value::String("a|b".into())), "a\\|b");
        let long = "x".repeat(200);
        assert_eq!(cell(&Value::String(long)).chars().count(), CELL_CHARS + 1);
        assert_eq!(
            cell(&serde_json::json!({"prompt_tokens": 3})),
            "{\"prompt_tokens\":3}"
        );
    }
}
