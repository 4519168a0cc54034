//! `version()` calls Spack 0.23 refuses when it runs the directive
//! (`_execute_version`): a version that is neither a string nor an int
//! (`version(1.2)`), a commit hash as version in a package with no `git`,
//! and a checksum in a package without code (`BundlePackage`).

use super::{Code, Diagnostic, Input};
use crate::recipe::layout::Call;
use crate::recipe::Value;

/// Spack's checksum keywords (`spack.util.crypto.hashes`) and the
/// deprecated positional name.
const CHECKSUMS: &[&str] = &[
    "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "checksum",
];

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    let no_code = has_no_code(input);
    // A base class from another file may set `git`.
    let class_git = input.recipe.git.is_some() || !super::fetch::self_contained(input);
    for call in input.layout.calls().filter(|c| c.name == "version") {
        let Some(first) = call.positional().next() else {
            continue; // PS801 reports the missing argument
        };
        if let Some(kind) = not_str_or_int(&first.text) {
            out.push(Diagnostic::new(
                Code::BadVersion,
                call.line,
                call.col,
                format!(
                    "`version({})`: the version is {kind}, and Spack refuses the recipe when \
                     loading it (a version must be a string or an int); quote it: `version(\"{}\")`",
                    first.text,
                    first.text.trim_matches(['(', ')', '[', ']'])
                ),
            ));
            continue;
        }
        if let Some(lit) = &first.lit {
            if is_git_version(&lit.value) && !class_git && call.keyword("git").is_none() {
                out.push(Diagnostic::new(
                    Code::BadVersion,
                    call.line,
                    call.col,
                    format!(
                        "`version(\"{}\")` is a commit hash, which Spack refuses in a package \
                         without `git`: give the class a `git = ...` URL, or name the release \
                         and pass `commit=\"{}\"`",
                        lit.value, lit.value
                    ),
                ));
            }
        }
        if no_code && has_checksum(call) {
            out.push(Diagnostic::new(
                Code::BadVersion,
                call.line,
                call.col,
                "a checksum on a version of a package without code (BundlePackage), which \
                 Spack refuses when loading the recipe; drop the checksum",
            ));
        }
    }
}

/// What a literal version argument is when it is neither a string nor an
/// int; `None` for those and for anything not a literal (a name bound in a
/// loop may well be a string).
fn not_str_or_int(text: &str) -> Option<&'static str> {
    let t = text.trim();
    let number = t.chars().next().is_some_and(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '_'));
    if number && t.contains('.') {
        return Some("a float");
    }
    match t.chars().next() {
        Some('[') => Some("a list"),
        Some('(') if t.ends_with(')') && t.contains(',') => Some("a tuple"),
        Some('{') => Some("a dict or set"),
        _ if t == "None" => Some("None"),
        _ => None,
    }
}

/// Spack's `is_git_version`: a `git.` prefix or a 40-hex commit (`Version`
/// becomes a `GitVersion`, which needs a git URL).
fn is_git_version(v: &str) -> bool {
    v.starts_with("git.") || (v.len() == 40 && v.chars().all(|c| c.is_ascii_hexdigit()))
}

fn has_checksum(call: &Call) -> bool {
    call.positional().nth(1).is_some()
        || call
            .args
            .iter()
            .any(|a| a.keyword.as_deref().is_some_and(|k| CHECKSUMS.contains(&k)))
}

/// `has_code = False`: the first base of the package class is
/// `BundlePackage`, or the class says so itself.
fn has_no_code(input: &Input) -> bool {
    let recipe = input.recipe;
    let says_so = recipe
        .attributes
        .iter()
        .any(|a| a.name == "has_code" && matches!(a.value, Value::Bool(false)));
    let bundle_first = recipe
        .bases
        .first()
        .is_some_and(|b| b.rsplit('.').next() == Some("BundlePackage"));
    says_so || bundle_first
}
