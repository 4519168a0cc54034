#!/usr/bin/env python3
"""Per-recipe time of `packsmith check` against `spack audit packages`, on
the same recipes, in one run.

Spack is not part of this repository: pass the `spack` executable of an
offline Spack 0.23 set up as docs/offline-spack.md describes (its
environment variables must be set in the calling shell).

usage: check_vs_spack_audit.py --packsmith target/release/packsmith \
           --spack spack --packages-dir $SPACK_ROOT/var/spack/repos/builtin/packages \
           --kb NAME_OR_PATH --sample 20 --seed 7
Prints a Markdown table.
"""

import argparse
import os
import random
import subprocess
import sys
import time


def timed(cmd, **kw):
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return time.perf_counter() - start, proc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--packsmith", required=True)
    ap.add_argument("--spack", default="spack")
    ap.add_argument("--packages-dir", required=True)
    ap.add_argument("--kb", required=True)
    ap.add_argument("--spack-version", default="0.23")
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    names = sorted(
        d for d in os.listdir(args.packages_dir)
        if os.path.isfile(os.path.join(args.packages_dir, d, "package.py"))
    )
    sample = sorted(random.Random(args.seed).sample(names, args.sample))
    files = [os.path.join(args.packages_dir, n, "package.py") for n in sample]

    # packsmith: one process per recipe (what a user or the agent runs), and
    # one process for the whole sample.
    per_file = []
    errors = 0
    for f in files:
        secs, proc = timed([args.packsmith, "check", "--kb", args.kb,
                            "--spack-version", args.spack_version, f])
        per_file.append(secs)
        errors += proc.returncode not in (0,)
    batch_secs, _ = timed([args.packsmith, "check", "--kb", args.kb,
                           "--spack-version", args.spack_version] + files)

    # spack audit: one call per recipe, and one call for the whole sample.
    audit_each = []
    for n in sample[: min(5, len(sample))]:
        secs, _ = timed([args.spack, "audit", "packages", n])
        audit_each.append(secs)
    audit_batch, proc = timed([args.spack, "audit", "packages"] + sample)

    n = len(files)
    ps_each = sum(per_file) / n
    sp_each = sum(audit_each) / len(audit_each)
    print(f"sample: {n} recipes (seed {args.seed}): {' '.join(sample)}\n")
    print("| | packsmith check | spack audit packages | ratio |")
    print("|---|---|---|---|")
    print(f"| one process per recipe (mean) | {ps_each * 1000:.1f} ms | {sp_each:.2f} s "
          f"(mean of {len(audit_each)}) | {sp_each / ps_each:.0f}× |")
    print(f"| whole sample in one process, per recipe | {batch_secs / n * 1000:.2f} ms | "
          f"{audit_batch / n:.3f} s | {audit_batch / batch_secs:.0f}× |")
    print(f"\npacksmith check exit codes non-zero on {errors} of {n} human recipes")
    print(f"spack audit exit code on the sample: {proc.returncode}")


if __name__ == "__main__":
    sys.exit(main())
