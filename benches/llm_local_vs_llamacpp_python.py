#!/usr/bin/env python3
"""Embedded llama.cpp provider (crate llama-cpp-2) side by side with
llama-cpp-python, in one run: same GGUF, same templated prompt (the Rust side
writes it, the Python side reads it, so both evaluate the same tokens), same
thread count, same max tokens, greedy; KV cache cleared before every
repetition. Each engine runs in its own child process, one after the other
(never both at once), and reports llama.cpp's own perf counters, wall time
and peak resident memory (VmHWM). Then the 5-attempt repair conversation,
with and without prefix reuse (Rust side only).

llama-cpp-python is not part of this repository: install it in a venv outside
the repo (it builds llama.cpp from source, several minutes):
    python3 -m venv $HOME/llmcpp-env && $HOME/llmcpp-env/bin/pip install llama-cpp-python

usage: llm_local_vs_llamacpp_python.py --model MODEL.gguf \
           --python $HOME/llmcpp-env/bin/python [--threads 2] [--max-tokens 64] \
           [--reps 3] [--attempts 5] [--json-out results.json]
Prints a Markdown report on stdout.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PY_DRIVER = r"""
import json, sys, time
import llama_cpp
model, prompt_file, threads, max_tokens, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
prompt = open(prompt_file, encoding="utf-8").read()
t0 = time.perf_counter()
llm = llama_cpp.Llama(model_path=model, n_ctx=4096, n_batch=512, n_ubatch=512,
                      n_threads=threads, n_threads_batch=threads, verbose=False)
load_ms = (time.perf_counter() - t0) * 1000
n_prompt = len(llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))
runs, text = [], ""
for _ in range(reps):
    llm.reset()
    llm._ctx.kv_cache_clear() if hasattr(llm._ctx, "kv_cache_clear") else None
    llama_cpp.llama_perf_context_reset(llm._ctx.ctx)
    t = time.perf_counter()
    out = llm.create_completion(prompt, max_tokens=max_tokens, temperature=0.0, top_k=1,
                                repeat_penalty=1.0, seed=0)
    wall = (time.perf_counter() - t) * 1000
    p = llama_cpp.llama_perf_context(llm._ctx.ctx)
    text = out["choices"][0]["text"]
    runs.append({"wall_ms": wall, "llama_prompt_ms": p.t_p_eval_ms, "llama_prompt_tokens": p.n_p_eval,
                 "llama_eval_ms": p.t_eval_ms, "llama_eval_tokens": p.n_eval,
                 "completion_tokens": out["usage"]["completion_tokens"]})
status = open("/proc/self/status").read().splitlines()
kib = lambda f: int(next(l for l in status if l.startswith(f)).split()[1])
print(json.dumps({"engine": "llama-cpp-python " + llama_cpp.__version__, "prompt_tokens": n_prompt,
                  "runs": runs, "text": text, "load_ms": load_ms,
                  "vm_hwm_kib": kib("VmHWM:"), "vm_rss_kib": kib("VmRSS:")}))
"""


def run_json(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"failed: {' '.join(cmd)}")
    line = [l for l in proc.stdout.splitlines() if l.startswith("{")][-1]
    return json.loads(line)


def uptime():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def build_rust():
    """Build the Rust side (release profile, where `cargo build --release
    --features local` already compiled llama.cpp) and return its path."""
    proc = subprocess.run(["cargo", "build", "--release", "-p", "packsmith-llm", "--features", "local",
                           "--bench", "llm_local_vs_llamacpp_python", "--message-format=json"],
                          cwd=REPO, capture_output=True, text=True, check=True)
    for line in proc.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "llm_local_vs_llamacpp_python":
            return msg["executable"]
    raise SystemExit("cargo built no llm_local_vs_llamacpp_python executable")


def rust(exe, args, mode, *extra):
    cmd = [exe, mode, args.model, "--threads", str(args.threads), "--max-tokens", str(args.max_tokens), *extra]
    return run_json(cmd, cwd=REPO)


def tps(tokens, ms):
    return tokens * 1000.0 / ms if ms > 0 else 0.0


def med(xs):
    return statistics.median(xs) if xs else 0.0


def summarize(result):
    runs = result["runs"]
    return {
        "best_prompt_tps": max(tps(r["llama_prompt_tokens"], r["llama_prompt_ms"]) for r in runs),
        "best_gen_tps": max(tps(r["llama_eval_tokens"], r["llama_eval_ms"]) for r in runs),
        "prompt_tokens": med([r["llama_prompt_tokens"] for r in runs]),
        "prompt_tps": med([tps(r["llama_prompt_tokens"], r["llama_prompt_ms"]) for r in runs]),
        "gen_tokens": med([r["llama_eval_tokens"] for r in runs]),
        "gen_tps": med([tps(r["llama_eval_tokens"], r["llama_eval_ms"]) for r in runs]),
        "wall_ms": med([r.get("wall_ms", r.get("prompt_ms", 0) + r.get("generation_ms", 0)) for r in runs]),
        "hwm_mib": result["vm_hwm_kib"] / 1024,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--python", required=True, help="a Python with llama-cpp-python installed")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--attempts", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternate the two engines this many times (each runs --reps per round)")
    ap.add_argument("--skip-repair", action="store_true")
    ap.add_argument("--json-out")
    args = ap.parse_args()
    args.model = os.path.abspath(args.model)

    # Build first, so compilation does not overlap a measurement.
    exe = build_rust()

    loads = {"start": uptime()}
    ours, theirs = None, None
    with tempfile.TemporaryDirectory() as tmp:
        prompt_file = os.path.join(tmp, "prompt.txt")
        for round_ in range(1, args.rounds + 1):
            o = rust(exe, args, "speed", "--reps", str(args.reps), "--prompt-out", prompt_file)
            loads[f"round {round_}, after packsmith"] = uptime()
            t = run_json([args.python, "-c", PY_DRIVER, args.model, prompt_file,
                          str(args.threads), str(args.max_tokens), str(args.reps)])
            loads[f"round {round_}, after llama-cpp-python"] = uptime()
            if ours is None:
                ours, theirs = o, t
            else:
                ours["runs"] += o["runs"]
                theirs["runs"] += t["runs"]
                for side, new in [(ours, o), (theirs, t)]:
                    side["vm_hwm_kib"] = max(side["vm_hwm_kib"], new["vm_hwm_kib"])
    repair = None
    if not args.skip_repair:
        repair = rust(exe, args, "repair", "--attempts", str(args.attempts))
        loads["after repair"] = uptime()

    a, b = summarize(ours), summarize(theirs)
    print(f"Model: `{os.path.basename(args.model)}`; threads: {args.threads}; max tokens: {args.max_tokens}; "
          f"greedy; {args.rounds} round(s) x {args.reps} repetitions per engine, engines alternating; "
          f"median (best); KV cache cleared before each.\n")
    print(f"Load average (1/5/15 min): " + "; ".join(f"{k}: {v}" for k, v in loads.items()) + "\n")
    print("| engine | prompt tokens | prompt tok/s | generated tokens | generation tok/s | wall per call | peak RSS |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, s in [(ours["engine"], a), (theirs["engine"], b)]:
        print(f"| {name} | {s['prompt_tokens']:.0f} | {s['prompt_tps']:.1f} ({s['best_prompt_tps']:.1f}) | "
              f"{s['gen_tokens']:.0f} | {s['gen_tps']:.1f} ({s['best_gen_tps']:.1f}) | "
              f"{s['wall_ms'] / 1000:.2f} s | {s['hwm_mib']:.0f} MiB |")
    print(f"| ratio (packsmith / llama-cpp-python) | | {a['prompt_tps'] / b['prompt_tps']:.2f} "
          f"({a['best_prompt_tps'] / b['best_prompt_tps']:.2f}) | | {a['gen_tps'] / b['gen_tps']:.2f} "
          f"({a['best_gen_tps'] / b['best_gen_tps']:.2f}) | {a['wall_ms'] / b['wall_ms']:.2f} | "
          f"{a['hwm_mib'] / b['hwm_mib']:.2f} |")
    print()
    print(f"Same output text: {ours['text'].strip() == theirs['text'].strip()}\n")

    if repair is not None:
        r = repair["results"]
        print(f"Repair conversation, {args.attempts} attempts (packsmith):\n")
        print("| mode | total time | prompt tokens evaluated | prompt tokens reused | generated tokens |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for mode in ["reuse", "no_reuse"]:
            calls = r[mode]["calls"]
            print(f"| {mode.replace('_', ' ')} | {r[mode]['total_ms'] / 1000:.1f} s | "
                  f"{sum(c['evaluated_prompt_tokens'] for c in calls)} | {sum(c['cached_tokens'] for c in calls)} | "
                  f"{sum(c['completion_tokens'] for c in calls)} |")
        saved = r["no_reuse"]["total_ms"] - r["reuse"]["total_ms"]
        print(f"\nTime saved by prefix reuse: {saved / 1000:.1f} s ({saved / r['no_reuse']['total_ms'] * 100:.0f} %).")

    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"packsmith": ours, "llama_cpp_python": theirs, "repair": repair, "load": loads}, f, indent=1)


if __name__ == "__main__":
    main()
