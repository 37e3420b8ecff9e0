"""Checks of a network file against the data: its own scores of a
dataset's rows (:func:`network_scores`, what ``chessforge-nnue pawnscale
--network`` fits the pawn table to) and test vectors, ``FEN;eval`` lines
from the engine's integer forward pass (:func:`vectors`, ``chessforge-nnue
vectors``; engine/nnue/testdata).
"""

import os

import numpy as np
import torch

from . import atomic, layout
from .nnue_export import dequantize, quantized_eval, read_net
from .nnue_model import SCALE, Net, fen_features, piece_bits, sparse_features
from .sources import open_source


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

    def fill(f):
        for i in pick:
            us, them = fen_features(fens[i], q["mirror"])
            f.write(f"{fens[i]};{quantized_eval(q, us, them)}\n")

    atomic.write(out, fill, binary=False)  # a failure keeps the earlier file
    return n

