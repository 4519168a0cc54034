//! Latency of `kb similar` over a full knowledge base, with an
//! ADIOS2-like target (the CMake reader's facts are not needed).
//!
//! ```text
//! cargo run --release -p packsmith-spack-knowledge --example similar_bench -- KB.sqlite
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use packsmith_core::Hint;
use std::time::Instant;

use packsmith_spack_knowledge::kb::KnowledgeBase;
use packsmith_spack_knowledge::retrieve::{RetrieveOptions, Retriever, Strategy, Target};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: similar_bench KB.sqlite");
        std::process::exit(2);
    };
    let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
    let target = Target {
        name: "adios2".to_string(),
        build_system: Some("cmake".to_string()),
        deps: set(&[
            "mpi",
            "hdf5",
            "zeromq",
            "python",
            "py-numpy",
            "py-mpi4py",
            "libfabric",
            "zfp",
            "sz",
            "c-blosc2",
            "bzip2",
            "libpng",
            "ucx",
            "cmake",
            "pkgconfig",
            "libcatalyst",
            "sqlite",
        ]),
        opts: set(&[
            "mpi",
            "python",
            "hdf5",
            "zfp",
            "sz",
            "blosc2",
            "bzip2",
            "png",
            "cuda",
            "kokkos",
            "fortran",
            "shared",
            "sst",
            "dataspaces",
            "ucx",
            "libcatalyst",
            "campaign",
        ]),
    };
    let start = Instant::now();
    let kb = match KnowledgeBase::open(std::path::Path::new(&path)) {
        Ok(kb) => kb,
        Err(e) => {
            eprintln!("{e}\nhint: {}", e.hint().unwrap_or_default());
            std::process::exit(2);
        }
    };
    let retriever = match Retriever::load(&kb) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    println!("open + load: {:.2} ms", start.elapsed().as_secs_f64() * 1e3);
    for strategy in [
        Strategy::Similar,
        Strategy::SimilarNormalized,
        Strategy::RandomSameBuildSystem,
    ] {
        let opts = RetrieveOptions {
            strategy,
            n: 2,
            seed: 1,
            exclude: Vec::new(),
        };
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..200 {
            let t = Instant::now();
            let r = retriever.retrieve(&target, &opts);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            last = r.ok();
        }
        times.sort_by(f64::total_cmp);
        let picks: Vec<String> = last
            .map(|r| {
                r.matches
                    .iter()
                    .map(|m| format!("{} ({:.3})", m.name, m.score))
                    .collect()
            })
            .unwrap_or_default();
        println!(
            "{:<26} min {:.3} ms  median {:.3} ms  p95 {:.3} ms  max {:.3} ms  -> {}",
            strategy.as_str(),
            times[0],
            times[times.len() / 2],
            times[times.len() * 95 / 100],
            times[times.len() - 1],
            picks.join(", ")
        );
    }
}
