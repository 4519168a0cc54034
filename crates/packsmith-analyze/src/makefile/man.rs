//! Manual pages a Makefile build leaves out: roff pages at the top of the
//! tree or in `man/` or `doc/` that no Makefile read names, by file or by
//! a manual directory. A packager installs them by hand.

use crate::context::Ctx;

/// Directories below the top where projects keep their manual pages.
const MAN_DIRS: &[&str] = &["man", "doc", "docs"];

/// Words a Makefile uses when it installs manual pages itself.
const MAN_INSTALL_WORDS: &[&str] = &[
    "MANDIR",
    "mandir",
    "MAN1DIR",
    "man1dir",
    "share/man",
    "/man1",
    "/man8",
    "man1/",
    "man8/",
];

/// The manual pages no Makefile in `makefiles` installs, as paths from the root.
pub(super) fn uninstalled(ctx: &mut Ctx<'_>, makefiles: &[(String, String)]) -> Vec<String> {
    if makefiles
        .iter()
        .any(|(_, text)| MAN_INSTALL_WORDS.iter().any(|w| text.contains(w)))
    {
        return Vec::new();
    }
    let candidates: Vec<String> = ctx
        .view
        .files()
        .iter()
        .filter(|f| f.depth == 0 || (f.depth == 1 && MAN_DIRS.contains(&f.dir())))
        .filter(|f| is_man_page_name(f.name()))
        .map(|f| f.rel.clone())
        .collect();
    candidates
        .into_iter()
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            !makefiles.iter().any(|(_, text)| text.contains(name))
        })
        .filter(|path| ctx.read(path).is_some_and(|text| is_roff(&text)))
        .collect()
}

/// `name.1` … `name.8`.
fn is_man_page_name(name: &str) -> bool {
    match name.rsplit_once('.') {
        Some((stem, section)) => {
            !stem.is_empty()
                && section.len() == 1
                && ('1'..='8').contains(&section.chars().next().unwrap_or('0'))
        }
        None => false,
    }
}

/// Whether a text is a roff manual page (`.TH` for man, `.Dd` for mdoc).
fn is_roff(text: &str) -> bool {
    text.lines()
        .take(40)
        .any(|l| l.starts_with(".TH ") || l.starts_with(".Dd") || l.starts_with(".Dt "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_page_names() {
        assert!(is_man_page_name("vi.1"));
        assert!(is_man_page_name("mdio.8"));
        assert!(!is_man_page_name("notes.txt"));
        assert!(!is_man_page_name("v1.10"));
        assert!(!is_man_page_name(".1"));
    }

    fn uninstalled_in(files: &[(&str, &str)]) -> Vec<String> {
        let (_dir, view) = crate::view::test_view_of(files);
        let mut ctx = Ctx::new(&view);
        let makefiles: Vec<(String, String)> = files
            .iter()
            .filter(|(p, _)| *p == "Makefile")
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        uninstalled(&mut ctx, &makefiles)
    }

    const PAGE: &str = ".TH VI 1\n.SH NAME\nvi \\- editor\n";

    #[test]
    fn a_page_the_makefile_never_names_is_left_out() {
        let found = uninstalled_in(&[
            ("Makefile", "install: vi\n\tcp vi $(DESTDIR)$(PREFIX)/bin\n"),
            ("vi.1", PAGE),
            ("v1.2", "not roff"),
        ]);
        assert_eq!(found, vec!["vi.1".to_string()]);
    }

    #[test]
    fn a_makefile_that_installs_manual_pages_leaves_none() {
        let by_dir = uninstalled_in(&[
            (
                "Makefile",
                "install:\n\tcp tool.8 $(DESTDIR)$(MANDIR)/man8/\n",
            ),
            ("tool.8", PAGE),
        ]);
        assert!(by_dir.is_empty());
        let by_name = uninstalled_in(&[
            (
                "Makefile",
                "install:\n\tinstall -m644 doc/tool.1 $(DESTDIR)/usr/share/doc\n",
            ),
            ("doc/tool.1", PAGE),
        ]);
        assert!(by_name.is_empty());
    }
}
