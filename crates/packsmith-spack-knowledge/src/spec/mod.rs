//! Spack spec strings as they appear in directives: `hdf5@1.10:+mpi ^mpich`,
//! `when="@2: +parallel %gcc@10:"`, `^[virtuals=mpi] openmpi`,
//! `%c,cxx=gcc`. [`parse`] yields a typed [`Spec`] with byte spans or a
//! [`SpecError`] pointing at the offending bytes; `Display` renders a
//! canonical, re-parsable form; [`Spec::satisfies`] / [`Spec::intersects`]
//! compare constraints.

mod ast;
mod error;
mod parser;
mod semantics;
mod version;

pub use ast::{
    Arch, Dependency, FlagSetting, Span, Spec, VariantSetting, VariantValue, FLAG_NAMES,
};
pub use error::SpecError;
pub use parser::parse;
pub use version::{Version, VersionConstraint, VersionItem, VersionRange};

impl std::str::FromStr for Spec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s)
    }
}

#[cfg(test)]
mod tests;
