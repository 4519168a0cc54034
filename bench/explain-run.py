#!/usr/bin/env python3
"""Runs the explain benchmark (bench/explain.jsonl, from bench/explain-tasks.py) on one split:
the model classifies each failure from the reduced log and from the whole log, and both are
scored against the rules' label (SpackIt's label set), with the tokens each read.

    bench/explain-run.py --packsmith target/release/packsmith --tasks bench/explain.jsonl \
        --split dev --model local:qwen2.5-coder-1.5b --repo . --runs RUNS_ROOT \
        --out bench-results/explain-dev

Writes explain.jsonl (one line per failure and view) and summary.md into --out.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def ask(a, task, root, whole):
    cmd = [a.packsmith, "diagnose", os.path.join(root, task["log"])]
    if task["build_log"]:
        cmd.append(os.path.join(root, task["build_log"]))
    cmd += ["--stage", task["stage"], "--model", a.model, "--json"] + (["--whole"] if whole else [])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        # A log the model cannot take (longer than its context) is an answer
        # of its own: recorded, counted as not right, and the run goes on.
        print(f"explain-run: {task['id']}: {out.stderr.strip()}", file=sys.stderr)
        return {"error": out.stderr.strip().splitlines()[0] if out.stderr.strip() else "failed",
                "reduced_bytes": 0, "bytes_in": 0}
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packsmith", required=True)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--split", required=True, choices=["dev", "test"])
    ap.add_argument("--model", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--views", default="reduced,whole")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    roots = {"captured": a.repo, "runs": a.runs}
    with open(a.tasks) as f:
        tasks = [json.loads(line) for line in f if line.strip()]
    tasks = [t for t in tasks if t["split"] == a.split]
    os.makedirs(a.out, exist_ok=True)
    views = a.views.split(",")
    rows = []
    started = time.time()
    for t in tasks:
        for view in views:
            d = ask(a, t, roots[t["source"]], view == "whole")
            m = d.get("model") or {}
            usage = m.get("usage") or {}
            rows.append(
                {
                    "id": t["id"],
                    "view": view,
                    "label": t["label"],
                    "rules_class": t["rules_class"],
                    "model_class": m.get("class"),
                    # The cause may quote a path of this machine: home as `~`.
                    "cause": (m.get("cause") or "").replace(os.path.expanduser("~") + "/", "~/") or None,
                    "refused": m.get("refused"),
                    "error": d.get("error"),
                    "right": None if t["label"] is None else m.get("class") == t["label"],
                    "bytes_read": d["reduced_bytes"] if view == "reduced" else d["bytes_in"],
                    "prompt_tokens": usage.get("prompt_tokens", 0),
                    "completion_tokens": usage.get("completion_tokens", 0),
                    "seconds": round(m.get("seconds", 0.0), 1),
                }
            )
            print(f"explain-run: {t['id']} {view}: {m.get('class')} (label {t['label']})", file=sys.stderr)
    with open(os.path.join(a.out, "explain.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    labelled = sum(1 for t in tasks if t["label"])
    lines = [
        f"# Explain benchmark, split {a.split}, model {a.model}",
        "",
        f"{len(tasks)} failures, {labelled} labelled by the rules; wall {time.time() - started:.0f} s.",
        "",
        "| log the model read | right class (of the labelled) | refused | mean bytes read | mean tokens in | mean seconds |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for view in views:
        part = [r for r in rows if r["view"] == view]
        n = max(len(part), 1)
        right = sum(1 for r in part if r["right"])
        lines.append(
            f"| {view} | {right} of {labelled} | {sum(1 for r in part if r['refused'])} "
            f"(+{sum(1 for r in part if r['error'])} not taken) | "
            f"{sum(r['bytes_read'] for r in part) / n:.0f} | {sum(r['prompt_tokens'] for r in part) / n:.0f} | "
            f"{sum(r['seconds'] for r in part) / n:.1f} |"
        )
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
