//! `stdenv.mkDerivation` for a Lazarus (Free Pascal) project: `lazbuild`
//! compiles the `.lpi` against the Lazarus build of the project's widget
//! set, and the install phase copies the program it names.

use packsmith_core::LazarusProject;

use super::{Draft, TemplateInput};

/// The program's name, for `meta.mainProgram`.
pub(super) fn main_program(project: &LazarusProject) -> Option<String> {
    let target = project.target.as_deref()?;
    target.rsplit('/').next().map(str::to_string)
}

/// A widget set's Lazarus attribute, its toolkit's package set (for the
/// Pascal bindings, the toolkit and the wrapper hook) or None for GTK 2,
/// and the `--widgetset` value.
struct Toolkit {
    lazarus: &'static str,
    qt_set: Option<&'static str>,
    widgetset: &'static str,
}

fn toolkit(project: &LazarusProject) -> Toolkit {
    let ws = project
        .widgetset
        .as_ref()
        .map(|w| w.value.to_ascii_lowercase());
    match ws.as_deref() {
        Some("qt6") => Toolkit {
            lazarus: "lazarus-qt6",
            qt_set: Some("qt6Packages"),
            widgetset: "qt6",
        },
        Some("qt5" | "qt") => Toolkit {
            lazarus: "lazarus-qt",
            qt_set: Some("libsForQt5"),
            widgetset: "qt5",
        },
        // Lazarus' default, and the build of plain `lazarus` in nixpkgs.
        _ => Toolkit {
            lazarus: "lazarus",
            qt_set: None,
            widgetset: "gtk2",
        },
    }
}

pub(super) fn body(d: &mut Draft, project: &LazarusProject, input: &TemplateInput) {
    let tk = toolkit(project);
    let (toolkit_native, build) = match tk.qt_set {
        Some(set) => (
            vec![format!("{set}.wrapQtAppsHook")],
            vec![format!("{set}.libqtpas"), format!("{set}.qtbase")],
        ),
        None => (Vec::new(), vec!["gtk2".to_string(), "libx11".to_string()]),
    };
    let mut native = vec!["fpc", tk.lazarus];
    native.extend(toolkit_native.iter().map(String::as_str));
    // lazbuild keeps its configuration under $HOME.
    native.push("writableTmpDirAsHomeHook");
    let loaded = loaded_libraries(project);
    if !loaded.is_empty() {
        // The hook puts runtimeDependencies on the program's RPATH, where
        // the units' dlopen finds them.
        native.push("autoPatchelfHook");
    }
    d.list("nativeBuildInputs", &native);
    let build: Vec<&str> = build.iter().map(String::as_str).collect();
    d.list("buildInputs", &build);
    if !loaded.is_empty() {
        d.list("runtimeDependencies", &loaded);
    }
    let program = project.target.as_deref().unwrap_or(&input.pname);
    d.block([
        "buildPhase = ''".to_string(),
        "  runHook preBuild".to_string(),
        format!(
            "  lazbuild --lazarusdir=${{{}}}/share/lazarus --widgetset={} {}",
            tk.lazarus, tk.widgetset, project.project_file
        ),
        "  runHook postBuild".to_string(),
        "'';".to_string(),
    ]);
    let mut install = vec![
        "installPhase = ''".to_string(),
        "  runHook preInstall".to_string(),
        format!("  install -Dm755 {program} -t $out/bin"),
    ];
    install.extend(desktop_lines(project, program));
    install.extend(["  runHook postInstall".to_string(), "'';".to_string()]);
    d.block(install);
}

/// The nixpkgs libraries the program's units load with dlopen.
fn loaded_libraries(project: &LazarusProject) -> Vec<&'static str> {
    let mut out = Vec::new();
    for unit in &project.dynamic_units {
        let library = match unit.value.to_ascii_lowercase().as_str() {
            "gl" | "glext" => "libGL",
            "glu" => "libGLU",
            "glut" => "freeglut",
            _ => continue,
        };
        if !out.contains(&library) {
            out.push(library);
        }
    }
    out
}

/// A GUI program's desktop entry and icons, where the desktop looks for
/// them; the entry's Icon= names the program, as hicolor's files do.
fn desktop_lines(project: &LazarusProject, program: &str) -> Vec<String> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let mut lines = Vec::new();
    if let Some(entry) = &project.desktop_file {
        lines.push(format!(
            "  install -Dm644 {entry} -t $out/share/applications"
        ));
    }
    for (size, path) in &project.icons {
        let ext = path.rsplit('.').next().unwrap_or("png");
        lines.push(format!(
            "  install -Dm644 {path} $out/share/icons/hicolor/{size}/apps/{name}.{ext}"
        ));
    }
    lines
}
