//! Facts about the build as a whole, read after every reader ran: where
//! the top build file lives when it is not at the top, whether the build
//! installs anything, and which git submodules the build cannot do
//! without (their directory is empty here and a build command needs it).

use crate::context::Ctx;
use packsmith_core::{
    BuildSystemFact, BuildSystemKind, CmakeFacts, DownloadFact, DownloadKind, Evidence,
    InstallRules, Sourced,
};

/// The directory of the primary build file when it is below the top.
pub fn build_root(
    systems: &[BuildSystemFact],
    primary: Option<BuildSystemKind>,
) -> Option<Sourced<String>> {
    let fact = systems.iter().find(|s| Some(s.kind) == primary)?;
    if fact.depth == 0 {
        return None;
    }
    let dir = fact.evidence.file.rsplit_once('/')?.0;
    Some(Sourced::new(dir.to_string(), fact.evidence.clone()))
}

/// Whether the primary build system installs anything. Meson and
/// Autotools always do; CMake does when some `install()` is reached; a
/// Makefile when it has an `install:` target. Other systems: not told.
pub fn install_rules(
    ctx: &mut Ctx<'_>,
    systems: &[BuildSystemFact],
    primary: Option<BuildSystemKind>,
    cmake: Option<&CmakeFacts>,
) -> Option<InstallRules> {
    let fact = systems.iter().find(|s| Some(s.kind) == primary)?;
    match fact.kind {
        BuildSystemKind::Meson | BuildSystemKind::Autotools => {
            let hand_written = match fact.kind {
                BuildSystemKind::Autotools => {
                    hand_written_configure_makefile(ctx, &fact.evidence.file)
                }
                _ => None,
            };
            Some(hand_written.unwrap_or(InstallRules {
                present: true,
                how: format!("{} always installs", fact.kind),
                evidence: fact.evidence.clone(),
                headers: None,
                prefix_variable: None,
                prefix_variable_is_bin: false,
            }))
        }
        BuildSystemKind::Cmake => {
            let cmake = cmake?;
            // An install() in a file the walk could not follow still counts:
            // a recipe's own install() would hide the project's.
            let unread = match cmake.installs {
                Some(_) => None,
                None => install_in_unread_file(ctx, &cmake.files),
            };
            Some(match cmake.installs.as_ref().or(unread.as_ref()) {
                Some(at) => InstallRules {
                    present: true,
                    how: "install()".into(),
                    evidence: at.clone(),
                    headers: None,
                    prefix_variable: None,
                    prefix_variable_is_bin: false,
                },
                None => InstallRules {
                    present: false,
                    how: format!(
                        "no install() in the {} CMake file(s) read",
                        cmake.files.len()
                    ),
                    evidence: Evidence::file(
                        cmake
                            .files
                            .first()
                            .cloned()
                            .unwrap_or(fact.evidence.file.clone()),
                    ),
                    headers: public_headers(ctx, &fact.evidence.file),
                    prefix_variable: None,
                    prefix_variable_is_bin: false,
                },
            })
        }
        BuildSystemKind::Makefile => {
            let file = fact.evidence.file.clone();
            let text = ctx.read(&file)?;
            let mut rules = makefile_install(&text, &file);
            if rules.present && rules.prefix_variable.is_none() {
                follow_install_destination(ctx, &file, &mut rules);
            }
            if !rules.present {
                rules.headers = public_headers(ctx, &file);
            }
            Some(rules)
        }
        _ => None,
    }
}

/// Most CMake files the walk did not reach that are searched for `install(`.
const MAX_UNREAD_SEARCHED: usize = 500;

/// The first `install(` in a project CMake file (not tests, examples or
/// vendored code) that the walk did not read.
fn install_in_unread_file(ctx: &Ctx<'_>, read: &[String]) -> Option<Evidence> {
    let candidates: Vec<String> = ctx
        .view
        .files()
        .iter()
        .filter(|f| f.name() == "CMakeLists.txt" || f.name().ends_with(".cmake"))
        .filter(|f| !read.contains(&f.rel) && !crate::detect::in_noise_dir(f))
        .take(MAX_UNREAD_SEARCHED)
        .map(|f| f.rel.clone())
        .collect();
    for rel in candidates {
        // A file the build never reads is no one's concern: its problems
        // are not the project's warnings.
        let mut ignored = Vec::new();
        let Some(text) = ctx.view.read_text(&rel, &mut ignored).map(|t| t.text) else {
            continue;
        };
        let at = text.lines().position(|l| {
            let l = l.trim_start().to_ascii_lowercase();
            l.strip_prefix("install")
                .is_some_and(|rest| rest.trim_start().starts_with('('))
        });
        if let Some(i) = at {
            return Some(Evidence::new(rel, i as u32 + 1));
        }
    }
    None
}

/// With no usual prefix variable, where the `install:` rule really copies
/// to: a variable it can be given instead, or the home directory, which a
/// recipe cannot use (the build then counts as having no install rules).
fn follow_install_destination(ctx: &mut Ctx<'_>, file: &str, rules: &mut InstallRules) {
    use crate::makefile::InstallDestination;
    match crate::makefile::install_destination(ctx, file) {
        InstallDestination::Variable { name, bin } => {
            rules.prefix_variable = Some(name);
            rules.prefix_variable_is_bin = bin;
        }
        InstallDestination::Home(at) => {
            rules.present = false;
            rules.how = "the install: target copies into the home directory".into();
            rules.evidence = at;
        }
        InstallDestination::Unknown => {}
    }
}

/// A `configure` no Autoconf wrote (no `configure.ac` or `configure.in`
/// beside it, no Autoconf banner) next to a committed `Makefile`: that
/// Makefile installs, under its own prefix variable, which `make install`
/// must be given (httping's configure only writes feature switches).
fn hand_written_configure_makefile(ctx: &mut Ctx<'_>, configure: &str) -> Option<InstallRules> {
    let (dir, name) = configure.rsplit_once('/').unwrap_or(("", configure));
    if name != "configure" {
        return None;
    }
    let sibling = |n: &str| crate::view::join(dir, n);
    let generated_inputs = ["configure.ac", "configure.in", "Makefile.am", "Makefile.in"];
    if generated_inputs
        .iter()
        .any(|n| ctx.view.exists(&sibling(n)))
    {
        return None;
    }
    let script = ctx.read(configure)?;
    if script.contains("Generated by GNU Autoconf") {
        return None;
    }
    let makefile = sibling("Makefile");
    let text = ctx.read(&makefile)?;
    let rules = makefile_install(&text, &makefile);
    (rules.present && rules.prefix_variable.is_some()).then_some(rules)
}

/// `install:` (or `install ::`, or `install uninstall:`) as a rule target.
fn makefile_install(text: &str, file: &str) -> InstallRules {
    for (i, line) in text.lines().enumerate() {
        let Some(targets) = crate::makefile::rule_targets(line) else {
            continue;
        };
        if targets.contains(&"install") {
            return InstallRules {
                present: true,
                how: "install: target".into(),
                evidence: Evidence::new(file, i as u32 + 1),
                headers: None,
                prefix_variable: prefix_variable(text)
                    .or_else(|| install_directory_variable(text, i)),
                prefix_variable_is_bin: false,
            };
        }
    }
    InstallRules {
        present: false,
        how: "no install: target".into(),
        evidence: Evidence::file(file),
        headers: None,
        prefix_variable: None,
        prefix_variable_is_bin: false,
    }
}

/// The variable a Makefile installs under: the first of `prefix`,
/// `PREFIX`, `INSTALL_PREFIX` it assigns (`prefix = /usr/local`,
/// `PREFIX ?= …`), else the first it uses.
fn prefix_variable(text: &str) -> Option<String> {
    const NAMES: &[&str] = &["prefix", "PREFIX", "INSTALL_PREFIX"];
    let assigned = text.lines().find_map(|line| {
        let (name, _) = line.split_once('=')?;
        let name = name.trim_end_matches(['?', ':', '+']).trim();
        NAMES.iter().find(|n| **n == name).copied()
    });
    assigned
        .or_else(|| {
            NAMES
                .iter()
                .find(|n| text.contains(&format!("$({n})")) || text.contains(&format!("${{{n}}}")))
                .copied()
        })
        .map(str::to_string)
}

/// Failing a usual prefix name, the variable the `install:` rule at
/// `rule_line` (0-based) copies into whose value is an absolute path
/// (`INSTDIR = /usr/local/tool-1.0`): the one a packager sets to the
/// prefix. `DESTDIR` is a staging root, never the prefix.
fn install_directory_variable(text: &str, rule_line: usize) -> Option<String> {
    let recipe: Vec<&str> = text
        .lines()
        .skip(rule_line + 1)
        .take_while(|l| l.starts_with('\t') || l.trim().is_empty())
        .collect();
    text.lines().find_map(|line| {
        let (name, value) = line.split_once('=')?;
        let name = name.trim_end_matches(['?', ':', '+']).trim();
        let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let used = recipe
            .iter()
            .any(|l| l.contains(&format!("$({name})")) || l.contains(&format!("${{{name}}}")));
        (plain && name != "DESTDIR" && value.trim().starts_with('/') && used)
            .then(|| name.to_string())
    })
}

/// Header file endings.
const HEADER_ENDINGS: &[&str] = &[".h", ".hh", ".hpp", ".hxx", ".inl", ".tpp"];

/// The directory of the public headers: a `single_include` at the top (the
/// amalgamated header a header-only library ships for users), else an
/// `include` next to the build file or at the top of the repository.
fn public_headers(ctx: &Ctx<'_>, build_file: &str) -> Option<String> {
    let build_dir = build_file.rsplit_once('/').map_or("", |(d, _)| d);
    let mut candidates = vec!["single_include".to_string(), "include".to_string()];
    if !build_dir.is_empty() {
        candidates.insert(1, format!("{build_dir}/include"));
    }
    candidates.into_iter().find(|dir| {
        let prefix = format!("{dir}/");
        ctx.view.files().iter().any(|f| {
            f.rel.starts_with(&prefix) && HEADER_ENDINGS.iter().any(|e| f.rel.ends_with(e))
        })
    })
}

/// Marks each submodule the build needs, with what needs it, and whether
/// its directory holds files here; fills in the upstream name from its
/// URL. An empty one is needed by a CMake check, `add_subdirectory` or
/// `include` of a path in it, or a target's source file in it; a checked
/// out one (a recursive clone) by a CMake file the build read in it or a
/// target's source file in it. A release archive, like `git archive`,
/// leaves either kind empty.
pub fn required_submodules(
    ctx: &Ctx<'_>,
    downloads: &mut [DownloadFact],
    cmake: Option<&CmakeFacts>,
) {
    for d in downloads
        .iter_mut()
        .filter(|d| d.kind == DownloadKind::GitSubmodule)
    {
        if d.upstream.is_none() {
            d.upstream = crate::cmake::upstream_name(d.url.as_deref(), &d.name);
        }
        let dir = d.name.trim_end_matches('/');
        let prefix = format!("{dir}/");
        let inside = |path: &str| path == dir || path.starts_with(&prefix);
        d.present = ctx.view.files().iter().any(|f| f.rel.starts_with(&prefix));
        let Some(cmake) = cmake else { continue };
        let checked = if d.present {
            cmake
                .files
                .iter()
                .find(|f| inside(f))
                .map(|f| Sourced::new(format!("the build reads {f}"), d.evidence.clone()))
        } else {
            cmake
                .required_paths
                .iter()
                .find(|r| inside(&r.path))
                .map(|r| Sourced::new(r.check.clone(), r.evidence.clone()))
        };
        let compiled = cmake
            .target_sources
            .iter()
            .find(|r| inside(&r.path))
            .map(|r| Sourced::new(r.check.clone(), r.evidence.clone()));
        d.compiled = compiled.is_some();
        d.required_by = checked.or(compiled);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makefile_install_targets() {
        let with = "CC=cc\nall: demo\n\ndemo: demo.c\n\t$(CC) -o $@ $<\n\ninstall: demo\n\tcp demo $(PREFIX)/bin\n";
        let r = makefile_install(with, "Makefile");
        assert!(r.present);
        assert_eq!(r.evidence, Evidence::new("Makefile", 7));
        let phony = ".PHONY: all install\ninstall uninstall:\n\ttrue\n";
        assert_eq!(makefile_install(phony, "Makefile").evidence.line, 2);
        let without = "all: demo\n\tcc -o demo demo.c\n# install: nothing\nINSTALL := install\n";
        assert!(!makefile_install(without, "Makefile").present);
    }

    #[test]
    fn an_install_directory_under_another_name_is_the_prefix() {
        let own = "VERSION = 1.0\nDESTDIR = /tmp/stage\nINSTDIR = /usr/local/tool-$(VERSION)\nDOCDIR = /usr/share/doc\n\nall: tool\n\ninstall: all\n\t@mkdir $(INSTDIR)\n\tcp tool $(DESTDIR)$(INSTDIR)/bin\n";
        let r = makefile_install(own, "Makefile");
        assert_eq!(r.prefix_variable.as_deref(), Some("INSTDIR"));
        // A usual name wins; a directory the install rule does not use is
        // not the prefix.
        let usual = format!("PREFIX ?= /usr\n{own}");
        assert_eq!(
            makefile_install(&usual, "Makefile")
                .prefix_variable
                .as_deref(),
            Some("PREFIX")
        );
        let unused = "DOCDIR = /usr/share/doc\ninstall:\n\tcp tool /opt/bin\n";
        assert_eq!(makefile_install(unused, "Makefile").prefix_variable, None);
    }
}
