//! Directive calls Python itself refuses while Spack loads the class: an
//! unknown keyword, too many or too few positional arguments, a parameter
//! given twice (PS801), and `when=` (or an enclosing `with when(...)`) on a
//! directive that takes none (PS802). The signatures are those of Spack
//! 0.23's `lib/spack/spack/directives.py`.

use super::{Code, Diagnostic, Input};
use crate::recipe::layout::Call;

/// One directive's Python signature.
struct Signature {
    name: &'static str,
    /// Positional-or-keyword parameters, in order.
    params: &'static [&'static str],
    /// How many leading `params` have no default.
    required: usize,
    /// `*args` after `params`: any number of further positional arguments.
    varargs: bool,
    /// Keyword-only parameters.
    keyword_only: &'static [&'static str],
    /// `**kwargs`: any keyword at all (`resource`).
    any_keyword: bool,
}

const fn sig(name: &'static str, params: &'static [&'static str], required: usize) -> Signature {
    Signature {
        name,
        params,
        required,
        varargs: false,
        keyword_only: &[],
        any_keyword: false,
    }
}

const fn star(name: &'static str, keyword_only: &'static [&'static str]) -> Signature {
    Signature {
        name,
        params: &[],
        required: 0,
        varargs: true,
        keyword_only,
        any_keyword: false,
    }
}

const VERSION_KEYWORDS: &[&str] = &[
    "preferred",
    "deprecated",
    "no_cache",
    "url",
    "extension",
    "expand",
    "fetch_options",
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "git",
    "commit",
    "tag",
    "branch",
    "get_full_repo",
    "submodules",
    "submodules_delete",
    "svn",
    "hg",
    "cvs",
    "revision",
    "date",
];

/// The keyword arguments directive `name` takes in Spack 0.23 (for a
/// repair that renames a misspelt one); `None` for an unknown directive.
pub fn directive_keywords(name: &str) -> Option<Vec<&'static str>> {
    let s = SIGNATURES.iter().find(|s| s.name == name)?;
    Some(s.params.iter().chain(s.keyword_only).copied().collect())
}

const SIGNATURES: &[Signature] = &[
    sig("conflicts", &["conflict_spec", "when", "msg"], 1),
    sig("depends_on", &["spec", "when", "type", "patches"], 1),
    sig("extends", &["spec", "when", "type", "patches"], 1),
    sig("license", &["license_identifier", "checked_by", "when"], 1),
    star("maintainers", &[]),
    sig(
        "patch",
        &[
            "url_or_filename",
            "level",
            "when",
            "working_dir",
            "reverse",
            "sha256",
            "archive_sha256",
        ],
        1,
    ),
    star("provides", &["when"]),
    sig("redistribute", &["source", "binary", "when"], 0),
    star("requires", &["policy", "when", "msg"]),
    Signature {
        name: "resource",
        params: &[],
        required: 0,
        varargs: false,
        keyword_only: &[],
        any_keyword: true,
    },
    sig(
        "variant",
        &[
            "name",
            "default",
            "description",
            "values",
            "multi",
            "validator",
            "when",
            "sticky",
        ],
        1,
    ),
    Signature {
        keyword_only: VERSION_KEYWORDS,
        ..sig("version", &["ver", "checksum"], 1)
    },
];

/// Directives without a `when` parameter: Spack refuses them inside a
/// `with when(...)` block (`version` by name, the others because the block
/// passes them `when=`).
fn takes_when(sig: &Signature) -> bool {
    sig.any_keyword || sig.params.contains(&"when") || sig.keyword_only.contains(&"when")
}

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    for call in input.layout.calls() {
        let Some(sig) = SIGNATURES.iter().find(|s| s.name == call.name) else {
            continue;
        };
        when_context(call, sig, out);
        arguments(call, sig, out);
        dependency_types(call, out);
    }
}

/// The dependency types Spack knows.
pub const DEPENDENCY_TYPES: &[&str] = &["build", "link", "run", "test"];

/// `depends_on(..., type="buid")`: Spack refuses an unknown type when
/// loading the recipe (`Invalid dependency type: buid`).
fn dependency_types(call: &Call, out: &mut Vec<Diagnostic>) {
    if call.name != "depends_on" {
        return;
    }
    let Some(arg) = call.keyword("type") else {
        return;
    };
    // Only literal strings, alone or in a tuple or list; a name is unknown.
    let text = arg.text.trim();
    if !text.starts_with(['"', '\'', '(', '[']) {
        return;
    }
    for t in quoted_words(text) {
        if !DEPENDENCY_TYPES.contains(&t.as_str()) {
            out.push(Diagnostic::new(
                Code::DirectiveArguments,
                call.line,
                call.col,
                format!(
                    "`depends_on(..., type=...)` names dependency type `{t}`, which Spack refuses \
                     when loading the recipe; the types are {}",
                    DEPENDENCY_TYPES.join(", ")
                ),
            ));
        }
    }
}

/// The contents of the quoted strings in `text`.
pub fn quoted_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = &rest[start..=start];
        let after = &rest[start + 1..];
        let Some(end) = after.find(quote) else {
            break;
        };
        out.push(after[..end].to_string());
        rest = &after[end + 1..];
    }
    out
}

fn when_context(call: &Call, sig: &Signature, out: &mut Vec<Diagnostic>) {
    if takes_when(sig) {
        return;
    }
    let in_when = !call.when_stack.is_empty() || call.scope.iter().any(|s| s.starts_with("when("));
    if in_when {
        out.push(Diagnostic::new(
            Code::WhenNotAllowed,
            call.line,
            call.col,
            format!(
                "`{}()` inside a `with when(...)` block: Spack refuses it when loading the recipe \
                 because `{}` takes no `when`; move it out of the block",
                call.name, call.name
            ),
        ));
    }
    if let Some(arg) = call.keyword("when") {
        out.push(Diagnostic::new(
            Code::WhenNotAllowed,
            call.line,
            call.col,
            format!(
                "`{}(..., when={})`: `{}` takes no `when`, so Spack refuses the recipe when \
                 loading it; drop the condition",
                call.name, arg.text, call.name
            ),
        ));
    }
}

fn arguments(call: &Call, sig: &Signature, out: &mut Vec<Diagnostic>) {
    let mut report = |message: String| {
        out.push(Diagnostic::new(
            Code::DirectiveArguments,
            call.line,
            call.col,
            message,
        ))
    };
    // `*args` / `**kwargs` at the call site hide what is passed.
    let positional: Vec<_> = call.positional().collect();
    let splat_args = positional.iter().any(|a| a.text.starts_with('*'));
    let splat_kwargs = positional.iter().any(|a| a.text.starts_with("**"));
    let given = positional.len();
    if !splat_args && !sig.varargs && given > sig.params.len() {
        report(format!(
            "`{}()` takes at most {} positional argument(s) but {given} were given; \
             Spack refuses the recipe when loading it",
            call.name,
            sig.params.len()
        ));
    }
    for arg in &call.args {
        let Some(key) = arg.keyword.as_deref() else {
            continue;
        };
        if key == "when" && !takes_when(sig) {
            continue; // PS802 says it
        }
        let index = sig.params.iter().position(|p| *p == key);
        let known = sig.any_keyword || index.is_some() || sig.keyword_only.contains(&key);
        if !known {
            let mut allowed: Vec<&str> = sig
                .params
                .iter()
                .chain(sig.keyword_only)
                .copied()
                .filter(|p| takes_when(sig) || *p != "when")
                .collect();
            allowed.sort_unstable();
            let hint = match allowed.as_slice() {
                [] => format!("`{}` takes no keyword arguments", call.name),
                _ => format!("it takes {}", allowed.join(", ")),
            };
            report(format!(
                "`{}()` got an unexpected keyword argument `{key}`, which Spack refuses when \
                 loading the recipe; {hint}",
                call.name
            ));
        } else if index.is_some_and(|i| i < given) && !splat_args {
            report(format!(
                "`{}()` got `{key}` both by position and by keyword; Spack refuses the recipe \
                 when loading it",
                call.name
            ));
        }
    }
    if splat_args || splat_kwargs {
        return;
    }
    for (i, param) in sig.params.iter().enumerate().take(sig.required) {
        if i >= given && call.keyword(param).is_none() {
            report(format!(
                "`{}()` is missing its `{param}` argument; Spack refuses the recipe when loading it",
                call.name
            ));
        }
    }
}
