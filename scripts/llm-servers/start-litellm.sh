#!/usr/bin/env bash
# Starts LiteLLM's proxy on loopback in front of the llama-cpp-python server
# (start-llama-server.sh first). The proxy serves Anthropic's /v1/messages
# format, which exercises packsmith's Anthropic provider against a real
# implementation. Prints the proxy's pid; logs go to $LOG.
set -euo pipefail

LITELLM_ENV=${LITELLM_ENV:-$HOME/.cache/packsmith/litellm-env}
PORT=${LITELLM_PORT:-8766}
LLAMA_PORT=${LLAMA_PORT:-8765}
LOG=${LOG:-${TMPDIR:-/tmp}/packsmith-litellm.log}
CONFIG=${CONFIG:-${TMPDIR:-/tmp}/packsmith-litellm.yaml}
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
  # Translate /v1/messages to chat/completions (llama-cpp-python has no
  # Responses API, which this LiteLLM uses for openai/ models by default).
  use_chat_completions_url_for_anthropic_messages: true
router_settings:
  # Let errors through as they are: no retries or cooldowns in the proxy.
  num_retries: 0
  disable_cooldowns: true
YAML

# Use the price map bundled in the package: never fetch one.
export LITELLM_LOCAL_MODEL_COST_MAP=True
export LITELLM_TELEMETRY=False
export LITELLM_USE_CHAT_COMPLETIONS_URL_FOR_ANTHROPIC_MESSAGES=True
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
