//! Whether a project under a GNU licence allows later versions of it: the
//! licence text leaves that to the project, whose notices (a source file's
//! header, the README) say "or (at your option) any later version".

use super::normal::Normalised;
use crate::context::Ctx;
use crate::view::{RepoFile, RepoView};
use packsmith_core::Evidence;

/// Words that allow later versions (lower case, single-spaced): the GNU
/// notice, SPDX's `-or-later` and the `+` shorthands.
const LATER_PHRASES: &[&str] = &[
    "any later version",
    "-or-later",
    "gplv2+",
    "gplv3+",
    "gpl-2.0+",
    "gpl-3.0+",
    "gpl2+",
    "gpl3+",
    "lgplv2+",
    "lgplv2.1+",
    "lgplv3+",
    "lgpl-2.1+",
    "lgpl-3.0+",
    "agplv3+",
    "agpl-3.0+",
];

/// READMEs, read whole: their licence section is usually at the end.
const READMES: &[&str] = &[
    "README",
    "README.md",
    "README.rst",
    "README.txt",
    "README.markdown",
];

/// Directories one level down whose sources carry the headers too.
const SOURCE_DIRS: &[&str] = &["src", "source", "lib", "include"];

/// Extensions of files whose header holds a licence notice.
const SOURCE_EXTENSIONS: &[&str] = &[
    "c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "f", "f90", "f95", "py", "rs", "go", "java",
    "js", "ts", "pas", "pp", "lpr", "vala", "cmake",
];

/// Build files at the top that often open with the project's notice.
const BUILD_FILES: &[&str] = &["CMakeLists.txt", "meson.build", "configure.ac"];

/// How many source files are looked at, and how much of each: enough for
/// the top of a tree, bounded for a large one.
const MAX_SOURCES: usize = 24;
const HEADER_LINES: usize = 60;

/// Where the project allows later versions: first `notice` (a licence
/// file that only names its licence, with its name), then the READMEs,
/// then the headers of the sources at the top of the tree.
pub fn statement(ctx: &mut Ctx<'_>, notice: Option<(&str, &str)>) -> Option<Evidence> {
    if let Some((name, text)) = notice {
        if let Some(line) = later_line(text) {
            return Some(Evidence::new(name, line));
        }
    }
    let readmes = READMES
        .iter()
        .filter(|n| ctx.view.exists(n))
        .map(|n| (*n, None));
    let sources = header_files(ctx.view).map(|f| (f.rel.as_str(), Some(HEADER_LINES)));
    readmes.chain(sources).find_map(|(rel, lines)| {
        // A phrase search is no reason to warn: the readers that need
        // these files report their problems.
        let text = ctx.view.read_text(rel, &mut Vec::new())?.text;
        let head = match lines {
            Some(n) => text.split_inclusive('\n').take(n).collect(),
            None => text,
        };
        later_line(&head).map(|line| Evidence::new(rel, line))
    })
}

/// The line of the first phrase allowing later versions.
fn later_line(text: &str) -> Option<u32> {
    let normal = Normalised::new(text);
    let at = LATER_PHRASES.iter().filter_map(|p| normal.find(p)).min()?;
    Some(normal.line_of(at))
}

/// The build files and sources at the top of the tree and one level into
/// its source directories, at most [`MAX_SOURCES`].
fn header_files(view: &RepoView) -> impl Iterator<Item = &RepoFile> {
    view.files()
        .iter()
        .filter(|f| f.depth == 0 || (f.depth == 1 && SOURCE_DIRS.contains(&f.dir())))
        .filter(|f| BUILD_FILES.contains(&f.name()) || has_source_extension(f.name()))
        .take(MAX_SOURCES)
}

fn has_source_extension(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| SOURCE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::statement;
    use crate::context::Ctx;
    use crate::view::test_view_of;
    use packsmith_core::Evidence;

    fn statement_in(files: &[(&str, &str)]) -> Option<Evidence> {
        let (_dir, view) = test_view_of(files);
        statement(&mut Ctx::new(&view), None)
    }

    #[test]
    fn a_source_header_allows_later_versions() {
        let header = "/* demo\n * it under the terms of the GNU General Public License as published by\n * the Free Software Foundation, either version 3 of the License, or\n * (at your option) any later version.\n */\nint main(void) { return 0; }\n";
        assert_eq!(
            statement_in(&[
                ("src/main.c", header),
                ("CMakeLists.txt", "project(demo)\n")
            ]),
            Some(Evidence::new("src/main.c", 4))
        );
    }

    #[test]
    fn an_spdx_header_allows_later_versions() {
        assert_eq!(
            statement_in(&[("demo.py", "# SPDX-License-Identifier: LGPL-2.1-or-later\n")]),
            Some(Evidence::new("demo.py", 1))
        );
    }

    #[test]
    fn the_readme_is_read_before_the_sources() {
        let readme = "# demo\n\n## Licence\n\nGPLv3+, see COPYING.\n";
        assert_eq!(
            statement_in(&[("README.md", readme), ("a.c", "// any later version\n")]),
            Some(Evidence::new("README.md", 5))
        );
    }

    #[test]
    fn no_statement_deep_in_the_tree_or_late_in_a_file() {
        let late = format!(
            "{}// or (at your option) any later version\n",
            "int x;\n".repeat(80)
        );
        assert_eq!(
            statement_in(&[
                ("src/deep/a.c", "// or (at your option) any later version\n"),
                ("b.c", &late),
                ("README.md", "Requires CMake 3.20 or later.\n"),
            ]),
            None
        );
    }

    #[test]
    fn a_notice_speaks_for_itself() {
        let (_dir, view) = test_view_of(&[("x.c", "int x;\n")]);
        let notice = "GNU Lesser General Public License, version 2.1 or any later version";
        assert_eq!(
            statement(&mut Ctx::new(&view), Some(("COPYING", notice))),
            Some(Evidence::new("COPYING", 1))
        );
    }
}
