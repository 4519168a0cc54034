//! What retrieval asks with, made from the brief: the `Target` of
//! `similar:N` and the `FeatureCard` of `embedding:N`, so retrieval and the
//! draft see one package (the run's own brief, with its `--name`).

use packsmith_core::embed::Embedder;
use packsmith_core::RepoFacts;
use packsmith_spack_knowledge::embed::{EmbedError, EmbeddingRetriever, FeatureCard, Pieces};
use packsmith_spack_knowledge::kb::features::build_system_for_kind;
use packsmith_spack_knowledge::kb::KnowledgeBase;
use packsmith_spack_knowledge::mapping::SpackNames;
use packsmith_spack_knowledge::recipe::split_spec_head;
use packsmith_spack_knowledge::retrieve::{Retrieval, RetrieveOptions, Target};
use packsmith_spack_knowledge::target::TargetSpack;

use crate::brief::{build_brief, SpackBrief};

/// The names of the brief's dependencies, optional ones too, without
/// versions or conditions.
fn dependency_names(brief: &SpackBrief) -> impl Iterator<Item = String> + '_ {
    brief
        .dependencies
        .iter()
        .chain(&brief.optional_dependencies)
        .map(|d| split_spec_head(&d.spec).0)
        .filter(|n| !n.is_empty())
}

/// The retrieval target of a brief: dependency names mapped to Spack,
/// options as Spack variant names.
pub fn retrieval_target(brief: &SpackBrief, facts: &RepoFacts) -> Target {
    Target {
        name: brief.package.clone(),
        build_system: facts
            .primary_build_system
            .map(|k| build_system_for_kind(k).to_string()),
        deps: dependency_names(brief).collect(),
        opts: brief
            .variants
            .iter()
            .map(|v| v.name.to_ascii_lowercase())
            .collect(),
    }
}

/// The retrieval target of `analyze` facts, through the deterministic brief.
pub fn retrieval_target_of_facts(
    facts: &RepoFacts,
    names: &dyn SpackNames,
    spack: TargetSpack,
) -> Target {
    retrieval_target(&build_brief(facts, spack, names), facts)
}

/// The feature card of a brief.
pub fn feature_card(brief: &SpackBrief) -> FeatureCard {
    FeatureCard {
        name: brief.package.clone(),
        description: brief.description.clone(),
        build_systems: brief
            .build_system
            .map(|k| vec![build_system_for_kind(k).to_string()])
            .unwrap_or_default(),
        variants: brief.variants.iter().map(|v| v.name.clone()).collect(),
        dependencies: dependency_names(brief).collect(),
        defines: brief.defines.iter().map(|d| d.key.clone()).collect(),
    }
    .normalized()
}

/// The feature card of `analyze` facts, through the deterministic brief.
pub fn feature_card_of_facts(
    facts: &RepoFacts,
    names: &dyn SpackNames,
    spack: TargetSpack,
) -> FeatureCard {
    feature_card(&build_brief(facts, spack, names))
}

/// `--refs embedding:N` in one call: the brief's feature card against the
/// cards of `kb` embedded with `embedder`'s model (loaded for this call;
/// keep an [`EmbeddingRetriever`] to query many targets).
pub fn retrieve_by_embedding(
    kb: &KnowledgeBase,
    embedder: &dyn Embedder,
    brief: &SpackBrief,
    opts: &RetrieveOptions,
) -> Result<Retrieval, EmbedError> {
    EmbeddingRetriever::load(kb, &embedder.model_id())?.retrieve(
        embedder,
        &feature_card(brief),
        opts,
        Pieces::Cards,
    )
}
