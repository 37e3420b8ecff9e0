"""A PyTorch IterableDataset streaming batches of training positions."""

import math

import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info

from . import layout
from .sources import open_source

VALUE_TARGETS = ("result", "score", "blend")


def value_target(result, score_cp, target="result", score_scale=400.0, blend=0.5):
    """The value target of each row, from White's point of view (the planes
    are never flipped, so neither is the target):

    - ``"result"``: the game's result, 1.0 White won, 0.5 drawn, 0.0 lost.
    - ``"score"``: the search score through a sigmoid,
      ``1 / (1 + exp(-score_cp / score_scale))``; with the default scale of
      400, +400 cp maps to 0.731 and a mate score (±(32000 − plies)) to 1
      or 0.
    - ``"blend"``: ``blend * result + (1 - blend) * sigmoid(score_cp / score_scale)``.
    """
    result = np.asarray(result, dtype=np.float32)
    if target == "result":
        return result
    score = np.asarray(score_cp, dtype=np.float64)
    s = (1.0 / (1.0 + np.exp(-score / score_scale))).astype(np.float32)
    if target == "score":
        return s
    if target == "blend":
        return (np.float32(blend) * result + np.float32(1 - blend) * s).astype(np.float32)
    raise ValueError(f"value target {target!r}: want one of {VALUE_TARGETS}")


class ChessDataset(IterableDataset):
    """Streams batches ``(planes, policy, value, score)`` from a dataset:

    - ``planes``: float32 [B, 18, 8, 8], SPEC §1, exactly the Parquet planes;
    - ``policy``: int64 [B], SPEC §2 index of the best move (class labels
      for a 4672-way policy head);
    - ``value``: float32 [B], the value target chosen by ``value_target``
      (see :func:`value_target`);
    - ``score``: float32 [B], the raw ``score_cp`` (White's point of view).

    ``path`` is a NumPy export directory (read with NumPy alone, memory-mapped)
    or a Parquet file, directory or glob (read with pyarrow). The dataset
    yields whole batches: wrap it in ``DataLoader(ds, batch_size=None,
    num_workers=k)``.

    Sharding: the source's units (export shards; Parquet row groups) are
    dealt round-robin to ``world_size`` processes × the DataLoader's
    workers, so each row is read once per epoch.

    Shuffling (``shuffle_buffer > 0``): units are visited in an order
    shuffled per epoch, and rows pass through a buffer of
    ``shuffle_buffer`` rows from which batches are drawn at random. Seeded
    by ``seed``, the epoch (``set_epoch``), the rank and the worker, so a run
    is reproducible. With ``shuffle_buffer=0`` rows come in file order.
    """

    def __init__(self, path, batch_size=256, shuffle_buffer=0, seed=0, value_target="result",
                 score_scale=400.0, blend=0.5, fmt="auto", drop_last=False, rank=0, world_size=1,
                 chunk_rows=8192):
        super().__init__()
        if value_target not in VALUE_TARGETS:
            raise ValueError(f"value_target {value_target!r}: want one of {VALUE_TARGETS}")
        if batch_size < 1:
            raise ValueError(f"batch_size {batch_size}: want at least 1")
        if not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} is not in [0, {world_size})")
        self.source = open_source(path, fmt)
        self.batch_size = batch_size
        self.shuffle_buffer = shuffle_buffer
        self.seed = seed
        self.value_target = value_target
        self.score_scale = score_scale
        self.blend = blend
        self.drop_last = drop_last
        self.rank, self.world_size = rank, world_size
        self.chunk_rows = chunk_rows
        self.epoch = 0

    @property
    def num_rows(self):
        return self.source.num_rows

    def set_epoch(self, epoch):
        """Choose the epoch, which changes the shuffle order."""
        self.epoch = epoch

    def _my_units(self):
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        units = list(self.source.units)
        if self.shuffle_buffer > 0:
            order = np.random.default_rng([self.seed, self.epoch]).permutation(len(units))
            units = [units[i] for i in order]
        k, n = self.rank * workers + worker, self.world_size * workers
        return units[k::n], np.random.default_rng([self.seed, self.epoch, self.rank, worker, 1])

    def _batch(self, packed, scalars, policy, score, result):
        planes = layout.unpack(packed, scalars)
        value = value_target(result, score, self.value_target, self.score_scale, self.blend)
        return (torch.from_numpy(planes), torch.from_numpy(np.ascontiguousarray(policy, dtype=np.int64)),
                torch.from_numpy(value), torch.from_numpy(np.ascontiguousarray(score, dtype=np.float32)))

    def __iter__(self):
        units, rng = self._my_units()
        chunks = (c for u in units for c in self.source.read(u, self.chunk_rows))
        B = self.batch_size
        pool = None  # list of arrays: packed, scalars, policy, score, result

        def emit(pool, n_batches):
            for i in range(n_batches):
                yield self._batch(*(a[i * B:(i + 1) * B] for a in pool))

        for c in chunks:
            pool = list(c) if pool is None else [np.concatenate([a, b]) for a, b in zip(pool, c)]
            n = len(pool[2])
            if self.shuffle_buffer <= 0:
                k = n // B
            elif n >= self.shuffle_buffer + B:
                perm = rng.permutation(n)
                pool = [a[perm] for a in pool]
                # Draw batches until half the buffer is left to mix with
                # the rows still to come.
                k = max(1, (n - self.shuffle_buffer // 2) // B)
            else:
                continue
            yield from emit(pool, k)
            pool = [a[k * B:] for a in pool]
        if pool is None or len(pool[2]) == 0:
            return
        if self.shuffle_buffer > 0:
            perm = rng.permutation(len(pool[2]))
            pool = [a[perm] for a in pool]
        n = len(pool[2])
        yield from emit(pool, n // B)
        if n % B and not self.drop_last:
            yield self._batch(*(a[(n // B) * B:] for a in pool))

    def batches_per_epoch(self):
        """An upper bound on the batches one process yields per epoch."""
        return math.ceil(self.num_rows / self.world_size / self.batch_size) + 1
