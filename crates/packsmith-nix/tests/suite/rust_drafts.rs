//! Rust drafts from analysed fixtures: the crates Cargo.lock pins become
//! inputs, and a Tauri app (its crate in `src-tauri/`, an npm frontend at
//! the top) is built with `rustPlatform.buildRustPackage`, not as npm.

use packsmith_core::SourceInfo;
use packsmith_nix::{
    choose_template, fetcher_for, parse_source, render, Builder, NixParser, Revision, SyntaxCheck,
    TemplateInput, VersionRef,
};

use super::common::{crate_dir, nix_available};

/// The builder chosen for `tests/fixtures/<fixture>` and its draft.
fn draft(fixture: &str, pname: &str, version: &str) -> (Option<Builder>, String) {
    let facts = packsmith_analyze::analyze_dir(
        &crate_dir().join("tests/fixtures").join(fixture),
        SourceInfo {
            kind: "path".into(),
            given: fixture.into(),
            release_tag: None,
        },
    )
    .unwrap_or_else(|e| panic!("{fixture} analyses: {e}"));
    let src = fetcher_for(
        &parse_source(&format!("https://github.com/example/{pname}")).unwrap(),
        Some(&Revision::guess(&format!("v{version}"))),
        Some(version),
        VersionRef::FinalAttrs,
    )
    .unwrap();
    let input = TemplateInput::from_facts(&facts, pname, version, src);
    let builder = choose_template(&facts);
    (builder, render(builder.unwrap_or(Builder::Generic), &input))
}

fn parses(test: &str, text: &str) {
    if nix_available(test) {
        NixParser::default()
            .check(text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

#[test]
fn openssl_sys_in_the_lock_gives_pkg_config_and_openssl() {
    let (builder, text) = draft("rust-openssl", "vaultkey", "1.1.0");
    assert_eq!(builder, Some(Builder::Rust));
    assert!(
        text.contains(
            "  cargoHash = lib.fakeHash;\n\n  \
             nativeBuildInputs = [ pkg-config ];\n\n  \
             buildInputs = [ openssl ];\n\n  meta = {"
        ),
        "{text}"
    );
    assert!(
        text.contains("  pkg-config,\n  openssl,\n}:"),
        "each input once, in the function: {text}"
    );
    // libz-sys compiles its bundled zlib when none is found; no vendored
    // OpenSSL is locked, so nothing is set in `env`.
    assert!(!text.contains("zlib") && !text.contains("env."), "{text}");
    parses(
        "openssl_sys_in_the_lock_gives_pkg_config_and_openssl",
        &text,
    );
}

#[test]
fn a_tauri_app_gets_the_rust_builder_with_the_tauri_hook() {
    let (builder, text) = draft("tauri-app", "notes-desk", "0.3.0");
    assert_eq!(builder, Some(Builder::Rust), "not buildNpmPackage");
    let expected = r#"  cargoHash = lib.fakeHash;

  npmDeps = fetchNpmDeps {
    name = "${finalAttrs.pname}-${finalAttrs.version}-npm-deps";
    inherit (finalAttrs) src;
    hash = lib.fakeHash;
  };

  nativeBuildInputs = [
    cargo-tauri.hook
    nodejs
    npmHooks.npmConfigHook
    pkg-config
  ]
  ++ lib.optionals stdenv.hostPlatform.isLinux [ wrapGAppsHook4 ];

  buildInputs = lib.optionals stdenv.hostPlatform.isLinux [
    glib-networking
    webkitgtk_4_1
  ];

  cargoRoot = "src-tauri";
  buildAndTestSubdir = finalAttrs.cargoRoot;
"#;
    assert!(text.contains(expected), "{text}");
    for input in [
        "fetchNpmDeps",
        "cargo-tauri",
        "nodejs",
        "npmHooks",
        "pkg-config",
        "stdenv",
        "wrapGAppsHook4",
        "glib-networking",
        "webkitgtk_4_1",
    ] {
        assert!(text.contains(&format!("\n  {input},\n")), "{input}: {text}");
    }
    // WebKitGTK brings GTK and GLib; the tray library is opened at run time.
    assert!(
        !text.contains("gtk3") && !text.contains("appindicator"),
        "{text}"
    );
    assert!(text.contains("mainProgram = \"notes-desk\";"), "{text}");
    parses(
        "a_tauri_app_gets_the_rust_builder_with_the_tauri_hook",
        &text,
    );
}
