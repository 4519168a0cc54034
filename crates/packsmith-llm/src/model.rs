//! From a [`ModelSpec`] and a [`Config`] to a ready model: the provider,
//! wrapped in retries, metering, the replay cache (when on) and the run's
//! budget, in that order from the inside out.

use crate::anthropic::{AnthropicChat, AnthropicOptions};
use crate::budget::Budgeted;
use crate::cache::Cached;
use crate::config::{Config, ServerSettings, DEFAULT_OPENAI_URL};
use crate::env;
use crate::openai::{OpenAiChat, OpenAiEmbedder, OpenAiOptions};
use crate::retry::Reliable;
use crate::spec::{Endpoint, LocalSpec, ModelSpec};
use crate::usage::Metered;
use crate::{ChatModel, Embedder, LlmError};

/// Builds the model `spec` names, ready for the agent loop.
pub fn build_model(spec: &ModelSpec, config: &Config) -> Result<Box<dyn ChatModel>, LlmError> {
    Ok(wrap(build_provider(spec, config)?, config))
}

/// The bare provider `spec` names, without retries, metering, cache or
/// budget (for `packsmith serve`, whose clients keep their own accounts).
pub fn build_provider(spec: &ModelSpec, config: &Config) -> Result<Box<dyn ChatModel>, LlmError> {
    match spec {
        ModelSpec::Local(local) => build_local(local, config),
        other => build_http(other, config),
    }
}

/// The reliability, accounting and replay layers around any provider.
pub fn wrap(provider: Box<dyn ChatModel>, config: &Config) -> Box<dyn ChatModel> {
    let metered = Metered::new(
        // The process-wide Ctrl-C flag: a back-off wait must not hold it up.
        Reliable::new(provider, config.retry.clone())
            .cancelled_by(packsmith_exec::CancelToken::process()),
        config.prices.clone(),
    );
    let cached: Box<dyn ChatModel> = match &config.cache {
        Some(cache) => Box::new(Cached::new(metered, cache.clone())),
        None => Box::new(metered),
    };
    Box::new(Budgeted::new(cached, config.budget.clone()))
}

/// The embedded provider (`crate::local_glue`) when the `local` feature is
/// on; a message saying how to get one otherwise.
fn build_local(spec: &LocalSpec, config: &Config) -> Result<Box<dyn ChatModel>, LlmError> {
    #[cfg(feature = "local")]
    {
        crate::local_glue::build_model(spec, config)
    }
    #[cfg(not(feature = "local"))]
    {
        let _ = config;
        Err(LlmError::Config(format!(
            "cannot use local:{}: this packsmith was built without the `local` feature\n\
             hint: rebuild with `cargo build --features local`, or serve the model with an \
             OpenAI-compatible server and use openai-compat:NAME@URL",
            match spec {
                LocalSpec::Named(n) => n.clone(),
                LocalSpec::Path(p) => p.display().to_string(),
            }
        )))
    }
}

/// Builds an embedder: an OpenAI-compatible `/v1/embeddings` endpoint, or
/// an embedding GGUF run in-process (`local:all-minilm-l6-v2`).
pub fn build_embedder(spec: &ModelSpec, config: &Config) -> Result<Box<dyn Embedder>, LlmError> {
    match spec {
        ModelSpec::OpenAi { .. } | ModelSpec::OpenAiCompat { .. } => {
            Ok(Box::new(OpenAiEmbedder::new(openai_options(spec, config)?)))
        }
        ModelSpec::Anthropic { .. } => Err(LlmError::Config(format!(
            "{spec}: Anthropic has no embeddings API\nhint: use an openai: or openai-compat: \
             embedding model, or a local one"
        ))),
        ModelSpec::Local(local) => build_local_embedder(local, config),
    }
}

/// The embedded embedding model when the `local` feature is on; a message
/// saying how to get one otherwise.
fn build_local_embedder(spec: &LocalSpec, config: &Config) -> Result<Box<dyn Embedder>, LlmError> {
    #[cfg(feature = "local")]
    {
        crate::local_glue::build_embedder(spec, config)
    }
    #[cfg(not(feature = "local"))]
    {
        let _ = config;
        Err(LlmError::Config(format!(
            "cannot embed with local:{}: this packsmith was built without the `local` feature\n\
             hint: rebuild with `cargo build --features local`, or use an openai: or \
             openai-compat:NAME@URL embedding model",
            match spec {
                LocalSpec::Named(n) => n.clone(),
                LocalSpec::Path(p) => p.display().to_string(),
            }
        )))
    }
}

fn build_http(spec: &ModelSpec, config: &Config) -> Result<Box<dyn ChatModel>, LlmError> {
    match spec {
        ModelSpec::Anthropic { model } => {
            let a = &config.anthropic;
            let api_key = a.api_key.clone().ok_or_else(|| {
                missing_key(spec, env::ANTHROPIC_API_KEY, "[llm.anthropic] api_key")
            })?;
            Ok(Box::new(AnthropicChat::new(AnthropicOptions {
                id: spec.to_string(),
                model: model.clone(),
                base_url: a.base_url.clone(),
                api_key: Some(api_key),
                version: a.version.clone(),
                default_max_tokens: a.max_tokens,
                request_timeout: config.request_timeout,
            })))
        }
        _ => Ok(Box::new(OpenAiChat::new(openai_options(spec, config)?))),
    }
}

fn openai_options(spec: &ModelSpec, config: &Config) -> Result<OpenAiOptions, LlmError> {
    let (provider, model, server, base_url, openai_proper) = match spec {
        ModelSpec::OpenAi { model } => {
            let s = &config.openai;
            if s.api_key.is_none() {
                return Err(missing_key(
                    spec,
                    env::OPENAI_API_KEY,
                    "[llm.openai] api_key",
                ));
            }
            let url = s
                .base_url
                .clone()
                .unwrap_or_else(|| DEFAULT_OPENAI_URL.into());
            ("openai", model, s, url, true)
        }
        ModelSpec::OpenAiCompat { model, endpoint } => {
            let (server, url): (&ServerSettings, Option<String>) = match endpoint {
                Endpoint::Url(u) => (&config.openai_compat, Some(u.clone())),
                Endpoint::Default => (&config.openai_compat, config.openai_compat.base_url.clone()),
                Endpoint::Named(name) => {
                    let s = config.endpoints.get(name).ok_or_else(|| {
                        let known: Vec<&str> = config.endpoints.keys().map(String::as_str).collect();
                        LlmError::Config(format!(
                            "{spec}: no endpoint named `{name}` (configured: {})\n\
                             hint: add [llm.endpoints.{name}] base_url = \"http://…/v1\" to packsmith.toml",
                            if known.is_empty() { "none".into() } else { known.join(", ") }
                        ))
                    })?;
                    (s, s.base_url.clone())
                }
            };
            let url = url.ok_or_else(|| {
                LlmError::Config(format!(
                    "{spec}: no server URL\nhint: write openai-compat:{model}@http://HOST:PORT/v1, \
                     or set [llm.openai_compat] base_url"
                ))
            })?;
            ("openai-compat", model, server, url, false)
        }
        _ => {
            return Err(LlmError::Config(format!(
                "{spec} is not an OpenAI-compatible model"
            )))
        }
    };
    Ok(OpenAiOptions {
        provider: provider.into(),
        id: spec.to_string(),
        model: model.clone(),
        base_url,
        api_key: server.api_key.clone(),
        structured_output: server.structured_output,
        max_completion_tokens_field: openai_proper,
        request_timeout: config.request_timeout,
    })
}

fn missing_key(spec: &ModelSpec, var: &str, key: &str) -> LlmError {
    LlmError::Config(format!(
        "{spec} needs an API key and none is set\nhint: export {var}=…, or set {key} in \
         ~/.config/packsmith/packsmith.toml"
    ))
}
