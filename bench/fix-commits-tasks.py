#!/usr/bin/env python3
"""Draws issue 46's fix-commit set: commits of the user's own spack-packages git
history that mended a recipe's build without adding a version (a dependency, a
`filter_file`, a patch, a `conflicts` or `when=` range, a flag, a build
argument), split into `dev` and `test` by the same seed, with
`installable_here` decided from the fixed recipe and the externals of
`packsmith setup spack` BEFORE any run.

    bench/fix-commits-tasks.py --spack-packages ~/src/spack-packages \
        --externals ~/.cache/packsmith/spack/scope/packages.yaml > bench/fix-commits.jsonl
    bench/fix-commits-tasks.py ... --population     # every candidate commit, one line each

The population: a commit since 2024 (in the 1.x layout,
`repos/spack_repo/builtin/packages`, or the one before, `repos/builtin/packages`)
that touches one package directory only, modifying its existing `package.py`
(patch files beside it may come and go); the recipe's releases are the same
before and after; its subject says it fixes or builds something; its diff adds
at least one line of a fix kind (`FIX_KINDS`); the recipe's first build-system
class is CMake, Autotools, Meson, Makefile or Python; the source of the version
Spack installs by default is a GitHub repository (exported from its tag) or
PyPI (its sdist). One commit per package, picked by the seed; equal quotas per
build system; a package that is an external here is left out (Spack would
reuse the host's copy, not build the recipe); each (build system, installable_here) stratum dealt half to
`test`, half to `dev`. Whether the recipe before the commit fails here, and the
one after installs, is checked afterwards by real Spack (`bench/fix-commits.py
verify`); only such pairs enter the repair runs. Only commit ids, names,
versions, URLs, checksums, fix kinds and dependency names go into a task line:
no recipe text.
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from spack_recipe_facts import (  # noqa: E402
    default_version, needed_dependencies, parse_recipe)


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


corpus_tasks = _load("corpus_tasks", "corpus-tasks.py")
replay_tasks = _load("replay_tasks", "replay-tasks.py")

PACKAGES = replay_tasks.PACKAGES
# The same repository before Spack 1.x's layout (its recipes in the 0.2x idiom).
OLD_PACKAGES = "repos/builtin/packages"
SINCE = "2024-01-01"
BUILD_SYSTEMS = ("CMakePackage", "AutotoolsPackage", "MesonPackage", "MakefilePackage",
                 "PythonPackage")
SUBJECT = re.compile(r"\b(fix\w*|build\w*|compil\w*|gcc|clang|missing|link\w*)\b", re.I)
# What an added line of the diff does, in the order a line is classified.
FIX_KINDS = (
    ("filter_file", re.compile(r"\bfilter_file\(")),
    ("patch", re.compile(r"^\s*patch\(|\bdef patch\(")),
    ("conflicts", re.compile(r"^\s*conflicts\(")),
    ("dependency", re.compile(r"^\s*depends_on\(")),
    ("flags", re.compile(r"flag_handler|-std=|-fpermissive|-Wno-|-fallow-argument-mismatch|"
                         r"CFLAGS|CXXFLAGS|FFLAGS|append_flags|-D_")),
    ("build_args", re.compile(r"self\.define(_from_variant)?\(|--(en|dis)able-|--with(out)?-|"
                              r"args\.(append|extend)\(|\.set\(")),
)
# The language virtuals: the 0.23 adaptation drops them, so adding one fixes nothing here.
LANGUAGE_DEPENDENCY = re.compile(r"""depends_on\(\s*["'](c|cxx|fortran)["']""")


def added_lines(repo, parent, commit, path):
    diff = replay_tasks.git(repo, "diff", "--unified=0", parent, commit, "--", path)
    return [line[1:] for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")]


def fix_kinds(lines):
    kinds = set()
    for line in lines:
        if line.lstrip().startswith("#") or LANGUAGE_DEPENDENCY.search(line):
            continue
        for kind, pattern in FIX_KINDS:
            if pattern.search(line):
                kinds.add(kind)
                break
    return sorted(kinds)


def candidate(repo, commit, parent, date, subject, files, externals):
    if not parent or not files or not SUBJECT.search(subject):
        return None
    dirs = {os.path.dirname(p) for _, p in files}
    if len(dirs) != 1:
        return None
    package_dir = next(iter(dirs))
    if os.path.dirname(package_dir) not in (PACKAGES, OLD_PACKAGES):
        return None
    spack_dir = os.path.basename(package_dir)
    name = spack_dir.lstrip("_").replace("_", "-")
    # An external here would be reused from the host, not built from the recipe.
    if name in externals:
        return None
    path = f"{package_dir}/package.py"
    if ("M", path) not in files:
        return None
    before = parse_recipe(replay_tasks.git(repo, "show", f"{parent}:{path}"))
    after = parse_recipe(replay_tasks.git(repo, "show", f"{commit}:{path}"))
    if before is None or after is None:
        return None
    systems = [b for b in after["bases"] if b in BUILD_SYSTEMS]
    released = {v["version"] for v in replay_tasks.releases(before)}
    if not systems or not released or released != {v["version"] for v in
                                                    replay_tasks.releases(after)}:
        return None
    kinds = fix_kinds(added_lines(repo, parent, commit, path))
    if not kinds:
        return None
    version = default_version(after["versions"])
    if version is None or version not in released:
        return None
    source = replay_tasks.source_of(after, systems[0] if systems[0] != "MakefilePackage"
                                    else "CMakePackage")
    if source is None:
        return None
    needed = needed_dependencies(after, version)
    missing = corpus_tasks.missing_here(needed, externals)
    f = after["fields"]
    return {
        "name": name, "spack_dir": spack_dir, "recipe_path": path,
        "commit": commit, "parent": parent, "date": date,
        "primary_build_system": systems[0], "build_systems": systems,
        "source": source[0], "repo": source[1],
        "url": f.get("url") or f.get("pypi"), "git": f.get("git"),
        "version": version, "version_fields": replay_tasks.version_fields(after, version),
        "fix_kinds": kinds,
        "files": sorted(p.split("/")[-1] for _, p in files),
        "human_dependency_changes": replay_tasks.dependency_changes(before, after),
        "needed_here": needed, "missing_here": missing, "installable_here": not missing,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spack-packages", required=True,
                    help="a spack-packages git checkout with its history (2026)")
    ap.add_argument("--externals", required=True,
                    help="packages.yaml written by `packsmith setup spack` (its externals)")
    ap.add_argument("--seed", type=int, default=46)
    ap.add_argument("--per-system", type=int, default=16)
    ap.add_argument("--size", type=int, default=60)
    ap.add_argument("--installable-only", action="store_true",
                    help="draw only from the commits whose fixed recipe is installable here")
    ap.add_argument("--population", action="store_true", help="list the population, no draw")
    ap.add_argument("--exclude", action="append", default=[], metavar="TASKS.jsonl",
                    help="leave out the packages of an earlier draw (a second batch)")
    a = ap.parse_args()
    probe = subprocess.run(["git", "-C", a.spack_packages, "cat-file", "-e", f"HEAD:{PACKAGES}"],
                           capture_output=True)
    if probe.returncode != 0:
        sys.exit(f"fix-commits-tasks: no {PACKAGES} under {a.spack_packages} "
                 "(hint: pass a spack-packages git checkout of the 1.x layout, with its history)")
    if not os.path.isfile(a.externals):
        sys.exit(f"fix-commits-tasks: no packages.yaml at {a.externals} "
                 "(hint: run `packsmith setup spack` first, or pass its config scope's file)")
    externals = corpus_tasks.externals_of(a.externals)
    drawn = set()
    for path in a.exclude:
        try:
            with open(path) as f:
                drawn |= {json.loads(line)["name"] for line in f if line.strip()}
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"fix-commits-tasks: cannot read the earlier draw {path}: {e} "
                     "(hint: pass a task file this script wrote)")
    tasks = []
    for c in replay_tasks.commits(a.spack_packages, (PACKAGES, OLD_PACKAGES), SINCE):
        t = candidate(a.spack_packages, *c, externals)
        if t and t["name"] not in drawn and (t["installable_here"] or not a.installable_only):
            tasks.append(t)
    if a.population:
        for t in tasks:
            print(t["name"], t["commit"][:10], t["primary_build_system"], t["source"], t["repo"],
                  t["version"], ",".join(t["fix_kinds"]),
                  "installable" if t["installable_here"] else "-")
        return
    for t in replay_tasks.draw(tasks, a.seed, a.per_system, a.size, BUILD_SYSTEMS):
        t["seed"] = a.seed
        print(json.dumps(t, sort_keys=True))


if __name__ == "__main__":
    main()
