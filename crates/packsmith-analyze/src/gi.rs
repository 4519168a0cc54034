//! GObject libraries a Python program loads through introspection:
//! `gi.require_version('Gtk', '4.0')` in its sources, which no build file
//! names but whose libraries and typelibs a package must provide.

use crate::context::Ctx;
use packsmith_core::{Evidence, GiRequire};

/// Python sources read at most: a GNOME application names its versions in
/// its entry point, near the top of the tree.
const MAX_SOURCES: usize = 200;

/// Every namespace required, first occurrence each, in file order.
pub fn analyze(ctx: &Ctx<'_>) -> Vec<GiRequire> {
    let sources: Vec<String> = ctx
        .view
        .files()
        .iter()
        .filter(|f| {
            let n = f.name();
            (n.ends_with(".py") || n.ends_with(".py.in")) && !crate::detect::in_noise_dir(f)
        })
        .take(MAX_SOURCES)
        .map(|f| f.rel.clone())
        .collect();
    let mut out: Vec<GiRequire> = Vec::new();
    for file in sources {
        // Other readers report an unreadable file; a scan does not repeat it.
        let Some(text) = ctx.view.read_text(&file, &mut Vec::new()).map(|t| t.text) else {
            continue;
        };
        if !text.contains("require_version") {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let Some((namespace, version)) = require_version(line) else {
                continue;
            };
            if out.iter().any(|g| g.namespace == namespace) {
                continue;
            }
            out.push(GiRequire {
                namespace,
                version,
                evidence: Evidence::new(&file, u32::try_from(n + 1).unwrap_or(u32::MAX)),
            });
        }
    }
    out
}

/// `("Gtk", "4.0")` for a line `gi.require_version('Gtk', '4.0')`.
fn require_version(line: &str) -> Option<(String, String)> {
    let code = line.split('#').next()?;
    let at = code.find("require_version(")?;
    let args = &code[at + "require_version(".len()..];
    let args = &args[..args.find(')')?];
    // Literal strings only: a variable says nothing here.
    let literal = |a: &str| {
        let a = a.trim();
        let inner = a
            .strip_prefix('\'')
            .and_then(|r| r.strip_suffix('\''))
            .or_else(|| a.strip_prefix('"').and_then(|r| r.strip_suffix('"')))?;
        let plain =
            !inner.is_empty() && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
        plain.then(|| inner.to_string())
    };
    let mut parts = args.split(',');
    let namespace = literal(parts.next()?)?;
    let version = literal(parts.next()?)?;
    Some((namespace, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_and_versions_are_read() {
        assert_eq!(
            require_version("gi.require_version('Gtk', '4.0')"),
            Some(("Gtk".into(), "4.0".into()))
        );
        assert_eq!(
            require_version("    gi.require_version(\"Adw\", \"1\")  # libadwaita"),
            Some(("Adw".into(), "1".into()))
        );
        assert_eq!(require_version("# gi.require_version('Gtk', '3.0')"), None);
        assert_eq!(require_version("gi.require_version(name, version)"), None);
    }

    #[test]
    fn the_first_of_each_namespace_in_the_tree() {
        let (_d, view) = crate::view::test_view_of(&[
            (
                "src/main.py",
                "import gi\ngi.require_version('Gtk', '4.0')\ngi.require_version('Adw', '1')\n",
            ),
            ("src/other.py", "gi.require_version('Gtk', '4.0')\n"),
            ("tests/test_x.py", "gi.require_version('Soup', '3.0')\n"),
        ]);
        let ctx = Ctx::new(&view);
        let found: Vec<(String, String, String)> = analyze(&ctx)
            .into_iter()
            .map(|g| {
                (
                    g.namespace,
                    g.version,
                    format!("{}:{}", g.evidence.file, g.evidence.line),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("Gtk".into(), "4.0".into(), "src/main.py:2".into()),
                ("Adw".into(), "1".into(), "src/main.py:3".into())
            ]
        );
    }
}
