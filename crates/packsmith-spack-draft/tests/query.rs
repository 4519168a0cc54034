//! What retrieval asks with: a brief made into the `similar:N` target and
//! the `embedding:N` card, and retrieval by embedding in one call, over the
//! knowledge crate's small test repository.

use std::path::Path;

use packsmith_core::embed::{Embedder, EmbeddingError};
use packsmith_spack_draft::brief::build_brief;
use packsmith_spack_draft::query::{feature_card, retrieval_target, retrieve_by_embedding};
use packsmith_spack_knowledge::embed::{embed_kb, EmbedOptions};
use packsmith_spack_knowledge::kb::{index_repo, IndexOptions, KnowledgeBase};
use packsmith_spack_knowledge::retrieve::{RetrieveOptions, Strategy};
use packsmith_spack_knowledge::target::TargetSpack;

/// Letter counts: enough for cosine to rank, and the same every run.
struct Letters;

impl Embedder for Letters {
    fn model_id(&self) -> String {
        "test:letters".into()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; 26];
                for b in t
                    .to_ascii_lowercase()
                    .bytes()
                    .filter(u8::is_ascii_lowercase)
                {
                    v[usize::from(b - b'a')] += 1.0;
                }
                v
            })
            .collect())
    }
}

#[test]
fn a_brief_is_a_target_a_card_and_a_retrieval_in_one_call() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../packsmith-spack-knowledge/tests/fixtures/kb-repo");
    let db = index_repo(&repo, tmp.path(), &IndexOptions::default())
        .unwrap()
        .db;
    embed_kb(&db, &Letters, &EmbedOptions::default(), &mut |_| {}).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/heatsim");
    let facts = packsmith_analyze::analyze_dir(
        &root,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: root.display().to_string(),
            release_tag: None,
        },
    )
    .unwrap();
    let kb = KnowledgeBase::open(&db).unwrap();
    let brief = build_brief(&facts, TargetSpack::V0_23, &kb.names().unwrap());

    let target = retrieval_target(&brief, &facts);
    assert_eq!(target.name, brief.package);
    assert_eq!(target.build_system.as_deref(), Some("cmake"));
    assert!(target.deps.contains("mpi"), "{target:?}");

    let card = feature_card(&brief);
    assert_eq!(card.name, brief.package);
    assert_eq!(card.build_systems, ["cmake"]);
    assert!(card
        .render()
        .starts_with(&format!("package {}", brief.package)));

    let opts = RetrieveOptions {
        strategy: Strategy::Embedding,
        n: 2,
        seed: 0,
        exclude: Vec::new(),
    };
    let result = retrieve_by_embedding(&kb, &Letters, &brief, &opts).unwrap();
    assert_eq!(result.target.name, brief.package);
    assert!(result.candidates >= 1, "{result:?}");
    assert!(
        !result.matches.is_empty() && result.matches.len() <= 2,
        "{result:?}"
    );
}
