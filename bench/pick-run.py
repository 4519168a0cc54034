#!/usr/bin/env python3
"""Runs the pick benchmark (bench/pick-package.jsonl, made by bench/pick-tasks.py) on one
split with one model, and scores it against the rules alone on the same lookups.

    bench/pick-run.py --packsmith target/release/packsmith --tasks bench/pick-package.jsonl \
        --split dev --model local:qwen2.5-coder-1.5b \
        --set corpus=CORPUS_SRC --set nts=NTS_SRC --set e4s=E4S_SRC \
        --out bench-results/pick-package-dev

Arms, on the same lookups:
- rules: what the draft does today, no dependency declared (always `none`);
- top candidate: a rule that takes the knowledge base's first candidate;
- model: the model's checked pick (a refused answer counts as `none`).

A pick is right when the human recipe depends on it, wrong when it does not; `none` is right
when no candidate (of this binary: the task file fixes the lookups and the human recipe's
dependencies, not how candidates are found) is in the human recipe, else missed. Writes picks.jsonl (one
line per lookup, with tokens and seconds) and summary.md into --out.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def score(choice, gold):
    if choice is None:
        return "none_right" if not gold else "missed"
    return "right" if choice in gold else "wrong"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packsmith", required=True)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--split", required=True, choices=["dev", "test"])
    ap.add_argument("--model", required=True)
    ap.add_argument("--set", action="append", required=True, help="NAME=SRC_ROOT")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    roots = dict(s.split("=", 1) for s in a.set)
    with open(a.tasks) as f:
        tasks = [json.loads(line) for line in f if line.strip()]
    tasks = [t for t in tasks if t["split"] == a.split]
    by_tree = {}
    for t in tasks:
        by_tree.setdefault((t["set"], t["task"]), []).append(t)
    os.makedirs(a.out, exist_ok=True)
    rows = []
    started = time.time()
    for (set_name, task), lookups in sorted(by_tree.items()):
        tree = os.path.join(roots[set_name], task)
        out = subprocess.run(
            [a.packsmith, "kb", "pick", tree, "--spack-version", "0.23", "--model", a.model, "--json"],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            sys.exit(f"pick-run: `packsmith kb pick {tree}` failed: {out.stderr.strip()}")
        picks = {(p["source"], p["upstream"]): p for p in json.loads(out.stdout)}
        for t in lookups:
            p = picks.get((t["source"], t["upstream"]))
            pick = (p or {}).get("pick") or {}
            # The candidates of this binary: the task file fixes the lookups and
            # the human recipe's dependencies, not how candidates are found.
            candidates = [c["name"] for c in (p or {}).get("candidates", [])]
            gold = [c for c in candidates if c in t["human_depends_on"]]
            top = candidates[0] if candidates else None
            usage = pick.get("usage") or {}
            rows.append(
                {
                    "id": t["id"],
                    "gold": gold,
                    "candidates": candidates,
                    "candidates_same": candidates == t["candidates"],
                    "still_left_out": p is not None,
                    "answer": pick.get("answer"),
                    "model_pick": pick.get("package"),
                    "refused": pick.get("refused"),
                    "top_candidate": top,
                    "rules": score(None, gold),
                    "top": score(top, gold),
                    "model": score(pick.get("package"), gold),
                    "prompt_tokens": usage.get("prompt_tokens", 0),
                    "completion_tokens": usage.get("completion_tokens", 0),
                    "seconds": round(pick.get("seconds", 0.0), 2),
                }
            )
        print(f"pick-run: {set_name}/{task}: {len(lookups)} lookups", file=sys.stderr)
    with open(os.path.join(a.out, "picks.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    n = len(rows)
    reachable = sum(1 for r in rows if r["gold"])
    if len(rows) != len(tasks):
        sys.exit(f"pick-run: {len(tasks)} lookups registered, {len(rows)} scored")
    lines = [
        f"# Pick benchmark, split {a.split}, model {a.model}",
        "",
        f"{n} lookups ({reachable} with the human recipe's package among the candidates); "
        f"wall {time.time() - started:.0f} s; "
        f"{sum(1 for r in rows if not r['candidates_same'])} with candidates other than the task file's; "
        f"{sum(1 for r in rows if not r['still_left_out'])} the draft of this binary no longer leaves out.",
        "",
        "| arm | right pick | wrong pick | `none`, right | `none`, missed |",
        "| --- | --- | --- | --- | --- |",
    ]
    for arm in ("rules", "top", "model"):
        c = {k: sum(1 for r in rows if r[arm] == k) for k in ("right", "wrong", "none_right", "missed")}
        lines.append(f"| {arm} | {c['right']} | {c['wrong']} | {c['none_right']} | {c['missed']} |")
    asked = [r for r in rows if r["answer"]]
    model_only = sum(1 for r in rows if r["model"] == "right" and r["top"] != "right")
    lines += [
        "",
        f"Model calls: {len(asked)}; refused by the check: {sum(1 for r in rows if r['refused'])}; "
        f"tokens in {sum(r['prompt_tokens'] for r in rows)}, out {sum(r['completion_tokens'] for r in rows)}; "
        f"model seconds {sum(r['seconds'] for r in rows):.0f}.",
        f"Right picks the model made that the rules alone do not: {sum(1 for r in rows if r['model'] == 'right')} "
        f"(against today's rules), {model_only} (against the top-candidate rule).",
    ]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
