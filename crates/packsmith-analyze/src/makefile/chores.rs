//! A Makefile that only runs a project's chores (`test`, `lint`, `env`,
//! `package` through conda or pip) is no build: beside a Python project
//! (iotaa's `src/pyproject.toml`), the Python project is the package.

use super::{names_word, rule_targets};

/// Words in a recipe line that compile or link, or hand work to a make
/// in another directory that may.
const BUILD_WORDS: &[&str] = &[
    "$(CC)", "${CC}", "$(CXX)", "${CXX}", "$(FC)", "${FC}", "$(LD)", "$(AR)", "$(MAKE)", "${MAKE}",
    "gcc", "g++", "cc", "c++", "clang", "clang++", "gfortran", "nvcc", "ar",
];

/// Whether the Makefile `text` has no `install` rule, no object rule and no
/// recipe that compiles, links or runs a sub-make.
pub(crate) fn is_task_runner(text: &str) -> bool {
    let mut lines = text.lines().filter(|l| !l.trim_start().starts_with('#'));
    !lines.any(|line| {
        let builds_objects_or_installs = rule_targets(line).is_some_and(|targets| {
            targets
                .iter()
                .any(|t| *t == "install" || t.ends_with(".o") || t.ends_with(".a"))
        });
        builds_objects_or_installs || BUILD_WORDS.iter().any(|w| mentions(line, w))
    })
}

/// `word` in `line` as a word (`cc`, not `conda`) or, for a variable
/// reference, anywhere.
fn mentions(line: &str, word: &str) -> bool {
    if word.starts_with('$') {
        line.contains(word)
    } else {
        names_word(line, word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// iotaa's shape: conda packaging, linting and tests; `all` refuses.
    const CHORES: &str = "TARGETS = env format lint test\n.PHONY: $(TARGETS)\n\nall:\n\t$(error Valid targets are: $(TARGETS))\n\nenv: package\n\tconda create -y -n dev $(CHANNELS)\n\nlint:\n\trecipe/run_test.sh lint\n\ntest:\n\tpytest src\n";

    #[test]
    fn a_makefile_of_chores_is_a_task_runner() {
        assert!(is_task_runner(CHORES));
    }

    #[test]
    fn an_install_rule_or_a_compile_makes_it_a_build() {
        assert!(!is_task_runner(&format!(
            "{CHORES}install:\n\tcp -r src $(PREFIX)\n"
        )));
        assert!(!is_task_runner(&format!(
            "{CHORES}prog: main.c\n\t$(CC) -o $@ $<\n"
        )));
        assert!(!is_task_runner(&format!("{CHORES}lib:\n\tgcc -c lib.c\n")));
        assert!(!is_task_runner(&format!("{CHORES}%.o: %.c\n\techo\n")));
        assert!(!is_task_runner(&format!(
            "{CHORES}all-sub:\n\t$(MAKE) -C src\n"
        )));
    }

    #[test]
    fn words_that_only_contain_a_compiler_name_are_no_compile() {
        // `cc` inside `conda` or `accept`, `ar` inside `tar`, is no compiler call.
        assert!(is_task_runner(
            "check:\n\tconda run --accept x\n\ttar xf a.tar\n"
        ));
    }
}
