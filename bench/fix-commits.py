#!/usr/bin/env python3
"""Lays out issue 46's fix-commit tasks (bench/fix-commits.jsonl) for real Spack:
each commit's recipe before and after the fix, in Spack 0.23's idiom, with the
patch files beside it, and the source of the version Spack installs.

    bench/fix-commits.py --tasks bench/fix-commits.jsonl --split dev \
        --spack-packages $SPACK_PACKAGES --mirrors $MIRRORS --out $FIXES

OUT/before.jsonl and OUT/after.jsonl are `packsmith bench run` repair tasks
(install stage) over the same ids: the recipe before the commit, and the one after
it. Run both once with bench/fix-commits-verify.toml (no rule, no model) to learn
which tasks fail here before the fix and install after it; those are the repair
set, run with the rules alone, the model alone and both on OUT/before.jsonl.
OUT/sources.json says what each task got, or why it has no source (such a task
is left out of both task files and counted as "no source" in every denominator). Everything under OUT comes from the user's checkout and mirrors at run
time and is never committed.
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


adapt_human = _load("adapt_human", "adapt-human-recipes.py")
export_sources = _load("export_sources", "export-sources.py")
replay_sources = _load("replay_sources", "replay-sources.py")


def git(repo, *args, binary=False):
    out = subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)
    return out.stdout if binary else out.stdout.decode("utf-8", "replace")


def write_recipe(repo, rev, package_dir, dest):
    """The package directory at `rev`, its package.py adapted to 0.23, into `dest`."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for name in git(repo, "ls-tree", "--name-only", f"{rev}:{package_dir}").split():
        data = git(repo, "show", f"{rev}:{package_dir}/{name}", binary=True)
        if name == "package.py":
            data = adapt_human.adapt(data.decode("utf-8"))[0].encode("utf-8")
        with open(os.path.join(dest, name), "wb") as f:
            f.write(data)
    return os.path.join(dest, "package.py")


def source(task, mirrors, dest):
    """The version's source: a tree exported from the mirror's tag, or PyPI's sdist."""
    if task["source"] == "pypi":
        os.makedirs(dest, exist_ok=True)
        return replay_sources.pypi_sdist(task["repo"], task["version"], dest)
    owner, repo = task["repo"].split("/", 1)
    mirror = export_sources.find_mirror(mirrors, owner, repo)
    if mirror is None:
        raise RuntimeError(f"no mirror of github.com/{task['repo']} under --mirrors")
    # A version the recipe pins to a commit (`version("2025-08-21", commit=...)`) is that commit.
    commit = task["version_fields"].get("commit")
    tag = replay_sources.tag_of(mirror, task, task["version"])
    if tag:
        ref = f"refs/tags/{tag}"
    elif commit and subprocess.run(["git", "-C", mirror, "cat-file", "-e", f"{commit}^{{tree}}"],
                                   capture_output=True).returncode == 0:
        ref = commit
    else:
        raise RuntimeError(f"no tag or commit for version {task['version']} in the mirror")
    # `packsmith repair --source` takes the tree as a `.tar.gz` with one top directory.
    tree = os.path.join(dest, f"{task['name']}-{task['version']}")
    shutil.rmtree(dest, ignore_errors=True)
    missing = export_sources.export(mirror, ref, tree)
    archive = f"{dest}.tar.gz"
    subprocess.run(["tar", "-czf", archive + ".tmp", "-C", dest, os.path.basename(tree)],
                   check=True)
    os.replace(archive + ".tmp", archive)
    shutil.rmtree(dest)
    return {"path": archive, "how": f"plain export of {ref}", "missing": missing}


def repair_task(task, broken, original, src):
    return {
        "id": task["name"], "package": task["name"], "class": "+".join(task["fix_kinds"]),
        "stage": "install", "until": "install", "broken": broken, "original": original,
        "source": src, "version": task["version"],
        "description": f"spack-packages {task['commit'][:10]} ({task['date']})",
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--split", choices=("dev", "test"), required=True)
    ap.add_argument("--spack-packages", required=True, help="the user's spack-packages git checkout")
    ap.add_argument("--mirrors", required=True, help="OWNER+REPO/repo git mirrors, as `fetch` lays them out")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    tasks = [t for t in tasks if t["split"] == a.split]
    if not tasks:
        sys.exit(f"fix-commits: no {a.split} task in {a.tasks}")
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    got, lines = {}, {"before": [], "after": []}
    for t in tasks:
        package_dir = os.path.dirname(t["recipe_path"])
        recipes = {side: write_recipe(a.spack_packages, rev, package_dir,
                                      os.path.join(out, "recipes", side, t["name"]))
                   for side, rev in (("before", t["parent"]), ("after", t["commit"]))}
        try:
            src = source(t, a.mirrors, os.path.join(out, "src", t["name"]))
        except Exception as e:  # noqa: BLE001 - any failure is this task's, reported
            got[t["name"]] = {"error": str(e)}
            print(t["name"], "no source:", e, file=sys.stderr)
            continue
        got[t["name"]] = src
        print(t["name"], "ok", file=sys.stderr)
        lines["before"].append(repair_task(t, recipes["before"], recipes["after"], src["path"]))
        lines["after"].append(repair_task(t, recipes["after"], recipes["after"], src["path"]))
    for side, rows in lines.items():
        path = os.path.join(out, f"{side}.jsonl")
        with open(path + ".tmp", "w") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in rows)
        os.replace(path + ".tmp", path)
    with open(os.path.join(out, "sources.json.tmp"), "w") as f:
        json.dump(got, f, indent=1, sort_keys=True)
    os.replace(os.path.join(out, "sources.json.tmp"), os.path.join(out, "sources.json"))


if __name__ == "__main__":
    main()
