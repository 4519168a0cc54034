//! Which Spack a recipe is written for.

use serde::{Deserialize, Serialize};

/// The Spack generation a recipe targets. They differ in imports, in where
/// build-system classes live, and in language virtuals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TargetSpack {
    /// Spack 0.2x: `from spack.package import *`; no `c`/`cxx`/`fortran`
    /// language virtuals (0.23 rejects `depends_on("c")`).
    #[serde(rename = "0.23")]
    V0_23,
    /// Spack 1.x: build-system classes from `spack_repo.builtin.build_systems`,
    /// language virtuals required.
    #[serde(rename = "1")]
    V1,
}

impl TargetSpack {
    /// True when compiled languages are declared as `depends_on("c", type="build")`.
    pub fn has_language_virtuals(self) -> bool {
        matches!(self, Self::V1)
    }

    /// Parses `0.23`, `0.2x`, `1`, `1.x` as the user writes them.
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        if t == "1" || t.starts_with("1.") {
            Some(Self::V1)
        } else if t.starts_with("0.") {
            Some(Self::V0_23)
        } else {
            None
        }
    }
}

impl std::fmt::Display for TargetSpack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::V0_23 => "0.23",
            Self::V1 => "1.x",
        })
    }
}
