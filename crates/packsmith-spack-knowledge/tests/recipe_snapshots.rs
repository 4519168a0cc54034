//! One JSON snapshot per fixture recipe under `tests/fixtures/recipes/`.

use packsmith_spack_knowledge::recipe::parse_recipe;

#[allow(clippy::expect_used)] // test helper, not a #[test] itself
fn snapshot(name: &str) {
    let path = format!(
        "{}/tests/fixtures/recipes/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let recipe = parse_recipe(&text, &format!("fixtures/recipes/{name}"));
    insta::assert_json_snapshot!(name, recipe);
}

macro_rules! fixtures {
    ($($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() { snapshot($file); })*
    };
}

fixtures! {
    v0_cmake_full => "v0-cmake-full.py",
    v1_cmake_full => "v1-cmake-full.py",
    with_when_blocks => "with-when-blocks.py",
    define_idioms => "define-idioms.py",
    broken_syntax => "broken-syntax.py",
    not_a_recipe => "not-a-recipe.py",
    derived_recipe => "derived-recipe.py",
}
