#!/usr/bin/env python3
"""Writes the new-to-Spack dev set (issue 20) as task lines from the user's own
checkouts: packages of the 2026 spack-packages repository that Spack 0.23's
builtin repository does not have, named on the command line.

    bench/new-to-spack-tasks.py --spack-packages ~/src/spack-packages \
        --spack-023 ~/src/spack --names bench/new-to-spack-names.txt > bench/new-to-spack.jsonl
    bench/new-to-spack-tasks.py ... --list     # every candidate, one line each

Only data read from the recipes goes into a task line (names, URLs, versions,
base classes, dependency and variant names), in the format of
../shared/bench/spack-e4s-dev.jsonl. `installable_here` is an estimate: every
dependency the recipe declares without a condition, or behind one default-on
variant, is a Debian library or tool
that `packsmith setup spack` declares as an external (or a language virtual).
"""
import argparse
import json
import os
import re
import sys

# Languages, build tools and libraries `packsmith setup spack` finds on Debian
# (crates/packsmith-spack/src/setup/externals.rs), and virtuals they provide.
EXTERNAL = set("""
c cxx fortran cmake gmake gnumake autoconf automake libtool m4 pkgconf pkgconfig
perl python git openssl openmpi mpich mpi hwloc bison flex ninja meson curl tar
gawk diffutils findutils sed xz bzip2 zstd texinfo nasm zlib zlib-api lz4 fmt gsl
openblas blas lapack fftw fftw-api hdf5 netcdf-c elfutils elf googletest
py-pybind11 eigen libxml2 sqlite ncurses readline libtiff libjpeg-turbo jpeg
libpng libffi expat yaml-cpp nlohmann-json boost gcc-runtime
""".split())
BUILD_SYSTEMS = ("CMakePackage", "AutotoolsPackage", "MakefilePackage", "MesonPackage")
LANGUAGE_PREFIXES = ("py-", "r-", "perl-", "go-", "rust-", "julia-", "lua-", "octave-")
BRANCHES = {"master", "main", "develop", "dev", "stable", "trunk"}


def recipe_facts(text):
    bases = re.search(r"^class \w+\(([^)]*)\)", text, re.M)
    bases = [b.strip() for b in bases.group(1).split(",")] if bases else []
    urls = re.findall(r'^\s*(url|git|homepage)\s*=\s*"([^"]+)"', text, re.M)
    field = {k: v for k, v in reversed(urls)}
    versions = re.findall(r'^\s*version\(\s*"([^"]+)"', text, re.M)
    released = [v for v in versions if v not in BRANCHES]
    on_by_default = set(re.findall(r'variant\(\s*"([\w.-]+)"[^)]*default\s*=\s*True', text))
    deps = []
    needed = set()
    for m in re.finditer(r'depends_on\(\s*"([\w.-]+)[^"]*"([^)]*)\)', text):
        if m.group(1) not in deps:
            deps.append(m.group(1))
        when = re.search(r'when\s*=\s*"\+([\w.-]+)"', m.group(2))
        if '"test"' in m.group(2):
            continue
        # Needed: no condition, or one default-on variant (when="+x").
        if "when" not in m.group(2) or (when and when.group(1) in on_by_default):
            needed.add(m.group(1))
    variants = []
    for v in re.findall(r'variant\(\s*"([\w.-]+)"', text):
        if v not in variants:
            variants.append(v)
    return {
        "build_systems": [b for b in bases if b.endswith("Package")],
        "git": field.get("git"),
        "url": field.get("url"),
        "homepage": field.get("homepage"),
        "version": (released or versions or [""])[0],
        "depends_on": deps,
        "variants": variants,
        "installable_here": all(d in EXTERNAL for d in needed),
    }


def github_repo(task):
    for u in (task["git"], task["url"], task["homepage"]):
        m = re.search(r"github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?(?:/|$)", u or "")
        if m:
            return f"{m.group(1)}/{m.group(2)}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spack-packages", required=True, help="a spack-packages checkout (2026)")
    ap.add_argument("--spack-023", required=True, help="a Spack 0.23 checkout")
    ap.add_argument("--names", help="file of package names, one a line (# comments)")
    ap.add_argument("--list", action="store_true", help="list every candidate instead")
    a = ap.parse_args()
    new = os.path.join(a.spack_packages, "repos/spack_repo/builtin/packages")
    old = os.path.join(a.spack_023, "var/spack/repos/builtin/packages")
    for d in (new, old):
        if not os.path.isdir(d):
            sys.exit(f"new-to-spack-tasks: no package directory at {d} (hint: check the checkout path)")
    known = set(os.listdir(old))
    wanted = None
    if a.names:
        with open(a.names) as f:
            wanted = [l.split("#")[0].strip() for l in f]
            wanted = [w for w in wanted if w]
    tasks = {}
    for spack_dir in sorted(os.listdir(new)):
        # Python module names cannot start with a digit: _3proxy is 3proxy.
        name = spack_dir.lstrip("_").replace("_", "-")
        path = os.path.join(new, spack_dir, "package.py")
        if name in known or name.startswith(LANGUAGE_PREFIXES) or not os.path.isfile(path):
            continue
        with open(path) as f:
            facts = recipe_facts(f.read())
        if not any(b in BUILD_SYSTEMS for b in facts["build_systems"]):
            continue
        task = {"name": name, "spack_dir": spack_dir, **facts,
                "in_spack_0_23": False, "in_spack_packages": True}
        tasks[name] = task
    if a.list or wanted is None:
        for t in tasks.values():
            print(t["name"], ",".join(t["build_systems"]), github_repo(t) or "-", t["version"],
                  "installable" if t["installable_here"] else "-")
        return
    missing = [w for w in wanted if w not in tasks]
    if missing:
        sys.exit(f"new-to-spack-tasks: not new CMake/Autotools/Makefile/Meson packages: {', '.join(missing)}")
    for w in sorted(wanted):
        print(json.dumps(tasks[w], sort_keys=True))


if __name__ == "__main__":
    main()
