//! The embedding pipeline over a full knowledge base without the model's
//! cost: every card and every recipe chunk embedded by a hashed
//! bag-of-words stand-in (384 dimensions, like MiniLM), into a temporary
//! copy of the database; then ranking latency over all cards. Multiply the
//! text counts by a model's time per text for a full run with that model.
//!
//! ```text
//! cargo run --release -p packsmith-spack-knowledge --example embed_bench -- KB.sqlite
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::Instant;

use packsmith_core::embed::{Embedder, EmbeddingError};
use packsmith_spack_knowledge::embed::{
    embed_kb, ChunkScope, EmbedOptions, EmbeddingRetriever, FeatureCard, Pieces,
};
use packsmith_spack_knowledge::kb::KnowledgeBase;
use packsmith_spack_knowledge::retrieve::{RetrieveOptions, Strategy};

const DIMS: usize = 384;

/// Hashed bag of words; records the characters it was given.
struct Stand {
    chars: std::sync::atomic::AtomicUsize,
}

impl Embedder for Stand {
    fn model_id(&self) -> String {
        "bench:hashed-384".into()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        Ok(texts
            .iter()
            .map(|t| {
                self.chars
                    .fetch_add(t.chars().count(), std::sync::atomic::Ordering::Relaxed);
                let mut v = vec![0.0f32; DIMS];
                for w in t.split(|c: char| !c.is_ascii_alphanumeric()) {
                    let h = w.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                    });
                    v[(h % DIMS as u64) as usize] += 1.0;
                }
                v
            })
            .collect())
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args().nth(1) else {
        return Err("usage: embed_bench KB.sqlite (a copy is written to, never the file)".into());
    };
    let tmp = tempfile::tempdir()?;
    let copy = tmp.path().join("kb.sqlite");
    std::fs::copy(&path, &copy)?;
    let stand = Stand {
        chars: Default::default(),
    };
    for (label, scope) in [("cards", ChunkScope::None), ("chunks", ChunkScope::All)] {
        let before = stand.chars.load(std::sync::atomic::Ordering::Relaxed);
        let opts = EmbedOptions {
            chunks: scope,
            ..EmbedOptions::default()
        };
        let r = embed_kb(&copy, &stand, &opts, &mut |_| {})?;
        let chars = stand.chars.load(std::sync::atomic::Ordering::Relaxed) - before;
        println!(
            "{label}: {} texts embedded ({} chars, {:.0} per text) of {} in scope {:?}; pipeline {:.1} s without the embedder ({:.1} s in it)",
            r.embedded,
            chars,
            chars as f64 / r.embedded.max(1) as f64,
            r.chunks,
            r.chunks_by_kind,
            (r.elapsed_ms - r.embed_ms) / 1e3,
            r.embed_ms / 1e3,
        );
    }
    let kb = KnowledgeBase::open(&copy)?;
    let t = Instant::now();
    let retriever = EmbeddingRetriever::load(&kb, "bench:hashed-384")?;
    println!(
        "load: {} packages, {:.1} ms",
        retriever.packages(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let card = FeatureCard {
        name: "adios2".into(),
        description: Some("The Adaptable Input Output System, a framework for scientific data I/O to publish and subscribe to data when and where required".into()),
        build_systems: vec!["cmake".into()],
        variants: ["mpi", "hdf5", "sst", "python", "fortran", "zfp", "blosc2", "shared"].map(String::from).to_vec(),
        dependencies: ["mpi", "hdf5", "zeromq", "python", "py-numpy", "libfabric", "zfp", "sz", "c-blosc2", "bzip2", "libpng", "ucx"].map(String::from).to_vec(),
        defines: ["ADIOS2_USE_MPI", "ADIOS2_USE_HDF5", "BUILD_SHARED_LIBS"].map(String::from).to_vec(),
    }
    .normalized();
    let query = stand.embed(&[card.render()])?.pop().unwrap_or_default();
    let opts = RetrieveOptions {
        strategy: Strategy::Embedding,
        n: 3,
        seed: 0,
        exclude: Vec::new(),
    };
    for pieces in [Pieces::Cards, Pieces::CardsAndChunks] {
        let mut times = Vec::new();
        let mut picks = Vec::new();
        for _ in 0..200 {
            let mut q = query.clone();
            let t = Instant::now();
            let r = retriever.retrieve_vector(&mut q, &card, &opts, pieces)?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
            picks = r.matches.iter().map(|m| m.name.clone()).collect();
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{pieces:?}: ranking min {:.2} ms, median {:.2} ms, p95 {:.2} ms; picks {picks:?}",
            times[0],
            percentile(&times, 0.5),
            percentile(&times, 0.95)
        );
    }
    Ok(())
}
