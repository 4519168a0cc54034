//! What the hermeticity stage found and what the rule repair did, kept
//! per run for the report (`report.json`'s `hermeticity` extra, a table
//! in `report.md`).

use std::sync::Mutex;

use serde_json::{json, Value};

use super::autofix::Action;
use crate::validate::hermetic::HermeticityReport;

/// One run of the check.
#[derive(Debug, Clone)]
struct Check {
    attempt: u32,
    report: HermeticityReport,
    /// What the rule did about the findings (empty: nothing yet).
    actions: Vec<Action>,
}

/// Every check of a run, in order.
#[derive(Debug, Default)]
pub struct HermeticityLog {
    checks: Mutex<Vec<Check>>,
}

impl HermeticityLog {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Check>> {
        self.checks.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn record(&self, attempt: u32, report: HermeticityReport) {
        self.lock().push(Check {
            attempt,
            report,
            actions: Vec::new(),
        });
    }

    /// The rule's actions on the findings of the latest check.
    pub fn repaired(&self, actions: Vec<Action>) {
        if let Some(last) = self.lock().last_mut() {
            last.actions = actions;
        }
    }

    /// The report's extra; `None` when the check never ran.
    /// `draft_off` names the optional lookups the deterministic draft
    /// switched off itself (they never reach the check).
    pub fn extra(&self, draft_off: &[String]) -> Option<Value> {
        let checks = self.lock();
        let last = checks.last()?;
        let mut rows = Vec::new();
        for c in checks.iter() {
            for f in &c.report.findings {
                let action = c
                    .actions
                    .iter()
                    .find(|a| a.package().is_some() && a.package() == f.package.as_deref())
                    .map_or_else(|| "left to the model".to_string(), Action::describe);
                rows.push(json!({
                    "attempt": c.attempt,
                    "package": f.package.clone().unwrap_or_default(),
                    "upstream": f.upstream.join(", "),
                    "paths": f.paths.join(", "),
                    "evidence": f.evidence.iter().map(ToString::to_string).collect::<Vec<_>>().join(" | "),
                    "action": action,
                }));
            }
        }
        let mut out = json!({
            "checks": checks.len(),
            "last_passed": last.report.passed(),
            "last_prefix": last.report.prefix.display().to_string(),
            "findings": rows,
        });
        if !draft_off.is_empty() {
            out["draft_switched_off"] = json!(draft_off.join(", "));
        }
        if let Some(e) = &last.report.error {
            out["last_error"] = json!(e);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::hermetic::{Evidence, EvidenceSource, UndeclaredDependency};

    fn finding(package: &str, upstream: &str) -> UndeclaredDependency {
        UndeclaredDependency {
            package: Some(package.into()),
            upstream: vec![upstream.into()],
            paths: vec![format!("/usr/lib/lib{package}.so")],
            evidence: vec![Evidence {
                source: EvidenceSource::ConfigureOutput,
                file: ".spack/spack-build-out.txt.gz".into(),
                entry: format!("-- Found {upstream}: /usr/lib/lib{package}.so"),
            }],
        }
    }

    #[test]
    fn the_extra_lists_each_finding_with_what_was_done() {
        let log = HermeticityLog::default();
        assert_eq!(log.extra(&[]), None);
        log.record(
            1,
            HermeticityReport {
                findings: vec![finding("zlib-api", "ZLIB"), finding("boost", "Boost")],
                ..HermeticityReport::default()
            },
        );
        log.repaired(vec![Action::Disabled {
            package: "zlib-api".into(),
            name: "ZLIB".into(),
        }]);
        log.record(1, HermeticityReport::default());
        let extra = log.extra(&["fmt".to_string()]).unwrap();
        assert_eq!(extra["checks"], 2);
        assert_eq!(extra["last_passed"], true);
        assert_eq!(extra["draft_switched_off"], "fmt");
        let rows = extra["findings"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["package"], "zlib-api");
        assert_eq!(
            rows[0]["action"],
            "switched the optional ZLIB off (-DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON)"
        );
        assert_eq!(rows[1]["action"], "left to the model");
        assert!(rows[0]["evidence"]
            .as_str()
            .unwrap()
            .contains("-- Found ZLIB: /usr/lib/libzlib-api.so"));
    }
}
