#!/usr/bin/env python3
"""Scores a replay journal (bench/replay-run.py) against the merged commits.

    bench/replay-score.py --tasks bench/replay.jsonl bench-results/replay-dev [--out FILE.md]

Per task and arm, from the recipes the run wrote (all in Spack 0.23's idiom, so
the three arms and the human commit are read alike):
- version right: the new version is declared;
- checksum right: its `sha256` (or git `commit`) is the merged commit's; wrong: one is
  written and it differs (a `# FIXME: checksum` is neither);
- dependency changes: the package names whose `depends_on` directives the arm
  added, dropped or changed against the recipe before the commit, against the
  names the merged commit changed (recall, precision; summed over the tasks, so a
  task without a change counts only its false positives). The language virtuals
  (`c`, `cxx`, `fortran`) are left out: Spack 0.23 has none, and the adaptation
  drops them from every arm;
- variant changes: the same for `variant` directives;
- installed: the new version installed here (only tasks marked installable here,
  and only a journal made with --install).
The per-task lines go to FILE.jsonl beside FILE.md.
"""
import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from spack_recipe_facts import parse_recipe  # noqa: E402

_spec = importlib.util.spec_from_file_location("replay_tasks", os.path.join(HERE, "replay-tasks.py"))
replay_tasks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay_tasks)

ARMS = ("packsmith", "version_only", "human")
LANGUAGES = {"c", "cxx", "fortran"}


def read(path):
    try:
        with open(path) as f:
            return parse_recipe(f.read())
    except OSError:
        return None


def changed_names(changes):
    return {n for kind in ("added", "dropped", "changed") for n in changes[kind]} - LANGUAGES


def score_task(task, rows, run_dir):
    before = read(os.path.join(run_dir, "recipes", "packsmith", task["name"], "package.py"))
    human = read(os.path.join(run_dir, "recipes", "human", task["name"], "package.py"))
    out = {"task": task["name"], "split": task["split"], "installable_here": task["installable_here"]}
    if before is None or human is None or any(r["outcome"] == "no_source" for r in rows.values()):
        out["source"] = False
        return out
    out["source"] = True
    want_deps = changed_names(replay_tasks.dependency_changes(before, human))
    want_vars = changed_names(replay_tasks.variant_changes(before, human))
    expected = {k: v for k, v in task["new_version_fields"].items() if k in ("sha256", "commit")}
    out["human_dependency_changes"] = sorted(want_deps)
    out["human_variant_changes"] = sorted(want_vars)
    for arm, row in rows.items():
        path = os.path.join(run_dir, row["recipe"])
        recipe = read(path)
        a = {"exit": row.get("exit"), "installed": row.get("installed")}
        if recipe is None:
            a.update(version_right=False, checksum_right=False, checksum_wrong=False, deps=set(),
                     variants=set())
        else:
            versions = {v["version"] for v in recipe["versions"]}
            fields = replay_tasks.version_fields(recipe, task["new_version"])
            a["version_right"] = task["new_version"] in versions
            a["checksum_right"] = bool(expected) and all(fields.get(k) == v for k, v in expected.items())
            # A checksum written that is not the archive's: worse than a FIXME.
            a["checksum_wrong"] = any(k in fields for k in expected) and not a["checksum_right"]
            a["deps"] = changed_names(replay_tasks.dependency_changes(before, recipe))
            a["variants"] = changed_names(replay_tasks.variant_changes(before, recipe))
        for key, want in (("deps", want_deps), ("variants", want_vars)):
            got = a.pop(key)
            a[f"{key}_tp"] = sorted(got & want)
            a[f"{key}_fp"] = sorted(got - want)
            a[f"{key}_fn"] = sorted(want - got)
        out[arm] = a
    return out


def ratio(num, den):
    return f"{num}/{den} ({100 * num / den:.1f}%)" if den else "–"


def table(scored, arms):
    lines = ["| arm | tasks | with a source | version right | checksum right | checksum wrong | dependency changes: recall | precision | variant changes: recall | precision | installed (of installable here) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for arm in arms:
        have = [s for s in scored if s.get("source") and arm in s]
        tp = sum(len(s[arm]["deps_tp"]) for s in have)
        fp = sum(len(s[arm]["deps_fp"]) for s in have)
        fn = sum(len(s[arm]["deps_fn"]) for s in have)
        vtp = sum(len(s[arm]["variants_tp"]) for s in have)
        vfp = sum(len(s[arm]["variants_fp"]) for s in have)
        vfn = sum(len(s[arm]["variants_fn"]) for s in have)
        installable = [s for s in scored if s["installable_here"]]
        ran_install = [s for s in installable
                       if s.get("source") and arm in s and s[arm]["installed"] is not None]
        installed = sum(1 for s in ran_install if s[arm]["installed"])
        inst = ratio(installed, len(installable)) if ran_install else "not run"
        lines.append(
            f"| {arm} | {len(scored)} | {len(have)} | {ratio(sum(s[arm]['version_right'] for s in have), len(have))} "
            f"| {ratio(sum(s[arm]['checksum_right'] for s in have), len(have))} "
            f"| {sum(s[arm].get('checksum_wrong', False) for s in have)} "
            f"| {ratio(tp, tp + fn)} | {ratio(tp, tp + fp)} | {ratio(vtp, vtp + vfn)} | {ratio(vtp, vtp + vfp)} | {inst} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("run_dir")
    ap.add_argument("--out", help="write the table here (and the per-task lines beside it, .jsonl)")
    a = ap.parse_args()
    with open(a.tasks) as f:
        tasks = {t["name"]: t for t in map(json.loads, filter(str.strip, f))}
    rows = {}
    with open(os.path.join(a.run_dir, "journal.jsonl")) as f:
        for r in map(json.loads, f):
            rows.setdefault(r["task"], {})[r["arm"]] = r
    scored = [score_task(tasks[name], by_arm, a.run_dir) for name, by_arm in sorted(rows.items())]
    arms = [arm for arm in ARMS if any(arm in s for s in scored)]
    text = table(scored, arms)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
        with open(os.path.splitext(a.out)[0] + ".jsonl", "w") as f:
            for s in scored:
                f.write(json.dumps(s, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
