//! The recipe's smoke test in nixpkgs' idiom: `versionCheckHook` runs
//! `meta.mainProgram --version` on the installed output at the end of the
//! build (`doInstallCheck`) and fails the build unless its output holds
//! the version (the argument is set: the hook would try `--help` first).
//! Written only when the analysis found where the program handles
//! `--version`. A check that fails fails the build, as a smoke test must
//! (the repair loop sees it); only a pinned nixpkgs that predates the hook
//! drops it by rule, saying why (the report then has no smoke test).

use crate::diagnose::{EvalErrorKind, Failure};

/// The hook's name, a function input of the recipe.
pub const HOOK: &str = "versionCheckHook";

/// The attribute lines of the install check, unindented.
pub fn lines() -> [String; 3] {
    [
        format!("nativeInstallCheckInputs = [ {HOOK} ];"),
        "versionCheckProgramArg = \"--version\";".to_string(),
        "doInstallCheck = true;".to_string(),
    ]
}

/// Why the install check must go, when `failure` says the pinned
/// nixpkgs has no such hook (a function argument or variable it lacks).
pub fn failed_because(failure: &Failure) -> Option<String> {
    match failure {
        Failure::EvalError {
            error: EvalErrorKind::MissingArgument | EvalErrorKind::UndefinedVariable,
            name: Some(name),
            ..
        } if name == HOOK => Some(format!("the pinned nixpkgs has no {HOOK}")),
        _ => None,
    }
}

/// `recipe` without the install check (its attributes and the hook's
/// function input), or None when it has none.
pub fn remove(recipe: &str) -> Option<String> {
    let [inputs_line, arg_line, switch_line] = lines();
    let is_check = |l: &str| {
        let t = l.trim();
        t == inputs_line || t == arg_line || t == switch_line || t == format!("{HOOK},")
    };
    if !recipe.lines().any(|l| l.trim() == inputs_line) {
        return None;
    }
    let mut out = String::with_capacity(recipe.len());
    let mut previous_blank = false;
    for line in recipe.split_inclusive('\n') {
        if is_check(line) {
            continue;
        }
        // The check was a block of its own: no double blank line stays.
        let blank = line.trim().is_empty();
        if blank && previous_blank {
            continue;
        }
        previous_blank = blank;
        out.push_str(line);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = "{\n  lib,\n  stdenv,\n  versionCheckHook,\n}:\n\nstdenv.mkDerivation (finalAttrs: {\n  pname = \"demo\";\n\n  nativeInstallCheckInputs = [ versionCheckHook ];\n  versionCheckProgramArg = \"--version\";\n  doInstallCheck = true;\n\n  meta = {\n    mainProgram = \"demo\";\n  };\n})\n";

    #[test]
    fn the_check_and_its_input_are_removed_together() {
        let out = remove(RECIPE).unwrap();
        assert!(!out.contains("versionCheckHook"), "{out}");
        assert!(!out.contains("doInstallCheck"), "{out}");
        assert!(out.contains("  pname = \"demo\";\n\n  meta = {"), "{out}");
        assert_eq!(remove(&out), None);
    }

    #[test]
    fn only_a_missing_hook_drops_the_check() {
        let missing = Failure::EvalError {
            error: EvalErrorKind::MissingArgument,
            name: Some(HOOK.into()),
            message: String::new(),
            location: None,
        };
        assert!(failed_because(&missing)
            .unwrap()
            .contains("no versionCheckHook"));
        let check = Failure::BuildFailure {
            drv: None,
            phase: Some("versionCheckPhase".into()),
            exit_code: Some(1),
        };
        // A check that fails is the recipe's failure, not the hook's.
        assert_eq!(failed_because(&check), None);
        let build = Failure::BuildFailure {
            drv: None,
            phase: Some("buildPhase".into()),
            exit_code: Some(2),
        };
        assert_eq!(failed_because(&build), None);
    }
}
