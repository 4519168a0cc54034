//! Realistic breakage for a repair benchmark: one typed mutation turns a
//! human-written `package.py` into a broken one whose fix is the original.
//! Each class predicts the stage at which Spack 0.23 refuses the result;
//! other code checks that with real Spack and keeps only the mutants that
//! fail where predicted. Nothing here runs a process.

mod classes;
mod edit;
mod install;
mod names;
mod span;
mod valid;
mod variants;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::recipe::parse_recipe;

/// The kinds of mistake, named after what a person gets wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MutationClass {
    /// A literal `depends_on` name respelt so Spack does not know it
    /// (`-`/`_` swapped, upstream capitalisation, `lib` prefix).
    WrongDependencyName,
    /// A `variant(...)` removed while conditions still name it.
    UndeclaredVariant,
    /// A string default moved outside the variant's literal `values=`.
    BadVariantDefault,
    /// `from spack.package import *` removed (Spack 0.23 adds it back
    /// itself; see [`MutationClass::predicted_stage`]).
    MissingImport,
    /// The build-system base class misspelt in the class header.
    WrongBaseClass,
    /// A `when="+v"` given the opposite clause too (`+v ~v`).
    NeverWhen,
    /// `depends_on("<the package itself>")` added.
    SelfDependency,
    /// `type=` written `types=` (or `description=` written `desc=`).
    UnknownDirectiveKeyword,
    /// A string variant default replaced by `""`.
    EmptyStringDefault,
    /// A dependency type misspelt (`"buid"`, `"lnk"`, `"rn"`, `"tst"`).
    InvalidDependencyType,
    /// An unconditional link or run `depends_on` removed: configure or the
    /// build fails, or the hermeticity check finds the host's copy.
    RemovedDependency,
    /// A fixed CMake define of `cmake_args` removed: upstream's default
    /// comes back (a download, a test suite, a missing package).
    RemovedDefine,
    /// A test switch tied to `self.run_tests` set on for good.
    TestsOn,
}

/// When Spack 0.23 refuses the mutant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PredictedStage {
    /// Importing the recipe (the class body and its directives run).
    Load,
    /// `spack audit packages`: the recipe loads, its directives are wrong.
    Audit,
    /// `spack spec` of the package.
    Concretize,
    /// `spack install` of the local source, or the hermeticity check of
    /// the installed prefix.
    Install,
}

impl MutationClass {
    pub const ALL: &'static [MutationClass] = &[
        MutationClass::WrongDependencyName,
        MutationClass::UndeclaredVariant,
        MutationClass::BadVariantDefault,
        MutationClass::MissingImport,
        MutationClass::WrongBaseClass,
        MutationClass::NeverWhen,
        MutationClass::SelfDependency,
        MutationClass::UnknownDirectiveKeyword,
        MutationClass::EmptyStringDefault,
        MutationClass::InvalidDependencyType,
    ];

    /// The classes only an install shows: each needs the package's source
    /// offline, and an install per verdict.
    pub const INSTALL: &'static [MutationClass] = &[
        MutationClass::RemovedDependency,
        MutationClass::RemovedDefine,
        MutationClass::TestsOn,
    ];

    /// The serde name.
    pub fn slug(self) -> &'static str {
        match self {
            MutationClass::WrongDependencyName => "wrong_dependency_name",
            MutationClass::UndeclaredVariant => "undeclared_variant",
            MutationClass::BadVariantDefault => "bad_variant_default",
            MutationClass::MissingImport => "missing_import",
            MutationClass::WrongBaseClass => "wrong_base_class",
            MutationClass::NeverWhen => "never_when",
            MutationClass::SelfDependency => "self_dependency",
            MutationClass::UnknownDirectiveKeyword => "unknown_directive_keyword",
            MutationClass::EmptyStringDefault => "empty_string_default",
            MutationClass::InvalidDependencyType => "invalid_dependency_type",
            MutationClass::RemovedDependency => "removed_dependency",
            MutationClass::RemovedDefine => "removed_define",
            MutationClass::TestsOn => "tests_on",
        }
    }

    pub fn from_slug(s: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .chain(Self::INSTALL)
            .copied()
            .find(|c| c.slug() == s)
    }

    /// The first stage of load, audit, concretize at which Spack 0.23
    /// refuses the mutant. Measured by loading and auditing the mutants of
    /// 60 builtin recipes in a 0.23 checkout: every load-stage class was
    /// refused at load; wrong dependency names, undeclared variants and
    /// bad defaults load but `spack audit packages` refuses them (names and
    /// variants would also fail to concretize; a bad default would not:
    /// the solver picks another value). `MissingImport` is never refused:
    /// 0.23's repository loader prepends `from spack.package import *` to
    /// every recipe, so the stage check drops those mutants.
    pub fn predicted_stage(self) -> PredictedStage {
        match self {
            MutationClass::WrongDependencyName
            | MutationClass::UndeclaredVariant
            | MutationClass::BadVariantDefault => PredictedStage::Audit,
            MutationClass::RemovedDependency
            | MutationClass::RemovedDefine
            | MutationClass::TestsOn => PredictedStage::Install,
            _ => PredictedStage::Load,
        }
    }
}

impl std::fmt::Display for MutationClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.slug())
    }
}

/// A broken recipe and what was broken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    pub class: MutationClass,
    /// The broken recipe.
    pub text: String,
    /// One line: what was changed.
    pub description: String,
    /// 1-based line of the change (of the new line for an insertion, of the
    /// removed statement's first line for a removal).
    pub line: u32,
}

/// Breaks `source` by one mutation of `class`. `package` is the Spack name
/// of the recipe's package; `known(name)` says whether Spack knows a
/// package or virtual of that name.
///
/// `choice` picks among the candidate places deterministically
/// (candidate index = `choice % count`, in source order), so a seeded run is
/// reproducible; should that candidate's result not be valid Python (e.g.
/// removing the only statement of a block), the next one is taken,
/// cyclically.
/// `None` when the recipe does not parse cleanly, defines no package class,
/// or has no place for `class`.
pub fn mutate(
    source: &str,
    package: &str,
    class: MutationClass,
    known: &dyn Fn(&str) -> bool,
    choice: u64,
) -> Option<Mutant> {
    let recipe = parse_recipe(source, "package.py");
    if !recipe.syntax_errors.is_empty() || !recipe.is_spack_recipe() {
        return None;
    }
    let ctx = edit::Ctx {
        source,
        recipe: &recipe,
        package,
        known,
    };
    let edits = classes::candidates(&ctx, class);
    let count = u64::try_from(edits.len()).ok().filter(|n| *n > 0)?;
    let first = usize::try_from(choice % count).ok()?;
    (0..edits.len())
        .filter_map(|k| edits.get((first + k) % edits.len()))
        .find_map(|edit| {
            let text = edit.apply(source)?;
            (text != source && valid::still_python(&text)).then(|| Mutant {
                class,
                line: edit.line,
                description: edit.description.clone(),
                text,
            })
        })
}
