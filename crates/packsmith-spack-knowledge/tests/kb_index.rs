#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The knowledge base on a small fixture repository: index, incremental
//! re-index, atomicity, stats/show/search, names, retrieval.

use packsmith_core::Hint;
use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::kb::{index_repo, IndexOptions, KbError, KnowledgeBase, TagList};
use packsmith_spack_knowledge::mapping::{Known, SpackNames};
use packsmith_spack_knowledge::retrieve::{RetrieveOptions, Retriever, Strategy, Target};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kb-repo")
}

/// A writable copy of the fixture repository.
fn copy_repo(to: &Path) -> PathBuf {
    let repo = to.join("repo");
    for entry in std::fs::read_dir(fixture().join("packages")).unwrap() {
        let dir = entry.unwrap().path();
        let dest = repo.join("packages").join(dir.file_name().unwrap());
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::copy(dir.join("package.py"), dest.join("package.py")).unwrap();
    }
    std::fs::copy(fixture().join("repo.yaml"), repo.join("repo.yaml")).unwrap();
    repo
}

#[test]
fn index_stats_show_search_names() {
    let cache = tempfile::tempdir().unwrap();
    let report = index_repo(&fixture(), cache.path(), &IndexOptions::default()).unwrap();
    assert_eq!((report.packages, report.parsed), (7, 7));
    let kb = KnowledgeBase::select(cache.path(), None).unwrap();
    assert_eq!(kb.meta("namespace").as_deref(), Some("fixture"));
    let stats = kb.stats().unwrap();
    assert_eq!(stats.packages, 7);
    assert_eq!(stats.top_virtuals[0], ("mpi".to_string(), 2));
    assert!(stats.build_systems.contains(&("cmake".to_string(), 3)));
    assert_eq!(kb.providers("mpi").unwrap(), ["mpich-lite", "openmpi-lite"]);

    let alpha = kb.show("alpha").unwrap().unwrap();
    assert_eq!(alpha.class.as_deref(), Some("Alpha"));
    assert_eq!(alpha.versions.len(), 2);
    assert!(alpha.versions[0].preferred && alpha.versions[1].deprecated);
    assert_eq!(alpha.define_keys, ["ALPHA_MPI", "ALPHA_TESTS"]);
    assert_eq!(alpha.tags, ["solver"]);
    assert!(kb.show("nope").unwrap().is_none());

    let hits = kb.search("alpha", 10).unwrap();
    assert_eq!(hits[0].name, "alpha");
    assert_eq!(hits[1].name, "alpha-extras");
    let hits = kb.search("sparse", 10).unwrap();
    let names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["alpha", "beta-tools"]);

    let names = kb.names().unwrap();
    assert_eq!(names.lookup("mpi"), Known::Virtual);
    assert_eq!(names.lookup("zlib"), Known::Package);
    assert_eq!(names.lookup("hdf5"), Known::Unknown);
    assert_eq!(names.did_you_mean("zlibb").as_deref(), Some("zlib"));
}

#[test]
fn reindex_is_incremental() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = copy_repo(tmp.path());
    let cache = tmp.path().join("cache");
    index_repo(&repo, &cache, &IndexOptions::default()).unwrap();
    let again = index_repo(&repo, &cache, &IndexOptions::default()).unwrap();
    assert_eq!((again.parsed, again.unchanged, again.removed), (0, 7, 0));

    let zlib = repo.join("packages/zlib/package.py");
    let text = std::fs::read_to_string(&zlib).unwrap();
    std::fs::write(
        &zlib,
        text.replace(
            "version(\"1.3\"",
            "version(\"1.4\", sha256=\"8\" * 64)\n    version(\"1.3\"",
        ),
    )
    .unwrap();
    std::fs::remove_dir_all(repo.join("packages/beta-tools")).unwrap();
    let changed = index_repo(&repo, &cache, &IndexOptions::default()).unwrap();
    assert_eq!(
        (changed.parsed, changed.unchanged, changed.removed),
        (1, 5, 1)
    );
    let kb = KnowledgeBase::select(&cache, None).unwrap();
    assert_eq!(kb.show("zlib").unwrap().unwrap().versions.len(), 2);
    assert!(kb.show("beta-tools").unwrap().is_none());
    assert_eq!(kb.stats().unwrap().packages, 6);
}

#[test]
fn an_interrupted_index_leaves_the_previous_database() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = copy_repo(tmp.path());
    let cache = tmp.path().join("cache");
    let first = index_repo(&repo, &cache, &IndexOptions::default()).unwrap();
    let zlib = repo.join("packages/zlib/package.py");
    let text = std::fs::read_to_string(&zlib).unwrap();
    std::fs::write(&zlib, text.replace("1.3", "9.9")).unwrap();
    let failing = IndexOptions {
        fail_after: Some(0),
        ..IndexOptions::default()
    };
    let err = index_repo(&repo, &cache, &failing).unwrap_err();
    assert!(matches!(err, KbError::Injected { .. }));
    // The old database is intact and no temporary file is left behind.
    let kb = KnowledgeBase::open(&first.db).unwrap();
    assert_eq!(kb.show("zlib").unwrap().unwrap().versions[0].version, "1.3");
    let files: Vec<_> = std::fs::read_dir(cache.join("kb")).unwrap().collect();
    assert_eq!(files.len(), 1);
    // The next run picks the change up.
    let next = index_repo(&repo, &cache, &IndexOptions::default()).unwrap();
    assert_eq!(next.parsed, 1);
}

#[test]
fn tag_lists_tag_packages() {
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("e4s.jsonl");
    std::fs::write(
        &list,
        "{\"name\": \"alpha\", \"x\": 1}\n{\"name\": \"ghost\"}\n",
    )
    .unwrap();
    let opts = IndexOptions {
        tag_list: Some(TagList {
            path: list,
            tag: "e4s".to_string(),
        }),
        ..IndexOptions::default()
    };
    let report = index_repo(&fixture(), tmp.path(), &opts).unwrap();
    assert_eq!(
        (report.tagged, report.tag_missing.clone()),
        (1, vec!["ghost".to_string()])
    );
    let kb = KnowledgeBase::select(tmp.path(), None).unwrap();
    assert_eq!(kb.show("alpha").unwrap().unwrap().tags, ["e4s", "solver"]);
}

#[test]
fn bad_databases_are_reported_not_panicked() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = KnowledgeBase::open(&tmp.path().join("none.sqlite"));
    assert!(matches!(missing, Err(KbError::NotFound { .. })));
    let junk = tmp.path().join("junk.sqlite");
    std::fs::write(
        &junk,
        b"this is not a database, just junk bytes that go on for a while",
    )
    .unwrap();
    let err = KnowledgeBase::open(&junk).err().unwrap();
    assert!(matches!(err, KbError::Corrupt { .. }), "{err:?}");
    assert!(err
        .hint()
        .unwrap_or_default()
        .contains("packsmith kb index"));
    assert!(matches!(
        KnowledgeBase::select(tmp.path(), None),
        Err(KbError::NoneIndexed { .. })
    ));
    assert!(matches!(
        index_repo(
            &tmp.path().join("nowhere"),
            tmp.path(),
            &IndexOptions::default()
        ),
        Err(KbError::NoRepo { .. })
    ));
}

fn target(deps: &[&str], opts: &[&str]) -> Target {
    Target {
        name: "alpha".to_string(),
        build_system: Some("cmake".to_string()),
        deps: deps.iter().map(|s| s.to_string()).collect(),
        opts: opts.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn similar_is_deterministic_and_excludes_the_target() {
    let cache = tempfile::tempdir().unwrap();
    index_repo(&fixture(), cache.path(), &IndexOptions::default()).unwrap();
    let kb = KnowledgeBase::select(cache.path(), None).unwrap();
    let r = Retriever::load(&kb).unwrap();
    let t = target(&["mpi", "zlib"], &["mpi", "fortran"]);
    let opts = |strategy| RetrieveOptions {
        strategy,
        n: 3,
        seed: 1,
        exclude: Vec::new(),
    };
    let res = r.retrieve(&t, &opts(Strategy::Similar)).unwrap();
    let names: Vec<&str> = res.matches.iter().map(|m| m.name.as_str()).collect();
    // alpha and alpha-extras are excluded (name, substring); beta-tools is
    // autotools; mpich-lite shares zlib and fortran.
    assert_eq!(names, ["mpich-lite"]);
    assert_eq!(res.matches[0].shared_deps, ["zlib"]);
    assert_eq!(res.matches[0].shared_opts, ["fortran"]);
    assert!((res.matches[0].score - 1.0).abs() < 1e-9);
    let again = r.retrieve(&t, &opts(Strategy::Similar)).unwrap();
    assert_eq!(res.matches, again.matches);

    let mut other = t.clone();
    other.name = "gamma".to_string();
    let res = r.retrieve(&other, &opts(Strategy::Similar)).unwrap();
    let names: Vec<&str> = res.matches.iter().map(|m| m.name.as_str()).collect();
    // Ties (alpha-extras, alpha: 0.6·2+0.4·1 = 1.6) broken by name.
    assert_eq!(names, ["alpha", "alpha-extras", "mpich-lite"]);
    let normalized = r
        .retrieve(&other, &opts(Strategy::SimilarNormalized))
        .unwrap();
    assert!(normalized
        .matches
        .iter()
        .all(|m| m.score > 0.0 && m.score <= 1.0));
    let excluded = RetrieveOptions {
        exclude: vec!["alpha".to_string()],
        ..opts(Strategy::Similar)
    };
    let res = r.retrieve(&other, &excluded).unwrap();
    assert!(res.matches.iter().all(|m| m.name != "alpha"));

    let a = r.retrieve(&other, &opts(Strategy::Random)).unwrap();
    let b = r.retrieve(&other, &opts(Strategy::Random)).unwrap();
    assert_eq!(a.matches, b.matches);
    let same = r
        .retrieve(&other, &opts(Strategy::RandomSameBuildSystem))
        .unwrap();
    assert_eq!(same.candidates, 3);
    assert!(r
        .retrieve(&other, &opts(Strategy::None))
        .unwrap()
        .matches
        .is_empty());
}

#[test]
fn candidates_for_a_name_no_rule_maps_say_why_each_is_one() {
    use packsmith_spack_knowledge::kb::candidates::name_candidates;
    use packsmith_spack_knowledge::mapping::NameSource;
    let cache = tempfile::tempdir().unwrap();
    index_repo(&fixture(), cache.path(), &IndexOptions::default()).unwrap();
    let kb = KnowledgeBase::select(cache.path(), None).unwrap();
    let names = kb.names().unwrap();
    let found = name_candidates("MPICH", NameSource::Cmake, &names, &kb).unwrap();
    let mpich = found
        .iter()
        .find(|c| c.name == "mpich-lite")
        .expect("mpich-lite");
    assert_eq!(mpich.why, "name contains `mpich`");
    assert!(mpich.description.as_deref().unwrap().contains("MPI"));
    let zlib = name_candidates("libzlib >= 1.2", NameSource::Pkgconfig, &names, &kb).unwrap();
    assert_eq!(zlib[0].name, "zlib");
    assert!(
        name_candidates("Qwertyuiop", NameSource::Cmake, &names, &kb)
            .unwrap()
            .is_empty()
    );
}
