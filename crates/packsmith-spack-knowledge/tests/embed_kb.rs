#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Embedding retrieval on a small generated repository, with a
//! deterministic bag-of-words embedder: top-k by cosine, the target
//! excluded, vectors of different models kept apart, and `kb embed`
//! incremental.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use packsmith_core::embed::{Embedder, EmbeddingError};
use packsmith_core::Hint;
use packsmith_spack_knowledge::embed::chunks::card_from_recipe;
use packsmith_spack_knowledge::embed::{
    embed_kb, ChunkScope, EmbedError, EmbedOptions, EmbeddingRetriever, FeatureCard, Pieces,
};
use packsmith_spack_knowledge::kb::{index_repo, IndexOptions, KnowledgeBase};
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::retrieve::{RetrieveOptions, Strategy};

/// Hashed bag of words: each lower-cased word adds 1 to bucket
/// `fnv(seed, word) % dims`. Similar texts share words, so share buckets.
struct BagOfWords {
    id: String,
    dims: usize,
    seed: u64,
    texts: AtomicUsize,
}

impl BagOfWords {
    fn new(id: &str, dims: usize, seed: u64) -> Self {
        BagOfWords {
            id: id.into(),
            dims,
            seed,
            texts: AtomicUsize::new(0),
        }
    }

    fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dims];
        for word in text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ self.seed;
            for b in word.to_ascii_lowercase().bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            v[(h % self.dims as u64) as usize] += 1.0;
        }
        v
    }
}

impl Embedder for BagOfWords {
    fn model_id(&self) -> String {
        self.id.clone()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(x * y)).sum();
    let na: f64 = a.iter().map(|x| f64::from(x * x)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| f64::from(x * x)).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

const PACKAGES: &[(&str, &str, &str, &str)] = &[
    (
        "alpha",
        "CMakePackage",
        "Alpha solves sparse linear systems with MPI.",
        "    variant(\"mpi\", default=True, description=\"MPI\")\n    depends_on(\"cmake@3.18:\", type=\"build\")\n    depends_on(\"mpi\", when=\"+mpi\")\n\n    def cmake_args(self):\n        return [self.define_from_variant(\"ALPHA_MPI\", \"mpi\")]\n",
    ),
    (
        "alpha-extras",
        "CMakePackage",
        "Extras for alpha: more sparse solvers.",
        "    depends_on(\"alpha\")\n",
    ),
    (
        "hdfview",
        "CMakePackage",
        "A viewer for parallel HDF5 files.",
        "    depends_on(\"hdf5\")\n    depends_on(\"mpi\")\n",
    ),
    (
        "netio",
        "CMakePackage",
        "Parallel input output library for NetCDF and HDF5 data.",
        "    variant(\"mpi\", default=True, description=\"Parallel I/O with MPI\")\n    variant(\"fortran\", default=False, description=\"Fortran interface\")\n    depends_on(\"hdf5\")\n    depends_on(\"netcdf-c\")\n    depends_on(\"mpi\", when=\"+mpi\")\n\n    def cmake_args(self):\n        return [self.define_from_variant(\"NETIO_MPI\", \"mpi\")]\n\n    def setup_run_environment(self, env):\n        env.set(\"NETIO_HOME\", self.prefix)\n",
    ),
    (
        "hdf5",
        "CMakePackage",
        "HDF5 is a data model, library and file format.",
        "    variant(\"mpi\", default=True, description=\"MPI\")\n    depends_on(\"mpi\", when=\"+mpi\")\n    depends_on(\"zlib\")\n",
    ),
    (
        "zlib",
        "MakefilePackage",
        "Compression library for data files.",
        "",
    ),
    (
        "beta-tools",
        "AutotoolsPackage",
        "Parallel input output tools for HDF5 data.",
        "    depends_on(\"hdf5\")\n",
    ),
];

fn recipe_text(name: &str, base: &str, doc: &str, body: &str) -> String {
    let class: String = name
        .split('-')
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!(
        "from spack.package import *\n\n\nclass {class}({base}):\n    \"\"\"{doc}\"\"\"\n\n    url = \"https://example.org/{name}-1.0.tar.gz\"\n    version(\"1.0\", sha256=\"1\" * 64)\n{body}"
    )
}

fn write_package(repo: &Path, name: &str, text: &str) {
    let dir = repo.join("packages").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package.py"), text).unwrap();
}

/// The generated repository, indexed; returns (repo, database path).
fn indexed(tmp: &Path) -> (PathBuf, PathBuf) {
    let repo = tmp.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("repo.yaml"), "repo:\n  namespace: embedtest\n").unwrap();
    for (name, base, doc, body) in PACKAGES {
        write_package(&repo, name, &recipe_text(name, base, doc, body));
    }
    let report = index_repo(&repo, &tmp.join("cache"), &IndexOptions::default()).unwrap();
    (repo, report.db)
}

fn target() -> FeatureCard {
    FeatureCard {
        name: "mysolver".into(),
        description: Some("Parallel input output library for HDF5 and NetCDF files".into()),
        build_systems: vec!["cmake".into()],
        variants: vec!["mpi".into()],
        dependencies: vec!["hdf5".into(), "mpi".into(), "netcdf-c".into()],
        defines: vec![],
    }
    .normalized()
}

fn opts(n: usize) -> RetrieveOptions {
    RetrieveOptions {
        strategy: Strategy::Embedding,
        n,
        seed: 0,
        exclude: Vec::new(),
    }
}

#[test]
fn top_k_is_cosine_order_over_same_build_system_cards() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, db) = indexed(tmp.path());
    let model = BagOfWords::new("test:bow-64", 64, 1);
    let report = embed_kb(&db, &model, &EmbedOptions::default(), &mut |_| {}).unwrap();
    assert_eq!((report.packages, report.embedded, report.dims), (7, 7, 64));

    let kb = KnowledgeBase::open(&db).unwrap();
    let retriever = EmbeddingRetriever::load(&kb, "test:bow-64").unwrap();
    let card = target();
    let result = retriever
        .retrieve(&model, &card, &opts(3), Pieces::Cards)
        .unwrap();
    assert_eq!(result.strategy, Strategy::Embedding);

    // The expected order, computed here from the recipes themselves.
    let query = model.vector(&card.render());
    let mut expected: Vec<(f64, &str)> = PACKAGES
        .iter()
        .filter(|(_, base, _, _)| *base == "CMakePackage")
        .map(|(name, base, doc, body)| {
            let recipe = parse_recipe(&recipe_text(name, base, doc, body), "package.py");
            let text = card_from_recipe(name, &recipe).render();
            (cosine(&query, &model.vector(&text)), *name)
        })
        .collect();
    expected.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let got: Vec<(&str, f64)> = result
        .matches
        .iter()
        .map(|m| (m.name.as_str(), m.score))
        .collect();
    assert_eq!(result.candidates, expected.len(), "cmake packages only");
    assert_eq!(got.len(), 3);
    for ((name, score), (want_score, want_name)) in got.iter().zip(&expected) {
        assert_eq!(name, want_name, "{got:?} vs {expected:?}");
        assert!(
            (score - want_score).abs() < 1e-5,
            "{name}: {score} vs {want_score}"
        );
    }
    // The package that shares most with the target comes first.
    assert_eq!(got[0].0, "netio");
    assert!(got.windows(2).all(|w| w[0].1 >= w[1].1));
    assert_eq!(result.matches[0].shared_deps, ["hdf5", "mpi", "netcdf-c"]);
    assert!(result.matches[0].why.contains("test:bow-64"));
}

#[test]
fn the_target_and_its_namesakes_are_excluded() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, db) = indexed(tmp.path());
    let model = BagOfWords::new("test:bow-64", 64, 1);
    embed_kb(&db, &model, &EmbedOptions::default(), &mut |_| {}).unwrap();
    let kb = KnowledgeBase::open(&db).unwrap();
    let retriever = EmbeddingRetriever::load(&kb, "test:bow-64").unwrap();
    // A card identical to alpha's: alpha would be its own best match.
    let recipe = parse_recipe(
        &recipe_text("alpha", PACKAGES[0].1, PACKAGES[0].2, PACKAGES[0].3),
        "package.py",
    );
    let card = card_from_recipe("alpha", &recipe);
    let mut o = opts(10);
    o.exclude = vec!["netio".into()];
    let result = retriever
        .retrieve(&model, &card, &o, Pieces::Cards)
        .unwrap();
    let names: Vec<&str> = result.matches.iter().map(|m| m.name.as_str()).collect();
    assert!(!names.contains(&"alpha"), "{names:?}");
    assert!(!names.contains(&"alpha-extras"), "{names:?}");
    assert!(!names.contains(&"netio"), "{names:?}");
    assert_eq!(names.len(), 2, "{names:?}"); // hdfview, hdf5
}

#[test]
fn models_are_kept_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, db) = indexed(tmp.path());
    let small = BagOfWords::new("test:bow-16", 16, 7);
    let large = BagOfWords::new("test:bow-256", 256, 3);
    embed_kb(&db, &small, &EmbedOptions::default(), &mut |_| {}).unwrap();
    let kb = KnowledgeBase::open(&db).unwrap();
    // Not embedded with this model yet: a clear error naming what is there.
    let err = EmbeddingRetriever::load(&kb, "test:bow-256").err().unwrap();
    assert!(matches!(err, EmbedError::NotEmbedded { .. }), "{err}");
    assert!(err.to_string().contains("test:bow-16"), "{err}");
    assert!(
        err.hint()
            .unwrap_or_default()
            .contains("packsmith kb embed --model"),
        "{:?}",
        err.hint()
    );
    drop(kb);

    // A second model adds its own rows; each retriever sees only its own.
    let report = embed_kb(&db, &large, &EmbedOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(
        report.embedded, 7,
        "the other model's vectors are not reused"
    );
    let kb = KnowledgeBase::open(&db).unwrap();
    let a = EmbeddingRetriever::load(&kb, "test:bow-16").unwrap();
    let b = EmbeddingRetriever::load(&kb, "test:bow-256").unwrap();
    assert_eq!((a.dims(), b.dims()), (16, 256));
    assert_eq!((a.packages(), b.packages()), (7, 7));
    // Querying with the wrong embedder is refused, not silently compared.
    let err = a
        .retrieve(&large, &target(), &opts(2), Pieces::Cards)
        .err()
        .unwrap();
    assert!(matches!(err, EmbedError::ModelMismatch { .. }), "{err}");
    let ok = b
        .retrieve(&large, &target(), &opts(2), Pieces::Cards)
        .unwrap();
    assert_eq!(ok.matches.len(), 2);
}

#[test]
fn embedding_is_incremental_and_follows_recipe_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, db) = indexed(tmp.path());
    let model = BagOfWords::new("test:bow-64", 64, 1);
    let all = EmbedOptions {
        chunks: ChunkScope::All,
        ..EmbedOptions::default()
    };
    let mut calls = 0;
    let first = embed_kb(&db, &model, &all, &mut |_| calls += 1).unwrap();
    assert!(calls >= 1);
    assert_eq!(first.embedded, first.chunks);
    assert_eq!(first.chunks_by_kind["card"], 7);
    assert_eq!(first.chunks_by_kind["build_args"], 2);
    assert_eq!(first.chunks_by_kind["method"], 1);
    assert_eq!(model.texts.load(Ordering::SeqCst), first.chunks);

    // Nothing changed: nothing embedded.
    let again = embed_kb(&db, &model, &all, &mut |_| {}).unwrap();
    assert_eq!((again.embedded, again.unchanged), (0, first.chunks));
    assert_eq!(model.texts.load(Ordering::SeqCst), first.chunks);

    // netio gains a dependency; hdfview's description changes only in a
    // version line (its card and chunks stay the same text).
    let (name, base, doc, body) = PACKAGES[3];
    let body = body.replace(
        "    depends_on(\"hdf5\")\n",
        "    depends_on(\"hdf5\")\n    depends_on(\"pnetcdf\")\n",
    );
    write_package(&repo, name, &recipe_text(name, base, doc, &body));
    let (name, base, doc, body) = PACKAGES[2];
    write_package(
        &repo,
        name,
        &recipe_text(name, base, doc, body).replace(
            "version(\"1.0\"",
            "version(\"1.1\", sha256=\"2\" * 64)\n    version(\"1.0\"",
        ),
    );
    index_repo(&repo, &tmp.path().join("cache"), &IndexOptions::default()).unwrap();

    // Before re-embedding, netio's changed vectors are stale and left out.
    {
        let kb = KnowledgeBase::open(&db).unwrap();
        let r = EmbeddingRetriever::load(&kb, "test:bow-64").unwrap();
        assert_eq!(r.packages(), 5, "netio and hdfview wait for `kb embed`");
        assert!(r.stale() > 0);
    }
    let before = model.texts.load(Ordering::SeqCst);
    let third = embed_kb(&db, &model, &all, &mut |_| {}).unwrap();
    // netio's card and dependency block changed; nothing else did.
    assert_eq!(third.embedded, 2, "{third:?}");
    assert_eq!(model.texts.load(Ordering::SeqCst) - before, 2);
    let kb = KnowledgeBase::open(&db).unwrap();
    let r = EmbeddingRetriever::load(&kb, "test:bow-64").unwrap();
    assert_eq!((r.packages(), r.stale()), (7, 0));
}

#[test]
fn chunks_can_win_for_a_package() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, db) = indexed(tmp.path());
    let model = BagOfWords::new("test:bow-64", 64, 1);
    let some = EmbedOptions {
        chunks: ChunkScope::Packages(["netio".to_string()].into_iter().collect()),
        ..EmbedOptions::default()
    };
    let report = embed_kb(&db, &model, &some, &mut |_| {}).unwrap();
    assert_eq!(report.chunked_packages, 1);
    assert_eq!(
        report.chunks,
        7 + 4,
        "netio: variants, dependencies, cmake_args, one method"
    );
    let kb = KnowledgeBase::open(&db).unwrap();
    let r = EmbeddingRetriever::load(&kb, "test:bow-64").unwrap();
    // A target that reads like netio's run environment method.
    let card = FeatureCard {
        name: "other".into(),
        description: Some("method setup_run_environment env set NETIO_HOME self prefix".into()),
        build_systems: vec!["cmake".into()],
        ..FeatureCard::default()
    };
    let cards = r.retrieve(&model, &card, &opts(1), Pieces::Cards).unwrap();
    let chunks = r
        .retrieve(&model, &card, &opts(1), Pieces::CardsAndChunks)
        .unwrap();
    assert_eq!(chunks.matches[0].name, "netio");
    assert!(
        chunks.matches[0].why.contains("method chunk"),
        "{}",
        chunks.matches[0].why
    );
    assert!(chunks.matches[0].score >= cards.matches[0].score);
}
