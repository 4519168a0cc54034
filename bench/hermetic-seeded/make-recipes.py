#!/usr/bin/env python3
"""Writes the seeded hermeticity set's recipes and task file.

Each fixture under src/ takes one dependency from the host in one way (a
shared library, a static archive, a header-only package, a configure-time
probe). Every fixture gets two tasks: `<kind>-leak`, whose recipe does not
declare the dependency (the check must flag it: a miss is a false
negative), and `<kind>-declared`, whose recipe declares it (the check must
pass it: a finding is a false positive). The fixtures and recipes are
this project's own; nothing is fetched.

usage: bench/hermetic-seeded/make-recipes.py   (rewrites packages/ and
       bench/hermetic-seeded.jsonl beside it; run before the first run only)
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# kind -> (Spack build system, languages, the dependency the build takes)
FIXTURES = {
    "cmake-shared": ("CMakePackage", ["c"], "zlib-api"),
    "make-shared": ("MakefilePackage", ["c"], "zlib-api"),
    "autotools-shared": ("AutotoolsPackage", ["c"], "zlib-api"),
    "meson-shared": ("MesonPackage", ["c"], "zlib-api"),
    "cmake-static": ("CMakePackage", ["c"], "zlib-api"),
    "make-static": ("MakefilePackage", ["c"], "zlib-api"),
    "cmake-header-only": ("CMakePackage", ["cxx"], "eigen"),
    "make-header-only": ("MakefilePackage", ["cxx"], "eigen"),
    "autotools-probe": ("AutotoolsPackage", ["c"], "zlib-api"),
    "make-header-plain": ("MakefilePackage", ["c"], "zlib-api"),
}

AUTORECONF = ["autoconf", "automake", "libtool", "m4"]


def class_name(name):
    return "".join(p.capitalize() for p in name.split("-"))


def recipe(name, kind, build_system, langs, dep, declared):
    what = "declares" if declared else "does not declare"
    lines = [
        "from spack.package import *",
        "",
        "",
        f"class {class_name(name)}({build_system}):",
        f'    """Hermeticity check fixture ({kind}): the build takes {dep} and the recipe',
        f'    {what} it."""',
        "",
        '    homepage = "https://example.org/packsmith/hermetic-seeded"',
        f'    url = "https://example.org/packsmith/hermetic-seeded/{kind}-1.0.tar.gz"',
        "",
        '    license("Apache-2.0")',
        "",
        '    version("1.0", sha256="' + "0" * 64 + '")',
        "",
    ]
    # Spack 0.23 has no language virtuals (`depends_on("c")`); the 1.x idiom
    # would add them here.
    if build_system == "AutotoolsPackage":
        for tool in AUTORECONF:
            lines.append(f'    depends_on("{tool}", type="build")')
    if declared:
        lines.append(f'    depends_on("{dep}")')
    if build_system == "MakefilePackage":
        lines += [
            "",
            "    def install(self, spec, prefix):",
            '        make("install", f"PREFIX={prefix}")',
        ]
    return "\n".join(lines) + "\n"


def main():
    tasks = []
    for kind, (bs, langs, dep) in FIXTURES.items():
        for declared in (False, True):
            name = f"seed-{kind}-{'declared' if declared else 'leak'}"
            d = os.path.join(HERE, "packages", name)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "package.py"), "w") as f:
                f.write(recipe(name, kind, bs, langs, dep, declared))
            tasks.append(
                {
                    "name": name,
                    "spack_dir": name,
                    "version": "1.0",
                    "build_systems": [bs],
                    "primary_build_system": bs,
                    "depends_on": langs + ([dep] if declared else []),
                    "installable_here": True,
                }
            )
    with open(os.path.join(HERE, "repo.yaml"), "w") as f:
        f.write("repo:\n  namespace: hermetic_seeded\n")
    with open(os.path.join(HERE, "sources.toml"), "w") as f:
        f.write("# task -> fixture under --source-root bench/hermetic-seeded/src\n[sources]\n")
        for t in tasks:
            kind = t["name"][len("seed-"):].rsplit("-", 1)[0]
            f.write(f'"{t["name"]}" = "{kind}"\n')
    with open(os.path.join(HERE, "..", "hermetic-seeded.jsonl"), "w") as f:
        for t in tasks:
            f.write(json.dumps(t, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
