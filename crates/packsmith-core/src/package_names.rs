//! How package names mark a language's own ecosystem (`py-numpy`,
//! `r-ggplot2`): read by analysis (a name without one asks for the native
//! build) and by the Spack knowledge base (a candidate of another
//! ecosystem than the lookup's).

/// Prefixes of the packages of a language's ecosystem, as Spack names them.
pub const LANGUAGE_PREFIXES: &[&str] = &[
    "py-", "r-", "perl-", "lua-", "rust-", "go-", "npm-", "julia-", "octave-", "ruby-",
];

/// Whether `name` is a package of some language's ecosystem.
pub fn is_language_package(name: &str) -> bool {
    LANGUAGE_PREFIXES.iter().any(|p| name.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixed_names_belong_to_a_language() {
        assert!(is_language_package("py-numpy") && is_language_package("r-ggplot2"));
        assert!(!is_language_package("rosco") && !is_language_package("rapidjson"));
    }
}
