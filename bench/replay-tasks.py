#!/usr/bin/env python3
"""Draws the pre-registered replay set of issue 47: real version bumps from the
user's own spack-packages git history, each a commit that added one new
version to an existing recipe, split into `dev` and `test` by the same seed,
with `installable_here` decided from the merged recipe and the externals of
`packsmith setup spack` BEFORE any run.

    bench/replay-tasks.py --spack-packages ~/src/spack-packages \
        --externals ~/.cache/packsmith/spack/scope/packages.yaml > bench/replay.jsonl
    bench/replay-tasks.py ... --population     # every candidate commit, one line each

The population: a commit of the 1.x layout (`repos/spack_repo/builtin/packages`)
that changes exactly one file, an existing `package.py`, whose diff adds exactly
one `version()`, newer than every release the recipe had, and whose subject names
that version (`<package>: add v<version>`, `<package> <version>`, ...); the recipe's first
build-system class is CMake, Autotools, Meson or Python; the source is a GitHub
repository (CMake, Autotools, Meson: both versions are exported from its tags)
or PyPI (Python: both versions' sdists). One commit per package, picked by the
seed; then equal quotas per build system, and each (build system,
installable_here) stratum dealt half to `test`, half to `dev`. Only commit
ids, names, versions, URLs, checksums and dependency and variant names read
from the recipes go into a task line: no recipe text.
"""
import argparse
import importlib.util
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from spack_recipe_facts import (  # noqa: E402
    BRANCHES, forge_of, needed_dependencies, parse_recipe, version_key)

# The corpus' reading of the externals and its seeded draw, shared.
_spec = importlib.util.spec_from_file_location("corpus_tasks", os.path.join(HERE, "corpus-tasks.py"))
corpus_tasks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus_tasks)
externals_of = corpus_tasks.externals_of

PACKAGES = "repos/spack_repo/builtin/packages"
BUILD_SYSTEMS = ("CMakePackage", "AutotoolsPackage", "MesonPackage", "PythonPackage")
def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True, errors="replace").stdout


def commits(repo, paths=(PACKAGES,), since=None):
    """(commit, parent, date, subject, [(status, path)]) for every commit under `paths`
    (PACKAGES), since the date `since` when one is given."""
    window = [f"--since={since}"] if since else []
    log = git(repo, "log", "--no-renames", *window, "--format=@%H %P %ad|%s", "--date=short",
              "--name-status", "--", *paths)
    entry = None
    for line in log.splitlines():
        if line.startswith("@"):
            if entry:
                yield entry
            head, subject = line[1:].split("|", 1)
            ids = head.split()
            entry = (ids[0], ids[1] if len(ids) > 2 else None, ids[-1], subject, [])
        elif line.strip() and entry:
            status, path = line.split("\t", 1)
            entry[4].append((status, path))
    if entry:
        yield entry


def releases(recipe):
    return [v for v in recipe["versions"] if v["version"].lower() not in BRANCHES
            and not v["version"].startswith(("develop", "main", "master"))]


def version_fields(recipe, version):
    """The sha256 (or git commit, tag, url) the recipe gives `version`."""
    return next((v["fields"] for v in recipe["versions"] if v["version"] == version), {})


def source_of(recipe, system):
    """('pypi', NAME) for a Python package on PyPI, ('github', OWNER/REPO) otherwise, or None."""
    f = recipe["fields"]
    if system == "PythonPackage":
        if f.get("pypi"):
            return "pypi", f["pypi"].split("/")[0]
        m = re.search(r"(?:pypi\.io|pypi\.org|files\.pythonhosted\.org)/packages/source/\w/"
                      r"([\w.-]+)/", f.get("url") or "")
        return ("pypi", m.group(1)) if m else None
    forge, repo = forge_of(f)
    return (forge, repo) if forge == "github" else None


def dependency_changes(before, after):
    """Dependency names whose directives differ between two recipes: added, dropped, changed."""
    def directives(recipe):
        out = {}
        for d in recipe["depends_on"]:
            out.setdefault(d["name"], set()).add(
                (d["spec"], tuple(sorted(d["types"])), tuple(d["conditions"])))
        return out
    b, a = directives(before), directives(after)
    return {
        "added": sorted(set(a) - set(b)),
        "dropped": sorted(set(b) - set(a)),
        "changed": sorted(n for n in set(a) & set(b) if a[n] != b[n]),
    }


def variant_changes(before, after):
    b, a = before["variants"], after["variants"]
    return {
        "added": sorted(set(a) - set(b)),
        "dropped": sorted(set(b) - set(a)),
        "changed": sorted(n for n in set(a) & set(b) if a[n] != b[n]),
    }


def candidate(repo, commit, parent, date, subject, files, externals):
    if not parent or len(files) != 1:
        return None
    status, path = files[0]
    parts = path.split("/")
    if status != "M" or len(parts) != 6 or parts[-1] != "package.py":
        return None
    spack_dir = parts[-2]
    name = spack_dir.lstrip("_").replace("_", "-")
    before_text = git(repo, "show", f"{parent}:{path}")
    after_text = git(repo, "show", f"{commit}:{path}")
    before, after = parse_recipe(before_text), parse_recipe(after_text)
    if before is None or after is None:
        return None
    systems = [b for b in after["bases"] if b in BUILD_SYSTEMS]
    if not systems:
        return None
    old = {v["version"] for v in releases(before)}
    added = [v["version"] for v in releases(after) if v["version"] not in old]
    if len(added) != 1 or not old:
        return None
    new_version = added[0]
    old_version = max(old, key=version_key)
    if version_key(new_version) <= version_key(old_version) or new_version not in subject:
        return None
    source = source_of(after, systems[0])
    if source is None:
        return None
    needed = needed_dependencies(after, new_version)
    missing = corpus_tasks.missing_here(needed, externals)
    f = after["fields"]
    return {
        "name": name, "spack_dir": spack_dir, "recipe_path": path,
        "commit": commit, "parent": parent, "date": date,
        "primary_build_system": systems[0], "build_systems": systems,
        "source": source[0], "repo": source[1],
        "url": f.get("url") or f.get("pypi"), "git": f.get("git"),
        "old_version": old_version, "new_version": new_version,
        "new_version_fields": version_fields(after, new_version),
        "old_version_fields": version_fields(before, old_version),
        "human_dependency_changes": dependency_changes(before, after),
        "human_variant_changes": variant_changes(before, after),
        "needed_here": needed, "missing_here": missing, "installable_here": not missing,
    }


def draw(tasks, seed, per_system, size, systems=BUILD_SYSTEMS):
    """One commit per package, equal quotas per build system, topped up to `size`;
    then a stratified half split by the same seed."""
    rng = random.Random(seed)
    by_package = {}
    for t in sorted(tasks, key=lambda t: (t["name"], t["commit"])):
        by_package.setdefault(t["name"], []).append(t)
    return corpus_tasks.quota_draw(by_package, rng, systems, per_system, size)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spack-packages", required=True,
                    help="a spack-packages git checkout with its history (2026)")
    ap.add_argument("--externals", required=True,
                    help="packages.yaml written by `packsmith setup spack` (its externals)")
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--per-system", type=int, default=18)
    ap.add_argument("--size", type=int, default=72)
    ap.add_argument("--population", action="store_true", help="list the population, no draw")
    a = ap.parse_args()
    probe = subprocess.run(["git", "-C", a.spack_packages, "cat-file", "-e", f"HEAD:{PACKAGES}"],
                           capture_output=True)
    if probe.returncode != 0:
        sys.exit(f"replay-tasks: no {PACKAGES} under {a.spack_packages} "
                 "(hint: pass a spack-packages git checkout of the 1.x layout, with its history)")
    if not os.path.isfile(a.externals):
        sys.exit(f"replay-tasks: no packages.yaml at {a.externals} "
                 "(hint: run `packsmith setup spack` first, or pass its config scope's file)")
    externals = externals_of(a.externals)
    tasks = []
    for c in commits(a.spack_packages):
        t = candidate(a.spack_packages, *c, externals)
        if t:
            tasks.append(t)
    if a.population:
        for t in tasks:
            print(t["name"], t["commit"][:10], t["primary_build_system"], t["source"], t["repo"],
                  t["old_version"], "->", t["new_version"],
                  "installable" if t["installable_here"] else "-")
        return
    for t in draw(tasks, a.seed, a.per_system, a.size):
        t["seed"] = a.seed
        print(json.dumps(t, sort_keys=True))


if __name__ == "__main__":
    main()
