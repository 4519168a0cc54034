//! A GPU mixin only the test build needs goes: CLI11's `CLI11_CUDA_TESTS`
//! and fmt's `FMT_CUDA_TEST` compile the tests with nvcc to check the
//! headers there, and their human recipes are plain `CMakePackage`s. A
//! `+cuda` for them would promise a GPU build the package does not have.

use super::conditions::ConditionMap;
use super::{BriefNote, SpackBrief};
use packsmith_core::{FeatureHint, FeatureKind, RepoFacts};

/// Drops `CudaPackage` / `ROCmPackage` when every trace of CUDA / HIP is
/// behind a test switch.
pub(super) fn drop_test_only_bases(facts: &RepoFacts, map: &ConditionMap, brief: &mut SpackBrief) {
    for (kind, class) in [
        (FeatureKind::Cuda, "CudaPackage"),
        (FeatureKind::Hip, "ROCmPackage"),
    ] {
        let mut hits = facts.features.iter().filter(|h| h.feature == kind);
        let Some(first) = hits.next() else { continue };
        if !test_only(first, map) || !hits.all(|h| test_only(h, map)) {
            continue;
        }
        if brief.base_classes.iter().any(|b| b == class) {
            brief.base_classes.retain(|b| b != class);
            brief.notes.push(BriefNote {
                message: format!(
                    "{} is used only by the tests ({}): no {class}",
                    if kind == FeatureKind::Cuda {
                        "CUDA"
                    } else {
                        "HIP"
                    },
                    first.detail
                ),
                evidence: Some(first.evidence.clone()),
            });
        }
    }
}

/// The hint is a test option itself or lies under one.
fn test_only(hit: &FeatureHint, map: &ConditionMap) -> bool {
    let option_is_test = hit
        .detail
        .strip_prefix("option ")
        .is_some_and(|o| map.test_options.contains(&o.trim().to_ascii_uppercase()));
    option_is_test || map.is_test_only(&hit.conditions)
}
