#!/usr/bin/env python3
"""Exports the source tree of each task of a Spack or NixBench task file from
local git mirrors, at the tag of the task's version, for `packsmith bench run
--sources MAP --source-root OUT`.

    bench/export-sources.py --tasks bench/new-to-spack.jsonl \
        --mirrors DIR --out $NTS_SRC [--map bench/new-to-spack-sources.toml]
    bench/export-sources.py --tasks ../shared/bench/nixbench-dev.jsonl \
        --only NAME,NAME,... --mirrors DIR --out $NIX_SRC --map $NIX_SRC/sources.toml

A NixBench row names its tree by the attribute path; a row fetched from GitHub
is exported at the fetcher's commit when it pins one, else at the version's
tag; a row fetched from PyPI is the release's sdist, downloaded from PyPI.

A mirror of github.com/OWNER/REPO is looked for at DIR/OWNER+REPO/repo or
DIR/OWNER+REPO (bare or not) — the layout of the search tool's `fetch`, or
your own `git clone --mirror`. Each tree is a plain export (no .git), like a
release tarball: submodules stay empty. With --clones, a task whose tree has
submodules is a clone instead (origin the forge's URL, submodules checked out
from their mirrors at the pinned commits), as a user's recursive clone. A blob missing from a partial mirror is
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
    if task.get("forge") == "github" and task.get("repo"):
        return tuple(task["repo"].split("/", 1))
    args = task.get("fetcher_literal_args") or {}
    if task.get("fetcher_function") == "fetchFromGitHub" and args.get("owner") and args.get("repo"):
        return args["owner"], args["repo"]
    for u in (task.get("git"), task.get("url"), task.get("homepage")):
        m = re.search(r"github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?(?:/|$)", u or "")
        if m:
            return m.group(1), m.group(2)
    return None


def find_mirror(root, owner, repo):
    # GitHub names are case-insensitive: a recipe's `gnome/gspell` is `GNOME+gspell` here.
    entries = {e.lower(): e for e in os.listdir(root)} if os.path.isdir(root) else {}
    for cand in (f"{owner}+{repo}/repo", f"{owner}+{repo}", f"{owner}/{repo}.git", f"{owner}/{repo}"):
        head, _, tail = cand.partition("/")
        path = os.path.join(root, entries.get(head.lower(), head), tail)
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


def submodules_at(repo, commit):
    """The submodules of the tree at commit: (path, url, pinned commit)."""
    gitlinks = {}
    for entry in filter(None, git(repo, "ls-tree", "-r", "-z", "--full-tree", commit).split("\0")):
        meta, path = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "commit":
            gitlinks[path] = sha
    if not gitlinks:
        return []
    try:
        config = git(repo, "config", "--blob", f"{commit}:.gitmodules", "--list")
    except RuntimeError:
        return []
    paths, urls = {}, {}
    for line in config.splitlines():
        key, _, value = line.partition("=")
        m = re.fullmatch(r"submodule\.(.+)\.(path|url)", key)
        if m:
            (paths if m.group(2) == "path" else urls)[m.group(1)] = value
    return [(paths[k], urls.get(k, ""), gitlinks[paths[k]]) for k in sorted(paths) if paths[k] in gitlinks]


def forge_url(base, url):
    """A submodule URL as the forge resolves it (`../../o/r.git` against
    https://github.com/owner/repo)."""
    if url.startswith(("../", "./")):
        parts = base.rstrip("/").split("/")
        for comp in url.split("/"):
            if comp == "..":
                parts.pop()
            elif comp != ".":
                parts.append(comp)
        return "/".join(parts)
    return url


def clone(repo, commit, gh, mirrors, dest):
    """A clone of the mirror at commit, as a user's recursive clone of the
    forge: origin is the forge's URL, the mirror's tags are there, and each submodule
    with a mirror holding its pinned commit has that commit's files (an
    export: a partial mirror lacks blobs a checkout would insist on).
    Returns the submodules left empty and the blobs missing."""
    def run(*args, cwd=dest):
        out = subprocess.run(["git", *args],
                             cwd=cwd, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(out.stderr.strip())
    origin = f"https://github.com/{gh[0]}/{gh[1]}"
    run("clone", "-q", "--no-checkout", repo, dest, cwd=None)
    run("checkout", "-q", "--detach", commit)
    run("remote", "set-url", "origin", origin + ".git")
    left, missing = [], []
    for path, url, pin in submodules_at(repo, commit):
        sub = re.search(r"github\.com[/:]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", forge_url(origin, url))
        mirror = find_mirror(mirrors, sub.group(1), sub.group(2)) if sub else None
        try:
            if mirror is None:
                raise RuntimeError("no mirror")
            git(mirror, "cat-file", "-e", f"{pin}^{{commit}}")
        except RuntimeError:
            left.append(path)
            continue
        missing += [f"{path}/{m}" for m in export(mirror, pin, os.path.join(dest, path))]
    return left, missing


def task_name(task):
    return task.get("name") or task["package_name"]


def pinned_commit(task):
    """A NixBench fetcher that pins a commit (an unstable version) names it as rev."""
    rev = (task.get("fetcher_literal_args") or {}).get("rev") or ""
    return rev if re.fullmatch(r"[0-9a-f]{40}", rev) else None


def export_sdist(task, dest):
    """Unpacks the PyPI sdist of a fetchPypi row into dest."""
    import tarfile
    import urllib.request
    import zipfile
    args = task.get("fetcher_literal_args") or {}
    pname = args.get("pname") or ""
    if not re.fullmatch(r"[\w.-]+", pname):  # `inherit pname`: the package's own
        pname = task["pname"]
    # The simple index (PEP 691), which pip's mirrors serve too.
    project = re.sub(r"[-_.]+", "-", pname).lower()
    req = urllib.request.Request(f"https://pypi.org/simple/{project}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req) as r:
        files = json.load(r)["files"]
    stem = re.sub(r"[-_.]+", "_", f"{pname}").lower()
    sdist = next((f for f in files
                  if re.sub(r"[-_.]+", "_", f["filename"]).lower().startswith(f"{stem}_{task['version']}".replace(".", "_").replace("-", "_"))
                  and f["filename"].endswith((".tar.gz", ".zip"))), None)
    if sdist is None:
        raise RuntimeError(f"PyPI has no sdist of {pname} {task['version']}")
    archive = os.path.join(dest, "..", os.path.basename(dest) + "." + sdist["filename"])
    urllib.request.urlretrieve(sdist["url"], archive)
    unpacked = dest + ".unpack"
    os.makedirs(unpacked)
    try:
        if archive.endswith(".zip"):
            zipfile.ZipFile(archive).extractall(unpacked)
        else:
            tarfile.open(archive).extractall(unpacked, filter="data")
        # An sdist holds one top directory, <name>-<version>/: its contents are the tree.
        entries = os.listdir(unpacked)
        top = os.path.join(unpacked, entries[0]) if len(entries) == 1 else unpacked
        for entry in os.listdir(top):
            os.rename(os.path.join(top, entry), os.path.join(dest, entry))
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)
        os.remove(archive)
    return sdist["url"].split("#")[0]


def place(out, tree, fill):
    """Fills a temporary directory with fill(tmp) and renames it to
    out/tree: no half-written tree is ever left behind. Returns fill's value."""
    tmp = tempfile.mkdtemp(prefix=f".{tree}.", dir=out)
    try:
        value = fill(tmp)
    except Exception:
        shutil.rmtree(tmp)
        raise
    dest = os.path.join(out, tree)
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(tmp, dest)
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--map", help="write the bench sources map (TOML) here")
    ap.add_argument("--only", help="comma-separated task names: export these only")
    ap.add_argument("--clones", action="store_true",
                    help="a task whose tree has git submodules becomes a clone (origin the forge, "
                         "submodules checked out from their mirrors), as a user's recursive clone")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    report, sources, versions, failed = {}, {}, {}, []
    with open(a.tasks) as f:
        tasks = [json.loads(l) for l in f if l.strip()]
    if a.only:
        only = set(a.only.split(","))
        tasks = [t for t in tasks if task_name(t) in only]
    for task in tasks:
        name = task_name(task)
        tree = task.get("attr_path") or name
        if task.get("fetcher_function") == "fetchPypi":
            try:
                url = place(a.out, tree, lambda tmp: export_sdist(task, tmp))
            except Exception as e:
                failed.append(f"{name}: {e}")
                continue
            sources[name] = tree
            report[name] = {"sdist": url, "missing": []}
            print(f"{name}: sdist {url}")
            continue
        gh = github_repo(task)
        repo = find_mirror(a.mirrors, *gh) if gh else None
        if repo is None:
            failed.append(f"{name}: no mirror of {'/'.join(gh) if gh else 'a GitHub repository'} under {a.mirrors}")
            continue
        pinned = pinned_commit(task)
        tag = pinned or resolve_tag(repo, name, task["version"])
        ref = tag or "HEAD"
        commit = git(repo, "rev-parse", f"{ref}^{{commit}}").strip()
        as_clone = a.clones and bool(submodules_at(repo, commit))
        try:
            if as_clone:
                # place() made the directory; git clones into a fresh one.
                left, missing = place(a.out, tree, lambda tmp: (os.rmdir(tmp), clone(repo, commit, gh, a.mirrors, tmp))[1])
            else:
                missing = place(a.out, tree, lambda tmp: export(repo, commit, tmp))
        except Exception as e:
            failed.append(f"{name}: {e}")
            continue
        sources[name] = tree
        if tag is None:
            versions[name] = git(repo, "log", "-1", "--format=%cs", commit).strip()
        if as_clone:
            report[name] = {"repo": "/".join(gh), "ref": ref, "commit": commit, "clone": True,
                            "submodules_empty": left, "missing": missing}
            print(f"{name}: clone at {ref} ({commit[:10]}), submodules left empty: {left or 'none'}")
            continue
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
