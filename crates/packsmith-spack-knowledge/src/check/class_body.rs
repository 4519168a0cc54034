//! `self` in a class body outside every method: Python runs the class body
//! when Spack loads the recipe, where no `self` exists, so Spack refuses it
//! (`name 'self' is not defined`). A model's edit that puts an
//! `install_tree(join_path(self.stage.source_path, …))` one level too far
//! left produces exactly this, and the rest of the check passes it.

use super::{Code, Diagnostic, Input};

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    for &(line, col) in input
        .layout
        .classes
        .iter()
        .flat_map(|c| &c.self_in_class_body)
    {
        out.push(Diagnostic::new(
            Code::SelfOutsideMethod,
            line,
            col,
            "`self` in the class body outside any method: Python runs this line when Spack \
             loads the recipe, where `self` does not exist (`name 'self' is not defined`); \
             move the statement into the method that needs it (install(), cmake_args(), \
             patch(), …) or indent it under that method",
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::pywalk::with_parser;
    use crate::recipe::layout::self_references;

    fn references(source: &str) -> Vec<(u32, u32)> {
        with_parser(|p| {
            let tree = p.parse(source, None).ok_or("no tree")?;
            Ok(self_references(source, tree.root_node()))
        })
        .unwrap()
    }

    #[test]
    fn self_outside_methods_is_found_and_inside_them_is_not() {
        let source = "x = self.spec\ndef f(self):\n    return self\ny = [self]\nz = o.self\n";
        assert_eq!(references(source), [(1, 5), (4, 6)]);
    }

    /// Found by the long fuzz run: the walk recursed once per level, and
    /// a class body nested some ten thousand levels deep overflowed the
    /// stack of the thread that read it.
    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 20_000;
        let source = format!("x = {}self{}\n", "(".repeat(depth), ")".repeat(depth));
        let found = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || references(&source))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(found.len(), 1);
    }
}
