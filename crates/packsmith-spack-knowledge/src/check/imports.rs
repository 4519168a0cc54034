//! Imports against the target Spack generation: 0.23 gets its build
//! systems from `from spack.package import *`; 1.x imports each from
//! `spack_repo.builtin.build_systems.<module>`.

use super::{Code, Diagnostic, Input};
use crate::base_classes::builtin_module;
use crate::target::TargetSpack;

/// Star imports that bring Spack 0.x's build systems.
fn is_spack_star(module: &str) -> bool {
    module == "spack.package" || module == "spack"
}

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    let recipe = input.recipe;
    let spack = input.opts.spack;
    for imp in &recipe.imports {
        let wrong = match spack {
            TargetSpack::V0_23 => imp.module.starts_with("spack_repo"),
            TargetSpack::V1 => imp.module.starts_with("spack.pkg."),
        };
        if wrong {
            let fix = match spack {
                TargetSpack::V0_23 => "Spack 0.23 has no `spack_repo`; use `from spack.package import *`",
                TargetSpack::V1 => "Spack 1.x packages import each other from `spack_repo.builtin.packages.<name>.package`",
            };
            out.push(Diagnostic::new(
                Code::WrongGenerationImport,
                imp.line,
                imp.col,
                format!(
                    "import of `{}` is wrong for Spack {spack}: {fix}",
                    imp.module
                ),
            ));
        }
    }
    let imported = |name: &str| {
        recipe.imports.iter().any(|imp| {
            imp.names.iter().any(|n| {
                let bound = n.rsplit_once(" as ").map_or(n.as_str(), |(_, alias)| alias);
                bound.trim() == name
            })
        })
    };
    let stars: Vec<&str> = recipe
        .imports
        .iter()
        .filter(|i| i.names.iter().any(|n| n == "*"))
        .map(|i| i.module.as_str())
        .collect();
    let local = |name: &str| input.layout.classes.iter().any(|c| c.name == name);
    for class in &input.layout.classes {
        for base in class.base_names().filter(|b| !b.contains('.')) {
            if local(base) || imported(base) {
                continue;
            }
            let other_star = stars.iter().any(|m| !is_spack_star(m));
            let spack_star = stars.iter().any(|m| is_spack_star(m));
            let message = match (builtin_module(base), spack) {
                (Some(_), TargetSpack::V0_23) if spack_star || other_star => continue,
                (Some(_), TargetSpack::V0_23) => format!(
                    "base class `{base}` is not imported; Spack 0.23 recipes start with `from spack.package import *`"
                ),
                (Some(_), TargetSpack::V1) if other_star => continue,
                // Spack 1.x's `spack.package` still exports the generic `Package`.
                (Some(_), TargetSpack::V1) if spack_star && base == "Package" => continue,
                (Some(module), TargetSpack::V1) => format!(
                    "base class `{base}` is not imported; Spack 1.x needs `from spack_repo.builtin.build_systems.{module} import {base}`"
                ),
                (None, _) if !stars.is_empty() => continue,
                (None, _) => format!("base class `{base}` is neither defined in this file nor imported"),
            };
            out.push(Diagnostic::new(
                Code::MissingImport,
                class.line,
                class.col,
                message,
            ));
        }
    }
}
