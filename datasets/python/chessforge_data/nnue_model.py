"""The float network of chessforge's NNUE and its inputs: the
architecture's sizes, the features of a position (from compact rows, from
planes, from a FEN) and :class:`Net`, the model the trainer fits.

Features: for perspective P, a piece of colour C and type T (pawn..king =
0..5) on square sq (a1 = 0) is feature ``((C == P ? 0 : 6) + T) * 64 +
(P == White ? sq : sq ^ 56)``. With the loader's ``side_to_move=True`` the
planes 0-11 of a row are exactly the side to move's features (``plane*64 +
sq``); the other side's are the same pieces colour-swapped and
rank-mirrored (:data:`THEM`). ``--mirror`` trains the king-mirrored feature
set (``768hm``): a perspective whose own king stands on files e-h sees every
square file-mirrored, ``sq ^ 7``, so that one half of the weights serves
both wings (file format version 2 records the feature set).

Float model: ``out = w2[b, :H] . screlu(us) + w2[b, H:] . screlu(them) +
b2[b]`` with ``us``/``them = b1 + sum of the W1 rows of the active
features``, ``screlu(x) = clamp(x, 0, 1)^2`` and the output bucket ``b =
min((pieces - 2) // (32 // B), B - 1)`` chosen by the number of pieces on
the board; evaluation ``SCALE * out`` centipawns for the side to move.
W1, b1 and W2 stay within [-CLIP, CLIP] (:meth:`Net.clip_`), so that the
quantized weights stay within |W1q| <= 505 and |W2q| <= 127.

Inputs: the trainer reads compact rows (:meth:`ChessDataset.compact_batches`)
and builds the features from their 768 piece bits (:func:`piece_bits`): as
sparse lists for the EmbeddingBag on a CPU (:func:`sparse_features`), as
dense 0/1 rows through matrix products on CUDA (:func:`dense_features`,
:meth:`Net.forward_dense`). Both give the same network up to float
rounding. On a CPU the trainer runs :meth:`Net.forward`'s arithmetic
through :mod:`chessforge_data.nnue_kernel` (compiled C, the features
straight from the compact rows), or where it cannot be built through
:mod:`chessforge_data.nnue_sparse` (torch, the forward and backward
written out); :meth:`Net.forward` is the reference both are tested against.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

INPUTS = 768
HIDDEN = 256  # the accumulator width of a network unless --hidden says otherwise
HIDDEN_STEP = 16  # widths are multiples of this (a vector's lanes) ...
MAX_HIDDEN = 1024  # ... up to this (engine/nnue: the vector output layer stays exact)
WIDTH_RULE = f"a multiple of {HIDDEN_STEP} from {HIDDEN_STEP} to {MAX_HIDDEN}"  # for messages
BUCKETS = (1, 2, 4, 8)  # the output bucket counts the format allows
SCALE = 400  # the evaluation is SCALE * out centipawns
CLIP = 1.98  # the bound of W1, b1 and W2 after every step


def valid_hidden(hidden):
    """Whether a network may have accumulators this wide: a multiple of
    HIDDEN_STEP from HIDDEN_STEP to MAX_HIDDEN (engine/nnue.ValidHidden)."""
    return HIDDEN_STEP <= hidden <= MAX_HIDDEN and hidden % HIDDEN_STEP == 0


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
        # matrix product over all buckets costs more than the rest). The
        # rows are picked by a one-hot matrix product, exactly the rows,
        # so that their gradient is a matrix product too: indexing's
        # backward accumulates the many equal indices one by one, which on
        # a GPU took 90% of a step at batch 16,384 with every row in one
        # bucket (record 2026-12-04-gpu-train-step-variants).
        onehot = F.one_hot(bucket(pieces, self.buckets), self.buckets).to(x.dtype)
        return (x * (onehot @ self.out.weight)).sum(1) + onehot @ self.out.bias

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

