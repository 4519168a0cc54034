//! packsmith-nix's readers of untrusted text: the edit layer (the
//! fallback syntax check, replace/insert edits, numbered views), the
//! builder answer, hash-mismatch and failure-log readers, source strings
//! and hashes, and the expression reader of the fidelity score.

use super::{signature, text};
use crate::harness::Target;
use crate::mutate::Grammar;
use crate::seeds;
use packsmith_nix::edit::{view, Editor, FallbackParser, SyntaxCheck};
use packsmith_nix::{classify, compare_logs, fix_hash_from_log, parse_mismatch, parse_source};
use packsmith_nix::{prejudge, HashAlgo, NixHash, Step};

pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "nix-edit",
            readers: "edit::FallbackParser, Editor::replace_nth/insert_after, view",
            grammar: NIX,
            seeds: nix_seeds,
            run: |_, input| {
                let src = text(input);
                let ok = FallbackParser.check(&src).is_ok();
                // Edit arguments drawn from the input itself.
                let h = crate::rng::fnv(input);
                let cut = |n: u64| floor_boundary(&src, (n as usize) % (src.len() + 1));
                let a = cut(h);
                let b = floor_boundary(&src, (a + (h >> 24) as usize % 24).min(src.len()));
                let old = &src[a..b];
                let lines = src.lines().count();
                let ed = Editor::new(FallbackParser);
                let r1 = ed.replace_nth(&src, old, "\"${x}''", (h >> 40) as usize % 4);
                let r2 = ed.insert_after(&src, (h >> 8) as usize % (lines + 2), old);
                let shown = view(&src, Some(((h >> 16) as usize % (lines + 2), lines)));
                signature((ok, r1.is_ok(), r2.is_ok(), shown.len() / 64))
            },
        },
        Target {
            name: "nix-expr",
            readers: "fidelity::read_expr, fidelity::nix_fidelity (a package expression against itself halved)",
            grammar: NIX,
            seeds: nix_seeds,
            run: |_, input| {
                let src = text(input);
                let facts = packsmith_nix::fidelity::read_expr(&src);
                let half = floor_boundary(&src, src.len() / 2);
                let f = packsmith_nix::fidelity::nix_fidelity(&src, &src[..half]);
                signature((
                    facts.builder.map(|b| b.to_string()),
                    facts.native.len() + facts.build.len() + facts.check.len(),
                    facts.flags.len() + facts.meta.len(),
                    f.builder_match,
                ))
            },
        },
        Target {
            name: "nix-logs",
            readers: "diagnose::classify, tofu (hash mismatch), logs::compare_logs/prejudge, project answer",
            grammar: Grammar {
                dict: &[
                    "error: hash mismatch in fixed-output derivation '/nix/store/x-src.drv':\n",
                    "         specified: sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
                    "            got:    sha256-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=\n",
                    "error: undefined variable 'x'\n",
                    "       at /tmp/p/package.nix:3:5:\n",
                    "error: builder for '/nix/store/a.drv' failed with exit code 2;\n",
                    "fatal error: zlib.h: No such file or directory\n",
                    "\x1b[31;1m",
                    "BUILDER: cmake\n",
                    "… while evaluating",
                ],
                open: "(",
                close: ")",
            },
            seeds: |root| {
                let mut s = seeds::files(root, |p| {
                    p.contains("packsmith-nix/tests/logs/") && p.ends_with(".log")
                });
                s.extend(nix_seeds(root));
                s
            },
            run: |_, input| {
                let src = text(input);
                let half = floor_boundary(&src, src.len() / 2);
                let (prev, new) = src.split_at(half);
                let d1 = classify(Step::Build, &src, None);
                let d2 = classify(Step::Evaluate, &src, Some("/nix/store/x.drv"));
                let mm = parse_mismatch(&src).is_some();
                let fix = fix_hash_from_log(new, prev).is_some();
                let cmp = compare_logs(prev, new, 40);
                let pre = prejudge(prev, new).is_some();
                let ans = packsmith_nix::ecosystem::project::parse_answer(&src);
                signature((
                    format!("{:?}{:?}", d1.kind(), d2.kind()),
                    mm,
                    fix,
                    format!("{cmp:?}").len() / 32,
                    pre,
                    format!("{ans:?}").len() / 32,
                ))
            },
        },
        Target {
            name: "nix-source",
            readers: "fetch::parse_source (the user's source string), hash::NixHash::parse",
            grammar: Grammar {
                dict: &[
                    "https://github.com/o/r/archive/refs/tags/v1.0.tar.gz",
                    "github:o/r/v1.0",
                    "gitlab:g/sub/r",
                    "git+https://h/r.git?ref=main&rev=abc",
                    "file:///p/x-1.0.tar.gz",
                    "sha256-",
                    "sha256:",
                    "0000000000000000000000000000000000000000000000000000",
                    "%2F",
                    "@",
                    "#",
                ],
                open: "/",
                close: "",
            },
            seeds: |root| {
                let mut s = Vec::new();
                for snap in nix_seeds(root) {
                    s.extend(seeds::string_literals(&snap));
                }
                s.sort();
                s.dedup();
                s
            },
            run: |_, input| {
                let src = text(input);
                let source = parse_source(&src);
                let hash = NixHash::parse(&src, HashAlgo::Sha256).map(|h| h.to_sri());
                signature((format!("{source:?}").len() / 16, hash.is_ok()))
            },
        },
    ]
}

/// The largest char boundary at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

const NIX: Grammar = Grammar {
    dict: &[
        "{ lib, stdenv, fetchurl }:",
        "stdenv.mkDerivation (finalAttrs: {",
        "});",
        "pname = \"x\";",
        "version = \"1.0\";",
        "src = fetchurl { url = \"https://x/${finalAttrs.version}.tar.gz\"; hash = \"\"; };",
        "''\n  ${x} ''$ ''' ''\\n\n''",
        "\"${x}\\\"\"",
        "/* } */",
        "# }",
        "let x = 1; in",
        "rec {",
        "inherit (x) y;",
        "with lib;",
    ],
    open: "{ a = ",
    close: "; }",
};

fn nix_seeds(root: &std::path::Path) -> Vec<Vec<u8>> {
    let mut s: Vec<Vec<u8>> = seeds::files(root, |p| {
        p.contains("packsmith-nix/tests/") && p.contains("template") && p.ends_with(".snap")
    })
    .iter()
    .map(|snap| seeds::snapshot_body(snap))
    .collect();
    s.extend(seeds::files(root, |p| {
        p.contains("/tests/") && p.ends_with(".nix")
    }));
    s
}
