"""Facts read from a Spack recipe with Python's own parser, for the task scripts.

A recipe is read, never run: `ast` walks the class body, so a `depends_on`
inside `with when("+x"):` carries that condition, and `version()`,
`variant()` and `depends_on()` are read from their arguments. Only names,
versions, URLs and conditions leave this module; no recipe text does.
"""
import ast
import re

BRANCHES = {"master", "main", "develop", "dev", "stable", "trunk", "latest", "head"}
# The implicit build dependencies Spack 0.23's base classes add (the installs run there).
IMPLICIT = {
    "CMakePackage": ["cmake", "gmake"],
    "AutotoolsPackage": ["gmake"],
    "MakefilePackage": ["gmake"],
    "MesonPackage": ["meson", "ninja", "python"],
    "PythonPackage": ["python", "py-pip", "py-wheel"],
}
FORGES = (
    ("github", r"github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?(?:/|$|#)"),
    ("gitlab", r"gitlab\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?(?:/|$|#)"),
    ("codeberg", r"codeberg\.org/([\w.-]+)/([\w.-]+?)(?:\.git)?(?:/|$|#)"),
    ("bitbucket", r"bitbucket\.org/([\w.-]+)/([\w.-]+?)(?:\.git)?(?:/|$|#)"),
)


def version_key(v):
    """Orders versions as Spack does for plain dotted ones: numbers numerically."""
    parts = re.split(r"[.\-_]", v)
    return [(0, int(p), "") if p.isdigit() else (-1, 0, p) for p in parts]


def _literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None


def _when_of(call):
    for kw in call.keywords:
        if kw.arg == "when":
            w = _literal(kw.value)
            return w if isinstance(w, str) else "<computed>"
    return None


def _calls(body, conditions):
    """Yields (call, enclosing when-conditions) for directive calls in a class body."""
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            yield stmt.value, conditions
        elif isinstance(stmt, ast.With):
            extra = []
            for item in stmt.items:
                ctx = item.context_expr
                if isinstance(ctx, ast.Call) and getattr(ctx.func, "id", None) == "when" and ctx.args:
                    w = _literal(ctx.args[0])
                    extra.append(w if isinstance(w, str) else "<computed>")
                else:
                    extra.append("<computed>")
            yield from _calls(stmt.body, conditions + extra)
        elif isinstance(stmt, (ast.For, ast.If, ast.While, ast.Try)):
            # A directive in a loop or branch depends on data: count it as conditional.
            yield from _calls(getattr(stmt, "body", []), conditions + ["<computed>"])


def _name(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)


def parse_recipe(text):
    """The recipe's class facts, or None when the file has no package class."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef)), None)
    if cls is None:
        return None
    bases = [getattr(b, "id", None) or getattr(b, "attr", "") for b in cls.bases]
    fields = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = getattr(stmt.targets[0], "id", None)
            if target in ("url", "git", "homepage", "pypi", "list_url"):
                value = _literal(stmt.value)
                if isinstance(value, str):
                    fields[target] = value
    versions, variants, deps = [], {}, []
    for call, conds in _calls(cls.body, []):
        name = _name(call)
        arg0 = _literal(call.args[0]) if call.args else None
        if not isinstance(arg0, str):
            continue
        kw = {k.arg: _literal(k.value) for k in call.keywords if k.arg}
        when = _when_of(call)
        all_conds = conds + ([when] if when else [])
        if name == "version":
            versions.append({"version": arg0, "deprecated": bool(kw.get("deprecated")),
                             "preferred": bool(kw.get("preferred")), "conditions": all_conds,
                             "fields": {k: kw[k] for k in ("sha256", "commit", "tag", "url")
                                        if isinstance(kw.get(k), str)}})
        elif name == "variant" and arg0 not in variants:
            variants[arg0] = {"default": kw.get("default", False), "conditions": all_conds}
        elif name == "depends_on":
            types = kw.get("type") or ("build", "link")
            types = [types] if isinstance(types, str) else list(types or [])
            deps.append({"spec": arg0, "name": re.match(r"[\w.-]*", arg0).group(0),
                         "types": types, "conditions": all_conds})
    return {"bases": bases, "fields": fields, "versions": versions,
            "variants": variants, "depends_on": deps}


def default_version(versions):
    """Spack's default: a preferred version, else the highest released, non-deprecated one."""
    released = [v for v in versions if v["version"].lower() not in BRANCHES
                and not v["version"].startswith(("develop", "main", "master"))]
    live = [v for v in released if not v["deprecated"]] or released
    preferred = [v for v in live if v["preferred"]]
    if preferred:
        return preferred[0]["version"]
    if not live:
        return versions[0]["version"] if versions else ""
    return max((v["version"] for v in live), key=version_key)


def _version_in(version, constraint):
    """Whether `version` satisfies one Spack range list such as `1.2:`, `:3.0`, `2.1`, `1:2,4:`."""
    key = version_key(version)

    def within(lo, hi):
        lo_ok = not lo or key >= version_key(lo)
        # `:3.0` includes 3.0.x, as in Spack.
        hi_ok = not hi or key <= version_key(hi) or key[: len(version_key(hi))] == version_key(hi)
        return lo_ok and hi_ok

    for part in constraint.split(","):
        part = part.strip()
        if ":" in part:
            lo, hi = part.split(":", 1)
            if within(lo.strip(), hi.strip()):
                return True
        elif part and (key == version_key(part) or key[: len(version_key(part))] == version_key(part)):
            return True
    return False


def condition_holds(cond, version, variants):
    """Whether a `when=` condition holds for the default spec: the default version,
    every variant at its default, on Linux x86_64 with GCC. None when it cannot be
    told from the recipe alone (then the dependency counts as needed)."""
    if cond == "<computed>":
        return None
    rest = cond
    for m in re.finditer(r"@([\w.:,\-]+)", cond):
        if not _version_in(version, m.group(1)):
            return False
    rest = re.sub(r"@[\w.:,\-]+", " ", rest)
    for m in re.finditer(r"([+~])([\w.-]+)", rest):
        v = variants.get(m.group(2))
        if v is None:
            return None
        on = v["default"] is True or v["default"] == "True"
        if (m.group(1) == "+") != on:
            return False
    rest = re.sub(r"[+~][\w.-]+", " ", rest)
    for m in re.finditer(r"([\w-]+)\s*=\s*([\w.,:\-]+)", rest):
        key, value = m.group(1), m.group(2)
        if key in ("platform", "os", "target", "arch"):
            if key == "platform" and value not in ("linux",):
                return False
            if key == "target" and not any(t in value for t in ("x86_64", "x86")):
                return False
            continue
        v = variants.get(key)
        if v is None:
            return None
        if str(v["default"]) not in value.split(","):
            return False
    rest = re.sub(r"[\w-]+\s*=\s*[\w.,:\-]+", " ", rest)
    m = re.search(r"%(\w+)", rest)
    if m:
        return m.group(1) == "gcc"
    rest = re.sub(r"%[\w@.:\-]+", " ", rest)
    if rest.strip():
        # A dependency condition (`^mpich`) or anything else not read here.
        return None
    return True


def needed_dependencies(recipe, version):
    """Dependencies the default spec of `version` needs to build and run (test-only left out):
    names for which every condition holds, or cannot be told (counted as needed)."""
    needed = []
    implicit = [d for b in recipe["bases"] for d in IMPLICIT.get(b, [])]
    for d in implicit:
        if d not in needed:
            needed.append(d)
    for dep in recipe["depends_on"]:
        if dep["types"] == ["test"]:
            continue
        if all(condition_holds(c, version, recipe["variants"]) is not False for c in dep["conditions"]):
            if dep["name"] not in needed:
                needed.append(dep["name"])
    return needed


def forge_of(fields):
    """The public forge and OWNER/REPO the source comes from, or (None, None)."""
    for key in ("git", "url", "homepage", "list_url"):
        for forge, pattern in FORGES:
            m = re.search(pattern, fields.get(key) or "")
            if m:
                return forge, f"{m.group(1)}/{m.group(2)}"
    return None, None
