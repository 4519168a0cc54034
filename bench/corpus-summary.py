#!/usr/bin/env python3
"""The corpus figures (issue 44) from committed journals, with the denominators fixed
in the task file: per split, how many tasks, how many are installable here, and how
many each run installed hermetically, at the first attempt (the draft as written) and
at the end (rule repairs included).

    bench/corpus-summary.py --tasks bench/corpus.jsonl \
        bench-results/corpus-dev-draft bench-results/corpus-dev-human ...

A task without a pair in a journal counts as not installed: a denominator never
shrinks to the pairs that ran. With --same-failure (bench/same-failure.py's output), one
more column counts the installable tasks less those whose human recipe failed the same
way as the draft (the one way a task leaves a denominator), beside the registered one. With
--wrong-project (bench/wrong-project.py's output), an install of another project than the
package asked for counts as not installed. Prints one Markdown table and the per-task outcomes
as JSON lines after it (--json FILE writes them instead).
"""
import argparse
import json
import os

from journal import last_pairs


def read_journal(run_dir):
    return last_pairs(run_dir, "corpus-summary")


def installed(row, first_attempt):
    if row is None or row.get("outcome") != "succeeded":
        return False
    return not first_attempt or row.get("success_attempt") == 1


def installed_not_hermetic(row):
    """Installed, then flagged by the hermeticity check: on a human recipe, a false
    positive of the check unless the finding is real."""
    if row is None:
        return False
    passed = row.get("stages_passed") or []
    return "install" in passed and "hermeticity" not in passed and row.get("outcome") != "succeeded"


def count_level(rows, name):
    """How many installed runs reported level `name` (installed, smoke_tested,
    review_clean); "—" when no pair reported levels (journals before the gate)."""
    reported = [r for r in rows if r is not None and r.get("levels") is not None]
    if not reported:
        return "—"
    return str(sum(1 for r in reported
                   if r.get("outcome") == "succeeded" and r["levels"].get(name)))


def pct(n, d):
    return f"{n} / {d} ({100 * n / d:.1f}%)" if d else f"{n} / 0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--json", help="write the per-task outcomes here")
    ap.add_argument("--same-failure", action="append", default=[],
                    help="bench/same-failure.py output (repeatable): tasks whose human recipe fails the same way")
    ap.add_argument("--wrong-project", action="append", default=[],
                    help="bench/wrong-project.py output (repeatable): installs of another project "
                         "than the package, counted as not installed")
    ap.add_argument("runs", nargs="+", help="bench run directories (journal.jsonl inside)")
    a = ap.parse_args()
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    split_of = {t["name"]: t.get("split") for t in tasks}
    same = set()
    for path in a.same_failure:
        with open(path) as f:
            same |= {r["task"] for r in map(json.loads, filter(str.strip, f)) if r["same"]}
    wrong = set()
    for path in a.wrong_project:
        with open(path) as f:
            wrong |= {(r["task"], r["config"]) for r in map(json.loads, filter(str.strip, f))
                      if r["wrong"]}
    rows, per_task = [], []
    for run in a.runs:
        pairs = read_journal(run)
        configs = sorted({c for _, c in pairs})
        splits = sorted({split_of.get(task) for task, _ in pairs} - {None})
        for config in configs:
            for split in splits:
                chosen = [t for t in tasks if t.get("split") == split]
                ok = [t for t in chosen if t["installable_here"]]
                got = {t["name"]: pairs.get((t["name"], config)) for t in chosen}
                for name, r in got.items():
                    if r is not None and (name, config) in wrong:
                        got[name] = dict(r, outcome="wrong project",
                                         reason="installed another project than the package")
                ran = sum(1 for r in got.values() if r is not None)
                first = sum(installed(got[t["name"]], True) for t in ok)
                end = sum(installed(got[t["name"]], False) for t in ok)
                kept = [t for t in ok if t["name"] not in same]
                end_kept = sum(installed(got[t["name"]], False) for t in kept)
                end_all = sum(installed(r, False) for r in got.values())
                flagged = sum(installed_not_hermetic(r) for r in got.values())
                ok_ran = sum(1 for t in ok if got[t["name"]] is not None)
                ok_rows = [got[t["name"]] for t in ok]
                smoke = count_level(ok_rows, "smoke_tested")
                clean = count_level(ok_rows, "review_clean")
                rows.append((os.path.basename(run.rstrip("/")), config, split, len(chosen), ran,
                             len(ok), ok_ran, first, end, end_all, flagged, smoke, clean,
                             pct(end_kept, len(kept)) if a.same_failure else "—"))
                for t in chosen:
                    r = got[t["name"]]
                    per_task.append({"run": os.path.basename(run.rstrip("/")), "config": config,
                                     "split": split, "task": t["name"],
                                     "installable_here": t["installable_here"],
                                     "outcome": r["outcome"] if r else "no pair",
                                     "stages_passed": r.get("stages_passed") if r else [],
                                     "success_attempt": r.get("success_attempt") if r else None,
                                     "reason": r.get("reason") if r else None,
                                     "levels": r.get("levels") if r else None,
                                     "review_open": r.get("review_open", []) if r else []})
    print("| run | configuration | split | tasks | pairs run | installable here | of them run | installed hermetically at attempt 1 (of installable) | at the end (of installable) | at the end (of all tasks) | installed, not hermetic | smoke-tested (of installable) | review-clean (of installable) | at the end (of installable, less those the human recipe fails the same way) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for run, config, split, n, ran, n_ok, ok_ran, first, end, end_all, flagged, smoke, clean, kept in rows:
        print(f"| {run} | {config} | {split} | {n} | {ran} | {n_ok} | {ok_ran} | {pct(first, n_ok)} | {pct(end, n_ok)} | {pct(end_all, n)} | {flagged} | {smoke} | {clean} | {kept} |")
    lines = "\n".join(json.dumps(p, sort_keys=True) for p in per_task)
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            f.write(lines + "\n")
        os.replace(a.json + ".tmp", a.json)
    else:
        print()
        print(lines)


if __name__ == "__main__":
    main()
