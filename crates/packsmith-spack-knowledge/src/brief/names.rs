//! Spack-style names: package names, class names, and variant names made
//! from upstream option names.

/// `FXdiv` → `fxdiv`, `My_Lib` → `my-lib`: Spack package names are lower
/// case with hyphens.
pub fn package_name(upstream: &str) -> String {
    let mut out = String::new();
    for c in upstream.trim().chars() {
        match c {
            'A'..='Z' => out.push(c.to_ascii_lowercase()),
            'a'..='z' | '0'..='9' | '-' => out.push(c),
            _ => out.push('-'),
        }
    }
    let collapsed = out
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if collapsed.is_empty() {
        "unnamed".to_string()
    } else {
        collapsed
    }
}

/// The class name Spack derives from a package name (`py-foo-bar` →
/// `PyFooBar`, `3dtk` → `_3dtk`): the static check's rule, shared so the
/// draft and the check can never disagree.
pub use crate::check::spack_class_name as class_name;

/// Words an option name starts with that say nothing about the feature.
const OPTION_VERBS: &[&str] = &["ENABLE", "WITH", "USE", "BUILD", "HAVE", "INCLUDE"];

/// Turns an upstream option into a Spack variant name:
/// `HEATSIM_ENABLE_MPI` (project `heatsim`) → `mpi`, `ZFP_WITH_OPENMP` →
/// `openmp`, `BUILD_SHARED_LIBS` → `shared`, `Kokkos_ENABLE_CUDA` → `cuda`.
pub fn variant_name(option: &str, project: Option<&str>) -> String {
    if option == "BUILD_SHARED_LIBS" {
        return "shared".to_string();
    }
    let mut parts: Vec<&str> = option.split(['_', '-']).filter(|p| !p.is_empty()).collect();
    if let Some(project) = project {
        let prefix = project.to_ascii_uppercase().replace('-', "_");
        let words: Vec<&str> = prefix.split('_').filter(|p| !p.is_empty()).collect();
        if parts.len() > words.len()
            && parts
                .iter()
                .zip(&words)
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
        {
            parts.drain(..words.len());
        }
    }
    if parts.len() > 1
        && OPTION_VERBS
            .iter()
            .any(|v| parts[0].eq_ignore_ascii_case(v))
    {
        parts.remove(0);
    }
    let name = parts.join("_").to_ascii_lowercase();
    if name.is_empty() {
        option.to_ascii_lowercase()
    } else {
        name
    }
}

/// Words that name an option in the negative (`NO_ZLIB`, `DISABLE_MPI`).
const NEGATIONS: &[&str] = &["NO", "DISABLE", "WITHOUT"];

/// For an option named in the negative, the variant that names the
/// feature instead, as Spack recipes do: `FOO_NO_ZLIB` → `zlib`,
/// `DISABLE_MPI` → `mpi` (the variant is on when the option is off).
/// None for any other option.
pub fn positive_variant_name(option: &str, project: Option<&str>) -> Option<String> {
    let name = variant_name(option, project);
    let (first, rest) = name.split_once('_')?;
    let negative = NEGATIONS.iter().any(|n| first.eq_ignore_ascii_case(n));
    (negative && !rest.is_empty()).then(|| variant_name(rest, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(package_name("FXdiv"), "fxdiv");
        assert_eq!(package_name("My_Lib 2"), "my-lib-2");
        assert_eq!(class_name("py-foo-bar"), "PyFooBar");
        assert_eq!(class_name("3dtk"), "_3dtk");
        assert_eq!(class_name("fxdiv"), "Fxdiv");
        assert_eq!(variant_name("HEATSIM_ENABLE_MPI", Some("heatsim")), "mpi");
        assert_eq!(variant_name("ZFP_WITH_OPENMP", Some("zfp")), "openmp");
        assert_eq!(variant_name("Kokkos_ENABLE_CUDA", Some("Kokkos")), "cuda");
        assert_eq!(variant_name("BUILD_SHARED_LIBS", None), "shared");
        assert_eq!(variant_name("ENABLE_FORTRAN", Some("other")), "fortran");
        assert_eq!(variant_name("ADIOS2_USE_MPI", Some("ADIOS2")), "mpi");
        assert_eq!(variant_name("FOO_PRECISION", Some("foo")), "precision");
    }

    #[test]
    fn negative_options_get_positive_variants() {
        assert_eq!(
            positive_variant_name("FOO_NO_ZLIB", Some("foo")).as_deref(),
            Some("zlib")
        );
        assert_eq!(
            positive_variant_name("DISABLE_MPI", None).as_deref(),
            Some("mpi")
        );
        assert_eq!(
            positive_variant_name("WITHOUT_USE_HDF5", None).as_deref(),
            Some("hdf5")
        );
        assert_eq!(positive_variant_name("FOO_ENABLE_MPI", Some("foo")), None);
        assert_eq!(positive_variant_name("NOZLIB", None), None);
        assert_eq!(positive_variant_name("NORMALIZE", None), None);
    }
}
