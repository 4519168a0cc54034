# Run with `spack python scripts/concretize-dev-set.py NAME...` (packsmith's env.sh sourced):
# concretizes each package's human recipe on its own and prints one JSON line per name saying
# what Spack would build besides the package itself (gcc-runtime, copied from the compiler,
# does not count). Used by BENCHMARKS.md's "human recipes concretize" figures.
import json
import sys
import time

import spack.spec

for name in sys.argv[1:]:
    start = time.time()
    row = {"name": name}
    try:
        concrete = spack.spec.Spec(name).concretized()
        row["to_build"] = sorted(
            s.name
            for s in concrete.traverse()
            if s.name not in (name, "gcc-runtime") and not s.external and not s.installed
        )
        row["ok"] = not row["to_build"]
    except Exception as e:  # an unconcretizable recipe is a result too
        row["error"] = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        row["ok"] = False
    row["secs"] = round(time.time() - start, 1)
    print(json.dumps(row), flush=True)
