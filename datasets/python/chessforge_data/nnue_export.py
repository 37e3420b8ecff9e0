"""The engine's network file: quantization of the float model, the
engine's integer forward pass, the file format (written and read), a
checkpoint's export and a file's pawn table rewritten in place.

The contract is engine/nnue's: QA = 255, QB = 64, SCALE = 400. The
quantized forward pass (:func:`quantized_eval`) is the engine's integer
arithmetic, truncating divisions included.

The file (docs/nnue.md) is written in format version 4, whose hash covers
every byte but its own, the provenance included; versions 1 to 3, whose
hash covers the payload alone, are read too. In every version a network's
id is the first 16 hex digits of its payload's SHA-256.

Each network file (from format version 3) carries its pawn table: the
engine scales the network's score by the entry for the pawns of the side it
favours (0, 1, 2, 3, 4 or more; of 128). :func:`export` writes the table it
is given, else the table of the network the checkpoint was trained from
with ``--init``, else the table every network had before version 3
(:data:`LEGACY_PAWN_SCALE`); :func:`set_pawn_scale` rewrites a file's table
(``chessforge-nnue pawnscale --write`` and ``table --set``). The entry for
4 or more pawns is the table's level, the network's overall scale into the
search's units.
"""

import hashlib
import json
import os
import struct

import numpy as np
import torch

from . import atomic, pawnscale
from .nnue_model import BUCKETS, HIDDEN, INPUTS, SCALE, WIDTH_RULE, architecture, bucket, valid_hidden

ACTIVATION_SCRELU = 1
QA = 255
QB = 64
MAGIC = b"CFNN"
VERSION = 4  # the version written; 3 (its hash the payload's alone), 2 (no pawn table either) and 1 (no feature-set field either) are read too
HEADER = struct.Struct("<4s9I32sI")  # magic, version, 4 arch, feature set, 3 quant, hash, provenance length
HEADER_V1 = struct.Struct("<4s8I32sI")  # version 1: no feature set (always FEATURES_PLAIN)
HASH_AT = 40  # the hash's offset from version 2 on; from version 4 it is the SHA-256 of the file but these 32 bytes
FEATURES_PLAIN = 0  # the 768 features as they are
FEATURES_MIRRORED = 1  # each perspective's squares file-mirrored while its own king is on files e-h


PAWN_GROUPS = pawnscale.GROUPS  # pawn table entries: the side ahead has 0, 1, 2, 3, or 4 or more pawns
PAWN_SCALE_ONE = pawnscale.ONE  # the table's unit: an entry of 128 leaves a score as it is
PAWN_SCALE_MAX = pawnscale.MAX  # the largest entry, 256: it doubles a score
#: The pawn table of files before version 3, which carry none: the one the
#: engine gave every network until then (engine/nnue/pawnscale.go).
LEGACY_PAWN_SCALE = (58, 58, 91, 120, 128)


def payload_bytes(buckets, hidden=HIDDEN, version=VERSION):
    """The size of the payload of a network with this many output buckets
    and accumulators this wide in a file of this format version: the
    weights, then (from version 3) the pawn table."""
    return (INPUTS * hidden + hidden) * 2 + buckets * (2 * hidden * 2 + 4) + (2 * PAWN_GROUPS if version >= 3 else 0)


def check_pawn_scale(table):
    """The pawn table as a tuple of ints, or ValueError naming what is
    wrong: not PAWN_GROUPS entries, an entry below 1 or above
    PAWN_SCALE_MAX, or one below the entry for fewer pawns."""
    table = tuple(int(v) for v in table)
    if len(table) != PAWN_GROUPS:
        raise ValueError(f"pawn table {list(table)}: {len(table)} entries, want {PAWN_GROUPS}")
    for i, v in enumerate(table):
        if not 1 <= v <= PAWN_SCALE_MAX:
            raise ValueError(f"pawn table {list(table)}: entry {i} is {v}, want 1 to {PAWN_SCALE_MAX}")
        if i and v < table[i - 1]:
            raise ValueError(f"pawn table {list(table)}: entry {i} ({v}) is below entry {i - 1} ({table[i - 1]}), "
                             "want non-decreasing")
    return table


# Quantization and the integer forward pass.

def quantize(state):
    """The integer weights of a float model's state dict: W1 int16 [768,
    H], b1 int16 [H], W2 int16 [buckets, 2H], b2 int64 [buckets] (int32
    range), H the accumulators' width."""
    w1 = state["ft.weight"].detach().cpu().double().numpy()
    b1 = state["b1"].detach().cpu().double().numpy()
    w2 = state["out.weight"].detach().cpu().double().numpy()
    b2 = state["out.bias"].detach().cpu().double().numpy().reshape(-1)
    hidden = w1.shape[1]
    if w1.shape[0] != INPUTS or not valid_hidden(hidden) or b1.shape != (hidden,):
        raise ValueError(f"quantize: feature transformer {tuple(w1.shape)} with bias {tuple(b1.shape)}, want "
                         f"({INPUTS}, H) and (H,) with H {WIDTH_RULE}")
    if w2.shape[0] not in BUCKETS or w2.shape[1] != 2 * hidden or len(b2) != w2.shape[0]:
        raise ValueError(f"quantize: output weights {tuple(w2.shape)}, want (B, {2 * hidden}) with B in {BUCKETS}")
    q = {"w1": np.rint(w1 * QA), "b1": np.rint(b1 * QA), "w2": np.rint(w2 * QB)}
    for k, lim in (("w1", 32767), ("b1", 32767), ("w2", 32767)):
        if np.abs(q[k]).max(initial=0) > lim:
            raise ValueError(f"quantize: {k} out of int16 range (weights not clipped?)")
        q[k] = q[k].astype(np.int16)
    b2q = np.rint(b2 * QA * QB)
    if np.abs(b2q).max() >= 2**31:
        raise ValueError("quantize: b2 out of int32 range")
    q["b2"] = b2q.astype(np.int64)
    return q


def tdiv(a, b):
    """Integer division truncating toward zero (Go's ``/``), elementwise on
    int64 arrays; Python's ``//`` floors instead."""
    a = np.asarray(a, dtype=np.int64)
    q = np.abs(a) // b
    return np.where(a < 0, -q, q)


def quantized_eval(q, us, them):
    """The engine's evaluation (centipawns, side to move) of one position
    from its feature lists, in the contract's integer arithmetic."""
    w1 = q["w1"].astype(np.int64)
    b1 = q["b1"].astype(np.int64)
    b = bucket(len(us), len(q["b2"]))
    w2 = q["w2"][b].astype(np.int64)
    acc_us = b1 + w1[us].sum(axis=0)
    acc_them = b1 + w1[them].sum(axis=0)
    h = len(b1)
    s = int((np.clip(acc_us, 0, QA) ** 2 * w2[:h]).sum()) + \
        int((np.clip(acc_them, 0, QA) ** 2 * w2[h:]).sum())
    v = int(tdiv(s, QA)) + int(q["b2"][b])
    return int(tdiv(v * SCALE, QA * QB))


# The file format.

def file_hash(data):
    """The hash a version 4 file stores: the SHA-256 of all of data but the
    hash field."""
    return hashlib.sha256(data[:HASH_AT] + data[HASH_AT + 32:]).digest()


def write_net(path, q, provenance, mirror=False, pawn_scale=LEGACY_PAWN_SCALE):
    """Write the network file, version 4: header, provenance JSON, payload
    (the weights and the pawn table), the header's hash covering them all;
    ``mirror``: the king-mirrored feature set. Returns its id, the
    payload's hash."""
    buckets, hidden = len(q["b2"]), q["w1"].shape[1]
    payload = (q["w1"].astype("<i2").tobytes() + q["b1"].astype("<i2").tobytes()
               + q["w2"].astype("<i2").tobytes() + q["b2"].astype("<i4").tobytes()
               + np.array(check_pawn_scale(pawn_scale), dtype="<u2").tobytes())
    assert len(payload) == payload_bytes(buckets, hidden)
    prov = json.dumps(provenance, sort_keys=True).encode()
    header = HEADER.pack(MAGIC, VERSION, INPUTS, hidden, buckets, ACTIVATION_SCRELU,
                         FEATURES_MIRRORED if mirror else FEATURES_PLAIN, QA, QB, SCALE, bytes(32), len(prov))
    data = bytearray(header + prov + payload)
    data[HASH_AT:HASH_AT + 32] = file_hash(data)
    atomic.write(path, lambda f: f.write(data))
    return hashlib.sha256(payload).hexdigest()[:16]


def read_net(path):
    """Read and check a network file (version 1 to 4): (quantized weights
    with ``q["mirror"]`` the feature set and ``q["pawn_scale"]`` the pawn
    table, provenance dict, id: the payload's hash). Errors (ValueError)
    name the file and the problem: a damaged file is one whose hash does
    not match what it covers, or, in a version before 4, whose provenance
    is not a JSON object."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: truncated (expected at least {HEADER.size} bytes, got {len(data)})")
    magic, version = struct.unpack_from("<4sI", data)
    if magic != MAGIC:
        raise ValueError(f"{path}: wrong magic {magic!r}, want {MAGIC!r}")
    if not 1 <= version <= VERSION:
        raise ValueError(f"{path}: unsupported version {version}, want 1 to {VERSION}")
    header = HEADER if version >= 2 else HEADER_V1
    if len(data) < header.size:
        raise ValueError(f"{path}: truncated (expected at least {header.size} bytes, got {len(data)})")
    if version >= 2:
        _, _, n_in, hidden, n_out, act, features, qa, qb, scale, digest, plen = header.unpack_from(data)
    else:
        _, _, n_in, hidden, n_out, act, qa, qb, scale, digest, plen = header.unpack_from(data)
        features = FEATURES_PLAIN
    if (n_in, act, qa, qb, scale) != (INPUTS, ACTIVATION_SCRELU, QA, QB, SCALE) or not valid_hidden(hidden) \
            or n_out not in BUCKETS or features not in (FEATURES_PLAIN, FEATURES_MIRRORED):
        raise ValueError(f"{path}: other architecture {n_in}x2-{hidden}-{n_out} activation {act} "
                         f"feature set {features} QA {qa} QB {qb} SCALE {scale}")
    want = header.size + plen + payload_bytes(n_out, hidden, version)
    if len(data) < want:
        raise ValueError(f"{path}: truncated (expected {want} bytes, got {len(data)})")
    if len(data) > want:
        raise ValueError(f"{path}: trailing bytes (expected {want} bytes, got {len(data)})")
    payload = data[header.size + plen:]
    net_id = hashlib.sha256(payload).hexdigest()[:16]
    if version >= 4:
        if file_hash(data) != digest:
            raise ValueError(f"{path}: hash does not match its contents (damaged file)")
    elif hashlib.sha256(payload).digest() != digest:
        raise ValueError(f"{path}: hash does not match its payload (damaged file)")
    try:
        prov = json.loads(data[header.size:header.size + plen].decode())
    except ValueError as err:  # UnicodeDecodeError and json.JSONDecodeError alike
        raise ValueError(f"{path}: provenance is not valid JSON ({err})") from None
    if not isinstance(prov, dict):
        raise ValueError(f"{path}: provenance is not a JSON object (a {type(prov).__name__})")
    o = 0
    q = {}
    for k, n in (("w1", INPUTS * hidden), ("b1", hidden), ("w2", n_out * 2 * hidden)):
        q[k] = np.frombuffer(payload, dtype="<i2", count=n, offset=o).astype(np.int16)
        o += 2 * n
    q["w1"] = q["w1"].reshape(INPUTS, hidden)
    q["w2"] = q["w2"].reshape(n_out, 2 * hidden)
    q["b2"] = np.frombuffer(payload, dtype="<i4", count=n_out, offset=o).astype(np.int64)
    o += 4 * n_out
    q["mirror"] = features == FEATURES_MIRRORED
    q["pawn_scale"] = LEGACY_PAWN_SCALE
    if version >= 3:
        try:
            q["pawn_scale"] = check_pawn_scale(np.frombuffer(payload, dtype="<u2", count=PAWN_GROUPS, offset=o))
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None
    return q, prov, net_id


def dequantize(q):
    """The float state dict whose :func:`quantize` is ``q`` (each weight
    its integer divided by its scale; quantizing it again gives ``q``
    exactly): a network file as a starting point for training."""
    t = lambda a, scale: torch.from_numpy(np.asarray(a, dtype=np.float64) / scale).float()
    return {"ft.weight": t(q["w1"], QA), "b1": t(q["b1"], QA),
            "out.weight": t(q["w2"], QB).reshape(-1, 2 * q["w1"].shape[1]),
            "out.bias": t(q["b2"], QA * QB)}


def export(checkpoint, out, pawn_scale=None):
    """Quantize a checkpoint and write the network file with this pawn
    table (None: the checkpoint's, the table of the network it was trained
    from with ``--init``, else :data:`LEGACY_PAWN_SCALE`); returns its id."""
    state = torch.load(checkpoint, map_location="cpu")
    if pawn_scale is None:
        pawn_scale = state.get("pawn_scale") or LEGACY_PAWN_SCALE
    q = quantize(state["model"])
    s = state["settings"]
    mirror = s.get("mirror", False)
    data = s["data"]  # a list of paths; one is written as a path, as before lists
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    prov = {"command": state["command"], "seed": s["seed"], "positions": state["train_rows"],
            "positions_trained": state["positions"], "validation_positions": state["val_rows"],
            "epochs": state["epoch"], "losses": state["history"], "dataset": data,
            "lambda": s["lam"], "score_scale": s.get("score_scale", 400.0), "created": state["created"], "architecture": architecture(len(q["b2"]), mirror, q["w1"].shape[1]),
            "checkpoint": os.path.basename(checkpoint), "pawn_scale": list(check_pawn_scale(pawn_scale))}
    return write_net(out, q, prov, mirror, pawn_scale)


def set_pawn_scale(path, table, command):
    """Rewrite the network file at path (atomically, in version 4 whatever
    its version was) with this pawn table, its weights kept and its
    provenance given the table and the command that fitted or set it
    (``pawn_scale``, ``pawn_scale_command``); returns the new id."""
    q, prov, _ = read_net(path)
    prov = dict(prov, pawn_scale=list(check_pawn_scale(table)), pawn_scale_command=command)
    return write_net(path, q, prov, q["mirror"], table)
