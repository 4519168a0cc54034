#!/usr/bin/env python3
"""Lays out both versions' sources of each replay task (bench/replay.jsonl) for
bench/replay-run.py, from local git mirrors and PyPI.

    bench/replay-sources.py --tasks bench/replay.jsonl --mirrors DIR --out $REPLAY_SRC

For a GitHub task, OUT/NAME/new is a clone of the mirror (sharing its objects)
checked out at the new version's tag, its `origin` the GitHub URL, as a
maintainer's checkout is (packsmith update reproduces GitHub's release archive
from it); OUT/NAME/old is a plain export of the old version's tag. A mirror
that lacks blobs of the tag gives a plain export for both, listed as such.
For a PyPI task, both versions' sdists are downloaded from PyPI into OUT/NAME/
(checked against PyPI's sha256) and passed as release archives.
OUT/sources.json says what each task got, or why it has no source.
"""
import argparse
import hashlib
import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("export_sources", os.path.join(HERE, "export-sources.py"))
export_sources = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export_sources)


def tag_of(mirror, task, version):
    repo_name = task["repo"].split("/")[1]
    for name in (task["name"], repo_name, repo_name.lower(), task["name"].replace("-", "_")):
        tag = export_sources.resolve_tag(mirror, name, version)
        if tag:
            return tag
    return None


def github(task, mirrors, dest):
    owner, repo = task["repo"].split("/", 1)
    mirror = export_sources.find_mirror(mirrors, owner, repo)
    if mirror is None:
        return {"error": f"no mirror of github.com/{task['repo']} under --mirrors"}
    tags = {side: tag_of(mirror, task, task[f"{side}_version"]) for side in ("old", "new")}
    missing = [side for side, tag in tags.items() if tag is None]
    if missing:
        return {"error": f"no tag for the {' and '.join(missing)} version in the mirror",
                "tags": tags}
    got = {"kind": "github", "tags": tags}
    new, old = os.path.join(dest, "new"), os.path.join(dest, "old")
    clone = subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", mirror, new],
                           capture_output=True, text=True)
    checkout = clone.returncode == 0 and subprocess.run(
        ["git", "-C", new, "checkout", "--quiet", "--detach", f"refs/tags/{tags['new']}"],
        capture_output=True, text=True).returncode == 0
    if checkout:
        subprocess.run(["git", "-C", new, "remote", "set-url", "origin",
                        f"https://github.com/{task['repo']}"], check=True)
        got["new"] = {"path": new, "how": "git checkout at the tag"}
    else:
        shutil.rmtree(new, ignore_errors=True)
        lost = export_sources.export(mirror, f"refs/tags/{tags['new']}", new)
        got["new"] = {"path": new, "how": "plain export (the mirror lacks blobs)", "missing": lost}
    lost = export_sources.export(mirror, f"refs/tags/{tags['old']}", old)
    got["old"] = {"path": old, "how": "plain export", "missing": lost}
    return got


def _normal(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def pypi_sdist(project, version, dest):
    """The sdist of `project` `version`, found in PyPI's simple index (its link carries
    the sha256) and downloaded once."""
    with urllib.request.urlopen(f"https://pypi.org/simple/{project}/", timeout=60) as r:
        index = r.read().decode()
    sdists = []
    for url, digest in re.findall(r'href="([^"#]+)#sha256=([0-9a-f]{64})"', index):
        filename = html.unescape(url.rsplit("/", 1)[-1])
        stem = re.sub(r"\.(tar\.gz|tar\.bz2|tar\.xz|zip|tgz)$", "", filename)
        if stem != filename and _normal(stem) == _normal(f"{project}-{version}"):
            sdists.append((filename, html.unescape(url), digest))
    if not sdists:
        raise RuntimeError(f"PyPI has no sdist of {project} {version}")
    filename, url, digest = sdists[0]
    path = os.path.join(dest, filename)
    if not os.path.isfile(path):
        with urllib.request.urlopen(url, timeout=300) as r:
            data = r.read()
        if hashlib.sha256(data).hexdigest() != digest:
            raise RuntimeError(f"{filename}: sha256 differs from PyPI's")
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)
    return {"path": path, "how": "PyPI sdist", "sha256": digest}


def pypi(task, dest):
    os.makedirs(dest, exist_ok=True)
    got = {"kind": "pypi"}
    for side in ("old", "new"):
        try:
            got[side] = pypi_sdist(task["repo"], task[f"{side}_version"], dest)
        except Exception as e:  # noqa: BLE001 - any failure is this task's, reported
            return {"error": f"{side} version: {e}"}
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--mirrors", required=True, help="OWNER+REPO/repo git mirrors, as `fetch` lays them out")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated task names")
    a = ap.parse_args()
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    only = set(filter(None, a.only.split(",")))
    os.makedirs(a.out, exist_ok=True)
    index_path = os.path.join(a.out, "sources.json")
    index = json.load(open(index_path)) if os.path.isfile(index_path) else {}
    for t in tasks:
        if only and t["name"] not in only:
            continue
        dest = os.path.join(a.out, t["name"])
        if os.path.isdir(dest) and t["source"] == "github":
            shutil.rmtree(dest)
        got = pypi(t, dest) if t["source"] == "pypi" else github(t, a.mirrors, dest)
        index[t["name"]] = got
        print(t["name"], got.get("error") or "ok", file=sys.stderr)
        with open(index_path + ".tmp", "w") as f:
            json.dump(index, f, indent=1, sort_keys=True)
        os.replace(index_path + ".tmp", index_path)


if __name__ == "__main__":
    main()
