//! packsmith.toml: user then project, unknown keys rejected, env on top.

use std::path::Path;

use packsmith_llm::config::Config;
use packsmith_llm::openai::StructuredOutput;
use packsmith_llm::CacheMode;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn project_overrides_user_key_by_key_and_env_wins() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        r#"
[llm]
model = "openai:gpt-5"
request_timeout_secs = 30

[llm.openai_compat]
base_url = "http://127.0.0.1:9000/v1"
structured_output = "json_object"

[llm.endpoints.vllm]
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "VLLM_KEY"

[llm.prices."openai-compat:qwen"]
prompt = 0.1
completion = 0.2
"#,
    );
    let project = write(
        dir.path(),
        "packsmith.toml",
        r#"
[spack]
anything = "the binary checks other tables"

[llm]
model = "anthropic:claude-haiku-4-5"

[llm.budget]
max_tokens = 100000

[llm.cache]
mode = "replay"
dir = "/tmp/replays"

[llm.retry]
max_attempts = 2
"#,
    );
    let c = Config::load_with(Some(&user), Some(&project), &|_| None).unwrap();
    assert_eq!(c.model.as_deref(), Some("anthropic:claude-haiku-4-5"));
    assert_eq!(c.request_timeout.as_secs(), 30);
    assert_eq!(
        c.openai_compat.base_url.as_deref(),
        Some("http://127.0.0.1:9000/v1")
    );
    assert_eq!(
        c.openai_compat.structured_output,
        StructuredOutput::JsonObject
    );
    assert_eq!(c.retry.max_attempts, 2);
    assert_eq!(c.budget.limits().max_tokens, Some(100000));
    let cache = c.cache.as_ref().unwrap();
    assert_eq!(cache.dir(), Path::new("/tmp/replays"));
    assert!(c.prices.get("openai-compat:qwen@vllm").is_some());
    assert!(c.prices.get("openai:gpt-5").is_some(), "defaults stay");
    assert_eq!(c.files, vec![user.clone(), project.clone()]);

    let env = |n: &str| match n {
        "PACKSMITH_MODEL" => Some("openai-compat:qwen@vllm".to_string()),
        "PACKSMITH_LLM_CACHE" => Some("read-write".to_string()),
        "VLLM_KEY" => Some("vllm-secret-123".to_string()),
        _ => None,
    };
    let c = Config::load_with(Some(&user), Some(&project), &env).unwrap();
    assert_eq!(c.model.as_deref(), Some("openai-compat:qwen@vllm"));
    assert!(c.endpoints["vllm"].api_key.is_some());
    let _ = CacheMode::ReadWrite;
}

#[test]
fn unknown_keys_name_the_file_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(dir.path(), "user.toml", "[llm]\nmodel = \"openai:gpt-5\"\n");
    let project = write(
        dir.path(),
        "packsmith.toml",
        "[llm.openai]\nbase_ur = \"http://x\"\n",
    );
    let err = Config::load_with(Some(&user), Some(&project), &|_| None)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&project.display().to_string()), "{err}");
    assert!(err.contains("llm.openai.base_ur"), "{err}");

    let top = write(dir.path(), "top.toml", "[llm]\nmodle = \"x\"\n");
    let err = Config::load_with(Some(&top), None, &|_| None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("top.toml") && err.contains("llm.modle"),
        "{err}"
    );

    let nested = write(
        dir.path(),
        "nested.toml",
        "[llm.prices.\"openai:gpt-5\"]\nprompt = 1.0\ncompletion = 2.0\ncahced = 0.1\n",
    );
    let err = Config::load_with(Some(&nested), None, &|_| None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cahced") && err.contains("llm.prices"),
        "{err}"
    );
}

#[test]
fn bad_values_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.toml");
    assert!(Config::load_with(Some(&missing), Some(&missing), &|_| None).is_ok());
    let bad = write(
        dir.path(),
        "bad.toml",
        "[llm]\nrequest_timeout_secs = \"ten\"\n",
    );
    let err = Config::load_with(Some(&bad), None, &|_| None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("llm.request_timeout_secs"), "{err}");
    let err = Config::load_with(None, None, &|n| {
        (n == "PACKSMITH_LLM_CACHE").then(|| "sometimes".into())
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("hint:"), "{err}");
}

#[test]
fn local_section_is_read_and_checked() {
    use packsmith_llm::config::LocalToolMode;
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[llm.local]\nthreads = 2\ncontext_size = 4096\ntool_mode = \"force-emulated\"\n",
    );
    let project = write(dir.path(), "project.toml", "[llm.local]\nthreads = 1\n");
    let c = Config::load_with(Some(&user), Some(&project), &|_| None).unwrap();
    assert_eq!(c.local.threads, Some(1));
    assert_eq!(c.local.context_size, Some(4096));
    assert_eq!(c.local.tool_mode, LocalToolMode::ForceEmulated);

    let bad = write(dir.path(), "bad.toml", "[llm.local]\ngpu_layers = 9\n");
    let e = Config::load_with(Some(&bad), None, &|_| None)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("llm.local") && e.contains("gpu_layers"), "{e}");
    let bad = write(
        dir.path(),
        "bad2.toml",
        "[llm.local]\ntool_mode = \"psychic\"\n",
    );
    assert!(Config::load_with(Some(&bad), None, &|_| None).is_err());
}
