#!/usr/bin/env python3
"""Figures of a repair-benchmark run that `packsmith bench report` does not
give: per configuration, repaired@1, @2 and @5 (attempt 1 is the broken
recipe with the rules only, so @2 is one model answer), model calls, tokens and wall
time per repaired recipe, how many model answers were unchanged (the
recipe echoed, or edits that change nothing) and how many were refused
(edits that do not parse, do not apply, or add static-check errors), and
how many repairs restored the original recipe exactly.

    bench/repairs-metrics.py --run DIR --tasks TASKS.jsonl [--json OUT]

DIR is a `packsmith bench run --out` directory with its `runs/` (the committed
results keep only the journal, the report and this script's `--json` output);
TASKS the task file it ran
(its `original` paths are relative to the task file's directory).
"""

import argparse
import json
import os
import sys
from collections import defaultdict

from journal import pair_records, read_jsonl


def trace_counts(trace_path):
    """(model calls, unchanged answers, refused answers) of one run. An
    answer is refused when a note says it could not be used, and unchanged
    when a note says the model returned the recipe unchanged or the attempt
    ended `unchanged` after it; each answer counts once. (Before the
    refused note had its own wording, a refusal was followed by the
    unchanged note too; the `counted` flag keeps such a pair one answer.)"""
    calls = unchanged = refused = 0
    if not os.path.exists(trace_path):
        return 0, 0, 0
    counted = False
    for e in read_jsonl(trace_path):
        kind = e.get("type")
        if kind == "model_call" and not e.get("error"):
            calls += 1
            counted = False
        elif kind == "note":
            m = e.get("message", "")
            if "could not be used" in m:
                refused += 1
                counted = True
            elif "returned the recipe unchanged" in m and not counted:
                unchanged += 1
                counted = True
        elif kind == "attempt_finished" and e.get("failure_class") == "unchanged" and not counted:
            unchanged += 1
            counted = True
    return calls, unchanged, refused


def normalise(text):
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--json")
    args = ap.parse_args()

    base = os.path.dirname(os.path.abspath(args.tasks))
    tasks = {t["id"]: t for t in read_jsonl(args.tasks)}
    journal = pair_records(args.run, "repairs-metrics")
    per = defaultdict(lambda: defaultdict(float))
    for r in journal:
        c = per[r["config"]]
        task = tasks.get(r["task"])
        if task is None:
            continue
        c["tasks"] += 1
        ok = r.get("outcome") == "succeeded"
        first = r.get("success_attempt")
        c["repaired@1"] += ok and first == 1
        c["repaired@2"] += ok and first is not None and first <= 2
        c["repaired@5"] += ok and first is not None and first <= 5
        run_dir = os.path.join(args.run, r["run_dir"], task["package"])
        calls, unchanged, refused = trace_counts(os.path.join(run_dir, "trace.jsonl"))
        c["model_calls"] += calls
        c["unchanged_answers"] += unchanged
        c["refused_answers"] += refused
        tokens = r.get("prompt_tokens", 0) + r.get("completion_tokens", 0)
        if ok:
            c["tokens_repaired"] += tokens
            c["wall_s_repaired"] += r.get("wall_ms", 0) / 1000
            final = os.path.join(run_dir, "package.py")
            original = os.path.join(base, task["original"])
            if os.path.exists(final) and normalise(open(final).read()) == normalise(
                open(original).read()
            ):
                c["restored"] += 1
    out = {}
    print("| configuration | tasks | repaired@1 | repaired@2 | repaired@5 | restored exactly | model calls | unchanged answers | refused answers | tokens per repair | wall s per repair |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, c in sorted(per.items()):
        n = c["tasks"] or 1
        rep = c["repaired@5"] or 1
        row = {
            "tasks": int(c["tasks"]),
            "repaired@1": int(c["repaired@1"]),
            "repaired@2": int(c["repaired@2"]),
            "repaired@5": int(c["repaired@5"]),
            "restored": int(c["restored"]),
            "model_calls": int(c["model_calls"]),
            "unchanged_answers": int(c["unchanged_answers"]),
            "refused_answers": int(c["refused_answers"]),
            "tokens_per_repair": c["tokens_repaired"] / rep,
            "wall_s_per_repair": c["wall_s_repaired"] / rep,
        }
        out[name] = row
        calls = row["model_calls"]
        def share(key):
            return f"{row[key]} ({100 * row[key] / calls:.1f}%)" if calls else "–"

        unchanged, refused = share("unchanged_answers"), share("refused_answers")
        print(
            f"| {name} | {row['tasks']} | {row['repaired@1']} ({100 * row['repaired@1'] / n:.1f}%) "
            f"| {row['repaired@2']} ({100 * row['repaired@2'] / n:.1f}%) "
            f"| {row['repaired@5']} ({100 * row['repaired@5'] / n:.1f}%) | {row['restored']} "
            f"| {calls} | {unchanged} | {refused} | {row['tokens_per_repair']:.0f} | {row['wall_s_per_repair']:.1f} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
