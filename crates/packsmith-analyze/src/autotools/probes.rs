//! Library, header and pkg-config probes, and the MPI / OpenMP macros.

use super::conditions::Conditions;
use super::m4::Call;
use crate::context::Ctx;
use crate::support::hints::feature_for_dependency;
use packsmith_core::{
    AutotoolsCheck, AutotoolsFacts, AutotoolsPkgCheck, Evidence, FeatureHint, FeatureKind,
};

pub fn read_probes(
    ctx: &mut Ctx<'_>,
    text: &str,
    calls: &[Call],
    ev: &dyn Fn(usize) -> Evidence,
    facts: &mut AutotoolsFacts,
) {
    let conds = Conditions::new(calls);
    for call in calls {
        let evidence = ev(call.offset);
        let name = call.name.as_str();
        match name {
            "PKG_CHECK_MODULES" | "PKG_CHECK_MODULES_STATIC" => {
                let not_found = call.raw(3);
                let check = AutotoolsPkgCheck {
                    prefix: call.arg(0),
                    modules: split_modules(&call.arg(1)),
                    required: not_found.is_empty() || stops_configure(not_found),
                    conditions: conds.of(call.offset),
                    evidence: evidence.clone(),
                };
                hint_names(
                    ctx,
                    name,
                    &check.modules,
                    check.conditions.clone(),
                    &evidence,
                );
                facts.pkg_checks.push(check);
            }
            "PKG_CHECK_EXISTS" => {
                let check = AutotoolsPkgCheck {
                    prefix: String::new(),
                    modules: split_modules(&call.arg(0)),
                    required: stops_configure(call.raw(2)),
                    conditions: conds.of(call.offset),
                    evidence: evidence.clone(),
                };
                hint_names(
                    ctx,
                    name,
                    &check.modules,
                    check.conditions.clone(),
                    &evidence,
                );
                facts.pkg_checks.push(check);
            }
            "AC_CHECK_LIB" => push_check(
                ctx,
                text,
                &conds,
                facts,
                call,
                vec![call.arg(0)],
                Some(call.arg(1)),
                call.raw(3),
                evidence,
            ),
            // The obsolete spelling of AC_CHECK_LIB(lib, main, …), still
            // in old configure.ac files.
            "AC_HAVE_LIBRARY" => push_check(
                ctx,
                text,
                &conds,
                facts,
                call,
                vec![call.arg(0)],
                None,
                call.raw(2),
                evidence,
            ),
            "AC_SEARCH_LIBS" => push_check(
                ctx,
                text,
                &conds,
                facts,
                call,
                words(&call.arg(1)),
                Some(call.arg(0)),
                call.raw(3),
                evidence,
            ),
            "AC_CHECK_HEADER" | "AC_CHECK_HEADERS" | "AC_CHECK_HEADERS_ONCE" => push_check(
                ctx,
                text,
                &conds,
                facts,
                call,
                words(&call.arg(0)),
                None,
                call.raw(2),
                evidence,
            ),
            // `AC_PROG_CC([mpicc])`: the build compiles with MPI's wrappers.
            "AC_PROG_CC" | "AC_PROG_CXX" | "AC_PROG_FC" | "AC_PROG_F77"
                if call.arg(0).split_whitespace().any(is_mpi_wrapper) =>
            {
                super::add_feature(
                    ctx,
                    FeatureHint {
                        feature: FeatureKind::Mpi,
                        detail: format!("{name}({})", call.arg(0)),
                        conditions: conds.of(call.offset),
                        evidence,
                    },
                );
            }
            _ => {
                if let Some((feature, lib)) = macro_feature(name) {
                    if let Some(feature) = feature {
                        super::add_feature(
                            ctx,
                            FeatureHint {
                                feature,
                                detail: name.to_string(),
                                conditions: conds.of(call.offset),
                                evidence: evidence.clone(),
                            },
                        );
                    }
                    if let Some(lib) = lib {
                        facts.checks.push(AutotoolsCheck {
                            macro_name: name.to_string(),
                            names: vec![lib],
                            function: None,
                            required: stops_configure(call.raw(1)),
                            conditions: conds.of(call.offset),
                            evidence,
                        });
                    }
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn push_check(
    ctx: &mut Ctx<'_>,
    text: &str,
    conds: &Conditions<'_>,
    facts: &mut AutotoolsFacts,
    call: &Call,
    names: Vec<String>,
    function: Option<String>,
    not_found: &str,
    evidence: Evidence,
) {
    let names: Vec<String> = names.into_iter().filter(|n| !n.is_empty()).collect();
    let conditions = conds.of(call.offset);
    hint_names(ctx, &call.name, &names, conditions.clone(), &evidence);
    facts.checks.push(AutotoolsCheck {
        macro_name: call.name.clone(),
        names,
        function: function.filter(|f| !f.is_empty()),
        required: stops_configure(not_found) || fails_later(text, call.offset, not_found),
        conditions,
        evidence,
    });
}

/// `AC_CHECK_HEADER([hdf5.h], [have_hdf5=yes], [have_hdf5=no])` followed
/// by `if test "x$have_hdf5" = xno; then AC_MSG_ERROR(...)`: the probe's
/// failure stops configure after all, a few lines further on.
fn fails_later(text: &str, offset: usize, not_found: &str) -> bool {
    static SETS_NO: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"\b([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"?(?:no|false|0)"?(?:\W|$)"#).ok()
    });
    let Some(var) = SETS_NO
        .as_ref()
        .and_then(|r| r.captures(not_found))
        .and_then(|c| c.get(1))
        .map(|m| regex::escape(m.as_str()))
    else {
        return false;
    };
    let test = format!(r#"test\s+"?x?\$\{{?{var}\}}?"?\s*(?:(?:==?)\s*"?x?no"?|!=\s*"?x?yes"?)"#);
    let Ok(test) = regex::Regex::new(&test) else {
        return false;
    };
    // Within the next lines of configure.ac, not anywhere later.
    let rest = text.get(offset..).unwrap_or("");
    let window = &rest[..rest.floor_char_boundary(3000)];
    let stops = test.find_iter(window).any(|m| {
        let after = &window[m.end()..];
        let near = &after[..after.floor_char_boundary(400)];
        near.contains("AC_MSG_ERROR") || near.contains("AC_MSG_FAILURE")
    });
    stops
}

/// Feature hints for probed names (`mpi.h`, `-lmpi`, `ompi-c`).
fn hint_names(
    ctx: &mut Ctx<'_>,
    macro_name: &str,
    names: &[String],
    conditions: Vec<String>,
    evidence: &Evidence,
) {
    for n in names {
        let base = n.split_whitespace().next().unwrap_or_default();
        if let Some(feature) = feature_for_dependency(base.trim_end_matches(".h")) {
            super::add_feature(
                ctx,
                FeatureHint {
                    feature,
                    detail: format!("{macro_name}({base})"),
                    conditions: conditions.clone(),
                    evidence: evidence.clone(),
                },
            );
        }
    }
}

/// An action that aborts configure when the probe fails.
fn stops_configure(action: &str) -> bool {
    action.contains("AC_MSG_ERROR") || action.contains("AC_MSG_FAILURE")
}

fn words(s: &str) -> Vec<String> {
    // Commas are not separators in autoconf, but upstreams write them anyway.
    s.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// `mod >= 1.0 mod2, mod3` → `["mod >= 1.0", "mod2", "mod3"]`.
pub fn split_modules(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending_op = false;
    for tok in s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
    {
        let is_op = matches!(tok, ">=" | "<=" | "=" | "==" | ">" | "<" | "!=");
        match out.last_mut() {
            Some(last) if is_op || pending_op => {
                last.push(' ');
                last.push_str(tok);
                pending_op = is_op;
            }
            _ => {
                out.push(tok.to_string());
                pending_op = false;
            }
        }
    }
    out
}

/// `mpicc`, `mpic++`, `mpicxx`, `mpiCC`, `mpif90`, `mpifort`, `mpif77`.
fn is_mpi_wrapper(program: &str) -> bool {
    let p = program.rsplit('/').next().unwrap_or(program);
    p.starts_with("mpi")
        && ["cc", "c++", "cxx", "CC", "f90", "fort", "f77"]
            .iter()
            .any(|w| p[3..].eq_ignore_ascii_case(w))
}

/// Third-party macros that imply a feature and/or a library.
fn macro_feature(name: &str) -> Option<(Option<FeatureKind>, Option<String>)> {
    let r = match name {
        "AX_MPI" | "ACX_MPI" | "AX_PROG_CC_MPI" | "AX_PROG_CXX_MPI" | "AX_PROG_FC_MPI"
        | "LX_FIND_MPI" => (Some(FeatureKind::Mpi), None),
        "AC_OPENMP" | "AX_OPENMP" => (Some(FeatureKind::Openmp), None),
        "AX_CHECK_CUDA" => (Some(FeatureKind::Cuda), Some("cuda".into())),
        "AM_PATH_PYTHON" | "AX_PYTHON_DEVEL" | "AX_PYTHON" => {
            (Some(FeatureKind::Python), Some("python".into()))
        }
        "AX_PKG_SWIG" => (Some(FeatureKind::Swig), Some("swig".into())),
        "AX_PTHREAD" => (None, Some("pthread".into())),
        "AX_BLAS" => (None, Some("blas".into())),
        "AX_LAPACK" => (None, Some("lapack".into())),
        "AX_BOOST_BASE" => (None, Some("boost".into())),
        _ => {
            let lib = name
                .strip_prefix("AX_LIB_")
                .or_else(|| name.strip_prefix("AX_BOOST_").map(|_| "boost"))?;
            (None, Some(lib.to_ascii_lowercase()))
        }
    };
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_whose_failure_stops_configure_later_is_required() {
        let text = "AC_CHECK_HEADER([hdf5.h], [have_hdf5=yes], [have_hdf5=no])\n\
            if test \"x$have_hdf5\" = xno ; then\n      AC_MSG_ERROR([\n      Missing hdf5.h. Abort.])\nfi\n";
        assert!(fails_later(text, 0, "[have_hdf5=no]"));
        let warned = text.replace("AC_MSG_ERROR", "AC_MSG_WARN");
        assert!(!fails_later(&warned, 0, "[have_hdf5=no]"));
        let other = text.replace("x$have_hdf5", "x$have_zlib");
        assert!(!fails_later(&other, 0, "[have_hdf5=no]"));
        assert!(!fails_later(text, 0, ""));
    }

    #[test]
    fn modules_keep_their_constraints() {
        assert_eq!(
            split_modules("glib-2.0 >= 2.40 gio-2.0, zlib"),
            ["glib-2.0 >= 2.40", "gio-2.0", "zlib"]
        );
        assert_eq!(split_modules("$DEPS"), ["$DEPS"]);
    }
}
