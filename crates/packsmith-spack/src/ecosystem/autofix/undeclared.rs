//! The repair by rule of an `undeclared_dependency` (the hermeticity
//! check): each finding mapped to a Spack package is either declared
//! (`depends_on`, with the `when=` of the option that enables it in the
//! brief) or, when the brief shows the upstream lookup is optional,
//! switched off explicitly, so the host can no longer fill it in: in
//! CMake's `cmake_args` (`CMAKE_DISABLE_FIND_PACKAGE_<Name>`), else by
//! defaulting off the variant of the option that drives it (the draft
//! passes `--without-x` / `-Dx=…` from that variant). Works on the typed
//! findings, the brief and the parsed recipe, never on the prose written
//! for the model, and changes the recipe through typed edits only.

use packsmith_spack_draft::brief::{BriefDependency, SpackBrief};
use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::mapping::fallbacks_of;
use packsmith_spack_knowledge::recipe::{parse_recipe, ParsedRecipe};

use super::super::RECIPE_FILE;
use crate::diagnose::Diagnosis;
use crate::validate::hermetic::UndeclaredDependency;

/// What the rule did about one finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `depends_on(spec[, when=…])` added.
    Declared { package: String, line: String },
    /// `CMAKE_DISABLE_FIND_PACKAGE_<name>` added to `cmake_args`.
    Disabled { package: String, name: String },
    /// The variant of the option that turns the lookup on, defaulted off.
    VariantOff { package: String, variant: String },
    /// Nothing the rule can do with certainty: left to the model.
    Left { what: String, why: String },
}

impl Action {
    pub fn describe(&self) -> String {
        match self {
            Self::Declared { line, .. } => format!("declared `{line}`"),
            Self::Disabled { name, .. } => {
                format!("switched the optional {name} off (-DCMAKE_DISABLE_FIND_PACKAGE_{name}=ON)")
            }
            Self::VariantOff { package, variant } => {
                format!("switched the optional {package} off (variant `{variant}` now defaults to False)")
            }
            Self::Left { what, why } => format!("{what}: left to the model ({why})"),
        }
    }

    /// The finding's package, when there is one.
    pub fn package(&self) -> Option<&str> {
        match self {
            Self::Declared { package, .. }
            | Self::Disabled { package, .. }
            | Self::VariantOff { package, .. } => Some(package),
            Self::Left { .. } => None,
        }
    }
}

/// The bare name of a spec (`hdf5@1.10:+mpi` → `hdf5`).
fn spec_name(spec: &str) -> &str {
    spec.split(['@', '+', '~', ' ', '%', '^'])
        .next()
        .unwrap_or(spec)
}

fn same_upstream(d: &BriefDependency, f: &UndeclaredDependency) -> bool {
    f.upstream
        .iter()
        .any(|u| u.eq_ignore_ascii_case(&d.upstream))
}

fn names_of(package: &str) -> Vec<String> {
    let mut names = vec![package.to_string()];
    names.extend(fallbacks_of(package));
    names
}

/// The brief's entry for a finding: by its upstream name, else by the
/// Spack package.
fn in_list<'a>(
    list: &'a [BriefDependency],
    f: &UndeclaredDependency,
    package: &str,
) -> Option<&'a BriefDependency> {
    let names = names_of(package);
    list.iter().find(|d| same_upstream(d, f)).or_else(|| {
        list.iter()
            .find(|d| names.iter().any(|n| n == spec_name(&d.spec)))
    })
}

fn py(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// What a finding's `depends_on` says: the spec, `when` and types of the
/// brief's entry (if any).
struct Declaration {
    package: String,
    when: Option<String>,
    types: Vec<String>,
}

impl Declaration {
    fn new(package: &str, entry: Option<&BriefDependency>) -> Self {
        Self {
            package: package.to_string(),
            when: entry.and_then(|e| e.when.clone()),
            types: entry.map(|e| e.types.clone()).unwrap_or_default(),
        }
    }

    /// `depends_on("zlib-api", type="build", when="+zlib")`, in the order
    /// [`EditOp::AddDependency`] writes it.
    fn line(&self) -> String {
        let mut args = vec![py(&self.package)];
        if !self.types.is_empty() {
            let types: Vec<String> = self.types.iter().map(|t| py(t)).collect();
            args.push(if types.len() == 1 {
                format!("type={}", types[0])
            } else {
                format!("type=({})", types.join(", "))
            });
        }
        if let Some(when) = &self.when {
            args.push(format!("when={}", py(when)));
        }
        format!("depends_on({})", args.join(", "))
    }

    fn edit(&self) -> EditOp {
        EditOp::AddDependency {
            spec: self.package.clone(),
            when: self.when.clone(),
            types: self.types.clone(),
        }
    }
}

/// Declares `decl` (after the recipe's other lines on the package, else
/// after its last dependency): the action, and the new text when the
/// edit applied.
fn declare(text: &str, decl: &Declaration) -> (Action, Option<String>) {
    match apply_edits(text, &[decl.edit()]) {
        Ok(fixed) => (
            Action::Declared {
                package: decl.package.clone(),
                line: decl.line(),
            },
            Some(fixed),
        ),
        Err(e) => (
            Action::Left {
                what: decl.package.clone(),
                why: e.message,
            },
            None,
        ),
    }
}

/// Adds `CMAKE_DISABLE_FIND_PACKAGE_<name>` to `cmake_args`: into the
/// list it returns, as a new method when there is none (a CMake package
/// only). `None` when the method returns something the edit cannot
/// extend.
fn disable_cmake(text: &str, recipe: &ParsedRecipe, name: &str) -> Option<String> {
    let has_method = recipe.has_method("cmake_args");
    let cmake = recipe.bases.iter().any(|b| b.ends_with("CMakePackage"));
    if !has_method && !cmake {
        return None;
    }
    let edit = EditOp::AddCmakeDefine {
        name: format!("CMAKE_DISABLE_FIND_PACKAGE_{name}"),
        value: serde_json::Value::Bool(true),
    };
    apply_edits(text, &[edit]).ok()
}

/// The option name a variant drives, without its spelling
/// (`--with-zlib` → `zlib`, `-Dzlib` → `zlib`, `WITH_ZLIB` stays).
fn option_feature(option: &str) -> String {
    let o = option.trim();
    let o = o.strip_prefix("-D").unwrap_or(o);
    let o = [
        "--with-",
        "--without-",
        "--enable-",
        "--disable-",
        "with-",
        "enable-",
    ]
    .iter()
    .find_map(|p| o.strip_prefix(p))
    .unwrap_or(o);
    o.split('=').next().unwrap_or(o).to_ascii_lowercase()
}

/// The variant of the brief whose option turns this finding's lookup on
/// (its name or option is the upstream name, the package or a provider of
/// it), when the recipe has it defaulting to True: its default flipped.
fn variant_off(
    text: &str,
    brief: &SpackBrief,
    f: &UndeclaredDependency,
    package: &str,
) -> Option<(String, String)> {
    let mut names: Vec<String> = f.upstream.iter().map(|u| u.to_ascii_lowercase()).collect();
    names.extend(names_of(package));
    let variant = brief.variants.iter().find(|v| {
        names.contains(&v.name.to_ascii_lowercase()) || names.contains(&option_feature(&v.option))
    })?;
    let flipped = super::flip_variant_default(text, &variant.name, false)?;
    Some((flipped, variant.name.clone()))
}

/// The lookup the draft itself switches off for this finding
/// (`CMAKE_DISABLE_FIND_PACKAGE_<Name>` among the brief's defines: an
/// optional `find_package` that is REQUIRED nowhere, as CMake refuses to
/// disable those), in the project's spelling (the switch is
/// case-sensitive).
fn draft_switch(
    brief: &SpackBrief,
    f: &UndeclaredDependency,
    optional: Option<&BriefDependency>,
) -> Option<String> {
    brief
        .defines
        .iter()
        .filter_map(|d| d.key.strip_prefix("CMAKE_DISABLE_FIND_PACKAGE_"))
        .find(|n| {
            f.upstream.iter().any(|u| u.eq_ignore_ascii_case(n))
                || optional.is_some_and(|o| o.upstream.eq_ignore_ascii_case(n))
        })
        .map(str::to_string)
}

/// The repair of every finding: the new recipe text (when anything
/// changed), a one-line account, and each finding's action.
pub fn repair_undeclared(
    text: &str,
    d: &Diagnosis,
    brief: &SpackBrief,
) -> (Option<(String, String)>, Vec<Action>) {
    let mut out = text.to_string();
    let mut actions = Vec::new();
    for f in &d.findings {
        if let Some(lookup) = listed_by_another_lookup(f, &d.findings) {
            // FindMPI lists the external MPI's own libraries
            // (`MPI_event_core`, `MPI_hwloc`): once MPI is declared, the
            // check counts them as the external's, so they are not the
            // package's to declare (libevent would need a download).
            actions.push(Action::Left {
                what: f.package.clone().unwrap_or_else(|| f.paths.join(", ")),
                why: format!("listed by the {lookup} lookup, whose package this repair declares"),
            });
            continue;
        }
        let Some(package) = f.package.as_deref() else {
            actions.push(Action::Left {
                what: f.paths.join(", "),
                why: "no Spack package is known for it".into(),
            });
            continue;
        };
        // Read again after each change: an earlier finding may have
        // declared this one's package.
        let recipe = parse_recipe(&out, RECIPE_FILE);
        let names = names_of(package);
        if recipe
            .dependencies
            .iter()
            .any(|dep| names.contains(&dep.name))
        {
            // Declared under a condition that is off, yet the build took
            // it: the build looks for it either way, so it is needed
            // without the condition (`when="+python"` on a library the
            // core links too).
            let declared: Vec<_> = recipe
                .dependencies
                .iter()
                .filter(|dep| dep.name == package)
                .collect();
            // Declared for the build only, yet an installed file links it
            // (pandaseq's libltdl of libtool): Spack's default types,
            // build and link, in place of the build-only line.
            let build_only = !declared.is_empty()
                && declared
                    .iter()
                    .all(|dep| dep.when.is_none() && dep.effective_types() == ["build"]);
            if build_only {
                let remove = EditOp::RemoveDependency {
                    name: package.to_string(),
                };
                let decl = Declaration::new(package, None);
                match apply_edits(&out, &[remove, decl.edit()]) {
                    Ok(fixed) => {
                        out = fixed;
                        actions.push(Action::Declared {
                            package: package.to_string(),
                            line: format!("{} (was for the build only)", decl.line()),
                        });
                    }
                    Err(e) => actions.push(Action::Left {
                        what: package.to_string(),
                        why: e.message,
                    }),
                }
                continue;
            }
            let plain = declared.iter().any(|dep| dep.when.is_none());
            if plain {
                actions.push(Action::Left {
                    what: package.to_string(),
                    why: "declared without a condition, yet not in the DAG".into(),
                });
                continue;
            }
            let (action, fixed) = declare(&out, &Declaration::new(package, None));
            out = fixed.unwrap_or(out);
            actions.push(action);
            continue;
        }
        let required = in_list(&brief.dependencies, f, package);
        let optional = in_list(&brief.optional_dependencies, f, package);
        if required.is_none() {
            if let Some(name) = draft_switch(brief, f, optional) {
                let key = format!("CMAKE_DISABLE_FIND_PACKAGE_{name}");
                // Already switched off yet found: the project runs the
                // find module itself (`include(FindPython3)`), which the
                // switch does not reach, so only declaring it helps.
                let switched = recipe.define_key_names().contains(&key.as_str());
                let disabled = (!switched)
                    .then(|| disable_cmake(&out, &recipe, &name))
                    .flatten();
                if let Some(fixed) = disabled {
                    out = fixed;
                    actions.push(Action::Disabled {
                        package: package.to_string(),
                        name,
                    });
                    continue;
                }
            }
            if optional.is_some() {
                if let Some((flipped, variant)) = variant_off(&out, brief, f, package) {
                    out = flipped;
                    actions.push(Action::VariantOff {
                        package: package.to_string(),
                        variant,
                    });
                    continue;
                }
            }
        }
        let (action, fixed) = declare(&out, &Declaration::new(package, required.or(optional)));
        out = fixed.unwrap_or(out);
        actions.push(action);
    }
    let changed = actions.iter().any(|a| a.package().is_some());
    if !changed {
        return (None, actions);
    }
    let why = format!(
        "hermeticity: {}",
        actions
            .iter()
            .map(Action::describe)
            .collect::<Vec<_>>()
            .join("; ")
    );
    (Some((out, why)), actions)
}

/// The lookup (`MPI`) of another finding that found every library of
/// this one (`MPI_event_core`, `MPI_event_pthreads`): the libraries that
/// lookup's package brings with it, not lookups of the package's own.
fn listed_by_another_lookup<'a>(
    f: &UndeclaredDependency,
    findings: &'a [UndeclaredDependency],
) -> Option<&'a str> {
    if f.upstream.is_empty() {
        return None;
    }
    findings
        .iter()
        .filter(|g| g.package.is_some() && g.package != f.package)
        .flat_map(|g| g.upstream.iter())
        .find(|lookup| {
            f.upstream.iter().all(|u| {
                u.strip_prefix(lookup.as_str())
                    .is_some_and(|rest| rest.len() > 1 && rest.starts_with('_'))
            })
        })
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::{diagnose_hermeticity, host_zlib_report};

    fn dep(spec: &str, upstream: &str, when: Option<&str>) -> serde_json::Value {
        serde_json::json!({"spec": spec, "when": when, "types": [], "upstream": upstream,
            "confidence": 0.9, "why": "t", "evidence": {"file": "CMakeLists.txt", "line": 3}})
    }

    /// A brief with these dependencies; an optional one whose upstream
    /// name is upper-case is switched off by the draft, as `build_brief`
    /// does for a `find_package` that is REQUIRED nowhere.
    fn brief(deps: Vec<serde_json::Value>, optional: Vec<serde_json::Value>) -> SpackBrief {
        let defines: Vec<serde_json::Value> = optional
            .iter()
            .filter_map(|o| o["upstream"].as_str())
            .filter(|u| u.chars().all(|c| c.is_ascii_uppercase()))
            .map(|u| {
                serde_json::json!({"key": format!("CMAKE_DISABLE_FIND_PACKAGE_{u}"),
                "variant": null, "value": "True"})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "target": "0.23", "package": "demo", "class_name": "Demo", "build_system": null,
            "base_classes": ["CMakePackage"], "description": null, "homepage": null,
            "license": null, "fetch": {"version": "1.0", "url": null, "sha256": null, "git": null,
            "tag": null, "commit": null, "submodules": false}, "variants": [],
            "dependencies": deps, "optional_dependencies": optional, "language_virtuals": [],
            "cmake_constraint": null, "defines": defines, "notes": []
        }))
        .unwrap()
    }

    fn zlib_finding() -> Diagnosis {
        let report = host_zlib_report();
        diagnose_hermeticity(&report).unwrap()
    }

    const RECIPE: &str = r#"from spack.package import *


class Demo(CMakePackage):
    """Demo."""

    version("1.0", sha256="0000")

    variant("shared", default=True, description="shared")

    depends_on("cmake@3.16:", type="build")

    def cmake_args(self):
        args = [
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
        ]
        return args
"#;

    #[test]
    fn an_optional_lookup_is_switched_off_in_cmake_args() {
        let b = brief(vec![], vec![dep("zlib-api", "ZLIB", None)]);
        let (fixed, actions) = repair_undeclared(RECIPE, &zlib_finding(), &b);
        let (text, why) = fixed.unwrap();
        assert!(
            text.contains(
                "        args.append(self.define(\"CMAKE_DISABLE_FIND_PACKAGE_ZLIB\", True))\n        return args\n"
            ),
            "{text}"
        );
        assert!(why.contains("switched the optional ZLIB off"), "{why}");
        assert_eq!(
            actions,
            [Action::Disabled {
                package: "zlib-api".into(),
                name: "ZLIB".into()
            }]
        );
        let parsed = parse_recipe(&text, RECIPE_FILE);
        assert!(parsed.syntax_errors.is_empty(), "{text}");
        assert!(parsed
            .define_key_names()
            .contains(&"CMAKE_DISABLE_FIND_PACKAGE_ZLIB"));
        // Found again with the switch in place: the switch does not reach
        // this lookup, so the second repair declares it instead.
        let (again, actions) = repair_undeclared(&text, &zlib_finding(), &b);
        let again = again.unwrap().0;
        assert!(again.contains("    depends_on(\"zlib-api\")\n"), "{again}");
        assert!(matches!(&actions[0], Action::Declared { package, .. } if package == "zlib-api"));
    }

    /// noahmp's first install, with nothing declared: FindMPI's cache
    /// lists the external MPI's libevent and hwloc beside MPI itself. The
    /// repair declares mpi and netcdf-fortran, not what MPI brings along.
    #[test]
    fn the_libraries_another_lookup_lists_are_not_declared() {
        use crate::validate::hermetic::{Evidence, EvidenceSource};
        let finding = |package: &str, upstream: &[&str]| UndeclaredDependency {
            package: Some(package.into()),
            upstream: upstream.iter().map(|u| u.to_string()).collect(),
            paths: vec![format!("/usr/lib/x86_64-linux-gnu/lib{package}.so")],
            evidence: vec![Evidence {
                source: EvidenceSource::CmakeCache,
                file: "CMakeCache.txt".into(),
                entry: format!("{}_LIBRARY:FILEPATH=…", upstream[0]),
            }],
        };
        let mut report = host_zlib_report();
        report.findings = vec![
            finding("mpi", &["MPI", "MPI_mpi"]),
            finding("libevent", &["MPI_event_core", "MPI_event_pthreads"]),
            finding("hwloc", &["MPI_hwloc"]),
            finding("netcdf-fortran", &["NetCDF"]),
        ];
        let d = diagnose_hermeticity(&report).unwrap();
        let (fixed, actions) = repair_undeclared(RECIPE, &d, &brief(vec![], vec![]));
        let text = fixed.unwrap().0;
        assert!(text.contains("depends_on(\"mpi\")"), "{text}");
        assert!(text.contains("depends_on(\"netcdf-fortran\")"), "{text}");
        assert!(
            !text.contains("libevent") && !text.contains("hwloc"),
            "{text}"
        );
        assert!(actions.iter().any(|a| matches!(a, Action::Left { what, why } if what == "libevent" && why.contains("MPI lookup"))));
    }

    /// pandaseq's draft: libtool declared for the build only, and the
    /// installed library needs the host's libltdl.
    #[test]
    fn a_build_only_dependency_an_installed_file_links_gets_the_default_types() {
        use crate::validate::hermetic::{Evidence, EvidenceSource};
        let mut report = host_zlib_report();
        report.findings = vec![UndeclaredDependency {
            package: Some("libtool".into()),
            upstream: Vec::new(),
            paths: vec!["/lib/x86_64-linux-gnu/libltdl.so.7".into()],
            evidence: vec![Evidence {
                source: EvidenceSource::Elf,
                file: "lib/libpandaseq.so".into(),
                entry: "DT_NEEDED libltdl.so.7".into(),
            }],
        }];
        let d = diagnose_hermeticity(&report).unwrap();
        let recipe = RECIPE.replace(
            "    depends_on(\"cmake@3.16:\", type=\"build\")\n",
            "    depends_on(\"cmake@3.16:\", type=\"build\")\n    depends_on(\"libtool\", type=\"build\")\n",
        );
        let (fixed, actions) = repair_undeclared(&recipe, &d, &brief(vec![], vec![]));
        let text = fixed.unwrap().0;
        assert!(text.contains("    depends_on(\"libtool\")\n"), "{text}");
        assert!(!text.contains("\"libtool\", type="), "{text}");
        assert!(
            matches!(&actions[0], Action::Declared { line, .. } if line.contains("for the build only"))
        );
        // Declared with its link type already: nothing to change.
        let linked = recipe.replace("\"libtool\", type=\"build\"", "\"libtool\"");
        let (fixed, _) = repair_undeclared(&linked, &d, &brief(vec![], vec![]));
        assert!(fixed.is_none());
    }

    #[test]
    fn a_required_or_unknown_lookup_is_declared_with_its_condition() {
        let b = brief(vec![dep("zlib-api", "ZLIB", Some("+compression"))], vec![]);
        let (fixed, actions) = repair_undeclared(RECIPE, &zlib_finding(), &b);
        let (text, _) = fixed.unwrap();
        assert!(
            text.contains(
                "    depends_on(\"cmake@3.16:\", type=\"build\")\n    depends_on(\"zlib-api\", when=\"+compression\")\n\n    def cmake_args"
            ),
            "{text}"
        );
        assert!(matches!(&actions[0], Action::Declared { package, .. } if package == "zlib-api"));
        // Not in the brief at all: declared unconditionally.
        let (fixed, _) = repair_undeclared(RECIPE, &zlib_finding(), &brief(vec![], vec![]));
        let text = fixed.unwrap().0;
        assert!(text.contains("    depends_on(\"zlib-api\")\n"), "{text}");
        let parsed = parse_recipe(&text, RECIPE_FILE);
        assert!(parsed.dependencies.iter().any(|d| d.name == "zlib-api"));
    }

    #[test]
    fn an_optional_lookup_that_is_required_elsewhere_is_declared() {
        // In the optional list (an untranslatable condition) but with no
        // switch in the draft: REQUIRED somewhere, so CMake would refuse
        // to disable it.
        let mut b = brief(vec![], vec![dep("zlib-api", "ZLIB", None)]);
        b.defines.clear();
        let (fixed, actions) = repair_undeclared(RECIPE, &zlib_finding(), &b);
        let text = fixed.unwrap().0;
        assert!(text.contains("    depends_on(\"zlib-api\")\n"), "{text}");
        assert!(!text.contains("CMAKE_DISABLE_FIND_PACKAGE"), "{text}");
        assert!(matches!(&actions[0], Action::Declared { .. }));
    }

    #[test]
    fn a_cmake_recipe_without_cmake_args_gets_one() {
        let recipe = "class Demo(CMakePackage):\n    version(\"1.0\", sha256=\"0000\")\n";
        let b = brief(vec![], vec![dep("zlib-api", "ZLIB", None)]);
        let (fixed, _) = repair_undeclared(recipe, &zlib_finding(), &b);
        let text = fixed.unwrap().0;
        assert_eq!(
            text,
            "class Demo(CMakePackage):\n    version(\"1.0\", sha256=\"0000\")\n\n    def cmake_args(self):\n        return [self.define(\"CMAKE_DISABLE_FIND_PACKAGE_ZLIB\", True)]\n"
        );
    }

    #[test]
    fn an_autotools_option_that_turns_the_lookup_on_defaults_off() {
        let recipe = "class Demo(AutotoolsPackage):\n    version(\"1.0\", sha256=\"0000\")\n\n    \
                      variant(\"zlib\", default=True, description=\"compression\")\n\n    \
                      def configure_args(self):\n        args = []\n        \
                      args.extend(self.with_or_without(\"zlib\"))\n        return args\n";
        let mut b = brief(vec![], vec![dep("zlib-api", "zlib", None)]);
        b.variants = serde_json::from_value(serde_json::json!([{"name": "zlib",
            "default": true, "values": [], "description": "compression", "when": null,
            "option": "--with-zlib", "inherited": false,
            "evidence": {"file": "configure.ac", "line": 9}}]))
        .unwrap();
        b.base_classes = vec!["AutotoolsPackage".into()];
        let mut d = zlib_finding();
        d.findings[0].upstream.clear();
        let (fixed, actions) = repair_undeclared(recipe, &d, &b);
        let (text, why) = fixed.unwrap();
        assert!(text.contains("variant(\"zlib\", default=False"), "{text}");
        assert!(
            why.contains("variant `zlib` now defaults to False"),
            "{why}"
        );
        assert!(matches!(&actions[0], Action::VariantOff { variant, .. } if variant == "zlib"));
        // Without such a variant: declared.
        b.variants.clear();
        let (fixed, _) = repair_undeclared(recipe, &d, &b);
        assert!(fixed.unwrap().0.contains("    depends_on(\"zlib-api\")\n"));
    }

    #[test]
    fn what_no_rule_can_fix_is_left_to_the_model() {
        let mut d = zlib_finding();
        d.findings[0].package = None;
        let (fixed, actions) = repair_undeclared(RECIPE, &d, &brief(vec![], vec![]));
        assert!(fixed.is_none());
        assert!(matches!(&actions[0], Action::Left { .. }));
    }

    /// Declared under a variant that is off, yet the build found it: the
    /// build looks for it either way, so it is declared without the
    /// condition; found again after that, it is left to the model.
    #[test]
    fn a_dependency_found_while_its_condition_is_off_is_declared_plainly() {
        let recipe = RECIPE.replace(
            "    depends_on(\"cmake@3.16:\", type=\"build\")\n",
            "    depends_on(\"cmake@3.16:\", type=\"build\")\n    depends_on(\"zlib-api\", when=\"+z\")\n",
        );
        let b = brief(vec![dep("zlib-api", "ZLIB", Some("+z"))], vec![]);
        let (fixed, actions) = repair_undeclared(&recipe, &zlib_finding(), &b);
        let text = fixed.unwrap().0;
        assert!(
            text.contains(
                "    depends_on(\"zlib-api\", when=\"+z\")\n    depends_on(\"zlib-api\")\n"
            ),
            "{text}"
        );
        assert!(matches!(&actions[0], Action::Declared { .. }));
        let (again, actions) = repair_undeclared(&text, &zlib_finding(), &b);
        assert!(again.is_none());
        assert!(matches!(&actions[0], Action::Left { .. }));
    }
}
