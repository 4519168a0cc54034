#!/usr/bin/env python3
"""The description `packsmith analyze` reads from each tree, against the
docstring of the human Spack recipe of the same package.

For every tree under --trees (one directory per package) whose package has
a recipe in one of the --recipes repositories (`packages/<name>/package.py`),
prints the analyzer's description, the human docstring and their word
overlap (F1 over lower-cased words, each counted once), then the mean, and
how many descriptions open like no description (a notice, a credit, an
instruction, a question, a placeholder).

  bench/description-overlap.py --bin target/debug/packsmith \
      --trees $E4S_SRC --trees $NTS_SRC \
      --recipes $SPACK_ROOT/var/spack/repos/builtin \
      --recipes $SPACK_PACKAGES/repos/spack_repo/builtin

Standard library only; reads the user's own checkouts, writes nothing.
"""

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

# Openings of text that describes nothing (the analyzer's own rules are
# in crates/packsmith-analyze/src/readme.rs; this list only counts).
NOT_A_DESCRIPTION = re.compile(
    r"^(copyright|\(c\)|authors?\b|see |please |looking for|to build|to install|"
    r"to introduce|what's new|maintainance release|a\) |the \S+ package\.$)",
    re.IGNORECASE,
)


def words(text):
    return set(re.findall(r"[a-z0-9+]+", text.lower()))


def f1(a, b):
    a, b = words(a), words(b)
    if not a or not b:
        return 0.0
    common = len(a & b)
    if common == 0:
        return 0.0
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


def docstring(recipe):
    try:
        tree = ast.parse(recipe.read_text())
    except (SyntaxError, UnicodeDecodeError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            doc = ast.get_docstring(node)
            return " ".join(doc.split()) if doc else None
    return None


def description(binary, tree):
    out = subprocess.run(
        [binary, "analyze", str(tree), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        return None
    value = json.loads(out.stdout).get("description")
    return value.get("value") if isinstance(value, dict) else value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="the packsmith binary")
    parser.add_argument("--trees", action="append", required=True, type=Path)
    parser.add_argument("--recipes", action="append", required=True, type=Path)
    args = parser.parse_args()
    for root in args.trees + args.recipes:
        if not root.is_dir():
            sys.exit(f"error: {root} is not a directory; pass the trees' and recipes' roots")
    rows = []
    for root in args.trees:
        for tree in sorted(p for p in root.iterdir() if p.is_dir()):
            recipe = next(
                (r / "packages" / tree.name / "package.py" for r in args.recipes
                 if (r / "packages" / tree.name / "package.py").is_file()),
                None,
            )
            human = docstring(recipe) if recipe else None
            if not human:
                continue
            drafted = description(args.bin, tree) or ""
            rows.append((tree.name, drafted, human, f1(drafted, human)))
    if not rows:
        sys.exit("error: no tree has a human recipe with a docstring in --recipes")
    for name, drafted, human, score in rows:
        print(f"{name}\t{score:.2f}\t{drafted[:100]!r}\t{human[:100]!r}")
    mean = sum(r[3] for r in rows) / len(rows)
    empty = sum(1 for r in rows if not r[1])
    bad = sum(1 for r in rows if r[1] and NOT_A_DESCRIPTION.match(r[1]))
    print(f"\n{len(rows)} packages; mean word F1 {mean:.3f}; "
          f"no description {empty}; opening like no description {bad}")


if __name__ == "__main__":
    main()
