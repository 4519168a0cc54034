//! The `install()` method of a recipe whose build has no install rules:
//! executables to `bin`, libraries to `lib`, public headers to `include`,
//! found by name in `self.build_directory` with Spack's `find`, copied
//! with `install`/`install_tree` (all from `spack.package`).

use crate::brief::InstallPlan;
use packsmith_spack_knowledge::pylayout::{call, LINE_WIDTH};
use packsmith_spack_knowledge::pystr::{comment_text, py_str, wrap};

/// Directories of the build tree that never hold the project's own
/// products: CMake's probes and FetchContent's downloads.
const NOT_PRODUCTS: &str = "\"CMakeFiles\" not in path and \"_deps\" not in path";

fn py_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|i| py_str(i))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Where the copy loops look: the build directory, or where the build
/// writes its programs when that is elsewhere in the source tree.
fn search_root(plan: &InstallPlan) -> String {
    match plan.products_dir.as_deref() {
        None => "self.build_directory".into(),
        Some("") => "self.stage.source_path".into(),
        Some(dir) => format!("join_path(self.stage.source_path, {})", py_str(dir)),
    }
}

/// One `for path in find(root, ...)` loop that installs matches into `dest`.
fn copy_loop(
    root: &str,
    patterns: &[String],
    recursive: bool,
    test: &str,
    dest: &str,
) -> Vec<String> {
    let mut args = vec![root.to_string(), py_list(patterns)];
    if !recursive {
        args.push("recursive=False".into());
    }
    let mut out = Vec::new();
    let head = call("        ", "for path in find", &args);
    // `call` renders `for path in find(...)`; the loop needs its colon.
    let last = head.len() - 1;
    for (i, line) in head.into_iter().enumerate() {
        out.push(if i == last { format!("{line}:") } else { line });
    }
    // A test may start with statements of its own, one per line.
    let (statements, test) = test.rsplit_once('\n').unwrap_or(("", test));
    for s in statements.lines() {
        out.push(format!("            {s}"));
    }
    out.push(format!("            if {test}:"));
    out.push(format!("                install(path, {dest})"));
    out
}

/// The whole method.
pub fn render_install(plan: &InstallPlan) -> Vec<String> {
    let mut out = vec!["    def install(self, spec, prefix):".to_string()];
    let why = if plan.headers_only {
        format!(
            "The build has no install rules ({}) and makes only its tests ({}): the headers \
             are the library.",
            comment_text(&plan.why),
            plan.executables.join(", ")
        )
    } else {
        format!(
            "The build has no install rules ({}): copy what it made.",
            comment_text(&plan.why)
        )
    };
    out.extend(
        wrap(&why, LINE_WIDTH - 10)
            .into_iter()
            .map(|l| format!("        # {l}")),
    );
    if plan.headers_only {
        out.extend(headers(plan));
        return out;
    }
    let root = search_root(plan);
    let no_targets = plan.executables.is_empty() && plan.libraries.is_empty();
    if no_targets {
        out.push(
            "        # FIXME: no targets are known by name: every executable without a dot in"
                .into(),
        );
        out.push(
            "        # its name goes to bin and every lib*.so*/lib*.a to lib; check the list."
                .into(),
        );
        out.push("        mkdirp(prefix.bin)".into());
        out.extend(copy_loop(
            &root,
            &["*".to_string()],
            true,
            // A Makefile committed with its executable bit is no program.
            "name = path.rsplit(\"/\", 1)[-1]\n\
             skip = \"CMakeFiles\" in path or \"_deps\" in path or \".\" in name\n\
             skip = skip or name in (\"Makefile\", \"makefile\", \"GNUmakefile\")\n\
             is_exe(path) and not skip",
            "prefix.bin",
        ));
        out.push("        mkdirp(prefix.lib)".into());
        out.extend(copy_loop(
            &root,
            &["lib*.so*".to_string(), "lib*.a".to_string()],
            true,
            NOT_PRODUCTS,
            "prefix.lib",
        ));
    }
    if !plan.executables.is_empty() {
        out.push("        mkdirp(prefix.bin)".into());
        out.extend(copy_loop(
            &root,
            &plan.executables,
            true,
            &format!("is_exe(path) and {NOT_PRODUCTS}"),
            "prefix.bin",
        ));
    }
    if !plan.libraries.is_empty() {
        let patterns: Vec<String> = plan
            .libraries
            .iter()
            .flat_map(|l| {
                [
                    format!("lib{l}.a"),
                    format!("lib{l}.so*"),
                    format!("lib{l}.dylib"),
                ]
            })
            .collect();
        out.push("        mkdirp(prefix.lib)".into());
        out.extend(copy_loop(
            &root,
            &patterns,
            true,
            NOT_PRODUCTS,
            "prefix.lib",
        ));
    }
    if no_targets && plan.headers.is_none() {
        out.extend(call(
            "        ",
            "for path in find",
            &[
                "self.stage.source_path".into(),
                "[\"include\"]".into(),
                "recursive=False".into(),
            ],
        ));
        let last = out.len() - 1;
        out[last].push(':');
        out.push("            install_tree(path, prefix.include)".into());
    }
    out.extend(headers(plan));
    out
}

/// `install_tree` of the public headers, when there are any.
fn headers(plan: &InstallPlan) -> Vec<String> {
    plan.headers
        .as_ref()
        .map(|dir| {
            call(
                "        ",
                "install_tree",
                &[
                    format!("join_path(self.stage.source_path, {})", py_str(dir)),
                    "prefix.include".into(),
                ],
            )
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executables_libraries_and_headers_are_copied() {
        let plan = InstallPlan {
            executables: vec!["demo".into()],
            libraries: vec!["core".into()],
            headers: Some("include".into()),
            why: "no install() in the 1 CMake file(s) read".into(),
            headers_only: false,
            ..InstallPlan::default()
        };
        let text = render_install(&plan).join("\n");
        assert!(
            text.starts_with("    def install(self, spec, prefix):"),
            "{text}"
        );
        assert!(
            text.contains("        for path in find(self.build_directory, [\"demo\"]):"),
            "{text}"
        );
        assert!(text.contains("is_exe(path) and \"CMakeFiles\" not in path"));
        assert!(text.contains("\"libcore.a\", \"libcore.so*\""), "{text}");
        assert!(text.contains("install(path, prefix.lib)"));
        assert!(text.contains(
            "        install_tree(join_path(self.stage.source_path, \"include\"), prefix.include)"
        ));
    }

    #[test]
    fn a_header_only_plan_copies_the_headers_and_nothing_it_built() {
        let plan = InstallPlan {
            executables: vec!["ClaraTests".into()],
            headers: Some("single_include".into()),
            why: "no install() in the 1 CMake file(s) read".into(),
            headers_only: true,
            ..InstallPlan::default()
        };
        let text = render_install(&plan).join("\n");
        assert!(text.contains("its tests (ClaraTests)"), "{text}");
        assert!(text.contains("the headers are the library"), "{text}");
        assert!(!text.contains("build_directory"), "{text}");
        assert!(!text.contains("FIXME"), "{text}");
        assert!(
            text.ends_with(
                "        install_tree(join_path(self.stage.source_path, \"single_include\"), prefix.include)"
            ),
            "{text}"
        );
    }

    #[test]
    fn without_targets_every_executable_and_library_is_copied() {
        let plan = InstallPlan {
            why: "no install: target".into(),
            ..InstallPlan::default()
        };
        let text = render_install(&plan).join("\n");
        assert!(text.contains("FIXME"), "{text}");
        // A Makefile committed with its executable bit is no program.
        assert!(
            text.contains(
                "        for path in find(self.build_directory, [\"*\"]):\n\
                 \x20           name = path.rsplit(\"/\", 1)[-1]\n\
                 \x20           skip = \"CMakeFiles\" in path or \"_deps\" in path or \".\" in name\n\
                 \x20           skip = skip or name in (\"Makefile\", \"makefile\", \"GNUmakefile\")\n\
                 \x20           if is_exe(path) and not skip:\n\
                 \x20               install(path, prefix.bin)"
            ),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 99), "{text}");
        assert!(text.contains("[\"lib*.so*\", \"lib*.a\"]"), "{text}");
        assert!(
            text.contains(
                "for path in find(self.stage.source_path, [\"include\"], recursive=False):"
            ),
            "{text}"
        );
    }

    #[test]
    fn programs_written_outside_the_build_directory_are_copied_from_there() {
        let mut plan = InstallPlan {
            executables: vec!["halo-finder".into()],
            why: "no install: target".into(),
            products_dir: Some(String::new()),
            ..InstallPlan::default()
        };
        let text = render_install(&plan).join("\n");
        assert!(
            text.contains("        for path in find(self.stage.source_path, [\"halo-finder\"]):"),
            "{text}"
        );
        plan.products_dir = Some("bin".into());
        let text = render_install(&plan).join("\n");
        assert!(
            text.contains("find(join_path(self.stage.source_path, \"bin\"), [\"halo-finder\"])"),
            "{text}"
        );
    }
}
