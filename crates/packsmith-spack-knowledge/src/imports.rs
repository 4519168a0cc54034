//! The import block for each Spack generation.

use crate::base_classes::builtin_module;
use crate::target::TargetSpack;

/// The import lines (without a trailing blank line).
pub fn render_imports(target: TargetSpack, base_classes: &[String]) -> Vec<String> {
    match target {
        TargetSpack::V0_23 => vec!["from spack.package import *".into()],
        TargetSpack::V1 => {
            let mut lines: Vec<String> = base_classes
                .iter()
                .map(|base| match builtin_module(base) {
                    Some(module) => {
                        format!("from spack_repo.builtin.build_systems.{module} import {base}")
                    }
                    None => format!("# FIXME: import {base} from its spack_repo module"),
                })
                .collect();
            lines.sort();
            lines.dedup();
            lines.push(String::new());
            lines.push("from spack.package import *".into());
            lines
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_imports_are_sorted_then_star() {
        let lines = render_imports(
            TargetSpack::V1,
            &["CMakePackage".into(), "CudaPackage".into()],
        );
        assert_eq!(
            lines,
            vec![
                "from spack_repo.builtin.build_systems.cmake import CMakePackage",
                "from spack_repo.builtin.build_systems.cuda import CudaPackage",
                "",
                "from spack.package import *",
            ]
        );
    }

    #[test]
    fn v023_is_the_star_import_only() {
        assert_eq!(
            render_imports(TargetSpack::V0_23, &["CMakePackage".into()]),
            vec!["from spack.package import *"]
        );
    }
}
