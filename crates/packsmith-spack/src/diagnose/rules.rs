//! The ordered rules: the first that matches decides the class.

use std::sync::LazyLock;

use regex::Regex;

use super::excerpt::{block, cap, strip_ansi};
use super::matching::signature;
use super::matching::{diagnosis, first_match, re, FRAME};
use super::{Diagnosis, FailureClass};
use crate::validate::{offline_refusal_line, Stage};

macro_rules! regex {
    ($name:ident, $pattern:expr) => {
        static $name: LazyLock<Option<Regex>> = LazyLock::new(|| re($pattern));
    };
}

regex!(
    LOAD,
    r"cannot load package '([^']+)' from the '([^']+)' repository: (.*)"
);
regex!(PY_LINE, r"\(package\.py, line (\d+)\)");
// Spack's `spec["x"]` of a package the DAG does not hold.
regex!(
    NO_SPEC_NAMED,
    r"KeyError: .No spec with name ([\w.+-]+) in "
);
regex!(
    PY_EXCEPTION,
    r"^(?:==> Error: )?([A-Z][A-Za-z]*(?:Error|Exception)): (.*)$"
);
regex!(
    UNKNOWN_AUDIT,
    r"unknown package '([^']+)' in '(\w+)' directive"
);
regex!(
    NOT_FOUND,
    r"Package '(?:spack\.pkg\.[\w.]+\.)?([^']+)' not found"
);
regex!(
    UNSAT_KNOWN,
    r"dependency on (\S+) cannot be satisfied by known versions of (\S+)"
);
regex!(
    CONSTRAINT,
    r"(?i)(is unsatisfiable|failed to concretize|cannot satisfy|cannot be satisfied by known versions|no such variant|conflicts with|invalid values for variant|does not satisfy|unsatisfiable)"
);
regex!(
    FETCH,
    r"(ChecksumError|FetchError|All fetchers failed|Temporary failure in name resolution|There is no checksum on file|NoNetworkConnectionError|Could not resolve host|MirrorError)"
);
regex!(
    TEST,
    r"(The following tests FAILED|Errors while running CTest|TestFailure|tests? failed)"
);
regex!(CMAKE_NOT_FOUND, r"Could NOT find (\w+)");
regex!(
    CMAKE_CONFIG,
    r#"Could not find a package configuration file provided by\s+"(\w+)""#
);
regex!(CMAKE_FIND_MODULE, r#"By not providing "Find(\w+)\.cmake""#);
regex!(PKG_CONFIG, r"No package '([^']+)' found");
regex!(PKG_NONE, r"None of the required '([^']+)' found");
regex!(HEADER, r"fatal error: ([^:\s]+): No such file or directory");
regex!(LIB, r"cannot find -l(\S+)");
regex!(CMAKE_ERROR, r"^(?:\s*>>\s*\d+\s+)?CMake Error");
regex!(
    COMPILER_ERROR,
    r"^(?:\s*>>\s*\d+\s+)?(\S+?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$"
);
regex!(
    LINK_ERROR,
    r"(undefined reference to|ld returned \d+ exit status|collect2: error)"
);
regex!(
    MAKE_ERROR,
    r"(make(?:\[\d+\])?: \*\*\* |ninja: build stopped|ProcessError: Command exited)"
);
regex!(
    MAKE_STOPPED,
    r"(make(?:\[\d+\])?: \*\*\* |ninja: build stopped)"
);
regex!(
    SANDBOX,
    r"(Read-only file system|Network is unreachable|File too large|Resource temporarily unavailable|Cannot fork|fork: retry|packsmith sandbox: )"
);
regex!(TIMEOUT, r"^packsmith: timed out after");

/// Lines before a failed `make`'s own line that its excerpt keeps.
const MAKE_CONTEXT: usize = 4;

fn all_captures(lines: &[&str], regex: &LazyLock<Option<Regex>>) -> Vec<String> {
    let Some(regex) = regex.as_ref() else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for l in lines {
        for c in regex.captures_iter(l) {
            if let Some(m) = c.get(1) {
                let name = m.as_str().to_string();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names
}

/// Spack's `==> Error:` lines.
fn error_lines<'a>(lines: &[&'a str]) -> Vec<(usize, &'a str)> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("==> Error:") || l.starts_with("Error:"))
        .map(|(i, l)| (i, *l))
        .collect()
}

/// Classifies a failed stage. `log` is the stage log (stdout and stderr of
/// the Spack command); `build_log` Spack's own build log when available.
pub fn classify(stage: Stage, log: &str, build_log: Option<&str>) -> Diagnosis {
    let log = strip_ansi(log);
    let build = build_log.map(strip_ansi);
    let lines: Vec<&str> = log.lines().filter(|l| !is_noise(l)).collect();
    let blines: Vec<&str> = build
        .as_deref()
        .map(|b| b.lines().collect())
        .unwrap_or_default();
    // Prefer the raw build log for build errors: Spack's own summary in the
    // stage log prefixes lines with `>> N` and drops context.
    let build_lines: &[&str] = if blines.is_empty() { &lines } else { &blines };

    if let Some((i, _)) = first_match(&lines, &TIMEOUT) {
        let mut d = diagnosis(
            stage,
            FailureClass::Timeout,
            lines[i].to_string(),
            tail(&lines, 15),
        );
        d.hint = Some("the stage ran out of time; a hang or a very long build".into());
        return d;
    }
    if let Some(d) = load_error(stage, &lines) {
        return d;
    }
    if let Some(d) = unknown_package(stage, &lines) {
        return d;
    }
    if stage == Stage::Concretize || stage == Stage::Audit {
        if let Some(d) = constraint(stage, &lines) {
            return d;
        }
    }
    // Before the sandbox and fetch rules: offline, a configure-time
    // download also reads `Could not resolve host`.
    if let Some(d) = super::build_rules::configure_download(stage, &lines, build_lines) {
        return d;
    }
    if let Some(d) = sandbox(stage, &lines, build_lines) {
        return d;
    }
    if let Some((i, c)) = first_match(&lines, &FETCH) {
        let mut excerpt: Vec<&str> = lines
            .iter()
            .filter(|l| l.contains("==> Fetching") || l.contains("Trying to fetch"))
            .take(4)
            .copied()
            .collect();
        excerpt.extend(block(&lines, i, 4, |l| l.starts_with("    ")));
        let mut d = diagnosis(
            stage,
            FailureClass::Fetch,
            lines[i].trim().to_string(),
            excerpt,
        );
        d.hint = Some(match &c[1] {
            "ChecksumError" => "the sha256 in version() does not match the archive; use the checksum packsmith computed".into(),
            _ => "the source archive could not be fetched; check url/version against the mirror".into(),
        });
        return d;
    }
    if let Some(d) = spec_lookup_without_dependency(stage, &lines) {
        return d;
    }
    // Before the exception rule: Spack's own `RuntimeError` names the
    // packages a missing `configure` needs.
    if let Some(d) = super::build_tools::missing_build_tool(stage, &lines, build_lines) {
        return d;
    }
    if let Some(d) = super::build_tools::stale_autotools(stage, build_lines) {
        return d;
    }
    if let Some(d) = super::build_config::missing_build_config(stage, build_lines) {
        return d;
    }
    if let Some(d) = python_exception(stage, &lines) {
        return d;
    }
    // Before the dependency rules: a configure that passed may still have
    // printed `Could NOT find` for something optional.
    if let Some(d) = super::build_rules::no_install_target(stage, &lines, build_lines) {
        return d;
    }
    if let Some((i, _)) = first_match(build_lines, &TEST) {
        return diagnosis(
            stage,
            FailureClass::Test,
            build_lines[i].trim().to_string(),
            block(build_lines, i, 20, |l| !l.trim().is_empty()),
        );
    }
    // Before the dependency rules: `cannot find -lX` is a missing library
    // unless the build makes it itself.
    if let Some(d) = super::build_rules::parallel_build(stage, build_lines) {
        return d;
    }
    if let Some(d) = missing_source_file(stage, build_lines) {
        return d;
    }
    if let Some(d) = missing_dependency(stage, build_lines) {
        return d;
    }
    if let Some((i, _)) = first_match(build_lines, &CMAKE_ERROR) {
        let mut excerpt = process_error(&lines);
        excerpt.extend(cmake_blocks(build_lines, i));
        // An install step that copies a source path the source lacks: no
        // configure error, and no dependency provides it.
        let missing = super::build_rules::install_missing_sources(build_lines);
        let class = if missing.is_empty() {
            FailureClass::CmakeConfigure
        } else {
            FailureClass::MissingSourceFile
        };
        let mut d = diagnosis(stage, class, build_lines[i].trim().to_string(), excerpt);
        if !missing.is_empty() {
            d.hint = Some(super::build_rules::install_missing_hint(&missing));
            d.names = missing;
        }
        return d;
    }
    if let Some(d) = super::compiler_compat::compiler_compat(stage, build_lines) {
        return d;
    }
    // A pip build's reason is the backend's, earlier than make's or pip's
    // own lines; an extension's compiler errors stay the compilation rule's.
    if compiler_errors(build_lines).is_empty() {
        if let Some(d) = super::python_build::python_backend(stage, build_lines) {
            return d;
        }
    }
    if let Some(d) = compilation(stage, &lines, build_lines) {
        return d;
    }
    let errors = error_lines(&lines);
    let summary = errors
        .last()
        .map(|(_, l)| l.trim().to_string())
        .unwrap_or_else(|| "the stage failed without an error message".into());
    let excerpt = match errors.last() {
        Some((i, _)) => block(&lines, *i, 20, |l| !l.starts_with("==> ")),
        None => tail(&lines, 20),
    };
    diagnosis(stage, FailureClass::Unknown, summary, excerpt)
}

/// Offline, a concretization that would build `names` from source: the
/// stage's own typed result, not read back from its log.
pub(super) fn offline_downloads(stage: Stage, names: Vec<String>) -> Diagnosis {
    let line = offline_refusal_line(&names);
    let mut d = diagnosis(stage, FailureClass::Fetch, line.clone(), vec![line]);
    d.names = names;
    d.hint = Some(
        "these dependencies are not installed or external here and cannot be downloaded; \
         drop them, make them conditional, or use a variant that avoids them"
            .into(),
    );
    d
}

/// Lines that never help: Spack's harmless warnings and our markers.
fn is_noise(line: &str) -> bool {
    line.contains("which is a deprecated version")
        || line.starts_with("==> stdout")
        || line.starts_with("==> stderr")
}

fn tail<'a>(lines: &[&'a str], n: usize) -> Vec<&'a str> {
    lines[lines.len().saturating_sub(n)..].to_vec()
}

fn load_error(stage: Stage, lines: &[&str]) -> Option<Diagnosis> {
    let (i, c) = first_match(lines, &LOAD)?;
    let message = c[3].to_string();
    let mut excerpt = vec![lines[i].trim().to_string()];
    let mut recipe_line = None;
    let mut hint = None;
    if let Some(line) = PY_LINE
        .as_ref()
        .and_then(|re| re.captures(&message))
        .and_then(|m| m[1].parse::<u32>().ok())
    {
        // Spack prepends one import line before compiling package.py.
        let fixed = line.saturating_sub(1).max(1);
        recipe_line = Some(fixed);
        let note =
            format!("(Spack counts one line too many: the error is on line {fixed} of package.py)");
        excerpt.push(note);
    }
    if message.contains("cannot unpack non-iterable NoneType")
        || log_has(lines, "No module named 'spack_repo'")
    {
        hint = Some(
            "this Spack is 0.2x: import build systems with `from spack.package import *`, \
             not from spack_repo"
                .into(),
        );
    }
    // The last frame of a traceback, when there is one.
    excerpt.extend(last_frame(lines).into_iter().map(str::to_string));
    let mut d = diagnosis(
        stage,
        FailureClass::Syntax,
        lines[i].trim().to_string(),
        excerpt,
    );
    d.recipe_line = recipe_line;
    d.hint = hint;
    d.names = vec![c[1].to_string()];
    Some(d)
}

fn log_has(lines: &[&str], needle: &str) -> bool {
    lines.iter().any(|l| l.contains(needle))
}

/// The last `File "…package.py", line N` frame, its code line and the
/// exception line.
fn last_frame<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let Some(re) = FRAME.as_ref() else {
        return Vec::new();
    };
    let Some(i) = lines.iter().rposition(|l| re.is_match(l)) else {
        return Vec::new();
    };
    let mut out = vec![lines[i]];
    if lines[i].trim_end().ends_with(':') {
        // Spack's own frame: `cmake.py:504, in define_from_variant:` then
        // numbered context lines, the failing one marked `>>`.
        out.extend(
            block(lines, i, 8, |l| !l.trim().is_empty())
                .into_iter()
                .skip(1),
        );
        return out;
    }
    if let Some(code) = lines
        .get(i + 1)
        .filter(|l| !l.trim_start().starts_with("File "))
    {
        out.push(code);
    }
    if let Some(exc) = lines
        .iter()
        .skip(i + 1)
        .find(|l| PY_EXCEPTION.as_ref().is_some_and(|r| r.is_match(l.trim())))
    {
        if !out.contains(exc) {
            out.push(exc);
        }
    }
    out
}

fn unknown_package(stage: Stage, lines: &[&str]) -> Option<Diagnosis> {
    let mut names = all_captures(lines, &UNKNOWN_AUDIT);
    for n in all_captures(lines, &NOT_FOUND) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    // 0.23's audit only says this for a language virtual it lacks (`c`).
    for n in all_captures(lines, &UNSAT_KNOWN) {
        if n == "c" && !names.contains(&n) {
            names.push(n);
        }
    }
    if names.is_empty() {
        return None;
    }
    let keep = |l: &str| {
        UNKNOWN_AUDIT.as_ref().is_some_and(|r| r.is_match(l))
            || NOT_FOUND.as_ref().is_some_and(|r| r.is_match(l))
            || UNSAT_KNOWN.as_ref().is_some_and(|r| r.is_match(l))
            || l.contains("Did you mean")
            || l.starts_with("  ") && !l.trim().is_empty() && !l.contains("/packages/")
    };
    let excerpt: Vec<&str> = lines
        .iter()
        .skip_while(|l| !keep(l))
        .filter(|l| keep(l))
        .take(12)
        .copied()
        .collect();
    let summary = format!("unknown package: {}", names.join(", "));
    let mut d = diagnosis(stage, FailureClass::UnknownPackage, summary, excerpt);
    if names.iter().any(|n| n == "c") {
        d.hint = Some(
            "this Spack (0.2x) has no `c` language virtual: remove depends_on(\"c\"); \
             the compiler is implicit"
                .into(),
        );
    } else {
        d.hint = Some("use the Spack name of the dependency, or drop it".into());
    }
    d.names = names;
    Some(d)
}

fn constraint(stage: Stage, lines: &[&str]) -> Option<Diagnosis> {
    let errors = error_lines(lines);
    let (i, line) = errors
        .iter()
        .find(|(_, l)| CONSTRAINT.as_ref().is_some_and(|r| r.is_match(l)))
        .or(errors.first())
        .copied()
        .or_else(|| {
            let (i, _) = first_match(lines, &CONSTRAINT)?;
            Some((i, lines[i]))
        })?;
    // The error and the reasons the concretizer gives after it.
    let excerpt = block(lines, i, 30, |l| {
        !l.starts_with("==> ") && !l.starts_with("packsmith:")
    });
    let mut d = diagnosis(
        stage,
        FailureClass::Constraint,
        line.trim().to_string(),
        excerpt,
    );
    if stage == Stage::Audit {
        // Audit issues are numbered lines; keep them all.
        let issues: Vec<&str> = lines
            .iter()
            .filter(|l| {
                let t = l.trim_start();
                t.split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
                    || l.contains("issues found")
                    || t.starts_with("known versions of")
            })
            .fold(Vec::new(), |mut kept, l| {
                // The known versions repeat under every issue.
                if !kept.contains(l) {
                    kept.push(*l);
                }
                kept
            });
        if !issues.is_empty() {
            d.excerpt = cap(&issues);
            d.summary = issues[0].trim().to_string();
            d.signature = signature(&d.summary);
        }
        // A version this Spack's package of a dependency lacks: the
        // audit reads every version's directives, not only the one built.
        let unknown: Vec<String> = lines
            .iter()
            .filter_map(|l| UNSAT_KNOWN.as_ref()?.captures(l)?.get(2))
            .map(|m| m.as_str().to_string())
            .fold(Vec::new(), |mut names, n| {
                if !names.contains(&n) {
                    names.push(n);
                }
                names
            });
        if !unknown.is_empty() {
            d.hint = Some(format!(
                "this Spack's {} lacks the versions the recipe asks for (the known ones \
                 are listed): bound each such depends_on with when= to the recipe's \
                 versions that need it, and keep only versions whose dependencies this \
                 Spack has",
                unknown.join(", ")
            ));
            d.names = unknown;
        }
    }
    Some(d)
}

fn sandbox(stage: Stage, lines: &[&str], build_lines: &[&str]) -> Option<Diagnosis> {
    let (hit_lines, i) = match first_match(lines, &SANDBOX) {
        Some((i, _)) => (lines, i),
        None => (build_lines, first_match(build_lines, &SANDBOX)?.0),
    };
    let mut excerpt: Vec<&str> = Vec::new();
    for l in hit_lines
        .iter()
        .filter(|l| SANDBOX.as_ref().is_some_and(|r| r.is_match(l)))
    {
        if excerpt.len() < 6 && !excerpt.contains(l) {
            excerpt.push(l);
        }
    }
    excerpt.extend(last_frame(lines));
    if let Some((_, e)) = error_lines(lines).last() {
        if !excerpt.contains(e) {
            excerpt.push(e);
        }
    }
    let mut d = diagnosis(
        stage,
        FailureClass::Sandbox,
        hit_lines[i].trim().to_string(),
        excerpt,
    );
    d.hint = Some(
        "the build tried something the sandbox forbids (writing outside the prefix and stage, \
         the network, too many processes, a huge file); builds must stay in their stage and prefix"
            .into(),
    );
    Some(d)
}

/// `KeyError: 'No spec with name blas in superlu@…'`: the recipe reads
/// `self.spec["blas"]` (its libraries, its prefix) but the DAG has no blas,
/// because no `depends_on` puts it there (or only under a condition that
/// does not hold). A missing dependency, not a Python bug of the recipe.
fn spec_lookup_without_dependency(stage: Stage, lines: &[&str]) -> Option<Diagnosis> {
    let (i, c) = first_match(lines, &NO_SPEC_NAMED)?;
    let name = c[1].to_string();
    let mut excerpt = vec![lines[i].trim()];
    excerpt.extend(last_frame(lines));
    let mut d = diagnosis(
        stage,
        FailureClass::MissingDependency,
        format!("the recipe reads spec[\"{name}\"], which the DAG does not hold"),
        excerpt,
    );
    d.hint = Some(format!(
        "declare depends_on(\"{name}\") (under the condition the code that reads it runs in), \
         or stop reading self.spec[\"{name}\"]"
    ));
    d.names = vec![name];
    Some(d)
}

fn python_exception(stage: Stage, lines: &[&str]) -> Option<Diagnosis> {
    // `==> Error: NameError: name 'x' is not defined` from the recipe's own code.
    let regex = PY_EXCEPTION.as_ref()?;
    let (i, c) = lines.iter().enumerate().find_map(|(i, l)| {
        let t = l.trim();
        let c = regex.captures(t)?;
        let kind = c.get(1)?.as_str();
        let recipe_bug = matches!(
            kind,
            "NameError"
                | "AttributeError"
                | "KeyError"
                | "TypeError"
                | "ValueError"
                | "IndexError"
                | "ImportError"
                | "ModuleNotFoundError"
                | "SyntaxError"
                | "UnboundLocalError"
        );
        (recipe_bug && l.contains("==> Error:")).then_some((i, c))
    })?;
    let mut excerpt = vec![lines[i].trim()];
    let frame = last_frame(lines);
    let recipe_line = frame.first().and_then(|f| {
        FRAME
            .as_ref()
            .and_then(|r| r.captures(f))
            .filter(|m| {
                m.get(1)
                    .or(m.get(4))
                    .is_some_and(|f| f.as_str().ends_with("package.py"))
            })
            .and_then(|m| {
                m.get(2)
                    .or(m.get(5))
                    .and_then(|n| n.as_str().parse::<u32>().ok())
            })
    });
    excerpt.extend(frame);
    let mut d = diagnosis(
        stage,
        FailureClass::Syntax,
        lines[i].trim().to_string(),
        excerpt,
    );
    d.recipe_line = recipe_line;
    d.names = vec![c[1].to_string()];
    Some(d)
}

/// Every missing header is the project's own: GCC and Clang show the
/// failing `#include "name"` (quotes, not angle brackets) in the lines
/// after the error, and it is no well-known library's. A missing source
/// file is no dependency's to provide.
fn missing_source_file(stage: Stage, lines: &[&str]) -> Option<Diagnosis> {
    let regex = HEADER.as_ref()?;
    let mut names: Vec<String> = Vec::new();
    let mut first = None;
    for (i, line) in lines.iter().enumerate() {
        let Some(c) = regex.captures(line) else {
            continue;
        };
        let name = &c[1];
        let quoted = format!("#include \"{name}\"");
        // A well-known library's header included with quotes (recorder's
        // `#include "hdf5.h"`) is still that library's.
        let own = packsmith_core::headers::library_of_header(name).is_none()
            && lines
                .iter()
                .skip(i + 1)
                .take(3)
                .any(|l| l.replace("# include", "#include").contains(&quoted));
        if !own {
            return None;
        }
        first.get_or_insert(i);
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    let i = first?;
    let excerpt = block(lines, i, 6, |l| !l.trim().is_empty());
    let summary = format!("missing source file: {}", names.join(", "));
    let mut d = diagnosis(stage, FailureClass::MissingSourceFile, summary, excerpt);
    d.hint = Some(
        "the project's own header is not in the source archive, and no depends_on() provides it: \
         fetch a complete source (a full release archive, or git with submodules=True if it lives \
         in a submodule), or generate it the way upstream's build does"
            .into(),
    );
    d.names = names;
    Some(d)
}

fn missing_dependency(stage: Stage, lines: &[&str]) -> Option<Diagnosis> {
    let mut names = Vec::new();
    let mut first: Option<usize> = None;
    for regex in [
        &CMAKE_NOT_FOUND,
        &CMAKE_CONFIG,
        &CMAKE_FIND_MODULE,
        &PKG_CONFIG,
        &PKG_NONE,
        &HEADER,
        &LIB,
    ] {
        if let Some((i, _)) = first_match(lines, regex) {
            first = Some(first.map_or(i, |f: usize| f.min(i)));
            for n in all_captures(lines, regex) {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
    }
    let i = first?;
    // The enclosing CMake error block when there is one, else the lines
    // around the message.
    let start = lines[..=i]
        .iter()
        .rposition(|l| CMAKE_ERROR.as_ref().is_some_and(|r| r.is_match(l)))
        .filter(|s| i - s < 15)
        .unwrap_or(i);
    let excerpt = if CMAKE_ERROR
        .as_ref()
        .is_some_and(|r| r.is_match(lines[start]))
    {
        cmake_blocks(lines, start)
    } else {
        let mut e = block(lines, i, 6, |l| !l.trim().is_empty());
        e.extend(
            compiler_errors(lines)
                .into_iter()
                .filter(|l| !lines[i].contains(l.trim()))
                .take(8),
        );
        e
    };
    let summary = format!("missing dependency: {}", names.join(", "));
    let mut d = diagnosis(stage, FailureClass::MissingDependency, summary, excerpt);
    d.hint = Some(
        "add a depends_on() for it (with the right Spack name), or turn the option that needs it off"
            .into(),
    );
    d.names = names;
    Some(d)
}

/// The `ProcessError` line Spack prints before the cmake command line.
fn process_error<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    lines
        .iter()
        .filter(|l| l.contains("==> Error: ProcessError"))
        .take(1)
        .copied()
        .collect()
}

/// Up to two `CMake Error` blocks from `start`: the error line and its
/// indented or blank continuation.
fn cmake_blocks<'a>(lines: &[&'a str], start: usize) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = start;
    let mut blocks = 0;
    while i < lines.len() && blocks < 2 {
        if CMAKE_ERROR.as_ref().is_some_and(|r| r.is_match(lines[i])) {
            let b = block(lines, i, 18, |l| {
                l.trim().is_empty() || l.starts_with(' ') || l.starts_with('\t')
            });
            i += b.len();
            out.extend(b);
            out.push("");
            blocks += 1;
        } else {
            i += 1;
        }
    }
    if let Some(l) = lines.iter().find(|l| l.contains("Configuring incomplete")) {
        out.push(l);
    }
    out
}

/// A compiler's `file:line[:col]: [fatal ]error: …` line (a `>> N` log
/// excerpt prefix allowed).
pub(super) fn is_compiler_error(line: &str) -> bool {
    COMPILER_ERROR.as_ref().is_some_and(|r| r.is_match(line))
}

/// The first compiler `error:` lines with the two lines after each
/// (source line and caret).
fn compiler_errors<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut seen = 0;
    for (i, l) in lines.iter().enumerate() {
        if is_compiler_error(l) {
            if seen == 3 {
                break;
            }
            seen += 1;
            out.extend(block(lines, i, 3, |n| {
                n.starts_with(' ') && !n.contains(" error: ")
            }));
        }
    }
    out
}

fn compilation(stage: Stage, lines: &[&str], build_lines: &[&str]) -> Option<Diagnosis> {
    let errors = compiler_errors(build_lines);
    if let Some(first) = errors.first() {
        let mut excerpt = errors.clone();
        if let Some(l) = build_lines
            .iter()
            .find(|l| MAKE_ERROR.as_ref().is_some_and(|r| r.is_match(l)))
        {
            excerpt.push(l);
        }
        let mut d = diagnosis(
            stage,
            FailureClass::Compilation,
            first.trim().to_string(),
            excerpt,
        );
        d.names = COMPILER_ERROR
            .as_ref()
            .and_then(|r| r.captures(first))
            .map(|c| vec![c[1].to_string()])
            .unwrap_or_default();
        return Some(d);
    }
    if let Some((i, _)) = first_match(build_lines, &LINK_ERROR) {
        let start = i.saturating_sub(2);
        let excerpt: Vec<&str> = build_lines[start..(i + 4).min(build_lines.len())].to_vec();
        return Some(diagnosis(
            stage,
            FailureClass::Compilation,
            build_lines[i].trim().to_string(),
            excerpt,
        ));
    }
    if stage == Stage::Install {
        // make's own line in the build log first: Spack's `ProcessError`
        // comes earlier in the stage log and its excerpt would stop
        // before the cause.
        let (lines, i) = match first_match(build_lines, &MAKE_STOPPED) {
            Some((i, _)) => (build_lines, i),
            None => (lines, first_match(lines, &MAKE_ERROR)?.0),
        };
        // The failing command's own words come just before make's line
        // (`mkdir: cannot create directory …: File exists`), after the
        // command line Spack echoes.
        let before: Vec<&str> = lines[..i]
            .iter()
            .rev()
            .take(MAKE_CONTEXT)
            .take_while(|l| !l.starts_with("==> "))
            .copied()
            .collect();
        let mut excerpt: Vec<&str> = before.into_iter().rev().collect();
        excerpt.extend(block(lines, i, 12, |l| !l.starts_with("==> ")));
        return Some(diagnosis(
            stage,
            FailureClass::Compilation,
            lines[i].trim().to_string(),
            excerpt,
        ));
    }
    None
}
