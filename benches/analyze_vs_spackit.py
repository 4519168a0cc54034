#!/usr/bin/env python3
"""Time and peak memory of `packsmith analyze` side by side with SpackIt's
CMake extractor, on the same trees, in one run.

SpackIt is not part of this repository: pass the path of a checkout of its
replication package (github.com/spack/spack-it) and a Python that has its
two dependencies (`pip install cmake-parser pyyaml`). Nothing of it is
copied here; this script only imports `extraction.cmake.parse_repo` from
that checkout in a child process.

usage: analyze_vs_spackit.py --packsmith target/release/packsmith \
           --spackit /path/to/spack-it --python /path/to/venv/bin/python \
           --runs 5 TREE [TREE ...]
Prints a Markdown table (median wall time, peak RSS, per-round ratio).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SPACKIT_DRIVER = """
import logging, sys
logging.disable(logging.CRITICAL)
sys.path.insert(0, sys.argv[1])
from extraction.cmake import parse_repo, find_cmake_files
files = list(find_cmake_files(sys.argv[2]))
out = str(parse_repo(sys.argv[2]))
print(len(files), len(out))
"""


def timed(cmd):
    """Runs cmd under GNU time; returns (seconds, peak KiB, returncode, stdout)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        start = time.perf_counter()
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%e %M", "-o", t.name] + cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        secs = time.perf_counter() - start
        kib = int(t.read().split()[-1])
    return secs, kib, proc.returncode, proc.stdout, proc.stderr


def measure_pair(cmd_a, cmd_b, runs):
    """Runs A and B in turn, A B A B ..., after one warm-up of each, so both
    see the same machine; returns each side's runs and the per-round ratios
    B/A (how many times longer B took than A in the same round)."""
    timed(cmd_a)
    timed(cmd_b)
    a_runs, b_runs = [], []
    for _ in range(runs):
        a_runs.append(timed(cmd_a))
        b_runs.append(timed(cmd_b))
    ratios = [b[0] / a[0] for a, b in zip(a_runs, b_runs)]
    return a_runs, b_runs, ratios


def summary(results):
    """Median seconds, peak KiB over the runs, and the last run's outcome."""
    secs = statistics.median(r[0] for r in results)
    kib = max(r[1] for r in results)
    last = results[-1]
    return secs, kib, last[2], last[3], last[4]


def count_cmake_files(tree):
    n = 0
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        n += sum(1 for f in filenames if f == "CMakeLists.txt" or f.endswith(".cmake"))
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--packsmith", required=True)
    ap.add_argument("--spackit", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("trees", nargs="+")
    args = ap.parse_args()

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as drv:
        drv.write(SPACKIT_DRIVER)
    print(
        f"rounds: {args.runs} (A B A B ..., one warm-up each); times are medians, "
        "peak RSS the largest of the rounds, speed-up the median of the per-round "
        "ratios with their min and max"
    )
    print("| tree | CMake files in tree | packsmith: files read | packsmith time | packsmith peak RSS "
          "| SpackIt: files read | SpackIt time | SpackIt peak RSS | speed-up (min–max) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for tree in args.trees:
        name = os.path.basename(os.path.normpath(tree))
        a_runs, b_runs, ratios = measure_pair(
            [args.packsmith, "analyze", "--json", tree],
            [args.python, drv.name, args.spackit, tree],
            args.runs,
        )
        p_secs, p_kib, p_rc, p_out, p_err = summary(a_runs)
        if p_rc != 0:
            sys.exit(f"packsmith failed on {tree}: {p_err}")
        facts = json.loads(p_out)
        p_files = len((facts.get("cmake") or {}).get("files", []))
        s_secs, s_kib, s_rc, s_out, s_err = summary(b_runs)
        if s_rc == 0:
            s_files = s_out.split()[0]
            s_time = f"{s_secs:.2f} s"
            ratio = (
                f"{statistics.median(ratios):.0f}× "
                f"({min(ratios):.0f}–{max(ratios):.0f})"
            )
        else:
            last = (s_err.strip().splitlines() or ["?"])[-1]
            s_files, s_time, ratio = "—", f"crashed ({last[:60]})", "—"
        print(
            f"| {name} | {count_cmake_files(tree)} | {p_files} | {p_secs * 1000:.0f} ms | "
            f"{p_kib / 1024:.0f} MiB | {s_files} | {s_time} | {s_kib / 1024:.0f} MiB | {ratio} |",
            flush=True,
        )
    os.unlink(drv.name)


if __name__ == "__main__":
    main()
