//! The model for `spack` and `nix`, which also run without one: the
//! deterministic draft is validated, and the first model call stops the
//! run with a message saying how to configure a model.

use packsmith_llm::{
    build_model, catalog, ChatModel, ChatRequest, ChatResponse, LlmError, ModelSpec,
};

use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::model_config::{llm_error, load_config};
use crate::progress::note;

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

/// With nothing configured, a known chat model already in the cache, when
/// this binary can run it (feature `local`): said in a note, and `--model
/// none` keeps the draft alone.
fn local_model_at_hand() -> Option<String> {
    if !cfg!(feature = "local") {
        return None;
    }
    let dir = catalog::models_dir(&cache_dir());
    // Only a model fit for the job: SmolLM2, fetched for the tests, is not.
    let model = catalog::chat_models()
        .filter(|m| m.default_when_present)
        .find(|m| dir.join(m.file).is_file())?;
    note(&format!(
        "note: no model configured; using local:{} from {} (--model none for the draft alone)",
        model.name,
        dir.display()
    ));
    Some(format!("local:{}", model.name))
}

/// The word that asks for the draft alone (`--model none`), the same in
/// every command that can run without a model.
const NO_MODEL_WORD: &str = "none";

/// The model a `--model` text names, or `None` for `none`.
fn requested_spec(text: &str) -> Result<Option<ModelSpec>, CliError> {
    if text.trim().eq_ignore_ascii_case(NO_MODEL_WORD) {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|e| llm_error(Exit::BadInput, &e))
}

/// Checks a `--model` text before the slow steps, so a bad one fails at once.
pub fn check_model_flag(flag: Option<&str>) -> Result<(), CliError> {
    flag.map_or(Ok(()), |text| requested_spec(text).map(drop))
}

/// The model named by `--model`, PACKSMITH_MODEL or packsmith.toml, else a
/// local model at hand, else [`NoModel`] (also for `--model none`, which
/// overrides all of them).
/// The flag is `true` when a real model was loaded.
pub fn load_optional_model(flag: Option<&str>) -> Result<(Box<dyn ChatModel>, bool), CliError> {
    let config = load_config()?;
    let Some(text) = flag
        .map(str::to_string)
        .or_else(|| config.model.clone())
        .or_else(local_model_at_hand)
    else {
        return Ok((Box::new(NoModel), false));
    };
    let Some(spec) = requested_spec(&text)? else {
        return Ok((Box::new(NoModel), false));
    };
    let model = build_model(&spec, &config).map_err(|e| {
        llm_error(Exit::Environment, &e).hint("`packsmith doctor` shows which models are usable")
    })?;
    Ok((model, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_asks_for_no_model_and_other_words_must_name_a_provider() {
        assert!(requested_spec("none").unwrap().is_none());
        assert!(requested_spec(" NONE ").unwrap().is_none());
        assert!(requested_spec("local:qwen2.5-coder-1.5b")
            .unwrap()
            .is_some());
        let error = check_model_flag(Some("nothing")).unwrap_err();
        assert_eq!(error.code, Exit::BadInput);
        assert!(check_model_flag(None).is_ok());
    }
}
