//! Structured edits of a `package.py`: a small, typed language of changes
//! (add a dependency, set a variant's default, add a CMake define, …) that
//! a small model can pick from a menu and packsmith applies at exact
//! positions read from the syntax tree. A model that writes Spack's API
//! badly can still choose well; the text it would have written is ours.
//!
//! Each operation either applies cleanly or fails with a message that says
//! why (for the model's next turn); nothing is guessed.

pub mod candidates;
mod directives;
mod locate;
mod methods;
mod module;
pub mod schema;
pub mod smoke;

use crate::pystr::py_str;
use crate::recipe::RecipeTree;
use serde::{Deserialize, Serialize};

/// One change to a recipe. The JSON form is `{"op": "<name>", …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum EditOp {
    /// `depends_on(spec, when=…, type=…)`, after the last dependency.
    AddDependency {
        spec: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
        #[serde(default, rename = "type", skip_serializing_if = "Vec::is_empty")]
        types: Vec<String>,
    },
    /// Removes every `depends_on` of package `name`.
    RemoveDependency { name: String },
    /// Renames package `from` to `to` in every `depends_on` spec.
    RenameDependency { from: String, to: String },
    /// `variant(name, default=…, description=…, values=…, when=…)`.
    AddVariant {
        name: String,
        default: serde_json::Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        values: Vec<String>,
        /// The versions (or other condition) that have the variant
        /// (`@2.0:`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    /// `version(version, sha256=…)` among the recipe's versions in Spack's
    /// order (newest first); without a checksum, the line carries a
    /// `# FIXME: checksum` comment instead.
    AddVersion {
        version: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sha256: Option<String>,
    },
    /// Sets `default=` of variant `name`.
    SetVariantDefault {
        name: String,
        default: serde_json::Value,
    },
    /// Sets (or, with `when: null`, removes) the `when=` of the directive
    /// that starts on `line`.
    SetWhen {
        line: u32,
        #[serde(default)]
        when: Option<String>,
    },
    /// `conflicts(spec, when=…, msg=…)`.
    AddConflicts {
        spec: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        msg: Option<String>,
    },
    /// Adds `from spack.package import *` at the top.
    AddSpackImport {},
    /// Replaces base class `from` of the package class with `to`.
    ChangeBaseClass { from: String, to: String },
    /// `self.define(name, value)` in `cmake_args` (made when missing),
    /// replacing the method's own setting of `name` if it has one; `value`
    /// is a bool, a string, `"self.run_tests"`, or an MPI wrapper
    /// (`self.spec["mpi"].mpicc`).
    AddCmakeDefine {
        name: String,
        value: serde_json::Value,
    },
    /// Removes the lines of `cmake_args` that set `name`.
    RemoveCmakeDefine { name: String },
    /// `self.define_from_variant(name, variant)` in `cmake_args` (made
    /// when missing); refused when the method sets `name` already.
    AddCmakeVariantDefine { name: String, variant: String },
    /// Adds a literal argument to `configure_args` (made when missing), or
    /// a `-Dx=y` to `meson_args` for a Meson package.
    AddConfigureArg { arg: String },
    /// A `flag_handler` that appends `flag` to `flags` (`cflags`,
    /// `cxxflags`, `fflags`) when the spec satisfies `when`
    /// (`%gcc@10:`).
    AddCompilerFlag {
        flag: String,
        flags: String,
        when: String,
    },
    /// `filter_file(regex, repl, file)` in the recipe's `edit()` (a
    /// Makefile package) or `patch()` (made when missing), so a hard-coded compiler, prefix or flag in a
    /// Makefile or script is rewritten after the source is staged. In
    /// `repl`, `{prefix}`, `{spack_cc}`, `{spack_cxx}`, `{spack_fc}` and
    /// `{spack_f77}` stand for Spack's values; `literal` (default true)
    /// matches `regex` as plain text.
    FilterFile {
        file: String,
        regex: String,
        repl: String,
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        literal: bool,
    },
    /// `copy(from, to)` in the recipe's `edit()` (a Makefile package) or
    /// `patch()`: a build file the build includes, made from one the
    /// project ships as a template (`config.mk.template` → `config.mk`).
    CopyFile { from: String, to: String },
    /// Replaces line `line` (1-based), through `end_line` when given, with
    /// `text`; an empty text deletes them. Without `end_line`, a line that
    /// opens a statement continued on later lines is replaced with the
    /// whole statement when `text` is a whole statement itself.
    ReplaceLine {
        line: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end_line: Option<u32>,
        text: String,
    },
    /// Appends a whole method (`text`: its lines as written, decorators
    /// included, indented for the class body) at the end of the package
    /// class; refused when the class has a method of that name already.
    /// Rule repairs only: never offered to a model.
    AddMethod { text: String },
    /// `name = value` at class level (`parallel = False`): before the
    /// first top-level `version(`, else after the docstring, else at the
    /// start of the body; refused when the class sets `name` already.
    /// `value` is a bool, a number or a string. Rule repairs only.
    SetAttribute {
        name: String,
        value: serde_json::Value,
    },
    /// Comments out every `depends_on` of package `name`, each line of a
    /// call over several lines, with `# FIXME: <note>: ` before the first
    /// line's text (indentation kept); refused when that would leave a
    /// block empty. Rule repairs only.
    DisableDependency { name: String, note: String },
    /// Replaces the value of every class-level `name = …` of the package
    /// class (inside `with` blocks too) with `value` (a bool, a number or
    /// a string, written as a Python literal); refused when the class sets
    /// no `name` (see `set_attribute`). Rule repairs only.
    SetAttributeValue {
        name: String,
        value: serde_json::Value,
    },
    /// Sets the `sha256=` of the top-level `version(version, …)` call(s)
    /// to `sha256` (64 hex digits); refused when there is no such call or
    /// none has a `sha256=` (none is added). Rule repairs only.
    SetChecksum { version: String, sha256: String },
    /// `lines` (written without indentation: the class body's is added)
    /// as one group in the package class, followed by a blank line: before
    /// the first call, directly in the class body, of the first directive
    /// of `before` the class calls there (`["version", "depends_on"]`),
    /// else before its first method (not one under a `with` block); else,
    /// after a blank line, at the class's end. Rule repairs only.
    AddClassLines {
        lines: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        before: Vec<String>,
    },
    /// Replaces the module's star import of Spack's API (`from
    /// spack.package import *`, or the older `from spack import *`) with
    /// `lines`; without one, `lines` and a blank line go before the first
    /// module-level import, else at the top. Rule repairs only.
    ReplaceStarImport { lines: Vec<String> },
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl EditOp {
    /// The operation's name as the JSON form spells it.
    pub fn kind(&self) -> OpKind {
        match self {
            Self::AddDependency { .. } => OpKind::AddDependency,
            Self::RemoveDependency { .. } => OpKind::RemoveDependency,
            Self::RenameDependency { .. } => OpKind::RenameDependency,
            Self::AddVariant { .. } => OpKind::AddVariant,
            Self::AddVersion { .. } => OpKind::AddVersion,
            Self::SetVariantDefault { .. } => OpKind::SetVariantDefault,
            Self::SetWhen { .. } => OpKind::SetWhen,
            Self::AddConflicts { .. } => OpKind::AddConflicts,
            Self::AddSpackImport {} => OpKind::AddSpackImport,
            Self::ChangeBaseClass { .. } => OpKind::ChangeBaseClass,
            Self::AddCmakeDefine { .. } => OpKind::AddCmakeDefine,
            Self::RemoveCmakeDefine { .. } => OpKind::RemoveCmakeDefine,
            Self::AddCmakeVariantDefine { .. } => OpKind::AddCmakeVariantDefine,
            Self::AddConfigureArg { .. } => OpKind::AddConfigureArg,
            Self::AddCompilerFlag { .. } => OpKind::AddCompilerFlag,
            Self::FilterFile { .. } => OpKind::FilterFile,
            Self::CopyFile { .. } => OpKind::CopyFile,
            Self::ReplaceLine { .. } => OpKind::ReplaceLine,
            Self::AddMethod { .. } => OpKind::AddMethod,
            Self::SetAttribute { .. } => OpKind::SetAttribute,
            Self::DisableDependency { .. } => OpKind::DisableDependency,
            Self::SetAttributeValue { .. } => OpKind::SetAttributeValue,
            Self::SetChecksum { .. } => OpKind::SetChecksum,
            Self::AddClassLines { .. } => OpKind::AddClassLines,
            Self::ReplaceStarImport { .. } => OpKind::ReplaceStarImport,
        }
    }

    /// One line for reports and the next prompt.
    pub fn summary(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| format!("{:?}", self.kind()))
    }
}

/// The kinds of [`EditOp`], for menus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    AddDependency,
    RemoveDependency,
    RenameDependency,
    AddVariant,
    AddVersion,
    SetVariantDefault,
    SetWhen,
    AddConflicts,
    AddSpackImport,
    ChangeBaseClass,
    AddCmakeDefine,
    RemoveCmakeDefine,
    AddCmakeVariantDefine,
    AddConfigureArg,
    AddCompilerFlag,
    FilterFile,
    CopyFile,
    ReplaceLine,
    AddMethod,
    SetAttribute,
    DisableDependency,
    SetAttributeValue,
    SetChecksum,
    AddClassLines,
    ReplaceStarImport,
}

impl OpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AddDependency => "add_dependency",
            Self::RemoveDependency => "remove_dependency",
            Self::RenameDependency => "rename_dependency",
            Self::AddVariant => "add_variant",
            Self::AddVersion => "add_version",
            Self::SetVariantDefault => "set_variant_default",
            Self::SetWhen => "set_when",
            Self::AddConflicts => "add_conflicts",
            Self::AddSpackImport => "add_spack_import",
            Self::ChangeBaseClass => "change_base_class",
            Self::AddCmakeDefine => "add_cmake_define",
            Self::RemoveCmakeDefine => "remove_cmake_define",
            Self::AddCmakeVariantDefine => "add_cmake_variant_define",
            Self::AddConfigureArg => "add_configure_arg",
            Self::AddCompilerFlag => "add_compiler_flag",
            Self::FilterFile => "filter_file",
            Self::CopyFile => "copy_file",
            Self::ReplaceLine => "replace_line",
            Self::AddMethod => "add_method",
            Self::SetAttribute => "set_attribute",
            Self::DisableDependency => "disable_dependency",
            Self::SetAttributeValue => "set_attribute_value",
            Self::SetChecksum => "set_checksum",
            Self::AddClassLines => "add_class_lines",
            Self::ReplaceStarImport => "replace_star_import",
        }
    }

    /// The kinds only packsmith's rule repairs use: never in a model's
    /// menu or schema, and refused in a model's answer.
    pub fn rule_only(self) -> bool {
        matches!(
            self,
            Self::AddMethod
                | Self::SetAttribute
                | Self::DisableDependency
                | Self::SetAttributeValue
                | Self::SetChecksum
                | Self::AddClassLines
                | Self::ReplaceStarImport
        )
    }
}

/// Why an edit list could not be applied: which edit and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("edit {index} ({op}): {message}")]
pub struct EditError {
    /// 1-based position in the list.
    pub index: usize,
    pub op: &'static str,
    pub message: String,
}

/// The answer a model gives: `{"edits": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditList {
    pub edits: Vec<EditOp>,
}

/// Reads a model's answer: the JSON object, with any prose or code fence
/// around it ignored. An operation only the rules use
/// ([`OpKind::rule_only`]) is refused.
pub fn parse_edit_list(answer: &str) -> Result<EditList, String> {
    let start = answer.find('{').ok_or("the answer holds no JSON object")?;
    let end = answer.rfind('}').ok_or("the answer holds no JSON object")?;
    let json = answer
        .get(start..=end)
        .ok_or("the answer holds no JSON object")?;
    let list: EditList =
        serde_json::from_str(json).map_err(|e| format!("the edit list is not valid: {e}"))?;
    if let Some(e) = list.edits.iter().find(|e| e.kind().rule_only()) {
        return Err(format!(
            "the edit list is not valid: {} is not an operation on offer",
            e.kind().as_str()
        ));
    }
    Ok(list)
}

/// Applies `edits` in order, each to the result of the one before (the
/// positions are read again every time, so line numbers in later edits
/// refer to the recipe as the earlier ones left it).
pub fn apply_edits(source: &str, edits: &[EditOp]) -> Result<String, EditError> {
    apply_edits_to(&RecipeTree::parse(source, "package.py"), edits)
}

/// [`apply_edits`] on a recipe already parsed; each later edit reads the
/// text the one before it wrote.
pub fn apply_edits_to(tree: &RecipeTree, edits: &[EditOp]) -> Result<String, EditError> {
    let mut text = tree.source().to_string();
    for (i, edit) in edits.iter().enumerate() {
        let next = if i == 0 {
            apply_one(tree, edit)
        } else {
            apply_one(&RecipeTree::parse(&text, "package.py"), edit)
        };
        text = next.map_err(|message| EditError {
            index: i + 1,
            op: edit.kind().as_str(),
            message,
        })?;
    }
    Ok(text)
}

fn apply_one(tree: &RecipeTree, edit: &EditOp) -> Result<String, String> {
    let source = tree.source();
    match edit {
        EditOp::ReplaceLine {
            line,
            end_line,
            text,
        } => return module::replace_lines(source, *line, *end_line, text),
        EditOp::AddSpackImport {} => return module::add_spack_import(source),
        EditOp::ReplaceStarImport { lines } => return module::replace_star_import(tree, lines),
        _ => {}
    }
    let reading = locate::read_tree(tree)?;
    match edit {
        EditOp::AddDependency { spec, when, types } => {
            directives::add_dependency(source, &reading, spec, when.as_deref(), types)
        }
        EditOp::RemoveDependency { name } => directives::remove_dependency(source, &reading, name),
        EditOp::RenameDependency { from, to } => {
            directives::rename_dependency(source, &reading, from, to)
        }
        EditOp::AddVariant {
            name,
            default,
            description,
            values,
            when,
        } => directives::add_variant(
            source,
            &reading,
            directives::NewVariant {
                name,
                default,
                description: description.as_deref(),
                values,
                when: when.as_deref(),
            },
        ),
        EditOp::AddVersion { version, sha256 } => {
            directives::add_version(source, &reading, version, sha256.as_deref())
        }
        EditOp::SetVariantDefault { name, default } => {
            directives::set_variant_default(source, &reading, name, default)
        }
        EditOp::SetWhen { line, when } => {
            directives::set_when(source, &reading, *line, when.as_deref())
        }
        EditOp::AddConflicts { spec, when, msg } => {
            directives::add_conflicts(source, &reading, spec, when.as_deref(), msg.as_deref())
        }
        EditOp::ChangeBaseClass { from, to } => module::change_base(source, &reading, from, to),
        EditOp::AddCmakeDefine { name, value } => {
            methods::add_cmake_define(source, &reading, name, value)
        }
        EditOp::RemoveCmakeDefine { name } => methods::remove_cmake_define(source, &reading, name),
        EditOp::AddCmakeVariantDefine { name, variant } => {
            methods::add_cmake_variant_define(source, &reading, name, variant)
        }
        EditOp::AddConfigureArg { arg } => methods::add_configure_arg(source, &reading, arg),
        EditOp::AddCompilerFlag { flag, flags, when } => {
            methods::add_compiler_flag(source, &reading, flag, flags, when)
        }
        EditOp::FilterFile {
            file,
            regex,
            repl,
            literal,
        } => methods::add_filter_file(source, &reading, file, regex, repl, *literal),
        EditOp::CopyFile { from, to } => methods::add_copy_file(source, &reading, from, to),
        EditOp::AddMethod { text } => methods::add_method(source, &reading, text),
        EditOp::SetAttribute { name, value } => {
            directives::set_attribute(source, &reading, name, value)
        }
        EditOp::DisableDependency { name, note } => {
            directives::disable_dependency(source, &reading, name, note)
        }
        EditOp::SetAttributeValue { name, value } => {
            directives::set_attribute_value(source, &reading, name, value)
        }
        EditOp::SetChecksum { version, sha256 } => {
            directives::set_checksum(source, &reading, version, sha256)
        }
        EditOp::AddClassLines { lines, before } => {
            directives::add_class_lines(source, &reading, lines, before)
        }
        EditOp::ReplaceLine { .. }
        | EditOp::AddSpackImport {}
        | EditOp::ReplaceStarImport { .. } => unreachable!("handled above"),
    }
}

/// A Python literal for a JSON value (`true` → `True`, strings quoted).
fn py_literal(value: &serde_json::Value) -> Result<String, String> {
    match value {
        serde_json::Value::Bool(true) => Ok("True".into()),
        serde_json::Value::Bool(false) => Ok("False".into()),
        serde_json::Value::String(s) => Ok(py_str(s)),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        other => Err(format!("{other} is not a value a recipe can hold here")),
    }
}

/// Whether `edited` has more syntax errors than `source` (an edit that
/// would break the file is refused).
fn breaks_syntax(source: &str, edited: &str) -> bool {
    let errors = |t: &str| {
        crate::recipe::parse_recipe(t, "package.py")
            .syntax_errors
            .len()
    };
    errors(edited) > errors(source)
}

/// `source` with `range` replaced by `with`.
fn splice(source: &str, range: std::ops::Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(source.len() + with.len());
    out.push_str(&source[..range.start]);
    out.push_str(with);
    out.push_str(&source[range.end..]);
    out
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_candidates;
