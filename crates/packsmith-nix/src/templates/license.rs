//! SPDX identifier → nixpkgs `lib.licenses` attribute.

// keep-sorted start
const TABLE: &[(&str, &str)] = &[
    ("0BSD", "bsd0"),
    ("AGPL-3.0-only", "agpl3Only"),
    ("AGPL-3.0-or-later", "agpl3Plus"),
    ("Apache-2.0", "asl20"),
    ("Artistic-2.0", "artistic2"),
    ("BSD-2-Clause", "bsd2"),
    ("BSD-3-Clause", "bsd3"),
    ("BSL-1.0", "boost"),
    ("CC0-1.0", "cc0"),
    ("EPL-2.0", "epl20"),
    ("GPL-2.0-only", "gpl2Only"),
    ("GPL-2.0-or-later", "gpl2Plus"),
    ("GPL-3.0-only", "gpl3Only"),
    ("GPL-3.0-or-later", "gpl3Plus"),
    ("ISC", "isc"),
    ("LGPL-2.0-only", "lgpl2Only"),
    ("LGPL-2.0-or-later", "lgpl2Plus"),
    ("LGPL-2.1-only", "lgpl21Only"),
    ("LGPL-2.1-or-later", "lgpl21Plus"),
    ("LGPL-3.0-only", "lgpl3Only"),
    ("LGPL-3.0-or-later", "lgpl3Plus"),
    ("MIT", "mit"),
    ("MPL-2.0", "mpl20"),
    ("PSF-2.0", "psfl"),
    ("Unlicense", "unlicense"),
    ("Zlib", "zlib"),
];
// keep-sorted end

/// The `lib.licenses` attribute for an SPDX id (deprecated `GPL-3.0` and
/// `GPL-3.0+` spellings included), or None when unknown.
pub fn nixpkgs_license(spdx: &str) -> Option<&'static str> {
    let spdx = spdx.trim();
    // An expression is no one licence, whichever names it holds.
    if spdx.contains(" OR ") || spdx.contains(" AND ") {
        return None;
    }
    let canonical = match spdx {
        "GPL-2.0" => "GPL-2.0-only",
        "GPL-2.0+" => "GPL-2.0-or-later",
        "GPL-3.0" => "GPL-3.0-only",
        "GPL-3.0+" => "GPL-3.0-or-later",
        "LGPL-2.1" => "LGPL-2.1-only",
        "LGPL-2.1+" => "LGPL-2.1-or-later",
        "LGPL-3.0" => "LGPL-3.0-only",
        "LGPL-3.0+" => "LGPL-3.0-or-later",
        "Apache 2.0" | "Apache License 2.0" => "Apache-2.0",
        "LGPL-2.0" => "LGPL-2.0-only",
        "LGPL-2.0+" => "LGPL-2.0-or-later",
        other => spdx_of_name(other).unwrap_or(other),
    };
    TABLE
        .binary_search_by(|(k, _)| k.cmp(&canonical))
        .ok()
        .map(|i| TABLE[i].1)
}

/// A licence named in words where an SPDX id belongs (a Python
/// package's `license = "The MIT License: http://…"`): the SPDX id of the
/// few names that cannot be mistaken.
fn spdx_of_name(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    if has("mit") && !has("gpl") {
        Some("MIT")
    } else if has("apache") && (has("2.0") || has("2")) {
        Some("Apache-2.0")
    } else if has("isc") {
        Some("ISC")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(TABLE.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn common_licences() {
        for (spdx, attr) in [
            ("MIT", "mit"),
            ("Apache-2.0", "asl20"),
            ("BSD-3-Clause", "bsd3"),
            ("GPL-3.0-or-later", "gpl3Plus"),
            ("GPL-3.0+", "gpl3Plus"),
            ("LGPL-2.1-or-later", "lgpl21Plus"),
            ("MPL-2.0", "mpl20"),
            ("BSL-1.0", "boost"),
        ] {
            assert_eq!(nixpkgs_license(spdx), Some(attr), "{spdx}");
        }
        assert_eq!(nixpkgs_license("LicenseRef-unknown"), None);
        assert_eq!(nixpkgs_license("LGPL-2.0-or-later"), Some("lgpl2Plus"));
        assert_eq!(
            nixpkgs_license("The MIT License: http://www.opensource.org/licenses/mit-license.php"),
            Some("mit")
        );
        assert_eq!(
            nixpkgs_license("Apache License, Version 2.0"),
            Some("asl20")
        );
        assert_eq!(nixpkgs_license("MIT or GPL"), None);
    }
}
