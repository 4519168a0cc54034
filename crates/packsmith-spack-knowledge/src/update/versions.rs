//! The versions a recipe declares, and the URL its `url` pattern gives
//! for a new one.

use crate::recipe::ParsedRecipe;
use crate::spec::Version;

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

/// The URL Spack derives from the recipe's `url` for `new`, the way
/// `url_for_version` does for a URL that names the version it was written
/// for: every occurrence of `old` replaced. None when the URL does not
/// name `old`.
pub fn url_for_version(url: &str, old: &str, new: &str) -> Option<String> {
    (!old.is_empty() && url.contains(old)).then(|| url.replace(old, new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::parse_recipe;

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
            url_for_version("https://x.org/demo-1.0.0.tar.gz", "1.0.0", "2.0.0").as_deref(),
            Some("https://x.org/demo-2.0.0.tar.gz")
        );
        assert_eq!(
            url_for_version("https://x.org/demo.tar.gz", "1.0", "2.0"),
            None
        );
    }
}
