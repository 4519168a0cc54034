//! A file a makefile includes is not there: GNU make's `Makefile:8:
//! config.mk: No such file or directory` and its `No rule to make target
//! 'config.mk'`. The project expects the user to make that file, most
//! often from a template it ships (`config.mk.template`, `make.inc.example`)
//! or by naming it with make variables (`config/$(ARCH)_$(TYPE)`, read as
//! `config/_` when they are empty). `names` holds the file, relative to
//! the source root when make said which directory it was in.

use std::sync::LazyLock;

use regex::Regex;

use super::matching::{diagnosis_at, re};
use super::{Diagnosis, FailureClass};
use crate::validate::Stage;

/// `Makefile:8: config.mk: No such file or directory`.
static INCLUDE: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"^(\S+?):(\d+): (\S+): No such file or directory\s*$"));
/// `make: *** No rule to make target 'config.mk'.  Stop.`
static NO_RULE: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"No rule to make target [`']([^']+)'\.\s+Stop\."));
/// `make[1]: Entering directory '…/spack-src/src'`.
static ENTERING: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"Entering directory '.*?/spack-src/?([^']*)'"));

/// The failure when make stopped on an include it could not read.
pub fn missing_build_config(stage: Stage, build_lines: &[&str]) -> Option<Diagnosis> {
    let (include, no_rule, entering) = (INCLUDE.as_ref()?, NO_RULE.as_ref()?, ENTERING.as_ref()?);
    let mut dir = String::new();
    for (i, line) in build_lines.iter().enumerate() {
        let line = line.trim();
        if let Some(c) = entering.captures(line) {
            dir = c[1].trim_end_matches('/').to_string();
            continue;
        }
        let Some(c) = include.captures(line) else {
            continue;
        };
        let (makefile, number, file) = (&c[1], &c[2], &c[3]);
        // make goes on to try to make the file, and stops when it has no
        // rule for it: only then is the include the failure.
        let stopped = build_lines
            .iter()
            .filter_map(|l| no_rule.captures(l))
            .any(|r| &r[1] == file);
        if !stopped {
            continue;
        }
        let relative = if dir.is_empty() || file.starts_with('/') {
            file.to_string()
        } else {
            format!("{dir}/{file}")
        };
        let mut d = diagnosis_at(
            stage,
            FailureClass::MissingBuildConfig,
            build_lines,
            i,
            0,
            4,
        );
        d.hint = Some(format!(
            "{makefile} line {number} includes `{file}`, which the source does not have: the \
             project expects it to be made before the build, usually copied from a template it \
             ships; copy the one for this compiler in edit() with copy(template, \"{file}\")"
        ));
        d.names = vec![relative];
        return Some(d);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_include_make_stops_on_is_the_failure() {
        let lines = [
            "==> dineof: Executing phase: 'build'",
            "make: *** No rule to make target 'config.mk'.  Stop.",
            "Makefile:8: config.mk: No such file or directory",
            "make: *** No rule to make target 'config.mk'.  Stop.",
        ];
        let d = missing_build_config(Stage::Install, &lines).expect("diagnosed");
        assert_eq!(d.class, FailureClass::MissingBuildConfig);
        assert_eq!(d.names, ["config.mk"]);
        assert!(d.hint.as_deref().unwrap().contains("Makefile line 8"));
        // In a directory make entered, the file is named from the source root.
        let nested = [
            "make[1]: Entering directory '/tmp/stage/spack-src/src'",
            "Makefile:17: config/_: No such file or directory",
            "make[1]: *** No rule to make target 'config/_'.  Stop.",
        ];
        let d = missing_build_config(Stage::Install, &nested).expect("diagnosed");
        assert_eq!(d.names, ["src/config/_"]);
    }

    #[test]
    fn an_optional_include_or_a_missing_source_is_not_this() {
        // `-include` of a dependency file: make goes on and makes it.
        let optional = [
            "Makefile:30: deps.d: No such file or directory",
            "cc -MM main.c > deps.d",
        ];
        assert!(missing_build_config(Stage::Install, &optional).is_none());
        let header = ["main.c:3:10: fatal error: foo.h: No such file or directory"];
        assert!(missing_build_config(Stage::Install, &header).is_none());
    }
}
