//! The conditions a macro call sits under: `AS_IF` branches and the actions
//! of `AC_ARG_ENABLE` / `AC_ARG_WITH`.
//!
//! Built once per file: the calls that can hold conditions, ordered by
//! offset, each with its nearest enclosing one, so a lookup walks only the
//! chain around it. (Scanning every call per lookup was quadratic: 1 MB of
//! configure.ac took 8 s, found by packsmith-fuzz.)

use super::m4::Call;
use super::shell_branches::{host_value, label_matches};

pub struct Conditions<'a> {
    calls: &'a [Call],
    /// Indices into `calls` of AS_IF / AC_ARG_ENABLE / AC_ARG_WITH, by offset.
    order: Vec<usize>,
    /// Where each of them ends (its last argument's end).
    ends: Vec<usize>,
    /// The nearest of them that encloses each (an index into `order`).
    parent: Vec<Option<usize>>,
}

impl<'a> Conditions<'a> {
    pub fn new(calls: &'a [Call]) -> Self {
        let end = |c: &Call| {
            c.args
                .iter()
                .map(|a| a.offset + a.raw.len())
                .max()
                .unwrap_or(c.offset)
        };
        let mut order: Vec<usize> = calls
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                matches!(
                    c.name.as_str(),
                    "AS_IF" | "AC_ARG_ENABLE" | "AC_ARG_WITH" | "AS_CASE"
                )
            })
            .map(|(i, _)| i)
            .collect();
        order.sort_by_key(|&i| (calls[i].offset, std::cmp::Reverse(end(&calls[i]))));
        let ends: Vec<usize> = order.iter().map(|&i| end(&calls[i])).collect();
        let mut parent = Vec::with_capacity(order.len());
        let mut open: Vec<usize> = Vec::new();
        for (k, &i) in order.iter().enumerate() {
            let start = calls[i].offset;
            while open.last().is_some_and(|&top| ends[top] <= start) {
                open.pop();
            }
            parent.push(open.last().copied());
            open.push(k);
        }
        Self {
            calls,
            order,
            ends,
            parent,
        }
    }

    /// Conditions around the call at `offset`, outermost first.
    pub fn of(&self, offset: usize) -> Vec<String> {
        let before = self
            .order
            .partition_point(|&i| self.calls[i].offset < offset);
        let mut at = before.checked_sub(1);
        let mut out: Vec<(usize, String)> = Vec::new();
        while let Some(k) = at {
            if self.ends[k] > offset {
                describe(&self.calls[self.order[k]], offset, &mut out);
            }
            at = self.parent[k];
        }
        out.sort_by_key(|(o, _)| *o);
        out.into_iter()
            .map(|(_, s)| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    }
}

/// The condition `c` puts on `offset`, when `offset` is in one of its
/// branches.
fn describe(c: &Call, offset: usize, out: &mut Vec<(usize, String)>) {
    let inside = |i: usize| {
        c.args
            .get(i)
            .is_some_and(|a| a.offset <= offset && offset < a.offset + a.raw.len())
    };
    match c.name.as_str() {
        "AS_IF" => {
            // AS_IF(test1, then1, test2, then2, …, else)
            let n = c.args.len();
            for i in (1..n).step_by(2) {
                if inside(i) {
                    out.push((c.offset, c.arg(i - 1)));
                }
            }
            if n > 2 && n % 2 == 1 && inside(n - 1) {
                out.push((c.offset, format!("not ({})", c.arg(n - 3))));
            }
        }
        // AS_CASE(word, pattern1, action1, …, default): only a branch for
        // another host than this one is a condition (libnet's `*solaris*`).
        "AS_CASE" => {
            let Some(host) = host_value(&c.arg(0)) else {
                return;
            };
            let n = c.args.len();
            let mut matched = false;
            for i in (2..n).step_by(2) {
                let pattern = c.arg(i - 1);
                let matches = label_matches(&pattern, host);
                matched |= matches;
                if inside(i) && !matches {
                    out.push((c.offset, format!("case host {pattern}")));
                }
            }
            if n.is_multiple_of(2) && matched && inside(n - 1) {
                out.push((c.offset, "case host: none of the above".to_string()));
            }
        }
        "AC_ARG_ENABLE" | "AC_ARG_WITH" => {
            let flag = if c.name == "AC_ARG_ENABLE" {
                "enable"
            } else {
                "with"
            };
            if inside(2) {
                out.push((c.offset, format!("--{flag}-{} given", c.arg(0))));
            } else if inside(3) {
                out.push((c.offset, format!("--{flag}-{} not given", c.arg(0))));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::m4::scan;
    use super::*;

    #[test]
    fn nested_branches_outermost_first_and_siblings_apart() {
        let text = "AS_IF([test a], [AS_IF([test b], [PKG_CHECK_MODULES([X], [x])])], \
                    [AC_CHECK_LIB([m], [cos])])\nAC_ARG_WITH([z], [], [AC_CHECK_LIB([z], [f])])\n\
                    AC_CHECK_LIB([q], [g])";
        let calls = scan(text);
        let conds = Conditions::new(&calls);
        let at = |name: &str, arg: &str| {
            let c = calls
                .iter()
                .find(|c| c.name == name && c.arg(0) == arg)
                .unwrap();
            conds.of(c.offset)
        };
        assert_eq!(at("PKG_CHECK_MODULES", "X"), ["test a", "test b"]);
        assert_eq!(at("AC_CHECK_LIB", "m"), ["not (test a)"]);
        assert_eq!(at("AC_CHECK_LIB", "z"), ["--with-z given"]);
        assert!(at("AC_CHECK_LIB", "q").is_empty());
    }

    #[test]
    fn an_as_case_branch_for_another_host_is_a_condition() {
        let text = "AS_CASE([$target_os], [*darwin*], [AC_CHECK_LIB([a], [f])],\n\
                    [*solaris*], [AC_CHECK_LIB([nsl], [f])], [*linux*], [AC_CHECK_LIB([rt], [f])],\n\
                    [AC_CHECK_LIB([other], [f])])\n\
                    AS_CASE([$with_x], [yes], [AC_CHECK_LIB([x], [f])])";
        let calls = scan(text);
        let conds = Conditions::new(&calls);
        let at = |arg: &str| {
            let c = calls
                .iter()
                .find(|c| c.name == "AC_CHECK_LIB" && c.arg(0) == arg)
                .unwrap();
            conds.of(c.offset)
        };
        assert_eq!(at("nsl"), ["case host *solaris*"]);
        assert_eq!(at("a"), ["case host *darwin*"]);
        assert!(at("rt").is_empty());
        assert_eq!(at("other"), ["case host: none of the above"]);
        // Not the host: not told here.
        assert!(at("x").is_empty());
    }

    #[test]
    fn a_megabyte_of_configure_ac_is_read_in_linear_time() {
        // Found by packsmith-fuzz (target autotools): every lookup scanned
        // every call; 1 MB of repeated AC_ARG_ENABLE/AS_IF took seconds.
        let one = "AC_ARG_ENABLE([mpi], [], [AS_IF([test x], [AC_CHECK_LIB([m], [cos])])])\n";
        let text = one.repeat(1_000_000 / one.len());
        let t = std::time::Instant::now();
        let calls = scan(&text);
        let conds = Conditions::new(&calls);
        let n = calls
            .iter()
            .filter(|c| c.name == "AC_CHECK_LIB")
            .map(|c| conds.of(c.offset).len())
            .sum::<usize>();
        assert_eq!(n, 2 * text.matches("AC_CHECK_LIB").count());
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }
}
