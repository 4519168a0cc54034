#!/usr/bin/env python3
"""The explain benchmark's task file (issue 46, item 2: the model explains a failure from a
reduced log), made and split before any model reads a log.

One task per distinct failed stage: the logs Spack wrote for it (the stage log and, for an
install, `spack-build-out.txt`) and the rules' label for it (`packsmith diagnose --json`, no
model), in SpackIt's label set. A failure the rules leave `unknown` has no label: the model's
answer is reported for it, not scored. Two sources:

- `captured`: the logs of real Spack 0.23 failures committed under
  crates/packsmith-spack/tests/spack-logs/ (root: the repository);
- `runs`: failed attempts of packsmith run directories on this machine (root: a directory of
  bench runs, e.g. the new-to-Spack and replay runs); one task per package, stage and class,
  so a failure three bench arms share counts once.

Each task is split `dev` or `test` by a seeded hash of its id; paths are relative to the root.

    bench/explain-tasks.py --packsmith target/release/packsmith --repo . \
        --runs RUNS_ROOT --seed 46 --out bench/explain.jsonl
"""
import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys


def rules_label(packsmith, stage, log, build_log):
    cmd = [packsmith, "diagnose", log] + ([build_log] if build_log else []) + ["--stage", stage, "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"explain-tasks: `{' '.join(cmd)}` failed: {out.stderr.strip()}")
    d = json.loads(out.stdout)
    return d["rules"]["class"], d["rules"]["label"]


def split_of(task_id, seed):
    digest = hashlib.sha256(f"{seed}:{task_id}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "test"


def captured(repo):
    logs = os.path.join(repo, "crates/packsmith-spack/tests/spack-logs")
    for path in sorted(glob.glob(os.path.join(logs, "*.log"))):
        name = os.path.basename(path)
        base, stage, _ = name.rsplit(".", 2)
        if stage == "build":
            continue  # read beside its install log
        build = os.path.join(logs, f"{base}.build.log")
        yield f"captured/{base}", stage, path, build if os.path.isfile(build) else None


def runs(root):
    for diag in sorted(glob.glob(os.path.join(root, "**", "attempts", "*", "diagnosis.json"), recursive=True)):
        with open(diag) as f:
            failure = (json.load(f).get("record") or {}).get("failure") or {}
        stage = failure.get("stage")
        if stage not in ("load", "audit", "concretize", "install"):
            continue
        attempt_dir = os.path.dirname(diag)
        log = os.path.join(attempt_dir, "logs", f"{stage}.log")
        if not os.path.isfile(log):
            continue
        build = os.path.join(attempt_dir, "logs", "spack-build-out.txt")
        run_dir = os.path.dirname(os.path.dirname(attempt_dir))
        package = os.path.basename(run_dir)
        yield f"runs/{package}/{stage}/{failure.get('class')}", stage, log, build if stage == "install" and os.path.isfile(build) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packsmith", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--seed", type=int, default=46)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rows, seen = [], set()
    for source, root, items in (("captured", a.repo, captured(a.repo)), ("runs", a.runs, runs(a.runs))):
        for task_id, stage, log, build in items:
            if task_id in seen:
                continue
            seen.add(task_id)
            cls, label = rules_label(a.packsmith, stage, log, build)
            rows.append(
                {
                    "id": task_id,
                    "source": source,
                    "split": split_of(task_id, a.seed),
                    "stage": stage,
                    "log": os.path.relpath(log, root),
                    "build_log": os.path.relpath(build, root) if build else None,
                    "rules_class": cls,
                    "label": None if cls == "unknown" else label,
                }
            )
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    os.replace(tmp, a.out)
    for split in ("dev", "test"):
        part = [r for r in rows if r["split"] == split]
        print(f"explain-tasks: {split}: {len(part)} failures, {sum(1 for r in part if r['label'])} labelled by the rules", file=sys.stderr)


if __name__ == "__main__":
    main()
