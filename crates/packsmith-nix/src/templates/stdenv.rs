//! `stdenv.mkDerivation (finalAttrs: { … })` for CMake, Meson, Autotools,
//! plain make, and the generic starting point.

use super::{Builder, Draft, TemplateInput};

pub(super) fn draft(builder: Builder, input: &TemplateInput) -> Draft {
    let mut d = Draft::new("stdenv.mkDerivation (finalAttrs: {", "})");
    d.input("stdenv");
    d.header(input);
    match builder {
        Builder::Cmake => {
            let cm = &input.derived;
            let mut native = vec!["cmake"];
            native.extend(cm.native.iter().map(String::as_str));
            d.list("nativeBuildInputs", &native);
            if !cm.build.is_empty() {
                let build: Vec<&str> = cm.build.iter().map(String::as_str).collect();
                d.list("buildInputs", &build);
            }
            if !cm.flags.is_empty() {
                let mut lines = vec!["cmakeFlags = [".to_string()];
                lines.extend(cm.flags.iter().map(|f| format!("  {f}")));
                lines.push("];".to_string());
                d.block(lines);
            }
        }
        Builder::Meson => {
            d.list("nativeBuildInputs", &["meson", "ninja", "pkg-config"]);
            let build: Vec<&str> = input.derived.build.iter().map(String::as_str).collect();
            if !build.is_empty() {
                d.list("buildInputs", &build);
            }
        }
        Builder::Autotools { autoreconf: true } => {
            // No generated configure script ships: regenerate it.
            d.list("nativeBuildInputs", &["autoreconfHook"]);
        }
        Builder::Autotools { autoreconf: false } => {}
        Builder::Make => {
            d.block([r#"makeFlags = [ "PREFIX=${placeholder "out"}" ];"#]);
        }
        _ => {
            d.block([
                "# FIXME: describe the build: nativeBuildInputs, buildPhase, installPhase.",
                "installPhase = ''",
                "  runHook preInstall",
                "  mkdir -p $out",
                "  runHook postInstall",
                "'';",
            ]);
        }
    }
    d.meta(input);
    d
}
