//! The review gate on the recipe a Nix run ends with: the items of
//! nixpkgs' new-package checklist a machine can check, and the three
//! levels (built, smoke-tested, review-clean), as the report's `review`
//! and `levels` extras (the same shape as the Spack backend's).

use packsmith_agent::review::{item, levels, to_extra, ReviewItem};
use packsmith_agent::RunReport;

/// The checklist on `text`, the package `pname`; `ran_program` is the
/// program the runtime check found in `bin/`, if any.
pub fn review(text: &str, pname: &str, ran_program: Option<&str>) -> Vec<ReviewItem> {
    let attr = |name: &str| {
        text.lines()
            .map(str::trim)
            .find(|l| l.starts_with(&format!("{name} =")))
    };
    // nixfmt runs once: the conventions' layout finding and the item below.
    let formatted = crate::format::nixfmt(text);
    let conventions = crate::conventions::check_formatted(text, pname, formatted.as_deref());
    let mut description: Vec<String> = conventions
        .iter()
        .filter(|d| d.code == "meta")
        .map(|d| d.message.clone())
        .collect();
    if attr("description").is_none() {
        description.push("no meta.description".into());
    }
    let homepage = match attr("homepage") {
        None => vec!["no meta.homepage".to_string()],
        Some(l) if !l.contains("\"https://") => vec![format!("`{l}` is not https")],
        Some(_) => Vec::new(),
    };
    let mut source = Vec::new();
    if let Some(l) = attr("src").filter(|l| l.starts_with("src = /") || l.starts_with("src = ./")) {
        source.push(format!(
            "`{l}` is a local path: fetch the release from upstream (fetchFromGitHub, fetchurl)"
        ));
    }
    if text.contains("lib.fakeHash") {
        source.push("the source hash is still lib.fakeHash".into());
    }
    let license = match attr("license") {
        Some(l) if l.starts_with("license = lib.licenses.") && !l.contains("FIXME") => Vec::new(),
        Some(l) => vec![format!("`{l}` is no known licence")],
        None => vec!["no meta.license".to_string()],
    };
    let maintainers = match attr("maintainers") {
        Some(l) if !l.contains("[ ]") => Vec::new(),
        _ => vec!["no maintainer: pass --maintainer <your lib.maintainers handle>".to_string()],
    };
    let fixmes = packsmith_agent::contribution::fixme_count(text);
    let no_fixme = if fixmes == 0 {
        Vec::new()
    } else {
        vec![format!("{fixmes} FIXME line(s)")]
    };
    let main_program = match (ran_program, attr("mainProgram")) {
        (Some(p), None) => vec![format!("installs `{p}` but sets no meta.mainProgram")],
        _ => Vec::new(),
    };
    let strict = if text.contains("stdenv.mkDerivation") && !text.contains("strictDeps = true;") {
        vec!["stdenv.mkDerivation without `strictDeps = true;`".to_string()]
    } else {
        Vec::new()
    };
    let format: Vec<String> = match formatted {
        None => vec!["nixfmt could not read the recipe".into()],
        Some(_) => conventions
            .iter()
            .filter(|d| d.code == "nixfmt")
            .map(|d| d.message.clone())
            .collect(),
    };
    vec![
        item(
            "description",
            description,
            "meta.description as the checklist asks",
        ),
        item("homepage", homepage, "https"),
        item("source", source, "fetched from upstream with its hash"),
        item("license", license, "a lib.licenses attribute"),
        item("maintainers", maintainers, "present"),
        item("no FIXME", no_fixme, "none"),
        item(
            "meta.mainProgram",
            main_program,
            "set where a program is installed",
        ),
        item("strictDeps", strict, "set (or the builder's default)"),
        item("nixfmt", format, "laid out as nixfmt lays it out"),
    ]
}

/// Records the review and the levels on `report`.
pub fn record(report: &mut RunReport, items: &[ReviewItem], built: bool, smoke_tested: bool) {
    report.extras.insert("review".into(), to_extra(items));
    report
        .extras
        .insert("levels".into(), levels(built, smoke_tested, items));
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: &str = "{\n  lib,\n  stdenv,\n  fetchFromGitHub,\n  cmake,\n}:\n\nstdenv.mkDerivation (finalAttrs: {\n  pname = \"quill\";\n  version = \"0.4.0\";\n\n  src = fetchFromGitHub {\n    owner = \"o\";\n    repo = \"quill\";\n    tag = \"v${finalAttrs.version}\";\n    hash = \"sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\";\n  };\n\n  strictDeps = true;\n\n  nativeBuildInputs = [ cmake ];\n\n  meta = {\n    description = \"Feather pen for the terminal\";\n    homepage = \"https://github.com/o/quill\";\n    license = lib.licenses.mit;\n    maintainers = with lib.maintainers; [ octocat ];\n    mainProgram = \"quill\";\n  };\n})\n";

    #[test]
    fn a_recipe_a_reviewer_would_merge_is_clean() {
        let items = review(CLEAN, "quill", Some("quill"));
        assert!(packsmith_agent::review::is_clean(&items), "{items:#?}");
    }

    #[test]
    fn each_open_item_is_named() {
        let drafted = CLEAN
            .replace(
                "  src = fetchFromGitHub {\n    owner = \"o\";\n    repo = \"quill\";\n    tag = \"v${finalAttrs.version}\";\n    hash = \"sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\";\n  };\n",
                "  src = /tmp/quill;\n",
            )
            .replace("with lib.maintainers; [ octocat ]", "[ ]")
            .replace("    mainProgram = \"quill\";\n", "")
            .replace("  strictDeps = true;\n\n", "")
            .replace("lib.licenses.mit;", "lib.licenses.free; # FIXME: map SPDX `X` to lib.licenses");
        let items = review(&drafted, "quill", Some("quill"));
        let failed: Vec<&str> = items
            .iter()
            .filter(|i| !i.passed)
            .map(|i| i.check)
            .collect();
        assert_eq!(
            failed,
            [
                "source",
                "license",
                "maintainers",
                "no FIXME",
                "meta.mainProgram",
                "strictDeps"
            ]
        );
    }
}
