//! The `[llm]` table of packsmith.toml (user level, then project level, the
//! project winning key by key), then the environment on top. Unknown keys
//! are errors that name the file and the key. Other top-level tables of
//! packsmith.toml belong to the binary and are not looked at here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::budget::{Budget, BudgetTracker};
use crate::cache::{CacheMode, ReplayCache};
use crate::env;
use crate::openai::StructuredOutput;
use crate::retry::RetryPolicy;
use crate::secret::Secret;
use crate::usage::{Price, PriceTable};
use crate::LlmError;

/// The `[llm]` table as written. Every field is optional so that a project
/// file can override single keys of the user file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSection {
    /// Default model, `provider:name`.
    pub model: Option<String>,
    /// Limit on one HTTP request.
    pub request_timeout_secs: Option<u64>,
    pub retry: Option<RetrySection>,
    pub openai: Option<ProviderSection>,
    pub anthropic: Option<AnthropicSection>,
    /// Defaults for every `openai-compat:` model.
    pub openai_compat: Option<ProviderSection>,
    /// Named OpenAI-compatible servers: `openai-compat:MODEL@NAME`.
    #[serde(default)]
    pub endpoints: BTreeMap<String, EndpointSection>,
    pub budget: Option<Budget>,
    pub cache: Option<CacheSection>,
    /// USD per million tokens, by model id or bare model name.
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
    /// The embedded llama.cpp model (`local:` models).
    pub local: Option<LocalSection>,
}

/// `[llm.local]`: how `local:` models run. Read whether or not this build
/// has the `local` feature, so that one packsmith.toml serves every build.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalSection {
    /// Threads for llama.cpp; default all cores. Fewer can be faster on a
    /// machine other processes share.
    pub threads: Option<usize>,
    /// Context window in tokens; default min(8192, the model's own).
    pub context_size: Option<u32>,
    pub tool_mode: Option<LocalToolMode>,
}

/// How tool calls are put to a local model (STYLE.md practice 15).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LocalToolMode {
    /// Native when the chat template declares a tool protocol, else emulated.
    #[default]
    Auto,
    ForceNative,
    ForceEmulated,
}

/// `[llm.local]`, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSettings {
    pub threads: Option<usize>,
    pub context_size: Option<u32>,
    pub tool_mode: LocalToolMode,
    /// Where `local:NAME` is looked up: `<cache_dir>/models/`. The binary
    /// sets this from its own cache directory (`PACKSMITH_CACHE_DIR`).
    pub cache_dir: PathBuf,
}

/// `<user cache>/packsmith`, the default [`LocalSettings::cache_dir`].
pub fn default_cache_dir() -> PathBuf {
    dirs::cache_dir()
        .map(|d| d.join("packsmith"))
        .unwrap_or_else(|| PathBuf::from(".packsmith-cache"))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetrySection {
    pub max_attempts: Option<u32>,
    pub base_delay_ms: Option<u64>,
    pub max_delay_secs: Option<u64>,
    pub max_retry_after_secs: Option<u64>,
    /// Limit on one model call, retries and waits included.
    pub deadline_secs: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSection {
    pub base_url: Option<String>,
    /// Prefer the environment variable; a key here is read but never shown.
    pub api_key: Option<Secret>,
    pub structured_output: Option<StructuredOutput>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnthropicSection {
    pub base_url: Option<String>,
    pub api_key: Option<Secret>,
    /// `anthropic-version` header.
    pub version: Option<String>,
    /// `max_tokens` for requests that set none (the API requires one).
    pub max_tokens: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointSection {
    pub base_url: String,
    /// The environment variable holding this server's key, if it wants one.
    pub api_key_env: Option<String>,
    pub structured_output: Option<StructuredOutput>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSection {
    /// `off`, `read-write` or `replay`.
    pub mode: Option<String>,
    pub dir: Option<PathBuf>,
}

/// One OpenAI-style server, resolved.
#[derive(Debug, Clone, Default)]
pub struct ServerSettings {
    pub base_url: Option<String>,
    pub api_key: Option<Secret>,
    pub structured_output: StructuredOutput,
}

#[derive(Debug, Clone)]
pub struct AnthropicSettings {
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub version: String,
    pub max_tokens: u32,
}

/// Everything packsmith-llm needs to build models, resolved from the
/// files and the environment. Its Debug output shows no secret.
#[derive(Debug, Clone)]
pub struct Config {
    pub model: Option<String>,
    pub request_timeout: Duration,
    pub retry: RetryPolicy,
    pub openai: ServerSettings,
    pub anthropic: AnthropicSettings,
    pub openai_compat: ServerSettings,
    pub endpoints: BTreeMap<String, ServerSettings>,
    /// Shared: every model built from this config draws on one budget.
    pub budget: BudgetTracker,
    pub cache: Option<ReplayCache>,
    pub prices: PriceTable,
    pub local: LocalSettings,
    /// The files that were read, user level first.
    pub files: Vec<PathBuf>,
}

pub const DEFAULT_OPENAI_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_ANTHROPIC_URL: &str = "https://api.anthropic.com/v1";
pub const FILE_NAME: &str = "packsmith.toml";

impl Default for Config {
    /// Built-in defaults, no files, no environment.
    fn default() -> Self {
        // Only an unknown cache mode can fail, and there is none here.
        Self::resolve(LlmSection::default(), &|_| None, Vec::new())
            .unwrap_or_else(|e| unreachable!("the empty configuration is valid: {e}"))
    }
}

/// The user-level file: `$PACKSMITH_CONFIG`, else
/// `~/.config/packsmith/packsmith.toml`.
pub fn user_config_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(p) = env(env::PACKSMITH_CONFIG).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    dirs::config_dir().map(|d| d.join("packsmith").join(FILE_NAME))
}

/// Reads the process environment.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

impl Config {
    /// The user file, then `project_dir/packsmith.toml`, then the process
    /// environment. Missing files are fine.
    pub fn load(project_dir: &Path) -> Result<Self, LlmError> {
        Self::load_with(
            user_config_path(&process_env).as_deref(),
            Some(&project_dir.join(FILE_NAME)),
            &process_env,
        )
    }

    /// [`Config::load`] with explicit files and environment (for tests).
    pub fn load_with(
        user_file: Option<&Path>,
        project_file: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, LlmError> {
        let mut merged = toml::Table::new();
        let mut files = Vec::new();
        for path in [user_file, project_file].into_iter().flatten() {
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    return Err(LlmError::Config(format!(
                        "cannot read {}: {e}",
                        path.display()
                    )))
                }
            };
            let table = parse_llm_table(&text, path)?;
            merge(&mut merged, table);
            files.push(path.to_path_buf());
        }
        let section = section_from(merged, Path::new("the merged configuration"))?;
        Self::resolve(section, env, files)
    }

    /// Applies defaults and the environment to a parsed section.
    pub fn resolve(
        s: LlmSection,
        env: &dyn Fn(&str) -> Option<String>,
        files: Vec<PathBuf>,
    ) -> Result<Self, LlmError> {
        let secret = |name: &str| env(name).map(Secret::new);
        let server = |sec: Option<ProviderSection>| {
            let sec = sec.unwrap_or_default();
            ServerSettings {
                base_url: sec.base_url,
                api_key: sec.api_key,
                structured_output: sec.structured_output.unwrap_or_default(),
            }
        };
        // The environment wins over the files.
        let mut openai = server(s.openai);
        openai.base_url = env(env::OPENAI_BASE_URL).or(openai.base_url);
        openai.api_key = secret(env::OPENAI_API_KEY).or(openai.api_key);
        let mut openai_compat = server(s.openai_compat);
        openai_compat.api_key = secret(env::PACKSMITH_COMPAT_API_KEY).or(openai_compat.api_key);

        let a = s.anthropic.unwrap_or_default();
        let anthropic = AnthropicSettings {
            base_url: env(env::ANTHROPIC_BASE_URL)
                .or(a.base_url)
                .unwrap_or_else(|| DEFAULT_ANTHROPIC_URL.into()),
            api_key: secret(env::ANTHROPIC_API_KEY).or(a.api_key),
            version: a
                .version
                .unwrap_or_else(|| crate::anthropic::DEFAULT_VERSION.into()),
            max_tokens: a.max_tokens.unwrap_or(4096),
        };

        let endpoints = s
            .endpoints
            .into_iter()
            .map(|(name, e)| {
                let settings = ServerSettings {
                    base_url: Some(e.base_url),
                    api_key: e.api_key_env.as_deref().and_then(&secret),
                    structured_output: e.structured_output.unwrap_or_default(),
                };
                (name, settings)
            })
            .collect();

        let r = s.retry.unwrap_or_default();
        let d = RetryPolicy::default();
        let retry = RetryPolicy {
            max_attempts: r.max_attempts.unwrap_or(d.max_attempts).max(1),
            base_delay: r.base_delay_ms.map_or(d.base_delay, Duration::from_millis),
            max_delay: r.max_delay_secs.map_or(d.max_delay, Duration::from_secs),
            max_retry_after: r
                .max_retry_after_secs
                .map_or(d.max_retry_after, Duration::from_secs),
            deadline: r
                .deadline_secs
                .map_or(d.deadline, |s| Some(Duration::from_secs(s))),
        };

        let mut prices = PriceTable::defaults();
        prices.extend(&PriceTable(s.prices));

        let c = s.cache.unwrap_or_default();
        let mode = env(env::PACKSMITH_LLM_CACHE).or(c.mode);
        let cache = match mode.as_deref().unwrap_or("off") {
            "off" => None,
            m @ ("read-write" | "replay") => {
                let dir = env(env::PACKSMITH_LLM_CACHE_DIR)
                    .map(PathBuf::from)
                    .or(c.dir)
                    .or_else(|| dirs::cache_dir().map(|d| d.join("packsmith").join("llm-replay")))
                    .unwrap_or_else(|| PathBuf::from(".packsmith-cache/llm-replay"));
                let mode = if m == "replay" {
                    CacheMode::Replay
                } else {
                    CacheMode::ReadWrite
                };
                Some(ReplayCache::new(dir, mode))
            }
            other => {
                return Err(LlmError::Config(format!(
                    "unknown cache mode `{other}`\nhint: use off, read-write or replay"
                )))
            }
        };

        let l = s.local.unwrap_or_default();
        let local = LocalSettings {
            threads: l.threads.filter(|&t| t > 0),
            context_size: l.context_size.filter(|&c| c > 0),
            tool_mode: l.tool_mode.unwrap_or_default(),
            cache_dir: default_cache_dir(),
        };

        Ok(Self {
            model: env(env::PACKSMITH_MODEL).or(s.model),
            request_timeout: Duration::from_secs(s.request_timeout_secs.unwrap_or(300)),
            retry,
            openai,
            anthropic,
            openai_compat,
            endpoints,
            budget: BudgetTracker::new(s.budget.unwrap_or_default(), prices.clone()),
            cache,
            prices,
            local,
            files,
        })
    }
}

/// The `[llm]` table of one file, checked on its own so that an error
/// names the file it is in.
fn parse_llm_table(text: &str, path: &Path) -> Result<toml::Table, LlmError> {
    let mut doc: toml::Table =
        toml::from_str(text).map_err(|e| LlmError::Config(format!("{}: {e}", path.display())))?;
    let llm = match doc.remove("llm") {
        None => return Ok(toml::Table::new()),
        Some(toml::Value::Table(t)) => t,
        Some(_) => {
            return Err(LlmError::Config(format!(
                "{}: `llm` must be a table ([llm])",
                path.display()
            )))
        }
    };
    section_from(llm.clone(), path)?;
    Ok(llm)
}

fn section_from(table: toml::Table, path: &Path) -> Result<LlmSection, LlmError> {
    serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        LlmError::Config(format!(
            "{}: bad key `llm.{key}`: {}\nhint: see the [llm] keys in the README",
            path.display(),
            inner.message().trim()
        ))
    })
}

/// Project values over user values, tables merged key by key.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}
