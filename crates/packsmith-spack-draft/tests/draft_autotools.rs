//! Autotools drafts on projects new to Spack: a tree without a generated
//! `configure` needs the GNU tools for Spack's autoreconf phase; a build
//! that names MPI's compiler wrappers depends on `mpi` and hands configure
//! the wrappers; a library probed only under a shell condition (a GPU
//! switch that defaults off) is not a dependency. A plain Makefile gets
//! its install prefix under the variable name it uses, and depends on what
//! it links, asks pkg-config about and its sources include on every build.

use std::path::Path;

use packsmith_spack_draft::brief::{build_brief, SpackBrief};
use packsmith_spack_draft::draft::{render_recipe, DraftOptions};
use packsmith_spack_knowledge::kb::NameIndex;
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::target::TargetSpack;

const CONFIGURE_AC: &str = r#"AC_INIT([bench],[4.0],[someone@example.org])
AM_INIT_AUTOMAKE([-Wall])
AC_PROG_CC([mpicc])
AC_PROG_CXX([mpic++ mpicxx])
AC_CHECK_HEADERS([mpi.h])
AC_SEARCH_LIBS([MPI_Comm_rank], [mpi mpi++ mpich mpichcxx mpi_cxx])
AC_ARG_ENABLE([cuda],
              [AS_HELP_STRING([--enable-cuda], [enable cuda benchmarks (default is no).])],
              [], [enable_cuda=no])
AS_CASE([$enable_cuda], [yes], [build_cuda=yes])
AS_IF([test "x$build_cuda" = xyes], [
  AC_SEARCH_LIBS([cuPointerGetAttribute], [cuda], [], [AC_MSG_ERROR([no libcuda])])
])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
"#;

fn kb() -> NameIndex {
    let packages = [
        "autoconf",
        "automake",
        "libtool",
        "m4",
        "cuda",
        "openmpi",
        "zlib",
        "bzip2",
        "xz",
        "libmnl",
        "pkgconfig",
    ];
    NameIndex {
        packages: packages.iter().map(|s| s.to_string()).collect(),
        virtuals: [("mpi".to_string(), vec!["openmpi".to_string()])]
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

fn brief_of(dir: &Path) -> SpackBrief {
    let facts = packsmith_analyze::analyze_dir(
        dir,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: "bench".into(),
            release_tag: None,
        },
    )
    .unwrap();
    build_brief(&facts, TargetSpack::V0_23, &kb())
}

fn project(with_configure: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("configure.ac"), CONFIGURE_AC).unwrap();
    std::fs::write(dir.path().join("Makefile.am"), "bin_PROGRAMS = bench\n").unwrap();
    if with_configure {
        std::fs::write(dir.path().join("configure"), "#!/bin/sh\n").unwrap();
    }
    dir
}

#[test]
fn mpi_wrappers_make_mpi_a_dependency_and_reach_configure() {
    let dir = project(false);
    let b = brief_of(dir.path());
    let deps: Vec<&str> = b.dependencies.iter().map(|d| d.spec.as_str()).collect();
    assert!(deps.contains(&"mpi"), "{deps:?}");
    // AC_SEARCH_LIBS's names are alternatives: MPI, not each library.
    assert!(!deps.iter().any(|d| d.starts_with("mpich")), "{deps:?}");
    assert!(
        !deps.contains(&"cuda"),
        "a probe behind --enable-cuda: {deps:?}"
    );
    assert_eq!(b.mpi_wrappers, ["CC", "CXX"]);
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains(
            "        args = [f\"CC={self.spec['mpi'].mpicc}\", f\"CXX={self.spec['mpi'].mpicxx}\"]\n"
        ),
        "{text}"
    );
    let recipe = parse_recipe(&text, "package.py");
    assert!(recipe.syntax_errors.is_empty(), "{text}");
}

#[test]
fn a_tree_without_configure_declares_the_autoreconf_tools() {
    let build_only = |b: &SpackBrief, tool: &str| {
        b.dependencies
            .iter()
            .any(|d| d.spec == tool && d.types == ["build"] && d.when.is_none())
    };
    let bare = brief_of(project(false).path());
    for tool in ["autoconf", "automake", "libtool", "m4"] {
        assert!(build_only(&bare, tool), "{tool}: {:#?}", bare.dependencies);
    }
    let shipped = brief_of(project(true).path());
    assert!(
        !build_only(&shipped, "autoconf"),
        "{:#?}",
        shipped.dependencies
    );
}

#[test]
fn a_makefile_install_gets_the_prefix_under_its_own_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Makefile"),
        "prefix = /usr/local\nbindir = $(prefix)/bin\n\nall: cbordump\n\ncbordump: cbordump.c\n\t$(CC) -o $@ $<\n\ninstall: all\n\tinstall -D cbordump $(DESTDIR)$(bindir)/cbordump\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("cbordump.c"),
        "int main(void) { return 0; }\n",
    )
    .unwrap();
    let b = brief_of(dir.path());
    assert_eq!(b.make_prefix_variable.as_deref(), Some("prefix"));
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains("        return [f\"prefix={self.prefix}\", \"install\"]\n"),
        "{text}"
    );
    assert!(!text.contains("FIXME: check how the Makefile"), "{text}");
}

/// A plain Makefile's `-l` libraries and pkg-config modules, and the
/// well-known headers its sources include outside any `#if`, are its
/// dependencies; the C library's own and a conditional include are not.
#[test]
fn a_makefile_depends_on_what_it_links_queries_and_includes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Makefile"),
        "PREFIX ?= /usr/local\nCFLAGS += $(shell pkg-config --cflags libmnl)\nLDLIBS += -lz -lm $(shell pkg-config --libs libmnl)\n\nall: scan\n\nscan: scan.c\n\t$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)\n\ninstall: all\n\tinstall -D scan $(DESTDIR)$(PREFIX)/bin/scan\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("scan.c"),
        "#include <bzlib.h>\n#ifdef WITH_XZ\n#include <lzma.h>\n#endif\nint main(void) { return 0; }\n",
    )
    .unwrap();
    let b = brief_of(dir.path());
    let deps: Vec<(&str, Vec<&str>)> = b
        .dependencies
        .iter()
        .map(|d| {
            (
                d.spec.as_str(),
                d.types.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    for wanted in ["zlib", "libmnl", "bzip2"] {
        assert!(deps.iter().any(|(s, _)| *s == wanted), "{wanted}: {deps:?}");
    }
    assert!(deps.contains(&("pkgconfig", vec!["build"])), "{deps:?}");
    assert!(!deps.iter().any(|(s, _)| *s == "xz"), "{deps:?}");
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(text.contains("depends_on(\"zlib\")"), "{text}");
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
}

/// A tree whose configure.ac ships as the template `configure.ac.in`
/// (cimfomfa) copies it before autoreconf.
#[test]
fn a_configure_template_is_copied_before_autoreconf() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("configure.ac.in"), CONFIGURE_AC).unwrap();
    std::fs::write(dir.path().join("Makefile.am"), "bin_PROGRAMS = bench\n").unwrap();
    let b = brief_of(dir.path());
    assert_eq!(b.configure_template.as_deref(), Some("configure.ac.in"));
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains("    def autoreconf(self, spec, prefix):\n        # configure.ac ships as the template configure.ac.in\n        copy(\"configure.ac.in\", \"configure.ac\")\n        autoreconf(\"--install\", \"--verbose\", \"--force\")\n"),
        "{text}"
    );
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
    // A tree with configure.ac needs no such step.
    let plain = brief_of(project(false).path());
    assert_eq!(plain.configure_template, None);
}

/// PopLDdecay's shape: `configure` committed as mode 644. The draft sets its
/// executable bit before the configure phase; an executable one gets no
/// such step.
#[cfg(unix)]
#[test]
fn a_configure_without_its_executable_bit_is_made_executable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("configure.ac"), CONFIGURE_AC).unwrap();
    std::fs::write(dir.path().join("Makefile.am"), "bin_PROGRAMS = bench\n").unwrap();
    let configure = dir.path().join("configure");
    std::fs::write(&configure, "#! /bin/sh\necho configured\n").unwrap();
    std::fs::set_permissions(&configure, std::fs::Permissions::from_mode(0o644)).unwrap();
    let b = brief_of(dir.path());
    assert!(b.configure_made_executable);
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains("    @run_before(\"configure\")\n    def make_configure_executable(self):\n        # configure ships without its executable bit\n        set_executable(self.configure_abs_path)\n"),
        "{text}"
    );
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
    std::fs::set_permissions(&configure, std::fs::Permissions::from_mode(0o755)).unwrap();
    let b = brief_of(dir.path());
    assert!(!b.configure_made_executable);
    assert!(!render_recipe(&b, &DraftOptions::default()).contains("set_executable"));
}

/// rasdaemon's shape: configure.ac moves `sysconfdir` to `/etc` when it is
/// left at its default, and `make install` then writes outside the prefix.
/// The draft gives the option pointing into the prefix; a help string that
/// mentions the option, or a comment, is no such assignment.
#[test]
fn a_configure_that_moves_sysconfdir_to_etc_gets_it_in_the_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let moved = format!(
        "{CONFIGURE_AC}test \"$sysconfdir\" = '${{prefix}}/etc' && sysconfdir=/etc\n# localstatedir=/var is the admin's call\nAS_HELP_STRING([--runstatedir=/run], [where the pid goes])\n"
    );
    std::fs::write(dir.path().join("configure.ac"), moved).unwrap();
    std::fs::write(dir.path().join("Makefile.am"), "bin_PROGRAMS = bench\n").unwrap();
    let b = brief_of(dir.path());
    assert_eq!(b.prefix_dirs, vec!["sysconfdir".to_string()]);
    let text = render_recipe(&b, &DraftOptions::default());
    assert!(
        text.contains("f\"--sysconfdir={self.prefix.etc}\""),
        "{text}"
    );
    assert!(
        !text.contains("--localstatedir") && !text.contains("--runstatedir="),
        "{text}"
    );
    assert!(
        parse_recipe(&text, "package.py").syntax_errors.is_empty(),
        "{text}"
    );
    assert!(brief_of(project(false).path()).prefix_dirs.is_empty());
}
