#!/usr/bin/env python3
"""Draws the pre-registered corpus (issue 44) from the user's own checkouts: a
seeded random sample of the packages the 2026 spack-packages repository has and
Spack 0.23's builtin repository lacks, split into `dev` and `test` by the same
seed, with `installable_here` decided from each human recipe and the externals
of `packsmith setup spack` BEFORE any run.

    bench/corpus-tasks.py --spack-packages ~/src/spack-packages --spack-023 ~/src/spack \
        --externals ~/.cache/packsmith/spack/config/packages.yaml \
        --exclude bench/new-to-spack-names.txt > bench/corpus.jsonl
    bench/corpus-tasks.py ... --population      # every candidate, one line each, no draw
    bench/corpus-tasks.py ... --exclude-corpus bench/corpus.jsonl --seed 59 > bench/corpus-2.jsonl
    bench/corpus-tasks.py ... --in-023 --forge github --installable-only \
        --exclude-corpus bench/replay.jsonl ... --seed 63 > bench/corpus-4.jsonl

--in-023 draws instead from the packages both repositories have (Spack 0.23's recipe
is then the human baseline that loads as it stands; retrieval leaves the target's
own recipe out by name): installable_here then needs both recipes' dependencies here.

The population: a CMake, Autotools, Meson, Makefile or Python recipe (its first
build-system base class), with a released version, whose source is on a public
forge (GitHub, GitLab, Codeberg, Bitbucket), not named in an --exclude file; one
package per source repository, picked by the seed. The draw takes the same number from each build system while it has that many (a
plain random sample would be mostly Python packages: see bench/corpus-notes.md),
then splits each (build system, installable_here) stratum half and half, so both
splits see the same mix. Only names, versions, URLs and dependency and variant
names read from the recipes go into a task line.
"""
import argparse
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spack_recipe_facts import (  # noqa: E402
    default_version, forge_of, needed_dependencies, parse_recipe)

BUILD_SYSTEMS = ("CMakePackage", "AutotoolsPackage", "MesonPackage", "MakefilePackage",
                 "PythonPackage")
# Language virtuals (the compilers are Spack's own) and what the externals provide.
ALWAYS = {"c", "cxx", "fortran", "gcc-runtime", "glibc", "libc"}
VIRTUALS = {
    "mpi": "openmpi", "blas": "openblas", "lapack": "openblas", "zlib-api": "zlib",
    "fftw-api": "fftw", "pkgconfig": "pkgconf", "elf": "elfutils", "jpeg": "libjpeg-turbo",
    "gmake": "gmake", "gnumake": "gmake",
}
OTHER_LANGUAGES = ("r-", "perl-", "go-", "rust-", "julia-", "lua-", "octave-", "ruby-")


def externals_of(packages_yaml):
    """Package names declared with `externals:` in a Spack packages.yaml (plain reading:
    a two-space-indented key followed, inside its block, by an `externals:` key)."""
    names, current = set(), None
    with open(packages_yaml) as f:
        for line in f:
            m = re.match(r"^  ([\w.-]+):\s*$", line)
            if m:
                current = m.group(1)
            elif current and re.match(r"^    externals:", line):
                names.add(current)
    return names


def candidates(spack_packages, spack_023, excluded, in_023=False):
    new = os.path.join(spack_packages, "repos/spack_repo/builtin/packages")
    old = os.path.join(spack_023, "var/spack/repos/builtin/packages")
    for d in (new, old):
        if not os.path.isdir(d):
            sys.exit(f"corpus-tasks: no package directory at {d} (hint: check the checkout path)")
    known = set(os.listdir(old))
    for spack_dir in sorted(os.listdir(new)):
        # Python module names cannot start with a digit or hold '-': _3proxy is 3proxy.
        name = spack_dir.lstrip("_").replace("_", "-")
        path = os.path.join(new, spack_dir, "package.py")
        if (name in known) != in_023 or name in excluded or name.startswith(OTHER_LANGUAGES):
            continue
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            recipe = parse_recipe(f.read())
        if recipe is None:
            continue
        systems = [b for b in recipe["bases"] if b in BUILD_SYSTEMS]
        if not systems:
            continue
        forge, repo = forge_of(recipe["fields"])
        version = default_version(recipe["versions"])
        if forge is None or not version:
            continue
        old_recipe = read_recipe(os.path.join(old, name, "package.py")) if in_023 else None
        yield name, spack_dir, recipe, systems, forge, repo, version, old_recipe


def read_recipe(path):
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_recipe(f.read())


def missing_here(needed, externals):
    """The dependencies in `needed` that are neither an external, a virtual one of them
    provides, nor a language virtual: what keeps a task from installing here."""
    available = externals | ALWAYS | {v for v, p in VIRTUALS.items() if p in externals}
    return [d for d in needed if d not in available]


def task_line(name, spack_dir, recipe, systems, forge, repo, version, old_recipe, externals):
    needed = needed_dependencies(recipe, version)
    missing = missing_here(needed, externals)
    f = recipe["fields"]
    in_023 = {}
    if old_recipe is not None:
        # The 0.23 recipe, run here as the human baseline, must find its dependencies too.
        old_version = default_version(old_recipe["versions"])
        old_needed = needed_dependencies(old_recipe, old_version)
        in_023 = {"version_0_23": old_version, "needed_here_0_23": old_needed,
                  "missing_here_0_23": missing_here(old_needed, externals)}
        missing = missing + [d for d in in_023["missing_here_0_23"] if d not in missing]
    return {
        "name": name, "spack_dir": spack_dir, "build_systems": systems,
        "primary_build_system": systems[0], "forge": forge, "repo": repo,
        "git": f.get("git"), "url": f.get("url") or f.get("pypi"), "homepage": f.get("homepage"),
        "version": version,
        "depends_on": list(dict.fromkeys(d["name"] for d in recipe["depends_on"])),
        "variants": list(recipe["variants"]),
        "needed_here": needed, "missing_here": missing,
        "installable_here": not missing,
        "in_spack_0_23": old_recipe is not None, "in_spack_packages": True,
        **in_023,
    }


def draw(tasks, seed, per_system, size):
    """One package per repository, equal quotas per build system (all of a system smaller than its quota), topped up to
    `size` from the rest at random; then a stratified half split by the same seed."""
    rng = random.Random(seed)
    # One task per source repository: a repository with many recipes (a toolkit's
    # twenty parts) would otherwise weigh twenty times.
    by_repo = {}
    for t in sorted(tasks, key=lambda t: t["name"]):
        by_repo.setdefault((t["forge"], t["repo"].lower()), []).append(t)
    return quota_draw(by_repo, rng, BUILD_SYSTEMS, per_system, size)


def quota_draw(groups, rng, systems, per_system, size):
    """One task of each group picked by `rng`, `per_system` of each build system in
    `systems` (all of a smaller one), topped up to `size` from the rest, then split."""
    by_system = {}
    for key in sorted(groups):
        t = rng.choice(groups[key])
        by_system.setdefault(t["primary_build_system"], []).append(t)
    chosen, rest = [], []
    for system in systems:
        pool = by_system.get(system, [])
        rng.shuffle(pool)
        chosen += pool[:per_system]
        rest += pool[per_system:]
    rng.shuffle(rest)
    chosen += rest[: max(0, size - len(chosen))]
    stratified_split(chosen, rng)
    return sorted(chosen, key=lambda t: t["name"])


def stratified_split(chosen, rng):
    """Deals each (build system, installable_here) stratum, shuffled by `rng`, alternately
    into `test` and `dev`, so both halves have the same mix."""
    strata = {}
    for t in sorted(chosen, key=lambda t: t["name"]):
        strata.setdefault((t["primary_build_system"], t["installable_here"]), []).append(t)
    flip = 0
    for key in sorted(strata, key=str):
        group = strata[key]
        rng.shuffle(group)
        for i, t in enumerate(group):
            # Odd-sized strata alternate which split gets the extra task.
            t["split"] = "test" if (i + flip) % 2 == 0 else "dev"
        flip ^= len(group) % 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spack-packages", required=True, help="a spack-packages checkout (2026)")
    ap.add_argument("--spack-023", required=True, help="a Spack 0.23 checkout")
    ap.add_argument("--externals", required=True,
                    help="packages.yaml written by `packsmith setup spack` (its externals)")
    ap.add_argument("--exclude", action="append", default=[],
                    help="file of package names to leave out, one a line (# comments)")
    ap.add_argument("--exclude-corpus", action="append", default=[],
                    help="an earlier draw's task file: its packages and every package from "
                         "their source repositories are left out (a second draw meets none "
                         "of the projects the first was tuned on)")
    ap.add_argument("--in-023", action="store_true",
                    help="draw from the packages Spack 0.23 also has, not those it lacks")
    ap.add_argument("--forge", action="append", default=[],
                    help="keep only sources on this forge (github, gitlab, ...); repeatable")
    ap.add_argument("--installable-only", action="store_true",
                    help="keep only tasks whose dependencies are all here")
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--per-system", type=int, default=50)
    ap.add_argument("--size", type=int, default=170)
    ap.add_argument("--population", action="store_true", help="list the population, no draw")
    a = ap.parse_args()
    if not os.path.isfile(a.externals):
        sys.exit(f"corpus-tasks: no packages.yaml at {a.externals} "
                 "(hint: run `packsmith setup spack` first, or pass its config scope's file)")
    excluded = set()
    for path in a.exclude:
        with open(path) as f:
            excluded |= {l.split("#")[0].strip() for l in f} - {""}
    earlier_repos = set()
    for path in a.exclude_corpus:
        with open(path) as f:
            earlier = [json.loads(l) for l in f if l.strip()]
        # Any task file with a `name` (a replay, a fix-commit set) excludes its packages.
        excluded |= {t["name"] for t in earlier if t.get("name")}
        earlier_repos |= {(t["forge"], t["repo"].lower()) for t in earlier
                          if t.get("repo") and t.get("forge")}
    externals = externals_of(a.externals)
    tasks = [task_line(*c, externals)
             for c in candidates(a.spack_packages, a.spack_023, excluded, a.in_023)]
    tasks = [t for t in tasks if (t["forge"], (t["repo"] or "").lower()) not in earlier_repos
             and (not a.forge or t["forge"] in a.forge)
             and (t["installable_here"] or not a.installable_only)]
    if a.population:
        for t in tasks:
            print(t["name"], t["primary_build_system"], t["forge"], t["repo"], t["version"],
                  "installable" if t["installable_here"] else "-")
        return
    for t in draw(tasks, a.seed, a.per_system, a.size):
        t["seed"] = a.seed
        print(json.dumps(t, sort_keys=True))


if __name__ == "__main__":
    main()
