//! Diagnostic codes. The strings are stable: tools and the agent match on
//! them, so a code is never renumbered or reused.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Code {
    /// Python syntax error.
    #[serde(rename = "PS001")]
    Syntax,
    /// Markdown fence or prose around the code.
    #[serde(rename = "PS002")]
    Markdown,
    /// No package class in the file.
    #[serde(rename = "PS003")]
    NotARecipe,
    /// A base class that no import provides for the target Spack.
    #[serde(rename = "PS101")]
    MissingImport,
    /// An import from the other Spack generation.
    #[serde(rename = "PS102")]
    WrongGenerationImport,
    /// No class named as Spack derives it from the package name.
    #[serde(rename = "PS201")]
    ClassName,
    /// No `version(...)`.
    #[serde(rename = "PS301")]
    NoVersion,
    /// No url, git, or per-version source.
    #[serde(rename = "PS302")]
    NoFetchSource,
    /// `version()` arguments Spack refuses (a float, a commit without git,
    /// a checksum in a package without code).
    #[serde(rename = "PS303")]
    BadVersion,
    /// A dependency that is neither a package nor a virtual.
    #[serde(rename = "PS401")]
    UnknownDependency,
    /// A language virtual (`c`, `cxx`, `fortran`) the target Spack lacks.
    #[serde(rename = "PS402")]
    LanguageVirtual,
    /// A package that depends on, extends or provides itself.
    #[serde(rename = "PS403")]
    SelfDependency,
    /// A spec string that does not parse.
    #[serde(rename = "PS501")]
    BadSpec,
    /// A variant used in a condition or `define_from_variant` but never declared.
    #[serde(rename = "PS601")]
    UndeclaredVariant,
    /// A variant default outside its allowed values.
    #[serde(rename = "PS602")]
    VariantDefault,
    /// A variant without a default, or with `None` or `""`.
    #[serde(rename = "PS603")]
    VariantNoDefault,
    /// `values`/`multi` that do not fit the default.
    #[serde(rename = "PS604")]
    VariantValues,
    /// A variant name Spack reserves.
    #[serde(rename = "PS605")]
    ReservedVariant,
    /// The same directive twice under the same condition.
    #[serde(rename = "PS701")]
    Duplicate,
    /// A directive call Python refuses: unknown keyword, wrong argument count.
    #[serde(rename = "PS801")]
    DirectiveArguments,
    /// `when=` (or `with when(...)`) on a directive that takes none.
    #[serde(rename = "PS802")]
    WhenNotAllowed,
    /// `self` evaluated by the class body, outside every method.
    #[serde(rename = "PS803")]
    SelfOutsideMethod,
}

impl Code {
    pub const ALL: [Code; 22] = [
        Code::Syntax,
        Code::Markdown,
        Code::NotARecipe,
        Code::MissingImport,
        Code::WrongGenerationImport,
        Code::ClassName,
        Code::NoVersion,
        Code::NoFetchSource,
        Code::BadVersion,
        Code::UnknownDependency,
        Code::LanguageVirtual,
        Code::SelfDependency,
        Code::BadSpec,
        Code::UndeclaredVariant,
        Code::VariantDefault,
        Code::VariantNoDefault,
        Code::VariantValues,
        Code::ReservedVariant,
        Code::Duplicate,
        Code::DirectiveArguments,
        Code::WhenNotAllowed,
        Code::SelfOutsideMethod,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::Syntax => "PS001",
            Code::Markdown => "PS002",
            Code::NotARecipe => "PS003",
            Code::MissingImport => "PS101",
            Code::WrongGenerationImport => "PS102",
            Code::ClassName => "PS201",
            Code::NoVersion => "PS301",
            Code::NoFetchSource => "PS302",
            Code::BadVersion => "PS303",
            Code::UnknownDependency => "PS401",
            Code::LanguageVirtual => "PS402",
            Code::SelfDependency => "PS403",
            Code::BadSpec => "PS501",
            Code::UndeclaredVariant => "PS601",
            Code::VariantDefault => "PS602",
            Code::VariantNoDefault => "PS603",
            Code::VariantValues => "PS604",
            Code::ReservedVariant => "PS605",
            Code::Duplicate => "PS701",
            Code::DirectiveArguments => "PS801",
            Code::WhenNotAllowed => "PS802",
            Code::SelfOutsideMethod => "PS803",
        }
    }

    /// Short kebab-case name shown after the code.
    pub fn slug(self) -> &'static str {
        match self {
            Code::Syntax => "syntax-error",
            Code::Markdown => "markdown-around-code",
            Code::NotARecipe => "not-a-recipe",
            Code::MissingImport => "missing-import",
            Code::WrongGenerationImport => "wrong-generation-import",
            Code::ClassName => "class-name",
            Code::NoVersion => "no-version",
            Code::NoFetchSource => "no-fetch-source",
            Code::BadVersion => "bad-version",
            Code::UnknownDependency => "unknown-dependency",
            Code::LanguageVirtual => "language-virtual",
            Code::SelfDependency => "self-dependency",
            Code::BadSpec => "bad-spec",
            Code::UndeclaredVariant => "undeclared-variant",
            Code::VariantDefault => "variant-default",
            Code::VariantNoDefault => "variant-no-default",
            Code::VariantValues => "variant-values",
            Code::ReservedVariant => "reserved-variant",
            Code::Duplicate => "duplicate-directive",
            Code::DirectiveArguments => "directive-arguments",
            Code::WhenNotAllowed => "when-not-allowed",
            Code::SelfOutsideMethod => "self-outside-method",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            // External-only packages (apple-clang, msvc) legitimately have no versions.
            Code::NoVersion | Code::NoFetchSource | Code::Duplicate => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
