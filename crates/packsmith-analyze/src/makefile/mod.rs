//! Reader for plain Makefile builds: the libraries the build links
//! (`-lfoo`) and the pkg-config modules it queries. Read from the primary
//! Makefile, the files it includes, and the Makefiles of the
//! subdirectories it names (`$(MAKE) -C src`, `SUBDIRS = lib src`).

mod chores;
mod eval;
mod goals;
mod install_dest;
mod man;
mod scan;

pub(crate) use eval::logical_lines;

use crate::context::Ctx;
pub(crate) use chores::is_task_runner;
use eval::{Evaluation, Findings};
pub(crate) use goals::rule_targets;
pub(crate) use install_dest::{install_destination, InstallDestination};
use packsmith_core::{BuildSystemFact, BuildSystemKind, Evidence, MakefileFacts, Sourced};

/// Most Makefiles read, includes and subdirectories together.
const MAX_MAKEFILES: usize = 16;

/// Makefile names in the order make looks for them.
const MAKEFILE_NAMES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];

/// Libraries every C and C++ toolchain brings: never a dependency.
const TOOLCHAIN_LIBRARIES: &[&str] = &[
    "m", "c", "dl", "pthread", "rt", "util", "stdc++", "gcc", "gcc_s", "atomic", "resolv",
];

/// Build tools a Makefile may run that no C toolchain brings: translations,
/// GLib resources and schemas, desktop files, manual pages.
const KNOWN_TOOLS: &[&str] = &[
    "msgfmt",
    "xgettext",
    "msgmerge",
    "glib-compile-resources",
    "glib-compile-schemas",
    "desktop-file-install",
    "desktop-file-validate",
    "scdoc",
    "help2man",
    "asciidoctor",
    "pandoc",
];

/// The Makefile facts when the primary build system is a plain Makefile.
pub fn analyze(
    ctx: &mut Ctx<'_>,
    systems: &[BuildSystemFact],
    primary: Option<BuildSystemKind>,
) -> Option<MakefileFacts> {
    if primary != Some(BuildSystemKind::Makefile) {
        return None;
    }
    let top = &systems
        .iter()
        .find(|s| s.kind == BuildSystemKind::Makefile)?
        .evidence
        .file;
    let mut read: Vec<(String, String)> = Vec::new();
    let mut findings = evaluate(ctx, top, &mut read)?;
    let top_text = read[0].1.clone();
    for sub in subdirectory_makefiles(ctx, top, &top_text) {
        if read.len() >= MAX_MAKEFILES {
            break;
        }
        if let Some(f) = evaluate(ctx, &sub, &mut read) {
            findings.libraries.extend(f.libraries);
            findings.modules.extend(f.modules);
            findings.uses_pkg_config |= f.uses_pkg_config;
        }
    }
    let builds_itself = |name: &str| read.iter().any(|(_, text)| builds_library(text, name));
    // Once per name: each check searches every file read.
    let libraries = first_of_each(findings.libraries)
        .into_iter()
        .filter(|l| !TOOLCHAIN_LIBRARIES.contains(&l.value.as_str()) && !builds_itself(&l.value))
        .collect();
    let tools = KNOWN_TOOLS.iter().filter_map(|tool| {
        read.iter().find_map(|(path, text)| {
            let line = text
                .lines()
                .position(|l| !l.trim_start().starts_with('#') && names_word(l, tool))?;
            let line = u32::try_from(line + 1).unwrap_or(u32::MAX);
            Some(Sourced::new(tool.to_string(), Evidence::new(path, line)))
        })
    });
    let tools = tools.collect();
    let uninstalled_man_pages = man::uninstalled(ctx, &read);
    let writes_home = read.iter().find_map(|(path, text)| home_use(path, text));
    let mut unbuilt = goals::unbuilt_programs(&read[0].1, &read[0].0);
    if unbuilt.programs.is_empty() {
        unbuilt.written_to = goals::programs_written_elsewhere(&read[0].1);
    }
    let mpi_compilers = read
        .iter()
        .flat_map(|(path, text)| mpi_compilers(path, text))
        .collect();
    Some(MakefileFacts {
        mpi_compilers,
        unbuilt_programs: unbuilt.programs,
        programs_written_to: unbuilt.written_to,
        writes_home,
        tools,
        uninstalled_man_pages,
        libraries,
        pkg_config_modules: first_of_each(findings.modules),
        uses_pkg_config: findings.uses_pkg_config,
        files: read.into_iter().map(|(path, _)| path).collect(),
    })
}

/// Compiler variables MPI's wrappers name.
const MPI_WRAPPERS: &[&str] = &[
    "mpicc", "mpicxx", "mpic++", "mpiCC", "mpif90", "mpif77", "mpifort",
];

/// `CC = mpicc` (or `CXX`, `FC`, `F77`, `F90` set to a wrapper) outside any
/// `ifeq`/`ifdef` block: the variable's name, where it is set.
fn mpi_compilers(path: &str, text: &str) -> Vec<Sourced<String>> {
    let mut depth = 0usize;
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('\t') {
            continue;
        }
        let word = line.split_whitespace().next().unwrap_or("");
        match word {
            "ifeq" | "ifneq" | "ifdef" | "ifndef" => depth += 1,
            "endif" => depth = depth.saturating_sub(1),
            _ => {}
        }
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        let name = name.trim_end_matches([':', '?']).trim();
        let compiler = value.split_whitespace().next().unwrap_or("");
        let compiler = compiler.rsplit('/').next().unwrap_or(compiler);
        if depth == 0
            && matches!(name, "CC" | "CXX" | "FC" | "F77" | "F90")
            && MPI_WRAPPERS.contains(&compiler)
            && !found.iter().any(|f: &Sourced<String>| f.value == name)
        {
            let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
            found.push(Sourced::new(name.to_string(), Evidence::new(path, line)));
        }
    }
    found
}

/// Reads the Makefile at `file` as one make invocation in its directory,
/// with the files it includes; each file read is added to `read`.
fn evaluate(ctx: &mut Ctx<'_>, file: &str, read: &mut Vec<(String, String)>) -> Option<Findings> {
    let text = ctx.read(file)?;
    read.push((file.to_string(), text.clone()));
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    let mut eval = Evaluation::new(dir);
    let mut include = |path: &str| {
        let fresh = ctx.view.exists(path) && !read.iter().any(|(p, _)| p == path);
        if !fresh || read.len() >= MAX_MAKEFILES {
            return None;
        }
        let text = ctx.read(path)?;
        read.push((path.to_string(), text.clone()));
        Some(text)
    };
    eval.read(file, &text, &mut include);
    Some(eval.finish())
}

/// The Makefiles one directory below the top one whose directory the top
/// Makefile names as a word: the subdirectories it builds. Tests,
/// examples and vendored code are not the package's dependencies.
fn subdirectory_makefiles(ctx: &Ctx<'_>, top: &str, top_text: &str) -> Vec<String> {
    let root = top.rsplit_once('/').map_or("", |(d, _)| d);
    let depth = if root.is_empty() {
        1
    } else {
        root.split('/').count() as u32 + 1
    };
    let mut found: Vec<&crate::view::RepoFile> = ctx
        .view
        .files()
        .iter()
        .filter(|f| f.depth == depth && MAKEFILE_NAMES.contains(&f.name()))
        .filter(|f| root.is_empty() || f.dir().starts_with(&format!("{root}/")))
        .filter(|f| !crate::detect::in_noise_dir(f))
        .filter(|f| names_word(top_text, f.dir().rsplit('/').next().unwrap_or_default()))
        .collect();
    // One per directory, the name make would pick.
    found.sort_by_key(|f| {
        let rank = MAKEFILE_NAMES.iter().position(|n| *n == f.name());
        (f.dir().to_string(), rank)
    });
    found.dedup_by(|a, b| a.dir() == b.dir());
    found.into_iter().map(|f| f.rel.clone()).collect()
}

/// The first line that puts something under `$(HOME)` during the build:
/// the sandbox's HOME is not writable. A default install prefix under
/// HOME does not count, since the package sets the prefix.
fn home_use(path: &str, text: &str) -> Option<Evidence> {
    text.lines().enumerate().find_map(|(n, line)| {
        let line_text = line.trim_start();
        let uses = ["$(HOME)", "${HOME}"].iter().any(|h| line_text.contains(h));
        if !uses || line_text.starts_with('#') {
            return None;
        }
        let assigned = line_text
            .split_once('=')
            .map(|(name, _)| name.trim_end_matches([':', '?', '+', ' ', '\t']));
        if assigned.is_some_and(|name| name.to_ascii_uppercase().ends_with("PREFIX")) {
            return None;
        }
        Some(Evidence::new(
            path,
            u32::try_from(n + 1).unwrap_or(u32::MAX),
        ))
    })
}

/// Whether `word` appears in `text` with no name character on either side.
fn names_word(text: &str, word: &str) -> bool {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    !word.is_empty()
        && text.match_indices(word).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + word.len()..].chars().next();
            !before.is_some_and(is_name_char) && !after.is_some_and(is_name_char)
        })
}

/// Whether a Makefile builds `lib<name>` itself (`libfoo.a`, `libfoo.so`):
/// then `-lfoo` links the project's own library.
fn builds_library(text: &str, name: &str) -> bool {
    let stem = format!("lib{name}.");
    text.match_indices(&stem).any(|(i, _)| {
        let ext = &text[i + stem.len()..];
        ["a", "so", "dylib", "$"].iter().any(|e| {
            ext.starts_with(e) && !ext[e.len()..].starts_with(|c: char| c.is_ascii_alphabetic())
        })
    })
}

/// The first occurrence of each value, in order.
fn first_of_each(items: impl IntoIterator<Item = Sourced<String>>) -> Vec<Sourced<String>> {
    // A set of the names seen: a generated Makefile can name thousands.
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|item| seen.insert(item.value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::Evidence;

    fn analyze_tree(files: &[(&str, &str)]) -> Option<MakefileFacts> {
        let (_dir, view) = crate::view::test_view_of(files);
        let mut ctx = Ctx::new(&view);
        let mut systems = crate::detect::detect(&view);
        let primary = crate::detect::choose_primary(&mut systems, None, 0);
        analyze(&mut ctx, &systems, primary)
    }

    fn values(items: &[Sourced<String>]) -> Vec<&str> {
        items.iter().map(|s| s.value.as_str()).collect()
    }

    #[test]
    fn fakehttp_shape() {
        let facts = analyze_tree(&[
            (
                "Makefile",
                "override LDFLAGS+=-lnetfilter_queue -lnfnetlink -lmnl\n\
                 ifeq ($(DEBUG), 1)\n\toverride LDFLAGS += -fsanitize=address\nendif\n\
                 all: fakehttp\nfakehttp: main.o\n\t$(CC) main.o -o $@ $(LDFLAGS) -lpthread\n",
            ),
            ("src/main.c", "int main(void) { return 0; }\n"),
        ])
        .unwrap();
        assert_eq!(facts.files, ["Makefile"]);
        assert_eq!(
            values(&facts.libraries),
            ["netfilter_queue", "nfnetlink", "mnl"]
        );
        assert_eq!(facts.libraries[0].evidence, Evidence::new("Makefile", 1));
        assert!(!facts.uses_pkg_config);
    }

    #[test]
    fn an_mpi_wrapper_as_the_compiler_outside_a_conditional_is_mpi() {
        let facts = analyze_tree(&[(
            "Makefile",
            "CC = mpicc\nifeq ($(GPU), ON)\nCXX = mpicxx\nendif\nFC := /usr/bin/mpif90 -O2\n\
             all: t\nt: t.o\n\t$(CC) -o t t.o\n",
        )])
        .unwrap();
        assert_eq!(values(&facts.mpi_compilers), ["CC", "FC"]);
        assert_eq!(
            facts.mpi_compilers[0].evidence,
            Evidence::new("Makefile", 1)
        );
        let plain = analyze_tree(&[("Makefile", "CC = gcc\nall: t\nt: t.o\n\t$(CC) -o t t.o\n")]);
        assert!(plain.unwrap().mpi_compilers.is_empty());
    }

    #[test]
    fn includes_and_named_subdirectories_are_read_tests_are_not() {
        let facts = analyze_tree(&[
            (
                "Makefile",
                "include config.mk\nall:\n\t$(MAKE) -C src\ncheck:\n\t$(MAKE) -C tests\n",
            ),
            ("config.mk", "PKG_CONFIG = pkg-config\nDEPS = glib-2.0\n"),
            (
                "src/Makefile",
                "CFLAGS += `pkg-config --cflags libnotify`\nLDLIBS = -lmnl -lmnl -lutil\n",
            ),
            ("tests/Makefile", "LDLIBS = -lcheck\n"),
            ("docs/Makefile", "LDLIBS = -lnothing\n"),
        ])
        .unwrap();
        assert_eq!(facts.files, ["Makefile", "config.mk", "src/Makefile"]);
        assert_eq!(values(&facts.libraries), ["mnl"]);
        assert_eq!(values(&facts.pkg_config_modules), ["libnotify"]);
        assert_eq!(
            facts.pkg_config_modules[0].evidence,
            Evidence::new("src/Makefile", 1)
        );
        assert!(facts.uses_pkg_config);
    }

    #[test]
    fn the_projects_own_library_is_no_dependency() {
        let facts = analyze_tree(&[(
            "Makefile",
            "LDLIBS = -L. -lcore -lz\nlibcore.a: core.o\n\t$(AR) rcs $@ $^\n",
        )])
        .unwrap();
        assert_eq!(values(&facts.libraries), ["z"]);
        assert!(builds_library("lib: libfoo.so.1", "foo"));
        assert!(!builds_library("x: libfoo.h", "foo"));
    }

    #[test]
    fn the_tools_its_recipes_run() {
        let facts = analyze_tree(&[(
            "Makefile",
            "# msgfmt would be nice\nMSGFMT = msgfmt\nall:\n\tglib-compile-resources x.xml\n",
        )])
        .unwrap();
        let tools: Vec<(&str, u32)> = facts
            .tools
            .iter()
            .map(|t| (t.value.as_str(), t.evidence.line))
            .collect();
        assert_eq!(tools, [("msgfmt", 2), ("glib-compile-resources", 4)]);
    }

    #[test]
    fn only_for_a_makefile_build() {
        let cmake = analyze_tree(&[
            ("CMakeLists.txt", "project(x C)\n"),
            ("Makefile", "LDLIBS = -lz\n"),
        ]);
        assert_eq!(cmake, None);
    }

    #[test]
    fn words_stand_alone() {
        assert!(names_word("\t$(MAKE) -C src all", "src"));
        assert!(names_word("SUBDIRS = lib src", "lib"));
        assert!(!names_word("SRCDIR = source", "src"));
        assert!(!names_word("LIBS = -lfoo", "lib"));
    }

    #[test]
    fn home_under_the_build_but_not_as_the_prefix() {
        assert!(home_use("Makefile", "PREFIX = $(HOME)/.local\n# cp x $(HOME)/y\n").is_none());
        let found = home_use("Makefile", "all:\n\ttrue\nMCABAL=$(HOME)/.mcabal\n");
        assert_eq!(found.map(|e| e.line), Some(3));
    }
}
