#!/usr/bin/env python3
"""Replays the version bumps of bench/replay.jsonl (issue 47): each task's recipe
as it was before the commit, brought to the new version three ways, and what each
installs here.

    bench/replay-run.py --tasks bench/replay.jsonl --split dev \
        --spack-packages $SPACK_PACKAGES --sources $REPLAY_SRC \
        --packsmith $PACKSMITH_BENCH_BIN --out bench-results/replay-dev [--install]

The arms, each on the recipe before the commit in Spack 0.23's idiom
(bench/adapt-human-recipes.py's adaptation, the same for all three):
- `packsmith`: `packsmith update RECIPE NEW --old-source OLD --version V` (a
  GitHub task's new source is a checkout at the tag, a PyPI task's the sdist);
- `version_only`: the new `version()` line alone, with the merged commit's
  checksum, as a bulk bump tool writes it (its checksum is right by construction);
  where packsmith's recipe is the same but for that line, its install is packsmith's
  (`installed_as` says so) and is not run twice;
- `human`: the merged commit's recipe.
With --install, every task marked installable here is installed in each arm
through the real Spack (`packsmith update`'s own validation for `packsmith`;
`packsmith repair --max-attempts 1 --no-rules` on the same source for the two
baselines: the recipe as it is, no repair). Without it, `packsmith update` runs
with --no-validate. OUT/journal.jsonl gets one line per task and arm (appended;
a task and arm already there is skipped, so an interrupted run resumes);
bench/replay-score.py scores it. The recipes written go under OUT/recipes and
the run directories under OUT/runs; neither is committed.
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


adapt_human = _load("adapt_human_recipes", "adapt-human-recipes.py")
sys.path.insert(0, HERE)
from spack_recipe_facts import version_key  # noqa: E402

ARMS = ("packsmith", "version_only", "human")


def git(repo, *args, binary=False):
    out = subprocess.run(["git", "-C", repo, *args], capture_output=True, check=True)
    return out.stdout if binary else out.stdout.decode(errors="replace")


def write_package(spack_packages, commit, task, dest):
    """The package directory at `commit` (patches beside the recipe included), the
    recipe adapted to 0.23; returns its package.py path."""
    pkg_dir = os.path.dirname(task["recipe_path"])
    os.makedirs(dest, exist_ok=True)
    for entry in git(spack_packages, "ls-tree", "-r", "--name-only", commit, pkg_dir + "/").splitlines():
        rel = os.path.relpath(entry, pkg_dir)
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(git(spack_packages, "show", f"{commit}:{entry}", binary=True))
    path = os.path.join(dest, "package.py")
    with open(path) as f:
        text, _ = adapt_human.adapt(f.read())
    with open(path, "w") as f:
        f.write(text)
    return path


def with_version_line(text, version, fields):
    """`text` with `version(V, sha256=...)` where Spack's order puts it: before the
    first release older than V (or after the last version line)."""
    lines = text.split("\n")
    checksum = ", ".join(f'{k}="{v}"' for k, v in fields.items() if k in ("sha256", "commit", "tag"))
    at, indent = None, "    "
    for i, line in enumerate(lines):
        m = re.match(r'^(\s*)version\(\s*"([^"]+)"', line)
        if not m:
            continue
        indent = m.group(1)
        if m.group(2)[:1].isdigit() and version_key(m.group(2)) < version_key(version):
            at = i
            break
        at = i + 1
    if at is None:
        raise ValueError("the recipe has no version() line")
    lines.insert(at, f'{indent}version("{version}", {checksum})')
    return "\n".join(lines)


def run(cmd, timeout, log):
    start = time.time()
    with open(log, "w") as f:
        try:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
            code = p.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    return code, round(time.time() - start, 1)


def without_new_version_line(path, version):
    with open(path) as f:
        lines = f.read().split("\n")
    return [l for l in lines if not re.match(r'\s*version\(\s*"' + re.escape(version) + '"', l)]


def same_recipe_as_packsmith(out, name, recipe, version):
    """packsmith's install outcome when its recipe is this one but for the new
    version's line (a checksum or a FIXME), else None."""
    journal = os.path.join(out, "journal.jsonl")
    if not os.path.isfile(journal):
        return None
    with open(journal) as f:
        rows = [r for r in map(json.loads, f) if r["task"] == name and r["arm"] == "packsmith"]
    if not rows or rows[-1].get("installed") is None:
        return None
    ours = os.path.join(out, rows[-1]["recipe"])
    if not os.path.isfile(ours):
        return None
    if without_new_version_line(ours, version) != without_new_version_line(recipe, version):
        return None
    return rows[-1]["installed"]


def installed_by_update(run_dir):
    try:
        with open(os.path.join(run_dir, "report.json")) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    v = r.get("validated")
    return None if v is None else bool(v["new"]["passed"])


def installed_by_repair(run_dir):
    try:
        with open(os.path.join(run_dir, "report.json")) as f:
            return json.load(f)["status"] == "succeeded"
    except (OSError, ValueError, KeyError):
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--split", choices=("dev", "test"), required=True)
    ap.add_argument("--spack-packages", required=True, help="the spack-packages git checkout the tasks were drawn from")
    ap.add_argument("--sources", required=True, help="the directory bench/replay-sources.py wrote")
    ap.add_argument("--packsmith", required=True, help="the packsmith binary to run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--install", action="store_true", help="install the installable tasks in every arm")
    ap.add_argument("--arms", default=",".join(ARMS))
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per task and arm")
    ap.add_argument("--only", default="", help="comma-separated task names")
    a = ap.parse_args()
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    with open(os.path.join(a.sources, "sources.json")) as f:
        sources = json.load(f)
    only = set(filter(None, a.only.split(",")))
    arms = [x for x in a.arms.split(",") if x]
    os.makedirs(a.out, exist_ok=True)
    journal = os.path.join(a.out, "journal.jsonl")
    done = set()
    if os.path.isfile(journal):
        with open(journal) as f:
            done = {(r["task"], r["arm"]) for r in map(json.loads, f)}
    for t in tasks:
        if t["split"] != a.split or (only and t["name"] not in only):
            continue
        src = sources.get(t["name"], {"error": "not laid out by replay-sources.py"})
        for arm in arms:
            if (t["name"], arm) in done:
                continue
            row = {"task": t["name"], "arm": arm, "split": t["split"],
                   "installable_here": t["installable_here"]}
            if "error" in src:
                row.update(outcome="no_source", why=src["error"])
            else:
                row.update(one_arm(a, t, src, arm))
            with open(journal, "a") as f:
                f.write(json.dumps(row, sort_keys=True) + "\n")
            print(t["name"], arm, row.get("outcome"), row.get("installed"), file=sys.stderr)


def one_arm(a, t, src, arm):
    name, new_v = t["name"], t["new_version"]
    recipes = os.path.join(a.out, "recipes", arm, name)
    runs = os.path.abspath(os.path.join(a.out, "runs", arm))
    logs = os.path.join(a.out, "logs")
    os.makedirs(runs, exist_ok=True)
    os.makedirs(logs, exist_ok=True)
    log = os.path.join(logs, f"{name}.{arm}.log")
    install = a.install and t["installable_here"]
    if arm == "packsmith":
        before = write_package(a.spack_packages, t["parent"], t, recipes)
        cmd = [a.packsmith, "update", before, src["new"]["path"], "--old-source", src["old"]["path"],
               "--version", new_v, "--name", name, "--spack-version", "0.23", "--out", runs,
               "--replace"]
        if not install:
            cmd.append("--no-validate")
        code, wall = run(cmd, a.timeout, log)
        run_dir = os.path.join(runs, name)
        recipe = os.path.join(run_dir, "package.py")
        installed = installed_by_update(run_dir) if install else None
    else:
        if arm == "version_only":
            recipe = write_package(a.spack_packages, t["parent"], t, recipes)
            with open(recipe) as f:
                text = with_version_line(f.read(), new_v, t["new_version_fields"])
            with open(recipe, "w") as f:
                f.write(text)
        else:
            recipe = write_package(a.spack_packages, t["commit"], t, recipes)
        code, wall, installed = 0, 0.0, None
        same = same_recipe_as_packsmith(a.out, name, recipe, new_v) if arm == "version_only" else None
        if install and same is not None:
            # The same recipe but for the checksum: the install is packsmith's.
            return {"outcome": "ran", "exit": 0, "wall_s": 0.0, "installed": same,
                    "recipe": os.path.relpath(recipe, a.out), "installed_as": "packsmith"}
        if install:
            cmd = [a.packsmith, "repair", recipe, "--name", name, "--version", new_v,
                   "--source", src["new"]["path"], "--max-attempts", "1", "--no-rules",
                   "--model", "none", "--no-smoke-test", "--no-hermeticity-check",
                   "--spack-version", "0.23", "--out", runs, "--replace"]
            code, wall = run(cmd, a.timeout, log)
            installed = installed_by_repair(os.path.join(runs, name))
    return {"outcome": "ran" if code != "timeout" else "timeout", "exit": code, "wall_s": wall,
            "recipe": os.path.relpath(recipe, a.out), "installed": installed}


if __name__ == "__main__":
    main()
