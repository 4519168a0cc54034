#!/usr/bin/env python3
"""Writes the corpus' 2026 human recipes, adapted to Spack 0.23's idiom, as a package
repository for the human-recipe baseline (issue 44): what a maintainer's recipe
installs here is the ceiling the draft is measured against.

    bench/adapt-human-recipes.py --spack-packages ~/src/spack-packages \
        --tasks bench/corpus.jsonl --out $HUMAN_023
    packsmith bench run bench/corpus.jsonl --config human --ground-truth $HUMAN_023 ...

Only the idiom is changed, line by line, and each change is listed in OUT/adapted.json:
- `from spack_repo.builtin.build_systems.X import A, B` is dropped (0.23's
  `from spack.package import *` has the build-system classes); a module import
  (`from spack_repo.builtin.build_systems import cmake`) becomes `spack.build_systems`;
- `from spack_repo.builtin.packages.P.package import C` becomes `from spack.pkg.builtin.P import C`;
- `depends_on("c" | "cxx" | "fortran", ...)` is dropped (0.23 has no language virtuals);
- a recipe naming `EnvironmentModifications` or `Prefix` (1.x's `spack.package` exports them,
  as the annotation `env: EnvironmentModifications`) imports them from where 0.23 has them.
Nothing else is touched: a recipe that needs 1.x-only API fails to load, and the
baseline reports it as such. The output is generated from the user's checkout at run
time and is never committed.
"""
import argparse
import json
import os
import re
import shutil
import sys

LANGUAGE_DEP = re.compile(r'^(\s*)depends_on\(\s*"(c|cxx|fortran)"[^)]*\)\s*(#.*)?$')
BUILD_SYSTEM_IMPORT = re.compile(r"^from spack_repo\.builtin\.build_systems\.[\w.]+ import ")
MODULE_IMPORT = re.compile(r"^from spack_repo\.builtin\.build_systems import ")
PACKAGE_IMPORT = re.compile(r"^from spack_repo\.builtin\.packages\.(\w+)\.package import (.+)$")


def adapt(text):
    """The recipe in 0.23's idiom and the list of changes made."""
    out, changes = [], []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        # A parenthesised import spans lines: take it whole.
        if (BUILD_SYSTEM_IMPORT.match(line) or MODULE_IMPORT.match(line)) and "(" in line:
            j = i
            while ")" not in lines[j] and j + 1 < len(lines):
                j += 1
            line = " ".join(l.strip() for l in lines[i:j + 1])
            i = j
        if BUILD_SYSTEM_IMPORT.match(line):
            changes.append(f"dropped: {line.strip()}")
        elif MODULE_IMPORT.match(line):
            new = line.replace("spack_repo.builtin.build_systems", "spack.build_systems")
            changes.append(f"{line.strip()} -> {new.strip()}")
            out.append(new)
        elif PACKAGE_IMPORT.match(line):
            m = PACKAGE_IMPORT.match(line)
            new = f"from spack.pkg.builtin.{m.group(1)} import {m.group(2)}"
            changes.append(f"{line.strip()} -> {new}")
            out.append(new)
        elif LANGUAGE_DEP.match(line):
            changes.append(f"dropped: {line.strip()}")
            # Keep a body that held only this line valid Python.
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            prev = out[-1] if out else ""
            if prev.rstrip().endswith(":") and len(nxt) - len(nxt.lstrip()) <= len(line) - len(line.lstrip()):
                out.append(LANGUAGE_DEP.match(line).group(1) + "pass")
        else:
            out.append(line)
        i += 1
    text = "\n".join(out)
    for name, module in (("EnvironmentModifications", "spack.util.environment"),
                         ("Prefix", "spack.util.prefix")):
        if re.search(rf"\b{name}\b", text) and not re.search(rf"import[^\n]*\b{name}\b", text):
            line = f"from {module} import {name}"
            text = re.sub(r"^(from spack\.package import \*)$", rf"\1\n{line}", text, count=1,
                          flags=re.M)
            changes.append(f"added: {line}")
    return text, changes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spack-packages", required=True, help="a spack-packages checkout (2026)")
    ap.add_argument("--tasks", required=True, help="the task file (JSON lines)")
    ap.add_argument("--out", required=True, help="the package repository to write")
    a = ap.parse_args()
    src = os.path.join(a.spack_packages, "repos/spack_repo/builtin/packages")
    if not os.path.isdir(src):
        sys.exit(f"adapt-human-recipes: no package directory at {src} (hint: check the checkout path)")
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    os.makedirs(os.path.join(a.out, "packages"), exist_ok=True)
    with open(os.path.join(a.out, "repo.yaml"), "w") as f:
        f.write("repo:\n  namespace: human023\n")
    report = {}
    for t in tasks:
        pkg_src = os.path.join(src, t["spack_dir"])
        dest = os.path.join(a.out, "packages", t["name"])
        if os.path.isdir(dest):
            shutil.rmtree(dest)
        # Patches and other files beside the recipe go along as they are.
        shutil.copytree(pkg_src, dest, ignore=shutil.ignore_patterns("__pycache__"))
        path = os.path.join(dest, "package.py")
        with open(path) as f:
            text, changes = adapt(f.read())
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        report[t["name"]] = changes
    with open(os.path.join(a.out, "adapted.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    print(f"adapt-human-recipes: {len(report)} recipes written to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
