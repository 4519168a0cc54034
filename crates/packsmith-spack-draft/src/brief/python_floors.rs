//! A Python project's version bounds as the recipe's version ranges:
//! `requires-python` as `python@X:`, a requirement's `>=` as `@X:`, each
//! only where the target Spack's recipe declares a version that meets it.

use packsmith_core::Evidence;
use packsmith_spack_knowledge::mapping::SpackNames;
use packsmith_spack_knowledge::spec::Version;

use super::{dep, push_dep, BriefNote, SpackBrief};

/// `>=3.9`, `~=1.2`, `>= 0.2.1, <1`: the lowest version a PEP 440
/// specifier admits, when it names one.
pub(crate) fn pep440_floor(specifier: &str) -> Option<String> {
    specifier.split(',').find_map(|clause| {
        let c = clause.trim();
        let v = c
            .strip_prefix(">=")
            .or_else(|| c.strip_prefix("~="))?
            .trim()
            .trim_end_matches(".*");
        Version::parse(v).map(|_| v.to_string())
    })
}

/// Whether the target Spack's recipe of `package` declares a version at or
/// above `floor` (or its versions are unknown): `spack audit` refuses a
/// dependency no declared version meets. Else a note says which floor was
/// left out and the newest version the recipe has.
pub(crate) fn known_floor(
    kb: &dyn SpackNames,
    package: &str,
    floor: &str,
    evidence: &Evidence,
    brief: &mut SpackBrief,
) -> bool {
    let Some(wanted) = Version::parse(floor) else {
        return false;
    };
    let Some(newest) = kb
        .versions(package)
        .into_iter()
        .filter_map(|v| Version::parse(&v))
        .max()
    else {
        return true;
    };
    if newest >= wanted {
        return true;
    }
    brief.notes.push(BriefNote {
        message: format!(
            "{package}: the project asks for {floor} or newer, and this Spack's recipe declares \
             versions up to {newest}: the bound is left out (`spack audit` refuses a dependency no \
             declared version meets); add it where the recipe has the version"
        ),
        evidence: Some(evidence.clone()),
    });
    false
}

/// `requires-python = ">=3.9"` as `depends_on("python@3.9:")`, the lowest
/// Python the project runs on (pip refuses any older at install anyway).
pub(crate) fn requires_python(
    py: &packsmith_core::PythonFacts,
    kb: &dyn SpackNames,
    brief: &mut SpackBrief,
) {
    let Some(specifier) = py.requires_python.as_deref() else {
        return;
    };
    let file = py
        .name_evidence
        .as_ref()
        .map_or("pyproject.toml", |e| e.file.as_str());
    let Some(floor) = pep440_floor(specifier)
        .filter(|f| f.starts_with("3."))
        .filter(|f| known_floor(kb, "python", f, &Evidence::file(file), brief))
    else {
        return;
    };
    let d = dep(
        &format!("python@{floor}:"),
        None,
        vec!["build".into(), "run".into()],
        &format!("requires-python {specifier}"),
        1.0,
        "the project's requires-python",
        Evidence::file(file),
    );
    push_dep(&mut brief.dependencies, d);
}
