//! A CMake build that compiles MPI code but links some target without
//! MPI's libraries (phasta's converters: `undefined reference to symbol
//! 'MPI_Comm_size'`, `DSO missing from command line`): the fix every
//! maintainer writes is MPI's wrappers as the compilers, which add MPI's
//! include and link flags to every target.

use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::recipe::parse_recipe;

use super::build::base_is;
use crate::ecosystem::RECIPE_FILE;

/// The compiler variables and the MPI spec attribute each gets.
const WRAPPERS: [(&str, &str); 3] = [
    ("CMAKE_C_COMPILER", "self.spec[\"mpi\"].mpicc"),
    ("CMAKE_CXX_COMPILER", "self.spec[\"mpi\"].mpicxx"),
    ("CMAKE_Fortran_COMPILER", "self.spec[\"mpi\"].mpifc"),
];

/// The recipe with MPI's wrappers as CMake's compilers, when the link
/// failed on an MPI symbol and the recipe depends on MPI without setting
/// the compilers yet; the reason for the report.
pub(super) fn mpi_wrappers_as_compilers(text: &str, excerpt: &str) -> Option<(String, String)> {
    let mpi_symbol = [
        "undefined reference to symbol 'MPI_",
        "undefined reference to `MPI_",
    ]
    .iter()
    .any(|p| excerpt.contains(p));
    if !mpi_symbol {
        return None;
    }
    let recipe = parse_recipe(text, RECIPE_FILE);
    let depends_on_mpi = recipe.dependencies.iter().any(|d| d.name == "mpi");
    let set_already = recipe
        .define_key_names()
        .iter()
        .any(|k| WRAPPERS.iter().any(|(var, _)| k == var));
    if !base_is(&recipe, &["CMakePackage"]) || !depends_on_mpi || set_already {
        return None;
    }
    let edits: Vec<EditOp> = WRAPPERS
        .iter()
        .map(|(var, attr)| EditOp::AddCmakeDefine {
            name: (*var).to_string(),
            value: serde_json::Value::String((*attr).to_string()),
        })
        .collect();
    let out = apply_edits(text, &edits).ok()?;
    Some((
        out,
        "a target links MPI code without MPI's libraries: MPI's compiler wrappers are CMake's compilers"
            .into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = "class Phasta(CMakePackage):\n    \"\"\"Solver.\"\"\"\n\n    version(\"1.0\", sha256=\"0000\")\n\n    depends_on(\"mpi\")\n\n    def cmake_args(self):\n        args = [self.define(\"PHASTA_USE_MPI\", True)]\n        return args\n";

    const LINK: &str = "/usr/bin/ld: CMakeFiles/converterO2N.dir/converterO2N.cc.o: undefined reference to symbol 'MPI_Comm_size'\n/usr/bin/ld: /lib/x86_64-linux-gnu/libmpi.so.40: error adding symbols: DSO missing from command line\n";

    #[test]
    fn an_mpi_symbol_missing_at_the_link_makes_the_wrappers_the_compilers() {
        let (out, why) = mpi_wrappers_as_compilers(RECIPE, LINK).unwrap();
        for line in [
            "self.define(\"CMAKE_C_COMPILER\", self.spec[\"mpi\"].mpicc)",
            "self.define(\"CMAKE_CXX_COMPILER\", self.spec[\"mpi\"].mpicxx)",
            "self.define(\"CMAKE_Fortran_COMPILER\", self.spec[\"mpi\"].mpifc)",
        ] {
            assert!(out.contains(line), "{out}");
        }
        assert!(why.contains("compiler wrappers"));
        // Once set, the rule has nothing more to do.
        assert!(mpi_wrappers_as_compilers(&out, LINK).is_none());
        // Another symbol, or a recipe without MPI, is not this failure.
        let other = "undefined reference to `gzopen'\n";
        assert!(mpi_wrappers_as_compilers(RECIPE, other).is_none());
        let no_mpi = RECIPE.replace("    depends_on(\"mpi\")\n", "");
        assert!(mpi_wrappers_as_compilers(&no_mpi, LINK).is_none());
    }
}
