//! Spack's `pypi = "name/name-1.0.tar.gz"` and the sdist URL it stands
//! for, both ways: the draft writes the attribute for a PyPI URL, and an
//! update reads the URL back from it.

/// Where Spack's PythonPackage fetches `pypi = ...` from.
const SOURCE: &str = "https://files.pythonhosted.org/packages/source/";

/// `pypi = "name/name-1.0.tar.gz"` for a PyPI source archive URL.
pub fn path_of(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix(SOURCE)
        .or_else(|| url.strip_prefix("https://pypi.io/packages/source/"))?;
    // `<first letter>/<project>/<file>`
    let (_letter, path) = rest.split_once('/')?;
    (path.matches('/').count() == 1).then(|| path.to_string())
}

/// The sdist URL of a `pypi` attribute's value.
pub fn url_of(path: &str) -> Option<String> {
    let first = path.chars().next()?;
    Some(format!("{SOURCE}{first}/{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pypi_paths_and_urls_are_each_others_inverse() {
        let url = "https://files.pythonhosted.org/packages/source/r/requests/requests-2.0.tar.gz";
        assert_eq!(
            path_of(url).as_deref(),
            Some("requests/requests-2.0.tar.gz")
        );
        assert_eq!(url_of("requests/requests-2.0.tar.gz").as_deref(), Some(url));
        assert_eq!(path_of("https://example.org/a.tar.gz"), None);
    }
}
