#!/usr/bin/env python3
"""Which installable tasks the human recipe fails the same way as the draft (issue 44's
rule for denominators): a task leaves a denominator only through a committed run of its
human recipe that fails the same way here. Reads the run directories of a draft run and a
human run of one split (their `runs/` trees, which are not committed), compares the stage,
the failure class and the cause line of each pair's last attempt, and writes the evidence:

    bench/same-failure.py --tasks bench/corpus.jsonl --split dev \
        --draft RUNS/corpus-dev-draft --human RUNS/corpus-dev-human \
        --out bench-results/corpus-dev-same-failure.jsonl

One JSON line per installable task where both failed, with both cause lines and `same`.
Machine paths in a cause line are cut to their last component, so two machines compare
alike. Nothing is decided by hand: `bench/corpus-summary.py --same-failure FILE` shows the
figures with and without the tasks marked `same`, beside the registered denominator.
"""
import argparse
import json
import os
import re
import sys

from journal import last_pairs

# An absolute path (not the tail of a relative one: `build/makefile`, `../x`).
PATH = re.compile(r"(?<![\w.])(/[^\s'\"`:]+)+")
HASH = re.compile(r"\b[a-z0-9]{32}\b")


def normalized(line):
    line = PATH.sub(lambda m: os.path.basename(m.group(0)), line)
    return HASH.sub("<hash>", line).strip()


def last_failure(run, config, task):
    """(stage, class, cause line) of the pair's last attempt, or None."""
    base = os.path.join(run, "runs", config, task, task, "attempts")
    if not os.path.isdir(base):
        return None
    attempts = sorted(a for a in os.listdir(base) if a.isdigit())
    for attempt in reversed(attempts):
        path = os.path.join(base, attempt, "diagnosis.json")
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            failure = (json.load(f).get("record") or {}).get("failure")
        if not failure:
            return None
        cause = (failure.get("excerpt") or "").split("\n", 1)[0]
        return failure.get("stage"), failure.get("class"), normalized(cause)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--split", required=True, choices=["dev", "test"])
    ap.add_argument("--draft", required=True, help="the draft run's directory (with runs/)")
    ap.add_argument("--human", required=True, help="the human run's directory (with runs/)")
    ap.add_argument("--draft-config", default="draft")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    draft_pairs = last_pairs(a.draft, "same-failure")
    human_pairs = last_pairs(a.human, "same-failure")
    rows = []
    for t in tasks:
        if t.get("split") != a.split or not t["installable_here"]:
            continue
        draft = draft_pairs.get((t["name"], a.draft_config))
        human = human_pairs.get((t["name"], "human"))
        if not draft or not human or draft["outcome"] != "failed" or human["outcome"] != "failed":
            continue
        d = last_failure(a.draft, a.draft_config, t["name"])
        h = last_failure(a.human, "human", t["name"])
        if d is None or h is None:
            continue
        rows.append({"task": t["name"], "split": a.split, "same": d == h,
                     "draft": {"stage": d[0], "class": d[1], "cause": d[2]},
                     "human": {"stage": h[0], "class": h[1], "cause": h[2]}})
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    os.replace(tmp, a.out)
    same = [r["task"] for r in rows if r["same"]]
    print(f"same-failure: {len(rows)} tasks both failed; the same way: {len(same)} ({', '.join(same) or 'none'})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
