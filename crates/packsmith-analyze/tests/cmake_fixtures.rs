//! Snapshot tests of the CMake reader over small fixture repositories, plus
//! an ignored helper that prints the CMake facts of any checkout:
//! `CMAKE_DUMP=/path/to/repo cargo test -p packsmith-analyze --test all cmake_fixtures::dump_cmake_facts -- --ignored --nocapture`

fixture_snapshots!(
    cmake_nested_conditions,
    cmake_included_options,
    cmake_python_bindings,
    cmake_fetchcontent,
    cmake_bad_input,
);

#[test]
#[ignore = "prints the CMake facts of $CMAKE_DUMP; for checking real projects by hand"]
fn dump_cmake_facts() {
    let Ok(path) = std::env::var("CMAKE_DUMP") else {
        println!("SKIPPED: set CMAKE_DUMP to a repository path");
        return;
    };
    let start = std::time::Instant::now();
    let facts = packsmith_analyze::analyze_dir(
        std::path::Path::new(&path),
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: path.clone(),
            release_tag: None,
        },
    )
    .expect("analyze");
    let elapsed = start.elapsed();
    // The CMake reader alone, on an already walked tree.
    let mut warnings = Vec::new();
    let view = packsmith_analyze::RepoView::walk(std::path::Path::new(&path), &mut warnings);
    let mut ctx = packsmith_analyze::Ctx::new(&view);
    let cmake_start = std::time::Instant::now();
    let cmake = packsmith_analyze::cmake::analyze(&mut ctx);
    let cmake_elapsed = cmake_start.elapsed();
    eprintln!(
        "cmake reader: {cmake_elapsed:?} for {} files ({} indexed in the tree)",
        cmake.map_or(0, |c| c.files.len()),
        view.files().len()
    );
    let out = serde_json::json!({
        "cmake": facts.cmake,
        "languages": facts.languages,
        "features": facts.features,
        "downloads": facts.downloads,
        "warnings": facts.warnings,
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("json"));
    eprintln!("analysed {path} in {elapsed:?}");
}
