"""NNUE for the engine: train, export and check chessforge's network
(``768x2-H-B-screlu`` with accumulators H wide, a multiple of 16 from 16 to
1024, 256 by default, and B = 1, 2, 4 or 8 output buckets, the contract of
engine/nnue: QA = 255, QB = 64, SCALE = 400).

    chessforge-nnue train DATA --out DIR [--val PATH] [--epochs 4] [--seed 1] [--resume]
                          [--hidden 256] [--buckets 8] [--mirror] [--device cuda] [--inputs auto] [--preload]
                          [--init CHECKPOINT.pt | --init NETWORK.nnue]
    chessforge-nnue export DIR/epoch-0004.pt --out net.nnue [--pawn-scale 58,58,91,120,128]
    chessforge-nnue pawnscale DATA... --network net.nnue --write [--level-of current.nnue]
    chessforge-nnue table net.nnue [--set 44,44,68,90,96]
    chessforge-nnue vectors net.nnue --data fen.txt --out vectors.txt -n 1200

Features: for perspective P, a piece of colour C and type T (pawn..king =
0..5) on square sq (a1 = 0) is feature ``((C == P ? 0 : 6) + T) * 64 +
(P == White ? sq : sq ^ 56)``. With the loader's ``side_to_move=True`` the
planes 0-11 of a row are exactly the side to move's features (``plane*64 +
sq``); the other side's are the same pieces colour-swapped and
rank-mirrored (:data:`THEM`). ``--mirror`` trains the king-mirrored feature
set (``768hm``): a perspective whose own king stands on files e-h sees every
square file-mirrored, ``sq ^ 7``, so that one half of the weights serves
both wings (file format version 2 records the feature set).

Each network file (from format version 3) carries its pawn table: the
engine scales the network's score by the entry for the pawns of the side it
favours (0, 1, 2, 3, 4 or more; of 128). ``export`` writes ``--pawn-scale``,
else the table of the network the checkpoint was trained from with
``--init``, else the table every network had before version 3
(:data:`LEGACY_PAWN_SCALE`); ``pawnscale --network FILE --write`` fits the table to
the network's own scores on a dataset and writes it into the file. The
entry for 4 or more pawns is the table's level, the network's overall
scale into the search's units; the fit keeps the file's level, or with
``--level-of OTHER.nnue`` takes the level that puts the network's scores
on OTHER's scale (the network whose search the engine's margins were
tuned with), and ``table FILE --set`` writes a whole table chosen by
matches.

Float model: ``out = w2[b, :H] . screlu(us) + w2[b, H:] . screlu(them) +
b2[b]`` with ``us``/``them = b1 + sum of the W1 rows of the active
features``, ``screlu(x) = clamp(x, 0, 1)^2`` and the output bucket ``b =
min((pieces - 2) // (32 // B), B - 1)`` chosen by the number of pieces on
the board; evaluation ``SCALE * out`` centipawns for the side to move.
Loss: the squared error between ``sigmoid(out)`` (that is ``sigmoid(eval /
400)``) and the target ``lam * result + (1 - lam) * sigmoid(score / 400)``,
both from the side to move, ``lam`` = ``--lambda`` (default 0: the search
score alone). After every Adam step W1, b1 and W2 are clipped to [-1.98,
1.98], so that the quantized weights stay within |W1q| <= 505 and |W2q| <=
127.

The quantized forward pass (:func:`quantized_eval`) is the engine's
integer arithmetic, truncating divisions included.

Inputs: the trainer reads compact rows (:meth:`ChessDataset.compact_batches`)
and builds the features from their 768 piece bits (:func:`piece_bits`): as
sparse lists for the EmbeddingBag on a CPU (:func:`sparse_features`), as
dense 0/1 rows through matrix products on CUDA (:func:`dense_features`,
:meth:`Net.forward_dense`); ``--inputs`` chooses. Both train the same
network up to float rounding. ``--preload`` reads the rows once into the
device's memory (:class:`Preloaded`) and draws each epoch from there, which
is what keeps a GPU busy: streamed, the CPU's reading is the bottleneck.
"""

import argparse
import datetime
import glob
import hashlib
import json
import os
import struct
import sys
import time

import numpy as np
import torch
from torch import nn

from . import layout, pawnscale
from .dataset import ChessDataset
from .sources import open_source

INPUTS = 768
HIDDEN = 256  # the accumulator width of a network unless --hidden says otherwise
HIDDEN_STEP = 16  # widths are multiples of this (a vector's lanes) ...
MAX_HIDDEN = 1024  # ... up to this (engine/nnue: the vector output layer stays exact)
WIDTH_RULE = f"a multiple of {HIDDEN_STEP} from {HIDDEN_STEP} to {MAX_HIDDEN}"  # for messages
BUCKETS = (1, 2, 4, 8)  # the output bucket counts the format allows
ACTIVATION_SCRELU = 1
QA = 255
QB = 64
SCALE = 400
CLIP = 1.98
MAGIC = b"CFNN"
VERSION = 3  # the version written; versions 2 (no pawn table) and 1 (no feature-set field either) are read too
HEADER = struct.Struct("<4s9I32sI")  # magic, version, 4 arch, feature set, 3 quant, hash, provenance length
HEADER_V1 = struct.Struct("<4s8I32sI")  # version 1: no feature set (always FEATURES_PLAIN)
FEATURES_PLAIN = 0  # the 768 features as they are
FEATURES_MIRRORED = 1  # each perspective's squares file-mirrored while its own king is on files e-h


PAWN_GROUPS = pawnscale.GROUPS  # pawn table entries: the side ahead has 0, 1, 2, 3, or 4 or more pawns
PAWN_SCALE_ONE = pawnscale.ONE  # the table's unit: an entry of 128 leaves a score as it is
#: The pawn table of files before version 3, which carry none: the one the
#: engine gave every network until then (engine/nnue/pawnscale.go).
LEGACY_PAWN_SCALE = (58, 58, 91, 120, 128)


def valid_hidden(hidden):
    """Whether a network may have accumulators this wide: a multiple of
    HIDDEN_STEP from HIDDEN_STEP to MAX_HIDDEN (engine/nnue.ValidHidden)."""
    return HIDDEN_STEP <= hidden <= MAX_HIDDEN and hidden % HIDDEN_STEP == 0


def payload_bytes(buckets, hidden=HIDDEN, version=VERSION):
    """The size of the payload of a network with this many output buckets
    and accumulators this wide in a file of this format version: the
    weights, then (from version 3) the pawn table."""
    return (INPUTS * hidden + hidden) * 2 + buckets * (2 * hidden * 2 + 4) + (2 * PAWN_GROUPS if version >= 3 else 0)


def check_pawn_scale(table):
    """The pawn table as a tuple of ints, or ValueError naming what is
    wrong: not PAWN_GROUPS entries, an entry below 1 or above
    PAWN_SCALE_ONE, or one below the entry for fewer pawns."""
    table = tuple(int(v) for v in table)
    if len(table) != PAWN_GROUPS:
        raise ValueError(f"pawn table {list(table)}: {len(table)} entries, want {PAWN_GROUPS}")
    for i, v in enumerate(table):
        if not 1 <= v <= PAWN_SCALE_ONE:
            raise ValueError(f"pawn table {list(table)}: entry {i} is {v}, want 1 to {PAWN_SCALE_ONE}")
        if i and v < table[i - 1]:
            raise ValueError(f"pawn table {list(table)}: entry {i} ({v}) is below entry {i - 1} ({table[i - 1]}), "
                             "want non-decreasing")
    return table


def architecture(buckets, mirror=False, hidden=HIDDEN):
    """The architecture's name, as the provenance records it: 768hm for
    the king-mirrored feature set."""
    return f"768{'hm' if mirror else ''}x2-{hidden}-{buckets}-screlu"

# THEM[f] is feature f of one perspective seen from the other: the piece's
# colour swapped (planes 0-5 <-> 6-11) and its square rank-mirrored.
_f = np.arange(INPUTS)
THEM = (((_f // 64 + 6) % 12) * 64 + ((_f % 64) ^ 56)).astype(np.int64)
_THEM_T = torch.from_numpy(THEM)


class Net(nn.Module):
    """The float network: a feature transformer shared by both
    perspectives (an EmbeddingBag summing the active features' rows, W1
    [768, hidden] feature-major, plus b1) and an output per bucket over the
    two SCReLU'd accumulators, the side to move's first."""

    def __init__(self, init_scale=1.0, buckets=1, hidden=HIDDEN):
        super().__init__()
        if buckets not in BUCKETS:
            raise ValueError(f"{buckets} output buckets, want one of {BUCKETS}")
        if not valid_hidden(hidden):
            raise ValueError(f"accumulators {hidden} wide, want {WIDTH_RULE}")
        self.buckets = buckets
        self.ft = nn.EmbeddingBag(INPUTS, hidden, mode="sum")
        self.b1 = nn.Parameter(torch.zeros(hidden))
        self.out = nn.Linear(2 * hidden, buckets)
        with torch.no_grad():
            # Accumulators of about 30 pieces start spread over [0, 1],
            # SCReLU's working range; init_scale > 1 widens W1 and W2 (test
            # networks whose accumulators reach both ends of the clamp).
            # The output weights shrink as 1/sqrt(hidden) from +-0.05 at
            # 256, so that the starting outputs spread alike at any width.
            self.ft.weight.uniform_(-0.1 * init_scale, 0.1 * init_scale)
            self.b1.fill_(0.25)
            w2 = 0.05 * init_scale * (HIDDEN / hidden) ** 0.5
            self.out.weight.uniform_(-w2, w2)
            self.out.bias.zero_()
        self.clip_()

    def forward(self, us_idx, us_off, them_idx, them_off):
        """The output (eval / SCALE) of each position, from its feature
        index lists (EmbeddingBag's flat indices and offsets): its
        bucket's, the bucket counted from the features."""
        us = self.ft(us_idx, us_off) + self.b1
        them = self.ft(them_idx, them_off) + self.b1
        pieces = None
        if self.buckets > 1:
            pieces = torch.diff(us_off, append=torch.tensor([len(us_idx)], device=us_off.device))
        return self._output(us, them, pieces)

    def forward_dense(self, us, them):
        """The same output from the features as dense 0/1 rows (float32
        [B, 768] per perspective, :func:`dense_features`): the accumulators
        are matrix products, which a GPU runs far faster than the sparse
        sums, and whose gradient is a matrix product too (deterministic on
        CUDA). Equal to :meth:`forward` up to float rounding."""
        pieces = us.sum(1).long() if self.buckets > 1 else None
        return self._output(us @ self.ft.weight + self.b1, them @ self.ft.weight + self.b1, pieces)

    def _output(self, us, them, pieces):
        x = torch.cat([us, them], dim=1).clamp(0, 1).pow(2)
        if self.buckets == 1:
            return self.out(x).squeeze(1)
        # Only each position's own bucket: its weight row times x (a
        # matrix product over all buckets costs more than the rest).
        b = bucket(pieces, self.buckets)
        return (x * self.out.weight[b]).sum(1) + self.out.bias[b]

    def clip_(self):
        """Clip W1, b1 and W2 to [-CLIP, CLIP] (after every step)."""
        with torch.no_grad():
            for p in (self.ft.weight, self.b1, self.out.weight):
                p.clamp_(-CLIP, CLIP)


def bucket(pieces, buckets):
    """The output bucket of positions with these numbers of pieces (an
    int64 tensor or an int): min(max(pieces - 2, 0) // (32 // buckets),
    buckets - 1), the engine's nnue.Network.Bucket."""
    if isinstance(pieces, torch.Tensor):
        return ((pieces - 2).clamp(min=0) // (32 // buckets)).clamp(max=buckets - 1)
    return min(max(pieces - 2, 0) // (32 // buckets), buckets - 1)


def batch_features(planes, mirror=False):
    """The side to move's and the other side's features of a batch of
    planes seen from the side to move (``side_to_move=True``), as
    EmbeddingBag inputs: (us_idx, us_off, them_idx, them_off). With
    ``mirror`` each side's squares are file-mirrored (``sq ^ 7``) while
    that side's king stands on files e-h."""
    return sparse_features((planes.reshape(planes.shape[0], -1)[:, :INPUTS] != 0).to(torch.uint8), mirror)


def piece_bits(packed):
    """The side to move's 768 features of compact rows (``packed``, uint8
    [B, 13, 8] as :meth:`ChessDataset.compact_batches` gives them: a NumPy
    array, or a tensor on any device) as 0/1 uint8 [B, 768] in the planes'
    order, on the same device: what ``planes[:, :12] != 0`` is, without
    the float32 planes."""
    if isinstance(packed, torch.Tensor) and packed.device.type != "cpu":
        return _shifted_bits(packed)
    # On the CPU NumPy's unpackbits, many times faster than torch's shifts.
    packed = packed.numpy() if isinstance(packed, torch.Tensor) else packed
    return torch.from_numpy(np.unpackbits(packed[:, :12], axis=-1).reshape(packed.shape[0], INPUTS))


def _shifted_bits(packed):
    """:func:`piece_bits` by tensor shifts, on the tensor's device."""
    shifts = torch.arange(7, -1, -1, dtype=torch.uint8, device=packed.device)  # file a is the high bit
    return ((packed[:, :12, :, None] >> shifts) & 1).reshape(packed.shape[0], INPUTS)


def sparse_features(x, mirror=False):
    """:func:`batch_features` of the piece bits x (0/1 [B, 768], on the
    CPU)."""
    rows, idx = x.nonzero(as_tuple=True)
    counts = torch.bincount(rows, minlength=x.shape[0])
    off = torch.zeros(x.shape[0], dtype=torch.int64)
    off[1:] = torch.cumsum(counts, 0)[:-1]
    them = _THEM_T[idx]
    if mirror:
        # Planes 5 and 11 hold the side to move's king and the other's;
        # ranks are mirrored between the views, files are not.
        flip = lambda plane: (x[:, plane * 64:(plane + 1) * 64].argmax(1) % 8 >= 4).long() * 7
        idx = idx ^ flip(5)[rows]
        them = them ^ flip(11)[rows]
    return idx, off, them, off


def dense_features(x, mirror=False):
    """The features of the piece bits x (0/1 [B, 768], on any device) as
    dense float32 rows (us, them), the inputs of :meth:`Net.forward_dense`:
    row i of ``us`` is 1 at the features :func:`sparse_features` lists for
    position i, and so for ``them``."""
    # THEM as a view: the colours' halves swapped, the ranks flipped.
    them = x.reshape(x.shape[0], 2, 6, 8, 8).flip(1, 3).reshape(x.shape[0], INPUTS)
    views = []
    for v in (x, them):
        if mirror:
            # Plane 5 is the perspective's own king in either view.
            board = v.reshape(v.shape[0], 12, 8, 8)
            right = board[:, 5, :, 4:].sum((1, 2)) > 0
            v = torch.where(right[:, None], board.flip(-1).reshape(v.shape[0], INPUTS), v)
        views.append(v.float())
    return views[0], views[1]


# FEN -> features, independent of the planes.

_PIECES = "PNBRQK"


def fen_features(fen, mirror=False):
    """The features (us, them) of a FEN's position, us from the side to
    move, as sorted int64 arrays; parsed from the FEN alone. ``mirror``:
    the king-mirrored feature set."""
    fields = fen.split()
    if len(fields) < 2 or fields[1] not in ("w", "b"):
        raise ValueError(f"FEN {fen!r}: want a board and a side to move")
    ranks = fields[0].split("/")
    if len(ranks) != 8:
        raise ValueError(f"FEN {fen!r}: want 8 ranks")
    white, black = [], []
    for i, rank in enumerate(ranks):
        r, f = 7 - i, 0
        for ch in rank:
            if ch.isdigit():
                f += int(ch)
                continue
            t = _PIECES.find(ch.upper())
            if t < 0 or f > 7:
                raise ValueError(f"FEN {fen!r}: bad rank {rank!r}")
            (white if ch.isupper() else black).append((t, r * 8 + f))
            f += 1
        if f != 8:
            raise ValueError(f"FEN {fen!r}: rank {rank!r} is not 8 squares")
    persp = {}
    for p, own, other in ((0, white, black), (1, black, white)):
        kings = [sq for t, sq in own if t == 5]
        if len(kings) != 1:
            raise ValueError(f"FEN {fen!r}: {len(kings)} {'black' if p else 'white'} kings")
        flip = (56 if p else 0) ^ (7 if mirror and kings[0] % 8 >= 4 else 0)
        feats = [t * 64 + (sq ^ flip) for t, sq in own] + [(6 + t) * 64 + (sq ^ flip) for t, sq in other]
        persp[p] = np.sort(np.array(feats, dtype=np.int64))
    stm = 0 if fields[1] == "w" else 1
    return persp[stm], persp[1 - stm]


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

def write_net(path, q, provenance, mirror=False, pawn_scale=LEGACY_PAWN_SCALE):
    """Write the network file: header, provenance JSON, payload (the
    weights and the pawn table); ``mirror``: the king-mirrored feature set.
    Returns its id."""
    buckets, hidden = len(q["b2"]), q["w1"].shape[1]
    payload = (q["w1"].astype("<i2").tobytes() + q["b1"].astype("<i2").tobytes()
               + q["w2"].astype("<i2").tobytes() + q["b2"].astype("<i4").tobytes()
               + np.array(check_pawn_scale(pawn_scale), dtype="<u2").tobytes())
    assert len(payload) == payload_bytes(buckets, hidden)
    prov = json.dumps(provenance, sort_keys=True).encode()
    digest = hashlib.sha256(payload).digest()
    header = HEADER.pack(MAGIC, VERSION, INPUTS, hidden, buckets, ACTIVATION_SCRELU,
                         FEATURES_MIRRORED if mirror else FEATURES_PLAIN, QA, QB, SCALE, digest, len(prov))
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header + prov + payload)
    os.replace(tmp, path)
    return digest.hex()[:16]


def read_net(path):
    """Read and check a network file (version 1, 2 or 3): (quantized
    weights with ``q["mirror"]`` the feature set and ``q["pawn_scale"]``
    the pawn table, provenance dict, id). Errors name the file and the
    problem."""
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
    prov = json.loads(data[header.size:header.size + plen].decode())
    payload = data[header.size + plen:]
    if hashlib.sha256(payload).digest() != digest:
        raise ValueError(f"{path}: hash mismatch (the payload is not the one the header names)")
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
    return q, prov, digest.hex()[:16]


def network_scores(path):
    """A network file's evaluation of chess rows: (a function of a chunk
    of rows, their ``packed`` and ``scalars``, giving each one's score in
    centipawns from White's point of view; the network's id). It runs the
    float model of the file's weights (:func:`dequantize`), whose scores
    differ from the engine's integer ones by its rounding only, a
    centipawn or two, and without the engine's endgame knowledge
    (``eval.Endgame``)."""
    q, _, net_id = read_net(path)
    model = Net(buckets=len(q["b2"]), hidden=q["w1"].shape[1])
    model.load_state_dict(dequantize(q))
    model.eval()
    lay = layout.CHESS

    def scores(rows):
        packed, scalars = rows["packed"], rows["scalars"]
        black = lay.black_to_move(scalars)
        if black.any():
            packed, scalars = lay.mirror(packed, scalars, black)
        with torch.no_grad():
            v = model(*sparse_features(piece_bits(packed), q["mirror"])).double().numpy() * SCALE
        return np.where(black, -v, v)

    return scores, net_id


def dequantize(q):
    """The float state dict whose :func:`quantize` is ``q`` (each weight
    its integer divided by its scale; quantizing it again gives ``q``
    exactly): a network file as a starting point for training."""
    t = lambda a, scale: torch.from_numpy(np.asarray(a, dtype=np.float64) / scale).float()
    return {"ft.weight": t(q["w1"], QA), "b1": t(q["b1"], QA),
            "out.weight": t(q["w2"], QB).reshape(-1, 2 * q["w1"].shape[1]),
            "out.bias": t(q["b2"], QA * QB)}


def initial_state(path, buckets=None):
    """The model state to start training from, with this many output
    buckets (None: the start's own), its feature set (True: king-mirrored)
    and its pawn table (None where it has none): a network file's
    (``.nnue``, dequantized) or a checkpoint's. A one-output start is
    copied into every bucket."""
    if path.endswith(".nnue"):
        q = read_net(path)[0]
        state, mirror, pawns = dequantize(q), q["mirror"], q["pawn_scale"]
    elif not os.path.isfile(path):
        raise ValueError(f"--init {path}: no such file")
    else:
        ck = torch.load(path, map_location="cpu")
        state, mirror, pawns = ck["model"], ck.get("settings", {}).get("mirror", False), ck.get("pawn_scale")
    return with_buckets(state, buckets, path), mirror, pawns


def with_buckets(state, buckets, path):
    """``state`` with this many output buckets (None: as it is): a
    one-output state's layer copied into every bucket; any other change is
    an error naming ``path``, where the state came from."""
    had = state["out.weight"].shape[0]
    if buckets is None or buckets == had:
        return state
    if had != 1:
        raise ValueError(f"--init {path}: {had} output buckets, training {buckets}")
    return dict(state, **{"out.weight": state["out.weight"].repeat(buckets, 1),
                          "out.bias": state["out.bias"].repeat(buckets)})


# Training.

def _dataset(path, args, seed, shuffle):
    return ChessDataset(path, batch_size=args.batch_size, shuffle_buffer=args.shuffle_buffer if shuffle else 0,
                        seed=seed, value_target="blend", blend=args.lam, score_scale=400.0, side_to_move=True,
                        min_ply=args.min_ply, max_score=args.max_score, skip_in_check=args.skip_in_check,
                        skip_captures=args.skip_captures, disagree_score=args.disagree_score)


def _split(train, val_every):
    """Hold out every ``val_every``-th unit of ``train``'s source (at
    least one when it has two or more) for validation: (train, val units)."""
    units = list(train.source.units)
    if len(units) < 2 or val_every <= 0:
        return None
    held = [u for i, u in enumerate(units) if i % val_every == val_every - 1] or units[-1:]
    train.source.units = [u for u in units if u not in held]
    return held


#: The trainer's inputs: "sparse" feature lists summed by the EmbeddingBag
#: (the least work, best on a CPU), "dense" 0/1 rows through matrix
#: products (best on a GPU, whose time the sparse sums and their
#: sort-based deterministic gradient take), "auto" dense on CUDA only.
INPUTS_CHOICES = ("auto", "sparse", "dense")


def _dense(inputs, device):
    return inputs == "dense" or (inputs == "auto" and device.type == "cuda")


def _tensor(a):
    return a if isinstance(a, torch.Tensor) else torch.from_numpy(a)


def _loss(model, rows, device, mirror, dense):
    """The mean squared error of a batch of compact rows and its size.
    ``rows["packed"]`` and ``rows["value"]`` are NumPy arrays or tensors
    on any device (:class:`Preloaded`'s). Dense: the rows' bits go to the
    device as they are (104 bytes a row) and the features are built there.
    Sparse: the lists are built on the CPU."""
    if dense:
        out = model.forward_dense(*dense_features(piece_bits(_tensor(rows["packed"]).to(device)), mirror))
    else:
        packed = rows["packed"]
        if isinstance(packed, torch.Tensor):
            packed = packed.cpu()
        us, us_off, them, them_off = sparse_features(piece_bits(packed), mirror)
        out = model(us.to(device), us_off.to(device), them.to(device), them_off.to(device))
    value = _tensor(rows["value"]).to(device)
    return torch.mean((torch.sigmoid(out) - value) ** 2), len(value)


def evaluate(model, ds, device, mirror=False, inputs="auto"):
    """The mean loss over a dataset (no gradient) and its rows; ``ds`` is
    a :class:`ChessDataset` or a :class:`Preloaded` one."""
    total, n = torch.zeros((), dtype=torch.float64, device=device), 0
    dense = _dense(inputs, device)
    with torch.no_grad():
        for rows in ds.compact_batches():
            loss, k = _loss(model, rows, device, mirror, dense)
            total += loss.double() * k
            n += k
    return float(total) / max(n, 1), n


class Preloaded:
    """A dataset's rows read once and kept on a device (``--preload``):
    the side to move's 768 piece bits (uint8 [N, 12, 8], 96 bytes a row)
    and the value target (float32 [N]) of every row the dataset's filters
    keep, as the dataset presents them. A GPU then trains from its own
    memory, without waiting for the CPU to read, filter and mirror each
    epoch again; on a CPU it saves the reading too.

    :meth:`set_epoch` chooses the epoch; :meth:`compact_batches` yields
    its batches: all rows in a random order drawn on the CPU from the seed
    and the epoch alone (so a CPU and a GPU run, or a resumed one, see the
    same batches), or in the order read with ``shuffle`` false (validation).
    """

    def __init__(self, ds, device, batch_size, seed, shuffle=True):
        read_rows = max(batch_size, 65536)  # large reads: the batch size is the training's alone
        was, ds.batch_size = ds.batch_size, read_rows
        saved_buffer, ds.shuffle_buffer = ds.shuffle_buffer, 0
        packed, value = [], []
        try:
            for rows in ds.compact_batches():
                packed.append(torch.from_numpy(np.ascontiguousarray(rows["packed"][:, :12])).to(device))
                value.append(torch.from_numpy(rows["value"]).to(device))
        finally:
            ds.batch_size, ds.shuffle_buffer = was, saved_buffer
        self.packed = torch.cat(packed) if packed else torch.zeros((0, 12, 8), dtype=torch.uint8, device=device)
        self.value = torch.cat(value) if value else torch.zeros(0, dtype=torch.float32, device=device)
        self.batch_size, self.seed, self.shuffle, self.epoch = batch_size, seed, shuffle, 0

    def __len__(self):
        return len(self.value)

    @property
    def nbytes(self):
        return self.packed.numel() + 4 * self.value.numel()

    def set_epoch(self, epoch):
        self.epoch = epoch

    def compact_batches(self):
        n, B = len(self), self.batch_size
        if self.shuffle:
            g = torch.Generator().manual_seed(self.seed * 1_000_003 + self.epoch)
            order = torch.randperm(n, generator=g).to(self.packed.device)
            for i in range(0, n, B):
                idx = order[i:i + B]
                yield {"packed": self.packed[idx], "value": self.value[idx]}
        else:
            for i in range(0, n, B):
                yield {"packed": self.packed[i:i + B], "value": self.value[i:i + B]}


# The settings a resumed run must share with the checkpoint's, so that it
# continues the same run (epochs, threads, device and inputs may change).
_SAME_ON_RESUME = ("data", "val", "val_every", "steps", "batch_size", "shuffle_buffer", "lr", "lr_gamma", "lam", "seed",
                   "init_scale", "hidden", "buckets", "mirror", "min_ply", "max_score", "skip_in_check", "skip_captures", "disagree_score",
                   "init", "preload")

# Settings added after checkpoints were first written, with the value an
# older checkpoint's run had.
_ADDED_SETTINGS = {"lr_gamma": 1.0, "buckets": 1, "mirror": False, "hidden": HIDDEN, "preload": False}


def _checkpoints(out):
    return sorted(glob.glob(os.path.join(out, "epoch-*.pt")))


def epoch_lr(args, epoch):
    """The learning rate of an epoch (0-based): --lr decayed by --lr-gamma
    each epoch, so that it depends on the epoch alone and a resumed run
    (even one given more --epochs) continues the same schedule."""
    return args.lr * args.lr_gamma ** epoch


def train(args):
    """Train (or resume) a network; returns the last checkpoint's path.
    torch's deterministic mode and thread count are restored afterwards."""
    det, threads = torch.are_deterministic_algorithms_enabled(), torch.get_num_threads()
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    try:
        if device.type == "cuda":
            # cuBLAS repeats itself only with a fixed workspace; where a CUDA
            # kernel has no deterministic form torch warns instead of failing
            # (CPU runs are exact).
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=device.type != "cpu")
        if args.threads:
            torch.set_num_threads(args.threads)
        return _train(args, device)
    finally:
        torch.use_deterministic_algorithms(det)
        torch.set_num_threads(threads)


def _train(args, device):
    if isinstance(args.data, str):  # one path, as a caller may give it
        args.data = [args.data]
    # The --init weights, feature set and pawn table, read once. The table
    # goes into every checkpoint, and export writes it: the weights learnt
    # their scale beside it.
    init_state, init_mirror, init_pawns = None, False, None
    if args.init:
        init_state, init_mirror, init_pawns = initial_state(args.init)
    if args.buckets is None:  # the --init network's, else one
        args.buckets = init_state["out.weight"].shape[0] if init_state is not None else 1
    init_hidden = init_state["ft.weight"].shape[1] if init_state is not None else None
    if args.hidden is None:  # the --init network's width, else HIDDEN
        args.hidden = init_hidden or HIDDEN
    elif init_hidden is not None and args.hidden != init_hidden:
        raise ValueError(f"--init {args.init}: accumulators {init_hidden} wide, training {args.hidden} (--hidden)")
    if not valid_hidden(args.hidden):
        raise ValueError(f"--hidden {args.hidden}: want {WIDTH_RULE}")
    if args.mirror is None:  # the --init network's feature set, else plain
        args.mirror = init_mirror
    elif args.init and args.mirror != init_mirror:
        raise ValueError(f"--init {args.init}: {'king-mirrored' if init_mirror else 'plain'} features, "
                         f"training {'king-mirrored' if args.mirror else 'plain'} ones (--mirror)")
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    model = Net(args.init_scale, args.buckets, args.hidden).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    history, start, positions = [], 0, 0
    init_val = None  # the --init network's validation loss, before any training
    if args.resume:
        ck = _checkpoints(args.out)
        if ck:
            state = torch.load(ck[-1], map_location=device)
            was = state["settings"]
            for k in _SAME_ON_RESUME:
                had = was.get(k, _ADDED_SETTINGS.get(k))
                if k == "data" and isinstance(had, str):  # one path, as checkpoints wrote it before lists
                    had = [had]
                if had != getattr(args, k):
                    raise ValueError(f"{ck[-1]}: trained with {k} {had!r}, resumed with {getattr(args, k)!r}")
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["optimizer"])
            history, start, positions = state["history"], state["epoch"], state["positions"]
            init_val = state.get("init_val_loss")
            print(f"resumed from {ck[-1]} (epoch {start})", flush=True)
    if args.init and not start:
        model.load_state_dict(with_buckets(init_state, args.buckets, args.init))
        model.clip_()
        print(f"starting from {args.init}", flush=True)
    tr = _dataset(args.data, args, args.seed, True)
    if tr.layout.game != layout.CHESS.game:
        raise ValueError(f"{' '.join(args.data)}: a {tr.layout.game} dataset ({tr.layout}); the network's features are chess pieces")
    val = None
    if args.val:
        val = _dataset(args.val, args, args.seed, False)
    else:
        held = _split(tr, args.val_every)
        if held:
            val = _dataset(args.data, args, args.seed, False)
            val.source.units = held
    def rows(ds):
        return sum(ds.unit_rows(u) for u in ds.source.units) if ds else 0

    n_train, n_val = rows(tr), rows(val)
    print(f"{n_train} training positions, {n_val} validation, on {device}, "
          f"lambda {args.lam}, {architecture(args.buckets, args.mirror, args.hidden)}", flush=True)
    if args.preload:
        t0 = time.perf_counter()
        tr = Preloaded(tr, device, args.batch_size, args.seed)
        if val:
            val = Preloaded(val, device, args.batch_size, args.seed, shuffle=False)
        print(f"preloaded {len(tr)} training and {len(val) if val else 0} validation positions "
              f"({(tr.nbytes + (val.nbytes if val else 0)) / 2**20:.0f} MiB on {device}) "
              f"in {time.perf_counter() - t0:.1f} s", flush=True)
    if args.init and not start and val:
        model.eval()
        init_val = round(evaluate(model, val, device, args.mirror, args.inputs)[0], 7)
        print(f"starting network: val loss {init_val:.6f}", flush=True)
    path = None
    dense = _dense(args.inputs, device)
    for epoch in range(start, args.epochs):
        tr.set_epoch(epoch)
        lr = epoch_lr(args, epoch)
        for group in opt.param_groups:
            group["lr"] = lr
        model.train()
        t0, c0 = time.perf_counter(), time.process_time()
        # The running total stays on the device, so that a step need not
        # wait for the last one (a GPU's queue stays full).
        total, n, steps = torch.zeros((), dtype=torch.float64, device=device), 0, 0
        shown = t0
        for rows in tr.compact_batches():
            loss, k = _loss(model, rows, device, args.mirror, dense)
            opt.zero_grad()
            loss.backward()
            opt.step()
            model.clip_()
            total += loss.detach().double() * k
            n += k
            steps += 1
            if args.progress and time.perf_counter() - shown >= args.progress:
                shown = time.perf_counter()
                print(f"epoch {epoch + 1}: {n} positions, train loss {float(total) / n:.6f}, "
                      f"{n / (shown - t0):.0f} positions/s (of {n_train} an epoch, after the filters)",
                      file=sys.stderr, flush=True)
            if args.steps and steps >= args.steps:
                break
        total = float(total)  # waits for the last step
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        positions += n
        vloss = evaluate(model, val, device, args.mirror, args.inputs)[0] if val else None
        history.append({"epoch": epoch + 1, "lr": lr, "train_loss": round(total / max(n, 1), 7),
                        "val_loss": None if vloss is None else round(vloss, 7), "positions": n})
        print(f"epoch {epoch + 1}: lr {lr:.3g}, train loss {total / max(n, 1):.6f}, val loss "
              f"{'-' if vloss is None else f'{vloss:.6f}'}, {n} positions, {n / wall:.0f} positions/s, "
              f"{n / max(cpu, 1e-9):.0f} per CPU second", flush=True)
        path = os.path.join(args.out, f"epoch-{epoch + 1:04d}.pt")
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch + 1,
                    "history": history, "positions": positions, "train_rows": n_train, "val_rows": n_val,
                    "init_val_loss": init_val,
                    "pawn_scale": None if init_pawns is None else list(init_pawns),
                    "settings": {k: v for k, v in vars(args).items() if k not in ("func", "resume")},
                    "command": args.command,
                    "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")},
                   path + ".tmp")
        os.replace(path + ".tmp", path)
    if path is None:
        ck = _checkpoints(args.out)
        path = ck[-1] if ck else None
    return path


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
            "lambda": s["lam"], "created": state["created"], "architecture": architecture(len(q["b2"]), mirror, q["w1"].shape[1]),
            "checkpoint": os.path.basename(checkpoint), "pawn_scale": list(check_pawn_scale(pawn_scale))}
    return write_net(out, q, prov, mirror, pawn_scale)


def set_pawn_scale(path, table, command):
    """Rewrite the network file at path (atomically) with this pawn table,
    its weights kept and its provenance given the table and the command
    that fitted or set it (``pawn_scale``, ``pawn_scale_command``); returns the
    new id."""
    q, prov, _ = read_net(path)
    prov = dict(prov, pawn_scale=list(check_pawn_scale(table)), pawn_scale_command=command)
    return write_net(path, q, prov, q["mirror"], table)


def matching_level(args, network, table):
    """pawnscale --level-of: the level at which ``network`` (a scoring
    function of args.network), with ``table``, matches args.level_of's
    scores on args.data (:func:`pawnscale.level`), its line printed."""
    reference, ref_id = network_scores(args.level_of)
    ref_table = read_net(args.level_of)[0]["pawn_scale"]
    level, exact, rows = pawnscale.level(args.data, network, table, reference, ref_table, args.every,
                                         args.max_score)
    print(f"level {level}: the scale of network {ref_id}'s scores (table {' '.join(map(str, ref_table))}) "
          f"over {rows} positions, {exact:.1f} exactly")
    return level


def parse_pawn_scale(text):
    """``--pawn-scale``'s value, five comma-separated entries."""
    try:
        table = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want {PAWN_GROUPS} comma-separated integers, "
                                         f"such as {','.join(map(str, LEGACY_PAWN_SCALE))}") from None
    try:
        return check_pawn_scale(table)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def read_fens(path):
    """FENs from a text file (one a line), a directory holding fen.txt
    (what pyfixture writes) or a Parquet dataset's ``fen`` column
    (needs pyarrow)."""
    if os.path.isdir(path) and os.path.isfile(os.path.join(path, "fen.txt")):
        path = os.path.join(path, "fen.txt")
    if os.path.exists(path) and not os.path.isdir(path) and not path.endswith(".parquet"):
        with open(path) as f:
            return [line.strip() for line in f if line.strip()]
    if os.path.isfile(os.path.join(path, "manifest.json")):
        raise ValueError(f"{path}: a NumPy export has no FENs; give the Parquet dataset or a FEN list")
    src = open_source(path, "parquet")
    import pyarrow.parquet as pq  # open_source has checked it is there
    fens = []
    for f in src.files:
        fens += pq.read_table(f, columns=["fen"]).column("fen").to_pylist()
    return fens


def vectors(net, data, out, n):
    """Write ``FEN;eval`` for n distinct positions of the data, spread
    evenly over it, eval from the quantized forward pass."""
    q, _, _ = read_net(net)
    seen, fens = set(), []
    for fen in read_fens(data):
        if fen not in seen:
            seen.add(fen)
            fens.append(fen)
    if len(fens) < n:
        raise ValueError(f"{data}: {len(fens)} distinct positions, want {n}")
    pick = np.linspace(0, len(fens) - 1, n).round().astype(int)
    with open(out, "w") as f:
        for i in pick:
            us, them = fen_features(fens[i], q["mirror"])
            f.write(f"{fens[i]};{quantized_eval(q, us, them)}\n")
    return n


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="chessforge-nnue", description="Train, export and check the engine's NNUE.")
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train (or --resume) a network on a dataset")
    t.add_argument("data", nargs="+",
                   help="NumPy export directory or Parquet file/directory/glob; several are read as one dataset")
    t.add_argument("--out", required=True, help="directory of the checkpoints (epoch-NNNN.pt)")
    t.add_argument("--val", help="validation dataset (default: every --val-every-th unit of DATA, taken "
                                 "in the order given, held out)")
    t.add_argument("--val-every", type=int, default=10, help="hold out every Nth unit when --val is absent")
    t.add_argument("--epochs", type=int, default=4, help="total epochs (with --resume: up to this many)")
    t.add_argument("--steps", type=int, default=0, help="at most this many steps per epoch (0: all)")
    t.add_argument("--batch-size", type=int, default=1024)
    t.add_argument("--shuffle-buffer", type=int, default=262144)
    t.add_argument("--lr", type=float, default=1e-3, help="the learning rate of the first epoch")
    t.add_argument("--lr-gamma", type=float, default=1.0,
                   help="multiplies the learning rate after each epoch (epoch e trains at lr*gamma^(e-1))")
    t.add_argument("--lambda", dest="lam", type=float, default=0.0,
                   help="weight of the game result in the target (the rest: sigmoid(score/400)); "
                        "0 by default: with a few million positions the result term overfits")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--init-scale", type=float, default=1.0,
                   help="scale of the initial W1 (uniform +-0.1 s) and W2 (+-0.05 s sqrt(256/H)); clipped")
    t.add_argument("--hidden", type=int,
                   help=f"accumulator width per perspective, {WIDTH_RULE} "
                        f"(default: the --init network's, else {HIDDEN})")
    t.add_argument("--buckets", type=int, choices=BUCKETS,
                   help="output buckets, chosen by the number of pieces on the board "
                        "(default: as many as the --init network has, else 1)")
    t.add_argument("--mirror", action="store_const", const=True,
                   help="king-mirrored features: each side's squares file-mirrored while its king is on files e-h "
                        "(default: as the --init network has them, else plain)")
    t.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    t.add_argument("--device", help="cpu or cuda (default: cuda when present)")
    t.add_argument("--inputs", choices=INPUTS_CHOICES, default="auto",
                   help="the features as sparse lists (EmbeddingBag) or dense rows (matrix products); "
                        "auto: dense on CUDA, sparse on the CPU. The same network up to float rounding")
    t.add_argument("--preload", action="store_true",
                   help="read the rows the filters keep once and keep them on the device (96 bytes a position), "
                        "each epoch drawing them all in a random order from the seed and the epoch; "
                        "--shuffle-buffer is not used. What keeps a GPU busy")
    t.add_argument("--resume", action="store_true", help="continue from the last checkpoint in --out")
    t.add_argument("--init", help="start from this checkpoint's (.pt) or network file's (.nnue) weights "
                                  "instead of random ones (a fresh optimizer; epochs count from 1)")
    t.add_argument("--progress", type=float, default=10,
                   help="seconds between progress lines within an epoch, on stderr (0: none)")
    t.add_argument("--min-ply", type=int, default=0)
    t.add_argument("--max-score", type=int, default=0)
    t.add_argument("--skip-in-check", action="store_true")
    t.add_argument("--skip-captures", action="store_true")
    t.add_argument("--disagree-score", type=int, default=0)
    e = sub.add_parser("export", help="quantize a checkpoint into the engine's network file")
    e.add_argument("checkpoint")
    e.add_argument("--out", required=True)
    e.add_argument("--pawn-scale", type=parse_pawn_scale,
                   help="the network's pawn table: its score is scaled by the entry (of 128) for the pawns of the "
                        "side it favours, 0, 1, 2, 3 and 4 or more (default: the table of the network the "
                        "checkpoint was trained from with --init, else "
                        f"{','.join(map(str, LEGACY_PAWN_SCALE))}, the table of networks before format version 3; "
                        "pawnscale --network FILE --write fits it)")
    v = sub.add_parser("vectors", help="write FEN;eval test vectors with the quantized forward pass")
    v.add_argument("net")
    v.add_argument("--data", required=True, help="FEN text file, pyfixture directory (fen.txt) or Parquet")
    v.add_argument("--out", required=True)
    v.add_argument("-n", type=int, default=1200)
    c = sub.add_parser("pawnscale", help="measure how the side ahead's pawns change what its score is worth "
                                         "and fit a network's pawn table (engine/nnue/pawnscale.go)")
    c.add_argument("data", nargs="+", help="NumPy export directory or Parquet file/directory/glob; several are read as one")
    c.add_argument("--min-score", type=int, default=50, help="use rows whose |score| is at least this")
    c.add_argument("--max-score", type=int, default=1500, help="and at most this")
    c.add_argument("--max-material", type=int, default=0,
                   help="use rows whose pieces other than pawns and kings are worth at most this many pawns "
                        "(N, B 3, R 5, Q 9; 0: all rows)")
    c.add_argument("--every", type=int, default=1, help="read every Nth unit (export shard) only")
    c.add_argument("--network", help="fit this network file's own score of each position instead of the "
                                     "recorded search score")
    c.add_argument("--min-rows", type=int, default=1000, help="fit a pawn count with at least this many rows")
    c.add_argument("--write", action="store_true",
                   help="write the pawn table the fit gives, at the file's level (its entry for 4+ pawns), "
                        "into the --network file (a new id)")
    c.add_argument("--level-of", metavar="REFERENCE",
                   help="with --network: give the table the level at which the network's scores of these positions "
                        "match this network file's (with its own table) in scale, in place of the file's level")
    b = sub.add_parser("table", help="print a network file's id and pawn table, or --set the table")
    b.add_argument("net")
    b.add_argument("--set", type=parse_pawn_scale,
                   help="write this pawn table, T0,T1,T2,T3,T4 of 128, into the file (a new id; the "
                        "weights kept, the command recorded in its provenance)")
    args = p.parse_args(argv)
    args.command = "chessforge-nnue " + " ".join(argv)
    try:
        if args.cmd == "train":
            path = train(args)
            print(f"checkpoint {path}")
        elif args.cmd == "export":
            print(f"wrote {args.out}: network {export(args.checkpoint, args.out, args.pawn_scale)}")
        elif args.cmd == "pawnscale":
            if args.min_rows < 1:
                raise ValueError(f"pawnscale --min-rows {args.min_rows}: want at least 1")
            if args.write and not args.network:
                raise ValueError("pawnscale --write: needs --network FILE, the network whose table it writes")
            if args.level_of and not args.network:
                raise ValueError("pawnscale --level-of: needs --network FILE, the network whose level it fits")
            network, scorer = None, ""
            if args.network:
                network, net_id = network_scores(args.network)
                scorer = f" (network {net_id}'s)"
            rows, fits = pawnscale.fit(args.data, args.min_score, args.max_score, args.max_material, args.every,
                                       args.min_rows, network)
            for line in pawnscale.report(rows, fits, args.min_score, args.max_score, args.max_material, scorer):
                print(line)
            if args.network:
                try:
                    table = pawnscale.table(fits, read_net(args.network)[0]["pawn_scale"][-1])
                    if args.level_of:
                        table = pawnscale.table(fits, matching_level(args, network, table))
                except ValueError as err:
                    if args.write:
                        raise
                    print(f"pawn table: {err}")
                    return 0
                print(f"pawn table {' '.join(map(str, table))}")
                if args.write:
                    new_id = set_pawn_scale(args.network, table, args.command)
                    print(f"wrote {args.network}: network {new_id}")
        elif args.cmd == "table":
            if args.set is not None:
                print(f"wrote {args.net}: network {set_pawn_scale(args.net, args.set, args.command)}")
            q, _, net_id = read_net(args.net)
            print(f"network {net_id}: pawn table {' '.join(map(str, q['pawn_scale']))}")
        else:
            print(f"wrote {args.out}: {vectors(args.net, args.data, args.out, args.n)} positions")
    except pawnscale.TooFewRows as err:
        print(f"chessforge-nnue: {err}", file=sys.stderr)
        return pawnscale.EXIT_TOO_FEW
    except (OSError, ValueError, ImportError) as err:
        print(f"chessforge-nnue: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
