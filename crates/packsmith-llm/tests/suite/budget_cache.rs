//! The run budget, the replay cache and the scripted model.

use std::sync::Arc;
use std::thread;

use packsmith_llm::{
    Budget, BudgetTracker, Budgeted, CacheMode, Cached, ChatMessage, ChatModel, ChatRequest,
    ChatResponse, FinishReason, LlmError, Price, PriceTable, ReplayCache, ScriptedModel, Usage,
};

fn reply(text: &str, prompt: u64, completion: u64) -> ChatResponse {
    ChatResponse {
        model: "m".into(),
        content: text.into(),
        tool_calls: vec![],
        finish_reason: FinishReason::Stop,
        usage: Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cached_tokens: 0,
        },
        latency_ms: 1234,
        cost_usd: Some(0.5),
        cached: false,
    }
}

fn ask(text: &str) -> ChatRequest {
    let mut r = ChatRequest::new(Some("sys".into()), vec![ChatMessage::user(text)]);
    r.max_tokens = Some(10);
    r
}

#[test]
fn scripted_model_replays_records_and_runs_out() {
    let m = ScriptedModel::new("scripted:test")
        .text("one")
        .tool_call("read_file", "{bad json");
    assert_eq!(m.complete(&ask("a")).unwrap().content, "one");
    let second = m.complete(&ask("b")).unwrap();
    assert_eq!(second.finish_reason, FinishReason::ToolCalls);
    assert_eq!(second.tool_calls[0].arguments, "{bad json");
    let err = m.complete(&ask("c")).unwrap_err();
    assert!(
        err.to_string().contains("no response left for call 3"),
        "{err}"
    );
    let asked: Vec<String> = m
        .requests()
        .iter()
        .map(|r| r.messages[0].content.clone())
        .collect();
    assert_eq!(asked, ["a", "b", "c"]);
}

#[test]
fn token_budget_stops_before_the_call_that_would_overrun() {
    let inner = Arc::new(
        ScriptedModel::new("scripted:t")
            .reply(reply("1", 100, 10))
            .reply(reply("2", 100, 10))
            .reply(reply("3", 100, 10)),
    );
    let tracker = BudgetTracker::new(
        Budget {
            max_tokens: Some(225),
            max_cost_usd: None,
        },
        PriceTable::default(),
    );
    let m = Budgeted::new(inner.clone(), tracker.clone());
    assert!(m.complete(&ask("a")).is_ok());
    assert!(m.complete(&ask("b")).is_ok());
    // 220 spent; the next needs ~3 prompt + 10 completion tokens more.
    let err = m.complete(&ask("c")).unwrap_err();
    assert!(matches!(err, LlmError::BudgetExhausted(_)), "{err}");
    assert_eq!(
        inner.remaining(),
        1,
        "the refused call never reached the model"
    );
    assert_eq!(tracker.spent().usage.total(), 220);
    assert_eq!(tracker.spent().calls, 2);
}

#[test]
fn cost_budget_uses_reported_and_estimated_cost() {
    let inner = ScriptedModel::new("scripted:t")
        .reply(reply("1", 1, 1))
        .reply(reply("2", 1, 1));
    let mut prices = PriceTable::default();
    prices.0.insert(
        "scripted:t".into(),
        Price {
            prompt: 1.0,
            completion: 1.0,
            cached: None,
        },
    );
    let tracker = BudgetTracker::new(
        Budget {
            max_tokens: None,
            max_cost_usd: Some(0.500_005),
        },
        prices,
    );
    let m = Budgeted::new(inner, tracker);
    // Reports $0.50; the next call's estimate (about 12 tokens at $1 per
    // million) then no longer fits the remaining $0.000005.
    assert!(m.complete(&ask("a")).is_ok());
    let err = m.complete(&ask("b")).unwrap_err();
    assert!(err.to_string().contains("$0.5000 of $0.5000"), "{err}");
}

#[test]
fn cache_miss_then_byte_identical_hits() {
    let dir = tempfile::tempdir().unwrap();
    let inner = Arc::new(ScriptedModel::new("scripted:c").reply(reply("recorded", 5, 2)));
    let m = Cached::new(
        inner.clone(),
        ReplayCache::new(dir.path(), CacheMode::ReadWrite),
    );

    let first = m.complete(&ask("q")).unwrap();
    assert!(!first.cached);
    assert_eq!(first.latency_ms, 1234);
    assert_eq!(inner.remaining(), 0);

    let files: Vec<_> = walk(dir.path());
    assert_eq!(files.len(), 1);
    let stored = std::fs::read(&files[0]).unwrap();

    // The script is empty now: these can only come from the cache.
    let hit1 = m.complete(&ask("q")).unwrap();
    let hit2 = m.complete(&ask("q")).unwrap();
    assert!(hit1.cached);
    assert_eq!(hit1.latency_ms, 0);
    assert_eq!(hit1.content, "recorded");
    assert_eq!(
        serde_json::to_vec(&hit1).unwrap(),
        serde_json::to_vec(&hit2).unwrap()
    );
    assert_eq!(
        std::fs::read(&files[0]).unwrap(),
        stored,
        "a hit never rewrites"
    );

    // A different request is a miss (and the script is spent).
    assert!(m.complete(&ask("other")).is_err());

    // Replay-only over the same directory serves the hit and refuses misses.
    let replay = Cached::new(
        ScriptedModel::new("scripted:c"),
        ReplayCache::new(dir.path(), CacheMode::Replay),
    );
    assert_eq!(
        serde_json::to_vec(&replay.complete(&ask("q")).unwrap()).unwrap(),
        serde_json::to_vec(&hit1).unwrap()
    );
    let err = replay.complete(&ask("new")).unwrap_err();
    assert!(matches!(err, LlmError::Cache(_)), "{err}");
}

#[test]
fn cache_key_depends_on_model_and_request_only() {
    let a = ReplayCache::key("openai:gpt-5", &ask("q")).unwrap();
    assert_eq!(a, ReplayCache::key("openai:gpt-5", &ask("q")).unwrap());
    assert_ne!(a, ReplayCache::key("openai:gpt-5-mini", &ask("q")).unwrap());
    let mut hotter = ask("q");
    hotter.temperature = Some(0.9);
    assert_ne!(a, ReplayCache::key("openai:gpt-5", &hotter).unwrap());
    assert_eq!(a.len(), 64);
}

#[test]
fn concurrent_writers_leave_a_whole_entry() {
    let dir = tempfile::tempdir().unwrap();
    let cache = ReplayCache::new(dir.path(), CacheMode::ReadWrite);
    let key = ReplayCache::key("m", &ask("q")).unwrap();
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let cache = cache.clone();
            let key = key.clone();
            thread::spawn(move || {
                for _ in 0..20 {
                    cache
                        .put(&key, "m", &ask("q"), &reply(&format!("worker {i}"), 1, 1))
                        .unwrap();
                    assert!(
                        cache.get(&key).is_some(),
                        "a reader never sees half an entry"
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert!(cache.get(&key).unwrap().content.starts_with("worker "));
    assert_eq!(walk(dir.path()).len(), 1, "no temp files left behind");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
