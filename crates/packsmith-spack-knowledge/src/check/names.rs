//! The class name Spack looks for.

use super::{Code, Diagnostic, Input};

/// Spack's `mod_to_class`: `py-foo-bar` → `PyFooBar`, `3dtk` → `_3dtk`;
/// each part is capitalised (first letter up, the rest down).
pub fn spack_class_name(package: &str) -> String {
    let mut out: String = package
        .split(['-', '_'])
        .filter(|p| !p.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => {
                    first.to_uppercase().collect::<String>() + &chars.as_str().to_lowercase()
                }
                None => String::new(),
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    let Some(package) = input.opts.package else {
        return;
    };
    let expected = spack_class_name(package);
    if input.layout.classes.iter().any(|c| c.name == expected) {
        return;
    }
    let found = input.recipe.class_name.as_deref().unwrap_or("?");
    out.push(Diagnostic::new(
        Code::ClassName,
        input.recipe.class_line.unwrap_or(1),
        1,
        format!("class `{found}` does not match package `{package}`: Spack looks for `class {expected}`"),
    ));
}

#[cfg(test)]
mod tests {
    use super::spack_class_name;

    #[test]
    fn mangling() {
        assert_eq!(spack_class_name("py-foo-bar"), "PyFooBar");
        assert_eq!(spack_class_name("3dtk"), "_3dtk");
        assert_eq!(spack_class_name("fxdiv"), "Fxdiv");
        assert_eq!(spack_class_name("r-bh"), "RBh");
        assert_eq!(spack_class_name("py_numpy"), "PyNumpy");
    }
}
