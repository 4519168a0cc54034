//! The licence as an SPDX identifier, recognised from the licence file's
//! text (an explicit `SPDX-License-Identifier` line wins).

use crate::context::Ctx;
use packsmith_core::{Evidence, LicenseFact};

/// Licence files, most specific first.
const LICENSE_FILES: &[&str] = &[
    "LICENSE",
    "LICENSE.txt",
    "LICENSE.md",
    "LICENSE.rst",
    "LICENCE",
    "LICENCE.txt",
    "LICENCE.md",
    "COPYING",
    "COPYING.txt",
    "COPYING.md",
    "COPYING.LESSER",
    "COPYRIGHT",
    "Copyright.txt",
    "COPYRIGHT.txt",
    "LICENSE-MIT",
    "LICENSE-APACHE",
];

/// Phrases that identify a licence text; every phrase of an entry must
/// appear (case-insensitive, whitespace-normalised). Order matters: more
/// specific texts come before the ones they contain.
const FINGERPRINTS: &[(&str, &[&str])] = &[
    (
        "AGPL-3.0-or-later",
        &["gnu affero general public license", "version 3"],
    ),
    (
        "LGPL-3.0-or-later",
        &["gnu lesser general public license", "version 3"],
    ),
    (
        "LGPL-2.1-or-later",
        &["gnu lesser general public license", "version 2.1"],
    ),
    (
        "LGPL-2.0-or-later",
        &["gnu library general public license", "version 2"],
    ),
    (
        "GPL-3.0-or-later",
        &["gnu general public license", "version 3"],
    ),
    (
        "GPL-2.0-or-later",
        &["gnu general public license", "version 2"],
    ),
    ("Apache-2.0", &["apache license", "version 2.0"]),
    ("MPL-2.0", &["mozilla public license", "2.0"]),
    ("EPL-2.0", &["eclipse public license", "2.0"]),
    ("BSL-1.0", &["boost software license"]),
    (
        "Unlicense",
        &["this is free and unencumbered software released into the public domain"],
    ),
    ("CC0-1.0", &["cc0 1.0 universal"]),
    (
        "ISC",
        &["permission to use, copy, modify, and/or distribute this software for any purpose"],
    ),
    ("MIT", &["permission is hereby granted, free of charge"]),
    (
        "BSD-3-Clause",
        &[
            "redistribution and use in source and binary forms",
            "neither the name",
        ],
    ),
    (
        "BSD-3-Clause",
        &[
            "redistribution and use in source and binary forms",
            "names of its contributors may",
        ],
    ),
    (
        "BSD-2-Clause",
        &["redistribution and use in source and binary forms"],
    ),
    (
        "Zlib",
        &[
            "this software is provided 'as-is'",
            "altered source versions must be plainly marked",
        ],
    ),
];

/// Recognises a licence text.
pub fn identify(text: &str) -> Option<&'static str> {
    for line in text.lines().take(50) {
        if let Some(rest) = line.split("SPDX-License-Identifier:").nth(1) {
            let id = rest.trim().trim_end_matches("*/").trim();
            if !id.is_empty() {
                return SPDX_IDS.iter().copied().find(|known| *known == id);
            }
        }
    }
    let normal = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
        .replace(['\u{2018}', '\u{2019}'], "'");
    FINGERPRINTS
        .iter()
        .find(|(_, phrases)| phrases.iter().all(|p| normal.contains(p)))
        .map(|(id, _)| *id)
}

/// Identifiers accepted from an SPDX line as they are.
const SPDX_IDS: &[&str] = &[
    "Apache-2.0",
    "MIT",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "BSL-1.0",
    "GPL-2.0-only",
    "GPL-2.0-or-later",
    "GPL-3.0-only",
    "GPL-3.0-or-later",
    "LGPL-2.1-only",
    "LGPL-2.1-or-later",
    "LGPL-3.0-only",
    "LGPL-3.0-or-later",
    "MPL-2.0",
    "ISC",
    "Zlib",
    "Unlicense",
    "CC0-1.0",
    "AGPL-3.0-only",
    "AGPL-3.0-or-later",
    "EPL-2.0",
    "Apache-2.0 WITH LLVM-exception",
];

/// The licence from the top-level licence files, else from `metadata`
/// (an SPDX string some manifest declared, with where it was declared).
pub fn detect(ctx: &mut Ctx<'_>, metadata: Option<(String, String)>) -> Option<LicenseFact> {
    for name in LICENSE_FILES {
        if !ctx.view.exists(name) {
            continue;
        }
        if let Some(text) = ctx.read(name) {
            if let Some(id) = identify(&text) {
                return Some(LicenseFact {
                    spdx: id.to_string(),
                    evidence: Evidence::file(*name),
                });
            }
        }
    }
    if let Some((id, file)) = metadata {
        return Some(LicenseFact {
            spdx: id,
            evidence: Evidence::file(file),
        });
    }
    LICENSE_FILES
        .iter()
        .find(|n| ctx.view.exists(n))
        .map(|name| LicenseFact {
            spdx: "LicenseRef-unknown".to_string(),
            evidence: Evidence::file(*name),
        })
}

#[cfg(test)]
mod tests {
    use super::identify;

    #[test]
    fn recognises_common_licence_texts() {
        let mit = "MIT License\n\nPermission is hereby granted, free of charge, to any person";
        assert_eq!(identify(mit), Some("MIT"));
        let bsd3 = "Redistribution and use in source and binary forms, with or without\nmodification... 3. Neither the name of the copyright holder";
        assert_eq!(identify(bsd3), Some("BSD-3-Clause"));
        let bsd2 = "Redistribution and use in source and binary forms, with or without modification, are permitted";
        assert_eq!(identify(bsd2), Some("BSD-2-Clause"));
        let lgpl = "GNU LESSER GENERAL PUBLIC LICENSE\n Version 2.1, February 1999";
        assert_eq!(identify(lgpl), Some("LGPL-2.1-or-later"));
        let apache = "Apache License\nVersion 2.0, January 2004";
        assert_eq!(identify(apache), Some("Apache-2.0"));
        assert_eq!(
            identify("// SPDX-License-Identifier: BSD-3-Clause\n"),
            Some("BSD-3-Clause")
        );
        assert_eq!(identify("All rights reserved."), None);
    }
}
