//! The diff of facts as edits a maintainer would make to the recipe they
//! have: what is new is declared for the new version on (`when="@V:"`),
//! what was dropped is closed at the old one (`when="@:OLD"` on the
//! existing line), and nothing else is touched.

use serde::{Deserialize, Serialize};

use super::diff::{default_text, dependency_name, Change, FactChange, FactsDiff, Topic};
use crate::brief::{BriefVariant, SpackBrief, VariantDefault};
use packsmith_spack_knowledge::base_classes::implied_build_system;
use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::recipe::{parse_recipe, ParsedRecipe};
use packsmith_spack_knowledge::spec::Version;

/// What the plan is made from.
#[derive(Debug, Clone, Copy)]
pub struct PlanInputs<'a> {
    /// The recipe as the maintainer has it.
    pub recipe: &'a str,
    /// The recipe's newest version (the one the old facts describe).
    pub old_version: &'a str,
    pub new_version: &'a str,
    /// The new version's archive checksum, when known.
    pub sha256: Option<&'a str>,
    pub diff: &'a FactsDiff,
    /// The new version's brief: the dependencies' specs and the variants.
    pub new: &'a SpackBrief,
    /// The recipe's patches that no longer apply to the new source.
    pub stale_patches: &'a [StalePatch],
}

/// A `patch(...)` of the recipe that the new version's source refuses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StalePatch {
    pub source: String,
    pub line: u32,
    pub when: Option<String>,
    /// What `patch --dry-run` said.
    pub why: String,
}

/// One edit and the reason for it, in the report's words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedEdit {
    pub op: EditOp,
    pub why: String,
}

/// The edits, in the order they are applied, and what the diff showed
/// that no edit follows from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub edits: Vec<PlannedEdit>,
    pub notes: Vec<String>,
}

/// An edit that did not fit the recipe, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefusedEdit {
    pub edit: PlannedEdit,
    pub reason: String,
}

/// The recipe after the plan, with what landed and what did not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Updated {
    pub recipe: String,
    pub applied: Vec<PlannedEdit>,
    pub refused: Vec<RefusedEdit>,
}

/// Plans the update of `inputs.recipe` to `inputs.new_version`.
pub fn plan_update(inputs: &PlanInputs<'_>) -> Plan {
    let parsed = parse_recipe(inputs.recipe, "package.py");
    let mut p = Planner {
        inputs,
        parsed: &parsed,
        since: format!("@{}:", inputs.new_version),
        until: format!("@:{}", inputs.old_version),
        closing: Vec::new(),
        adding: Vec::new(),
        notes: Vec::new(),
    };
    p.version();
    let build_system_changed = inputs.diff.of(Topic::BuildSystem).next().is_some();
    for change in &inputs.diff.changes {
        if let Some(why) = p.not_for_this_recipe(change, build_system_changed) {
            p.notes.push(why);
            continue;
        }
        match change.topic {
            Topic::Dependency => p.dependency(change),
            Topic::Option => p.option(change),
            Topic::CmakeMinimum => p.cmake_minimum(change),
            Topic::VersionFloor => p.version_floor(change),
            Topic::LanguageStandard | Topic::BuildSystem => p.note_only(change),
        }
    }
    p.stale_patches();
    // `set_when` names lines of the recipe as given: those edits go first,
    // before any line is inserted above them.
    let mut edits = p.closing;
    edits.extend(p.adding);
    Plan {
        edits,
        notes: p.notes,
    }
}

/// Applies the plan's edits one at a time: one that does not fit is kept
/// with its reason, and the others still land.
pub fn apply_plan(recipe: &str, plan: &Plan) -> Updated {
    let mut text = recipe.to_string();
    let (mut applied, mut refused) = (Vec::new(), Vec::new());
    for edit in &plan.edits {
        match apply_edits(&text, std::slice::from_ref(&edit.op)) {
            Ok(next) => {
                text = next;
                applied.push(edit.clone());
            }
            Err(e) => refused.push(RefusedEdit {
                edit: edit.clone(),
                reason: e.message,
            }),
        }
    }
    Updated {
        recipe: text,
        applied,
        refused,
    }
}

struct Planner<'a> {
    inputs: &'a PlanInputs<'a>,
    parsed: &'a ParsedRecipe,
    /// `@NEW:`
    since: String,
    /// `@:OLD`
    until: String,
    closing: Vec<PlannedEdit>,
    adding: Vec<PlannedEdit>,
    notes: Vec<String>,
}

impl Planner<'_> {
    fn add(&mut self, op: EditOp, why: String) {
        self.adding.push(PlannedEdit { op, why });
    }

    fn version(&mut self) {
        let v = self.inputs.new_version;
        let why = match self.inputs.sha256 {
            Some(_) => format!("the new version {v}"),
            None => format!("the new version {v} (its checksum is not known: FIXME)"),
        };
        self.add(
            EditOp::AddVersion {
                version: v.to_string(),
                sha256: self.inputs.sha256.map(str::to_string),
            },
            why,
        );
    }

    /// `@NEW:` with the brief's own condition (`+zlib`) after it.
    fn since_with(&self, when: Option<&str>) -> String {
        match when {
            Some(w) => format!("{} {w}", self.since),
            None => self.since.clone(),
        }
    }

    fn recipe_depends_on(
        &self,
        name: &str,
    ) -> Option<&packsmith_spack_knowledge::recipe::Dependency> {
        self.parsed.dependencies.iter().find(|d| d.name == name)
    }

    fn dependency(&mut self, change: &FactChange) {
        let name = change.name.as_str();
        match change.change {
            Change::Added | Change::Changed => {
                let Some(dep) = self
                    .inputs
                    .new
                    .dependencies
                    .iter()
                    .find(|d| dependency_name(d).as_deref() == Some(name))
                else {
                    return;
                };
                if change.change == Change::Added {
                    if let Some(have) = self.recipe_depends_on(name) {
                        self.notes.push(format!(
                            "{name}: new upstream, and the recipe depends on it already (line {}); \
                             left as it is",
                            have.line
                        ));
                        return;
                    }
                } else if change.old.as_ref().map(|o| o.value.split(' ').next())
                    == change.new.as_ref().map(|n| n.value.split(' ').next())
                {
                    self.notes.push(format!(
                        "{name}: its condition or type changed upstream ({} → {}); the recipe's \
                         line is left as it is",
                        change.old.as_ref().map_or("", |f| f.value.as_str()),
                        change.new.as_ref().map_or("", |f| f.value.as_str())
                    ));
                    return;
                }
                let when = self.since_with(dep.when.as_deref());
                let why = format!(
                    "{name} is {} in {} ({})",
                    if change.change == Change::Added {
                        "needed"
                    } else {
                        "constrained anew"
                    },
                    self.inputs.new_version,
                    evidence(change.new.as_ref())
                );
                self.add(
                    EditOp::AddDependency {
                        spec: dep.spec.clone(),
                        when: Some(when),
                        types: dep.types.clone(),
                    },
                    why,
                );
            }
            Change::Dropped => self.close_dependency(change),
        }
    }

    /// The recipe's `depends_on` lines of a dropped dependency get an upper
    /// version bound.
    fn close_dependency(&mut self, change: &FactChange) {
        let name = change.name.clone();
        let lines: Vec<(u32, Option<String>)> = self
            .parsed
            .dependencies
            .iter()
            .filter(|d| d.name == name)
            .map(|d| (d.line, d.when.clone()))
            .collect();
        if lines.is_empty() {
            self.notes.push(format!(
                "{name}: dropped upstream in {}, and the recipe does not depend on it",
                self.inputs.new_version
            ));
            return;
        }
        for (line, when) in lines {
            self.close(
                line,
                when.as_deref(),
                &format!("depends_on({name:?})"),
                change,
            );
        }
    }

    /// `when="@:OLD"` (before any condition the line has) on `line`; an
    /// open range `@A:` the line has becomes `@A:OLD`.
    fn close(&mut self, line: u32, when: Option<&str>, what: &str, change: &FactChange) {
        let was = format!("was {}", evidence(change.old.as_ref()));
        self.close_line(line, when, what, &was);
    }

    fn close_line(&mut self, line: u32, when: Option<&str>, what: &str, was: &str) {
        let old = self.inputs.old_version;
        let closed = match when {
            None => self.until.clone(),
            Some(w) if w.contains('@') => {
                let mut tokens: Vec<String> = w.split_whitespace().map(str::to_string).collect();
                let open = tokens
                    .iter()
                    .position(|t| t.starts_with('@') && t.ends_with(':') && !t.contains(','));
                match open {
                    Some(i) if tokens.iter().filter(|t| t.contains('@')).count() == 1 => {
                        tokens[i] = format!("{}{old}", tokens[i]);
                        tokens.join(" ")
                    }
                    _ => {
                        self.notes.push(format!(
                            "{what} (line {line}): gone in {}, but its when={w:?} already names \
                             versions in a way not closed by rule; left for the maintainer",
                            self.inputs.new_version
                        ));
                        return;
                    }
                }
            }
            Some(w) => format!("{} {w}", self.until),
        };
        let why = format!("{what} is gone in {} ({was})", self.inputs.new_version);
        self.closing.push(PlannedEdit {
            op: EditOp::SetWhen {
                line,
                when: Some(closed),
            },
            why,
        });
    }

    /// A patch of the recipe that no longer applies to the new source
    /// holds up to the old version.
    fn stale_patches(&mut self) {
        for p in self.inputs.stale_patches {
            self.close_line(
                p.line,
                p.when.as_deref(),
                &format!("patch({:?})", p.source),
                &format!("it does not apply to the new source: {}", p.why),
            );
        }
    }

    fn option(&mut self, change: &FactChange) {
        let name = change.name.clone();
        match change.change {
            Change::Added => {
                let Some(v) = self
                    .inputs
                    .new
                    .variants
                    .iter()
                    .find(|v| v.name == name)
                    .cloned()
                else {
                    return;
                };
                if let Some(have) = self.parsed.variants.iter().find(|r| r.name == name) {
                    self.notes.push(format!(
                        "variant {name:?}: new upstream ({}), and the recipe declares it already \
                         (line {}); left as it is",
                        v.option, have.line
                    ));
                    return;
                }
                // A maintainer adds a variant with a release when a
                // dependency hangs on it; any other new switch is noted.
                if !self.gates_a_dependency(&name) {
                    self.notes.push(format!(
                        "option {} is new in {} ({}); no dependency hangs on it, so no variant \
                         was added",
                        v.option,
                        self.inputs.new_version,
                        evidence(change.new.as_ref())
                    ));
                    return;
                }
                self.add_variant(&v, change);
            }
            Change::Changed => self.notes.push(format!(
                "variant {name:?}: its default changed upstream ({} → {}); the recipe keeps its own",
                change.old.as_ref().map_or("", |f| f.value.as_str()),
                change.new.as_ref().map_or("", |f| f.value.as_str())
            )),
            Change::Dropped => {
                match self
                    .parsed
                    .variants
                    .iter()
                    .find(|r| r.name == name)
                    .map(|r| (r.line, r.when.clone()))
                {
                    Some((line, when)) => {
                        self.close(line, when.as_deref(), &format!("variant({name:?})"), change)
                    }
                    None => self.notes.push(format!(
                        "variant {name:?}: its option is gone upstream, and the recipe has no such \
                         variant"
                    )),
                }
            }
        }
    }

    fn add_variant(&mut self, v: &BriefVariant, change: &FactChange) {
        let default = match &v.default {
            VariantDefault::Bool(b) => serde_json::Value::Bool(*b),
            VariantDefault::Str(s) => serde_json::Value::String(s.clone()),
        };
        self.add(
            EditOp::AddVariant {
                name: v.name.clone(),
                default,
                description: Some(v.description.clone()),
                values: v.values.clone(),
                when: Some(self.since.clone()),
            },
            format!(
                "option {} (default {}) is new in {} ({})",
                v.option,
                default_text(&v.default),
                self.inputs.new_version,
                evidence(change.new.as_ref())
            ),
        );
        let cmake = self.parsed.has_method("cmake_args")
            || self
                .parsed
                .bases
                .iter()
                .any(|b| b.ends_with("CMakePackage"));
        if cmake && !v.option.is_empty() {
            self.add(
                EditOp::AddCmakeVariantDefine {
                    name: v.option.clone(),
                    variant: v.name.clone(),
                },
                format!("variant {:?} sets {}", v.name, v.option),
            );
        } else {
            self.notes.push(format!(
                "variant {:?}: the recipe has no cmake_args to pass {} in; add it by hand",
                v.name, v.option
            ));
        }
    }

    fn cmake_minimum(&mut self, change: &FactChange) {
        let Some(new) = change.new.as_ref() else {
            return;
        };
        let (Some(wanted), old) = (
            Version::parse(&new.value),
            change.old.as_ref().and_then(|o| Version::parse(&o.value)),
        ) else {
            return;
        };
        if old.as_ref().is_some_and(|o| *o >= wanted) {
            self.notes.push(format!(
                "cmake_minimum_required went down to {} upstream; the recipe keeps its constraint",
                new.value
            ));
            return;
        }
        let why = format!(
            "cmake_minimum_required is {} in {} ({})",
            new.value,
            self.inputs.new_version,
            evidence(Some(new))
        );
        self.raise_floor("cmake", &new.value, vec!["build".into()], why);
    }

    /// `depends_on("py-propcache@0.2.1:", when="@NEW:")` for a raised
    /// lowest version, with the types of the recipe's own line.
    fn version_floor(&mut self, change: &FactChange) {
        let Some(new) = change.new.as_ref() else {
            return;
        };
        let name = change.name.as_str();
        let types = match self.recipe_depends_on(name) {
            Some(d) => d.types.clone(),
            None if name == "python" => vec!["build".into(), "run".into()],
            None => self
                .inputs
                .new
                .dependencies
                .iter()
                .find(|d| dependency_name(d).as_deref() == Some(name))
                .map(|d| d.types.clone())
                .unwrap_or_default(),
        };
        let why = format!(
            "{name} is at least {} in {} ({})",
            new.value,
            self.inputs.new_version,
            evidence(Some(new))
        );
        self.raise_floor(name, &new.value, types, why);
    }

    /// Adds `name@floor:` from the new version on, unless a line of the
    /// recipe that holds for the new version asks for as much already.
    fn raise_floor(&mut self, name: &str, floor: &str, types: Vec<String>, why: String) {
        let Some(wanted) = Version::parse(floor) else {
            return;
        };
        let new_version = Version::parse(self.inputs.new_version);
        let covered = self.parsed.dependencies.iter().any(|d| {
            d.name == name
                && when_holds_for(d.when.as_deref(), new_version.as_ref())
                && d.versions
                    .as_deref()
                    .and_then(|r| r.split(':').next())
                    .and_then(Version::parse)
                    .is_some_and(|low| low >= wanted)
        });
        if covered {
            return;
        }
        self.add(
            EditOp::AddDependency {
                spec: format!("{name}@{floor}:"),
                when: Some(self.since.clone()),
                types,
            },
            why,
        );
    }

    /// Whether the new brief declares a dependency under `+variant`.
    fn gates_a_dependency(&self, variant: &str) -> bool {
        let on = format!("+{variant}");
        self.inputs.new.dependencies.iter().any(|d| {
            d.when
                .as_deref()
                .is_some_and(|w| w.split_whitespace().any(|t| t == on))
        })
    }

    /// Why a change says nothing about this recipe, if it does not: read
    /// from a build system the recipe does not build with, a submodule the
    /// release archive carries, or a build tool that only looks dropped
    /// because upstream's main build system changed.
    fn not_for_this_recipe(
        &self,
        change: &FactChange,
        build_system_changed: bool,
    ) -> Option<String> {
        if change.topic == Topic::BuildSystem || change.topic == Topic::LanguageStandard {
            return None;
        }
        let fact = change.new.as_ref().or(change.old.as_ref())?;
        let file = fact
            .evidence
            .as_ref()
            .map(|e| e.file.as_str())
            .unwrap_or("");
        let what = format!(
            "{} {} {}",
            change.topic.as_str(),
            change.name,
            change.change.as_str()
        );
        if let Some(system) = build_system_of_file(file) {
            let uses = recipe_build_systems(self.parsed);
            if !uses.is_empty() && !uses.contains(&system) {
                return Some(format!(
                    "{what} ({file}): read from {system}, which the recipe does not build with; \
                     left as it is"
                ));
            }
        }
        if change.topic == Topic::Dependency && file == ".gitmodules" {
            return Some(format!(
                "{what}: a git submodule, which the release archive carries; left as it is"
            ));
        }
        let build_only = change
            .old
            .as_ref()
            .is_some_and(|o| o.value.ends_with("(build)"));
        if build_system_changed && change.change == Change::Dropped && build_only {
            return Some(format!(
                "{what}: a build tool of the build system upstream moved away from; the recipe \
                 may still build with it, so its lines are left as they are"
            ));
        }
        None
    }

    fn note_only(&mut self, change: &FactChange) {
        self.notes.push(format!(
            "{} {}: {} → {}; no edit follows from it, check the recipe by hand",
            change.topic.as_str(),
            change.change.as_str(),
            change.old.as_ref().map_or("none", |f| f.value.as_str()),
            change.new.as_ref().map_or("none", |f| f.value.as_str()),
        ));
    }
}

/// The build system a file belongs to, when it belongs to one.
fn build_system_of_file(file: &str) -> Option<&'static str> {
    let base = file.rsplit('/').next().unwrap_or(file);
    if base == "CMakeLists.txt" || base.ends_with(".cmake") {
        Some("cmake")
    } else if matches!(base, "configure.ac" | "configure.in" | "Makefile.am")
        || base.ends_with(".m4")
    {
        Some("autotools")
    } else if matches!(base, "meson.build" | "meson_options.txt" | "meson.options") {
        Some("meson")
    } else {
        None
    }
}

/// The build systems the recipe builds with, in `build_system` values:
/// those its base classes imply and those its `build_system(...)` names.
fn recipe_build_systems(recipe: &ParsedRecipe) -> Vec<&str> {
    let mut out: Vec<&str> = recipe
        .bases
        .iter()
        .filter_map(|b| implied_build_system(b.rsplit('.').next().unwrap_or(b)))
        .collect();
    out.extend(
        recipe
            .build_system
            .iter()
            .flat_map(|b| b.values.iter().map(String::as_str)),
    );
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a directive's `when=` holds for every spec of `version`: no
/// condition, or only version ranges that contain it.
fn when_holds_for(when: Option<&str>, version: Option<&Version>) -> bool {
    let Some(when) = when else {
        return true;
    };
    let Some(version) = version else {
        return false;
    };
    when.split_whitespace().all(|token| {
        token.starts_with('@')
            && packsmith_spack_knowledge::spec::parse(&format!("x{token}"))
                .ok()
                .and_then(|s| s.versions)
                .is_some_and(|c| c.contains(version))
    })
}

/// `CMakeLists.txt:12`, or `no evidence`.
fn evidence(fact: Option<&super::Fact>) -> String {
    match fact.and_then(|f| f.evidence.as_ref()) {
        Some(e) if e.line > 0 => format!("{}:{}", e.file, e.line),
        Some(e) => e.file.clone(),
        None => "no evidence".into(),
    }
}
