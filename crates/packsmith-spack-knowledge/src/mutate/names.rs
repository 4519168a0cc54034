//! The misspellings people really write: package names in the upstream
//! project's spelling, build-system classes as they sound.

/// A wrong spelling of dependency `name` that `known` rejects: `-` and `_`
/// swapped, the upstream capitalisation (`ZLIB` for short names, `Boost`
/// otherwise), or a `lib` prefix added or dropped, the first that Spack
/// does not know.
pub(super) fn wrong_package_name(name: &str, known: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut tries = Vec::new();
    if name.contains(['-', '_']) {
        tries.push(
            name.chars()
                .map(|c| match c {
                    '-' => '_',
                    '_' => '-',
                    c => c,
                })
                .collect::<String>(),
        );
    }
    if name.chars().count() <= 4 {
        tries.push(name.to_ascii_uppercase());
    } else {
        let mut chars = name.chars();
        if let Some(first) = chars.next() {
            tries.push(first.to_ascii_uppercase().to_string() + chars.as_str());
        }
    }
    match name.strip_prefix("lib") {
        // `lib-foo` or `lib` alone are not a `lib` prefix.
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_alphabetic()) => {
            tries.push(rest.to_string());
        }
        _ => tries.push(format!("lib{name}")),
    }
    tries.into_iter().find(|t| t != name && !known(t))
}

/// How the builtin build-system classes get misspelt, in the order the
/// class header is searched.
const BASE_CLASS_TYPOS: &[(&str, &str)] = &[
    ("CMakePackage", "CmakePackage"),
    ("AutotoolsPackage", "AutoToolsPackage"),
    ("MakefilePackage", "MakePackage"),
    ("PythonPackage", "PyPackage"),
    ("MesonPackage", "MesonBuildPackage"),
    ("Package", "BasePackage"),
    ("CudaPackage", "CUDAPackage"),
    ("ROCmPackage", "RocmPackage"),
];

/// The usual misspelling of builtin base class `class`, if it has one.
pub(super) fn wrong_base_class(class: &str) -> Option<&'static str> {
    BASE_CLASS_TYPOS
        .iter()
        .find(|(right, _)| *right == class)
        .map(|(_, wrong)| *wrong)
}

/// Dependency types misspelt (Spack's four: build, link, run, test).
pub(super) fn wrong_dependency_type(deptype: &str) -> Option<&'static str> {
    match deptype {
        "build" => Some("buid"),
        "link" => Some("lnk"),
        "run" => Some("rn"),
        "test" => Some("tst"),
        _ => None,
    }
}

/// Byte offsets where `word` occurs as a whole identifier in `text`.
pub(super) fn word_offsets(text: &str, word: &str) -> Vec<usize> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(|&at| {
            let before = text.get(..at).and_then(|t| t.chars().next_back());
            let after = text.get(at + word.len()..).and_then(|t| t.chars().next());
            !before.is_some_and(ident) && !after.is_some_and(ident)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_are_respelt_in_order_until_unknown() {
        let none = |_: &str| false;
        assert_eq!(
            wrong_package_name("zlib-api", &none).as_deref(),
            Some("zlib_api")
        );
        assert_eq!(wrong_package_name("zlib", &none).as_deref(), Some("ZLIB"));
        assert_eq!(wrong_package_name("boost", &none).as_deref(), Some("Boost"));
        let caps_known = |n: &str| n == "Boost";
        assert_eq!(
            wrong_package_name("boost", &caps_known).as_deref(),
            Some("libboost")
        );
        let all_known = |n: &str| n != "xml2";
        assert_eq!(
            wrong_package_name("libxml2", &all_known).as_deref(),
            Some("xml2")
        );
        let everything = |_: &str| true;
        assert_eq!(wrong_package_name("boost", &everything), None);
    }

    #[test]
    fn whole_words_only() {
        assert_eq!(
            word_offsets("class A(CMakePackage, Package):", "Package"),
            vec![22]
        );
        assert_eq!(wrong_base_class("Package"), Some("BasePackage"));
        assert_eq!(wrong_base_class("RPackage"), None);
    }
}
