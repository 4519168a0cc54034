#!/usr/bin/env python3
"""The three levels of issue 45 from committed bench journals: of the pairs
that installed, how many are smoke-tested (a stand-alone test that `spack
test run` passed) and review-clean (no review item open), and which review
items are open how often. Reads only the journals' `levels` and
`review_open` records.

    bench/levels-summary.py bench-results/e4s-draft-stop45-final [more runs]
"""
import argparse
import collections
import os

from journal import pair_records


def summarize(run):
    pairs = pair_records(run, "levels-summary")
    installed = [p for p in pairs if (p.get("levels") or {}).get("installed")]
    smoke = [p for p in installed if p["levels"].get("smoke_tested")]
    clean = [p for p in installed if p["levels"].get("review_clean")]
    not_smoke = sorted(p["task"] for p in installed if p not in smoke)
    open_items = collections.Counter(i for p in installed for i in p.get("review_open") or [])
    return len(pairs), installed, smoke, clean, not_smoke, open_items


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    print("| run | pairs | installed | smoke-tested | review-clean | installed, not smoke-tested | review items open (installed pairs) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for run in args.runs:
        n, installed, smoke, clean, not_smoke, open_items = summarize(run)
        items = ", ".join(f"{k} {v}" for k, v in open_items.most_common())
        print(
            f"| `{os.path.basename(run.rstrip('/'))}` | {n} | {len(installed)} | {len(smoke)} of {len(installed)} "
            f"| {len(clean)} of {len(installed)} | {', '.join(not_smoke) or '–'} | {items or '–'} |"
        )


if __name__ == "__main__":
    main()
