#!/usr/bin/env python3
"""Exports the source tree of each task of a Spack task file from local git
mirrors, at the tag of the task's version, for `packsmith bench run
--sources MAP --source-root OUT`.

    bench/export-sources.py --tasks bench/new-to-spack.jsonl \
        --mirrors DIR --out $NTS_SRC [--map bench/new-to-spack-sources.toml]

A mirror of github.com/OWNER/REPO is looked for at DIR/OWNER+REPO/repo or
DIR/OWNER+REPO (bare or not) — the layout of the search tool's `fetch`, or
your own `git clone --mirror`. Each tree is a plain export (no .git), like a
release tarball: submodules stay empty. A blob missing from a partial mirror is
skipped and listed in OUT/export.json. A task whose version has no tag is
exported at the mirror's HEAD and the map's [versions] says so.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def git(repo, *args, binary=False):
    out = subprocess.run(["git", "--git-dir", repo, *args], capture_output=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.decode(errors="replace").strip())
    return out.stdout if binary else out.stdout.decode()


def github_repo(task):
    for u in (task.get("git"), task.get("url"), task.get("homepage")):
        m = re.search(r"github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?(?:/|$)", u or "")
        if m:
            return m.group(1), m.group(2)
    return None


def find_mirror(root, owner, repo):
    for cand in (f"{owner}+{repo}/repo", f"{owner}+{repo}", f"{owner}/{repo}.git", f"{owner}/{repo}"):
        path = os.path.join(root, cand)
        if os.path.isdir(path):
            dot_git = os.path.join(path, ".git")
            return dot_git if os.path.isdir(dot_git) else path
    return None


def resolve_tag(repo, name, version):
    tags = git(repo, "tag", "--list").split()
    under = version.replace(".", "_")
    for cand in (version, f"v{version}", f"V{version}", f"{name}-{version}", f"release-{version}",
                 f"{name}-v{version}", f"v{under}", under, f"{name}_{under}"):
        if cand in tags:
            return cand
    ends = [t for t in tags if re.search(rf"(^|[^0-9.]){re.escape(version)}$", t)]
    if len(ends) == 1:
        return ends[0]
    # Same numbers, other separators: rel-3-08 is 3.8.
    numbers = [int(n) for n in re.findall(r"\d+", version)]
    same = [t for t in tags if [int(n) for n in re.findall(r"\d+", t)] == numbers]
    return same[0] if len(same) == 1 else None


def export(repo, ref, dest):
    """Writes the tree of `ref` to dest; returns the paths of missing blobs."""
    missing = []
    listing = git(repo, "ls-tree", "-r", "-z", "--full-tree", ref).split("\0")
    for entry in filter(None, listing):
        meta, path = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind != "blob":
            continue  # a submodule (commit): empty, as in a release tarball
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        try:
            data = git(repo, "cat-file", "blob", sha, binary=True)
        except RuntimeError:
            missing.append(path)
            continue
        if mode == "120000":
            os.symlink(data.decode(), target)
            continue
        with open(target, "wb") as f:
            f.write(data)
        if mode == "100755":
            os.chmod(target, 0o755)
    return missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--map", help="write the bench sources map (TOML) here")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    report, sources, versions, failed = {}, {}, {}, []
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    for task in tasks:
        name = task["name"]
        gh = github_repo(task)
        repo = find_mirror(a.mirrors, *gh) if gh else None
        if repo is None:
            failed.append(f"{name}: no mirror of {'/'.join(gh) if gh else 'a GitHub repository'} under {a.mirrors}")
            continue
        tag = resolve_tag(repo, name, task["version"])
        ref = tag or "HEAD"
        commit = git(repo, "rev-parse", f"{ref}^{{commit}}").strip()
        dest = os.path.join(a.out, name)
        tmp = tempfile.mkdtemp(prefix=f".{name}.", dir=a.out)
        try:
            missing = export(repo, commit, tmp)
        except Exception as e:  # leave no half-written tree behind
            shutil.rmtree(tmp)
            failed.append(f"{name}: {e}")
            continue
        shutil.rmtree(dest, ignore_errors=True)
        os.rename(tmp, dest)
        sources[name] = name
        if tag is None:
            versions[name] = git(repo, "log", "-1", "--format=%cs", commit).strip()
        report[name] = {"repo": "/".join(gh), "ref": ref, "commit": commit, "missing": missing}
        print(f"{name}: {ref} ({commit[:10]}){' missing ' + str(len(missing)) if missing else ''}")
    with open(os.path.join(a.out, "export.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    if a.map:
        lines = ["# Written by bench/export-sources.py: task -> tree under --source-root.", "[sources]"]
        lines += [f'"{k}" = "{v}"' for k, v in sorted(sources.items())]
        if versions:
            lines += ["", "# No tag for the task's version: the mirror's HEAD, by commit date.", "[versions]"]
            lines += [f'"{k}" = "{v}"' for k, v in sorted(versions.items())]
        with open(a.map + ".tmp", "w") as f:
            f.write("\n".join(lines) + "\n")
        os.rename(a.map + ".tmp", a.map)
    for line in failed:
        print(f"export-sources: {line}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
