#!/usr/bin/env python3
"""Issue 46's contribution table on the real-failure set: each task of one split
of bench/real-failures.jsonl, paired across the arms' bench journals (the rules
alone, the model alone, both), and the pairs a model call turned into an install
that the rules alone did not make.

    bench/real-failures-table.py --tasks bench/real-failures.jsonl --split dev \
        --arm rules=bench-results/real-failures-dev-rules \
        --arm model=bench-results/real-failures-dev-qwen-no-rules \
        --arm both=bench-results/real-failures-dev-qwen,bench-results/real-failures-dev-qwen-pip

A run may be followed by `#CONFIG`, to take only that configuration's pairs from a
journal that holds several (bench/fix-commits-repair.toml runs its three arms in one).
`--only` keeps the tasks named (the fix-commit set's verified ones). An arm may name
several runs, comma-separated: a later run's pair for a task
replaces an earlier one's (a rerun of some tasks with a newer binary), and the
table says which run each pair comes from. A task with no pair in an arm counts
as not installed there, so no denominator shrinks. The arm named `rules` is the
baseline a model-owed install is measured against.
"""
import argparse
import json
import os
import sys

from journal import pair_records


def pairs(run):
    run, _, config = run.partition("#")
    return {
        rec["task"]: rec
        for rec in pair_records(run, "real-failures-table")
        if config in ("", rec.get("config"))
    }


def arm_pairs(spec):
    merged = {}
    for run in spec.split(","):
        for task, rec in pairs(run).items():
            merged[task] = (rec, os.path.basename(run.partition("#")[0].rstrip("/")))
    return merged


def installed(rec):
    return rec is not None and rec.get("outcome") == "succeeded"


def cell(entry):
    if entry is None:
        return "not run"
    rec, run = entry
    if installed(rec):
        return f"installed by {rec.get('installed_by', '?')} at attempt {rec.get('success_attempt', '?')} ({run})"
    return f"{rec.get('outcome')} ({rec.get('failure_class')}) ({run})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--split", required=True)
    ap.add_argument("--arm", action="append", required=True, help="NAME=RUN[#CONFIG][,RUN...]")
    ap.add_argument("--only", default="", help="comma-separated task names to keep")
    a = ap.parse_args()
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    only = set(filter(None, a.only.split(",")))
    names = [t["name"] for t in tasks if t["split"] == a.split and (not only or t["name"] in only)]
    if not names:
        sys.exit(f"{a.tasks}: no task has split {a.split!r}")
    arms = []
    for spec in a.arm:
        name, _, runs = spec.partition("=")
        if not runs:
            sys.exit(f"--arm {spec!r}: expected NAME=RUN[,RUN...]")
        arms.append((name, arm_pairs(runs)))
    baseline = dict(arms).get("rules", {})

    print("| task | " + " | ".join(n for n, _ in arms) + " |")
    print("| --- | " + " | ".join("---" for _ in arms) + " |")
    for t in names:
        print(f"| {t} | " + " | ".join(cell(p.get(t)) for _, p in arms) + " |")
    print()
    print("| arm | installed | of which a model call made (`installed_by: model`) | "
          "installed here and not by the rules alone | model calls | tokens in / out | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, p in arms:
        recs = [p[t][0] for t in names if t in p]
        ok = [r for r in recs if installed(r)]
        by_model = [r for r in ok if r.get("installed_by") == "model"]
        beyond = [r for r in by_model if not installed(baseline.get(r["task"], (None,))[0])]
        calls = sum(r.get("model_calls", 0) for r in recs)
        tin = sum(r.get("prompt_tokens", 0) for r in recs)
        tout = sum(r.get("completion_tokens", 0) for r in recs)
        secs = sum(r.get("wall_ms", 0) for r in recs) / 1000
        owed = ", ".join(r["task"] for r in beyond) or "none"
        print(f"| {name} | {len(ok)} of {len(names)} | {len(by_model)} | {len(beyond)} ({owed}) | "
              f"{calls} | {tin} / {tout} | {secs:.0f} |")


if __name__ == "__main__":
    main()
