//! Spack knowledge without starting Spack: read `package.py` recipes into a
//! typed model, parse spec strings, index a package repository into a
//! knowledge base and retrieve similar recipes from it, check a recipe
//! statically, edit it, and score generated recipes against human ones.
//! Turning facts into a brief and a draft is `packsmith-spack-draft`'s.
//! Nothing here runs a process or calls a model (embeddings come through
//! `packsmith_core::embed`).
//!
//! `packsmith check`, `kb` and `score` and the bench's scoring use nothing
//! but this crate and `packsmith-core` (`kb similar` and `kb embed` make
//! the target's query through the drafter's `query`).
//!
//! Modules:
//! - `pywalk` (private): the tree-sitter plumbing: parser, parse budget,
//!   positions, classes and their bases, `with` items. So `with when(...)`
//!   is found one way.
//! - `recipe/`: the one recipe model. `RecipeTree::parse` parses a
//!   `package.py` once: its text, its syntax tree, the `ParsedRecipe` read
//!   from it (both Spack generations, `with when()` and `default_args`
//!   blocks, class-level loops unrolled, CMake define keys) and, on first
//!   use, its `layout`: every class's bases, directive calls and methods
//!   with positions for diagnostics and byte spans for edits. The check,
//!   the edits and packsmith-spack's repairs all read it; `parse_recipe` is
//!   the model alone. Broken files are recovered statement by statement.
//!   `indent` reports the indentation errors tree-sitter's recovery lets
//!   pass, as Spack's loader refuses them. Inputs are bounded (size, line
//!   length, parse time).
//! - `spec/`: the spec grammar with byte offsets, Spack's version ordering,
//!   `satisfies` and `intersects`.
//! - `target` (which Spack a recipe is written for: `TargetSpack`) and
//!   `generation` (which generation an existing recipe was written for, from
//!   its `repo.yaml` or its imports).
//! - `spack1`: a 0.23 recipe in 1.x's idiom (`to_spack1`: build-system
//!   imports, language virtuals) and `add_maintainer`, for contributions,
//!   both as edits of the recipe's tree.
//! - `base_classes`: the one table of builtin base classes: module, implied
//!   `build_system`, parents, the dependencies each declares in 0.23 and 1.x,
//!   and `class_for_kind` for an analysed build system. Read by `check`,
//!   `kb`, `score` and the drafter.
//! - `mapping/`: upstream name → Spack name, from the curated
//!   `data/dependency-names.toml`, confirmed against a knowledge base
//!   through the `SpackNames` trait. `unknown` is the one fix for a name the
//!   knowledge base lacks. `providers` swaps a concrete provider for its
//!   virtual (`openblas` → `blas` + `lapack`), from the knowledge base and
//!   `data/virtual-providers.toml`. `library` maps a library file to a
//!   package.
//! - `check/`: the static check of a `RecipeTree`, with stable `PS…` codes
//!   (`codes`); one module per rule family over the tree's layout. What Spack refuses while loading a class has its
//!   own modules: `signatures` (PS801, PS802), `self_dependency` (PS403),
//!   `class_body` (PS803), `specs` (PS501), `variant_args`, `version_args`.
//!   Rules that reason about what is absent are skipped when the file has
//!   syntax errors. `markdown` also exports the model-output cleaner.
//! - `edit/`: structured edits of a `package.py`. `EditOp` is a serde-tagged
//!   enum of typed changes (dependencies, variants, `when=`, base class,
//!   CMake defines, configure arguments, `flag_handler`, `filter_file`, line
//!   replacements), read from a model's JSON by `parse_edit_list`. Seven
//!   more are packsmith's own (`OpKind::rule_only`: a whole method, a class
//!   attribute set or added, a checksum, dependencies commented out, lines
//!   at a directive anchor, the import block), for the rule repairs, the
//!   pinned-fetch restoration and `spack1`; never in a menu or schema.
//!   `apply_edits` (`apply_edits_to` on a parsed recipe) applies them at
//!   the byte spans of the tree's layout (`locate`: the package class's
//!   view); each edit applies or fails with a reason. `schema` is the
//!   JSON Schema of an edit list for a `Menu`, so a grammar-constrained
//!   model picks among offered values. `candidates` are the repairs by rule
//!   from the check's findings and from names a failed stage reports, best
//!   first; `menu_ops` the operations that fit a failure class.
//! - `kb/`: the SQLite knowledge base. `layout` finds `packages/` in any
//!   layout; `index` is incremental by file hash and writes into a copy that
//!   is renamed over the old database when complete; `query` (stats, show,
//!   search, `NameIndex`: the `SpackNames` of a knowledge base); `features`
//!   precomputes retrieval sets and IDF weights at index time.
//! - `retrieve`: reference recipes by none, random, same build system,
//!   SpackIt's affinity score, or weighted Jaccard; `RefsMode` parses
//!   `--refs`. The `Target` it asks with is made by the drafter's `query`.
//! - `imports`: the import block of a `package.py` for each generation.
//! - `embed/`: embedding retrieval. `card` and `chunks` are the texts
//!   embedded; `store` is the `embeddings` table beside the index, keyed by
//!   model id, package, chunk and text hash, so a second run embeds only
//!   what changed; `search` is cosine top-k. Vectors of different model ids
//!   are never mixed.
//! - `score/`: SpackIt's S_d and S_v, a semantic S_d, precision, and
//!   `fidelity` (dependency and variant recall and precision, also over each
//!   recipe's default configuration); `inherited` adds what base classes
//!   declare. `ScoreRecipe::from_recipe` is shared by `packsmith score` and
//!   the bench.
//! - `mutate/`: the repair benchmark's typed mutations of a real recipe, one
//!   per `MutationClass`, each with the stage Spack refuses it at
//!   (`PredictedStage`); `install` the classes only an install shows.

pub mod base_classes;
pub mod check;
pub mod edit;
pub mod embed;
pub mod generation;
pub mod imports;
pub mod kb;
pub mod mapping;
pub mod mutate;
pub mod pylayout;
pub mod pypi;
pub mod pystr;
mod pywalk;
pub mod recipe;
pub mod retrieve;
pub mod score;
pub mod spack1;
pub mod spec;
pub mod target;
