//! Configurations: a TOML matrix (or a list of built-in baseline names) of
//! the knobs the `spack`, `nix` and `repair` commands take, plus run-wide settings.
//! Unknown keys are errors naming the file; every configuration is
//! resolved to explicit values and fingerprinted, so a journal written for
//! one set of configurations is never resumed with another.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{BenchError, Result};

/// The knobs of one configuration. `None` leaves the command's default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Knobs {
    /// `provider:name`; None uses the command's default model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Spack references: none | random | random-build-system | similar:N | embedding:N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refs: Option<String>,
    /// Spack brief: rules | llm | raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brief: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<bool>,
    /// Spack attempts (K).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<bool>,
    /// false: no deterministic first draft (`--draft none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_check: Option<bool>,
    /// Nix iterations (K).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_no_progress: Option<u32>,
    /// Nix refinement rounds after success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
    /// Static-check repair rounds per attempt (both ecosystems).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_repairs: Option<u32>,
    /// How the model mends a Spack recipe: edits | rewrite | auto (`spack`, `repair`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair_mode: Option<String>,
    /// false: no rule-based fixes before the model (`--no-rules`; `spack`, `repair`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<bool>,
    /// Where a Spack pair's first recipe comes from: `draft` (packsmith's,
    /// the default) or `human` (the ground truth's own recipe, run through
    /// `packsmith repair` on the task's source: does the human recipe
    /// install here?).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<String>,
}

impl Knobs {
    /// Whether a Spack pair starts from the ground truth's human recipe.
    pub fn human_recipe(&self) -> bool {
        self.recipe.as_deref() == Some("human")
    }

    /// `self` with every value `over` sets replaced.
    fn overlay(&self, over: &Knobs) -> Knobs {
        fn pick<T: Clone>(a: &Option<T>, b: &Option<T>) -> Option<T> {
            b.clone().or_else(|| a.clone())
        }
        Knobs {
            model: pick(&self.model, &over.model),
            refs: pick(&self.refs, &over.refs),
            brief: pick(&self.brief, &over.brief),
            audit: pick(&self.audit, &over.audit),
            max_attempts: pick(&self.max_attempts, &over.max_attempts),
            tools: pick(&self.tools, &over.tools),
            draft: pick(&self.draft, &over.draft),
            variant_check: pick(&self.variant_check, &over.variant_check),
            max_iterations: pick(&self.max_iterations, &over.max_iterations),
            max_no_progress: pick(&self.max_no_progress, &over.max_no_progress),
            refine: pick(&self.refine, &over.refine),
            static_repairs: pick(&self.static_repairs, &over.static_repairs),
            repair_mode: pick(&self.repair_mode, &over.repair_mode),
            rules: pick(&self.rules, &over.rules),
            recipe: pick(&self.recipe, &over.recipe),
        }
    }

    fn validate(&self, name: &str) -> std::result::Result<(), String> {
        if let Some(r) = &self.refs {
            let ok = match r.split_once(':') {
                None => matches!(r.as_str(), "none" | "random" | "random-build-system"),
                Some(("similar" | "embedding", n)) => n.parse::<u32>().is_ok_and(|n| n > 0),
                Some(_) => false,
            };
            if !ok {
                return Err(format!("configuration `{name}`: refs = \"{r}\" is not one of none, random, random-build-system, similar:N, embedding:N"));
            }
        }
        if let Some(b) = &self.brief {
            if !matches!(b.as_str(), "rules" | "llm" | "raw") {
                return Err(format!(
                    "configuration `{name}`: brief = \"{b}\" is not one of rules, llm, raw"
                ));
            }
        }
        for (key, v) in [
            ("max_attempts", self.max_attempts),
            ("max_iterations", self.max_iterations),
        ] {
            if v == Some(0) {
                return Err(format!("configuration `{name}`: {key} must be at least 1"));
            }
        }
        if let Some(m) = &self.repair_mode {
            if !REPAIR_MODES.contains(&m.as_str()) {
                return Err(format!(
                    "configuration `{name}`: repair_mode = \"{m}\" is not one of {}",
                    REPAIR_MODES.join(", ")
                ));
            }
        }
        if let Some(r) = &self.recipe {
            if !matches!(r.as_str(), "draft" | "human") {
                return Err(format!(
                    "configuration `{name}`: recipe = \"{r}\" is not one of draft, human"
                ));
            }
        }
        if let Some(n) = self.static_repairs.filter(|n| *n > 10) {
            return Err(format!(
                "configuration `{name}`: static_repairs = {n} is more than the commands allow (0 to 10)"
            ));
        }
        Ok(())
    }
}

/// What `--repair-mode` takes (auto: edits for a `local:` model).
pub const REPAIR_MODES: &[&str] = &["edits", "rewrite", "auto"];

/// The built-in baselines.
pub const BASELINES: &[&str] = &["zero-shot", "spackit", "vibenix", "packsmith", "human"];

/// A baseline's knobs.
pub fn baseline(name: &str) -> Option<Knobs> {
    let k = match name {
        // One attempt on raw facts: no references, tools, draft or audit.
        "zero-shot" => Knobs {
            refs: Some("none".into()),
            brief: Some("raw".into()),
            audit: Some(false),
            max_attempts: Some(1),
            tools: Some(false),
            draft: Some(false),
            variant_check: Some(false),
            max_iterations: Some(1),
            max_no_progress: Some(1),
            refine: Some(0),
            ..Knobs::default()
        },
        // SpackIt's best setting: LLM-distilled brief, two similar recipes,
        // audit, five attempts, no tools and no deterministic draft.
        "spackit" => Knobs {
            refs: Some("similar:2".into()),
            brief: Some("llm".into()),
            audit: Some(true),
            max_attempts: Some(5),
            tools: Some(false),
            draft: Some(false),
            variant_check: Some(false),
            max_iterations: Some(5),
            refine: Some(0),
            ..Knobs::default()
        },
        // Vibenix: tools and progress evaluation, 20 iterations, stop after
        // 10 without progress.
        "vibenix" => Knobs {
            tools: Some(true),
            max_attempts: Some(20),
            max_iterations: Some(20),
            max_no_progress: Some(10),
            refine: Some(0),
            ..Knobs::default()
        },
        // packsmith as shipped: every command default.
        "packsmith" => Knobs::default(),
        // The human recipe of the ground truth as it stands, on the task's
        // source in the same Spack: one attempt, no rules, no model.
        "human" => Knobs {
            recipe: Some("human".into()),
            max_attempts: Some(1),
            rules: Some(false),
            variant_check: Some(false),
            ..Knobs::default()
        },
        _ => return None,
    };
    Some(k)
}

/// One configuration, resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Configuration {
    pub name: String,
    /// The baseline it started from, for the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    pub knobs: Knobs,
}

/// `[cache]`: the model replay cache the children use.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSettings {
    /// off | read-write | replay (default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Relative paths are relative to the output directory (default
    /// `<out>/llm-cache`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
}

/// `[spack]`: where Spack and the ground truth are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpackSettings {
    /// The package repository whose `packages/<spack_dir>/package.py` is the
    /// ground truth for S_d/S_v (e.g. Spack 0.23's `var/spack/repos/builtin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground_truth: Option<PathBuf>,
    /// Which release's base classes the scorer uses: 0.23 or 1 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// Passed as `--spack` (an env script or a `spack` path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spack: Option<String>,
    /// More flags for every `packsmith spack` pair, e.g. `["--no-sandbox"]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_args: Vec<String>,
}

/// `[nix]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NixSettings {
    /// Passed as `--nixpkgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nixpkgs: Option<PathBuf>,
    /// nixpkgs' own expressions, the reference for the fidelity score: a
    /// nixpkgs checkout, or a directory of `<attr_path>.nix` files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<PathBuf>,
    /// More flags for every `packsmith nix` pair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_args: Vec<String>,
}

/// `[slurm]`: resources of one array task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlurmSettings {
    #[serde(default = "default_cpus")]
    pub cpus_per_task: u32,
    /// `--mem`, e.g. `8G`.
    #[serde(default = "default_mem")]
    pub mem: String,
    /// `--time`; default: the pair timeout plus ten minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// More `#SBATCH` options, e.g. `--account=proj`.
    #[serde(default)]
    pub extra: Vec<String>,
}

fn default_cpus() -> u32 {
    2
}
fn default_mem() -> String {
    "8G".into()
}

impl Default for SlurmSettings {
    fn default() -> Self {
        Self {
            cpus_per_task: default_cpus(),
            mem: default_mem(),
            time: None,
            partition: None,
            extra: Vec::new(),
        }
    }
}

/// `[matrix]`: the cross product of every listed value.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MatrixSection {
    /// Name prefix (default `m`).
    prefix: Option<String>,
    baseline: Option<String>,
    #[serde(default)]
    model: Vec<String>,
    #[serde(default)]
    refs: Vec<String>,
    #[serde(default)]
    brief: Vec<String>,
    #[serde(default)]
    audit: Vec<bool>,
    #[serde(default)]
    max_attempts: Vec<u32>,
    #[serde(default)]
    tools: Vec<bool>,
    #[serde(default)]
    draft: Vec<bool>,
    #[serde(default)]
    variant_check: Vec<bool>,
    #[serde(default)]
    max_iterations: Vec<u32>,
    #[serde(default)]
    max_no_progress: Vec<u32>,
    #[serde(default)]
    refine: Vec<u32>,
    #[serde(default)]
    static_repairs: Vec<u32>,
    #[serde(default)]
    repair_mode: Vec<String>,
    #[serde(default)]
    rules: Vec<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    /// Per-pair limit (default 3600 s).
    timeout_secs: Option<u64>,
    /// Default model for every configuration that names none.
    model: Option<String>,
    #[serde(default)]
    cache: CacheSettings,
    #[serde(default)]
    spack: SpackSettings,
    #[serde(default)]
    nix: NixSettings,
    #[serde(default)]
    slurm: SlurmSettings,
    #[serde(default)]
    configuration: Vec<toml::Value>,
    matrix: Option<MatrixSection>,
}

/// Everything a run is configured with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchConfig {
    pub timeout_secs: u64,
    pub cache: CacheSettings,
    pub spack: SpackSettings,
    pub nix: NixSettings,
    pub slurm: SlurmSettings,
    pub configurations: Vec<Configuration>,
}

pub const DEFAULT_TIMEOUT_SECS: u64 = 3600;

impl BenchConfig {
    /// `--config` is a TOML file, or baseline names separated by commas.
    pub fn load(spec: &str) -> Result<Self> {
        let path = Path::new(spec);
        if path.is_file() {
            let text = std::fs::read_to_string(path).map_err(|e| {
                BenchError::bad_input(format!("could not read {}: {e}", path.display()))
            })?;
            return Self::parse(&text, &path.display().to_string());
        }
        let names: Vec<&str> = spec.split(',').map(str::trim).collect();
        if let Some(bad) = names.iter().find(|n| baseline(n).is_none()) {
            return Err(BenchError::bad_input(format!(
                "--config {spec}: `{bad}` is neither a file nor a built-in baseline"
            ))
            .hint(format!(
                "pass a TOML matrix file, or baselines separated by commas: {}",
                BASELINES.join(", ")
            )));
        }
        let configurations = names
            .iter()
            .map(|n| Configuration {
                name: n.to_string(),
                baseline: Some(n.to_string()),
                knobs: baseline(n).unwrap_or_default(),
            })
            .collect();
        Self::checked(Self {
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            cache: CacheSettings::default(),
            spack: SpackSettings::default(),
            nix: NixSettings::default(),
            slurm: SlurmSettings::default(),
            configurations,
        })
    }

    pub fn parse(text: &str, origin: &str) -> Result<Self> {
        let hint =
            "see `packsmith bench run --help` and README's `packsmith bench` section for the keys";
        let file: ConfigFile = toml::from_str(text)
            .map_err(|e| BenchError::bad_input(format!("{origin}: {e}")).hint(hint))?;
        let mut configurations = Vec::new();
        for value in file.configuration {
            configurations.push(parse_entry(value).map_err(|e| {
                BenchError::bad_input(format!("{origin}: [[configuration]]: {e}")).hint(hint)
            })?);
        }
        if let Some(m) = file.matrix {
            configurations.extend(expand_matrix(&m)?);
        }
        if configurations.is_empty() {
            return Err(
                BenchError::bad_input(format!("{origin}: no configurations")).hint(
                    "add [[configuration]] entries (name, baseline, knobs) or a [matrix] table",
                ),
            );
        }
        if let Some(model) = &file.model {
            for c in &mut configurations {
                c.knobs.model.get_or_insert_with(|| model.clone());
            }
        }
        Self::checked(Self {
            timeout_secs: file.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS),
            cache: file.cache,
            spack: file.spack,
            nix: file.nix,
            slurm: file.slurm,
            configurations,
        })
    }

    /// Checks names and values (after any overrides).
    pub fn checked(self) -> Result<Self> {
        let mut seen = BTreeSet::new();
        for c in &self.configurations {
            if !seen.insert(c.name.as_str()) {
                return Err(BenchError::bad_input(format!(
                    "two configurations are named `{}`",
                    c.name
                ))
                .hint("give each configuration its own name"));
            }
            if c.name.is_empty() || c.name.contains(['/', '\\']) || c.name.starts_with('.') {
                return Err(BenchError::bad_input(format!(
                    "configuration name `{}` cannot be a directory name",
                    c.name
                ))
                .hint("use letters, digits, '-', '_', '=' and ','"));
            }
            c.knobs
                .validate(&c.name)
                .map_err(|e| BenchError::bad_input(e).hint("fix the value in the configuration"))?;
        }
        if let Some(mode) = &self.cache.mode {
            if !matches!(mode.as_str(), "off" | "read-write" | "replay") {
                return Err(BenchError::bad_input(format!(
                    "[cache] mode = \"{mode}\" is not one of off, read-write, replay"
                )));
            }
        }
        if let Some(r) = &self.spack.release {
            if !matches!(r.as_str(), "0.23" | "1") {
                return Err(BenchError::bad_input(format!(
                    "[spack] release = \"{r}\" is not 0.23 or 1"
                )));
            }
        }
        Ok(self)
    }

    /// Sets the model of every configuration that names none.
    pub fn default_model(&mut self, model: &str) {
        for c in &mut self.configurations {
            c.knobs.model.get_or_insert_with(|| model.to_string());
        }
    }

    /// A digest of everything that changes what a pair produces (not the
    /// executor, job count or Slurm resources).
    pub fn fingerprint(&self) -> String {
        let what = serde_json::json!({
            "timeout_secs": self.timeout_secs,
            "cache": self.cache,
            "spack": self.spack,
            "nix": self.nix,
            "configurations": self.configurations,
        });
        let digest = Sha256::digest(what.to_string().as_bytes());
        hex::encode(&digest[..8])
    }

    pub fn configuration(&self, name: &str) -> Option<&Configuration> {
        self.configurations.iter().find(|c| c.name == name)
    }
}

/// One `[[configuration]]` table: `name`, optional `baseline`, and knobs
/// (unknown keys are rejected by `Knobs`).
fn parse_entry(value: toml::Value) -> std::result::Result<Configuration, String> {
    let toml::Value::Table(mut table) = value else {
        return Err("must be a table".into());
    };
    let name = match table.remove("name") {
        Some(toml::Value::String(s)) => s,
        Some(_) => return Err("`name` must be a string".into()),
        None => return Err("missing field `name`".into()),
    };
    let base = match table.remove("baseline") {
        Some(toml::Value::String(s)) => Some(s),
        Some(_) => {
            return Err(format!(
                "configuration `{name}`: `baseline` must be a string"
            ))
        }
        None => None,
    };
    let knobs: Knobs = toml::Value::Table(table)
        .try_into()
        .map_err(|e| format!("configuration `{name}`: {e}"))?;
    resolve(name, base, &knobs).map_err(|e| e.message)
}

fn resolve(name: String, base: Option<String>, over: &Knobs) -> Result<Configuration> {
    let start = match &base {
        None => Knobs::default(),
        Some(b) => baseline(b).ok_or_else(|| {
            BenchError::bad_input(format!("configuration `{name}`: unknown baseline `{b}`"))
                .hint(format!("built-in baselines: {}", BASELINES.join(", ")))
        })?,
    };
    Ok(Configuration {
        name,
        baseline: base,
        knobs: start.overlay(over),
    })
}

fn expand_matrix(m: &MatrixSection) -> Result<Vec<Configuration>> {
    // Each axis: its key and one (label, knobs) per value.
    let mut axes: Vec<Vec<(String, Knobs)>> = Vec::new();
    macro_rules! axis {
        ($field:ident) => {
            if !m.$field.is_empty() {
                axes.push(
                    m.$field
                        .iter()
                        .map(|v| {
                            (
                                format!("{}={}", stringify!($field), v),
                                Knobs {
                                    $field: Some(v.clone()),
                                    ..Knobs::default()
                                },
                            )
                        })
                        .collect(),
                );
            }
        };
    }
    axis!(model);
    axis!(refs);
    axis!(brief);
    axis!(audit);
    axis!(max_attempts);
    axis!(tools);
    axis!(draft);
    axis!(variant_check);
    axis!(max_iterations);
    axis!(max_no_progress);
    axis!(refine);
    axis!(static_repairs);
    axis!(repair_mode);
    axis!(rules);
    if axes.is_empty() {
        return Err(BenchError::bad_input("[matrix] lists no values")
            .hint("give at least one knob a list, e.g. refs = [\"none\", \"similar:2\"]"));
    }
    let mut combos: Vec<(Vec<String>, Knobs)> = vec![(Vec::new(), Knobs::default())];
    for axis in &axes {
        let mut next = Vec::new();
        for (labels, knobs) in &combos {
            for (label, k) in axis {
                let mut l = labels.clone();
                l.push(label.replace(['/', ':'], "_"));
                next.push((l, knobs.overlay(k)));
            }
        }
        combos = next;
    }
    let prefix = m.prefix.clone().unwrap_or_else(|| "m".into());
    combos
        .into_iter()
        .map(|(labels, knobs)| {
            resolve(
                format!("{prefix},{}", labels.join(",")),
                m.baseline.clone(),
                &knobs,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_by_name() {
        let c = BenchConfig::load("zero-shot,spackit").unwrap();
        assert_eq!(c.configurations.len(), 2);
        assert_eq!(c.configurations[0].knobs.max_attempts, Some(1));
        assert_eq!(c.configurations[1].knobs.refs.as_deref(), Some("similar:2"));
        let err = BenchConfig::load("zero-shot,nope").unwrap_err();
        assert!(err.message.contains("`nope`"));
    }

    #[test]
    fn static_repairs_is_a_knob_with_the_commands_range() {
        let c = BenchConfig::parse(
            "[matrix]\nbaseline = \"spackit\"\nstatic_repairs = [0, 2]\n",
            "c.toml",
        )
        .unwrap();
        let got: Vec<_> = c
            .configurations
            .iter()
            .map(|c| (c.name.as_str(), c.knobs.static_repairs))
            .collect();
        assert_eq!(
            got,
            [
                ("m,static_repairs=0", Some(0)),
                ("m,static_repairs=2", Some(2))
            ]
        );
        let err = BenchConfig::parse(
            "[[configuration]]\nname = \"x\"\nstatic_repairs = 11\n",
            "c.toml",
        )
        .unwrap_err();
        assert!(
            err.message.contains("static_repairs = 11"),
            "{}",
            err.message
        );
        // Unset, the knob leaves a baseline's fingerprint as it was.
        assert_eq!(baseline("spackit").unwrap().static_repairs, None);
    }

    #[test]
    fn entries_override_their_baseline_and_matrix_expands() {
        let c = BenchConfig::parse(
            r#"
model = "openai:m"
timeout_secs = 60
[[configuration]]
name = "k1"
baseline = "packsmith"
max_attempts = 1
[matrix]
baseline = "spackit"
refs = ["none", "similar:2"]
max_attempts = [1, 5]
"#,
            "c.toml",
        )
        .unwrap();
        assert_eq!(c.timeout_secs, 60);
        let names: Vec<_> = c.configurations.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "k1",
                "m,refs=none,max_attempts=1",
                "m,refs=none,max_attempts=5",
                "m,refs=similar_2,max_attempts=1",
                "m,refs=similar_2,max_attempts=5"
            ]
        );
        let m = c.configuration("m,refs=none,max_attempts=5").unwrap();
        assert_eq!(m.knobs.brief.as_deref(), Some("llm"));
        assert_eq!(m.knobs.max_attempts, Some(5));
        assert_eq!(m.knobs.model.as_deref(), Some("openai:m"));
    }

    #[test]
    fn unknown_keys_are_errors() {
        let err =
            BenchConfig::parse("timeout = 5\n[[configuration]]\nname='a'\n", "c.toml").unwrap_err();
        assert!(
            err.message.contains("unknown field `timeout`"),
            "{}",
            err.message
        );
        let err = BenchConfig::parse("[[configuration]]\nname='a'\nmax_attempt = 2\n", "c.toml")
            .unwrap_err();
        assert!(
            err.message.contains("unknown field `max_attempt`"),
            "{}",
            err.message
        );
        let err = BenchConfig::parse("[[configuration]]\nname='a'\nrefs='similar'\n", "c.toml")
            .unwrap_err();
        assert!(err.message.contains("refs"), "{}", err.message);
    }

    #[test]
    fn duplicate_configuration_names_are_errors() {
        let err = BenchConfig::parse(
            "[[configuration]]\nname='a'\n[[configuration]]\nname='a'\n",
            "c.toml",
        )
        .unwrap_err();
        assert!(err.message.contains("two configurations are named `a`"));
    }

    #[test]
    fn the_example_matrix_parses() {
        let text = include_str!("../../../examples/bench/spack-ablation.toml");
        let c = BenchConfig::parse(text, "spack-ablation.toml").unwrap();
        assert_eq!(c.configurations.len(), 8);
        let strict = c.configuration("spackit-no-static-repairs").unwrap();
        assert_eq!(strict.knobs.static_repairs, Some(0));
        assert_eq!(strict.knobs.refs.as_deref(), Some("similar:2"));
        assert_eq!(c.timeout_secs, 2400);
        assert_eq!(c.spack.release.as_deref(), Some("0.23"));
        assert_eq!(c.slurm.mem, "16G");
        let abl = c
            .configuration("abl,refs=similar_2,max_attempts=1")
            .unwrap();
        assert_eq!(abl.knobs.refs.as_deref(), Some("similar:2"));
        assert_eq!(abl.knobs.model.as_deref(), Some("local:qwen2.5-coder-1.5b"));
    }

    #[test]
    fn repair_mode_and_rules_are_knobs() {
        let c = BenchConfig::parse(
            "[[configuration]]\nname = \"r\"\nbaseline = \"spackit\"\nrepair_mode = \"rewrite\"\nrules = false\n[matrix]\nrepair_mode = [\"edits\", \"rewrite\"]\nrules = [true]\n",
            "c.toml",
        )
        .unwrap();
        let r = c.configuration("r").unwrap();
        assert_eq!(r.knobs.repair_mode.as_deref(), Some("rewrite"));
        assert_eq!(r.knobs.rules, Some(false));
        assert_eq!(r.knobs.refs.as_deref(), Some("similar:2"));
        let names: Vec<_> = c.configurations.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "r",
                "m,repair_mode=edits,rules=true",
                "m,repair_mode=rewrite,rules=true"
            ]
        );
        let err = BenchConfig::parse(
            "[[configuration]]\nname = \"x\"\nrepair_mode = \"patch\"\n",
            "c.toml",
        )
        .unwrap_err();
        assert!(
            err.message.contains(
                "configuration `x`: repair_mode = \"patch\" is not one of edits, rewrite, auto"
            ),
            "{}",
            err.message
        );
        let err = BenchConfig::parse(
            "[[configuration]]\nname = \"x\"\nrules = \"no\"\n",
            "c.toml",
        )
        .unwrap_err();
        assert!(err.message.contains("c.toml"), "{}", err.message);
        // Unset, they leave the baselines' fingerprints as they were.
        let before = BenchConfig::load("spackit").unwrap();
        assert_eq!(
            serde_json::to_value(&before.configurations[0].knobs).unwrap()["rules"],
            serde_json::Value::Null
        );
    }

    #[test]
    fn fingerprint_changes_with_any_knob() {
        let a = BenchConfig::load("packsmith").unwrap();
        let mut b = a.clone();
        assert_eq!(a.fingerprint(), b.fingerprint());
        b.configurations[0].knobs.max_attempts = Some(3);
        assert_ne!(a.fingerprint(), b.fingerprint());
        let mut c = a.clone();
        c.configurations[0].knobs.static_repairs = Some(0);
        assert_ne!(a.fingerprint(), c.fingerprint());
        let mut d = a.clone();
        d.configurations[0].knobs.repair_mode = Some("edits".into());
        assert_ne!(a.fingerprint(), d.fingerprint());
        let mut e = a.clone();
        e.configurations[0].knobs.rules = Some(true);
        assert_ne!(a.fingerprint(), e.fingerprint());
        assert_ne!(d.fingerprint(), e.fingerprint());
    }
}
