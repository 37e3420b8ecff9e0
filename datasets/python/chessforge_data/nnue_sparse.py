"""The CPU trainer's fast path: a batch's features built straight from its
compact rows, and the whole float network's forward and backward as one
autograd function (:func:`forward`), with the same arithmetic as
:meth:`Net.forward <chessforge_data.nnue_model.Net.forward>` up to float
rounding.

The accumulators of both perspectives come from one EmbeddingBag sum over
W1 (bag ``2p`` is position p's side to move, ``2p + 1`` the other side), so
that the [2B, H] result is already the [B, 2H] input of the output layer.
The gradient of W1 is the same kind of sum turned around: each feature's
row is the sum of the accumulator gradients of the bags it is in
(:attr:`Features.t_bag`, grouped by feature), a dense [768, H] gradient
that the optimiser takes as it is, without a sort. SCReLU, the output
layer and their gradients are a few whole-tensor operations.
"""

import queue
import threading
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from .nnue_model import INPUTS, THEM, bucket


class Features(NamedTuple):
    """A batch's sparse inputs (:func:`features`), int64 tensors on the
    CPU: ``idx``/``off`` the EmbeddingBag lists (bag 2p: position p's side
    to move's features, 2p + 1 the other side's), ``t_bag``/``t_off`` the
    same pairs by feature (the bags of feature f are ``t_bag[t_off[f]:
    t_off[f + 1]]``), and ``pieces`` the number of pieces of each
    position."""

    idx: torch.Tensor
    off: torch.Tensor
    t_bag: torch.Tensor
    t_off: torch.Tensor
    pieces: torch.Tensor


def features(packed, mirror=False):
    """The :class:`Features` of compact rows (uint8 [B, >=12, 8], a NumPy
    array or a CPU tensor: the 12 piece planes of the side to move, a byte
    a rank, file a the high bit), the same features as
    :func:`sparse_features(piece_bits(packed), mirror)
    <chessforge_data.nnue_model.sparse_features>`. The set bits are found
    among the nonzero bytes only (at most 32 of the 96 a row)."""
    if isinstance(packed, torch.Tensor):
        packed = packed.numpy()
    n = packed.shape[0]
    p = np.ascontiguousarray(packed[:, :12]).reshape(n, 96)
    nonzero = np.flatnonzero(p)
    bit = np.flatnonzero(np.unpackbits(p.ravel()[nonzero]))
    entry = nonzero[bit >> 3]
    pos = entry // 96
    us = (entry % 96) * 8 + (bit & 7)  # plane * 64 + rank * 8 + file, by position
    them = THEM[us]
    if mirror:
        # Planes 5 and 11 hold the side to move's king and the other's;
        # ranks are mirrored between the views, files are not.
        flips = []
        for plane in (5, 11):
            king = (us >> 6) == plane
            flip = np.zeros(n, dtype=np.int64)
            flip[pos[king]] = np.where(us[king] % 8 >= 4, 7, 0)
            flips.append(flip[pos])
        us, them = us ^ flips[0], them ^ flips[1]
    count = np.bincount(pos, minlength=n)
    start = np.zeros(n, dtype=np.int64)
    np.cumsum(count[:-1], out=start[1:])
    # Position p's entries: its side to move's from 2 start[p], then its
    # other side's.
    dest = np.arange(len(us)) + start[pos]
    idx = np.empty(2 * len(us), dtype=np.int64)
    idx[dest] = us
    idx[dest + count[pos]] = them
    off = np.empty(2 * n, dtype=np.int64)
    off[0::2] = 2 * start
    off[1::2] = 2 * start + count
    # By feature: a stable radix sort of the (16-bit) features.
    feats = np.concatenate([us, them])
    bags = np.concatenate([2 * pos, 2 * pos + 1])
    order = np.argsort(feats.astype(np.int16), kind="stable")
    t_off = np.zeros(INPUTS, dtype=np.int64)
    np.cumsum(np.bincount(feats, minlength=INPUTS)[:-1], out=t_off[1:])
    return Features(*(torch.from_numpy(a) for a in (idx, off, bags[order], t_off, count)))


def ahead(batches, mirror=False, depth=2, build=True):
    """The compact-row batches of ``batches`` (an iterator of dicts with
    "packed"), each with its :class:`Features` added as "features" (with
    ``build``), read and built on a thread of their own up to ``depth``
    batches ahead of the caller, in the same order."""
    done = object()
    q = queue.Queue(depth)
    stop = threading.Event()

    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    def produce():
        try:
            for rows in batches:
                if not put(dict(rows, features=features(rows["packed"], mirror)) if build else rows):
                    return
            put(done)
        except BaseException as err:  # raised in the caller's thread
            put(err)

    worker = threading.Thread(target=produce, name="nnue-batches", daemon=True)
    worker.start()
    try:
        while True:
            item = q.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()


_ABOVE_ONE = float(np.nextafter(np.float32(1), np.float32(2)))  # the float32 after 1


class _Network(torch.autograd.Function):
    """out [B] from W1 [768, H], b1 [H], W2 [nb, 2H], b2 [nb] and a
    batch's :class:`Features`; ``b`` is each position's output bucket
    (None with one bucket)."""

    @staticmethod
    def forward(ctx, w1, b1, w2, b2, f, b):
        n, h = len(f.pieces), w1.shape[1]
        acc = F.embedding_bag(f.idx, w1, f.off, mode="sum").view(n, 2, h).add_(b1).view(n, 2 * h)
        c = acc.clamp(0, 1)
        a = c * c
        # SCReLU's derivative is 2 d with d = clamp(x, 0, 1) where x <= 1
        # (autograd's clamp passes the gradient at both ends) and 0 beyond;
        # hardtanh_backward keeps c where 0 < x < _ABOVE_ONE, that is x <= 1,
        # in one pass (at x <= 0 c is 0 anyway).
        d = torch.ops.aten.hardtanh_backward(c, acc, 0.0, _ABOVE_ONE)
        if b is None:
            out = torch.mv(a, w2[0]).add_(b2[0])
        else:
            out = (a * w2[b]).sum(1).add_(b2[b])
        ctx.f, ctx.b = f, b
        ctx.save_for_backward(w2, a, d)
        return out

    @staticmethod
    def backward(ctx, g):
        w2, a, d = ctx.saved_tensors
        f, b = ctx.f, ctx.b
        n, nb = a.shape[0], w2.shape[0]
        if b is None:
            grad_w2 = torch.mv(a.t(), g)[None]
            grad_b2 = g.sum().reshape(1)
            grad_acc = torch.outer(g, 2 * w2[0]).mul_(d)
        else:
            onehot = F.one_hot(b, nb).to(g.dtype)
            grad_w2 = onehot.t() @ (a * g[:, None])
            grad_b2 = onehot.t() @ g
            grad_acc = (w2[b] * (2 * g)[:, None]).mul_(d)
        h = d.shape[1] // 2
        rows = grad_acc.view(2 * n, h)
        grad_b1 = rows.sum(0)
        grad_w1 = F.embedding_bag(f.t_bag, rows, f.t_off, mode="sum")
        return grad_w1, grad_b1, grad_w2, grad_b2, None, None


def forward(model, f):
    """The output (eval / SCALE) of each position of a batch of
    :class:`Features` through ``model`` (a :class:`Net` on the CPU),
    differentiable in its parameters: :meth:`Net.forward`'s result."""
    b = None if model.buckets == 1 else bucket(f.pieces, model.buckets)
    return _Network.apply(model.ft.weight, model.b1, model.out.weight, model.out.bias, f, b)
