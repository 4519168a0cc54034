//! The state of one walk over a CMake tree: the walker (its variables,
//! conditions and the facts it records), a user function it may expand,
//! the site a fact is recorded at, and the queue of VTK-style module
//! directories still to enter. A leaf: `walk.rs` drives it, and the readers
//! of each command (`extract.rs`, `targets.rs`, `modules.rs`, …) record
//! through it without importing one another's files.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::parser::Node;
use super::vars::Vars;
use crate::context::Ctx;
use packsmith_core::{CmakeFacts, Evidence};

/// A user function or macro, kept so calls to it can be expanded.
pub(super) struct FuncDef {
    pub(super) name: String,
    pub(super) params: Vec<String>,
    pub(super) body: Rc<Vec<Node>>,
    /// The body (or a function it calls) declares facts worth expanding.
    pub(super) interesting: bool,
}

/// Where a fact is being recorded.
#[derive(Clone)]
pub struct Site {
    pub evidence: Evidence,
    pub conditions: Vec<String>,
}

pub struct Walker<'c, 'v> {
    pub ctx: &'c mut Ctx<'v>,
    pub facts: CmakeFacts,
    pub vars: Vars,
    pub conds: Vec<String>,
    /// `set_property(CACHE … STRINGS …)` seen, attached at the end.
    pub choices: Vec<(String, Vec<String>)>,
    /// The list file being walked.
    pub file: String,
    /// >0 while scanning a function or macro definition.
    pub in_def: usize,
    /// The outermost call site while expanding a user function.
    pub call_site: Option<Evidence>,
    pub(super) source_dir: String,
    pub(super) visited: HashSet<String>,
    pub(super) include_stack: Vec<String>,
    pub(super) functions: HashMap<String, Rc<FuncDef>>,
    pub(super) loops: Vec<(String, Vec<String>)>,
    pub(super) call_depth: usize,
    /// >0 while a `foreach` is walked once per item (see `unrolls`).
    pub(super) unrolling: usize,
    pub(super) expanded: usize,
    pub(super) unresolved_warnings: usize,
    pub(super) limit_warned: bool,
    /// Plain variables set only under `if(NOT DEFINED <name>)`: a default
    /// that `-D<name>=…` overrides.
    pub(super) defaults: HashSet<String>,
    /// Every value a variable may have where an `if` left it without a
    /// single one: the directories some configuration searches.
    pub(super) alternatives: HashMap<String, Vec<String>>,
    /// Values `file(GLOB)` gave: paths whose kind the build tests itself.
    pub(super) globbed: HashSet<String>,
    pub(super) glob_budget: usize,
    /// Module files of a VTK-style module system still to enter.
    pub(super) modules: ModuleQueue,
}

/// The module files seen and the directories entered.
#[derive(Default)]
pub struct ModuleQueue {
    /// Module files named but not yet entered, first seen first.
    pub(super) pending: Vec<String>,
    pub(super) queued: std::collections::HashSet<String>,
    /// The call that named the pending files: evidence when the build
    /// call itself is never seen.
    pub(super) named_at: Option<Evidence>,
    pub(super) entered: usize,
    pub(super) limit_warned: bool,
}
