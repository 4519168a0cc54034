//! `stdenv.mkDerivation (finalAttrs: { … })` for CMake, Meson, Autotools,
//! plain make, Lazarus, and the generic starting point.

use super::{Builder, Draft, MakeInstall, TemplateInput};

pub(super) fn draft(builder: Builder, input: &TemplateInput) -> Draft {
    let mut d = Draft::new("stdenv.mkDerivation (finalAttrs: {", "})");
    d.input("stdenv");
    d.header(input);
    // nixpkgs asks new packages to keep build tools and libraries apart.
    d.block(["strictDeps = true;"]);
    match builder {
        Builder::Cmake => {
            let cm = &input.derived;
            shell_hook(&mut d, "postPatch", &cm.post_patch);
            let mut native = vec!["cmake"];
            native.extend(cm.native.iter().map(String::as_str));
            d.list("nativeBuildInputs", &native);
            if !cm.build.is_empty() {
                let build: Vec<&str> = cm.build.iter().map(String::as_str).collect();
                d.list("buildInputs", &build);
            }
            if !cm.check.is_empty() {
                let check: Vec<&str> = cm.check.iter().map(String::as_str).collect();
                d.list("checkInputs", &check);
            }
            flag_list(&mut d, "cmakeFlags", &cm.flags);
            if cm.do_check {
                d.block(["doCheck = true;"]);
            }
        }
        Builder::Meson => {
            if let Some(packages) = &input.derived.python_env {
                super::python_env::bind(&mut d, packages);
            }
            let mut native = vec!["meson", "ninja", "pkg-config"];
            for n in &input.derived.native {
                if !native.contains(&n.as_str()) {
                    native.push(n);
                }
            }
            d.list("nativeBuildInputs", &native);
            let build: Vec<&str> = input.derived.build.iter().map(String::as_str).collect();
            if !build.is_empty() {
                d.list("buildInputs", &build);
            }
            flag_list(&mut d, "mesonFlags", &input.derived.flags);
        }
        Builder::Autotools { autoreconf } => {
            // No generated configure script ships: regenerate it.
            let mut native: Vec<&str> = if autoreconf {
                vec!["autoreconfHook"]
            } else {
                Vec::new()
            };
            native.extend(input.derived.native.iter().map(String::as_str));
            if !native.is_empty() {
                d.list("nativeBuildInputs", &native);
            }
            let build: Vec<&str> = input.derived.build.iter().map(String::as_str).collect();
            if !build.is_empty() {
                d.list("buildInputs", &build);
            }
        }
        Builder::Make => {
            let native: Vec<&str> = input.derived.native.iter().map(String::as_str).collect();
            if !native.is_empty() {
                d.list("nativeBuildInputs", &native);
            }
            let build: Vec<&str> = input.derived.build.iter().map(String::as_str).collect();
            if !build.is_empty() {
                d.list("buildInputs", &build);
            }
            if let Some(makefile) = &input.makefile {
                d.block([format!("makefile = {};", crate::fetch::quote(makefile))]);
            }
            match &input.make_install {
                None => {
                    d.block([r#"makeFlags = [ "PREFIX=${placeholder "out"}" ];"#]);
                }
                Some(install) => install_by_hand(&mut d, install),
            }
            shell_hook(&mut d, "postInstall", &input.derived.post_install);
        }
        Builder::Lazarus => match &input.lazarus {
            Some(project) => super::lazarus::body(&mut d, project, input),
            None => unknown_build(&mut d),
        },
        _ => unknown_build(&mut d),
    }
    d.meta(input);
    d
}

/// The generic starting point: phases for someone to write.
fn unknown_build(d: &mut Draft) {
    d.block([
        "# FIXME: describe the build: nativeBuildInputs, buildPhase, installPhase.",
        "installPhase = ''",
        "  runHook preInstall",
        "  mkdir -p $out",
        "  runHook postInstall",
        "'';",
    ]);
}

/// A Makefile with no `install:` target: `buildFlags` for the programs
/// plain `make` leaves unbuilt, and an `installPhase` that copies them
/// from where their link lines write them (a FIXME when none is known).
fn install_by_hand(d: &mut Draft, install: &MakeInstall) {
    let flags: Vec<String> = install
        .programs
        .iter()
        .map(|p| format!("\"{p}\""))
        .collect();
    flag_list(d, "buildFlags", &flags);
    let mut block = vec![
        "installPhase = ''".to_string(),
        "  runHook preInstall".to_string(),
    ];
    if install.programs.is_empty() {
        block.push(
            "  # FIXME: the Makefile has no install target: copy what the build makes".into(),
        );
        block.push("  mkdir -p $out/bin".into());
    } else {
        let dir = install
            .written_to
            .as_deref()
            .map(|d| format!("{}/", d.trim_end_matches('/')))
            .unwrap_or_default();
        let paths: Vec<String> = install
            .programs
            .iter()
            .map(|p| format!("{dir}{p}"))
            .collect();
        block.push(format!("  install -Dm755 -t $out/bin {}", paths.join(" ")));
    }
    block.push("  runHook postInstall".into());
    block.push("'';".into());
    d.block(block);
}

/// `postInstall = '' … '';` with the given lines, when there is any.
/// `name = '' … '';` (`postPatch`, `postInstall`), when there are lines.
fn shell_hook(d: &mut Draft, name: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let mut block = vec![format!("{name} = ''")];
    block.extend(lines.iter().map(|l| format!("  {l}")));
    block.push("'';".to_string());
    d.block(block);
}

/// `name = [ … ];` with one flag per line, when there is any.
fn flag_list(d: &mut Draft, name: &str, flags: &[String]) {
    if flags.is_empty() {
        return;
    }
    // nixfmt keeps a list of one element on one line when it fits in 100
    // columns (two of them are the derivation's indentation).
    if let [flag] = flags {
        let line = format!("{name} = [ {flag} ];");
        if line.len() <= 98 {
            d.block([line]);
            return;
        }
    }
    let mut lines = vec![format!("{name} = [")];
    lines.extend(flags.iter().map(|f| format!("  {f}")));
    lines.push("];".to_string());
    d.block(lines);
}
