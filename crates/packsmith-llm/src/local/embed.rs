//! Sentence embeddings with an embedding GGUF (all-MiniLM-L6-v2 converted by
//! `scripts/minilm-to-gguf.py`, or any llama.cpp embedding model with a
//! pooling type). Like the chat model, the model and its one context live on
//! a worker thread; vectors are L2-normalised.

use std::num::NonZeroU32;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;

use crate::{Embedder, EmbeddingError, LlmError};

use super::engine::{backend, check_model_file};

type Reply = Sender<Result<Vec<Vec<f32>>, LlmError>>;

/// An embedding model run in-process by llama.cpp.
pub struct LocalEmbedder {
    id: String,
    path: PathBuf,
    dimensions: usize,
    jobs: Option<Sender<(Vec<String>, Reply)>>,
    worker: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("id", &self.id)
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

impl LocalEmbedder {
    /// Loads an embedding GGUF; `threads` `None` = all cores.
    pub fn load(path: impl AsRef<Path>, threads: Option<usize>) -> Result<Self, LlmError> {
        let path = path.as_ref();
        check_model_file(path)?;
        let backend = backend()?;
        let threads = threads.unwrap_or_else(super::all_cores).max(1);
        let (job_tx, job_rx) = mpsc::channel();
        let (init_tx, init_rx) = mpsc::channel();
        let owned = path.to_path_buf();
        let worker = std::thread::Builder::new()
            .name("packsmith-embed".into())
            .spawn(move || run(backend, owned, threads, init_tx, job_rx))
            .map_err(|e| LlmError::Local(format!("cannot start the embedding thread: {e}")))?;
        let dimensions = match init_rx.recv() {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => {
                let _ = worker.join();
                return Err(e);
            }
            Err(_) => {
                let _ = worker.join();
                return Err(LlmError::Local(format!(
                    "llama.cpp stopped while loading {}",
                    path.display()
                )));
            }
        };
        Ok(Self {
            id: super::model_id(path),
            path: path.to_path_buf(),
            dimensions,
            jobs: Some(job_tx),
            worker: Some(worker),
        })
    }

    /// Length of every vector.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let (reply, answer) = mpsc::channel();
        self.jobs
            .as_ref()
            .ok_or_else(|| self.stopped())?
            .send((texts.to_vec(), reply))
            .map_err(|_| self.stopped())?;
        answer.recv().map_err(|_| self.stopped())?
    }

    fn stopped(&self) -> LlmError {
        LlmError::Local(format!(
            "the llama.cpp thread for {} has stopped\nhint: load the model again",
            self.path.display()
        ))
    }
}

impl Embedder for LocalEmbedder {
    fn model_id(&self) -> String {
        self.id.clone()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        self.embed_texts(texts).map_err(EmbeddingError::from)
    }
}

impl Drop for LocalEmbedder {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

fn run(
    backend: &'static LlamaBackend,
    path: PathBuf,
    threads: usize,
    init: Sender<Result<usize, LlmError>>,
    jobs: Receiver<(Vec<String>, Reply)>,
) {
    let loaded = catch_unwind(AssertUnwindSafe(|| {
        LlamaModel::load_from_file(backend, &path, &LlamaModelParams::default())
    }));
    let model = match loaded {
        Ok(Ok(model)) => model,
        _ => {
            let _ = init.send(Err(LlmError::Local(format!(
                "llama.cpp could not load the embedding model {}\nhint: check the file, or re-run scripts/fetch-models.sh minilm",
                path.display()
            ))));
            return;
        }
    };
    let n_ctx = model.n_ctx_train().clamp(64, 8192);
    let threads = i32::try_from(threads).unwrap_or(i32::MAX);
    let params = LlamaContextParams::default()
        .with_embeddings(true)
        .with_n_ctx(NonZeroU32::new(n_ctx))
        .with_n_batch(n_ctx)
        .with_n_ubatch(n_ctx)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let ctx = catch_unwind(AssertUnwindSafe(|| model.new_context(backend, params)));
    let mut ctx = match ctx {
        Ok(Ok(ctx)) => ctx,
        _ => {
            let _ = init.send(Err(LlmError::Local(format!(
                "cannot create an embedding context for {}",
                path.display()
            ))));
            return;
        }
    };
    let dimensions = usize::try_from(model.n_embd_out()).unwrap_or(0);
    let _ = init.send(Ok(dimensions));
    drop(init);

    for (texts, reply) in jobs {
        let result = catch_unwind(AssertUnwindSafe(|| {
            let mut out = Vec::with_capacity(texts.len());
            for text in &texts {
                let mut tokens = model.vocab().tokenize(text.as_bytes(), true, false);
                // Longer texts are cut to the model's window (callers chunk).
                tokens.truncate(n_ctx as usize);
                let mut batch = LlamaBatch::new(tokens.len().max(1), 1);
                for (i, &t) in tokens.iter().enumerate() {
                    batch
                        .add(t, i as i32, &[0], true)
                        .map_err(|e| LlmError::Local(format!("batch error: {e}")))?;
                }
                ctx.clear_kv_cache();
                if ctx.encode(&mut batch).is_err() {
                    ctx.decode(&mut batch).map_err(|e| {
                        LlmError::Local(format!("llama.cpp could not embed a text: {e}"))
                    })?;
                }
                let v = ctx.embeddings_seq_ith(0).map_err(|_| {
                    LlmError::Local(format!(
                        "{} gives no pooled embeddings (is it an embedding model?)",
                        path.display()
                    ))
                })?;
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                out.push(v.iter().map(|x| x / norm).collect());
            }
            Ok(out)
        }))
        .unwrap_or_else(|_| Err(LlmError::Local("llama.cpp failed while embedding".into())));
        let _ = reply.send(result);
    }
}
