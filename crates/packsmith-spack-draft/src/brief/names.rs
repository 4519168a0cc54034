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
pub use packsmith_spack_knowledge::check::spack_class_name as class_name;

/// Words an option name starts with that say nothing about the feature.
const OPTION_VERBS: &[&str] = &["ENABLE", "WITH", "USE", "BUILD", "HAVE", "INCLUDE"];

/// Words that name an option in the negative (`NO_ZLIB`, `DISABLE_MPI`,
/// `SKIP_PERFORMANCE_COMPARISON`).
const NEGATIONS: &[&str] = &["NO", "DISABLE", "WITHOUT", "SKIP"];

/// First words that say what an option does, never whose it is: several
/// options starting `INSTALL_` share no namespace.
const NOT_NAMESPACES: &[&str] = &[
    "INSTALL", "CMAKE", "TEST", "TESTS", "DOC", "DOCS", "EXAMPLES", "FORCE", "ONLY", "JUST",
    "DEBUG", "STATIC", "SHARED",
];

/// The leading words an option name may carry that say nothing about the
/// feature, upper-cased: the project's name (`HEATSIM_ENABLE_MPI`) and the
/// namespace most of the project's options share (`MI_` in mimalloc,
/// `JSON_` in nlohmann_json, `PNG_` in libpng), longest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OptionPrefixes(Vec<Vec<String>>);

impl OptionPrefixes {
    /// The project's name alone.
    pub fn of_project(project: Option<&str>) -> Self {
        let mut out = Self::default();
        if let Some(project) = project {
            out.push(prefix_words(project));
        }
        out
    }

    /// The project's name and the namespace of `options`: a first word that
    /// at least three options and half of them share, which is no verb or
    /// negation (`ENABLE_`, `NO_`) and is followed by more words.
    pub fn of_options<'a>(
        project: Option<&str>,
        options: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut out = Self::of_project(project);
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        let mut total = 0usize;
        for option in options {
            total += 1;
            let parts = split(option);
            if parts.len() > 1 {
                *counts.entry(parts[0].to_ascii_uppercase()).or_default() += 1;
            }
        }
        let best = counts
            .into_iter()
            .filter(|(w, _)| {
                w.len() >= 2
                    && !OPTION_VERBS.contains(&w.as_str())
                    && !NEGATIONS.contains(&w.as_str())
                    && !NOT_NAMESPACES.contains(&w.as_str())
            })
            .max_by_key(|(_, n)| *n);
        if let Some((word, n)) = best {
            if n >= 3 && n * 2 >= total {
                out.push(vec![word]);
            }
        }
        out
    }

    fn push(&mut self, words: Vec<String>) {
        if !words.is_empty() && !self.0.contains(&words) {
            self.0.push(words);
            self.0.sort_by_key(|w| std::cmp::Reverse(w.len()));
        }
    }

    /// `parts` without the first prefix that leads it (and leaves a word).
    fn strip<'a>(&self, parts: &[&'a str]) -> Vec<&'a str> {
        for prefix in &self.0 {
            if parts.len() > prefix.len()
                && parts
                    .iter()
                    .zip(prefix)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
            {
                return parts[prefix.len()..].to_vec();
            }
        }
        parts.to_vec()
    }
}

/// The words of an option name: split at `_` and `-`, and a camel-case
/// part at each word (`JSON_MultipleHeaders` → `JSON`, `Multiple`,
/// `Headers`) when every piece has lower-case letters, so that acronyms
/// stay whole (`OpenMP`, `OpenCL`).
fn split(option: &str) -> Vec<&str> {
    option
        .split(['_', '-'])
        .filter(|p| !p.is_empty())
        .flat_map(camel_words)
        .collect()
}

fn camel_words(part: &str) -> Vec<&str> {
    let mut cuts = vec![0];
    let chars: Vec<(usize, char)> = part.char_indices().collect();
    for w in chars.windows(2) {
        if w[0].1.is_ascii_lowercase() && w[1].1.is_ascii_uppercase() {
            cuts.push(w[1].0);
        }
    }
    cuts.push(part.len());
    let pieces: Vec<&str> = cuts.windows(2).map(|c| &part[c[0]..c[1]]).collect();
    let words = pieces
        .iter()
        .all(|p| p.len() >= 2 && p.chars().any(|c| c.is_ascii_lowercase()));
    if pieces.len() > 1 && words {
        pieces
    } else {
        vec![part]
    }
}

fn prefix_words(project: &str) -> Vec<String> {
    project
        .to_ascii_uppercase()
        .replace('-', "_")
        .split('_')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// Turns an upstream option into a Spack variant name:
/// `HEATSIM_ENABLE_MPI` (project `heatsim`) → `mpi`, `ZFP_WITH_OPENMP` →
/// `openmp`, `BUILD_SHARED_LIBS` → `shared`, `Kokkos_ENABLE_CUDA` → `cuda`.
pub fn variant_name(option: &str, project: Option<&str>) -> String {
    variant_name_in(option, &OptionPrefixes::of_project(project))
}

/// [`variant_name`] with every prefix the project's options carry
/// stripped: `MI_SECURE` → `secure`, `JANSSON_BUILD_SHARED_LIBS` and
/// `PNG_SHARED` → `shared`, as Spack's recipes name them.
pub fn variant_name_in(option: &str, prefixes: &OptionPrefixes) -> String {
    if option == "BUILD_SHARED_LIBS" {
        return "shared".to_string();
    }
    let mut parts = prefixes.strip(&split(option));
    if parts.len() > 1
        && OPTION_VERBS
            .iter()
            .any(|v| parts[0].eq_ignore_ascii_case(v))
    {
        parts.remove(0);
    }
    // Spack's names for the library kinds: `shared`, `static`.
    let upper: Vec<String> = parts.iter().map(|p| p.to_ascii_uppercase()).collect();
    if let [kind, rest @ ..] = upper.as_slice() {
        let libs = matches!(rest, [] | [_]) && rest.iter().all(|r| r.starts_with("LIB"));
        if libs && (kind == "SHARED" || kind == "STATIC") {
            return kind.to_ascii_lowercase();
        }
    }
    let name = parts.join("_").to_ascii_lowercase();
    if name.is_empty() {
        option.to_ascii_lowercase()
    } else {
        name
    }
}

/// For an option named in the negative, the variant that names the
/// feature instead, as Spack recipes do: `FOO_NO_ZLIB` → `zlib`,
/// `DISABLE_MPI` → `mpi` (the variant is on when the option is off).
/// None for any other option.
pub fn positive_variant_name(option: &str, project: Option<&str>) -> Option<String> {
    positive_variant_name_in(option, &OptionPrefixes::of_project(project))
}

/// [`positive_variant_name`] with every prefix of the project's options.
pub fn positive_variant_name_in(option: &str, prefixes: &OptionPrefixes) -> Option<String> {
    let name = variant_name_in(option, prefixes);
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
        assert_eq!(
            positive_variant_name("SKIP_PERFORMANCE_COMPARISON", None).as_deref(),
            Some("performance_comparison")
        );
        assert_eq!(positive_variant_name("NORMALIZE", None), None);
    }

    #[test]
    fn the_options_namespace_is_stripped_like_the_projects_name() {
        let options = [
            "MI_SECURE",
            "MI_OVERRIDE",
            "MI_BUILD_SHARED",
            "MI_BUILD_STATIC",
            "OTHER",
        ];
        let p = OptionPrefixes::of_options(Some("libmimalloc"), options);
        assert_eq!(variant_name_in("MI_SECURE", &p), "secure");
        assert_eq!(variant_name_in("MI_BUILD_SHARED", &p), "shared");
        assert_eq!(variant_name_in("MI_BUILD_STATIC", &p), "static");
        assert_eq!(variant_name_in("OTHER", &p), "other");
        // The project's own name, longer, wins over the namespace.
        let options = [
            "YAML_CPP_BUILD_TOOLS",
            "YAML_CPP_INSTALL",
            "YAML_BUILD_SHARED_LIBS",
        ];
        let p = OptionPrefixes::of_options(Some("YAML_CPP"), options);
        assert_eq!(variant_name_in("YAML_CPP_BUILD_TOOLS", &p), "tools");
        assert_eq!(variant_name_in("YAML_BUILD_SHARED_LIBS", &p), "shared");
        assert_eq!(
            variant_name_in(
                "JANSSON_BUILD_SHARED_LIBS",
                &OptionPrefixes::of_project(Some("jansson"))
            ),
            "shared"
        );
        // Too few options, or a verb, make no namespace.
        let p = OptionPrefixes::of_options(None, ["FOO_A", "FOO_B", "BAR", "BAZ", "QUX"]);
        assert_eq!(variant_name_in("FOO_A", &p), "foo_a");
        let p = OptionPrefixes::of_options(None, ["ENABLE_A", "ENABLE_B", "ENABLE_C"]);
        assert_eq!(variant_name_in("ENABLE_A", &p), "a");
        let p = OptionPrefixes::of_options(
            None,
            [
                "INSTALL_DOCS",
                "INSTALL_PKG_CONFIG_MODULE",
                "INSTALL_CMAKE_PACKAGE_MODULE",
            ],
        );
        assert_eq!(
            variant_name_in("INSTALL_PKG_CONFIG_MODULE", &p),
            "install_pkg_config_module"
        );
        // Camel case splits into words, acronyms stay whole.
        let p = OptionPrefixes::of_options(
            Some("nlohmann_json"),
            ["JSON_MultipleHeaders", "JSON_GlobalUDLs", "JSON_CI"],
        );
        assert_eq!(
            variant_name_in("JSON_MultipleHeaders", &p),
            "multiple_headers"
        );
        assert_eq!(variant_name_in("JSON_GlobalUDLs", &p), "global_udls");
        assert_eq!(variant_name("USE_OpenMP", None), "openmp");
        assert_eq!(variant_name("ENABLE_OpenCL", None), "opencl");
        // A library-kind word beside another feature is no kind.
        assert_eq!(
            variant_name("FOO_SHARED_MEMORY", Some("foo")),
            "shared_memory"
        );
    }
}
