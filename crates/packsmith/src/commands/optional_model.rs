//! The model for `spack` and `nix`, which also run without one: the
//! deterministic draft is validated, and the first model call stops the
//! run with a message saying how to configure a model.

use packsmith_llm::{build_model, ChatModel, ChatRequest, ChatResponse, LlmError, ModelSpec};

use super::serve::{llm_error, load_config};
use crate::exit::{CliError, Exit};

/// Stands in when no model is configured.
pub struct NoModel;

impl ChatModel for NoModel {
    fn id(&self) -> String {
        "none".into()
    }

    fn complete(&self, _request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        Err(LlmError::Config(
            "no model is configured, so the failed draft cannot be repaired; pass --model \
             (e.g. local:qwen2.5-coder-1.5b) or set PACKSMITH_MODEL"
                .into(),
        ))
    }
}

/// The model named by `--model`, PACKSMITH_MODEL or packsmith.toml, else
/// [`NoModel`]. The flag is `true` when a real model was loaded.
pub fn load_optional_model(flag: Option<&str>) -> Result<(Box<dyn ChatModel>, bool), CliError> {
    let config = load_config()?;
    let Some(text) = flag.map(str::to_string).or_else(|| config.model.clone()) else {
        return Ok((Box::new(NoModel), false));
    };
    let spec: ModelSpec = text.parse().map_err(|e| llm_error(Exit::BadInput, &e))?;
    let model = build_model(&spec, &config).map_err(|e| {
        llm_error(Exit::Environment, &e).hint("`packsmith doctor` shows which models are usable")
    })?;
    Ok((model, true))
}
