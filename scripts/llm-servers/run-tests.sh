#!/usr/bin/env bash
# The third-party server tier of packsmith-llm: starts both servers on
# loopback, runs the tests that talk to them, stops the servers.
#   scripts/llm-servers/install.sh      # once (about 10 minutes)
#   scripts/llm-servers/run-tests.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

llama=$("$here/start-llama-server.sh")
trap 'kill $llama ${litellm:-} 2>/dev/null || true' EXIT
litellm=$("$here/start-litellm.sh")

export PACKSMITH_TEST_LLAMA_URL=http://127.0.0.1:${LLAMA_PORT:-8765}/v1
export PACKSMITH_TEST_LITELLM_URL=http://127.0.0.1:${LITELLM_PORT:-8766}/v1
export PACKSMITH_TEST_LITELLM_KEY=${LITELLM_MASTER_KEY:-sk-packsmith-loopback-test}
cargo test -p packsmith-llm --test all thirdparty -- --test-threads 1 --nocapture
