//! Repairs by rule, without a model, for failures whose fix is certain:
//! an optional dependency that cannot be had here (offline, not external)
//! gets its variant switched off; a dependency Spack does not know is
//! taken out; a build without install target gets an `install()`, and a
//! configure-time download FetchContent's offline switches and the
//! dependency ([`build`]). The model only sees what these rules
//! cannot fix.
//!
//! A build tool the build could not run gets its `depends_on(type="build")`
//! (`build_tools`).
//!
//! A `compiler_compat` failure gets the known flags in a `flag_handler`
//! (`compiler_flags`); a `self.spec["x"]` the DAG lacks, its `depends_on`
//! (`spec_reads`); a download while the project's test switch (known to the
//! brief from the source tree) is left on, that switch tied to
//! `self.run_tests` (`test_switches`).
//!
//! An `undeclared_dependency` from the hermeticity check is repaired in
//! `undeclared.rs` (declare it, or switch the optional lookup off), which
//! also needs the brief.
//!
//! The rules read the typed [`Diagnosis`] (its class and names, never the
//! prose written for the model) and the recipe as [`parse_recipe`] reads
//! it (its variants and their defaults, dependencies with `when` and line,
//! bases, methods, CMake defines), and change the recipe only through the
//! knowledge crate's typed edits ([`EditOp`], applied by [`apply_edits`]
//! at positions read from the syntax tree): no rule patterns over the
//! text or rewrites it by line. (A few read-only checks look for a
//! literal in the recipe: the `self.spec["x"]` a missing dependency is
//! read by, a define key the brief ties to `self.run_tests`, and, so a
//! rule applies once, the flag or `mkdir -p` it writes.)

mod build;
mod build_tools;
mod compiler_flags;
mod mpi_compilers;
mod python_compat;
mod spec_reads;
mod static_libraries;
mod test_switches;
mod undeclared;

use std::collections::BTreeSet;

use packsmith_spack_draft::brief::is_extras_or_test_variant;
use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::mapping::SpackNames;
use packsmith_spack_knowledge::recipe::{parse_recipe, Dependency, Value};

pub use test_switches::follow_run_tests;
pub use undeclared::{repair_undeclared, Action};

use super::RECIPE_FILE;
use crate::diagnose::{Diagnosis, FailureClass};

/// The recipe's dependencies, as the recipe reader sees them.
fn dependencies(text: &str) -> Vec<Dependency> {
    parse_recipe(text, RECIPE_FILE).dependencies
}

/// Variant `variant`, whose default the recipe reader reads as the
/// other boolean, defaulted to `to` (`None`: no such variant, a default
/// that is not `not to`, or an edit refused).
pub(super) fn flip_variant_default(text: &str, variant: &str, to: bool) -> Option<String> {
    let recipe = parse_recipe(text, RECIPE_FILE);
    let v = recipe.variants.iter().find(|v| v.name == variant)?;
    if v.default != Some(Value::Bool(!to)) {
        return None;
    }
    let edit = EditOp::SetVariantDefault {
        name: variant.to_string(),
        default: serde_json::Value::Bool(to),
    };
    apply_edits(text, &[edit]).ok()
}

/// A boolean condition on one variant: `+v` → (v, true), `~v` → (v, false).
fn single_variant(when: &str) -> Option<(String, bool)> {
    let w = when.trim();
    let (on, name) = if let Some(n) = w.strip_prefix('+') {
        (true, n)
    } else if let Some(n) = w.strip_prefix('~') {
        (false, n)
    } else {
        return None;
    };
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then(|| (name.to_string(), on))
}

/// Offline: switch off the variants that pull in what cannot be had
/// (`missing`: the dependencies the concretization would download).
fn switch_off_unavailable(text: &str, missing: &BTreeSet<&str>) -> Option<(String, String)> {
    if missing.is_empty() {
        return None;
    }
    let mut out = text.to_string();
    let mut flipped = Vec::new();
    let mut deps = BTreeSet::new();
    for d in dependencies(text) {
        if !missing.contains(d.name.as_str()) {
            continue;
        }
        let Some((variant, on)) = d.when.as_deref().and_then(single_variant) else {
            continue;
        };
        // The dependency is there when the variant is `on`: default it off.
        if let Some(next) = flip_variant_default(&out, &variant, !on) {
            out = next;
            flipped.push(format!("{}{variant}", if on { "~" } else { "+" }));
        }
        if flipped.iter().any(|f| f.ends_with(&variant)) {
            deps.insert(d.name);
        }
    }
    if flipped.is_empty() {
        return None;
    }
    Some((
        out,
        format!(
            "defaults changed to {}: {} cannot be installed here",
            flipped.join(" "),
            deps.into_iter().collect::<Vec<_>>().join(", ")
        ),
    ))
}

/// Spack does not know the package: every `depends_on` of it is commented
/// out, with a note (a call over several lines, each of its lines). One
/// that cannot be (the only statement of a `with` block) is left to the
/// model.
fn drop_unknown(text: &str, unknown: &BTreeSet<&str>) -> Option<(String, String)> {
    if unknown.is_empty() {
        return None;
    }
    let declared: BTreeSet<String> = dependencies(text)
        .into_iter()
        .map(|d| d.name)
        .filter(|n| unknown.contains(n.as_str()))
        .collect();
    let mut out = text.to_string();
    let mut dropped = Vec::new();
    for name in declared {
        let edit = EditOp::DisableDependency {
            name: name.clone(),
            note: format!("Spack has no package `{name}`"),
        };
        if let Ok(next) = apply_edits(&out, &[edit]) {
            out = next;
            dropped.push(name);
        }
    }
    if dropped.is_empty() {
        return None;
    }
    Some((
        out,
        format!(
            "removed the dependency on {}, which Spack does not know",
            dropped.join(", ")
        ),
    ))
}

/// Whether the log lines the diagnosis kept show a failed name lookup or
/// an unreachable network.
fn mentions_network_failure(d: &Diagnosis) -> bool {
    [
        "Could not resolve host",
        "Couldn't resolve host",
        "Temporary failure in name resolution",
        "Network is unreachable",
    ]
    .iter()
    .any(|m| d.summary.contains(m) || d.excerpt.contains(m))
}

/// The build tried to download (tests, benchmarks and examples often fetch
/// googletest and friends at configure time): switch those variants off.
fn switch_off_downloading_extras(text: &str, d: &Diagnosis) -> Option<(String, String)> {
    if !mentions_network_failure(d) {
        return None;
    }
    let recipe = parse_recipe(text, RECIPE_FILE);
    let mut out = text.to_string();
    let mut names: Vec<String> = Vec::new();
    for v in &recipe.variants {
        // Word by word: `docs` and `tests`, never `docker` or `contest`.
        let extra = v.default == Some(Value::Bool(true)) && is_extras_or_test_variant(&v.name);
        if !extra || names.contains(&v.name) {
            continue;
        }
        if let Some(next) = flip_variant_default(&out, &v.name, false) {
            out = next;
            names.push(v.name.clone());
        }
    }
    (!names.is_empty()).then(|| {
        (
            out,
            format!(
                "the build tried to download and there is no network: variants {} now default off",
                names.join(", ")
            ),
        )
    })
}

/// The first rule that applies to this diagnosis, as (recipe text, what
/// changed), without a knowledge base.
#[cfg(test)]
pub fn auto_repair(text: &str, d: &Diagnosis) -> Option<(String, String)> {
    auto_repair_with(text, d, None)
}

/// [`auto_repair`], with the knowledge base's names for the rules that
/// add a dependency (without it, only the curated table's names).
pub fn auto_repair_with(
    text: &str,
    d: &Diagnosis,
    kb: Option<&dyn SpackNames>,
) -> Option<(String, String)> {
    let names: BTreeSet<&str> = d.names.iter().map(String::as_str).collect();
    match d.class {
        FailureClass::Fetch => {
            switch_off_unavailable(text, &names).or_else(|| switch_off_downloading_extras(text, d))
        }
        FailureClass::UnknownPackage => drop_unknown(text, &names),
        FailureClass::NoInstallTarget => build::add_install_method(text),
        FailureClass::ParallelBuild => build::build_serially(text),
        FailureClass::StaleAutotools => build_tools::regenerate_autotools(text, &d.names, kb),
        FailureClass::MissingBuildTool => {
            build_tools::declare_build_tools(text, &d.names, kb).or_else(|| otherwise(text, d))
        }
        FailureClass::CompilerCompat => compiler_flags::add_compat_flags(text, &d.names),
        FailureClass::MissingDependency => {
            spec_reads::declare_read_specs(text, &d.names, kb).or_else(|| otherwise(text, d))
        }
        FailureClass::ConfigureDownload => build::disconnect_fetch_content(text, &d.names, kb)
            .or_else(|| switch_off_downloading_extras(text, d)),
        _ => otherwise(text, d),
    }
}

/// What any failure may still show: an install into a directory the
/// build did not make, or a download an extras variant asked for.
fn otherwise(text: &str, d: &Diagnosis) -> Option<(String, String)> {
    build::create_install_directories(text, &d.excerpt)
        .or_else(|| python_compat::drop_removed_open_modes(text, &d.excerpt))
        .or_else(|| mpi_compilers::mpi_wrappers_as_compilers(text, &d.excerpt))
        .or_else(|| static_libraries::static_when_own_libraries_leave_symbols(text, &d.excerpt))
        .or_else(|| switch_off_downloading_extras(text, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::classify;
    use crate::validate::{offline_refusal_line, Stage};

    const RECIPE: &str = r#"class Cereal(CMakePackage):
    variant("doc", default=True, description="Build documentation")
    variant("skip_perf", default=False, description="Skip the comparison")
    variant("threads", default=True, description="Threads")

    depends_on("cmake@3.6:", type="build")
    depends_on("boost", when="~skip_perf")
    depends_on("doxygen", when="+doc", type="build")
    depends_on("zlib-api")
"#;

    /// A diagnosis as `diagnose` makes one.
    fn diagnosis(class: FailureClass, names: &[&str], excerpt: &str) -> Diagnosis {
        Diagnosis {
            stage: Stage::Install,
            class,
            summary: excerpt.lines().next().unwrap_or_default().to_string(),
            excerpt: excerpt.to_string(),
            recipe_line: None,
            names: names.iter().map(|n| n.to_string()).collect(),
            hint: None,
            signature: String::new(),
            findings: Vec::new(),
            undefined: Vec::new(),
        }
    }

    /// The diagnosis of an offline concretization that would download `names`.
    fn offline(names: &[&str]) -> Diagnosis {
        let mut d = diagnosis(FailureClass::Fetch, names, &offline_refusal_line(names));
        d.stage = Stage::Concretize;
        d
    }

    #[test]
    fn a_parallel_build_race_builds_serially_once() {
        let d = diagnosis(
            FailureClass::ParallelBuild,
            &["TwoBit"],
            "ld: cannot find -lTwoBit",
        );
        let recipe = "class Demo(MakefilePackage):\n    \"\"\"Demo.\"\"\"\n\n    version(\"1.0\", sha256=\"0000\")\n";
        let (text, why) = auto_repair(recipe, &d).unwrap();
        assert_eq!(
            text,
            "class Demo(MakefilePackage):\n    \"\"\"Demo.\"\"\"\n\n    parallel = False\n\n    version(\"1.0\", sha256=\"0000\")\n"
        );
        assert!(why.contains("parallel = False"), "{why}");
        assert!(parse_recipe(&text, RECIPE_FILE).syntax_errors.is_empty());
        // Already serial: nothing more a rule can do.
        assert!(auto_repair(&text, &d).is_none());
    }

    #[test]
    fn offline_downloads_switch_their_variants_off() {
        let d = offline(&["boost", "doxygen", "bison", "m4"]);
        let (out, why) = auto_repair(RECIPE, &d).unwrap();
        assert!(out.contains(r#"variant("doc", default=False"#), "{out}");
        assert!(
            out.contains(r#"variant("skip_perf", default=True"#),
            "{out}"
        );
        assert!(out.contains(r#"variant("threads", default=True"#));
        assert!(why.contains("~doc") && why.contains("+skip_perf"), "{why}");
        assert!(why.contains("boost") && why.contains("doxygen"));
        // Applied again, nothing is left to switch: no second repair.
        assert!(auto_repair(&out, &d).is_none());
    }

    #[test]
    fn an_unconditional_download_is_left_to_the_model() {
        assert!(auto_repair(RECIPE, &offline(&["zlib-api"])).is_none());
    }

    #[test]
    fn the_names_come_from_the_diagnosis_not_from_its_text() {
        // The prose names boost, the typed names nothing: no repair.
        let mut d = offline(&["boost"]);
        d.names.clear();
        assert!(auto_repair(RECIPE, &d).is_none());
    }

    #[test]
    fn unknown_packages_are_commented_out() {
        let d = classify(
            Stage::Concretize,
            "==> Error: Package 'zlib-api' not found.",
            None,
        );
        assert_eq!(d.class, FailureClass::UnknownPackage);
        let (out, why) = auto_repair(RECIPE, &d).unwrap();
        assert!(out.contains("# FIXME: Spack has no package `zlib-api`: depends_on(\"zlib-api\")"));
        assert!(!out.lines().any(|l| l.trim() == "depends_on(\"zlib-api\")"));
        assert!(why.contains("zlib-api"));
        assert!(out.ends_with('\n'));
    }

    #[test]
    fn dependencies_are_found_by_the_recipe_reader() {
        // A `with when()` block, a positional `when`, a call over two lines
        // and a comment after the call: what a pattern over lines missed.
        let recipe = r#"class Demo(CMakePackage):
    variant("gui", default=True, description="GUI")
    variant("mpi", default=False, description="MPI")

    with when("+gui"):
        depends_on("qt")
    depends_on("mpi", "+mpi")
    depends_on(
        "nosuch@2:", type="build"
    )
    depends_on("nosuch2")  # the docs say so
"#;
        let (out, why) = auto_repair(recipe, &offline(&["qt"])).unwrap();
        assert!(out.contains(r#"variant("gui", default=False"#), "{out}");
        assert!(why.contains("~gui") && why.contains("qt"), "{why}");

        let d = diagnosis(
            FailureClass::UnknownPackage,
            &["nosuch", "nosuch2"],
            "unknown package: nosuch, nosuch2",
        );
        let (out, why) = auto_repair(recipe, &d).unwrap();
        assert!(
            out.contains(
                "    # FIXME: Spack has no package `nosuch2`: depends_on(\"nosuch2\")  # the docs say so"
            ),
            "{out}"
        );
        // The call over two lines is commented out line by line.
        assert!(
            out.contains(
                "    # FIXME: Spack has no package `nosuch`: depends_on(\n        # \"nosuch@2:\", type=\"build\"\n    # )\n"
            ),
            "{out}"
        );
        assert!(parse_recipe(&out, RECIPE_FILE).syntax_errors.is_empty());
        assert_eq!(
            why,
            "removed the dependency on nosuch, nosuch2, which Spack does not know"
        );
        // The only statement of a `with` block stays: the block would be
        // left empty.
        let d = diagnosis(FailureClass::UnknownPackage, &["qt"], "unknown package: qt");
        assert!(auto_repair(recipe, &d).is_none());
    }

    #[test]
    fn an_existing_dependency_with_when_keeps_its_condition() {
        // `boost` under `~skip_perf`: the variant flips to `+skip_perf`;
        // the depends_on line itself is left as written.
        let (out, _) = auto_repair(RECIPE, &offline(&["boost"])).unwrap();
        assert!(out.contains(r#"    depends_on("boost", when="~skip_perf")"#));
        assert!(out.contains(r#"variant("skip_perf", default=True"#));
        assert!(out.contains(r#"variant("doc", default=True"#));
    }

    #[test]
    fn a_configure_time_download_switches_extras_off() {
        let recipe = "class F(CMakePackage):\n    variant(\"benchmarks\", default=True, description=\"b\")\n    variant(\"inline\", default=True, description=\"i\")\n    variant(\"docker\", default=True, description=\"d\")\n";
        let d = diagnosis(
            FailureClass::CmakeConfigure,
            &[],
            "CMake Error: Each download failed!\n  Could not resolve host: github.com",
        );
        let (out, why) = auto_repair(recipe, &d).unwrap();
        assert!(
            out.contains(r#"variant("benchmarks", default=False"#),
            "{out}"
        );
        assert!(out.contains(r#"variant("inline", default=True"#));
        // Not a documentation switch, whatever its first letters.
        assert!(out.contains(r#"variant("docker", default=True"#), "{out}");
        assert!(why.contains("benchmarks"));
        assert!(auto_repair(&out, &d).is_none());
    }

    #[test]
    fn the_build_classes_dispatch_to_their_rules() {
        let recipe = "class F(CMakePackage):\n    version(\"1.0\")\n";
        let d = classify(
            Stage::Install,
            "==> f: Executing phase: 'install'\nmake: *** No rule to make target 'install'.  Stop.\n",
            None,
        );
        assert_eq!(d.class, FailureClass::NoInstallTarget);
        let (out, _) = auto_repair(recipe, &d).unwrap();
        assert!(
            out.contains("    def install(self, spec, prefix):"),
            "{out}"
        );
        let log = "Cloning into 'fmt-src'...\n\
            fatal: unable to access 'https://github.com/fmtlib/fmt.git/': Could not resolve host: github.com\n\
            CMake Error at fmt-populate-gitclone.cmake:39 (message):\n  \
            Failed to clone repository: 'https://github.com/fmtlib/fmt.git'\n";
        let d = classify(Stage::Install, log, None);
        assert_eq!(d.class, FailureClass::ConfigureDownload, "{d:#?}");
        let (out, why) = auto_repair(recipe, &d).unwrap();
        assert!(out.contains("FETCHCONTENT_FULLY_DISCONNECTED"), "{out}");
        assert!(why.contains("fmt"), "{why}");
    }

    /// An install rule's `mkdir` of a directory Spack already made (a
    /// Makefile whose own install directory is set to the prefix).
    #[test]
    fn an_install_mkdir_on_the_prefix_becomes_mkdir_p() {
        let recipe = "from spack.package import *\n\n\nclass Tool(MakefilePackage):\n    version(\"1.0\")\n\n    @property\n    def install_targets(self):\n        return [f\"INSTDIR={self.prefix}\", \"install\"]\n";
        let log = "==> tool: Executing phase: 'install'\n\
            ==> 'make' '-j1' 'INSTDIR=/spack/opt/tool-1.0-abc' 'install'\n\
            mkdir: cannot create directory '/spack/opt/tool-1.0-abc': File exists\n\
            make: *** [Makefile:69: install] Error 1\n";
        let d = classify(Stage::Install, log, None);
        assert!(d.excerpt.contains("File exists"), "{d:#?}");
        let (out, why) = auto_repair(recipe, &d).expect("a rule");
        assert!(
            out.contains(r#"filter_file(r"\bmkdir\s+\$", "mkdir -p $", "Makefile")"#),
            "{out}"
        );
        assert!(why.contains("mkdir -p"), "{why}");
        // As Spack reports it: its ProcessError first in the stage log, a
        // long build log whose last lines hold the cause.
        let stage_log = format!(
            "==> Error: ProcessError: Command exited with status 2:\n    'make' '-j1' 'install'\n\n1 error found in build log:\n{}",
            "     34    gcc -c x.c\n".repeat(14)
        );
        let build_log = format!(
            "{}==> tool: Executing phase: 'install'\n==> [2026-11-26] 'make' '-j1' 'install'\n{}",
            "gcc -c x.c\n".repeat(40),
            &log[log.find("mkdir:").unwrap()..]
        );
        let real = classify(Stage::Install, &stage_log, Some(&build_log));
        assert!(real.excerpt.contains("File exists"), "{real:#?}");
        assert!(auto_repair(recipe, &real).is_some());
        // Once only, and never for a build system whose install is Spack's.
        assert!(auto_repair(&out, &d).is_none());
        let cmake = recipe.replace("MakefilePackage", "CMakePackage");
        assert!(auto_repair(&cmake, &d).is_none());
    }

    /// The known compiler-compatibility errors (our own logs) are
    /// diagnosed as such and repaired with their flag for the compiler
    /// range, once, into the recipe's own flag_handler when it returns
    /// `(flags, …)`.
    #[test]
    fn compiler_compat_errors_get_their_flags() {
        let cases = [
            (
                include_str!("../../../tests/compiler-logs/gfortran-argument-mismatch.build.log"),
                "        if name == \"fflags\" and self.spec.satisfies(\"%gcc@10:\"):\n            flags.append(\"-fallow-argument-mismatch\")",
            ),
            (
                include_str!("../../../tests/compiler-logs/gcc-friend-default-argument.build.log"),
                "        if name == \"cxxflags\" and self.spec.satisfies(\"%gcc@12:\"):\n            flags.append(\"-fpermissive\")",
            ),
        ];
        let recipe = "class F(CMakePackage):\n    version(\"1.0\")\n";
        for (log, want) in cases {
            let d = classify(
                Stage::Install,
                "==> Error: ProcessError: Command exited with status 2:\n",
                Some(log),
            );
            assert_eq!(d.class, FailureClass::CompilerCompat, "{d:#?}");
            let (out, why) = auto_repair(recipe, &d).unwrap();
            assert!(
                out.contains("    def flag_handler(self, name, flags):"),
                "{out}"
            );
            assert!(out.contains(want), "{out}");
            assert!(
                out.trim_end().ends_with("return (flags, None, None)"),
                "{out}"
            );
            assert!(why.contains("compiler-compatibility"), "{why}");
            // Applied once: the repaired recipe gets no second handler.
            assert!(auto_repair(&out, &d).is_none());
            // A handler the recipe has takes the test before its return.
            let own = format!("{recipe}\n    def flag_handler(self, name, flags):\n        return (flags, None, None)\n");
            let (merged, why) = auto_repair(&own, &d).unwrap();
            assert!(merged.contains(want), "{merged}");
            assert!(why.contains("to the recipe's flag_handler"), "{why}");
            assert_eq!(merged.matches("def flag_handler").count(), 1, "{merged}");
            // One of another shape is the model's to rewrite.
            let other = own.replace("return (flags, None, None)", "return (None, flags, None)");
            assert!(auto_repair(&other, &d).is_none());
        }
    }

    #[test]
    fn other_failures_get_no_rule() {
        let d = diagnosis(FailureClass::Compilation, &[], "error: x");
        assert!(auto_repair(RECIPE, &d).is_none());
    }
}
