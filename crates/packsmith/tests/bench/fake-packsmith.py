#!/usr/bin/env python3
# A stand-in for `packsmith spack|nix|repair` in the bench tests: it writes a
# RunReport as the real commands do (`repair`: a Spack one, with the stages
# up to --until), with behaviour chosen by --name (the package):
#   ok-N   succeeds at attempt N          bad    fails every attempt
#   crash  exits 3 without a report      hang   sleeps until killed
#   leaky  installs at every attempt and fails the hermeticity check
# FAKE_SLEEP (seconds) slows every run; FAKE_LOG gets one line per start;
# FAKE_PIDS: a grandchild runs meanwhile, and the pids are logged there.
import json, os, sys, time

argv = sys.argv[1:]
eco, src = argv[0], argv[1]
def opt(flag, default=None):
    return argv[argv.index(flag) + 1] if flag in argv else default
out = opt("--out")
name = opt("--name", os.path.basename(src.rstrip("/")))
log = os.environ.get("FAKE_LOG")
if log:
    with open(log, "a") as f:
        f.write("start %s %s\n" % (os.path.basename(os.path.dirname(out)), os.path.basename(out)))
os.makedirs(out, exist_ok=True)
if name.startswith("hang"):
    # A grandchild in a process group of its own, as packsmith's tools are.
    import subprocess
    g = subprocess.Popen(["sleep", "600"], start_new_session=True)
    open(os.path.join(out, "grandchild.pid"), "w").write(str(g.pid))
    time.sleep(600)
with open(os.path.join(out, "args.json"), "w") as f:
    json.dump({"argv": argv, "cache": os.environ.get("PACKSMITH_LLM_CACHE"),
               "cache_dir": os.environ.get("PACKSMITH_LLM_CACHE_DIR")}, f)
sleep = float(os.environ.get("FAKE_SLEEP", "0"))
pids = os.environ.get("FAKE_PIDS")
if pids:
    # A grandchild in a session of its own (as Spack's or Nix's processes
    # are) that outlives the run unless the run ends it: FAKE_PIDS gets
    # "pid pgid grandchild-pid".
    import subprocess
    g = subprocess.Popen(["sleep", "30"], start_new_session=True)
    with open(pids, "a") as f:
        f.write("%d %d %d\n" % (os.getpid(), os.getpgid(0), g.pid))
    time.sleep(sleep)
    g.kill()
    g.wait()
else:
    time.sleep(sleep)
if name.startswith("crash"):
    sys.stderr.write("fake: crashed\n")
    sys.exit(3)

if eco == "repair":
    if not os.path.isabs(src) or not os.path.isfile(src):
        sys.stderr.write("fake: repair needs the broken recipe's absolute path, got %s\n" % src)
        sys.exit(2)
    until = opt("--until", "concretize")
    stages = ["load", "concretize", "install"]
    stages = stages[:stages.index(until) + 1]
elif eco == "spack":
    stages = ["load", "audit", "concretize", "install", "hermeticity"]
else:
    stages = ["evaluate", "build", "runtime_check"]
k = int(opt("--max-attempts", opt("--max-iterations", "3")))
win = int(name.split("-")[1]) if name.startswith("ok-") else None
run = os.path.join(out, name)
os.makedirs(os.path.join(run, "attempts"), exist_ok=True)
recipe = ("from spack.package import *\n\nclass Pkg(CMakePackage):\n"
          "    depends_on(\"zlib\")\n    depends_on(\"mpi\")\n\n"
          "    def cmake_args(self):\n        return [self.define(\"PKG_TESTS\", False)]\n")
recipe_file = "package.py"
if eco == "nix":
    recipe_file = "package.nix"
    recipe = ("{ lib, stdenv, fetchFromGitHub, cmake, zlib, mpi }:\n"
              "stdenv.mkDerivation (finalAttrs: {\n  pname = \"pkg\";\n  version = \"1.0\";\n"
              "  src = fetchFromGitHub { owner = \"o\"; repo = \"pkg\"; tag = finalAttrs.version; hash = \"\"; };\n"
              "  nativeBuildInputs = [ cmake ];\n  buildInputs = [ zlib mpi ];\n"
              "  meta.description = \"A package\";\n})\n")
attempts = []
for i in range(1, k + 1):
    passed = win is not None and i >= win
    reached = len(stages) if passed else min(i, len(stages) - 1)
    if name.startswith("leaky"):
        reached = len(stages) - 1
    rel = "attempts/%02d/%s" % (i, recipe_file)
    os.makedirs(os.path.join(run, os.path.dirname(rel)), exist_ok=True)
    open(os.path.join(run, rel), "w").write(recipe)
    a = {"attempt": i, "kind": "draft" if i == 1 else "repair", "recipe_path": rel,
         "static_repairs": 0,
         "stages": [{"name": s, "passed": j < reached, "duration_ms": 5} for j, s in enumerate(stages[:reached + 1])],
         "passed": passed, "stage_reached": stages[min(reached, len(stages) - 1)],
         "model_calls": 0 if i == 1 else 1, "tool_calls": 0,
         "usage": {"prompt_tokens": 0 if i == 1 else 1000, "completion_tokens": 0 if i == 1 else 200},
         "cost_usd": 0.0 if i == 1 else 0.01, "duration_ms": 10}
    if not passed:
        leak = name.startswith("leaky")
        a["failure"] = {"stage": a["stage_reached"],
                        "class": "undeclared_dependency" if leak else "compilation",
                        "excerpt": "Found ZLIB: /usr/lib/libz.so" if leak else "error"}
    attempts.append(a)
    if passed:
        break
ok = attempts[-1]["passed"]
if ok:
    open(os.path.join(run, recipe_file), "w").write(recipe)
else:
    open(os.path.join(run, "best-attempt." + recipe_file), "w").write(recipe)
calls = sum(a["model_calls"] for a in attempts)
report = {"schema": 1, "name": name, "ecosystem": "spack" if eco == "repair" else eco, "model": opt("--model", "scripted"),
          "status": "succeeded" if ok else "attempts_exhausted",
          "reason": "a recipe passed" if ok else "attempt limit reached",
          "stages": stages, "attempts": attempts,
          "model_calls": calls, "tool_calls": 0,
          "usage": {"prompt_tokens": 1000 * calls, "completion_tokens": 200 * calls},
          "cost_usd": 0.01 * calls, "duration_ms": 10 * len(attempts)}
if ok:
    report["final_recipe"] = recipe_file
else:
    report["best_recipe"] = "best-attempt." + recipe_file
report["best_attempt"] = len(attempts)
tmp = os.path.join(run, "report.json.tmp")
json.dump(report, open(tmp, "w"))
os.rename(tmp, os.path.join(run, "report.json"))
sys.exit(0 if ok else 1)
