//! Recovery for recipes tree-sitter cannot place: an unclosed bracket can turn
//! the whole module into one ERROR node. We cut the file into statements by
//! indentation (module level and class-body level), parse each on its own
//! (class-body statements together with their `class` header, through
//! tree-sitter's included ranges so positions stay those of the file), and
//! re-parse the file keeping only the statements that parse.

use tree_sitter::{Parser, Point, Range, Tree};

/// One statement: byte range and first line (0-based), plus the header of
/// the class it belongs to (`None` at module level).
#[derive(Clone, Copy)]
struct Chunk {
    start: usize,
    end: usize,
    row: usize,
    header: Option<usize>,
}

struct Line {
    start: usize,
    end: usize,
    indent: usize,
    text_start: char,
    is_class: bool,
}

fn lines(source: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for raw in source.split_inclusive('\n') {
        let trimmed = raw.trim_start_matches([' ', '\t']);
        out.push(Line {
            start,
            end: start + raw.len(),
            indent: raw.len() - trimmed.len(),
            text_start: trimmed.chars().next().unwrap_or('\n'),
            is_class: trimmed.starts_with("class "),
        });
        start += raw.len();
    }
    out
}

/// Lines that continue the previous statement rather than start one.
fn continues(line: &Line) -> bool {
    matches!(line.text_start, '\n' | '\r' | '#' | ')' | ']' | '}')
}

fn continues_block(source: &str, line: &Line) -> bool {
    let text = source.get(line.start..line.end).unwrap_or("").trim_start();
    ["else", "elif ", "except", "finally"]
        .iter()
        .any(|k| text.starts_with(k))
}

fn chunks(source: &str, lines: &[Line]) -> (Vec<Chunk>, Vec<(usize, usize, usize)>) {
    let mut out: Vec<Chunk> = Vec::new();
    // (header start, header end, header row)
    let mut headers: Vec<(usize, usize, usize)> = Vec::new();
    let mut current_header: Option<usize> = None;
    let mut body_indent: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let starts = !continues(line) && !continues_block(source, line);
        if starts && line.indent == 0 && line.is_class {
            // The header runs until a line ending in `:`.
            let mut j = i;
            while j < lines.len() {
                let t = source.get(lines[j].start..lines[j].end).unwrap_or("");
                let code = t.split('#').next().unwrap_or("").trim_end();
                if code.ends_with(':') {
                    break;
                }
                j += 1;
            }
            let j = j.min(lines.len() - 1);
            headers.push((line.start, lines[j].end, i));
            current_header = Some(headers.len() - 1);
            body_indent = None;
            i = j + 1;
            continue;
        }
        let level = match (line.indent, body_indent, current_header) {
            (0, _, _) => Some(None),
            (n, None, Some(h)) if starts => {
                body_indent = Some(n);
                Some(Some(h))
            }
            (n, Some(b), Some(h)) if n == b => Some(Some(h)),
            _ => None,
        };
        match level {
            Some(header) if starts => {
                if header.is_none() {
                    current_header = None;
                }
                out.push(Chunk {
                    start: line.start,
                    end: line.end,
                    row: i,
                    header,
                });
            }
            _ => {
                if let Some(last) = out.last_mut() {
                    last.end = line.end;
                }
            }
        }
        i += 1;
    }
    (out, headers)
}

fn range(source: &str, start: usize, end: usize, row: usize) -> Range {
    let end_row = row + source.get(start..end).unwrap_or("").matches('\n').count();
    Range {
        start_byte: start,
        end_byte: end,
        start_point: Point { row, column: 0 },
        end_point: Point {
            row: end_row,
            column: 0,
        },
    }
}

/// Longest statement the recovery re-parses on its own.
const MAX_STATEMENT_BYTES: usize = 64 * 1024;

/// Parse only the statements that parse on their own. Returns the tree and
/// the failed parses of the dropped statements (their errors are reported).
/// Gives up (None) at `deadline`, shared with the whole-file parse.
pub fn recover(
    parser: &mut Parser,
    source: &str,
    deadline: std::time::Instant,
) -> Option<(Tree, Vec<Tree>)> {
    let lines = lines(source);
    let (chunks, headers) = chunks(source, &lines);
    // A statement this long is no recipe's: re-parsing it costs the whole
    // budget in tree-sitter's error recovery, which checks the deadline
    // too seldom to stop in time. The whole-file parse stands.
    if chunks.iter().any(|c| c.end - c.start > MAX_STATEMENT_BYTES) {
        return None;
    }
    let mut keep: Vec<Range> = Vec::new();
    let mut dropped: Vec<Tree> = Vec::new();
    let mut used_headers = vec![false; headers.len()];
    // The statement-wise parses took seconds on a hostile file (found by
    // packsmith-fuzz); past the deadline, no recovery.
    for chunk in &chunks {
        if std::time::Instant::now() > deadline {
            parser.set_included_ranges(&[]).ok()?;
            return None;
        }
        let body = range(source, chunk.start, chunk.end, chunk.row);
        let mut ranges = Vec::new();
        if let Some(h) = chunk.header {
            let (hs, he, hr) = *headers.get(h)?;
            ranges.push(range(source, hs, he, hr));
        }
        ranges.push(body);
        parser.set_included_ranges(&ranges).ok()?;
        let Some(tree) = crate::pywalk::parse_until(parser, source, deadline) else {
            continue;
        };
        if !tree.root_node().has_error() {
            if let Some(h) = chunk.header {
                if let Some(u) = used_headers.get_mut(h) {
                    *u = true;
                }
            }
            keep.push(body);
        } else {
            dropped.push(tree);
        }
    }
    for (h, used) in used_headers.iter().enumerate() {
        if *used {
            let (hs, he, hr) = *headers.get(h)?;
            keep.push(range(source, hs, he, hr));
        }
    }
    keep.sort_by_key(|r| r.start_byte);
    let result = if keep.is_empty() {
        None
    } else {
        parser.set_included_ranges(&keep).ok()?;
        crate::pywalk::parse_until(parser, source, deadline)
    };
    // Leave the parser reading whole files again.
    parser.set_included_ranges(&[]).ok()?;
    result.map(|t| (t, dropped))
}
