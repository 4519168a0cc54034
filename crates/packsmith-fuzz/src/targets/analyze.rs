//! packsmith-analyze's readers, through `analyze_dir` on a scratch tree in
//! which the input is every file of its kind: a file that includes or
//! descends into another therefore includes itself (include cycles).

use super::{put, signature, text};
use crate::harness::{Scratch, Target};
use crate::mutate::Grammar;
use crate::seeds;
use packsmith_analyze::cmake::{lexer, parser};
use packsmith_core::SourceInfo;

pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "cmake-lexer",
            readers: "cmake::lexer::lex + cmake::parser::parse (in memory)",
            grammar: CMAKE,
            seeds: cmake_seeds,
            run: |_, input| {
                let lexed = lexer::lex(&text(input));
                let n = lexed.commands.len();
                let mut problems = lexed.problems;
                let nodes = parser::parse(lexed.commands, &mut problems);
                signature((n, nodes.len(), problems.len()))
            },
        },
        Target {
            name: "cmake",
            readers: "the CMake walk (include/add_subdirectory/functions) and extraction",
            grammar: CMAKE,
            seeds: cmake_seeds,
            run: |s, input| {
                tree(
                    s,
                    input,
                    &["CMakeLists.txt", "sub/CMakeLists.txt", "cmake/A.cmake"],
                )
            },
        },
        Target {
            name: "meson",
            readers: "meson lexer, build files (subdir), options, wraps",
            grammar: Grammar {
                dict: &[
                    "subdir('src')",
                    "subdir('.')",
                    "project('x', 'c', version: '1.0')",
                    "dependency('zlib', required: get_option('z'))",
                    "option('z', type: 'feature', value: 'auto')",
                    "if get_option('z')\n",
                    "endif\n",
                    "foreach x : ['a', 'b']\n",
                    "endforeach\n",
                    "'''",
                    "f'@0@'",
                    "[wrap-git]\nurl = x\n",
                ],
                open: "[",
                close: "]",
            },
            seeds: |root| {
                let mut s = seeds::named(root, "meson.build");
                s.extend(seeds::named(root, "meson_options.txt"));
                s.extend(seeds::test_files(root, ".wrap"));
                s
            },
            run: |s, input| {
                tree(
                    s,
                    input,
                    &[
                        "meson.build",
                        "src/meson.build",
                        "meson_options.txt",
                        "subprojects/x.wrap",
                    ],
                )
            },
        },
        Target {
            name: "autotools",
            readers: "the m4 scanner, AC_INIT, AC_ARG_*, probes, Makefile.am",
            grammar: Grammar {
                dict: &[
                    "AC_INIT([x], [1.0])",
                    "m4_include([acinclude.m4])",
                    "AC_ARG_ENABLE([mpi], [AS_HELP_STRING([--enable-mpi], [x])])",
                    "AC_ARG_WITH([z], [], [], [with_z=no])",
                    "PKG_CHECK_MODULES([Z], [zlib >= 1.2])",
                    "AC_CHECK_LIB([m], [cos])",
                    "AS_IF([test x = y], [",
                    "])",
                    "dnl ",
                    "changequote(<<, >>)",
                    "[[",
                    "]]",
                ],
                open: "[",
                close: "]",
            },
            seeds: |root| {
                let mut s = seeds::named(root, "configure.ac");
                s.extend(seeds::named(root, "Makefile.am"));
                s.extend(seeds::test_files(root, ".m4"));
                s
            },
            run: |s, input| tree(s, input, &["configure.ac", "acinclude.m4", "Makefile.am"]),
        },
        Target {
            name: "setup-py",
            readers: "setup.py (call arguments, requirements)",
            grammar: Grammar {
                dict: &[
                    "setup(",
                    "name='x',",
                    "version=__version__,",
                    "install_requires=['numpy>=1.2; python_version<\"3.9\"'],",
                    "extras_require={'a': ['b']},",
                    "python_requires='>=3.8',",
                    "\"\"\"",
                    "'''",
                    "**kwargs",
                    "\\\n",
                ],
                open: "(",
                close: ")",
            },
            seeds: |root| seeds::named(root, "setup.py"),
            run: |s, input| tree(s, input, &["setup.py"]),
        },
        Target {
            name: "setup-cfg",
            readers: "setup.cfg (INI sections, requirements)",
            grammar: Grammar {
                dict: &[
                    "[metadata]",
                    "[options]",
                    "[options.extras_require]",
                    "install_requires =\n    numpy\n",
                    "name = x",
                    "version = attr: x.__version__",
                    "  continued",
                    "=",
                    "[",
                ],
                open: "[",
                close: "]",
            },
            seeds: |root| seeds::named(root, "setup.cfg"),
            run: |s, input| tree(s, input, &["setup.cfg"]),
        },
        Target {
            name: "pyproject",
            readers: "pyproject.toml (PEP 621, build backend, requirements)",
            grammar: TOML,
            seeds: |root| seeds::named(root, "pyproject.toml"),
            run: |s, input| tree(s, input, &["pyproject.toml"]),
        },
        Target {
            name: "cargo",
            readers: "Cargo.toml (workspace members, features, dependencies)",
            grammar: TOML,
            seeds: |root| seeds::named(root, "Cargo.toml"),
            run: |s, input| tree(s, input, &["Cargo.toml", "crates/a/Cargo.toml"]),
        },
        Target {
            name: "go",
            readers: "go.mod (module, go version, requirements, replace)",
            grammar: Grammar {
                dict: &[
                    "module example.com/x",
                    "go 1.21",
                    "require (",
                    ")",
                    "require example.com/y v1.2.3",
                    "replace example.com/y => ../y",
                    "// indirect",
                    "toolchain go1.22.0",
                ],
                open: "(",
                close: ")",
            },
            seeds: |root| seeds::named(root, "go.mod"),
            run: |s, input| tree(s, input, &["go.mod", "tools/go.mod"]),
        },
        Target {
            name: "npm",
            readers: "package.json (name, version, scripts, dependencies)",
            grammar: Grammar {
                dict: &[
                    "{\"name\": \"x\", \"version\": \"1.0.0\"}",
                    "\"dependencies\": {\"a\": \"^1\"}",
                    "\"scripts\": {\"build\": \"tsc\"}",
                    "\"\\u0000\"",
                    "1e999",
                    "null",
                    ",",
                ],
                open: "[",
                close: "]",
            },
            seeds: |root| seeds::named(root, "package.json"),
            run: |s, input| tree(s, input, &["package.json"]),
        },
        Target {
            name: "makefile",
            readers: "plain Makefiles (variables, conditionals, includes, sub-makes, install rules, man pages)",
            grammar: Grammar {
                dict: &[
                    "PREFIX ?= /usr/local\n",
                    "LIBS = -lz $(shell pkg-config --libs glib-2.0)\n",
                    "include Makefile\n",
                    "include sub/Makefile\n",
                    "all:\n\t$(MAKE) -C sub\n",
                    "install:\n\tinstall -m755 app $(DESTDIR)$(PREFIX)/bin\n",
                    "ifeq ($(OS),Linux)\n",
                    "ifdef DEBUG\n",
                    "else\n",
                    "endif\n",
                    "$(foreach d,$(DIRS),$(d))",
                    "\\\n",
                ],
                open: "$(",
                close: ")",
            },
            seeds: |root| {
                let mut s = seeds::files(root, |p| p.contains("/tests/") && p.ends_with("Makefile"));
                s.truncate(64);
                s
            },
            run: |s, input| tree(s, input, &["Makefile", "sub/Makefile"]),
        },
        Target {
            name: "readme",
            readers: "the README reader (paragraphs, sections, title taglines, HTML, quotes, RST references)",
            grammar: Grammar {
                dict: &[
                    "# Title - A tagline of words\n",
                    "Title\n=====\n",
                    "## Installation\n",
                    "## Overview\n",
                    "> A quoted tagline under the title\n",
                    "<p>Prose in HTML for a sentence.</p>\n",
                    "[text][ref] and [text][]\n",
                    "`ref <https://x>`__ and word_ ",
                    "Copyright (c) 2024\n",
                    "a) One b) Two\n",
                    "```\ncode\n```\n",
                    "R<sup>2</sup>",
                    "  indented:\n",
                ],
                open: "`",
                close: "`_",
            },
            seeds: |root| {
                let mut s = seeds::files(root, |p| p.ends_with("README.md") || p.ends_with("README.rst"));
                s.truncate(64);
                s
            },
            run: |s, input| tree(s, input, &["README.md"]),
        },
        Target {
            name: "c-includes",
            readers: "the system headers a plain Makefile project's C sources include",
            grammar: Grammar {
                dict: &[
                    "#include <zlib.h>\n",
                    "#include \"own.h\"\n",
                    "#ifndef G\n#define G\n",
                    "#ifdef X\n",
                    "#endif\n",
                    "/* ",
                    " */",
                    "// #include <gmp.h>\n",
                ],
                open: "#if X\n",
                close: "#endif\n",
            },
            seeds: |root| {
                let mut s = seeds::test_files(root, ".c");
                s.extend(seeds::test_files(root, ".h"));
                s.truncate(64);
                s
            },
            run: |s, input| {
                // A fixed Makefile, so the Makefile reader's own cost stays
                // out of this target's bound.
                let makefile = b"all:\n\t$(CC) -o app app.c\ninstall:\n\tcp app $(PREFIX)/bin\n";
                put(s.dir.path(), "Makefile", makefile);
                tree(s, input, &["app.c", "own.h", "lib/unused.h"])
            },
        },
    ]
}

const CMAKE: Grammar = Grammar {
    dict: &[
        "add_subdirectory(sub)",
        "add_subdirectory(.)",
        "add_subdirectory(sub/..)",
        "include(cmake/A.cmake)",
        "include(CMakeLists.txt)",
        "include(${CMAKE_CURRENT_LIST_DIR}/../CMakeLists.txt)",
        "project(x VERSION 1.2.3 LANGUAGES C CXX)",
        "option(WITH_X \"x\" ON)",
        "find_package(ZLIB REQUIRED)",
        "if(WITH_X)",
        "elseif(NOT WITH_X)",
        "else()",
        "endif()",
        "function(f)\nf()\nendfunction()\nf()",
        "macro(m)\nm()\nendmacro()\nm()",
        "foreach(i RANGE 1000000)",
        "endforeach()",
        "while(TRUE)",
        "endwhile()",
        "set(X \"${X}${X}${X}${X}\")",
        "set(X ${X};${X})",
        "${${${X}}}",
        "[==[",
        "]==]",
        "#[[",
        "\\;",
        "FetchContent_Declare(x GIT_REPOSITORY https://x GIT_TAG v1)",
        "set(CMAKE_CXX_STANDARD 17)",
        "block()\nendblock()",
    ],
    open: "if(X)\n",
    close: "endif()\n",
};

const TOML: Grammar = Grammar {
    dict: &[
        "[project]",
        "[package]",
        "[workspace]\nmembers = [\"crates/*\", \".\", \"../\"]",
        "[dependencies]",
        "[tool.poetry.dependencies]",
        "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"",
        "name = \"x\"",
        "version = \"1.0\"",
        "version.workspace = true",
        "dependencies = [\"numpy>=1.2\", \"a[b]; extra == 'c'\"]",
        "x = { path = \"..\", features = [\"a\"] }",
        "[[bin]]",
        "\"\"\"",
        "'''",
        "inf",
        "1979-05-27T07:32:00Z",
    ],
    open: "[",
    close: "]",
};

fn cmake_seeds(root: &std::path::Path) -> Vec<Vec<u8>> {
    seeds::files(root, |p| {
        p.contains("/tests/") && (p.ends_with("CMakeLists.txt") || p.ends_with(".cmake"))
    })
}

/// Lays the input out as each of `files` and analyses the tree.
fn tree(s: &mut Scratch, input: &[u8], files: &[&str]) -> u64 {
    let root = s.dir.path();
    for f in files {
        put(root, f, input);
    }
    let source = SourceInfo {
        kind: "path".into(),
        given: "fuzz".into(),
        release_tag: None,
    };
    match packsmith_analyze::analyze_dir(root, source) {
        Ok(facts) => signature((
            facts.warnings.len(),
            facts.languages.len(),
            facts.features.len(),
            facts.downloads.len(),
            format!("{facts:?}").len() / 32,
        )),
        Err(e) => signature(e.to_string()),
    }
}
