#!/usr/bin/env python3
"""The pick benchmark's task file (issue 46, item 2: the model names a dependency no rule
maps), made before any model runs on it.

Every dependency lookup the draft leaves out because no rule finds its Spack name
(`packsmith kb pick DIR --json`, no model) becomes one task: the upstream name, what looked
for it, the knowledge base's candidates, and the human recipe's dependencies, from the
set's task file. `gold` is the candidates the human recipe depends on; an empty `gold` means
the right answer is `none`. The split is the set's own: the corpus keeps its pre-registered
`dev`/`test`; the new-to-Spack and E4S dev sets are `dev`.

    bench/pick-tasks.py --packsmith target/release/packsmith \
        --set corpus=bench/corpus.jsonl:CORPUS_SRC \
        --set nts=bench/new-to-spack.jsonl:NTS_SRC \
        --set e4s=../shared/bench/spack-e4s-dev.jsonl:E4S_SRC \
        --out bench/pick-package.jsonl

Each SRC is the root the set's trees were exported under (`bench/export-sources.py`), one
directory per task name; tasks without a tree are left out and counted. Paths never enter
the output.
"""
import argparse
import json
import os
import subprocess
import sys


def read_tasks(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def picks_for(packsmith, tree):
    out = subprocess.run(
        [packsmith, "kb", "pick", tree, "--spack-version", "0.23", "--json"],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        sys.exit(f"pick-tasks: `packsmith kb pick {tree}` failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packsmith", required=True)
    ap.add_argument("--set", action="append", required=True, help="NAME=TASKS.jsonl:SRC_ROOT")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rows = []
    for spec in a.set:
        name, rest = spec.split("=", 1)
        tasks_file, root = rest.split(":", 1)
        missing = 0
        for t in read_tasks(tasks_file):
            tree = os.path.join(root, t["name"])
            if not os.path.isdir(tree):
                missing += 1
                continue
            human = sorted(set(t.get("depends_on") or []))
            for p in picks_for(a.packsmith, tree):
                candidates = [c["name"] for c in p["candidates"]]
                rows.append(
                    {
                        "id": f"{name}/{t['name']}/{p['source']}/{p['upstream']}",
                        "set": name,
                        "task": t["name"],
                        "split": t.get("split", "dev"),
                        "upstream": p["upstream"],
                        "source": p["source"],
                        "required": p["required"],
                        "location": p["location"],
                        "candidates": candidates,
                        "gold": [c for c in candidates if c in human],
                        "human_depends_on": human,
                    }
                )
        print(f"pick-tasks: {name}: {missing} tasks without a tree here", file=sys.stderr)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    os.replace(tmp, a.out)
    by_split = {}
    for r in rows:
        s = by_split.setdefault(r["split"], [0, 0])
        s[0] += 1
        s[1] += bool(r["gold"])
    for split, (n, reachable) in sorted(by_split.items()):
        print(f"pick-tasks: {split}: {n} lookups, {reachable} with the human recipe's package among the candidates", file=sys.stderr)


if __name__ == "__main__":
    main()
