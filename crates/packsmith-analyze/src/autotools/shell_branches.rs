//! Plain shell branches of configure.ac that configure, run with its
//! defaults on Linux, does not take: `if test "$enable_idleconn" = yes;
//! then AC_CHECK_LIB([event] …)` under an option that is off unless given
//! (httperf), or a `case $host_os in *solaris*)` branch (libnet's
//! `-lnsl`). m4 sees neither as a macro, so `conditions.rs` cannot; a
//! lookup inside one is no dependency of the default build. Branches whose
//! test cannot be told at defaults are left alone.

use packsmith_core::AutotoolsArg;
use std::collections::HashMap;

/// What the host triplet and OS look like to a `case` of configure.
const HOST: &str = "x86_64-pc-linux-gnu";
const HOST_OS: &str = "linux-gnu";

enum Frame {
    /// `if … then`: whether the branch now read runs at defaults.
    If {
        test: String,
        runs: Option<bool>,
        any_ran: Option<bool>,
    },
    /// `case subject in`: the subject, when it is the host, and the label
    /// of the branch now read.
    Case {
        host: Option<&'static str>,
        label: Option<String>,
    },
}

/// For each line of `text` (index 0 is line 1), the branch around it that
/// the default configure skips, described as a condition, or None. One pass
/// over the text, each variable's default read once: a lookup per check
/// rescanning the file was quadratic (conditions.rs met that on fuzzed input).
pub fn skipped_branches(text: &str, args: &[AutotoolsArg]) -> Vec<Option<String>> {
    let mut defaults = Defaults {
        text,
        args,
        seen: HashMap::new(),
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut out = Vec::new();
    for raw in text.lines() {
        out.push(skipped(&stack));
        let l = raw.trim();
        if l.starts_with('#') || l.starts_with("dnl") {
            continue;
        }
        // `;;` ends a `case` branch; a lone `;` separates statements.
        for (i, part) in l.split(";;").enumerate() {
            if i > 0 {
                if let Some(Frame::Case { label, .. }) = stack.last_mut() {
                    *label = None;
                }
            }
            for stmt in part.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                step(&mut stack, stmt, &mut defaults);
            }
        }
    }
    out
}

/// The condition of the outermost skipped frame of `stack`.
fn skipped(stack: &[Frame]) -> Option<String> {
    stack.iter().find_map(|f| match f {
        Frame::If {
            test,
            runs: Some(false),
            ..
        } => Some(test.clone()),
        Frame::Case {
            host: Some(value),
            label: Some(label),
        } if !label_matches(label, value) => Some(format!("case host {label}")),
        _ => None,
    })
}

/// The options' values when not given, each read from the text once.
struct Defaults<'a> {
    text: &'a str,
    args: &'a [AutotoolsArg],
    seen: HashMap<String, Option<String>>,
}

impl Defaults<'_> {
    fn of(&mut self, var: &str) -> Option<String> {
        if let Some(v) = self.seen.get(var) {
            return v.clone();
        }
        let v = default_of(var, self.text, self.args);
        self.seen.insert(var.to_string(), v.clone());
        v
    }
}

fn step(stack: &mut Vec<Frame>, stmt: &str, defaults: &mut Defaults<'_>) {
    let first = stmt.split_whitespace().next().unwrap_or("");
    match first {
        "if" => {
            let test = stmt[2..].trim().to_string();
            let runs = evaluate(&test, defaults);
            stack.push(Frame::If {
                test,
                runs,
                any_ran: runs,
            });
        }
        "elif" => {
            if let Some(Frame::If {
                test,
                runs,
                any_ran,
            }) = stack.last_mut()
            {
                *test = stmt[4..].trim().to_string();
                let now = evaluate(test, defaults);
                *runs = match *any_ran {
                    Some(true) => Some(false),
                    Some(false) => now,
                    None => None,
                };
                *any_ran = match (*any_ran, now) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                };
            }
        }
        "else" => {
            if let Some(Frame::If {
                test,
                runs,
                any_ran,
            }) = stack.last_mut()
            {
                *test = format!("not ({test})");
                *runs = any_ran.map(|r| !r);
            }
        }
        "fi" => {
            if matches!(stack.last(), Some(Frame::If { .. })) {
                stack.pop();
            }
        }
        "case" if stmt.ends_with(" in") => {
            let subject = stmt[4..stmt.len() - 3].trim();
            let host = host_value(subject);
            stack.push(Frame::Case { host, label: None });
        }
        "esac" => {
            if matches!(stack.last(), Some(Frame::Case { .. })) {
                stack.pop();
            }
        }
        _ => {
            if let Some(Frame::Case { label, .. }) = stack.last_mut() {
                if let Some((pattern, _)) = stmt.split_once(')') {
                    let pattern = pattern.trim().trim_start_matches('(');
                    if !pattern.contains(' ') && !pattern.contains('$') && label.is_none() {
                        *label = Some(pattern.to_string());
                    }
                }
            }
        }
    }
}

/// The value a `case` subject has on this host, when it names the host.
pub(super) fn host_value(subject: &str) -> Option<&'static str> {
    let bare = subject
        .trim_matches('"')
        .trim_start_matches('$')
        .trim_start_matches('{')
        .trim_end_matches('}');
    match bare {
        "host" | "target" | "build" | "canonical_host" => Some(HOST),
        "host_os" | "target_os" | "build_os" => Some(HOST_OS),
        _ => None,
    }
}

/// Whether a `case` label (`*solaris*|*sunos*`) matches `value`; a label
/// with a bracket class is taken to match.
pub(super) fn label_matches(label: &str, value: &str) -> bool {
    label
        .split('|')
        .any(|p| p.contains('[') || glob(p.trim().trim_matches('"'), value))
}

fn glob(pattern: &str, value: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == value,
        Some((head, rest)) => {
            let Some(tail) = value.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len()).any(|i| tail.is_char_boundary(i) && glob(rest, &tail[i..]))
        }
    }
}

/// `test "x$enable_foo" = "xyes"` (or `[ … ]`, `!=`) at the option's
/// default; None for any other test.
fn evaluate(test: &str, defaults: &mut Defaults<'_>) -> Option<bool> {
    let words: Vec<&str> = test
        .split_whitespace()
        .filter(|w| !matches!(*w, "test" | "[" | "]" | "then"))
        .collect();
    let [left, op, right] = words[..] else {
        return None;
    };
    let equal = match op {
        "=" | "==" => true,
        "!=" => false,
        _ => return None,
    };
    let unquote = |w: &str| w.trim_matches('"').trim_matches('\'').to_string();
    let (left, right) = (unquote(left), unquote(right));
    let (prefix, var) = split_variable(&left)?;
    let value = defaults.of(var)?;
    Some((format!("{prefix}{value}") == right) == equal)
}

/// `x$enable_foo` → (`x`, `enable_foo`).
fn split_variable(word: &str) -> Option<(&str, &str)> {
    let (prefix, rest) = word.split_once('$')?;
    let var = rest.trim_start_matches('{').trim_end_matches('}');
    var.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then_some((prefix, var))
}

/// The value `enable_foo` / `with_foo` has when the option is not given:
/// its stated default, else unset (empty). None when configure.ac assigns
/// it another literal elsewhere (a platform check turning it on).
fn default_of(var: &str, text: &str, args: &[AutotoolsArg]) -> Option<String> {
    let (kind, name) = var.split_once('_')?;
    if kind != "enable" && kind != "with" {
        return None;
    }
    let arg = args
        .iter()
        .find(|a| a.kind == kind && a.name.replace('-', "_") == name)?;
    let default = arg.default.clone().unwrap_or_default();
    let assigned = format!("{var}=");
    for at in text.match_indices(&assigned).map(|(i, _)| i) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let value: String = text[at + assigned.len()..]
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, ']' | ')' | ';' | ','))
            .collect();
        let value = value.trim_matches('"').trim_matches('\'');
        if value.starts_with('$') || value == default {
            continue;
        }
        return None;
    }
    Some(default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::Evidence;

    fn arg(kind: &str, name: &str, default: Option<&str>) -> AutotoolsArg {
        AutotoolsArg {
            kind: kind.into(),
            name: name.into(),
            help: String::new(),
            default: default.map(str::to_string),
            evidence: Evidence::new("configure.ac", 1),
        }
    }

    fn line_of(text: &str, needle: &str) -> usize {
        text.lines().position(|l| l.contains(needle)).unwrap() + 1
    }

    #[test]
    fn an_option_off_by_default_skips_its_branch() {
        let text = "AC_ARG_ENABLE([idleconn], [help], [enable_idleconn=$enableval], [enable_idleconn=no])\n\
                    if test \"$enable_idleconn\" = \"yes\"; then\n\
                    AC_CHECK_LIB([event], [event_init], , [AC_MSG_ERROR([no])])\n\
                    fi\n\
                    AC_CHECK_LIB([m], [sqrt])\n\
                    if test \"x$with_zlib\" != \"xno\"; then\n\
                    AC_CHECK_LIB([z], [inflate], , [AC_MSG_ERROR([no])])\n\
                    else\n\
                    AC_CHECK_LIB([lzma], [f])\n\
                    fi\n";
        let args = [
            arg("enable", "idleconn", Some("no")),
            arg("with", "zlib", None),
        ];
        let at = |needle| skipped_branches(text, &args)[line_of(text, needle) - 1].clone();
        assert_eq!(
            at("[event]").as_deref(),
            Some("test \"$enable_idleconn\" = \"yes\"")
        );
        assert_eq!(at("[m]"), None);
        // Unset is not "no": the default build takes the zlib branch.
        assert_eq!(at("[z]"), None);
        assert_eq!(
            at("[lzma]").as_deref(),
            Some("not (test \"x$with_zlib\" != \"xno\")")
        );
    }

    #[test]
    fn an_unset_option_and_an_unknown_test() {
        let text = "if test \"x$enable_check\" = \"xyes\" ; then\n  AC_CHECK_LIB([check],[suite_create])\nfi\n\
                    if test \"$have_foo\" = yes; then\n  AC_CHECK_LIB([foo], [f])\nfi\n\
                    enable_fast=yes\nif test \"$enable_fast\" = yes; then\n  AC_CHECK_LIB([fast], [f])\nfi\n";
        let args = [arg("enable", "check", None), arg("enable", "fast", None)];
        let at = |needle| skipped_branches(text, &args)[line_of(text, needle) - 1].clone();
        assert!(at("[check]").is_some());
        assert_eq!(at("[foo]"), None);
        // Assigned elsewhere: not told at defaults.
        assert_eq!(at("[fast]"), None);
    }

    #[test]
    fn a_case_branch_for_another_host_is_skipped() {
        let text = "case \"$host_os\" in\n  *solaris*)\n    AC_CHECK_LIB(nsl, gethostbyname, ,AC_MSG_ERROR(no))\n    ;;\n\
                    *linux*)\n    AC_CHECK_LIB(rt, clock_gettime)\n    ;;\n  *)\n    AC_CHECK_LIB(c, f)\n    ;;\nesac\n\
                    case $host_cpu in\n  sparc*)\n    AC_CHECK_LIB(sparc, f)\n    ;;\nesac\n";
        let at = |needle| skipped_branches(text, &[])[line_of(text, needle) - 1].clone();
        assert_eq!(at("nsl").as_deref(), Some("case host *solaris*"));
        assert_eq!(at("rt,"), None);
        assert_eq!(at("(c,"), None);
        // The CPU is not told: left alone.
        assert_eq!(at("sparc,"), None);
    }
}
