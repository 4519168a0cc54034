//! Where a Makefile's `install:` rule copies to when it names no usual
//! prefix variable, followed through `cd dir && $(MAKE) install` and the
//! files a Makefile `include`s: the variable a packager sets instead
//! (lastz's `LASTZ_INSTALL`, used under `ifdef`, else `$(HOME)/…/bin`), or
//! the user's home when the rule copies there and nothing can move it
//! (SeqPrep's `cp SeqPrep $(HOME)/bin`).

use super::eval::referenced_names as references;
use crate::context::Ctx;
use crate::view::join;
use packsmith_core::Evidence;

/// Deepest `$(MAKE) -C dir install` followed.
const MAX_SUB_MAKES: u8 = 2;

/// Where `make install` puts things.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallDestination {
    /// A variable the recipe sets; `bin` when it names the programs'
    /// directory rather than the prefix.
    Variable { name: String, bin: bool },
    /// The rule copies into the home directory and no variable moves it.
    Home(Evidence),
    /// Not told.
    Unknown,
}

/// The destination of the `install:` rule of the Makefile `file`.
pub fn install_destination(ctx: &mut Ctx<'_>, file: &str) -> InstallDestination {
    destination_in(ctx, file, 0)
}

fn destination_in(ctx: &mut Ctx<'_>, file: &str, depth: u8) -> InstallDestination {
    // A file absent here is not told (and not worth a warning).
    let Some(text) = ctx.view.exists(file).then(|| ctx.read(file)).flatten() else {
        return InstallDestination::Unknown;
    };
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    let recipe = install_recipe(&text);
    for (_, line) in &recipe {
        let Some(sub) = sub_make_dir(line) else {
            continue;
        };
        if depth < MAX_SUB_MAKES {
            let found = destination_in(ctx, &join(&join(dir, sub), "Makefile"), depth + 1);
            if found != InstallDestination::Unknown {
                return found;
            }
        }
    }
    // The Makefile and what it includes, in order, for the assignments.
    let mut texts = vec![(file.to_string(), text.clone())];
    for name in included_files(&text) {
        let rel = join(dir, name);
        if let Some(t) = ctx.view.exists(&rel).then(|| ctx.read(&rel)).flatten() {
            texts.push((rel, t));
        }
    }
    for (_, line) in &recipe {
        for var in references(line) {
            if let Some(found) = settable(&texts, &var) {
                return found;
            }
        }
    }
    let home = recipe.iter().find(|(_, line)| {
        mentions_home(line)
            || references(line)
                .iter()
                .any(|v| assigned_values(&texts, v).iter().any(|a| mentions_home(a)))
    });
    match home {
        Some((n, _)) => InstallDestination::Home(Evidence::new(file, *n)),
        None => InstallDestination::Unknown,
    }
}

/// Recipe lines: 1-based line number and text.
type Recipe = Vec<(u32, String)>;

/// The recipe lines of `install:` and of the rules it names as
/// prerequisites (`install: install_lastz`).
fn install_recipe(text: &str) -> Recipe {
    let lines: Vec<&str> = text.lines().collect();
    let recipe_of = |target: &str| -> Option<(Vec<String>, Recipe)> {
        let at = lines
            .iter()
            .position(|l| crate::makefile::rule_targets(l).is_some_and(|t| t.contains(&target)))?;
        let prerequisites = lines[at]
            .split_once(':')
            .map(|(_, rest)| rest.split(';').next().unwrap_or(""))
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let body = lines[at + 1..]
            .iter()
            .enumerate()
            .take_while(|(_, l)| l.starts_with('\t'))
            .map(|(k, l)| ((at + 2 + k) as u32, l.trim().to_string()))
            .collect();
        Some((prerequisites, body))
    };
    let Some((prerequisites, mut body)) = recipe_of("install") else {
        return Vec::new();
    };
    for p in prerequisites.iter().filter(|p| p.starts_with("install")) {
        if let Some((_, more)) = recipe_of(p) {
            body.extend(more);
        }
    }
    body
}

/// `cd src && $(MAKE) install` or `$(MAKE) -C src install`: `src`.
fn sub_make_dir(line: &str) -> Option<&str> {
    let makes = ["$(MAKE)", "${MAKE}", "make "]
        .iter()
        .any(|m| line.contains(m));
    if !makes || !line.contains("install") {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let after = |flag: &str| {
        words
            .iter()
            .position(|w| *w == flag)
            .and_then(|i| words.get(i + 1))
            .copied()
    };
    after("-C")
        .or_else(|| after("cd"))
        .map(|d| d.trim_end_matches(';'))
        .filter(|d| !d.contains('$') && !d.starts_with('/') && !d.contains(".."))
}

/// `include a.mak b.mak` and `-include …` names without variables.
fn included_files(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("include ")
                .or_else(|| l.strip_prefix("-include "))
        })
        .flat_map(str::split_whitespace)
        .filter(|n| !n.contains('$'))
        .collect()
}

fn mentions_home(text: &str) -> bool {
    ["$(HOME)", "${HOME}", "~/"]
        .iter()
        .any(|h| text.contains(h))
}

/// Every value assigned to `var` in `texts`.
fn assigned_values(texts: &[(String, String)], var: &str) -> Vec<String> {
    texts
        .iter()
        .flat_map(|(_, t)| t.lines())
        .filter_map(|l| assignment(l).filter(|(n, _, _)| *n == var))
        .map(|(_, _, v)| v.to_string())
        .collect()
}

/// `name op value` of an assignment line.
fn assignment(line: &str) -> Option<(&str, &str, &str)> {
    if line.starts_with('\t') {
        return None;
    }
    let eq = line.find('=')?;
    let (left, value) = (&line[..eq], &line[eq + 1..]);
    let (name, op) = match left.trim_end().strip_suffix(['?', ':', '+']) {
        Some(n) => (n.trim(), &left.trim_end()[n.len()..]),
        None => (left.trim(), ""),
    };
    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    plain.then_some((name, op.trim(), value.trim()))
}

/// The variable that moves `var`: `var = $(W)` inside `ifdef W` makes `W`
/// settable (the other branch's default tells whether it is a `bin`
/// directory); `var ?= …` makes `var` itself settable.
fn settable(texts: &[(String, String)], var: &str) -> Option<InstallDestination> {
    let mut guards: Vec<(String, bool)> = Vec::new();
    let mut through: Option<String> = None;
    let mut default: Option<String> = None;
    for line in texts.iter().flat_map(|(_, t)| t.lines()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("ifdef") => guards.push((words.get(1).unwrap_or(&"").to_string(), true)),
            Some("ifndef" | "ifeq" | "ifneq") => guards.push((String::new(), true)),
            Some("else") => {
                if let Some(g) = guards.last_mut() {
                    g.1 = !g.1;
                }
            }
            Some("endif") => {
                guards.pop();
            }
            _ => {}
        }
        let Some((_, op, value)) = assignment(line).filter(|(n, _, _)| *n == var) else {
            continue;
        };
        if op == "?" {
            return Some(InstallDestination::Variable {
                name: var.to_string(),
                bin: is_bin(value),
            });
        }
        let inner = references(value);
        let guarded_by = guards.iter().find(|(g, positive)| {
            *positive && !g.is_empty() && inner.len() == 1 && inner[0] == *g && is_reference(value)
        });
        match guarded_by {
            Some((g, _)) => through = Some(g.clone()),
            None => default = Some(value.to_string()),
        }
    }
    through.map(|name| InstallDestination::Variable {
        name,
        bin: default.as_deref().is_some_and(is_bin),
    })
}

/// The whole value is one reference (`${LASTZ_INSTALL}`).
fn is_reference(value: &str) -> bool {
    let v = value.trim();
    (v.starts_with("$(") && v.ends_with(')')) || (v.starts_with("${") && v.ends_with('}'))
}

fn is_bin(path: &str) -> bool {
    path.trim().trim_end_matches('/').ends_with("/bin")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::test_view_of;

    fn destination(files: &[(&str, &str)]) -> InstallDestination {
        let (_d, view) = test_view_of(files);
        let mut ctx = Ctx::new(&view);
        install_destination(&mut ctx, "Makefile")
    }

    #[test]
    fn a_variable_used_under_ifdef_through_a_sub_make_and_an_include() {
        // lastz's shape.
        let found = destination(&[
            ("Makefile", "install: install_lastz\n\ninstall_lastz:\n\tcd src && ${MAKE} install\n"),
            (
                "make-include.mak",
                "INSTALL = install\nifdef LASTZ_INSTALL\ninstallDir = ${LASTZ_INSTALL}\nelse\ninstallDir = ${HOME}/lastz-distrib/bin\nendif\n",
            ),
            (
                "src/Makefile",
                "include ../make-include.mak\n\ninstall: lastz\n\t${INSTALL} -d ${installDir}\n\t${INSTALL} lastz ${installDir}\n",
            ),
        ]);
        assert_eq!(
            found,
            InstallDestination::Variable {
                name: "LASTZ_INSTALL".into(),
                bin: true
            }
        );
    }

    #[test]
    fn a_copy_into_home_with_nothing_to_move_it() {
        let found = destination(&[(
            "Makefile",
            "all: SeqPrep\n\ninstall: all\n\t-cp $(EXECUTABLE) $(HOME)/bin\n",
        )]);
        assert_eq!(
            found,
            InstallDestination::Home(Evidence::new("Makefile", 4))
        );
    }

    #[test]
    fn a_defaulted_directory_is_itself_settable() {
        let found = destination(&[(
            "Makefile",
            "BINDIR ?= $(HOME)/.local/bin\n\ninstall: tool\n\tcp tool $(BINDIR)\n",
        )]);
        assert_eq!(
            found,
            InstallDestination::Variable {
                name: "BINDIR".into(),
                bin: true
            }
        );
        // A plain assignment is not told.
        let found = destination(&[("Makefile", "DEST = /opt/x\n\ninstall:\n\tcp tool $(DEST)\n")]);
        assert_eq!(found, InstallDestination::Unknown);
    }
}
