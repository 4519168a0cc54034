//! The conditions a macro call sits under: `AS_IF` branches and the actions
//! of `AC_ARG_ENABLE` / `AC_ARG_WITH`.

use super::m4::Call;

/// Conditions around the call at `offset`, outermost first.
pub fn enclosing(calls: &[Call], offset: usize) -> Vec<String> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for c in calls {
        if c.offset >= offset {
            continue;
        }
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
    out.sort_by_key(|(o, _)| *o);
    out.into_iter()
        .map(|(_, s)| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}
