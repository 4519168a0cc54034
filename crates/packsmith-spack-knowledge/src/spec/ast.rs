//! The typed spec tree and its canonical rendering.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::version::VersionConstraint;

/// Byte range in the parsed string.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub offset: usize,
    pub len: usize,
}

/// One node of a spec: a package (or anonymous constraint) with its
/// attributes, plus the edges hanging off it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// `hdf5`, `builtin.hdf5`; `None` for anonymous specs such as `+mpi`.
    pub name: Option<String>,
    pub versions: Option<VersionConstraint>,
    pub variants: Vec<VariantSetting>,
    /// `%` edges: the compiler in Spack 0.x, direct dependencies in 1.x.
    pub compilers: Vec<Dependency>,
    /// `^` edges.
    pub dependencies: Vec<Dependency>,
    pub arch: Arch,
    pub flags: Vec<FlagSetting>,
    /// `/abcdef` abstract hash.
    pub hash: Option<String>,
    pub span: Span,
}

impl Spec {
    /// The name without a namespace (`builtin.hdf5` → `hdf5`).
    pub fn short_name(&self) -> Option<&str> {
        self.name
            .as_deref()
            .map(|n| n.rsplit_once('.').map_or(n, |(_, s)| s))
    }

    /// True when nothing at all is constrained (an empty `when=`).
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.versions.is_none()
            && self.variants.is_empty()
            && self.compilers.is_empty()
            && self.dependencies.is_empty()
            && self.arch == Arch::default()
            && self.flags.is_empty()
            && self.hash.is_none()
    }

    pub fn variant(&self, name: &str) -> Option<&VariantSetting> {
        self.variants.iter().find(|v| v.name == name)
    }
}

/// An edge to another node: `^[virtuals=mpi] openmpi`, `%gcc@12:`,
/// `%c,cxx=gcc`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dependency {
    /// `%` (direct) rather than `^` (anywhere below).
    pub direct: bool,
    /// From `[virtuals=...]` or the `c,cxx=` shorthand.
    pub virtuals: Vec<String>,
    /// From `[deptypes=...]`.
    pub deptypes: Vec<String>,
    /// Any other edge property, e.g. `when=...` in newer Spack.
    pub properties: Vec<(String, String)>,
    pub spec: Spec,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantSetting {
    pub name: String,
    pub value: VariantValue,
    /// `++foo`, `~~foo`, `foo==bar`: also applies to dependencies.
    pub propagate: bool,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum VariantValue {
    Bool(bool),
    /// `foo=bar` or multi-valued `foo=a,b`.
    Values(Vec<String>),
}

/// `cflags="-O3"` and the other compiler-flag keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagSetting {
    pub name: String,
    pub value: String,
    pub propagate: bool,
    pub span: Span,
}

/// `platform=`, `os=`, `target=` (and `arch=p-o-t`, which sets all three).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arch {
    pub platform: Option<String>,
    pub os: Option<String>,
    pub target: Option<String>,
}

/// Keys that Spack reads as compiler flags rather than variants.
pub const FLAG_NAMES: [&str; 6] = [
    "cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs",
];

/// Characters Spack accepts in an unquoted value.
pub(crate) fn is_bare_value_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-+*.,:=~/\\".contains(c)
}

fn quote_if_needed(value: &str) -> String {
    // `=` would re-lex as part of the value anyway, but quoting keeps it obvious.
    if !value.is_empty() && value.chars().all(|c| is_bare_value_char(c) && c != '=') {
        value.to_string()
    } else if value.contains('\'') {
        format!("\"{}\"", value.replace('"', "\\\""))
    } else {
        format!("'{value}'")
    }
}

/// Canonical form: name, versions, boolean variants (sorted), key-value
/// variants and flags (sorted), arch, hash, `%` edges, then `^` edges
/// sorted by name. Two specs that differ only in attribute order render the
/// same, which is what SpackIt's `str(Spec)` equality relies on.
impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let mut head = self.name.clone().unwrap_or_default();
        if let Some(v) = &self.versions {
            head.push('@');
            head.push_str(&v.to_string());
        }
        let mut variants: Vec<&VariantSetting> = self.variants.iter().collect();
        variants.sort_by(|a, b| a.name.cmp(&b.name));
        for v in variants
            .iter()
            .filter(|v| matches!(v.value, VariantValue::Bool(_)))
        {
            head.push_str(&v.to_string());
        }
        if !head.is_empty() {
            parts.push(head);
        }
        let mut keyed: Vec<(String, String)> = variants
            .iter()
            .filter(|v| matches!(v.value, VariantValue::Values(_)))
            .map(|v| (v.name.clone(), v.to_string()))
            .chain(self.flags.iter().map(|fl| {
                let eq = if fl.propagate { "==" } else { "=" };
                (
                    fl.name.clone(),
                    format!("{}{eq}{}", fl.name, quote_if_needed(&fl.value)),
                )
            }))
            .collect();
        keyed.sort();
        parts.extend(keyed.into_iter().map(|(_, s)| s));
        for (key, value) in [
            ("platform", &self.arch.platform),
            ("os", &self.arch.os),
            ("target", &self.arch.target),
        ] {
            if let Some(value) = value {
                parts.push(format!("{key}={}", quote_if_needed(value)));
            }
        }
        if let Some(h) = &self.hash {
            parts.push(format!("/{h}"));
        }
        parts.extend(self.compilers.iter().map(ToString::to_string));
        let mut deps: Vec<&Dependency> = self.dependencies.iter().collect();
        deps.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
        parts.extend(deps.into_iter().map(ToString::to_string));
        f.write_str(&parts.join(" "))
    }
}

impl fmt::Display for VariantSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            VariantValue::Bool(on) => {
                let sigil = if *on { "+" } else { "~" };
                let sigil = if self.propagate {
                    sigil.repeat(2)
                } else {
                    sigil.to_string()
                };
                write!(f, "{sigil}{}", self.name)
            }
            VariantValue::Values(values) => {
                let eq = if self.propagate { "==" } else { "=" };
                write!(f, "{}{eq}{}", self.name, quote_if_needed(&values.join(",")))
            }
        }
    }
}

impl fmt::Display for Dependency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.direct { "%" } else { "^" })?;
        let mut props: Vec<String> = Vec::new();
        if !self.deptypes.is_empty() {
            props.push(format!("deptypes={}", self.deptypes.join(",")));
        }
        if !self.virtuals.is_empty() {
            props.push(format!("virtuals={}", self.virtuals.join(",")));
        }
        props.extend(
            self.properties
                .iter()
                .map(|(k, v)| format!("{k}={}", quote_if_needed(v))),
        );
        if !props.is_empty() {
            write!(f, "[{}] ", props.join(" "))?;
        }
        write!(f, "{}", self.spec)
    }
}
