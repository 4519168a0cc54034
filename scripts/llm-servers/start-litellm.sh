#!/usr/bin/env bash
# Starts LiteLLM's proxy on loopback in front of the llama-cpp-python server
# (start-llama-server.sh first). The proxy serves Anthropic's /v1/messages
# format, which exercises packsmith's Anthropic provider against a real
# implementation. Prints the proxy's pid; logs go to $LOG.
set -euo pipefail

LITELLM_ENV=${LITELLM_ENV:-/work/litellm-env}
PORT=${LITELLM_PORT:-8766}
LLAMA_PORT=${LLAMA_PORT:-8765}
LOG=${LOG:-/tmp/packsmith-litellm.log}
CONFIG=${CONFIG:-/tmp/packsmith-litellm.yaml}
# A throwaway key so that the x-api-key header path is exercised.
MASTER_KEY=${LITELLM_MASTER_KEY:-sk-packsmith-loopback-test}

cat >"$CONFIG" <<YAML
model_list:
  - model_name: smollm2
    litellm_params:
      model: openai/smollm2
      api_base: http://127.0.0.1:$LLAMA_PORT/v1
      api_key: none
general_settings:
  master_key: $MASTER_KEY
litellm_settings:
  telemetry: false
YAML

# Use the price map bundled in the package: never fetch one.
export LITELLM_LOCAL_MODEL_COST_MAP=True
export LITELLM_TELEMETRY=False
nohup "$LITELLM_ENV/bin/litellm" --config "$CONFIG" --host 127.0.0.1 --port "$PORT" \
    >"$LOG" 2>&1 &
pid=$!

for _ in $(seq 120); do
    if curl -fs -H "Authorization: Bearer $MASTER_KEY" "http://127.0.0.1:$PORT/health/liveliness" >/dev/null 2>&1; then
        echo "$pid"
        exit 0
    fi
    kill -0 "$pid" 2>/dev/null || { cat "$LOG" >&2; exit 1; }
    sleep 1
done
echo "LiteLLM did not come up; see $LOG" >&2
kill "$pid"
exit 1
