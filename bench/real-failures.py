#!/usr/bin/env python3
"""The real-failure repair set of issue 46: the draft's own failures on the
pre-registered corpus (bench/corpus.jsonl), read from the committed journals
of the draft runs, one per split. A task is in the set when it is marked
installable here and its draft failed at attempt 1 in a real Spack run; the
failing stage and class are what that run recorded. Nothing here is chosen by
hand, so the set is fixed before any model arm runs.

    bench/real-failures.py --tasks bench/corpus.jsonl \
        --run dev=bench-results/corpus-dev-draft-now \
        --run test=bench-results/corpus-test-draft \
        --out bench/real-failures.jsonl

Each row: name, split, the stage that failed (the first the draft did not
pass), the failure class, whether the rules repaired it in that run
(`rules_fixed`: installed at a later attempt), and the journal it came from.
"""

import argparse
import json
import sys

from journal import pair_records, read_jsonl

STAGES = ["load", "audit", "concretize", "install", "hermeticity", "smoke"]


def failing_stage(pair):
    if pair.get("outcome") == "timeout":
        return "timeout"
    passed = set(pair.get("stages_passed") or [])
    for stage in pair.get("stages") or STAGES:
        if stage not in passed:
            return stage
    return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True, help="the corpus task file")
    ap.add_argument(
        "--run", action="append", required=True, metavar="SPLIT=DIR",
        help="a split and the bench directory of its draft run",
    )
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    tasks = {t["name"]: t for t in read_jsonl(args.tasks)}
    rows = []
    for spec in args.run:
        split, _, run = spec.partition("=")
        if not run:
            sys.exit(f"--run {spec!r}: expected SPLIT=DIR")
        for pair in pair_records(run, "real-failures"):
            task = tasks.get(pair["task"])
            if task is None:
                sys.exit(f"{run}: task {pair['task']} is not in {args.tasks}")
            if task.get("split") != split or not task.get("installable_here"):
                continue
            first_try = pair.get("outcome") == "succeeded" and (pair.get("success_attempt") or 1) == 1
            if first_try:
                continue
            rows.append({
                "name": pair["task"],
                "split": split,
                "failing_stage": failing_stage(pair),
                "failure_class": pair.get("failure_class") or "timeout",
                "rules_fixed": pair.get("outcome") == "succeeded",
                "draft_run": run,
            })
    rows.sort(key=lambda r: (r["split"], r["name"]))
    with open(args.out + ".tmp", "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    import os
    os.replace(args.out + ".tmp", args.out)
    by = {}
    for r in rows:
        by.setdefault(r["split"], {}).setdefault(r["failure_class"], 0)
        by[r["split"]][r["failure_class"]] += 1
    for split, classes in sorted(by.items()):
        total = sum(classes.values())
        print(f"{split}: {total} failures: " + ", ".join(f"{c} {n}" for c, n in sorted(classes.items())))


if __name__ == "__main__":
    main()
