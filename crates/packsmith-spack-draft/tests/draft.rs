//! The deterministic first draft: every analyze fixture and the heatsim
//! example render to a recipe that parses, for both Spack generations;
//! a few are snapshotted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use packsmith_spack_draft::brief::{build_brief, SpackBrief};
use packsmith_spack_draft::draft::{render_recipe, DraftOptions};
use packsmith_spack_knowledge::mapping::NoKnowledge;
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::target::TargetSpack;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn brief_for(dir: &Path, target: TargetSpack) -> SpackBrief {
    let facts = packsmith_analyze::analyze_dir(
        dir,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: dir.display().to_string(),
            release_tag: None,
        },
    )
    .expect("analyze");
    build_brief(&facts, target, &NoKnowledge)
}

fn projects() -> Vec<PathBuf> {
    let fixtures = repo_root().join("crates/packsmith-analyze/tests/fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.push(repo_root().join("examples/heatsim"));
    dirs
}

#[test]
fn every_fixture_renders_a_recipe_that_parses() {
    let projects = projects();
    assert!(projects.len() > 5);
    for dir in projects {
        for target in [TargetSpack::V0_23, TargetSpack::V1] {
            let brief = brief_for(&dir, target);
            let text = render_recipe(&brief, &DraftOptions::default());
            let recipe = parse_recipe(&text, "package.py");
            assert!(
                recipe.syntax_errors.is_empty(),
                "{} ({target}): {:?}\n{text}",
                dir.display(),
                recipe.syntax_errors
            );
            assert_eq!(
                recipe.class_name.as_deref(),
                Some(brief.class_name.as_str()),
                "{}",
                dir.display()
            );
            // Every non-inherited variant and every dependency made it in.
            let variants = brief.variants.iter().filter(|v| !v.inherited).count();
            assert_eq!(recipe.variants.len(), variants, "{}\n{text}", dir.display());
            assert!(
                recipe.versions.iter().all(|v| v.sha256.is_none()),
                "no invented checksum:\n{text}"
            );
            assert!(text.ends_with('\n') && !text.contains("\t"));
            // Spack's style width (flake8's E501); a URL cannot be split.
            let long: Vec<&str> = text
                .lines()
                .filter(|l| l.chars().count() > 99 && !l.contains("://"))
                .collect();
            assert!(long.is_empty(), "{}: {long:#?}", dir.display());
            if target == TargetSpack::V0_23 {
                assert!(!text.contains("depends_on(\"c\""), "{text}");
                assert!(!text.contains("spack_repo"), "{text}");
            }
        }
    }
}

fn snapshot(project: &str, target: TargetSpack, sha256: Option<&str>) -> String {
    let dir = if project == "heatsim" {
        repo_root().join("examples/heatsim")
    } else {
        repo_root()
            .join("crates/packsmith-analyze/tests/fixtures")
            .join(project)
    };
    let mut brief = brief_for(&dir, target);
    if let Some(sha) = sha256 {
        brief.fetch.url = Some(format!(
            "file:///mirror/{0}/{0}-{1}.tar.gz",
            brief.package,
            brief.fetch.version.clone().unwrap_or_default()
        ));
        brief.fetch.sha256 = Some(sha.to_string());
    }
    render_recipe(&brief, &DraftOptions::default())
}

const SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[test]
fn heatsim_v023() {
    insta::assert_snapshot!(snapshot("heatsim", TargetSpack::V0_23, Some(SHA)));
}

#[test]
fn heatsim_v1() {
    insta::assert_snapshot!(snapshot("heatsim", TargetSpack::V1, None));
}

#[test]
fn autotools_v023() {
    insta::assert_snapshot!(snapshot("autotools-with-enable", TargetSpack::V0_23, None));
}

#[test]
fn meson_v1() {
    insta::assert_snapshot!(snapshot("meson-choices", TargetSpack::V1, None));
}

/// Spack 0.23's MesonPackage does not declare the pkg-config that Meson's
/// `dependency()` runs; 1.x's does, so only the 0.23 draft names it.
#[test]
fn meson_v023_declares_pkgconfig() {
    let v023 = snapshot("meson-choices", TargetSpack::V0_23, None);
    let v1 = snapshot("meson-choices", TargetSpack::V1, None);
    let pkgconfig = "depends_on(\"pkgconfig\", type=\"build\")";
    assert!(v023.contains(pkgconfig), "{v023}");
    assert!(!v1.contains(pkgconfig), "{v1}");
}

#[test]
fn python_v1() {
    insta::assert_snapshot!(snapshot("python-pyproject-app", TargetSpack::V1, None));
}

#[test]
fn cmake_nested_conditions_v023() {
    insta::assert_snapshot!(snapshot(
        "cmake-nested-conditions",
        TargetSpack::V0_23,
        None
    ));
}

/// A knowledge base of the names the `draft-names` fixture should end up
/// with, plus the build tools the draft adds.
fn names_kb() -> packsmith_spack_knowledge::kb::NameIndex {
    let packages = [
        "cmake",
        "cereal",
        "glfw",
        "googletest",
        "gmake",
        "pkgconf",
        "zlib",
    ];
    packsmith_spack_knowledge::kb::NameIndex {
        packages: packages.iter().map(|s| s.to_string()).collect(),
        virtuals: [("pkgconfig", "pkgconf"), ("cxx", "gcc")]
            .into_iter()
            .map(|(v, p)| (v.to_string(), vec![p.to_string()]))
            .collect(),
        ..Default::default()
    }
}

/// Issue 20 item 3: names Spack does not know never reach Spack from the
/// draft. `GMock` and `glfw3` resolve through the curated table,
/// `libcereal` through the knowledge base (`cereal`), and `ZzzNothing` is
/// commented out with a FIXME; the result passes the static check's
/// unknown-dependency rule with the same knowledge base.
#[test]
fn draft_resolves_or_comments_out_unknown_names() {
    use packsmith_spack_draft::draft::render_recipe_with_names;
    use packsmith_spack_knowledge::check::{check_source, CheckOptions, Code};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/draft-names");
    let kb = names_kb();
    for target in [TargetSpack::V0_23, TargetSpack::V1] {
        // Briefed without a knowledge base, the guesses reach the draft.
        let brief = brief_for(&dir, target);
        let plain = render_recipe(&brief, &DraftOptions::default());
        assert!(plain.contains("depends_on(\"zzznothing\""), "{plain}");
        assert!(plain.contains("depends_on(\"libcereal\""), "{plain}");
        let text = render_recipe_with_names(&brief, &DraftOptions::default(), &kb);
        for known in ["googletest", "glfw", "cereal"] {
            assert!(
                text.contains(&format!("    depends_on(\"{known}\"")),
                "{known} missing:\n{text}"
            );
        }
        assert!(!text.contains("    depends_on(\"zzznothing\""), "{text}");
        assert!(!text.contains("    depends_on(\"libcereal\""), "{text}");
        assert!(text.contains("    # depends_on(\"zzznothing\""), "{text}");
        assert!(
            text.contains(
                "FIXME: upstream ZzzNothing needs `zzznothing`, which is no Spack package"
            ),
            "{text}"
        );
        let opts = CheckOptions {
            spack: target,
            names: Some(&kb),
            package: Some(&brief.package),
        };
        let unknown: Vec<_> = check_source(&text, "package.py", &opts)
            .into_iter()
            .filter(|d| d.code == Code::UnknownDependency)
            .collect();
        assert!(unknown.is_empty(), "{unknown:#?}\n{text}");
        // The plain draft is what the check catches.
        let flagged: Vec<String> = check_source(&plain, "package.py", &opts)
            .into_iter()
            .filter(|d| d.code == Code::UnknownDependency)
            .map(|d| d.message)
            .collect();
        assert!(
            flagged
                .iter()
                .any(|m| m.contains("`libcereal`") && m.contains("did you mean `cereal`")),
            "{flagged:#?}"
        );
        assert!(
            flagged.iter().any(|m| m.contains("`zzznothing`")),
            "{flagged:#?}"
        );
    }
}

/// Nothing at the top, the code's Makefile in `src/` and a Python wrapper
/// beside it: a MakefilePackage that builds in `src`.
#[test]
fn a_makefile_in_src_is_the_build_directory() {
    let dir = repo_root().join("crates/packsmith-analyze/tests/fixtures/makefile-in-src");
    let text = render_recipe(
        &brief_for(&dir, TargetSpack::V0_23),
        &DraftOptions::default(),
    );
    assert!(text.contains("(MakefilePackage):"), "{text}");
    assert!(text.contains("    build_directory = \"src\"\n"), "{text}");
}

/// No build file make looks for: the code's Makefile ships as
/// `src-mpi/Makefile.vanilla` (CoMD's shape), and its rules read
/// `Makefile`. The draft builds there and copies the template to
/// `Makefile` first.
#[test]
fn a_makefile_under_another_name_is_copied_to_makefile() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["src-mpi", "src-openmp"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        std::fs::write(
            dir.path().join(sub).join("main.c"),
            "int main(void) { return 0; }\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join(sub).join("Makefile.vanilla"),
            "CC = mpicc\nBIN_DIR=../bin\nEXE = ${BIN_DIR}/mini\n\nDEFAULT: ${EXE}\n\n\
             info.h: Makefile\n\ttouch info.h\n\n${EXE}: ${BIN_DIR} info.h main.o\n\
             \t${CC} -o ${EXE} main.o -lm\n\n${BIN_DIR}:\n\tmkdir -p ${BIN_DIR}\n",
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("README.md"), "# mini\n").unwrap();
    let text = render_recipe(
        &brief_for(dir.path(), TargetSpack::V0_23),
        &DraftOptions::default(),
    );
    assert!(text.contains("(MakefilePackage):"), "{text}");
    assert!(
        text.contains("    build_directory = \"src-mpi\"\n"),
        "{text}"
    );
    assert!(
        text.contains("    def patch(self):\n")
            && text.contains("        copy(\"src-mpi/Makefile.vanilla\", \"src-mpi/Makefile\")\n"),
        "{text}"
    );
    // `CC = mpicc`: compiled with MPI's wrapper.
    assert!(text.contains("    depends_on(\"mpi\")\n"), "{text}");
    // The link line writes the program to `../bin`: install() looks there.
    assert!(
        text.contains("for path in find(join_path(self.stage.source_path, \"bin\"), [\"*\"]):"),
        "{text}"
    );
}

/// A Makefile in `src/` whose first rule makes an object file, so plain
/// `make` links nothing, and whose programs are written to the top
/// (`-o ../$@`): the draft names them in `build_targets` and copies them
/// by name from the source root.
#[test]
fn programs_plain_make_leaves_unbuilt_are_build_targets() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("README.md"), "# finder\n").unwrap();
    std::fs::write(
        dir.path().join("src/main.c"),
        "int main(void) { return 0; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/Makefile"),
        "CC = cc\nOBJS = main.o\n\n*.o: *.h Makefile*\n\n.c.o:\n\t$(CC) -c -o $@ $<\n\n\
         finder: $(OBJS)\n\t$(CC) -o ../$@ $^ -lm\n\nclean:\n\trm -f *.o\n",
    )
    .unwrap();
    let text = render_recipe(
        &brief_for(dir.path(), TargetSpack::V0_23),
        &DraftOptions::default(),
    );
    assert!(text.contains("    build_directory = \"src\"\n"), "{text}");
    assert!(
        text.contains("    build_targets = [\"finder\"]\n"),
        "{text}"
    );
    assert!(
        text.contains("for path in find(self.stage.source_path, [\"finder\"]):"),
        "{text}"
    );
    assert!(!text.contains("FIXME: no targets are known"), "{text}");
}

/// C sources that include `mpi.h` under a Makefile compiling with `cc`
/// (GPCNET's shape): the draft depends on MPI and hands make MPI's C
/// wrapper, with the programs plain make leaves unbuilt.
#[test]
fn mpi_code_under_a_plain_compiler_gets_mpis_wrapper() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# net\n").unwrap();
    std::fs::write(
        dir.path().join("net.c"),
        "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); return 0; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("Makefile"),
        "CC = cc\n\n%.o: %.c\n\t$(CC) -c -o $@ $<\n\nnet: net.o\n\t$(CC) -o net net.o\n",
    )
    .unwrap();
    let text = render_recipe(
        &brief_for(dir.path(), TargetSpack::V0_23),
        &DraftOptions::default(),
    );
    assert!(text.contains("    depends_on(\"mpi\")\n"), "{text}");
    assert!(
        text.contains(
            "    @property\n    def build_targets(self):\n        args = [\"net\", f\"CC={self.spec['mpi'].mpicc}\"]\n        return args\n"
        ),
        "{text}"
    );
    assert!(!text.contains("    build_targets = ["), "{text}");
    // The Makefile's own `CC = mpicc` needs no wrapper from the recipe.
    std::fs::write(
        dir.path().join("Makefile"),
        "CC = mpicc\n\nnet: net.c\n\t$(CC) -o net net.c\n",
    )
    .unwrap();
    let text = render_recipe(
        &brief_for(dir.path(), TargetSpack::V0_23),
        &DraftOptions::default(),
    );
    assert!(!text.contains("def build_targets"), "{text}");
}

fn write_tree(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
}

fn draft_of(files: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path(), files);
    render_recipe(
        &brief_for(dir.path(), TargetSpack::V0_23),
        &DraftOptions::default(),
    )
}

/// An optional Python lookup whose interpreter a configure step runs
/// (libecpint generates its sources): Python is a build dependency and
/// the lookup is not switched off.
#[test]
fn a_configure_step_running_python_keeps_its_lookup() {
    let text = draft_of(&[
        ("README.md", "# gen\n"),
        (
            "CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.12)\nproject(gen CXX)\n\
             find_package(Python COMPONENTS Interpreter)\n\
             execute_process(COMMAND ${Python_EXECUTABLE} makelist.py)\n\
             add_library(gen gen.cpp)\ninstall(TARGETS gen)\n",
        ),
    ]);
    assert!(
        text.contains("    depends_on(\"python\", type=\"build\")\n"),
        "{text}"
    );
    assert!(
        !text.contains("CMAKE_DISABLE_FIND_PACKAGE_Python"),
        "{text}"
    );
}

/// An Autotools build in a subdirectory with its configure shipped
/// (csa-c's `csa/`): configure runs there, and nothing is bootstrapped.
#[test]
fn an_autotools_build_below_the_top_is_the_configure_directory() {
    let text = draft_of(&[
        ("README.md", "# csa\n"),
        (
            "csa/configure.in",
            "AC_INIT(csa, 1.22)\nAC_PROG_CC\nAC_OUTPUT(makefile)\n",
        ),
        (
            "csa/configure",
            "#! /bin/sh\n# Generated by GNU Autoconf 2.69.\n",
        ),
        ("csa/makefile.in", "all:\n"),
        ("csa/csa.c", "int csa;\n"),
    ]);
    assert!(
        text.contains("    configure_directory = \"csa\"\n"),
        "{text}"
    );
    assert!(!text.contains("depends_on(\"autoconf\""), "{text}");
    assert!(!text.contains("build_directory"), "{text}");
}

/// `make install` copies where the Makefiles say: lastz's variable under
/// `ifdef` (a bin directory) through a sub-make and an include; SeqPrep's
/// copy into `$(HOME)/bin`, which no recipe can use (the recipe copies the
/// program); httping's hand-written configure beside a Makefile with
/// `PREFIX` (the Autotools recipe gives it at install).
#[test]
fn make_install_goes_where_the_makefiles_say() {
    let text = draft_of(&[
        ("README.md", "# lastz\n"),
        ("Makefile", "install: install_lastz\n\ninstall_lastz:\n\tcd src && ${MAKE} install\n"),
        (
            "make-include.mak",
            "ifdef LASTZ_INSTALL\ninstallDir = ${LASTZ_INSTALL}\nelse\ninstallDir = ${HOME}/lastz-distrib/bin\nendif\n",
        ),
        (
            "src/Makefile",
            "include ../make-include.mak\n\nlastz: lastz.c\n\t$(CC) -o lastz lastz.c\n\ninstall: lastz\n\tinstall lastz ${installDir}\n",
        ),
        ("src/lastz.c", "int main(void) { return 0; }\n"),
    ]);
    assert!(
        text.contains("        return [f\"LASTZ_INSTALL={self.prefix.bin}\", \"install\"]\n"),
        "{text}"
    );
    assert!(!text.contains("FIXME: check how the Makefile"), "{text}");

    let text = draft_of(&[
        ("README.md", "# seqprep\n"),
        (
            "Makefile",
            "SeqPrep: SeqPrep.o\n\t$(CC) SeqPrep.o -o $@\n\ninstall: SeqPrep\n\t-cp SeqPrep $(HOME)/bin\n",
        ),
        ("SeqPrep.c", "int main(void) { return 0; }\n"),
    ]);
    assert!(
        text.contains("    def install(self, spec, prefix):\n"),
        "{text}"
    );
    assert!(!text.contains("def install_targets"), "{text}");

    let text = draft_of(&[
        ("README.md", "# httping\n"),
        ("configure", "#! /bin/sh\necho > makefile.inc\n"),
        (
            "Makefile",
            "PREFIX?=/usr\nBINDIR=$(PREFIX)/bin\n\nhttping: main.c\n\t$(CC) -o httping main.c\n\ninstall: httping\n\tinstall httping $(DESTDIR)/$(BINDIR)\n",
        ),
        ("main.c", "int main(void) { return 0; }\n"),
    ]);
    assert!(text.contains("(AutotoolsPackage):"), "{text}");
    assert!(
        text.contains("        return [f\"PREFIX={self.prefix}\", \"install\"]\n"),
        "{text}"
    );
}

/// A Python project's requirement floors: `>=` is the version range, one
/// above every version the target Spack's recipe declares is left out with
/// a note (`spack audit` refuses it), and numpy asked for by the build and
/// at run time is one dependency of both types.
#[test]
fn python_floors_the_target_spack_knows_and_one_dependency_per_package() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[build-system]\nrequires = [\"setuptools>=77.0.3\", \"numpy>=1.20\"]\n\
         build-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"floors\"\n\
         version = \"1.0\"\nrequires-python = \">=3.9\"\ndependencies = [\"numpy>=1.20\"]\n",
    )
    .unwrap();
    let facts = packsmith_analyze::analyze_dir(
        dir.path(),
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: dir.path().display().to_string(),
            release_tag: None,
        },
    )
    .unwrap();
    let versions = |list: &[&str]| list.iter().map(|v| v.to_string()).collect::<Vec<_>>();
    let kb = packsmith_spack_knowledge::kb::NameIndex {
        packages: ["py-setuptools", "py-numpy", "python"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        versions: [
            ("py-setuptools".to_string(), versions(&["69.2.0", "68.0.0"])),
            ("py-numpy".to_string(), versions(&["1.26.4", "1.24.2"])),
            ("python".to_string(), versions(&["3.13.0", "3.11.2"])),
        ]
        .into_iter()
        .collect(),
        ..Default::default()
    };
    let brief = build_brief(&facts, TargetSpack::V0_23, &kb);
    let text = render_recipe(&brief, &DraftOptions::default());
    assert!(
        text.contains("depends_on(\"python@3.9:\", type=(\"build\", \"run\"))"),
        "{text}"
    );
    assert!(
        text.contains("depends_on(\"py-setuptools\", type=\"build\")"),
        "{text}"
    );
    assert!(
        text.contains("depends_on(\"py-numpy@1.20:\", type=(\"build\", \"run\"))"),
        "{text}"
    );
    assert_eq!(text.matches("\"py-numpy").count(), 1, "{text}");
    assert!(
        brief.notes.iter().any(|n| n
            .message
            .contains("py-setuptools: the project asks for 77.0.3")),
        "{:?}",
        brief.notes
    );
}
