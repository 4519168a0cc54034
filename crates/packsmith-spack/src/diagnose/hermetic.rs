//! The hermeticity check's findings as a diagnosis of their own class,
//! `undeclared_dependency`: the names to declare, every finding with its
//! evidence (the log line or the ELF entry), and a hint.

use super::matching::diagnosis;
use super::{Diagnosis, FailureClass};
use crate::validate::hermetic::HermeticityReport;
use crate::validate::Stage;

/// Evidence lines shown per finding (the report keeps them all).
const EVIDENCE_PER_FINDING: usize = 3;

/// The diagnosis of a failed hermeticity check; `None` when it passed.
pub fn diagnose_hermeticity(report: &HermeticityReport) -> Option<Diagnosis> {
    if report.passed() {
        return None;
    }
    if let Some(why) = report
        .error
        .as_deref()
        .filter(|_| report.findings.is_empty())
    {
        // The check itself could not run: say why, with nothing to declare.
        let summary = format!("the hermeticity check could not run: {why}");
        let mut d = diagnosis(
            Stage::Hermeticity,
            FailureClass::Unknown,
            summary.clone(),
            vec![summary],
        );
        d.hint = Some("check that the install stage ran and left its prefix".into());
        return Some(d);
    }
    let heads: Vec<String> = report.findings.iter().map(|f| f.headline()).collect();
    let summary = format!(
        "undeclared dependency: the build took from the host what the recipe does not declare: {}",
        report
            .findings
            .iter()
            .map(|f| f.package.clone().unwrap_or_else(|| f.paths.join(", ")))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut excerpt = vec![summary.clone()];
    for (f, head) in report.findings.iter().zip(&heads) {
        excerpt.push(format!("- {head}"));
        for e in f.evidence.iter().take(EVIDENCE_PER_FINDING) {
            excerpt.push(format!("    {e}"));
        }
    }
    let mut d = diagnosis(
        Stage::Hermeticity,
        FailureClass::UndeclaredDependency,
        summary,
        excerpt,
    );
    d.names = report
        .findings
        .iter()
        .filter_map(|f| f.package.clone())
        .collect();
    d.hint = Some(
        "declare each as a dependency (`depends_on`, with the `when=` of the option that \
         enables it), or switch the optional feature off explicitly \
         (`-DCMAKE_DISABLE_FIND_PACKAGE_<Name>=ON`, `--without-<x>`, meson `-D<x>=disabled`)"
            .into(),
    );
    d.findings = report.findings.clone();
    Some(d)
}

/// A check that found the host's zlib through CMake, with no declaration:
/// the tests' usual finding.
#[cfg(test)]
pub(crate) fn host_zlib_report() -> HermeticityReport {
    use crate::validate::hermetic::{Evidence, EvidenceSource, UndeclaredDependency};
    HermeticityReport {
        findings: vec![UndeclaredDependency {
            package: Some("zlib-api".into()),
            upstream: vec!["ZLIB".into()],
            paths: vec!["/usr/lib/x86_64-linux-gnu/libz.so".into()],
            evidence: vec![Evidence {
                source: EvidenceSource::ConfigureOutput,
                file: ".spack/spack-build-out.txt.gz".into(),
                entry: "-- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so".into(),
            }],
        }],
        ..HermeticityReport::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_become_an_undeclared_dependency_with_their_evidence() {
        let report = host_zlib_report();
        let d = diagnose_hermeticity(&report).unwrap();
        assert_eq!(d.class, FailureClass::UndeclaredDependency);
        assert_eq!(d.stage, Stage::Hermeticity);
        assert_eq!(d.names, ["zlib-api"]);
        assert!(d
            .excerpt
            .contains("- zlib-api (ZLIB): /usr/lib/x86_64-linux-gnu/libz.so"));
        assert!(d.excerpt.contains(
            "    .spack/spack-build-out.txt.gz: -- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so"
        ));
        assert_eq!(d.findings, report.findings);
        assert!(diagnose_hermeticity(&HermeticityReport::default()).is_none());
    }
}
