//! The recipe statement a failure names: Spack quotes a recipe's values
//! (a patch's sha256, a URL, a version) in its errors, not the recipe's
//! line. The edit repair's `replace_line` example points at that
//! statement's first line, so a small model that copies the example's
//! line number copies the right one.

/// A quoted value shorter than this matches too many errors to point at
/// one statement (`"build"`, `"mpi"`).
const MIN_VALUE: usize = 16;

/// The 1-based first line of the first recipe statement one of whose
/// quoted values the failure's text contains.
pub fn named(recipe: &str, failure: &str) -> Option<u32> {
    let mut depth = 0i32;
    let mut start = 1;
    for (index, line) in recipe.lines().enumerate() {
        let number = index + 1;
        if depth <= 0 {
            start = number;
        }
        let (values, delta) = scan(line);
        if values
            .iter()
            .any(|v| v.len() >= MIN_VALUE && failure.contains(v.as_str()))
        {
            return u32::try_from(start).ok();
        }
        depth += delta;
    }
    None
}

/// The quoted values on one line and its net bracket depth change,
/// brackets in strings and comments left out.
fn scan(line: &str) -> (Vec<String>, i32) {
    let mut values = Vec::new();
    let mut delta = 0;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '#' => break,
            '"' | '\'' => {
                let mut value = String::new();
                let mut closed = false;
                for d in chars.by_ref() {
                    if d == c {
                        closed = true;
                        break;
                    }
                    value.push(d);
                }
                if closed {
                    values.push(value);
                }
            }
            '(' | '[' | '{' => delta += 1,
            ')' | ']' | '}' => delta -= 1,
            _ => {}
        }
    }
    (values, delta)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = r#"class Foo(MesonPackage):
    version("3.16.2", sha256="1bc306be1a1f4f6c8965fbdd79c9ccca021fdc4b277d501483a711cbd7dbcd6c")
    depends_on("meson@0.51:", type="build")  # (not a value: "()")

    patch(
        "https://example.org/foo-gcc11.patch",
        sha256="3ad6719d2393b46615b5787e71778917a7a6aaa189ba3c3e0fc16d110a8414ec",
        when="@3: %gcc@11:",
    )
"#;

    #[test]
    fn a_value_the_error_quotes_names_its_whole_statement() {
        let error = "==> Error: FetchError: All fetchers failed for \
                     spack-stage-patch-3ad6719d2393b46615b5787e71778917a7a6aaa189ba3c3e0fc16d110a8414ec";
        assert_eq!(named(RECIPE, error), Some(5));
        let version = "checksum mismatch for 1bc306be1a1f4f6c8965fbdd79c9ccca021fdc4b277d501483a711cbd7dbcd6c";
        assert_eq!(named(RECIPE, version), Some(2));
    }

    #[test]
    fn short_values_and_unnamed_failures_name_nothing() {
        // `build` and `@3: %gcc@11:` are too short to point at one line.
        assert_eq!(named(RECIPE, "the build failed at @3: %gcc@11:"), None);
        assert_eq!(named(RECIPE, "compilation failed"), None);
    }
}
