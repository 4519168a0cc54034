//! `--model provider:name`: which model, on which provider.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::LlmError;

/// Where an OpenAI-compatible model is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `@http://127.0.0.1:8000/v1`
    Url(String),
    /// `@vllm`: an `[llm.endpoints.vllm]` table of packsmith.toml.
    Named(String),
    /// No `@`: the `[llm.openai_compat]` base URL.
    Default,
}

/// An embedded model: a known name (`model pull` fetches it) or a GGUF path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalSpec {
    Named(String),
    Path(PathBuf),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSpec {
    OpenAi { model: String },
    Anthropic { model: String },
    OpenAiCompat { model: String, endpoint: Endpoint },
    Local(LocalSpec),
}

const HINT: &str = "hint: write openai:NAME, anthropic:NAME, openai-compat:NAME@URL \
                    (or NAME@ENDPOINT from packsmith.toml), local:NAME or local:/path/model.gguf";

impl FromStr for ModelSpec {
    type Err = LlmError;

    fn from_str(text: &str) -> Result<Self, LlmError> {
        let text = text.trim();
        let Some((provider, rest)) = text.split_once(':') else {
            return Err(LlmError::Config(format!(
                "model `{text}` names no provider\n{HINT}"
            )));
        };
        if rest.is_empty() {
            return Err(LlmError::Config(format!(
                "model `{text}` names no model after `{provider}:`\n{HINT}"
            )));
        }
        let model = rest.to_string();
        match provider {
            "openai" => Ok(Self::OpenAi { model }),
            "anthropic" => Ok(Self::Anthropic { model }),
            "openai-compat" => {
                // A URL may itself hold an `@` (user info), so split at the
                // `@` that starts the URL, else at the last one.
                let split = ["@http://", "@https://"]
                    .iter()
                    .filter_map(|m| rest.find(m))
                    .min()
                    .or_else(|| rest.rfind('@'));
                let (model, endpoint) = match split {
                    Some(i) => {
                        let target = &rest[i + 1..];
                        let endpoint =
                            if target.starts_with("http://") || target.starts_with("https://") {
                                Endpoint::Url(target.to_string())
                            } else {
                                Endpoint::Named(target.to_string())
                            };
                        (rest[..i].to_string(), endpoint)
                    }
                    None => (model, Endpoint::Default),
                };
                if model.is_empty() || endpoint == Endpoint::Named(String::new()) {
                    return Err(LlmError::Config(format!(
                        "model `{text}` is incomplete\n{HINT}"
                    )));
                }
                Ok(Self::OpenAiCompat { model, endpoint })
            }
            "local" => {
                let looks_like_path =
                    rest.contains('/') || rest.ends_with(".gguf") || rest.starts_with('~');
                Ok(Self::Local(if looks_like_path {
                    LocalSpec::Path(PathBuf::from(rest))
                } else {
                    LocalSpec::Named(model)
                }))
            }
            other => Err(LlmError::Config(format!(
                "unknown model provider `{other}` in `{text}`\n{HINT}"
            ))),
        }
    }
}

impl fmt::Display for ModelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OpenAi { model } => write!(f, "openai:{model}"),
            Self::Anthropic { model } => write!(f, "anthropic:{model}"),
            Self::OpenAiCompat { model, endpoint } => match endpoint {
                Endpoint::Url(u) | Endpoint::Named(u) => write!(f, "openai-compat:{model}@{u}"),
                Endpoint::Default => write!(f, "openai-compat:{model}"),
            },
            Self::Local(LocalSpec::Named(n)) => write!(f, "local:{n}"),
            Self::Local(LocalSpec::Path(p)) => write!(f, "local:{}", p.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> ModelSpec {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn forms_from_the_issue() {
        assert_eq!(
            parse("openai:gpt-5"),
            ModelSpec::OpenAi {
                model: "gpt-5".into()
            }
        );
        assert_eq!(
            parse("anthropic:claude-haiku-4-5"),
            ModelSpec::Anthropic {
                model: "claude-haiku-4-5".into()
            }
        );
        assert_eq!(
            parse("openai-compat:qwen2.5-coder@http://127.0.0.1:8000/v1"),
            ModelSpec::OpenAiCompat {
                model: "qwen2.5-coder".into(),
                endpoint: Endpoint::Url("http://127.0.0.1:8000/v1".into())
            }
        );
        assert_eq!(
            parse("openai-compat:qwen@vllm"),
            ModelSpec::OpenAiCompat {
                model: "qwen".into(),
                endpoint: Endpoint::Named("vllm".into())
            }
        );
        assert_eq!(
            parse("local:qwen2.5-coder-1.5b"),
            ModelSpec::Local(LocalSpec::Named("qwen2.5-coder-1.5b".into()))
        );
        assert_eq!(
            parse("local:/models/x.gguf"),
            ModelSpec::Local(LocalSpec::Path("/models/x.gguf".into()))
        );
        for s in [
            "openai:gpt-5",
            "openai-compat:qwen2.5-coder@http://127.0.0.1:8000/v1",
            "local:/models/x.gguf",
        ] {
            assert_eq!(parse(s).to_string(), s);
        }
    }

    #[test]
    fn bad_forms_say_what_to_write() {
        for s in [
            "gpt-5",
            "openai:",
            "mistral:large",
            "openai-compat:@http://x",
        ] {
            let e = s
                .parse::<ModelSpec>()
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.contains("hint:"), "{s}: {e}");
        }
    }
}
