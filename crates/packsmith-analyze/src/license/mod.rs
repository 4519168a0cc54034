//! The licence as an SPDX identifier, recognised from the licence file's
//! text by the clauses only that licence has (an explicit
//! `SPDX-License-Identifier` line wins). A GNU licence's text does not say
//! whether later versions may be used: `later` looks for the project's own
//! statement, and without one the id is `-only`.

mod later;
mod normal;

use crate::context::Ctx;
use normal::Normalised;
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
    "LICENCE.rst",
    // The LGPL ships beside the GPL it builds on: the project's is the LGPL.
    "COPYING.LESSER",
    "COPYING",
    "COPYING.txt",
    "COPYING.md",
    "COPYRIGHT",
    "Copyright.txt",
    "COPYRIGHT.txt",
    "LICENSE-MIT",
    "LICENSE-APACHE",
];

/// A fingerprint: phrases (lower case, single-spaced) that must all appear,
/// the first being the clause whose line is the evidence.
struct Fingerprint {
    id: &'static str,
    /// True for a GNU licence, whose id gets `-only` or `-or-later`.
    gnu: bool,
    clauses: &'static [&'static str],
    /// A phrase whose presence rules the licence out (the condition a
    /// longer licence adds to the same grant).
    absent: Option<&'static str>,
}

const fn gnu(id: &'static str, clauses: &'static [&'static str]) -> Fingerprint {
    Fingerprint {
        id,
        gnu: true,
        clauses,
        absent: None,
    }
}

const fn fixed(id: &'static str, clauses: &'static [&'static str]) -> Fingerprint {
    Fingerprint {
        id,
        gnu: false,
        clauses,
        absent: None,
    }
}

/// Each licence by what only its text says. The GNU texts name one another
/// (the GPL-3 has a section on the Affero licence, the GPL-2 points to the
/// Lesser one, the MPL-2.0 lists all three as secondary licences), so a
/// licence's name alone is no fingerprint. Order matters only where one
/// text contains another's clauses (BSD-4 ⊃ BSD-3 ⊃ BSD-2).
const FINGERPRINTS: &[Fingerprint] = &[
    // The AGPL's section 13; the GPL-3's is "Use with the GNU Affero …".
    gnu("AGPL-3.0", &["remote network interaction"]),
    gnu(
        "LGPL-3.0",
        &["incorporates the terms and conditions of version 3 of the gnu general public license"],
    ),
    gnu(
        "GPL-3.0",
        &["the gnu general public license is a free, copyleft license for software"],
    ),
    gnu(
        "GPL-3.0",
        &["use with the gnu affero general public license"],
    ),
    gnu(
        "LGPL-2.1",
        &["gnu lesser general public license version 2.1, february 1999"],
    ),
    gnu(
        "LGPL-2.0",
        &[
            "gnu library general public license version 2, june 1991",
            "this license, the library general public license, applies",
        ],
    ),
    gnu(
        "GPL-2.0",
        &[
            "this general public license applies to most of the free software foundation's software",
            "version 2, june 1991",
        ],
    ),
    fixed("MPL-2.0", &["mozilla public license version 2.0"]),
    fixed("MPL-2.0", &["mozilla public license, v. 2.0"]),
    fixed("MPL-1.1", &["mozilla public license version 1.1"]),
    fixed("Apache-2.0", &["apache license", "version 2.0"]),
    fixed("EPL-2.0", &["eclipse public license", "2.0"]),
    fixed("BSL-1.0", &["boost software license"]),
    fixed("AFL-3.0", &["academic free license", "version 3.0"]),
    fixed("AFL-2.1", &["academic free license", "version 2.1"]),
    fixed(
        "Unlicense",
        &["this is free and unencumbered software released into the public domain"],
    ),
    fixed("CC0-1.0", &["cc0 1.0 universal"]),
    // The ISC grant without the ISC's condition that the notice be kept.
    Fingerprint {
        absent: Some("provided that the above copyright notice"),
        ..fixed(
            "0BSD",
            &["permission to use, copy, modify, and/or distribute this software for any purpose"],
        )
    },
    fixed(
        "ISC",
        &["permission to use, copy, modify, and/or distribute this software for any purpose"],
    ),
    fixed(
        "ISC",
        &["permission to use, copy, modify, and distribute this software for any purpose with or without fee"],
    ),
    fixed("MIT", &["permission is hereby granted, free of charge"]),
    fixed(
        "BSD-4-Clause",
        &[
            "all advertising materials mentioning features or use of this software",
            "redistribution and use in source and binary forms",
        ],
    ),
    // The third clause: no endorsement by the names of the authors.
    fixed(
        "BSD-3-Clause",
        &[
            "neither the name",
            "redistribution and use in source and binary forms",
        ],
    ),
    fixed(
        "BSD-3-Clause",
        &[
            "names of its contributors may",
            "redistribution and use in source and binary forms",
        ],
    ),
    fixed(
        "BSD-2-Clause",
        &["redistribution and use in source and binary forms"],
    ),
    fixed(
        "Zlib",
        &[
            "this software is provided 'as-is'",
            "altered source versions must be plainly marked",
        ],
    ),
];

/// A GNU licence's name and the ids of the versions it was published in,
/// for a text that names its licence without quoting it (a notice, a
/// title over a shortened text).
const GNU_NAMES: &[(&str, &[(&str, &str)])] = &[
    ("gnu affero general public license", &[("3", "AGPL-3.0")]),
    (
        "gnu lesser general public license",
        &[("2.1", "LGPL-2.1"), ("3", "LGPL-3.0")],
    ),
    ("gnu library general public license", &[("2", "LGPL-2.0")]),
    (
        "gnu general public license",
        &[("2", "GPL-2.0"), ("3", "GPL-3.0")],
    ),
];

/// How far after a GNU licence's name its version is looked for
/// ("… as published by the Free Software Foundation, either version 3").
const VERSION_WINDOW_CHARS: usize = 100;

/// Words by which a text offers its licences as a choice ("either the
/// Zero-Clause BSD licence or the CC0"), looked for in its opening only:
/// further down, "either express or implied" is a warranty's.
const CHOICE_PHRASES: &[&str] = &[
    "terms of either",
    "licensed under either",
    "under either the",
    "dual licensed",
    "dual-licensed",
    "dual licence",
    "dual license",
];

/// How much of a text's opening is read for a choice of licences.
const CHOICE_WINDOW_CHARS: usize = 1_000;

/// A licence recognised in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recognised {
    /// The SPDX id, or a GNU licence's id without `-only`/`-or-later`.
    pub id: &'static str,
    /// Another licence the text offers in its place (never a GNU one: the
    /// GNU texts name one another).
    pub or: Option<&'static str>,
    pub gnu: bool,
    /// The line of the clause (or SPDX line, or name) that matched.
    pub line: u32,
    /// Recognised by the licence's name alone: the text is a notice, whose
    /// own words may say whether later versions are allowed.
    pub by_name: bool,
}

impl Recognised {
    /// The SPDX id; a GNU licence's says whether later versions are allowed.
    pub fn spdx(&self, later_versions: bool) -> String {
        match (self.gnu, later_versions) {
            (false, _) => match self.or {
                Some(other) => choice_of(vec![self.id, other]),
                None => self.id.to_string(),
            },
            (true, true) => format!("{}-or-later", self.id),
            (true, false) => format!("{}-only", self.id),
        }
    }
}

/// Recognises a licence text.
pub fn identify(text: &str) -> Option<Recognised> {
    if let Some(found) = spdx_line(text) {
        return Some(found);
    }
    let normal = Normalised::new(text);
    by_clauses(&normal).or_else(|| gnu_by_name(&normal))
}

/// A known id from an `SPDX-License-Identifier:` line near the top.
fn spdx_line(text: &str) -> Option<Recognised> {
    text.lines().take(50).enumerate().find_map(|(index, line)| {
        let rest = line.split("SPDX-License-Identifier:").nth(1)?;
        let id = rest.trim().trim_end_matches("*/").trim();
        let id = id
            .strip_prefix('(')
            .and_then(|i| i.strip_suffix(')'))
            .unwrap_or(id);
        let known = |id: &str| SPDX_IDS.iter().copied().find(|known| *known == id.trim());
        // `MIT OR Apache-2.0`: a choice of two known ids.
        let (id, or) = match id.split_once(" OR ") {
            Some((a, b)) => (known(a)?, Some(known(b)?)),
            None => (known(id)?, None),
        };
        Some(Recognised {
            id,
            or,
            gnu: false,
            line: index as u32 + 1,
            by_name: false,
        })
    })
}

/// The first fingerprint whose clauses all appear, with a second licence
/// where the text offers a choice.
fn by_clauses(normal: &Normalised) -> Option<Recognised> {
    let (print, at) = FINGERPRINTS
        .iter()
        .find_map(|p| Some((p, matched(p, normal)?)))?;
    Some(Recognised {
        id: print.id,
        or: alternative(print, &at, normal),
        gnu: print.gnu,
        line: normal.line_of(at[0]),
        by_name: false,
    })
}

/// Where each of the fingerprint's clauses is, when all are and its
/// `absent` phrase is not.
fn matched(print: &Fingerprint, normal: &Normalised) -> Option<Vec<usize>> {
    if print.absent.is_some_and(|a| normal.find(a).is_some()) {
        return None;
    }
    print.clauses.iter().map(|c| normal.find(c)).collect()
}

/// A second, different licence the text offers beside `first`. A licence
/// whose clause is one of `first`'s own (BSD-2's within BSD-3's, the ISC
/// grant within 0BSD) is part of that text, not a choice.
fn alternative(first: &Fingerprint, at: &[usize], normal: &Normalised) -> Option<&'static str> {
    let opening = normal
        .text()
        .char_indices()
        .nth(CHOICE_WINDOW_CHARS)
        .map_or(normal.text(), |(end, _)| &normal.text()[..end]);
    if first.gnu || !CHOICE_PHRASES.iter().any(|p| opening.contains(p)) {
        return None;
    }
    FINGERPRINTS
        .iter()
        .filter(|p| !p.gnu && p.id != first.id)
        .find_map(|p| {
            let its = matched(p, normal)?;
            its.iter().all(|i| !at.contains(i)).then_some(p.id)
        })
}

/// The GNU licence a text names first, in the version named right after.
fn gnu_by_name(normal: &Normalised) -> Option<Recognised> {
    let (at, name, versions) = GNU_NAMES
        .iter()
        .filter_map(|(name, versions)| Some((normal.find(name)?, *name, *versions)))
        .min_by_key(|(at, _, _)| *at)?;
    let after = &normal.text()[at + name.len()..];
    let window = after
        .char_indices()
        .nth(VERSION_WINDOW_CHARS)
        .map_or(after, |(end, _)| &after[..end]);
    let version = version_in(window)?;
    let id = versions
        .iter()
        .find(|(published, _)| *published == version)
        .map(|(_, id)| *id)?;
    Some(Recognised {
        id,
        or: None,
        gnu: true,
        line: normal.line_of(at),
        by_name: true,
    })
}

/// The version number in "version 3", "Version 2.1," or "v3" ("3.0" as "3").
fn version_in(window: &str) -> Option<&str> {
    let mut words = window.split_whitespace();
    let number = loop {
        let word = words.next()?;
        if word == "version" {
            break words.next()?;
        }
        if let Some(number) = word.strip_prefix('v') {
            if number.starts_with(|c: char| c.is_ascii_digit()) {
                break number;
            }
        }
    };
    let number = number.trim_end_matches(|c: char| !c.is_ascii_digit());
    Some(number.strip_suffix(".0").unwrap_or(number))
}

/// Identifiers accepted from an SPDX line as they are.
const SPDX_IDS: &[&str] = &[
    "Apache-2.0",
    "MIT",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "BSD-4-Clause",
    "BSL-1.0",
    "GPL-2.0-only",
    "GPL-2.0-or-later",
    "GPL-3.0-only",
    "GPL-3.0-or-later",
    "LGPL-2.0-only",
    "LGPL-2.0-or-later",
    "LGPL-2.1-only",
    "LGPL-2.1-or-later",
    "LGPL-3.0-only",
    "LGPL-3.0-or-later",
    "MPL-1.1",
    "MPL-2.0",
    "ISC",
    "Zlib",
    "Unlicense",
    "CC0-1.0",
    "0BSD",
    "AGPL-3.0-only",
    "AGPL-3.0-or-later",
    "EPL-2.0",
    "Apache-2.0 WITH LLVM-exception",
];

/// The licence from the top-level licence files, else from `metadata`
/// (an SPDX string some manifest declared, with where it was declared).
pub fn detect(ctx: &mut Ctx<'_>, metadata: Option<(String, String)>) -> Option<LicenseFact> {
    if let Some(fact) = from_license_files(ctx) {
        return Some(fact);
    }
    // `license = {file = "LICENCE.rst"}` names a file, not a licence: its
    // text says which, or nothing is known (never `file: …` as an id).
    let named_file = metadata
        .as_ref()
        .and_then(|(id, _)| id.strip_prefix("file: "))
        .map(str::to_string);
    if let Some(path) = &named_file {
        if let Some(fact) = from_file(ctx, path) {
            return Some(fact);
        }
    } else if let Some((id, file)) = metadata {
        return Some(LicenseFact {
            spdx: id,
            evidence: Evidence::file(file),
            later_versions: None,
        });
    }
    named_file
        .iter()
        .map(String::as_str)
        .chain(LICENSE_FILES.iter().copied())
        .find(|n| ctx.view.exists(n))
        .map(|name| LicenseFact {
            spdx: LicenseFact::UNKNOWN.to_string(),
            evidence: Evidence::file(name),
            later_versions: None,
        })
}

/// The first licence file whose text is recognised. `LICENSE-MIT` beside
/// `LICENSE-APACHE` (and no `LICENSE`) is the Rust ecosystem's offer of
/// either: both, as an SPDX `OR`.
fn from_license_files(ctx: &mut Ctx<'_>) -> Option<LicenseFact> {
    let mut fact = LICENSE_FILES.iter().find_map(|name| from_file(ctx, name))?;
    if fact.evidence.file.starts_with("LICENSE-") && !fact.spdx.contains(" OR ") {
        let others: Vec<String> = LICENSE_FILES
            .iter()
            .filter(|name| name.starts_with("LICENSE-") && **name != fact.evidence.file)
            .filter_map(|name| from_file(ctx, name))
            .map(|other| other.spdx)
            .filter(|id| *id != fact.spdx && !id.contains(" OR "))
            .collect();
        if !others.is_empty() {
            let ids = others
                .iter()
                .map(String::as_str)
                .chain([fact.spdx.as_str()]);
            fact.spdx = choice_of(ids.collect());
        }
    }
    Some(fact)
}

/// A choice of licences as one SPDX expression. SPDX compares expressions
/// as sets: alphabetical order keeps the draft's line the same whichever
/// text or file comes first.
fn choice_of(mut ids: Vec<&str>) -> String {
    ids.sort_unstable();
    ids.join(" OR ")
}

/// The licence the text of file `name` is recognised as.
fn from_file(ctx: &mut Ctx<'_>, name: &str) -> Option<LicenseFact> {
    if !ctx.view.exists(name) {
        return None;
    }
    let text = ctx.read(name)?;
    let found = identify(&text)?;
    // A full licence text's appendix shows how to allow later versions;
    // only a notice's words are the project's own.
    let notice = found.by_name.then_some((name, text.as_str()));
    let later_versions = if found.gnu {
        later::statement(ctx, notice)
    } else {
        None
    };
    Some(LicenseFact {
        spdx: found.spdx(later_versions.is_some()),
        evidence: Evidence::new(name, found.line),
        later_versions,
    })
}

#[cfg(test)]
mod tests {
    use super::{identify, Recognised};
    use std::path::Path;

    /// Where Debian's base-files keeps the licence texts.
    const COMMON_LICENSES: &str = "/usr/share/common-licenses";

    /// The id and evidence line `identify` gives, `-only` for a GNU licence.
    fn id_of(text: &str) -> Option<(String, u32)> {
        identify(text).map(|r| (r.spdx(false), r.line))
    }

    /// The id of a licence text Debian ships, None (with a loud line) where
    /// the directory is absent.
    // A skipped check must say so where the test output is read.
    #[allow(clippy::print_stderr)]
    fn common_licence(name: &str) -> Option<Option<(String, u32)>> {
        let dir = Path::new(COMMON_LICENSES);
        if !dir.is_dir() {
            eprintln!("SKIPPED: {COMMON_LICENSES} is absent (not Debian); {name} not checked");
            return None;
        }
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        Some(id_of(&text))
    }

    #[test]
    fn the_gnu_texts_by_their_own_clauses() {
        for (file, id, line) in [
            ("GPL-2", "GPL-2.0-only", 14),
            ("GPL-3", "GPL-3.0-only", 10),
            ("LGPL-2", "LGPL-2.0-only", 1),
            ("LGPL-2.1", "LGPL-2.1-only", 1),
            ("LGPL-3", "LGPL-3.0-only", 9),
        ] {
            let Some(found) = common_licence(file) else {
                return;
            };
            assert_eq!(found, Some((id.to_string(), line)), "{file}");
        }
    }

    #[test]
    fn the_gpl_3_mentions_the_affero_licence_but_is_not_it() {
        let Some(found) = common_licence("GPL-3") else {
            return;
        };
        let (id, _) = found.unwrap();
        assert!(!id.starts_with("AGPL"), "{id}");
    }

    #[test]
    fn mozilla_apache_and_bsd_texts() {
        for (file, id) in [
            ("MPL-2.0", "MPL-2.0"),
            ("MPL-1.1", "MPL-1.1"),
            ("Apache-2.0", "Apache-2.0"),
            ("BSD", "BSD-3-Clause"),
            ("CC0-1.0", "CC0-1.0"),
        ] {
            let Some(found) = common_licence(file) else {
                return;
            };
            assert_eq!(found.map(|(id, _)| id).as_deref(), Some(id), "{file}");
        }
    }

    #[test]
    fn the_affero_licence_by_its_network_clause() {
        let agpl = "                    GNU AFFERO GENERAL PUBLIC LICENSE\n                       Version 3, 19 November 2007\n\n  13. Remote Network Interaction; Use with the GNU General Public License.\n\n  Notwithstanding any other provision of this License, if you modify the\nProgram, your modified version must prominently offer all users\ninteracting with it remotely through a computer network ...\n";
        assert_eq!(id_of(agpl), Some(("AGPL-3.0-only".to_string(), 4)));
    }

    #[test]
    fn a_notice_by_the_licence_it_names() {
        let notice = "This library is free software; you can redistribute it and/or\nmodify it under the terms of the GNU Lesser General Public\nLicense as published by the Free Software Foundation; either\nversion 2.1 of the License, or (at your option) any later version.\n";
        let found = identify(notice).unwrap();
        assert_eq!(
            found,
            Recognised {
                id: "LGPL-2.1",
                or: None,
                gnu: true,
                line: 2,
                by_name: true
            }
        );
        assert_eq!(found.spdx(true), "LGPL-2.1-or-later");
        let title = "GNU LESSER GENERAL PUBLIC LICENSE\n Version 2.1, February 1999";
        assert_eq!(id_of(title), Some(("LGPL-2.1-only".to_string(), 1)));
        let agpl = "Licensed under the GNU Affero General Public License v3.";
        assert_eq!(id_of(agpl), Some(("AGPL-3.0-only".to_string(), 1)));
        // A version the licence was never published in is no licence.
        assert_eq!(id_of("GNU Lesser General Public License version 2"), None);
    }

    /// The ISC grant alone is the Zero-Clause BSD; a text offering two
    /// licences is both, as an SPDX `OR`; a text that only contains a
    /// shorter licence's clause, or says "either" of a warranty, is one.
    #[test]
    fn zero_clause_bsd_and_a_choice_of_two_licences() {
        let zero = "Copyright (c) 2024 demo\n\nPermission to use, copy, modify, and/or distribute this software for\nany purpose with or without fee is hereby granted.\n\nTHE SOFTWARE IS PROVIDED \"AS IS\"";
        assert_eq!(id_of(zero), Some(("0BSD".to_string(), 3)));
        let dual = format!(
            "Licence\n\nThis project is licenced under the terms of either the Zero-Clause BSD licence\nor the CC0 1.0 Universal licence.\n\n{zero}\n\nCC0 1.0 Universal\n\nStatement of Purpose\n"
        );
        assert_eq!(identify(&dual).unwrap().spdx(false), "0BSD OR CC0-1.0");
        let rust_style = "Licensed under either of Apache License, Version 2.0 or the MIT license at your option.\n\nPermission is hereby granted, free of charge, to any person\n\nApache License\nVersion 2.0, January 2004";
        assert_eq!(
            identify(rust_style).unwrap().spdx(false),
            "Apache-2.0 OR MIT"
        );
        // BSD-2's clause inside BSD-3's text is no second licence.
        let bsd3 = "Dual licensed? No: under either the BSD licence alone.\nRedistribution and use in source and binary forms, with or without\nmodification... 3. Neither the name of the copyright holder";
        assert_eq!(identify(bsd3).unwrap().spdx(false), "BSD-3-Clause");
        // No choice offered: the first licence alone, whatever else is quoted.
        let line = "// SPDX-License-Identifier: (MIT OR Apache-2.0)\n";
        assert_eq!(identify(line).unwrap().spdx(false), "Apache-2.0 OR MIT");
        let bundled = "Permission is hereby granted, free of charge, to any person\nWITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.\n\nVendored: Redistribution and use in source and binary forms";
        assert_eq!(identify(bundled).unwrap().spdx(false), "MIT");
    }

    #[test]
    fn the_academic_free_licence_by_its_name_and_version() {
        // galaxy-sequence-utils' LICENSE.
        let text = "Copyright (c) 2005-2017 Pennsylvania State University\n\nLicensed under the Academic Free License version 3.0\n\n 1) Grant of Copyright License.\n";
        assert_eq!(id_of(text), Some(("AFL-3.0".to_string(), 3)));
        assert_eq!(id_of("Academic Free License v. 2.1\n"), None);
    }

    #[test]
    fn short_permissive_texts() {
        let mit = "MIT License\n\nCopyright (c) 2026 demo\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software";
        assert_eq!(id_of(mit), Some(("MIT".to_string(), 5)));
        let isc = "ISC License\n\nCopyright (c) 2026 demo\n\nPermission to use, copy, modify, and/or distribute this software for any\npurpose with or without fee is hereby granted, provided that the above\ncopyright notice and this permission notice appear in all copies.\n";
        assert_eq!(id_of(isc), Some(("ISC".to_string(), 5)));
        let bsd3 = "Redistribution and use in source and binary forms, with or without\nmodification... 3. Neither the name of the copyright holder";
        assert_eq!(id_of(bsd3), Some(("BSD-3-Clause".to_string(), 2)));
        let bsd2 = "Copyright (c) 2026 demo\nRedistribution and use in source and binary forms, with or without modification, are permitted";
        assert_eq!(id_of(bsd2), Some(("BSD-2-Clause".to_string(), 2)));
        let bsd4 = "Redistribution and use in source and binary forms ...\n3. All advertising materials mentioning features or use of this software\n   must display the following acknowledgement";
        assert_eq!(id_of(bsd4), Some(("BSD-4-Clause".to_string(), 2)));
        let zlib = "This software is provided 'as-is', without any express or implied\nwarranty. ...\n2. Altered source versions must be plainly marked as such";
        assert_eq!(id_of(zlib), Some(("Zlib".to_string(), 1)));
        let boost = "Boost Software License - Version 1.0 - August 17th, 2003\n\nPermission is hereby granted, free of charge, to any person or organization";
        assert_eq!(id_of(boost), Some(("BSL-1.0".to_string(), 1)));
        let unlicense = "This is free and unencumbered software released into the public domain.\n";
        assert_eq!(id_of(unlicense), Some(("Unlicense".to_string(), 1)));
        let apache = "Apache License\nVersion 2.0, January 2004";
        assert_eq!(id_of(apache), Some(("Apache-2.0".to_string(), 1)));
    }

    #[test]
    fn an_spdx_line_wins_and_an_unknown_one_does_not_hide_the_text() {
        assert_eq!(
            id_of("\n// SPDX-License-Identifier: BSD-3-Clause\n"),
            Some(("BSD-3-Clause".to_string(), 2))
        );
        let odd = "SPDX-License-Identifier: Foo-1.0\nPermission is hereby granted, free of charge";
        assert_eq!(id_of(odd), Some(("MIT".to_string(), 2)));
        assert_eq!(id_of("All rights reserved."), None);
    }
}
