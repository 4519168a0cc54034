//! A smoke test written into a recipe as Spack's stand-alone tests: one
//! `test_*` method per executable that answered a harmless argument, one
//! per library a tiny program compiled, linked and ran against (an
//! installed header included, one exported symbol referenced), and
//! `import_modules` for a Python package (its `test_imports` reads them).
//! What to test is found by the Spack backend in the installed prefix;
//! this module only writes it, at positions read from the syntax tree.

use super::locate;
use crate::pylayout::call;
use crate::pystr::py_str;
use crate::recipe::RecipeTree;

/// Run an installed executable with one argument; it must exit 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExeCheck {
    /// The file name under `prefix/bin`.
    pub name: String,
    /// `--version` or `--help`: the first the program answered with exit 0.
    pub arg: String,
    /// The probe's output held the package's version, so the test checks
    /// for it too.
    pub expect_version: bool,
    /// The program refused `arg` with this exit code (and said why): the
    /// test checks that it starts and answers so, not that it succeeds.
    pub refused_with: Option<i32>,
    /// The program could not load a shared library when probed: the test
    /// checks only that it starts (not the loader's 127), so it fails
    /// until the library is there and passes once it is.
    pub loads_only: bool,
}

/// Compile a program that includes an installed header and references
/// one exported symbol of an installed library, link it against that
/// library, and run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkCheck {
    /// The library's name (`foo` of `libfoo.so`): linked as `-lfoo`.
    pub library: String,
    /// The library's directory under the prefix (`lib`, `lib64`).
    pub lib_dir: String,
    /// The header, as included (`foo.h`, `foo/api.h`), under `include/`.
    pub header: String,
    /// A defined, exported symbol of the library (mangled, for C++).
    pub symbol: String,
    /// The header is C++: the program is compiled with `$CXX`.
    pub cxx: bool,
    /// The header needs MPI's types (rankstr's `MPI_Comm`): the program
    /// includes `<mpi.h>` first and is built with the spec's MPI wrapper.
    pub mpi: bool,
}

/// The two sources of a link check: a C file that takes the address of
/// the function symbol under a declaration of its own (no header is
/// included there to contradict it; a mangled C++ name is a valid C
/// identifier too) and the main program that includes
/// the header and calls it. The same text is probed by the backend and
/// written into the recipe.
pub fn link_sources(check: &LinkCheck) -> (String, String) {
    let reference = format!(
        "extern void {0}(void);\nvoid *smoke_ref(void) {{ return (void *){0}; }}\n",
        check.symbol
    );
    let decl = if check.cxx {
        "extern \"C\" void *smoke_ref(void);"
    } else {
        "void *smoke_ref(void);"
    };
    let mpi = if check.mpi { "#include <mpi.h>\n" } else { "" };
    let main = format!(
        "{mpi}#include <{}>\n{decl}\nint main(void) {{ return smoke_ref() == 0; }}\n",
        check.header
    );
    (reference, main)
}

/// Compile and run a program that includes one installed header of a
/// library that installs no binary (header-only): the headers are whole
/// and compile with what the spec provides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderCheck {
    /// The header, as included (`glm/glm.hpp`), under `include/`.
    pub header: String,
    /// The program is compiled as C++ (with `$CXX`).
    pub cxx: bool,
    /// The C++ standard the headers need beyond the compiler's default
    /// (`c++20` for concepts), given as `-std=`.
    pub std: Option<String>,
}

/// The program of a header check, probed by the backend and written into
/// the recipe alike.
pub fn include_source(check: &HeaderCheck) -> String {
    format!(
        "#include <{}>\nint main(void) {{ return 0; }}\n",
        check.header
    )
}

/// What the smoke test checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SmokeTest {
    pub executables: Vec<ExeCheck>,
    pub links: Vec<LinkCheck>,
    pub headers: Vec<HeaderCheck>,
    /// Top-level modules to import (only written for a Python package).
    pub import_modules: Vec<String>,
}

/// Why no smoke test was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotWritten {
    /// The recipe has tests of its own (`test_*` methods or
    /// `import_modules`): they are run as they are.
    OwnTests,
    /// Nothing to check.
    Empty,
}

/// Bases whose `test_imports` runs `import_modules`.
const PYTHON_BASES: &[&str] = &["PythonPackage", "PythonExtension"];

/// `recipe` with `test` written into its package class; `Ok(Err(_))` when
/// nothing was written and why, `Err` when the recipe cannot be read.
pub fn add_smoke_test(
    recipe: &str,
    test: &SmokeTest,
) -> Result<Result<String, NotWritten>, String> {
    let tree = RecipeTree::parse(recipe, "package.py");
    let reading = locate::read_tree(&tree)?;
    let class = reading.class;
    let own_tests = class.methods.iter().any(|m| m.name.starts_with("test"));
    if own_tests || sets_import_modules(recipe, &class.body_indent) {
        return Ok(Err(NotWritten::OwnTests));
    }
    let python = class
        .bases
        .iter()
        .any(|(b, _)| PYTHON_BASES.contains(&b.rsplit('.').next().unwrap_or(b)));
    let modules = if python {
        test.import_modules.as_slice()
    } else {
        &[]
    };
    let methods_to_write =
        !test.executables.is_empty() || !test.links.is_empty() || !test.headers.is_empty();
    if !methods_to_write && modules.is_empty() {
        return Ok(Err(NotWritten::Empty));
    }
    let indent = &class.body_indent;
    let mut out = recipe.to_string();
    // The class's end first, so the earlier insertion point stays valid.
    if methods_to_write {
        let mut methods = String::new();
        for check in &test.executables {
            methods.push('\n');
            methods.push_str(&render_exe_test(check, indent));
        }
        for check in &test.links {
            methods.push('\n');
            methods.push_str(&render_link_test(check, indent));
        }
        for check in &test.headers {
            methods.push('\n');
            methods.push_str(&render_header_test(check, indent));
        }
        let end = class.end;
        let sep = if out[..end].ends_with('\n') { "" } else { "\n" };
        out.insert_str(end, &format!("{sep}{methods}"));
    }
    if !modules.is_empty() {
        let names: Vec<String> = modules.iter().map(|m| py_str(m)).collect();
        let line = format!("{indent}import_modules = [{}]\n\n", names.join(", "));
        match reading.directives.iter().copied().find(|d| d.top_level) {
            Some(first) => out.insert_str(first.lines.start, &line),
            None => {
                let end = out.len();
                let sep = if out.ends_with('\n') { "\n" } else { "\n\n" };
                out.insert_str(end, &format!("{sep}{}", line.trim_end_matches('\n')));
                out.push('\n');
            }
        }
    }
    Ok(Ok(out))
}

/// A class-level `import_modules = ...` (or an annotated one, or a
/// property): a line of the class body at its indentation.
fn sets_import_modules(recipe: &str, indent: &str) -> bool {
    recipe.lines().any(|l| {
        l.strip_prefix(indent)
            .filter(|rest| !rest.starts_with([' ', '\t']))
            .map(|rest| rest.strip_prefix("def ").unwrap_or(rest))
            .and_then(|rest| rest.strip_prefix("import_modules"))
            .is_some_and(|rest| matches!(rest.trim_start().chars().next(), Some('=' | ':' | '(')))
    })
}

/// `heatsim-run` → `heatsim_run`: a method name's part from a file name.
fn ident(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    s.trim_matches('_').to_string()
}

/// One stand-alone test method (Spack 0.23: a `test_*` method with a
/// docstring, which `spack test run` reports as its purpose).
fn render_exe_test(check: &ExeCheck, indent: &str) -> String {
    let arg = check.arg.trim_start_matches('-');
    let name = format!("test_{}_{}", ident(&check.name), ident(arg));
    let i2 = format!("{indent}{indent}");
    if check.loads_only {
        return format!(
            "{indent}def test_{}_loads(self):\n{i2}\"\"\"run {} {}: it must load its libraries (smoke test)\"\"\"\n{i2}exe = which(self.prefix.bin.join({}), required=True)\n{i2}out = exe({}, output=str, error=str, fail_on_error=False)\n{i2}assert exe.returncode != 127, out\n",
            ident(&check.name),
            check.name,
            check.arg,
            py_str(&check.name),
            py_str(&check.arg)
        );
    }
    if let Some(code) = check.refused_with {
        let mut s = format!(
            "{indent}def {name}(self):\n{i2}\"\"\"run {} {}: it starts and refuses the flag (smoke test)\"\"\"\n{i2}exe = which(self.prefix.bin.join({}), required=True)\n",
            check.name,
            check.arg,
            py_str(&check.name),
        );
        s.push_str(&format!(
            "{i2}out = exe({}, output=str, error=str, fail_on_error=False)\n{i2}assert exe.returncode == {code}, out\n{i2}assert out.strip(), \"no output\"\n",
            py_str(&check.arg)
        ));
        return s;
    }
    let mut s = format!(
        "{indent}def {name}(self):\n{i2}\"\"\"run {} {} (smoke test)\"\"\"\n{i2}exe = which(self.prefix.bin.join({}), required=True)\n",
        check.name,
        check.arg,
        py_str(&check.name),
    );
    if check.expect_version {
        s.push_str(&format!(
            "{i2}out = exe({}, output=str, error=str)\n{i2}assert str(self.spec.version) in out\n",
            py_str(&check.arg)
        ));
    } else {
        s.push_str(&format!("{i2}exe({})\n", py_str(&check.arg)));
    }
    s
}

/// One stand-alone test that builds and runs the link check in the test's
/// own directory, with the compiler Spack's test environment names. Each
/// source line is written by its own `f.write`, so every line of the
/// method stays within Spack's style width.
fn render_link_test(check: &LinkCheck, indent: &str) -> String {
    let name = format!("test_link_{}", ident(&check.library));
    let i2 = format!("{indent}{indent}");
    let i3 = format!("{i2}{indent}");
    let (reference, main) = link_sources(check);
    let main_file = if check.cxx {
        "smoke_main.cpp"
    } else {
        "smoke_main.c"
    };
    let compiler = if check.cxx { "CXX" } else { "CC" };
    let lib = format!("self.prefix.{}", check.lib_dir);
    let mut docstring = format!(
        "{i2}\"\"\"compile, link and run a program against lib{} (smoke test)\"\"\"",
        check.library
    );
    // black leaves docstrings as written: a long library name moves out.
    if docstring.chars().count() > crate::pylayout::LINE_WIDTH {
        docstring = format!(
            "{i2}\"\"\"compile, link and run a program against the library (smoke test)\"\"\""
        );
    }
    let mut lines = vec![format!("{indent}def {name}(self):"), docstring];
    for (file, text) in [("smoke_ref.c", &reference), (main_file, &main)] {
        lines.push(format!("{i2}with open({}, \"w\") as f:", py_str(file)));
        for source_line in text.split_inclusive('\n') {
            lines.extend(call(&i3, "f.write", &[py_str(source_line)]));
        }
    }
    // Spack's test environment sets CC and CXX only for some packages;
    // the spec's compiler is the fallback.
    lines.push(format!(
        "{i2}cc = which(environ.get(\"CC\") or self.compiler.cc, required=True)"
    ));
    lines.push(format!(
        "{i2}cc(\"-c\", \"smoke_ref.c\", \"-o\", \"smoke_ref.o\")"
    ));
    let inputs = [py_str(main_file), "\"smoke_ref.o\"".to_string()];
    let link = [
        format!("\"-L\" + {lib}"),
        py_str(&format!("-l{}", check.library)),
        format!("\"-Wl,-rpath,\" + {lib}"),
    ];
    let builder = if check.mpi {
        Builder::Mpi(compiler)
    } else {
        Builder::Compiler(compiler)
    };
    lines.extend(build_and_run(&i2, builder, &inputs, &link));
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// What builds the smoke program: the spec's compiler (`CC` or `CXX`,
/// Spack's test environment's first), or the spec's MPI wrapper for it.
#[derive(Clone, Copy)]
enum Builder<'a> {
    Compiler(&'a str),
    Mpi(&'a str),
}

/// Builds `smoke` from `inputs` with `builder` against the installed
/// headers, with `link` after, and runs it.
fn build_and_run(
    i2: &str,
    builder: Builder<'_>,
    inputs: &[String],
    link: &[String],
) -> Vec<String> {
    let mut lines = vec![match builder {
        Builder::Compiler(compiler) => format!(
            "{i2}build = which(environ.get({}) or self.compiler.{}, required=True)",
            py_str(compiler),
            compiler.to_ascii_lowercase()
        ),
        Builder::Mpi(compiler) => format!(
            "{i2}build = which(self.spec[\"mpi\"].mpi{}, required=True)",
            compiler.to_ascii_lowercase()
        ),
    }];
    let mut args = vec!["\"-I\" + self.prefix.include".to_string()];
    args.extend(inputs.iter().cloned());
    args.extend(["\"-o\"".to_string(), "\"smoke\"".to_string()]);
    args.extend(link.iter().cloned());
    lines.extend(call(i2, "build", &args));
    lines.push(format!(
        "{i2}smoke = which(join_path(\".\", \"smoke\"), required=True)"
    ));
    lines.push(format!("{i2}smoke()"));
    lines
}

/// One stand-alone test that compiles and runs the header check.
fn render_header_test(check: &HeaderCheck, indent: &str) -> String {
    let stem = check.header.rsplit('/').next().unwrap_or(&check.header);
    let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
    let name = format!("test_include_{}", ident(stem));
    let i2 = format!("{indent}{indent}");
    let i3 = format!("{i2}{indent}");
    let (main_file, compiler) = if check.cxx {
        ("smoke_main.cpp", "CXX")
    } else {
        ("smoke_main.c", "CC")
    };
    let mut docstring = format!(
        "{i2}\"\"\"compile and run a program that includes {} (smoke test)\"\"\"",
        check.header
    );
    if docstring.chars().count() > crate::pylayout::LINE_WIDTH {
        docstring = format!(
            "{i2}\"\"\"compile and run a program that includes the headers (smoke test)\"\"\""
        );
    }
    let mut lines = vec![format!("{indent}def {name}(self):"), docstring];
    lines.push(format!("{i2}with open({}, \"w\") as f:", py_str(main_file)));
    for source_line in include_source(check).split_inclusive('\n') {
        lines.extend(call(&i3, "f.write", &[py_str(source_line)]));
    }
    let mut inputs: Vec<String> = check
        .std
        .iter()
        .map(|std| py_str(&format!("-std={std}")))
        .collect();
    inputs.push(py_str(main_file));
    lines.extend(build_and_run(
        &i2,
        Builder::Compiler(compiler),
        &inputs,
        &[],
    ));
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMAKE: &str = "from spack.package import *\n\n\nclass Heatsim(CMakePackage):\n    \"\"\"Heat.\"\"\"\n\n    homepage = \"https://example.org\"\n    url = \"file:///x/heatsim-2.1.0.tar.gz\"\n\n    version(\"2.1.0\", sha256=\"00\")\n\n    def cmake_args(self):\n        return []\n";

    const PYTHON: &str = "from spack.package import *\n\n\nclass PyDemo(PythonPackage):\n    \"\"\"Demo.\"\"\"\n\n    homepage = \"https://example.org\"\n    url = \"file:///x/demo-1.0.tar.gz\"\n\n    license(\"MIT\")\n\n    version(\"1.0\", sha256=\"00\")\n";

    fn exe(name: &str, arg: &str, expect_version: bool) -> ExeCheck {
        ExeCheck {
            name: name.into(),
            arg: arg.into(),
            expect_version,
            refused_with: None,
            loads_only: false,
        }
    }

    #[test]
    fn a_program_that_cannot_load_its_libraries_is_tested_to_load() {
        let check = ExeCheck {
            loads_only: true,
            ..exe("trace", "--version", false)
        };
        let test = SmokeTest {
            executables: vec![check],
            ..SmokeTest::default()
        };
        let out = add_smoke_test(CMAKE, &test).unwrap().unwrap();
        let method = out
            .split_once("    def test_trace_loads(self):\n")
            .unwrap()
            .1;
        assert!(
            method.contains("        out = exe(\"--version\", output=str, error=str, fail_on_error=False)\n        assert exe.returncode != 127, out\n"),
            "{method}"
        );
    }

    #[test]
    fn a_program_that_refuses_the_flag_is_tested_to_start() {
        let check = ExeCheck {
            refused_with: Some(255),
            ..exe("DetectNodes", "--version", false)
        };
        let test = SmokeTest {
            executables: vec![check],
            ..SmokeTest::default()
        };
        let out = add_smoke_test(CMAKE, &test).unwrap().unwrap();
        let method = out
            .split_once("    def test_detectnodes_version(self):\n")
            .unwrap()
            .1;
        assert!(
            method.contains("        out = exe(\"--version\", output=str, error=str, fail_on_error=False)\n        assert exe.returncode == 255, out\n"),
            "{method}"
        );
    }

    #[test]
    fn an_executable_test_is_a_method_at_the_end_of_the_class() {
        let test = SmokeTest {
            executables: vec![exe("heatsim-run", "--help", false)],
            links: Vec::new(),
            headers: Vec::new(),
            import_modules: vec!["heatsim".into()],
        };
        let out = add_smoke_test(CMAKE, &test).unwrap().unwrap();
        assert_eq!(
            out,
            format!(
                "{CMAKE}\n    def test_heatsim_run_help(self):\n        \"\"\"run heatsim-run --help (smoke test)\"\"\"\n        exe = which(self.prefix.bin.join(\"heatsim-run\"), required=True)\n        exe(\"--help\")\n"
            )
        );
        // Not a Python package: no import_modules.
        assert!(!out.contains("import_modules"), "{out}");
        // Parsed back, the class has the method.
        let tree = RecipeTree::parse(&out, "package.py");
        let class = locate::read_tree(&tree).unwrap().class;
        assert!(class
            .methods
            .iter()
            .any(|m| m.name == "test_heatsim_run_help"));
    }

    #[test]
    fn a_version_in_the_output_is_checked() {
        let test = SmokeTest {
            executables: vec![exe("demo", "--version", true)],
            links: Vec::new(),
            headers: Vec::new(),
            import_modules: Vec::new(),
        };
        let out = add_smoke_test(CMAKE, &test).unwrap().unwrap();
        assert!(
            out.contains("        out = exe(\"--version\", output=str, error=str)\n        assert str(self.spec.version) in out\n"),
            "{out}"
        );
        assert!(out.contains("    def test_demo_version(self):\n"), "{out}");
    }

    #[test]
    fn a_python_package_gets_import_modules_before_its_directives() {
        let test = SmokeTest {
            executables: Vec::new(),
            links: Vec::new(),
            headers: Vec::new(),
            import_modules: vec!["demo".into(), "demo_cli".into()],
        };
        let out = add_smoke_test(PYTHON, &test).unwrap().unwrap();
        assert_eq!(
            out,
            PYTHON.replace(
                "    license(",
                "    import_modules = [\"demo\", \"demo_cli\"]\n\n    license("
            )
        );
    }

    #[test]
    fn a_recipe_with_its_own_tests_is_left_alone() {
        let own = format!("{CMAKE}\n    def test_run(self):\n        pass\n");
        let test = SmokeTest {
            executables: vec![exe("demo", "--version", false)],
            links: Vec::new(),
            headers: Vec::new(),
            import_modules: Vec::new(),
        };
        assert_eq!(
            add_smoke_test(&own, &test).unwrap(),
            Err(NotWritten::OwnTests)
        );
        let pinned = PYTHON.replace(
            "    license(",
            "    import_modules = [\"x\"]\n\n    license(",
        );
        assert_eq!(
            add_smoke_test(&pinned, &test).unwrap(),
            Err(NotWritten::OwnTests)
        );
        // Written once, the test is the recipe's own the next time.
        let once = add_smoke_test(CMAKE, &test).unwrap().unwrap();
        assert_eq!(
            add_smoke_test(&once, &test).unwrap(),
            Err(NotWritten::OwnTests)
        );
    }

    #[test]
    fn nothing_to_check_writes_nothing() {
        let modules_only = SmokeTest {
            executables: Vec::new(),
            links: Vec::new(),
            headers: Vec::new(),
            import_modules: vec!["heatsim".into()],
        };
        assert_eq!(
            add_smoke_test(CMAKE, &modules_only).unwrap(),
            Err(NotWritten::Empty)
        );
        assert!(add_smoke_test("x = 1\n", &modules_only).is_err());
    }

    #[test]
    fn a_header_only_library_gets_an_include_test() {
        let test = SmokeTest {
            headers: vec![HeaderCheck {
                header: "glm/glm.hpp".into(),
                cxx: true,
                std: None,
            }],
            ..SmokeTest::default()
        };
        let out = add_smoke_test(CMAKE, &test).unwrap().unwrap();
        let method = out
            .split_once("    def test_include_glm(self):\n")
            .unwrap()
            .1;
        assert!(
            method.contains("            f.write(\"#include <glm/glm.hpp>\\n\")\n"),
            "{method}"
        );
        assert!(
            method.contains(
                "        build = which(environ.get(\"CXX\") or self.compiler.cxx, required=True)\n"
            ),
            "{method}"
        );
        assert!(
            method.contains("        build(\"-I\" + self.prefix.include, \"smoke_main.cpp\", \"-o\", \"smoke\")\n"),
            "{method}"
        );
        assert!(method.ends_with("        smoke()\n"), "{method}");
    }

    #[test]
    fn a_header_check_that_needs_a_newer_standard_asks_for_it() {
        let test = SmokeTest {
            headers: vec![HeaderCheck {
                header: "algebra/math.hpp".into(),
                cxx: true,
                std: Some("c++20".into()),
            }],
            ..SmokeTest::default()
        };
        let out = add_smoke_test(CMAKE, &test).unwrap().unwrap();
        assert!(
            out.contains("build(\"-I\" + self.prefix.include, \"-std=c++20\", \"smoke_main.cpp\""),
            "{out}"
        );
    }

    #[test]
    fn a_library_test_builds_and_runs_a_program_against_it() {
        let check = LinkCheck {
            library: "demo".into(),
            lib_dir: "lib64".into(),
            header: "demo/api.h".into(),
            symbol: "demo_init".into(),
            cxx: false,
            mpi: false,
        };
        let (reference, main) = link_sources(&check);
        assert_eq!(
            reference,
            "extern void demo_init(void);\nvoid *smoke_ref(void) { return (void *)demo_init; }\n"
        );
        assert_eq!(
            main,
            "#include <demo/api.h>\nvoid *smoke_ref(void);\nint main(void) { return smoke_ref() == 0; }\n"
        );
        let test = SmokeTest {
            links: vec![check.clone()],
            ..SmokeTest::default()
        };
        let out = add_smoke_test(CMAKE, &test).unwrap().unwrap();
        let method = out.split_once("    def test_link_demo(self):\n").unwrap().1;
        assert!(method.starts_with("        \"\"\"compile, link and run a program against libdemo (smoke test)\"\"\"\n"), "{method}");
        assert!(
            method.contains(
                "        cc = which(environ.get(\"CC\") or self.compiler.cc, required=True)\n"
            ),
            "{method}"
        );
        assert!(
            method.contains(
                "        build = which(environ.get(\"CC\") or self.compiler.cc, required=True)\n"
            ),
            "{method}"
        );
        assert!(
            method.contains(
                "            \"-L\" + self.prefix.lib64,\n            \"-ldemo\",\n            \"-Wl,-rpath,\" + self.prefix.lib64,\n        )\n"
            ),
            "{method}"
        );
        assert!(
            method.contains("            f.write(\"#include <demo/api.h>\\n\")\n"),
            "{method}"
        );
        assert!(
            out.lines()
                .all(|l| l.chars().count() <= crate::pylayout::LINE_WIDTH),
            "{out}"
        );
        assert!(method.ends_with("        smoke()\n"), "{method}");
        let tree = RecipeTree::parse(&out, "package.py");
        let class = locate::read_tree(&tree).unwrap().class;
        assert!(class.methods.iter().any(|m| m.name == "test_link_demo"));
        // MPI: <mpi.h> first, built with the spec's MPI wrapper.
        let mpi = LinkCheck {
            mpi: true,
            ..check.clone()
        };
        assert!(link_sources(&mpi)
            .1
            .starts_with("#include <mpi.h>\n#include <demo/api.h>\n"));
        let out = add_smoke_test(
            CMAKE,
            &SmokeTest {
                links: vec![mpi],
                ..SmokeTest::default()
            },
        )
        .unwrap()
        .unwrap();
        assert!(
            out.contains("        build = which(self.spec[\"mpi\"].mpicc, required=True)\n"),
            "{out}"
        );
        // C++: the main program is C++ and calls the reference as C.
        let cxx = LinkCheck { cxx: true, ..check };
        assert!(link_sources(&cxx)
            .1
            .contains("extern \"C\" void *smoke_ref(void);"));
        let out = add_smoke_test(
            CMAKE,
            &SmokeTest {
                links: vec![cxx],
                ..SmokeTest::default()
            },
        )
        .unwrap()
        .unwrap();
        assert!(
            out.contains("build = which(environ.get(\"CXX\") or self.compiler.cxx, required=True)"),
            "{out}"
        );
        assert!(out.contains("\"smoke_main.cpp\""), "{out}");
    }
}
