#!/usr/bin/env python3
"""Lists the install prefixes of a Spack store that a maintainer's recipe
made, unedited, for measuring the hermeticity check's false positives on
human-recipe installs:

    packsmith hermeticity $(bench/human-prefixes.py --store $SPACK_STORE)

A prefix counts when its recipe (the copy Spack keeps in `.spack/repos/`)
is not a packsmith draft, when it was the first attempt of a packsmith run
(namespace `packsmith_<name>_a01`: the recipe as given, before any rule or
model edit) or came from any other repository, and when the install is
complete (its build log is in `.spack/`; a build stopped by a time limit
leaves a prefix without one). Spack's own helper packages built without a
source (`gcc-runtime`, `python-venv`) are left out. One prefix per package,
the newest. With `--list` the package, version and namespace are printed
beside each prefix instead.
"""
import argparse
import glob
import json
import os
import re
import sys

# Built by Spack without a source: nothing of a maintainer's build to check.
NO_SOURCE = {"gcc-runtime", "python-venv"}
DRAFT_MARK = "Drafted by packsmith"


def root_node(prefix):
    with open(os.path.join(prefix, ".spack", "spec.json")) as f:
        nodes = json.load(f)["spec"]["nodes"]
    return nodes[0]


def recipe_text(prefix, node):
    name, ns = node["name"], node.get("namespace", "")
    own = os.path.join(prefix, ".spack", "repos", ns, "packages", name, "package.py")
    found = [own] if os.path.exists(own) else glob.glob(
        os.path.join(prefix, ".spack", "repos", "*", "packages", name, "package.py")
    )
    if not found:
        return None
    with open(found[0], errors="replace") as f:
        return f.read()


def unedited(namespace):
    """The first attempt of a packsmith run, or another repository's recipe."""
    if namespace.startswith("packsmith_"):
        return re.search(r"_a01$", namespace) is not None
    return True


def human_prefixes(store):
    newest = {}
    for prefix in sorted(glob.glob(os.path.join(store, "*", "*"))):
        try:
            node = root_node(prefix)
        except (OSError, ValueError, KeyError, IndexError):
            continue
        name = node["name"]
        if name in NO_SOURCE or not unedited(node.get("namespace", "")):
            continue
        text = recipe_text(prefix, node)
        if text is None or DRAFT_MARK in text[:400]:
            continue
        if not os.path.exists(os.path.join(prefix, ".spack", "spack-build-out.txt.gz")):
            continue  # incomplete: the build never finished
        when = os.path.getmtime(os.path.join(prefix, ".spack", "spec.json"))
        if name not in newest or when > newest[name][0]:
            newest[name] = (when, prefix, node)
    return [newest[n][1:] for n in sorted(newest)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True, help="Spack's install tree (config:install_tree:root)")
    ap.add_argument("--list", action="store_true", help="name, version and namespace too")
    args = ap.parse_args()
    if not os.path.isdir(args.store):
        sys.exit(f"human-prefixes.py: {args.store} is no directory; pass Spack's install tree")
    for prefix, node in human_prefixes(args.store):
        if args.list:
            print(node["name"], node["version"], node.get("namespace", ""), prefix)
        else:
            print(prefix)


if __name__ == "__main__":
    main()
