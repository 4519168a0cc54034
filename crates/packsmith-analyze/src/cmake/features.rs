//! Maps what a CMake file uses to feature hints (CUDA, HIP, MPI, …) and
//! records hints and languages without duplicates.

use super::state::Site;
use crate::context::Ctx;
use packsmith_core::{FeatureHint, FeatureKind, Language, LanguageUse};

/// The feature a `find_package(<name>)` reveals.
pub fn for_package(name: &str) -> Option<FeatureKind> {
    let lc = name.to_ascii_lowercase();
    let kind = match lc.as_str() {
        "cuda" | "cudatoolkit" | "cudnn" | "nccl" | "cutensor" | "cub" | "thrust" => {
            FeatureKind::Cuda
        }
        "rocm" | "amd_comgr" | "hsa-runtime64" | "rocblas" | "rocprim" | "rocthrust"
        | "rocsparse" | "rocrand" | "rocfft" | "rocsolver" | "roctracer" | "rccl" | "miopen" => {
            FeatureKind::Hip
        }
        "openmp" => FeatureKind::Openmp,
        "mpi" => FeatureKind::Mpi,
        "kokkos" | "kokkoskernels" => FeatureKind::Kokkos,
        "raja" | "umpire" | "chai" => FeatureKind::Raja,
        "intelsycl" | "sycl" | "adaptivecpp" | "hipsycl" | "opensycl" | "computecpp" => {
            FeatureKind::Sycl
        }
        "pybind11" => FeatureKind::Pybind11,
        "nanobind" => FeatureKind::Nanobind,
        "swig" => FeatureKind::Swig,
        "python" | "python2" | "python3" | "pythoninterp" | "pythonlibs" => FeatureKind::Python,
        _ if lc.starts_with("hip") => FeatureKind::Hip,
        _ => return None,
    };
    Some(kind)
}

/// The feature an option or cache variable name suggests, matched on whole
/// `_`-separated words so `COMPILER` does not read as MPI.
pub fn for_option(name: &str) -> Option<FeatureKind> {
    name.split(['_', '-'])
        .find_map(|w| match w.to_ascii_uppercase().as_str() {
            "CUDA" => Some(FeatureKind::Cuda),
            "HIP" | "ROCM" => Some(FeatureKind::Hip),
            "OPENMP" | "OMP" => Some(FeatureKind::Openmp),
            "MPI" => Some(FeatureKind::Mpi),
            "SYCL" => Some(FeatureKind::Sycl),
            _ => None,
        })
}

/// The feature of a language enabled by the build.
pub fn for_language(lang: Language) -> Option<FeatureKind> {
    match lang {
        Language::Cuda => Some(FeatureKind::Cuda),
        Language::Hip => Some(FeatureKind::Hip),
        _ => None,
    }
}

/// Records a hint unless the same feature was already hinted at the same place.
pub fn push_feature(ctx: &mut Ctx<'_>, feature: FeatureKind, detail: String, site: &Site) {
    if ctx
        .features
        .iter()
        .any(|f| f.feature == feature && f.evidence == site.evidence)
    {
        return;
    }
    ctx.features.push(FeatureHint {
        feature,
        detail,
        conditions: site.conditions.clone(),
        evidence: site.evidence.clone(),
    });
}

/// Records a language use (and its CUDA/HIP hint) once per place and way.
pub fn push_language(ctx: &mut Ctx<'_>, token: &str, how: &str, site: &Site) {
    let Some(language) = Language::from_token(token) else {
        return;
    };
    if !ctx
        .languages
        .iter()
        .any(|l| l.language == language && l.how == how && l.evidence == site.evidence)
    {
        ctx.languages.push(LanguageUse {
            language,
            how: how.to_string(),
            conditions: site.conditions.clone(),
            evidence: site.evidence.clone(),
        });
    }
    if let Some(feature) = for_language(language) {
        push_feature(ctx, feature, format!("{how}({token})"), site);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_words() {
        assert_eq!(for_option("Kokkos_ENABLE_CUDA"), Some(FeatureKind::Cuda));
        assert_eq!(for_option("ADIOS2_USE_MPI"), Some(FeatureKind::Mpi));
        assert_eq!(for_option("FOO_COMPILER_CHECKS"), None);
        assert_eq!(for_option("ZFP_WITH_OPENMP"), Some(FeatureKind::Openmp));
    }

    #[test]
    fn packages() {
        assert_eq!(for_package("hipBLAS"), Some(FeatureKind::Hip));
        assert_eq!(for_package("Python3"), Some(FeatureKind::Python));
        assert_eq!(for_package("Boost"), None);
    }
}
