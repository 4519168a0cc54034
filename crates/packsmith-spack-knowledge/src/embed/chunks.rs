//! Structure-aware pieces of a recipe, each embedded on its own: the
//! variant block, the dependency block, the build-argument methods
//! (`cmake_args`, `configure_args`, `meson_args`) and the other methods.
//! Each piece starts with the package name and what it is, so a vector
//! still says whose piece it is.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::card::{squash, FeatureCard};
use crate::kb::features::{build_systems, feature_sets};
use crate::recipe::{ParsedRecipe, VariantValues};

/// Longest chunk text (characters). MiniLM reads 256–512 word pieces;
/// longer texts are cut by the embedder anyway, this keeps hashing and
/// storage of the cut-off tail from mattering.
pub const MAX_CHUNK_CHARS: usize = 1500;
/// Most methods embedded per recipe (build-argument methods come first).
pub const MAX_METHODS: usize = 10;

/// Methods that turn variants into build-system arguments.
const BUILD_ARG_METHODS: &[&str] = &["cmake_args", "configure_args", "meson_args"];

/// What a chunk holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKind {
    /// The package's feature card.
    Card,
    Variants,
    Dependencies,
    /// `cmake_args` / `configure_args` / `meson_args`.
    BuildArgs,
    /// Any other method.
    Method,
}

impl ChunkKind {
    pub const ALL: [ChunkKind; 5] = [
        Self::Card,
        Self::Variants,
        Self::Dependencies,
        Self::BuildArgs,
        Self::Method,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Card => "card",
            Self::Variants => "variants",
            Self::Dependencies => "dependencies",
            Self::BuildArgs => "build_args",
            Self::Method => "method",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// One embeddable piece of a package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub package: String,
    pub kind: ChunkKind,
    /// Distinguishes pieces of one kind (`CMakeBuilder.cmake_args`).
    pub label: String,
    pub text: String,
}

impl Chunk {
    fn new(package: &str, kind: ChunkKind, label: impl Into<String>, text: String) -> Self {
        let text = if text.chars().count() > MAX_CHUNK_CHARS {
            text.chars().take(MAX_CHUNK_CHARS).collect()
        } else {
            text
        };
        Chunk {
            package: package.to_string(),
            kind,
            label: label.into(),
            text,
        }
    }

    /// The chunk's card (kind [`ChunkKind::Card`]).
    pub fn card(card: &FeatureCard) -> Self {
        Self::new(&card.name, ChunkKind::Card, "card", card.render())
    }

    /// SHA-256 of the text (hex): the key that makes embedding incremental.
    pub fn text_hash(&self) -> String {
        text_hash(&self.text)
    }
}

/// SHA-256 of `text`, hex.
pub fn text_hash(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The card of an indexed recipe, the same as the knowledge base's rows
/// give (see `store::load_cards`).
pub fn card_from_recipe(package: &str, recipe: &ParsedRecipe) -> FeatureCard {
    FeatureCard {
        name: package.to_string(),
        description: recipe.docstring.clone(),
        build_systems: build_systems(recipe),
        variants: recipe.variants.iter().map(|v| v.name.clone()).collect(),
        dependencies: feature_sets(recipe).deps.into_iter().collect(),
        defines: recipe
            .define_key_names()
            .into_iter()
            .map(str::to_string)
            .collect(),
    }
    .normalized()
}

/// The recipe's pieces other than the card, in a fixed order.
pub fn recipe_chunks(package: &str, recipe: &ParsedRecipe, source: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    if !recipe.variants.is_empty() {
        let mut text = format!("package {package} variants:");
        for v in &recipe.variants {
            text.push_str(&format!("\n{}", v.name));
            if let Some(d) = &v.default_source {
                text.push_str(&format!(" default={d}"));
            }
            match &v.values {
                Some(VariantValues::Items(items)) => {
                    let items: Vec<String> = items.iter().map(|i| i.to_text()).collect();
                    text.push_str(&format!(" values=({})", items.join(", ")));
                }
                Some(VariantValues::Expr(e)) => text.push_str(&format!(" values={e}")),
                None => {}
            }
            if let Some(w) = &v.when {
                text.push_str(&format!(" when {w}"));
            }
            if let Some(d) = &v.description {
                text.push_str(&format!(": {}", squash(d, 120)));
            }
        }
        out.push(Chunk::new(package, ChunkKind::Variants, "variants", text));
    }
    if !recipe.dependencies.is_empty() {
        let mut text = format!("package {package} dependencies:");
        for d in &recipe.dependencies {
            text.push_str(&format!("\n{}", d.spec));
            if !d.types.is_empty() {
                text.push_str(&format!(" type={}", d.types.join(",")));
            }
            if let Some(w) = &d.when {
                text.push_str(&format!(" when {w}"));
            }
        }
        out.push(Chunk::new(
            package,
            ChunkKind::Dependencies,
            "dependencies",
            text,
        ));
    }
    // Build-argument methods first, then the others in file order.
    let mut methods: Vec<&crate::recipe::Method> = recipe.methods.iter().collect();
    methods.sort_by_key(|m| (!BUILD_ARG_METHODS.contains(&m.name.as_str()), m.line));
    for m in methods.into_iter().take(MAX_METHODS) {
        let body = method_source(source, m.line);
        if body.trim().is_empty() {
            continue;
        }
        let kind = if BUILD_ARG_METHODS.contains(&m.name.as_str()) {
            ChunkKind::BuildArgs
        } else {
            ChunkKind::Method
        };
        // A method defined more than once (Spack's `@when` multimethods)
        // gets `#2`, `#3`: labels key the stored vectors.
        let base = format!("{}.{}", m.class, m.name);
        let mut label = base.clone();
        let mut n = 1;
        while out.iter().any(|c| c.label == label) {
            n += 1;
            label = format!("{base}#{n}");
        }
        let text = format!("package {package} method {}:\n{body}", m.name);
        out.push(Chunk::new(package, kind, label, text));
    }
    out
}

/// The source of the `def` at 1-based `line`: that line and every
/// following line indented deeper (blank lines included), trailing blank
/// lines dropped. Python's layout is the method's extent.
pub fn method_source(source: &str, line: u32) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let Some(start) = (line as usize).checked_sub(1).filter(|&i| i < lines.len()) else {
        return String::new();
    };
    let indent = |l: &str| l.len() - l.trim_start().len();
    let base = indent(lines[start]);
    let mut end = start + 1;
    // The signature may span lines; its continuation is inside brackets and
    // may sit at any indentation, so skip to the line ending with `:`.
    let mut depth: i32 = 0;
    let mut i = start;
    while i < lines.len() {
        for c in lines[i].chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
        if depth <= 0 {
            break;
        }
        i += 1;
    }
    end = end.max(i + 1);
    while end < lines.len() {
        let l = lines[end];
        if !l.trim().is_empty() && indent(l) <= base {
            break;
        }
        end += 1;
    }
    while end > start + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let body: Vec<&str> = lines[start..end.min(lines.len())]
        .iter()
        .map(|l| l.get(base..).unwrap_or(l.trim_start()))
        .collect();
    body.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::parse_recipe;

    const RECIPE: &str = r#"from spack.package import *


class Demo(CMakePackage):
    """A demo library."""

    homepage = "https://example.org"

    variant("shared", default=True, description="Build shared libraries")
    variant("mpi", default=False, description="Use MPI")

    depends_on("cmake@3.18:", type="build")
    depends_on("mpi", when="+mpi")

    def cmake_args(
        self,
    ):
        args = [
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
        ]

        args.append(self.define("DEMO_MPI", self.spec.satisfies("+mpi")))
        return args

    @run_after("install")
    def check_install(self):
        pass

    @when("@2:")
    def check_install(self):
        print("newer")

    def setup_run_environment(self, env):
        env.set("DEMO_HOME", self.prefix)
"#;

    #[test]
    fn chunks_follow_the_recipe_structure() {
        let recipe = parse_recipe(RECIPE, "package.py");
        let chunks = recipe_chunks("demo", &recipe, RECIPE);
        let kinds: Vec<(ChunkKind, &str)> =
            chunks.iter().map(|c| (c.kind, c.label.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (ChunkKind::Variants, "variants"),
                (ChunkKind::Dependencies, "dependencies"),
                (ChunkKind::BuildArgs, "Demo.cmake_args"),
                (ChunkKind::Method, "Demo.check_install"),
                (ChunkKind::Method, "Demo.check_install#2"),
                (ChunkKind::Method, "Demo.setup_run_environment"),
            ]
        );
        assert!(chunks[0]
            .text
            .contains("shared default=True: Build shared libraries"));
        assert!(chunks[1].text.contains("mpi when +mpi"));
        let args = &chunks[2].text;
        assert!(
            args.contains("DEMO_MPI") && args.ends_with("return args"),
            "{args}"
        );
        assert!(!args.contains("check_install"), "{args}");
        assert!(chunks[4].text.contains("print(\"newer\")"));
        assert!(chunks[5].text.contains("env.set(\"DEMO_HOME\""));
    }

    #[test]
    fn recipe_cards_list_what_the_recipe_has() {
        let recipe = parse_recipe(RECIPE, "package.py");
        let card = card_from_recipe("demo", &recipe);
        assert_eq!(card.build_systems, vec!["cmake"]);
        assert_eq!(card.variants, vec!["mpi", "shared"]);
        assert_eq!(card.dependencies, vec!["cmake", "mpi"]);
        assert_eq!(card.defines, vec!["BUILD_SHARED_LIBS", "DEMO_MPI"]);
        assert_eq!(card.description.as_deref(), Some("A demo library."));
    }

    #[test]
    fn method_source_stops_at_the_next_definition() {
        let src = "class A:\n    def f(self):\n        x = 1\n\n        return x\n\n    def g(self):\n        pass\n";
        assert_eq!(
            method_source(src, 2),
            "def f(self):\n    x = 1\n\n    return x"
        );
        assert_eq!(method_source(src, 7), "def g(self):\n    pass");
        assert_eq!(method_source(src, 99), "");
    }
}
