//! Checks the spec parser against real recipes. Ignored by default; run:
//!
//! ```text
//! PACKSMITH_SPEC_SCAN_DIRS=/path/to/builtin/packages:/other/packages \
//!   cargo test -p packsmith-spack-knowledge --test all spec_real_repos -- --ignored --nocapture
//! ```
//!
//! Every string-literal first argument of `depends_on(` / `conflicts(` and
//! every `when=` literal is parsed. A crude regex harvests them; f-strings
//! and concatenations are counted apart because their text is not the spec.

use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::spec;
use regex::Regex;

const DIRS_VAR: &str = "PACKSMITH_SPEC_SCAN_DIRS";

#[derive(Default)]
struct Tally {
    files: usize,
    parsed: usize,
    dynamic: usize,
    commented: usize,
    rejects: Vec<String>,
}

fn package_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path().join("package.py"))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn scan_file(path: &Path, literal: &Regex, tally: &mut Tally) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    tally.files += 1;
    for caps in literal.captures_iter(&text) {
        let body = caps.name("body").or_else(|| caps.name("body2"));
        let (Some(prefix), Some(body), Some(after)) =
            (caps.name("prefix"), body, caps.name("after"))
        else {
            continue;
        };
        // Commented-out directives are not Spack input (and some are invalid).
        let whole = caps.get(0).map_or(0, |m| m.start());
        let line_start = text[..whole].rfind('\n').map_or(0, |i| i + 1);
        if text[line_start..whole].contains('#') {
            tally.commented += 1;
            continue;
        }
        let prefix = prefix.as_str().to_ascii_lowercase();
        // f-strings, `%`/`+`/`.format` and implicit concatenation hide the real spec.
        if prefix.contains('f') || matches!(after.as_str(), "+" | "%" | "." | "\"" | "'") {
            tally.dynamic += 1;
            continue;
        }
        let raw = body.as_str();
        let text = raw.replace("\\\"", "\"").replace("\\'", "'");
        match spec::parse(&text) {
            Ok(parsed) => {
                tally.parsed += 1;
                // The canonical form must parse back to itself.
                let shown = parsed.to_string();
                match spec::parse(&shown) {
                    Ok(again) if again.to_string() == shown => {}
                    other => tally.rejects.push(format!(
                        "{}: round trip of {text:?} via {shown:?}: {other:?}",
                        path.display()
                    )),
                }
            }
            Err(e) => tally.rejects.push(format!("{}: {e}", path.display())),
        }
    }
}

#[test]
#[ignore = "needs Spack package checkouts; set PACKSMITH_SPEC_SCAN_DIRS"]
fn real_recipes_parse() {
    let Ok(dirs) = std::env::var(DIRS_VAR) else {
        eprintln!("SKIPPED: {DIRS_VAR} is not set");
        return;
    };
    let literal = Regex::new(
        r#"(?x)
        (?: \b(?:depends_on|conflicts)\(\s* | \bwhen\s*=\s* )
        (?P<prefix>[rRuUfFbB]{0,2})
        (?: "(?P<body>(?:[^"\\\n]|\\.)*)" | '(?P<body2>(?:[^'\\\n]|\\.)*)' )
        \s*(?P<after>[+%."']?)
    "#,
    )
    .unwrap_or_else(|e| panic!("bad regex: {e}"));
    for dir in dirs.split(':').filter(|d| !d.is_empty()) {
        let mut tally = Tally::default();
        for file in package_files(Path::new(dir)) {
            scan_file(&file, &literal, &mut tally);
        }
        eprintln!(
            "{dir}: {} recipes, {} specs parsed, {} dynamic skipped, {} commented out, {} rejected",
            tally.files,
            tally.parsed,
            tally.dynamic,
            tally.commented,
            tally.rejects.len()
        );
        for r in &tally.rejects {
            eprintln!("REJECT {r}\n");
        }
        // Real Spack accepts every one of these.
        assert!(
            tally.rejects.is_empty(),
            "{} rejects in {dir}",
            tally.rejects.len()
        );
    }
}
