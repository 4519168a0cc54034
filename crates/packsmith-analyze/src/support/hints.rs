//! Dependency names that reveal a technology a packager must know about.

use packsmith_core::FeatureKind;

/// The feature a dependency / module / library name stands for, if any
/// (`mpi`, `ompi-c`, `openmp`, `cuda`, `python3`, `pybind11`, …).
pub fn feature_for_dependency(name: &str) -> Option<FeatureKind> {
    let n = name.trim().to_ascii_lowercase();
    let n = n.as_str();
    let starts =
        |p: &str| n == p || n.starts_with(&format!("{p}-")) || n.starts_with(&format!("{p}_"));
    if starts("mpi") || starts("ompi") || starts("mpich") || n == "openmpi" || n == "mpi.h" {
        Some(FeatureKind::Mpi)
    } else if n == "openmp" || n == "omp" || n == "omp.h" || n == "gomp" {
        Some(FeatureKind::Openmp)
    } else if starts("cuda") || n == "cudart" || n == "cublas" || n == "cufft" || n == "nvcc" {
        Some(FeatureKind::Cuda)
    } else if starts("hip") || n == "rocm" || n == "hipcc" {
        Some(FeatureKind::Hip)
    } else if starts("kokkos") {
        Some(FeatureKind::Kokkos)
    } else if starts("raja") {
        Some(FeatureKind::Raja)
    } else if starts("sycl") {
        Some(FeatureKind::Sycl)
    } else if starts("pybind11") {
        Some(FeatureKind::Pybind11)
    } else if starts("nanobind") {
        Some(FeatureKind::Nanobind)
    } else if starts("swig") {
        Some(FeatureKind::Swig)
    } else if starts("python") || starts("python2") || starts("python3") {
        Some(FeatureKind::Python)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names() {
        assert_eq!(feature_for_dependency("ompi-c"), Some(FeatureKind::Mpi));
        assert_eq!(feature_for_dependency("MPI"), Some(FeatureKind::Mpi));
        assert_eq!(
            feature_for_dependency("python3-embed"),
            Some(FeatureKind::Python)
        );
        assert_eq!(feature_for_dependency("openmp"), Some(FeatureKind::Openmp));
        assert_eq!(feature_for_dependency("hipercube"), None);
        assert_eq!(feature_for_dependency("zlib"), None);
    }
}
