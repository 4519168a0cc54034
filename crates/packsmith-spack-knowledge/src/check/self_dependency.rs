//! A package that depends on, extends or provides itself: Spack refuses it
//! when loading the recipe ("Package 'x' cannot depend on itself", "...
//! cannot provide itself"), whatever the `when=`. Drafts produce this when
//! the project's own name is among its `find_package()` calls.

use super::names::spack_class_name;
use super::specs::parse_at;
use super::{Code, Diagnostic, Input};

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    let Some(class) = input.recipe.class_name.as_deref() else {
        return;
    };
    // The package's own name: given, or the one whose class name this is.
    let is_self = |name: &str| match input.opts.package {
        Some(package) => name == package,
        None => spack_class_name(name) == class,
    };
    let in_package =
        |owner: &str| owner == class || input.recipe.local_bases.iter().any(|b| b == owner);
    for call in input.layout.calls() {
        let (verb, take) = match call.name.as_str() {
            "depends_on" => ("depend on", 1),
            "extends" => ("extend", 1),
            "provides" => ("provide", usize::MAX),
            _ => continue,
        };
        if !in_package(&call.class) {
            continue;
        }
        for lit in call.positional().take(take).filter_map(|a| a.lit.as_ref()) {
            // Syntax errors are the spec rule's to report.
            let mut sink = Vec::new();
            let Some(spec) = parse_at(lit, &mut sink) else {
                continue;
            };
            let Some(name) = spec.short_name() else {
                continue;
            };
            if is_self(name) {
                out.push(Diagnostic::new(
                    Code::SelfDependency,
                    lit.line,
                    lit.col,
                    format!(
                        "`{}(\"{}\")`: a package cannot {verb} itself, and Spack refuses the \
                         recipe when loading it; remove the directive (the project finding its \
                         own installed copy is not a dependency)",
                        call.name, lit.value
                    ),
                ));
            }
        }
    }
}
