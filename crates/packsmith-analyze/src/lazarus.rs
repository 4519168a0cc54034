//! A Lazarus project (`.lpi`, Free Pascal with the LCL) at the top of a
//! tree that has no other build system: the program it builds and the
//! widget set it targets, which decide the Lazarus and toolkit a package
//! needs.

use crate::context::Ctx;
use crate::view::RepoView;
use packsmith_core::{Evidence, LazarusProject, Sourced};

/// Files at the top that may run lazbuild with a widget set: distribution
/// build scripts and the project's own.
fn is_build_script(name: &str) -> bool {
    name == "PKGBUILD"
        || name.ends_with(".sh")
        || name.ends_with(".spec")
        || matches!(name, "Makefile" | "makefile" | "build" | "justfile")
}

fn top(rel: &str) -> bool {
    !rel.contains('/')
}

fn project_file(view: &RepoView) -> Option<&str> {
    view.files()
        .iter()
        .find(|f| top(&f.rel) && f.name().ends_with(".lpi"))
        .map(|f| f.rel.as_str())
}

/// Whether the top of the tree holds a Lazarus project.
pub fn has_project(view: &RepoView) -> bool {
    project_file(view).is_some()
}

/// The first `.lpi` at the top of the tree, read.
pub fn analyze(ctx: &Ctx<'_>) -> Option<LazarusProject> {
    let file = project_file(ctx.view)?.to_string();
    let text = ctx
        .view
        .read_text(&file, &mut Vec::new())
        .map(|t| t.text)
        .unwrap_or_default();
    let target = target_of(&text);
    let widgetset = xml_value(&text, "LCLWidgetType")
        .map(|(ws, line)| Sourced::new(ws, Evidence::new(&file, line)))
        .or_else(|| {
            ctx.view
                .files()
                .iter()
                .filter(|f| top(&f.rel) && is_build_script(f.name()))
                .find_map(|f| {
                    let text = ctx.view.read_text(&f.rel, &mut Vec::new())?.text;
                    let (ws, line) = widgetset_flag(&text)?;
                    Some(Sourced::new(ws, Evidence::new(&f.rel, line)))
                })
        });
    let program = target
        .as_deref()
        .and_then(|t| t.rsplit('/').next())
        .unwrap_or_default()
        .to_string();
    Some(LazarusProject {
        desktop_file: desktop_file(ctx.view, &program),
        icons: icons(ctx.view, &program),
        dynamic_units: crate::pascal_units::dynamic_units(ctx.view),
        project_file: file,
        target,
        widgetset,
    })
}

/// The program's desktop entry the tree ships (`data/pascube.desktop`):
/// the one named after it, else the only one.
fn desktop_file(view: &RepoView, program: &str) -> Option<String> {
    let entries: Vec<&str> = view
        .files()
        .iter()
        .filter(|f| f.depth <= 2 && f.name().ends_with(".desktop"))
        .map(|f| f.rel.as_str())
        .collect();
    let named = format!("{program}.desktop");
    entries
        .iter()
        .find(|e| !program.is_empty() && e.rsplit('/').next() == Some(named.as_str()))
        .or(if entries.len() == 1 {
            entries.first()
        } else {
            None
        })
        .map(|e| e.to_string())
}

/// The program's icons whose size the path tells: `…/128x128/<program>.png`
/// (size `128x128`) and `<program>.svg` anywhere (size `scalable`), as
/// (size, path).
fn icons(view: &RepoView, program: &str) -> Vec<(String, String)> {
    if program.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<(String, String)> = view
        .files()
        .iter()
        .filter(|f| f.depth <= 4)
        .filter_map(|f| {
            let (stem, ext) = f.name().rsplit_once('.')?;
            if stem != program {
                return None;
            }
            let size = match ext {
                "svg" => "scalable".to_string(),
                "png" => f.dir().split('/').find(|d| is_icon_size(d))?.to_string(),
                _ => return None,
            };
            Some((size, f.rel.clone()))
        })
        .collect();
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// `128x128`, `48x48`: a hicolor size directory.
fn is_icon_size(dir: &str) -> bool {
    dir.split_once('x')
        .is_some_and(|(w, h)| w == h && !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
}

/// `Value` of the first `<Tag Value="…"/>`, with its 1-based line.
fn xml_value(text: &str, tag: &str) -> Option<(String, u32)> {
    let open = format!("<{tag} Value=\"");
    text.lines().enumerate().find_map(|(n, line)| {
        let rest = &line[line.find(&open)? + open.len()..];
        let value = &rest[..rest.find('"')?];
        (!value.is_empty()).then(|| (value.to_string(), line_no(n)))
    })
}

fn line_no(n: usize) -> u32 {
    u32::try_from(n + 1).unwrap_or(u32::MAX)
}

/// The program a project builds: the `Filename` inside `<Target>`,
/// relative to the project (`bin/cube`); None when it uses macros
/// (`bin/$(TargetCPU)/cube`), whose value lazbuild alone knows.
fn target_of(text: &str) -> Option<String> {
    let after = &text[text.find("<Target>")?..];
    let section = &after[..after.find("</Target>").unwrap_or(after.len())];
    let (path, _) = xml_value(section, "Filename")?;
    let path = path.trim().replace('\\', "/");
    let plain = !path.is_empty() && !path.contains(['$', '(', ')', ' ']) && !path.starts_with('/');
    plain.then_some(path)
}

/// `--widgetset=qt6` or `--ws=qt6` on a line that runs lazbuild.
fn widgetset_flag(text: &str) -> Option<(String, u32)> {
    text.lines().enumerate().find_map(|(n, line)| {
        if !line.contains("lazbuild") {
            return None;
        }
        let value = ["--widgetset=", "--ws="]
            .iter()
            .find_map(|flag| Some(&line[line.find(flag)? + flag.len()..]))?;
        let value: String = value
            .trim_start_matches(['"', '\''])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        (!value.is_empty()).then(|| (value, line_no(n)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LPI: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<CONFIG>
  <ProjectOptions>
    <Title Value="cube"/>
  </ProjectOptions>
  <CompilerOptions>
    <Target>
      <Filename Value="bin/cube"/>
    </Target>
  </CompilerOptions>
</CONFIG>
"#;

    #[test]
    fn the_programs_desktop_entry_and_sized_icons() {
        let (_dir, view) = crate::view::test_view_of(&[
            ("cube.lpi", "<CONFIG/>"),
            ("data/cube.desktop", "[Desktop Entry]\n"),
            ("data/icons/128x128/cube.png", "png"),
            ("data/icons/256x256/cube.png", "png"),
            ("data/icons/256x256/other.png", "png"),
            ("data/skybox.png", "png"),
            ("cube.ico", "ico"),
        ]);
        assert_eq!(
            desktop_file(&view, "cube").as_deref(),
            Some("data/cube.desktop")
        );
        assert_eq!(
            icons(&view, "cube"),
            [
                (
                    "128x128".to_string(),
                    "data/icons/128x128/cube.png".to_string()
                ),
                (
                    "256x256".to_string(),
                    "data/icons/256x256/cube.png".to_string()
                ),
            ]
        );
        assert!(icons(&view, "").is_empty());
    }

    #[test]
    fn the_target_is_the_program_name() {
        assert_eq!(target_of(LPI).as_deref(), Some("bin/cube"));
        let with_macro = LPI.replace("bin/cube", "bin/$(TargetCPU)");
        assert_eq!(target_of(&with_macro), None);
    }

    #[test]
    fn the_widgetset_comes_from_the_project_or_a_lazbuild_line() {
        let with_ws = LPI.replace(
            "</CompilerOptions>",
            "<MacroValues><LCLWidgetType Value=\"qt5\"/></MacroValues></CompilerOptions>",
        );
        assert_eq!(xml_value(&with_ws, "LCLWidgetType").unwrap().0, "qt5");
        let script =
            "build() {\n  lazbuild --widgetset=qt6 --primary-config-path=build cube.lpi\n}\n";
        assert_eq!(widgetset_flag(script), Some(("qt6".to_string(), 2)));
        assert_eq!(widgetset_flag("lazbuild --ws gtk2 cube.lpi"), None);
        assert_eq!(widgetset_flag("echo --widgetset=qt6"), None);
    }
}
