//! The versions a recipe declares, and the URL its `url` pattern gives
//! for a new one.

use packsmith_spack_knowledge::recipe::ParsedRecipe;
use packsmith_spack_knowledge::spec::Version;

/// The newest release the recipe declares: the greatest `version()` that
/// is not a branch (`develop`, `main`, or one given with `branch=`).
pub fn newest_version(recipe: &ParsedRecipe) -> Option<String> {
    recipe
        .versions
        .iter()
        .filter(|v| v.branch.is_none() && v.note.is_none())
        .filter_map(|v| Version::parse(&v.version).map(|parsed| (parsed, &v.version)))
        .filter(|(parsed, _)| !parsed.is_infinity())
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, text)| text.clone())
}

/// The URL a recipe fetches its releases from: `url`, else the PyPI
/// sdist URL Spack builds from `pypi = "name/name-1.0.tar.gz"`.
pub fn recipe_url(recipe: &ParsedRecipe) -> Option<String> {
    if let Some(url) = &recipe.url {
        return Some(url.clone());
    }
    let pypi = recipe
        .attributes
        .iter()
        .find(|a| a.name == "pypi")
        .and_then(|a| a.value.as_str())?;
    packsmith_spack_knowledge::pypi::url_of(pypi)
}

/// The URL Spack derives from the recipe's `url` for `new`, the way
/// `url_for_version` does: the URL names the version it was written for,
/// often an old one (`demo-1.2.tar.gz` in a recipe now at 3.0), so the
/// longest declared version it names is replaced, in the separators the
/// URL writes it with (`pio2_5_8` is 2.5.8). None when it names none.
pub fn url_for_version(url: &str, declared: &[&str], new: &str) -> Option<String> {
    let mut by_length: Vec<&str> = declared.iter().copied().filter(|v| !v.is_empty()).collect();
    by_length.sort_by_key(|v| std::cmp::Reverse(v.len()));
    for version in by_length {
        for sep in ['.', '_', '-'] {
            let written = version.replace('.', &sep.to_string());
            if names_version(url, &written) {
                return Some(url.replace(&written, &new.replace('.', &sep.to_string())));
            }
        }
    }
    file_name_version(url).map(|old| url.replace(old, new))
}

/// The version a URL's file name carries when the recipe no longer
/// declares it (`seacas/archive/v2019-08-20.tar.gz`): the last run of
/// digits joined by dots, dashes or underscores, as Spack's URL parser
/// finds it.
fn file_name_version(url: &str) -> Option<&str> {
    let name_at = url.rfind('/')? + 1;
    let name = &url[name_at..];
    let mut best: Option<(usize, usize)> = None;
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit()
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'v')
        {
            let start = i;
            let mut end = i;
            while end < bytes.len()
                && (bytes[end].is_ascii_digit()
                    || (matches!(bytes[end], b'.' | b'-' | b'_')
                        && end + 1 < bytes.len()
                        && bytes[end + 1].is_ascii_digit()))
            {
                end += 1;
            }
            if name[start..end].contains(['.', '-', '_']) {
                best = Some((start, end));
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    best.map(|(s, e)| &url[name_at + s..name_at + e])
}

/// `url` holds `written` as a whole version: not `1.2` inside `11.2.0`
/// or `1.2.0` (a dot before `tar`, `zip` or `/` still ends it).
fn names_version(url: &str, written: &str) -> bool {
    // A digit, or a dot and a digit, next to it continues the number.
    fn continues(mut side: impl Iterator<Item = char>) -> bool {
        match side.next() {
            Some(c) if c.is_ascii_digit() => true,
            Some('.') => side.next().is_some_and(|c| c.is_ascii_digit()),
            _ => false,
        }
    }
    url.match_indices(written).any(|(at, _)| {
        !continues(url[..at].chars().rev()) && !continues(url[at + written.len()..].chars())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_spack_knowledge::recipe::parse_recipe;

    #[test]
    fn the_newest_release_ignores_branches() {
        let recipe = parse_recipe(
            "from spack.package import *\n\nclass Demo(CMakePackage):\n    \
             version(\"develop\", branch=\"main\")\n    version(\"1.10.0\", sha256=\"a\")\n    \
             version(\"1.9.2\", sha256=\"b\")\n",
            "package.py",
        );
        assert_eq!(newest_version(&recipe).as_deref(), Some("1.10.0"));
    }

    #[test]
    fn the_url_pattern_names_the_new_version() {
        assert_eq!(
            url_for_version("https://x.org/demo-1.0.0.tar.gz", &["1.0.0"], "2.0.0").as_deref(),
            Some("https://x.org/demo-2.0.0.tar.gz")
        );
        assert_eq!(
            url_for_version("https://x.org/demo.tar.gz", &["1.0"], "2.0"),
            None
        );
    }

    #[test]
    fn an_old_version_in_the_url_is_the_one_replaced() {
        // The recipe's url was written for 3.8.1; its newest version is 3.13.5.
        let url = "https://files.pythonhosted.org/packages/source/a/aiohttp/aiohttp-3.8.1.tar.gz";
        assert_eq!(
            url_for_version(url, &["3.13.5", "3.8.1", "3.8"], "3.14.0").as_deref(),
            Some("https://files.pythonhosted.org/packages/source/a/aiohttp/aiohttp-3.14.0.tar.gz")
        );
        // Underscores, as the URL writes it; not a version inside a longer one.
        assert_eq!(
            url_for_version(
                "https://g.com/o/r/archive/pio2_5_8.tar.gz",
                &["2.5.8"],
                "2.6.6"
            )
            .as_deref(),
            Some("https://g.com/o/r/archive/pio2_6_6.tar.gz")
        );
        // 1.2 inside 11.2.0 is not the version: the file name's is.
        assert_eq!(
            url_for_version("https://x.org/demo-11.2.0.tar.gz", &["1.2"], "1.3").as_deref(),
            Some("https://x.org/demo-1.3.tar.gz")
        );
    }

    #[test]
    fn a_version_the_recipe_no_longer_declares_is_read_from_the_file_name() {
        assert_eq!(
            url_for_version(
                "https://github.com/sandialabs/seacas/archive/v2019-08-20.tar.gz",
                &["2025-07-07"],
                "2025-08-19"
            )
            .as_deref(),
            Some("https://github.com/sandialabs/seacas/archive/v2025-08-19.tar.gz")
        );
        assert_eq!(
            url_for_version("https://x.org/f/cfitsio-3.49.tar.gz", &["4.5.0"], "4.6.3").as_deref(),
            Some("https://x.org/f/cfitsio-4.6.3.tar.gz")
        );
        assert_eq!(
            url_for_version("https://x.org/f/demo.tar.gz", &["1.0"], "2.0"),
            None
        );
    }

    #[test]
    fn a_pypi_attribute_is_the_sdist_url() {
        let recipe = parse_recipe(
            "from spack.package import *\n\nclass PyDemo(PythonPackage):\n    \
             pypi = \"demo/demo-1.0.tar.gz\"\n    version(\"1.0\", sha256=\"a\")\n",
            "package.py",
        );
        assert_eq!(
            recipe_url(&recipe).as_deref(),
            Some("https://files.pythonhosted.org/packages/source/d/demo/demo-1.0.tar.gz")
        );
    }
}
