//! Cost accounting: a price table keyed by model id, and [`Metered`], the
//! wrapper that stamps latency and estimated cost on every response.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::{ChatModel, ChatRequest, ChatResponse, LlmError, Usage};

/// US dollars per million tokens. `cached` is the price of prompt tokens
/// served from the provider's prompt cache (they are counted inside
/// `prompt_tokens` too, and billed at this price instead).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub prompt: f64,
    pub completion: f64,
    #[serde(default)]
    pub cached: Option<f64>,
}

/// Prices by model id (`openai:gpt-5`) or by bare model name (`gpt-5`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable(pub BTreeMap<String, Price>);

impl PriceTable {
    /// Built-in prices. ESTIMATES copied from the providers' public price
    /// lists when this table was written; they go stale. Override them in
    /// packsmith.toml (`[llm.prices."openai:gpt-5"]`) for real accounting.
    pub fn defaults() -> Self {
        let p = |prompt, completion, cached| Price {
            prompt,
            completion,
            cached: Some(cached),
        };
        let table = [
            ("openai:gpt-5", p(1.25, 10.0, 0.125)),
            ("openai:gpt-5-mini", p(0.25, 2.0, 0.025)),
            ("openai:gpt-5-nano", p(0.05, 0.40, 0.005)),
            ("openai:gpt-4.1", p(2.0, 8.0, 0.50)),
            ("openai:gpt-4o", p(2.5, 10.0, 1.25)),
            ("openai:gpt-4o-mini", p(0.15, 0.60, 0.075)),
            ("anthropic:claude-haiku-4-5", p(1.0, 5.0, 0.10)),
            ("anthropic:claude-sonnet-4-5", p(3.0, 15.0, 0.30)),
            ("anthropic:claude-opus-4-1", p(15.0, 75.0, 1.50)),
        ];
        Self(table.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// Adds or replaces entries.
    pub fn extend(&mut self, other: &PriceTable) {
        for (k, v) in &other.0 {
            self.0.insert(k.clone(), *v);
        }
    }

    /// The price of `model_id`: the exact id, then the id without its
    /// `@endpoint`, then the bare model name. Models on the embedded
    /// provider cost nothing unless priced.
    pub fn get(&self, model_id: &str) -> Option<Price> {
        let without_endpoint = model_id.split_once('@').map_or(model_id, |(id, _)| id);
        for key in [model_id, without_endpoint] {
            if let Some(p) = self.0.get(key) {
                return Some(*p);
            }
        }
        if model_id.starts_with("local:") {
            return Some(Price {
                prompt: 0.0,
                completion: 0.0,
                cached: Some(0.0),
            });
        }
        let bare = without_endpoint.split_once(':').map(|(_, name)| name)?;
        self.0.get(bare).copied()
    }

    /// Estimated cost of `usage` in USD, if the model is priced.
    pub fn cost(&self, model_id: &str, usage: &Usage) -> Option<f64> {
        let p = self.get(model_id)?;
        let cached = usage.cached_tokens.min(usage.prompt_tokens);
        let uncached = usage.prompt_tokens - cached;
        let per_m = 1e-6;
        Some(
            uncached as f64 * p.prompt * per_m
                + cached as f64 * p.cached.unwrap_or(p.prompt) * per_m
                + usage.completion_tokens as f64 * p.completion * per_m,
        )
    }
}

/// Stamps wall time and cost on responses of any model. Latency is the
/// whole call as the caller saw it (retries included) unless the inner
/// model measured its own; cost comes from the price table unless the
/// inner model set one.
pub struct Metered<M> {
    inner: M,
    prices: PriceTable,
}

impl<M: ChatModel> Metered<M> {
    pub fn new(inner: M, prices: PriceTable) -> Self {
        Self { inner, prices }
    }
}

impl<M: ChatModel> ChatModel for Metered<M> {
    fn id(&self) -> String {
        self.inner.id()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let start = Instant::now();
        let mut response = self.inner.complete(request)?;
        if !response.cached {
            response.latency_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        }
        if response.cost_usd.is_none() {
            response.cost_usd = self.prices.cost(&self.inner.id(), &response.usage);
        }
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_bills_cached_tokens_at_their_price() {
        let t = PriceTable::defaults();
        let u = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 100_000,
            cached_tokens: 400_000,
        };
        // 600k × 1.25 + 400k × 0.125 + 100k × 10 (per million)
        let c = t.cost("openai:gpt-5", &u).unwrap_or_default();
        assert!((c - (0.75 + 0.05 + 1.0)).abs() < 1e-9, "{c}");
        assert_eq!(t.cost("openai-compat:mystery@x", &u), None);
        assert_eq!(t.cost("local:qwen", &u), Some(0.0));
    }

    #[test]
    fn bare_names_match() {
        let mut t = PriceTable::default();
        t.0.insert(
            "qwen2.5-coder".into(),
            Price {
                prompt: 0.1,
                completion: 0.2,
                cached: None,
            },
        );
        assert!(t
            .get("openai-compat:qwen2.5-coder@http://127.0.0.1:8000/v1")
            .is_some());
    }
}
