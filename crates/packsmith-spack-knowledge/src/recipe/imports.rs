//! Module-level imports and the Spack generation they reveal.

use tree_sitter::Node;

use super::pyval::Src;
use super::{Import, SpackGeneration};
use crate::pywalk::pos;

/// Read an `import_statement` or `import_from_statement`.
pub fn read_import(src: Src, node: Node) -> Vec<Import> {
    let (line, col) = pos(node);
    let mut cur = node.walk();
    match node.kind() {
        "import_from_statement" => {
            let module = node
                .child_by_field_name("module_name")
                .map(|m| src.text(m).to_string())
                .unwrap_or_default();
            let mut names = Vec::new();
            for child in node.named_children(&mut cur) {
                if child.kind() == "wildcard_import" {
                    names.push("*".to_string());
                }
            }
            for name in node.children_by_field_name("name", &mut node.walk()) {
                // `import X as Y` keeps the local name, which is what bases use.
                let local = match name.kind() {
                    "aliased_import" => name.child_by_field_name("alias").unwrap_or(name),
                    _ => name,
                };
                names.push(src.text(local).to_string());
            }
            vec![Import {
                module,
                names,
                line,
                col,
            }]
        }
        "import_statement" => node
            .named_children(&mut cur)
            .map(|n| {
                let target = match n.kind() {
                    "aliased_import" => n.child_by_field_name("name").unwrap_or(n),
                    _ => n,
                };
                Import {
                    module: src.text(target).to_string(),
                    names: Vec::new(),
                    line,
                    col,
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// V1 when anything comes from `spack_repo`; V0 on the classic star imports or
/// `spack.build_systems`/`spack.pkg` imports; Unknown otherwise.
pub fn detect_generation(imports: &[Import]) -> SpackGeneration {
    let is = |m: &str, prefix: &str| m == prefix || m.starts_with(&format!("{prefix}."));
    if imports.iter().any(|i| is(&i.module, "spack_repo")) {
        return SpackGeneration::V1;
    }
    let v0 = imports.iter().any(|i| {
        ((i.module == "spack.package" || i.module == "spack") && i.names.iter().any(|n| n == "*"))
            || is(&i.module, "spack.build_systems")
            || is(&i.module, "spack.pkg")
    });
    if v0 {
        SpackGeneration::V0
    } else {
        SpackGeneration::Unknown
    }
}
