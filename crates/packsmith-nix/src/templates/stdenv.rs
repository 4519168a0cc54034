//! `stdenv.mkDerivation (finalAttrs: { … })` for CMake, Meson, Autotools,
//! plain make, and the generic starting point.

use super::{Builder, Draft, TemplateInput};

pub(super) fn draft(builder: Builder, input: &TemplateInput) -> Draft {
    let mut d = Draft::new("stdenv.mkDerivation (finalAttrs: {", "})");
    d.input("stdenv");
    d.header(input);
    match builder {
        Builder::Cmake => {
            d.list("nativeBuildInputs", &["cmake"]);
        }
        Builder::Meson => {
            d.list("nativeBuildInputs", &["meson", "ninja", "pkg-config"]);
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
