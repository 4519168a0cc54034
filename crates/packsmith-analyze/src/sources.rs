//! Facts from the source files themselves: which languages are compiled
//! (Fortran, CUDA and HIP sources matter to a recipe even when the build
//! files do not say so), and the git submodules a build would fetch.

use crate::context::Ctx;
use crate::detect::in_noise_dir;
use packsmith_core::LanguageUse;
use packsmith_core::{DownloadFact, DownloadKind, Evidence, FeatureHint, FeatureKind, Language};
use std::collections::BTreeMap;

fn language_of(name: &str) -> Option<Language> {
    let ext = name.rsplit_once('.')?.1;
    Some(match ext {
        "c" => Language::C,
        "cc" | "cpp" | "cxx" | "c++" | "C" | "hpp" | "hxx" => Language::Cxx,
        "f" | "F" | "f90" | "F90" | "f95" | "F95" | "f03" | "F03" | "f08" | "F08" | "for"
        | "fpp" => Language::Fortran,
        "cu" | "cuh" => Language::Cuda,
        "hip" => Language::Hip,
        _ => return None,
    })
}

/// Records compiled languages seen in source files (count and first file),
/// and CUDA / HIP sources as feature hints, counting only those outside
/// tests and examples: fmt's `test/cuda-test/*.cu` and nlohmann-json's
/// `tests/cuda_example` check the headers under nvcc and are no GPU
/// feature of the package.
pub fn scan_sources(ctx: &mut Ctx<'_>) {
    let mut seen: BTreeMap<Language, (usize, String)> = BTreeMap::new();
    let mut gpu: BTreeMap<Language, (usize, String)> = BTreeMap::new();
    for file in ctx.view.files() {
        let Some(lang) = language_of(file.name()) else {
            continue;
        };
        seen.entry(lang).or_insert((0, file.rel.clone())).0 += 1;
        if matches!(lang, Language::Cuda | Language::Hip) && !in_noise_dir(file) {
            gpu.entry(lang).or_insert((0, file.rel.clone())).0 += 1;
        }
    }
    for (lang, (count, first)) in gpu {
        let (feature, name) = match lang {
            Language::Cuda => (FeatureKind::Cuda, "CUDA"),
            _ => (FeatureKind::Hip, "HIP"),
        };
        ctx.features.push(FeatureHint {
            feature,
            detail: format!("{count} {name} source file(s)"),
            conditions: Vec::new(),
            evidence: Evidence::file(first),
        });
    }
    for (lang, (count, first)) in seen {
        ctx.languages.push(LanguageUse {
            language: lang,
            how: format!("{count} source file(s)"),
            conditions: Vec::new(),
            evidence: Evidence::file(first),
        });
    }
}

/// Reads `.gitmodules`: each submodule is source the build expects to find
/// but a release tarball or a sandboxed fetch may not contain.
pub fn scan_submodules(ctx: &mut Ctx<'_>) {
    if !ctx.view.exists(".gitmodules") {
        return;
    }
    let Some(text) = ctx.read(".gitmodules") else {
        return;
    };
    let mut current: Option<DownloadFact> = None;
    for (idx, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let lineno = idx as u32 + 1;
        if let Some(rest) = line.strip_prefix("[submodule") {
            if let Some(done) = current.take() {
                ctx.downloads.push(done);
            }
            let name = rest.trim().trim_end_matches(']').trim().trim_matches('"');
            current = Some(DownloadFact::new(
                DownloadKind::GitSubmodule,
                name,
                Evidence::new(".gitmodules", lineno),
            ));
        } else if let Some((key, value)) = line.split_once('=') {
            if let Some(sub) = current.as_mut() {
                match key.trim() {
                    "path" => sub.name = value.trim().to_string(),
                    "url" => sub.url = Some(value.trim().to_string()),
                    "branch" => sub.pin = Some(value.trim().to_string()),
                    _ => {}
                }
            }
        }
    }
    if let Some(done) = current {
        ctx.downloads.push(done);
    }
}
