#!/usr/bin/env python3
"""Which installs of a bench run built another project than the Spack package names: a
`py-` task (a Python package in Spack's naming) whose final recipe is no PythonPackage,
such as the C++ library and program of a repository whose Python module is the package
(fastText's CMake build under py-fasttext-numpy2). Such an install is not counted as the
package installed (issue 44: "installed" must be the package asked for).

    bench/wrong-project.py RUN_DIR > bench-results/NAME-wrong-project.jsonl

Reads RUN_DIR/journal.jsonl and each succeeded pair's final recipe under its run
directory (the run's own output, never committed). Prints one JSON line per succeeded
`py-` pair: task, config, the recipe's base classes, and `wrong` (no Python base).
"""
import glob
import json
import os
import re
import sys

from journal import last_pairs


def base_classes(recipe):
    with open(recipe) as f:
        m = re.search(r"^class \w+\((.*?)\):", f.read(), re.M | re.S)
    return [b.strip() for b in m.group(1).split(",") if b.strip()] if m else []


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/wrong-project.py RUN_DIR (a bench run directory with journal.jsonl)")
    run = sys.argv[1]
    if not os.path.isfile(os.path.join(run, "journal.jsonl")):
        sys.exit(f"{run}: no journal.jsonl here; pass a `packsmith bench run --out` directory")
    for (task, config), row in sorted(last_pairs(run, "wrong-project").items()):
        if row.get("outcome") != "succeeded" or not task.startswith("py-"):
            continue
        recipes = sorted(glob.glob(os.path.join(run, row["run_dir"], "*", "package.py")))
        if not recipes:
            sys.exit(f"{run}: no final recipe for {task} under {row['run_dir']}")
        bases = base_classes(recipes[0])
        wrong = not any(b.startswith("Python") for b in bases)
        print(json.dumps({"task": task, "config": config, "bases": bases, "wrong": wrong},
                         sort_keys=True))


if __name__ == "__main__":
    main()
