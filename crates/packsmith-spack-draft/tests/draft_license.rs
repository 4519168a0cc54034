//! The licence from a project's files to the draft's `license(...)`: the
//! GNU texts by their own clauses, `-or-later` only where the project's
//! notices allow later versions, and a FIXME for a text nobody recognised.

use std::path::Path;

use packsmith_core::{Evidence, RepoFacts};
use packsmith_spack_draft::brief::build_brief;
use packsmith_spack_draft::draft::{render_recipe, DraftOptions};
use packsmith_spack_knowledge::mapping::NoKnowledge;
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::target::TargetSpack;

/// Where Debian's base-files keeps the licence texts.
const COMMON_LICENSES: &str = "/usr/share/common-licenses";

const CMAKELISTS: &str = "cmake_minimum_required(VERSION 3.16)\nproject(demo C)\nadd_executable(demo src/main.c)\ninstall(TARGETS demo)\n";

const OR_LATER_HEADER: &str = "/* demo: a demonstration.\n *\n * This program is free software: you can redistribute it and/or modify\n * it under the terms of the GNU General Public License as published by\n * the Free Software Foundation, either version 3 of the License, or\n * (at your option) any later version.\n */\nint main(void) { return 0; }\n";

/// A Debian licence text, None (with a loud line) where it is absent.
// A skipped check must say so where the test output is read.
#[allow(clippy::print_stderr)]
fn common_licence(name: &str) -> Option<String> {
    let path = Path::new(COMMON_LICENSES).join(name);
    if !path.is_file() {
        eprintln!("SKIPPED: {} is absent (not Debian)", path.display());
        return None;
    }
    Some(std::fs::read_to_string(path).unwrap())
}

/// The facts and the Spack draft of a CMake project holding `files`.
fn facts_and_draft(files: &[(&str, &str)]) -> (RepoFacts, String) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files.iter().chain([&("CMakeLists.txt", CMAKELISTS)]) {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let facts = packsmith_analyze::analyze_dir(
        dir.path(),
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: "demo".into(),
            release_tag: None,
        },
    )
    .unwrap();
    let brief = build_brief(&facts, TargetSpack::V1, &NoKnowledge);
    let draft = render_recipe(&brief, &DraftOptions::default());
    let recipe = parse_recipe(&draft, "package.py");
    assert!(recipe.syntax_errors.is_empty(), "{draft}");
    (facts, draft)
}

#[test]
fn the_gpl_3_text_and_an_or_later_header_make_gpl_3_or_later() {
    let Some(gpl3) = common_licence("GPL-3") else {
        return;
    };
    let (facts, draft) = facts_and_draft(&[("LICENSE", &gpl3), ("src/main.c", OR_LATER_HEADER)]);
    let license = facts.license.unwrap();
    assert_eq!(license.spdx, "GPL-3.0-or-later");
    // The GPL-3's preamble, and the header line that allows later versions.
    assert_eq!(license.evidence, Evidence::new("LICENSE", 10));
    assert_eq!(license.later_versions, Some(Evidence::new("src/main.c", 6)));
    assert!(
        draft.contains("    license(\"GPL-3.0-or-later\")\n"),
        "{draft}"
    );
}

#[test]
fn the_gpl_3_text_alone_is_gpl_3_only_not_affero() {
    let Some(gpl3) = common_licence("GPL-3") else {
        return;
    };
    let (facts, draft) = facts_and_draft(&[("COPYING", &gpl3), ("src/main.c", "int main;\n")]);
    assert_eq!(facts.license.unwrap().spdx, "GPL-3.0-only");
    assert!(draft.contains("    license(\"GPL-3.0-only\")\n"), "{draft}");
}

#[test]
fn the_mpl_2_text_is_mpl_2() {
    let Some(mpl) = common_licence("MPL-2.0") else {
        return;
    };
    let (facts, draft) = facts_and_draft(&[("LICENSE", &mpl), ("src/main.c", "int main;\n")]);
    assert_eq!(facts.license.unwrap().spdx, "MPL-2.0");
    assert!(draft.contains("    license(\"MPL-2.0\")\n"), "{draft}");
}

#[test]
fn an_unrecognised_licence_leaves_a_fixme_where_license_goes() {
    let (facts, draft) = facts_and_draft(&[
        (
            "LICENSE",
            "Copyright 2026 demo. Use it as you see fit, but be nice.\n",
        ),
        ("src/main.c", "int main;\n"),
    ]);
    assert_eq!(facts.license.unwrap().spdx, "LicenseRef-unknown");
    assert!(!draft.contains("    license("), "{draft}");
    let fixme = "    # FIXME: license not recognised in LICENSE; add license(\"SPDX-ID\")\n";
    // Where `license(...)` goes: among the metadata, before the dependencies.
    let at = draft.find(fixme).expect(&draft);
    assert!(at < draft.find("    depends_on(").unwrap(), "{draft}");
}
