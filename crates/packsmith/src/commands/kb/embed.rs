//! `packsmith kb embed` (vectors for `--refs embedding:N`) and
//! `kb similar --strategy embedding`.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use packsmith_llm::{build_embedder, Embedder, ModelSpec};
use packsmith_spack_knowledge::embed::{
    embed_kb, ChunkScope, EmbedError, EmbedOptions, EmbedProgress, EmbeddingRetriever, Pieces,
};
use packsmith_spack_knowledge::retrieve::{RetrieveOptions, Strategy};

use super::output::{emit, json, load_facts, open, render_matches};
use crate::cli::{KbEmbedArgs, KbSimilarArgs};
use crate::exit::{CliError, Exit};
use crate::model_config::{llm_error, load_config};
use crate::target_arg::spack_version;

/// The embedding model `text` names, loaded.
fn embedder(text: &str) -> Result<Box<dyn Embedder>, CliError> {
    let spec: ModelSpec = text.parse().map_err(|e| llm_error(Exit::BadInput, &e))?;
    let config = load_config()?;
    build_embedder(&spec, &config).map_err(|e| llm_error(Exit::Environment, &e))
}

/// An embedding error, with `kb embed --model <what the user wrote>` in
/// the hint where that is the fix.
fn embed_error(err: EmbedError, model: &str, kb: &Path) -> CliError {
    if let EmbedError::Model { model, source } = &err {
        // The provider's message carries its own hint line.
        let mut e = llm_error(Exit::Environment, source);
        e.message = format!("embedding model {model} failed: {}", e.message);
        if e.hint.is_none() {
            e.hint = Some(
                "check that the embedding server is running and its URL is right \
                 (`packsmith doctor` checks the configured models)"
                    .into(),
            );
        }
        return e;
    }
    let with_model = matches!(err, EmbedError::NotEmbedded { .. }).then(|| format!(
        "run `packsmith kb embed --model {model} --kb {}` first (a few minutes per 1,000 packages on a small CPU)",
        kb.display()
    ));
    let e = CliError::from(err);
    match with_model {
        Some(hint) => e.hint(hint),
        None => e,
    }
}

/// `--chunks none|all|FILE`.
fn chunk_scope(text: &str) -> Result<ChunkScope, CliError> {
    match text {
        "none" => return Ok(ChunkScope::None),
        "all" => return Ok(ChunkScope::All),
        _ => {}
    }
    let path = Path::new(text);
    let content = std::fs::read_to_string(path).map_err(|e| {
        CliError::new(
            Exit::BadInput,
            format!("--chunks {text}: cannot read the package list: {e}"),
        )
        .hint("use --chunks none, --chunks all, or a file of package names (JSON lines with \"name\", or one per line)")
    })?;
    let mut names = BTreeSet::new();
    for (i, line) in content.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('{') {
            let name = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(str::to_string))
                .ok_or_else(|| {
                    CliError::new(
                        Exit::BadInput,
                        format!(
                            "{}:{}: a JSON line without a \"name\" string",
                            path.display(),
                            i + 1
                        ),
                    )
                    .hint("give each JSON line a \"name\" field, or list one package name per line")
                })?;
            names.insert(name);
        } else {
            names.insert(line.to_string());
        }
    }
    Ok(ChunkScope::Packages(names))
}

/// A bar on a terminal; otherwise a line every tenth of the way (logs).
struct Progress {
    bar: Option<ProgressBar>,
    next_line: usize,
}

impl Progress {
    fn new() -> Self {
        Progress {
            bar: None,
            next_line: 0,
        }
    }

    fn update(&mut self, p: &EmbedProgress) {
        if std::io::stderr().is_terminal() {
            let bar = self.bar.get_or_insert_with(|| {
                let bar = ProgressBar::with_draw_target(
                    Some(p.total as u64),
                    ProgressDrawTarget::stderr(),
                );
                if let Ok(style) = ProgressStyle::with_template(
                    "embedding {bar:30} {pos}/{len} texts, {per_sec}, eta {eta} {msg}",
                ) {
                    bar.set_style(style);
                }
                bar
            });
            bar.set_position(p.done as u64);
            bar.set_message(p.package.clone());
        } else if p.done >= self.next_line || p.done == p.total {
            let _ = writeln!(
                std::io::stderr().lock(),
                "embedded {}/{} texts (at {})",
                p.done,
                p.total,
                p.package
            );
            self.next_line = p.done + (p.total / 10).max(1);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

pub fn embed(a: &KbEmbedArgs) -> Result<Exit, CliError> {
    let kb = open(&a.select)?;
    let path = kb.path.clone();
    drop(kb);
    let scope = chunk_scope(&a.chunks)?;
    let load = Instant::now();
    let model = embedder(&a.model)?;
    let load_ms = load.elapsed().as_secs_f64() * 1e3;
    let opts = EmbedOptions {
        chunks: scope,
        batch: a.batch.max(1),
        limit: a.limit,
    };
    let mut progress = Progress::new();
    let report = embed_kb(&path, model.as_ref(), &opts, &mut |p| progress.update(p))
        .map_err(|e| embed_error(e, &a.model, &path))?;
    progress.finish();
    if a.select.json {
        json(&report)?;
        return Ok(Exit::Success);
    }
    let kinds: Vec<String> = report
        .chunks_by_kind
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let per_text = if report.embedded > 0 {
        format!(
            ", {:.1} ms per text",
            report.embed_ms / report.embedded as f64
        )
    } else {
        String::new()
    };
    emit(&format!(
        "embedded {} texts with {} ({} dimensions) into {}\n{} packages ({} with recipe chunks); {} chunks in scope ({}); {} already embedded, {} removed\nembedding {:.1} s{per_text}; total {:.1} s (model loaded in {:.1} s)",
        report.embedded,
        report.model,
        report.dims,
        report.db.display(),
        report.packages,
        report.chunked_packages,
        report.chunks,
        kinds.join(", "),
        report.unchanged,
        report.removed,
        report.embed_ms / 1e3,
        report.elapsed_ms / 1e3,
        load_ms / 1e3,
    ));
    Ok(Exit::Success)
}

pub fn similar_by_embedding(a: &KbSimilarArgs) -> Result<Exit, CliError> {
    let spack = spack_version(&a.spack_version)?;
    let facts = load_facts(&a.target)?;
    let kb = open(&a.select)?;
    let names = kb.names()?;
    let card = packsmith_spack_draft::query::feature_card_of_facts(&facts, &names, spack);
    let model = embedder(&a.embed_model)?;
    let load = Instant::now();
    let retriever = EmbeddingRetriever::load(&kb, &model.model_id())
        .map_err(|e| embed_error(e, &a.embed_model, &kb.path))?;
    let load_ms = load.elapsed().as_secs_f64() * 1e3;
    let opts = RetrieveOptions {
        strategy: Strategy::Embedding,
        n: a.n,
        seed: a.seed,
        exclude: a.exclude.clone(),
    };
    let pieces = if a.chunks {
        Pieces::CardsAndChunks
    } else {
        Pieces::Cards
    };
    // Embedding the card and ranking are timed apart: the first is the
    // model's cost, the second this code's.
    let t = Instant::now();
    let mut query = model
        .embed(&[card.render()])
        .map_err(|e| llm_error(Exit::Environment, &e))?
        .pop()
        .unwrap_or_default();
    let embed_ms = t.elapsed().as_secs_f64() * 1e3;
    let result = retriever
        .retrieve_vector(&mut query, &card, &opts, pieces)
        .map_err(|e| embed_error(e, &a.embed_model, &kb.path))?;
    if a.select.json {
        json(&result)?;
        return Ok(Exit::Success);
    }
    let mut t = format!(
        "strategy embedding ({}, {} dimensions) for `{}` (build system {}) over {}\n",
        retriever.model(),
        retriever.dims(),
        card.name,
        card.build_systems.first().map_or("any", String::as_str),
        kb.path.display()
    );
    t.push_str(&render_matches(&result.matches));
    if result.matches.is_empty() {
        t.push_str("no reference: no embedded package of the same build system\n");
    }
    if retriever.stale() > 0 {
        t.push_str(&format!(
            "note: {} vectors are older than their recipes and were left out; run `packsmith kb embed --model {}` to refresh them\n",
            retriever.stale(),
            a.embed_model
        ));
    }
    t.push_str(&format!(
        "{} candidates; ranking {:.2} ms, embedding the target's card {embed_ms:.1} ms (vectors of {} packages loaded in {load_ms:.1} ms)",
        result.candidates,
        result.elapsed_us as f64 / 1e3,
        retriever.packages()
    ));
    emit(&t);
    Ok(Exit::Success)
}
