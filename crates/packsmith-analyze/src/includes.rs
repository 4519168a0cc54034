//! System headers the project's own C and C++ sources include on every
//! build: the libraries its code uses directly, which a recipe lists even
//! when the build files reach them only through another library (a
//! program calling GLib that asks pkg-config for `gtk+-3.0` alone).

use crate::context::Ctx;
use crate::detect::in_noise_dir;
use crate::view::RepoFile;
use packsmith_core::{Evidence, Sourced};

/// Source files read at most: enough for a program's or a library's own
/// code, bounded for trees of thousands of files.
const MAX_FILES: usize = 400;

fn is_c_or_cxx(name: &str) -> bool {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "c" | "cc" | "cpp" | "cxx" | "c++" | "h" | "hh" | "hpp" | "hxx"
    )
}

fn is_header(name: &str) -> bool {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(ext, "h" | "hh" | "hpp" | "hxx")
}

/// Every `#include <…>` outside a preprocessor conditional (an include
/// guard does not count as one) in the sources outside tests, examples and
/// vendored code, first file and line each, leaving out headers the tree
/// itself holds (a vendored copy found through `-I`). Where the tree
/// compiles sources, a header of its own that no file includes is not part
/// of the build (cohomCalg's `polylibgmp.h`, listed only by an MSVC
/// project), so its includes do not count.
pub fn scan_includes(ctx: &mut Ctx<'_>) -> Vec<Sourced<String>> {
    let files: Vec<String> = ctx
        .view
        .files()
        .iter()
        .filter(|f| is_c_or_cxx(f.name()) && !in_noise_dir(f))
        .take(MAX_FILES)
        .map(|f| f.rel.clone())
        .collect();
    let texts: Vec<(String, String)> = files
        .into_iter()
        .filter_map(|file| ctx.read(&file).map(|text| (file, text)))
        .collect();
    let compiles = texts.iter().any(|(file, _)| !is_header(file));
    let included: Vec<&str> = texts
        .iter()
        .flat_map(|(_, text)| included_names(text))
        .map(base_name)
        .collect();
    let mut out: Vec<Sourced<String>> = Vec::new();
    for (file, text) in &texts {
        if compiles && is_header(file) && !included.contains(&base_name(file)) {
            continue;
        }
        for (header, line) in unconditional_includes(text) {
            if out.iter().any(|s| s.value == header) || in_tree(ctx.view.files(), &header) {
                continue;
            }
            out.push(Sourced::new(header, Evidence::new(file.clone(), line)));
        }
    }
    out
}

/// The MPI-IO driver calls of HDF5's C API; matched without regard to
/// case, they are also the start of the Fortran API's names
/// (`h5pset_fapl_mpio_f`).
const HDF5_MPI_IO_CALLS: &[&str] = &["H5Pset_fapl_mpio", "H5Pset_dxpl_mpio"];

fn is_fortran(name: &str) -> bool {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext.to_ascii_lowercase().as_str(),
        "f" | "f90" | "f95" | "f03" | "f08" | "for"
    )
}

/// The first call of HDF5's MPI-IO driver in the C, C++ and Fortran
/// sources outside tests, examples and vendored code (a parallel HDF5 is
/// needed), with its file and line.
pub fn scan_hdf5_mpi_io(ctx: &mut Ctx<'_>) -> Option<Sourced<String>> {
    let own_source =
        |f: &RepoFile| (is_c_or_cxx(f.name()) || is_fortran(f.name())) && !in_noise_dir(f);
    let needles: Vec<(String, &str)> = HDF5_MPI_IO_CALLS
        .iter()
        .map(|c| (c.to_ascii_lowercase(), *c))
        .collect();
    ctx.first_source_line(own_source, MAX_FILES, |line| {
        let code = line.trim_start();
        if code.starts_with("//") || code.starts_with('!') || code.starts_with('*') {
            return None;
        }
        let lower = line.to_ascii_lowercase();
        needles
            .iter()
            .find(|(needle, _)| lower.contains(needle.as_str()))
            .map(|(_, call)| call.to_string())
    })
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Every name a file includes, `"…"` or `<…>`, under any condition.
fn included_names(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|line| {
        let rest = directive(line)?.strip_prefix("include")?.trim_start();
        let (open, close) = match rest.chars().next()? {
            '"' => ('"', '"'),
            '<' => ('<', '>'),
            _ => return None,
        };
        let inner = rest.strip_prefix(open)?;
        inner.split_once(close).map(|(name, _)| name.trim())
    })
}

fn in_tree(files: &[RepoFile], header: &str) -> bool {
    let suffix = format!("/{header}");
    files
        .iter()
        .any(|f| f.rel == header || f.rel.ends_with(&suffix))
}

/// The preprocessor directive on a line (`include <x.h>` for `#  include
/// <x.h>`), or None.
fn directive(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix('#').map(str::trim_start)
}

/// `<…>` includes at conditional depth 0, with their line numbers. The
/// first `#ifndef X` directly followed by `#define X` is an include guard;
/// a directive inside a block comment is text.
fn unconditional_includes(text: &str) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    let mut depth: i32 = 0;
    let mut in_comment = false;
    // The first directive, while it may still open an include guard.
    let mut first: Option<String> = None;
    let mut directives = 0;
    for (idx, line) in text.lines().enumerate() {
        let starts_in_comment = in_comment;
        in_comment = comment_open_after(line, in_comment);
        let Some(d) = directive(line).filter(|_| !starts_in_comment) else {
            continue;
        };
        directives += 1;
        let word: String = d.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let argument = d[word.len()..].split_whitespace().next().unwrap_or("");
        if directives == 2 && word == "define" && first.as_deref() == Some(argument) {
            // `#ifndef X` + `#define X`: the guard, not a condition.
            depth -= 1;
        }
        match word.as_str() {
            "if" | "ifdef" | "ifndef" => {
                depth += 1;
                if directives == 1 && word == "ifndef" {
                    first = Some(argument.to_string());
                }
            }
            "endif" => depth -= 1,
            "include" if depth <= 0 => {
                let rest = d["include".len()..].trim_start();
                if let Some((header, _)) = rest.strip_prefix('<').and_then(|r| r.split_once('>')) {
                    out.push((header.trim().to_string(), idx as u32 + 1));
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a `/* … */` comment is still open at the end of `line`, given
/// whether one was open at its start.
fn comment_open_after(line: &str, mut open: bool) -> bool {
    let mut rest = line;
    loop {
        if open {
            match rest.find("*/") {
                Some(end) => {
                    open = false;
                    rest = &rest[end + 2..];
                }
                None => return true,
            }
        } else {
            match (rest.find("/*"), rest.find("//")) {
                (Some(s), Some(l)) if l < s => return false,
                (Some(s), _) => {
                    open = true;
                    rest = &rest[s + 2..];
                }
                (None, _) => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_includes_every_build_compiles_are_kept() {
        let text = "#include <glib.h>\n#include \"local.h\"\n#ifdef WITH_NOTIFY\n#include <libnotify/notify.h>\n#endif\n#  include <gtk/gtk.h>\n#if defined(__APPLE__)\n#include <CoreFoundation/CoreFoundation.h>\n#else\n#include <X11/Xlib.h>\n#endif\n";
        assert_eq!(
            unconditional_includes(text),
            [("glib.h".to_string(), 1), ("gtk/gtk.h".to_string(), 6)]
        );
    }

    #[test]
    fn an_include_guard_is_not_a_condition() {
        let guarded = "/* app.h */\n#ifndef APP_H\n#define APP_H\n#include <zlib.h>\n#ifdef HAVE_SSL\n#include <openssl/ssl.h>\n#endif\n#endif\n";
        assert_eq!(unconditional_includes(guarded), [("zlib.h".to_string(), 4)]);
        // A conditional that is not a guard still hides what it holds.
        let feature = "#ifndef NO_ZLIB\n#include <zlib.h>\n#endif\n";
        assert_eq!(unconditional_includes(feature), []);
    }

    #[test]
    fn included_names_take_both_quotes_under_any_condition() {
        let text =
            "#include \"local.h\"\n#ifdef X\n#  include <polylib/polylib.h>\n#endif\n#define A 1\n";
        assert_eq!(
            included_names(text).collect::<Vec<_>>(),
            ["local.h", "polylib/polylib.h"]
        );
    }

    #[test]
    fn includes_in_block_comments_are_text() {
        let text = "/*\n#include <zlib.h>\n*/\n#include <curl/curl.h> /* the client */\n";
        assert_eq!(
            unconditional_includes(text),
            [("curl/curl.h".to_string(), 4)]
        );
    }
}
