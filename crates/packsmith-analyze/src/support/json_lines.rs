//! Where each key of a JSON document sits: serde_json gives values but no
//! positions, so this scanner maps key paths to 1-based lines.

use std::collections::HashMap;

struct Frame {
    is_object: bool,
    expect_key: bool,
    key: Option<String>,
    index: usize,
}

/// Maps each key path (`["dependencies", "lodash"]`) to the line of its key.
/// Runs on any text; on malformed JSON it simply records less.
pub fn key_lines(text: &str) -> HashMap<Vec<String>, u32> {
    let mut out = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut line: u32 = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '"' => {
                let start_line = line;
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some(e) = chars.next() {
                                s.push(e);
                            }
                        }
                        '"' => break,
                        '\n' => {
                            line += 1;
                            s.push(c);
                        }
                        _ => s.push(c),
                    }
                }
                if let Some(top) = stack.last_mut() {
                    if top.is_object && top.expect_key {
                        top.expect_key = false;
                        let mut p = path.clone();
                        p.push(s.clone());
                        out.entry(p).or_insert(start_line);
                        top.key = Some(s);
                    }
                }
            }
            '{' | '[' => {
                if let Some(top) = stack.last() {
                    let name = if top.is_object {
                        top.key.clone().unwrap_or_default()
                    } else {
                        top.index.to_string()
                    };
                    path.push(name);
                }
                stack.push(Frame {
                    is_object: c == '{',
                    expect_key: c == '{',
                    key: None,
                    index: 0,
                });
            }
            '}' | ']' => {
                stack.pop();
                if !stack.is_empty() {
                    path.pop();
                }
            }
            ',' => {
                if let Some(top) = stack.last_mut() {
                    if top.is_object {
                        top.expect_key = true;
                    } else {
                        top.index += 1;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_keys() {
        let text = "{\n \"name\": \"x\",\n \"dependencies\": {\n  \"@a/b\": \"^1\",\n  \"c\": \"2\"\n },\n \"files\": [\"a\", {\"k\": 1}]\n}";
        let m = key_lines(text);
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(m.get(&p(&["name"])), Some(&2));
        assert_eq!(m.get(&p(&["dependencies", "@a/b"])), Some(&4));
        assert_eq!(m.get(&p(&["dependencies", "c"])), Some(&5));
        assert_eq!(m.get(&p(&["files", "1", "k"])), Some(&7));
    }
}
