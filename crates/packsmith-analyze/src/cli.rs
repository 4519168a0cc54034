//! Whether the project's programs answer `--version`: the first place in
//! its own sources (tests, examples and vendored code aside) that handles
//! the flag — a `"--version"` literal, a getopt long option `{"version",`,
//! clap's `version` attribute, Go's `flag.Bool("version", …)` or argparse's
//! `action="version"`. A recipe's install check runs the installed program
//! with it only on such evidence (a program that does not know the flag may
//! start a long job or wait on stdin instead).

use crate::context::Ctx;
use crate::detect::in_noise_dir;
use crate::view::RepoFile;
use packsmith_core::Sourced;

/// Source files read at most, as for the include scan.
const MAX_FILES: usize = 400;

fn is_program_source(name: &str) -> bool {
    // Build scripts hold no program.
    if matches!(name, "setup.py" | "conftest.py" | "build.rs" | "noxfile.py") {
        return false;
    }
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "c" | "cc" | "cpp" | "cxx" | "c++" | "rs" | "go" | "py" | "pas" | "pp" | "lpr"
    )
}

/// True when `line` handles `--version` in one of the usual ways.
fn handles_version(line: &str) -> bool {
    let l = line.trim();
    if l.starts_with("//") || l.starts_with('#') && !l.starts_with("#[") {
        return false;
    }
    l.contains("\"--version\"")
        || l.contains("'--version'")
        || l.contains("{\"version\",")
        || (l.starts_with("#[")
            && (l.contains("command(") || l.contains("clap("))
            && l.contains("version"))
        || l.contains("flag.Bool(\"version\"")
        || l.contains("action=\"version\"")
        || l.contains("action='version'")
}

/// The first file and line that handles `--version`, or None.
pub fn version_flag(ctx: &mut Ctx<'_>) -> Option<Sourced<String>> {
    let own_program = |f: &RepoFile| is_program_source(f.name()) && !in_noise_dir(f);
    ctx.first_source_line(own_program, MAX_FILES, |l| {
        handles_version(l).then(|| "--version".to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::handles_version;

    #[test]
    fn the_usual_ways_to_handle_version_are_seen() {
        for line in [
            "  if (strcmp(argv[i], \"--version\") == 0) {",
            "static struct option opts[] = { {\"version\", no_argument, 0, 'V'},",
            "#[command(author, version, about)]",
            "    parser.add_argument('--version', action='version', version=__version__)",
            "\tshowVersion := flag.Bool(\"version\", false, \"print the version\")",
        ] {
            assert!(handles_version(line), "{line}");
        }
        for line in [
            "// run with --version to see it",
            "# \"--version\" in a comment",
            "printf(\"version %s\\n\", VERSION);",
            "#[derive(Parser)]",
        ] {
            assert!(!handles_version(line), "{line}");
        }
    }
}
