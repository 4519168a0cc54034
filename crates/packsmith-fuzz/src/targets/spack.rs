//! packsmith-spack-knowledge's readers (the `package.py` reader with the
//! static check, the spec parser) and the model-output cleaner.

use super::{signature, text};
use crate::harness::Target;
use crate::mutate::Grammar;
use crate::seeds;
use packsmith_spack_knowledge::check::{check_source, strip_markdown, CheckOptions};
use packsmith_spack_knowledge::target::TargetSpack;

pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "package-py",
            readers: "recipe::parse_recipe (tree-sitter) + check::check_source",
            grammar: PYTHON,
            seeds: recipe_seeds,
            run: |_, input| {
                let src = text(input);
                // Both generations: their rules differ.
                let spack = if input.len() % 2 == 0 {
                    TargetSpack::V1
                } else {
                    TargetSpack::V0_23
                };
                let opts = CheckOptions {
                    spack,
                    names: None,
                    package: Some("fuzz"),
                };
                let diags = check_source(&src, "package.py", &opts);
                let codes: Vec<String> = diags.iter().map(|d| d.code.slug().to_string()).collect();
                signature(codes)
            },
        },
        Target {
            name: "spec",
            readers: "spec::parse, Display round trip, satisfies/intersects",
            grammar: Grammar {
                dict: &[
                    "@1.2:1.4,2.0:",
                    "+mpi",
                    "~shared",
                    "build_system=cmake",
                    "^[virtuals=mpi] openmpi",
                    "%gcc@10:",
                    "%c,cxx=gcc",
                    "cflags='-O3 -g'",
                    "arch=linux-ubuntu22.04-x86_64",
                    "target=zen2:",
                    "@=1.0",
                    "@git.abc=main",
                    " ^",
                    "==",
                    "\"",
                ],
                open: "^[",
                close: "]",
            },
            seeds: |root| {
                let mut out = Vec::new();
                for recipe in recipe_seeds(root) {
                    out.extend(seeds::string_literals(&recipe));
                }
                out.sort();
                out.dedup();
                out
            },
            run: |_, input| {
                use packsmith_spack_knowledge::spec::parse;
                let src = text(input);
                match parse(&src) {
                    Ok(spec) => {
                        // Display promises a canonical, re-parsable form.
                        let shown = spec.to_string();
                        let again = parse(&shown);
                        assert!(
                            again.is_ok(),
                            "`{src}` parses but its display `{shown}` does not: {again:?}"
                        );
                        signature((
                            spec.satisfies(&spec),
                            spec.intersects(&spec),
                            shown.len() / 8,
                        ))
                    }
                    Err(e) => signature(e.to_string().len()),
                }
            },
        },
        Target {
            name: "model-output",
            readers: "the model-output cleaners: clean_model_output, strip_fences, strip_markdown",
            grammar: Grammar {
                dict: &[
                    "```python\n",
                    "```\n",
                    "~~~\n",
                    "Here is the recipe:\n",
                    "class Pkg(CMakePackage):\n",
                    "from spack.package import *\n",
                    "    def cmake_args(self):\n",
                    "**Note**: ",
                    "# ",
                    "<think>",
                    "</think>",
                ],
                open: "```\n",
                close: "```\n",
            },
            seeds: |root| {
                // Recipes as a model wraps them: in fences, between prose.
                recipe_seeds(root)
                    .into_iter()
                    .map(|r| {
                        let mut s = b"Here is the package:\n\n```python\n".to_vec();
                        s.extend(r);
                        s.extend(b"```\n\nIt builds with CMake.\n");
                        s
                    })
                    .collect()
            },
            run: |_, input| {
                let src = text(input);
                let cleaned = packsmith_spack::ecosystem::clean_model_output(&src);
                let fenced = packsmith_agent::strip_fences(&src);
                let md = strip_markdown(&src);
                signature((cleaned.len(), fenced.len(), md.changed, md.code.len()))
            },
        },
    ]
}

const PYTHON: Grammar = Grammar {
    dict: &[
        "from spack.package import *",
        "class Pkg(CMakePackage):",
        "    version(\"1.0\", sha256=\"0\" * 64)",
        "    depends_on(\"zlib@1.2:\", when=\"+z\")",
        "    variant(\"z\", default=True, values=(\"a\", \"b\"), multi=True)",
        "    with when(\"+mpi\"):",
        "    def cmake_args(self):",
        "        return [self.define_from_variant(\"X\", \"z\")]",
        "    conflicts(\"%gcc@:9\")",
        "    provides(\"mpi\")",
        "    patch(\"x.patch\", when=\"@:1\")",
        "    for v in [\"a\", \"b\"]:",
        "        variant(v)",
        "\"\"\"",
        "lambda x: x",
        "*args, **kw",
        "\\\n",
    ],
    open: "[",
    close: "]",
};

fn recipe_seeds(root: &std::path::Path) -> Vec<Vec<u8>> {
    seeds::files(root, |p| {
        p.contains("packsmith-spack-knowledge/tests/fixtures/") && p.ends_with(".py")
    })
}
