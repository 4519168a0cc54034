//! The mutations that only an install shows: a dependency the build needs
//! removed, a CMake define its configure needs removed, the tests switched
//! on where they download. The recipe still loads, passes the audit and
//! concretizes; configure, the build or the hermeticity check of the
//! installed prefix fails. Each edit removes or rewrites one whole line of
//! the recipe, so the original is the fix.

use std::ops::Range;

use super::edit::{Ctx, Edit};
use super::span::{self, call_at, statement_lines};
use crate::recipe::DefineHow;

/// Packages a recipe declares for its build machinery, not for what the
/// build links: removing one says nothing about the package's needs.
const BUILD_MACHINERY: &[&str] = &[
    "cmake",
    "gmake",
    "ninja",
    "pkgconfig",
    "pkgconf",
    "c",
    "cxx",
    "fortran",
    "gcc-runtime",
    "autoconf",
    "automake",
    "libtool",
    "m4",
    "py-pip",
    "py-setuptools",
    "py-wheel",
];

/// `depends_on("x")` of a package the build links or runs with, declared
/// for every configuration (no `when=`), removed with its whole line.
pub(super) fn removed_dependency(ctx: &Ctx) -> Vec<Edit> {
    ctx.recipe
        .dependencies
        .iter()
        .filter(|d| d.when.is_none() && !d.name.is_empty())
        .filter(|d| !BUILD_MACHINERY.contains(&d.name.as_str()))
        .filter(|d| d.types.is_empty() || d.types.iter().any(|t| t == "link" || t == "run"))
        .filter_map(|d| {
            let call = call_at(ctx.source, d.line, d.col, "depends_on")?;
            let (lines, _) = statement_lines(ctx.source, &call)?;
            let description = format!("depends_on(\"{}\") removed", d.spec);
            Some(Edit::new(ctx, lines, "", description))
        })
        .collect()
}

/// The whole line holding a define call that stands alone in a list
/// (`self.define("X", True),`) or in an `args.append(...)`.
fn define_line(ctx: &Ctx, call: &Define) -> Option<Range<usize>> {
    let source = ctx.source;
    let line_start = source.get(..call.start)?.rfind('\n').map_or(0, |n| n + 1);
    let line_end = source
        .get(call.end..)?
        .find('\n')
        .map_or(source.len(), |n| call.end + n + 1);
    let before = source.get(line_start..call.start)?.trim();
    let after = source.get(call.end..line_end)?.trim();
    let after = after.split('#').next().unwrap_or("").trim();
    let in_list = before.is_empty() && (after.is_empty() || after == ",");
    let appended = before.ends_with(".append(") && after == ")";
    (in_list || appended).then_some(line_start..line_end)
}

/// One `self.define("KEY", value)` call: from its receiver (`start`) to
/// its closing parenthesis (`end`).
struct Define {
    key: String,
    start: usize,
    end: usize,
    call: span::CallSpan,
}

/// The `self.define("KEY", value)` calls of `cmake_args`.
fn fixed_defines<'a>(ctx: &'a Ctx<'a>) -> impl Iterator<Item = Define> + 'a {
    ctx.recipe
        .define_keys
        .iter()
        .filter(|k| k.how == DefineHow::Define && k.function.as_deref() == Some("cmake_args"))
        .filter_map(|k| {
            // The reader reports the call (`self.define(…)`); the span
            // starts at the name `define` right after its receiver.
            let at = span::offset(ctx.source, k.line, k.col)?;
            let callee = ctx.source.get(at..)?;
            let skip = callee.find("define(").filter(|n| *n <= "self.".len())?;
            let line_start = ctx.source.get(..at)?.rfind('\n').map_or(0, |n| n + 1);
            let col = u32::try_from(at + skip - line_start + 1).ok()?;
            let call = call_at(ctx.source, k.line, col, "define")?;
            Some(Define {
                key: k.key.clone(),
                start: at,
                end: call.end,
                call,
            })
        })
}

/// A fixed CMake define of `cmake_args` (`self.define("JUST_INSTALL_X",
/// True)`, `-DX=OFF`'s spelling in Spack) removed with its line: upstream's
/// default comes back, which a maintainer had overridden for a reason.
pub(super) fn removed_define(ctx: &Ctx) -> Vec<Edit> {
    fixed_defines(ctx)
        .filter(|d| {
            !d.key.starts_with("CMAKE_") || d.key.starts_with("CMAKE_DISABLE_FIND_PACKAGE_")
        })
        .filter_map(|d| {
            let text = ctx.source.get(d.start..d.end)?;
            if text.contains("run_tests") {
                return None; // the tests' switch is `tests_on`'s
            }
            let line = define_line(ctx, &d)?;
            let description = format!("the define of {} removed from cmake_args", d.key);
            Some(Edit::new(ctx, line, "", description))
        })
        .collect()
}

/// A test switch tied to `self.run_tests` set on for good: every install
/// builds the tests (which often download a test framework at configure
/// time, or need one the recipe does not declare).
pub(super) fn tests_on(ctx: &Ctx) -> Vec<Edit> {
    fixed_defines(ctx)
        .filter_map(|d| {
            let value = d.call.positional(1)?.value.clone();
            let text = ctx.source.get(value.clone())?.trim();
            if text != "self.run_tests" {
                return None;
            }
            let description = format!("{} set to True instead of self.run_tests", d.key);
            Some(Edit::new(ctx, value, "True", description))
        })
        .collect()
}
