//! The Spack drafter: repository facts → a brief → a first `package.py`,
//! and a recipe a maintainer has → the edits that bring it to a new
//! upstream version. Pure functions over `RepoFacts` and the knowledge
//! crate's recipe model, names and knowledge base: nothing here runs a
//! process or calls a model.
//!
//! Modules:
//! - `brief/`: `build_brief` turns `RepoFacts` into a `SpackBrief`: base
//!   class, variants from options, dependencies with `if()` conditions
//!   translated to `when=` specs (only when every clause is an option made a
//!   variant; anything else is reported, never guessed), language virtuals,
//!   CMake constraint and defines, and `fixmes`. Submodules each own one
//!   judgement: `conditions` (`ConditionMap`), `downloads` (a configure-time
//!   download → a dependency plus FetchContent's offline switches),
//!   `install` (the `InstallPlan` of a build without install rules),
//!   `virtuals`, `own_name` (no dependency on the project itself),
//!   `platform` (options declared per platform take their Linux x86-64
//!   default), `gpu`, `library_kind` (`shared`, `pic`), `makefile`,
//!   `option_words` and `option_roles` (a test option follows
//!   `self.run_tests`; switches a maintainer sets once are pinned defines,
//!   not variants), `names` (variant names without the project's prefix),
//!   `render`. Every optional `find_package` it does not declare is switched
//!   off with `CMAKE_DISABLE_FIND_PACKAGE_<Name>`, so the host cannot fill
//!   it in.
//! - `draft/`: `render_recipe` and `render_recipe_with_names` turn a brief
//!   into a first `package.py` per generation: imports, metadata, versions,
//!   variants, dependencies, build-argument methods, `install` for a build
//!   without install rules. A missing fact becomes a `# FIXME:` line, never
//!   an invented checksum. With names, every dependency the knowledge base
//!   lacks is renamed or commented out with the closest known names.
//! - `update/`: a new upstream version into an existing recipe
//!   (`packsmith update`): `diff` compares two versions' facts and briefs
//!   with evidence on both sides, `plan` turns the changes into `EditOp`s
//!   (`when="@V:"` for what is new, `when="@:OLD"` closing what was
//!   dropped, a `version()` in Spack's order) and applies them one by one.
//! - `query`: what retrieval asks with, made from the brief: the `Target`
//!   of `similar:N` and the `FeatureCard` of `embedding:N`.

pub mod brief;
pub mod draft;
pub mod query;
pub mod update;
