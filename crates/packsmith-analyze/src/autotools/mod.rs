//! Reader for Autotools: configure.ac / configure.in (or a shipped
//! `configure` alone), read with an m4-aware scanner; nothing is executed.

mod args;
mod automake_libs;
mod conditions;
mod init;
mod m4;
mod probes;
mod shell_branches;

use crate::context::Ctx;
use crate::support::lines::LineIndex;
use packsmith_core::{
    AutotoolsFacts, BuildSystemFact, BuildSystemKind, Evidence, FeatureHint, Language, LanguageUse,
    Sourced,
};

/// Scripts that regenerate `configure` (their presence tells a packager how
/// upstream bootstraps; Spack's `autoreconf` phase or Nix's `autoreconfHook`).
const BOOTSTRAP_SCRIPTS: &[&str] = &["autogen.sh", "bootstrap", "autogen", "bootstrap.sh"];

/// Reads the autotools facts of the repository, or None when it has none:
/// those of the shallowest Autotools build among `systems` (`csa/` when
/// nothing is at the top).
pub fn analyze(ctx: &mut Ctx<'_>, systems: &[BuildSystemFact]) -> Option<AutotoolsFacts> {
    // Below the top only when nothing is shallower: a vendored library's
    // configure.ac (`htslib/`) is not the project's.
    let shallowest = systems.iter().map(|s| s.depth).min().unwrap_or(0);
    let dir = systems
        .iter()
        .find(|s| s.kind == BuildSystemKind::Autotools && s.depth == shallowest)
        .and_then(|s| s.evidence.file.rsplit_once('/'))
        .map_or("", |(d, _)| d);
    let at = |name: &str| crate::view::join(dir, name);
    // `configure.ac.in`: a template upstream fills in (a version) before
    // bootstrapping; a recipe copies it to configure.ac first.
    let input = ["configure.ac", "configure.in", "configure.ac.in"]
        .into_iter()
        .map(at)
        .find(|f| ctx.view.exists(f));
    let configure = at("configure");
    let has_configure_script = ctx.view.exists(&configure);
    if input.is_none() && !has_configure_script {
        return None;
    }
    let mut facts = AutotoolsFacts {
        file: input.clone(),
        has_configure_script,
        configure_not_executable: has_configure_script && !is_executable(ctx, &configure),
        uses_automake: ctx.view.exists(&at("Makefile.am")),
        version_is_literal: true,
        bootstrap_script: BOOTSTRAP_SCRIPTS
            .iter()
            .find(|s| ctx.view.exists(&at(s)))
            .map(|s| s.to_string()),
        ..AutotoolsFacts::default()
    };
    let Some(file) = input.as_deref() else {
        // A release tarball layout: only the generated script ships.
        ctx.warn(
            &configure,
            0,
            "configure script without configure.ac/configure.in; options and checks not read",
        );
        return Some(facts);
    };
    let Some(text) = ctx.read(file) else {
        return Some(facts);
    };
    let lines = LineIndex::new(&text);
    let calls = m4::scan(&text);
    let ev = |offset: usize| Evidence::new(file, lines.line(offset));
    for call in &calls {
        if !call.closed {
            ctx.warn(
                file,
                lines.line(call.offset),
                format!(
                    "{}( is never closed; arguments read to end of file",
                    call.name
                ),
            );
        }
    }
    init::read_init(ctx, file, &lines, &calls, &mut facts);
    args::read_args(ctx, &calls, &ev, &mut facts);
    probes::read_probes(ctx, &text, &calls, &ev, &mut facts);
    skipped_lookups(&text, &mut facts);
    facts.system_dirs = system_dirs(file, &text);
    automake_libs::read(ctx, &mut facts);
    for call in &calls {
        match call.name.as_str() {
            "AM_INIT_AUTOMAKE" => facts.uses_automake = true,
            "LT_INIT" | "AC_PROG_LIBTOOL" | "AM_PROG_LIBTOOL" => facts.uses_libtool = true,
            "AC_CONFIG_SUBDIRS" => facts
                .config_subdirs
                .extend(call.arg(0).split_whitespace().map(str::to_string)),
            _ => {}
        }
        if let Some(lang) = language_of(call) {
            add_language(ctx, &mut facts, lang, &call.name, ev(call.offset));
        }
    }
    Some(facts)
}

/// Installation directory variables a default `make install` writes into.
const INSTALL_DIR_VARIABLES: &[&str] = &["sysconfdir", "localstatedir", "runstatedir"];

/// The installation directories `text` (configure.ac) assigns an absolute
/// path in shell (`sysconfdir=/etc`), each once, where it does so first.
fn system_dirs(file: &str, text: &str) -> Vec<Sourced<String>> {
    let mut found: Vec<Sourced<String>> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with('#') || code.starts_with("dnl") {
            continue;
        }
        for var in INSTALL_DIR_VARIABLES {
            let assigned = code.match_indices(&format!("{var}=")).any(|(at, m)| {
                let before = code[..at].chars().next_back();
                let value = code[at + m.len()..].trim_start_matches(['"', '\'']);
                !before.is_some_and(|c| c.is_alphanumeric() || "_$-".contains(c))
                    && value.starts_with('/')
            });
            if assigned && !found.iter().any(|f| f.value == *var) {
                let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
                found.push(Sourced::new((*var).to_string(), Evidence::new(file, line)));
            }
        }
    }
    found
}

/// Whether `rel` has an executable bit (always true off Unix, where there
/// is none to lack).
fn is_executable(ctx: &Ctx<'_>, rel: &str) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(ctx.view.root().join(rel))
            .map(|m| m.permissions().mode() & 0o111 != 0)
            .unwrap_or(true)
    }
    #[cfg(not(unix))]
    {
        let _ = (ctx, rel);
        true
    }
}

/// A lookup in a shell branch the default configure skips (an option off
/// unless given, another OS's `case`) gets that branch as its condition.
fn skipped_lookups(text: &str, facts: &mut AutotoolsFacts) {
    let skipped = shell_branches::skipped_branches(text, &facts.args);
    let at = |line: u32| {
        skipped
            .get((line as usize).checked_sub(1)?)
            .cloned()
            .flatten()
    };
    for check in &mut facts.checks {
        if let Some(c) = at(check.evidence.line) {
            check.conditions.push(c);
        }
    }
    for pc in &mut facts.pkg_checks {
        if let Some(c) = at(pc.evidence.line) {
            pc.conditions.push(c);
            pc.required = false;
        }
    }
}

/// The language a macro call turns on, if any.
fn language_of(call: &m4::Call) -> Option<Language> {
    match call.name.as_str() {
        "AC_PROG_CC" | "AC_PROG_CC_C99" | "AC_PROG_CC_STDC" | "AM_PROG_CC_C_O" => Some(Language::C),
        "AC_PROG_CXX" | "AC_PROG_CXXCPP" => Some(Language::Cxx),
        "AC_PROG_FC" | "AC_PROG_F77" | "AC_PROG_F90" => Some(Language::Fortran),
        "AC_LANG" | "LT_LANG" | "AC_LANG_PUSH" => match call.arg(0).as_str() {
            "C" => Some(Language::C),
            "C++" => Some(Language::Cxx),
            "Fortran" | "Fortran 77" => Some(Language::Fortran),
            _ => None,
        },
        _ => None,
    }
}

fn add_language(
    ctx: &mut Ctx<'_>,
    facts: &mut AutotoolsFacts,
    lang: Language,
    how: &str,
    evidence: Evidence,
) {
    let token = match lang {
        Language::C => "c",
        Language::Cxx => "cxx",
        Language::Fortran => "fortran",
        _ => return,
    };
    if facts.languages.iter().any(|l| l == token) {
        return;
    }
    facts.languages.push(token.to_string());
    ctx.languages.push(LanguageUse {
        language: lang,
        how: how.to_string(),
        conditions: Vec::new(),
        evidence,
    });
}

/// Records a feature hint once per (feature, detail).
pub(crate) fn add_feature(ctx: &mut Ctx<'_>, hint: FeatureHint) {
    if !ctx.features.iter().any(|h| {
        h.feature == hint.feature && h.detail == hint.detail && h.evidence == hint.evidence
    }) {
        ctx.features.push(hint);
    }
}
