"""A PyTorch IterableDataset streaming batches of training positions."""

import math

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

from . import layout
from .filters import Filters
from .sources import open_source

VALUE_TARGETS = ("result", "score", "blend")


def value_target(result, score_cp, target="result", score_scale=400.0, blend=0.5):
    """The value target of each row, from the point of view of ``result``
    and ``score_cp`` (White's as stored; the side to move's when the
    dataset mirrors, ``side_to_move=True``):

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

    - ``planes``: float32 [B, 18, 8, 8], the plane layout of docs/format.md §1, exactly the Parquet planes;
    - ``policy``: int64 [B], the policy index of docs/format.md §2 of the best move (class labels
      for a 4672-way policy head);
    - ``value``: float32 [B], the value target chosen by ``value_target``
      (see :func:`value_target`);
    - ``score``: float32 [B], the raw ``score_cp``.

    All from White's point of view, as stored; with ``side_to_move=True``
    every row with Black to move is mirrored: planes with ranks flipped and
    colours swapped (so the side to move is always "White", plane 13 all
    1.0), the best move's policy index mirrored to match
    (:data:`layout.POLICY_MIRROR`), and ``value`` and ``score`` from the side
    to move (1 - result, -score_cp).

    ``path`` is a NumPy export directory (read with NumPy alone, memory-mapped)
    or a Parquet file, directory or glob (read with pyarrow), or a list of
    such paths, all of one game, read as one dataset. The dataset
    yields whole batches: wrap it in ``DataLoader(ds, batch_size=None,
    num_workers=k)``.

    Read-time filters (all off by default, the same names as every
    chessforge reader; see :class:`Filters`): ``min_ply``, ``max_score``,
    ``skip_in_check``, ``skip_captures``, ``disagree_score``.

    Sharding: the source's units (export shards; Parquet row groups) are
    dealt round-robin to ``world_size`` processes × the DataLoader's
    workers, so each row is read once per epoch.

    Shuffling (``shuffle_buffer > 0``): units are visited in an order
    shuffled per epoch, and rows pass through a buffer of
    ``shuffle_buffer`` rows from which batches are drawn at random. Seeded
    by ``seed``, the epoch (``set_epoch``), the rank and the worker, so a run
    is reproducible. With ``shuffle_buffer=0`` rows come in file order.

    ``len(ds)`` is the number of batches this rank yields in the current
    epoch when one process reads them (``num_workers=0``); with k DataLoader
    workers each worker ends on its own short batch (see
    :meth:`batches_per_epoch`). ``num_rows`` is the rows the filters keep.
    Both are exact: without filters from the export's manifest or the
    Parquet footers, with filters by reading the filter columns once (not
    the planes).
    """

    def __init__(self, path, batch_size=256, shuffle_buffer=0, seed=0, value_target="result",
                 score_scale=400.0, blend=0.5, fmt="auto", drop_last=False, rank=0, world_size=1,
                 chunk_rows=8192, side_to_move=False, min_ply=0, max_score=0, skip_in_check=False,
                 skip_captures=False, disagree_score=0):
        super().__init__()
        if value_target not in VALUE_TARGETS:
            raise ValueError(f"value_target {value_target!r}: want one of {VALUE_TARGETS}")
        if batch_size < 1:
            raise ValueError(f"batch_size {batch_size}: want at least 1")
        if not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} is not in [0, {world_size})")
        self.filters = Filters(min_ply=min_ply, max_score=max_score, skip_in_check=skip_in_check,
                               skip_captures=skip_captures, disagree_score=disagree_score)
        self.source = open_source(path, fmt)
        self.layout = self.source.layout  # the dataset's game: the planes' shape, the policy's size
        self.batch_size = batch_size
        self.shuffle_buffer = shuffle_buffer
        self.seed = seed
        self.value_target = value_target
        self.score_scale = score_scale
        self.blend = blend
        self.drop_last = drop_last
        self.rank, self.world_size = rank, world_size
        self.chunk_rows = chunk_rows
        self.side_to_move = side_to_move
        self.epoch = 0
        self._kept = {}  # unit -> rows the filters keep

    def unit_rows(self, unit):
        """The rows of a unit that the filters keep."""
        if not self.filters:
            return self.source.unit_rows(unit)
        if unit not in self._kept:
            cols = self.source.read_columns(unit, ("score_cp", "result") + self.filters.columns())
            self._kept[unit] = int(np.count_nonzero(self.filters.keep(cols)))
        return self._kept[unit]

    @property
    def num_rows(self):
        """The rows of the whole dataset (every rank) that the filters keep."""
        if not self.filters:
            return self.source.num_rows
        return sum(self.unit_rows(u) for u in self.source.units)

    def set_epoch(self, epoch):
        """Choose the epoch, which changes the shuffle order."""
        self.epoch = epoch

    def _units(self, worker, workers):
        units = list(self.source.units)
        if self.shuffle_buffer > 0:
            order = np.random.default_rng([self.seed, self.epoch]).permutation(len(units))
            units = [units[i] for i in order]
        k, n = self.rank * workers + worker, self.world_size * workers
        return units[k::n]

    def _count(self, rows):
        B = self.batch_size
        return rows // B + (1 if rows % B and not self.drop_last else 0)

    def batches_per_epoch(self, num_workers=0):
        """The batches this rank yields in the current epoch when read by
        ``num_workers`` DataLoader workers (0: in the main process): each
        worker ends on its own short batch unless ``drop_last``."""
        workers = max(1, num_workers)
        return sum(self._count(sum(self.unit_rows(u) for u in self._units(w, workers))) for w in range(workers))

    def __len__(self):
        return self.batches_per_epoch(0)

    def _view(self, rows):
        """The batch's rows as the dataset presents them: mirrored where
        Black is to move when ``side_to_move``."""
        if not self.side_to_move:
            return rows
        lay = self.layout
        packed, scalars = rows["packed"], rows["scalars"]
        black = lay.black_to_move(scalars)
        if not black.any():
            return rows
        packed, scalars = lay.mirror(packed, scalars, black)
        policy, score, result = rows["policy"], rows["score_cp"], rows["result"]
        return {"packed": packed, "scalars": scalars,
                "policy": np.where(black, lay.policy_mirror[policy], policy),
                "score_cp": np.where(black, -score, score),
                "result": np.where(black, np.float32(1) - result, result).astype(np.float32)}

    def _tensors(self, rows):
        """The batch's tensors: float32 planes, int64 policy, value, score."""
        planes = self.layout.unpack(rows["packed"], rows["scalars"])
        value = self._value(rows)
        return (torch.from_numpy(planes), torch.from_numpy(rows["policy"].astype(np.int64)),
                torch.from_numpy(value), torch.from_numpy(rows["score_cp"].astype(np.float32)))

    def _batch(self, rows):
        return self._tensors(self._view(rows))

    def compact_batches(self):
        """The same batches as iterating the dataset, in the same order,
        before the planes are unpacked: dicts of NumPy arrays, ``packed``
        (uint8 [B, *layout.packed_shape], the binary planes' bits, byte j
        of a plane its rank j, file a the high bit) and ``scalars``,
        ``policy``, ``score_cp``, ``result`` as the dataset presents them
        (from the side to move with ``side_to_move``), and ``value``
        (float32 [B], the value target). For consumers that build their
        own inputs from the bits (the NNUE trainer's features) and need
        not pay for float32 planes."""
        for rows in self._batches():
            rows = dict(self._view(rows))
            rows["value"] = self._value(rows)
            yield rows

    def _value(self, rows):
        """The value target of the rows as the dataset presents them."""
        return value_target(rows["result"], rows["score_cp"], self.value_target, self.score_scale, self.blend)

    def loader(self, num_workers=0, group_rows=4096, **kwargs):
        """An iterable of this dataset's batches, read by ``num_workers``
        DataLoader worker processes (0: in this process, the same as
        iterating the dataset). The workers read, filter, shuffle and mirror;
        they send rows compact (136 bytes each, ``group_rows`` at a time) and
        this process unpacks them to float32, which costs several times less
        CPU than sending float32 planes between processes (what
        ``DataLoader(ds, batch_size=None, num_workers=k)`` does). The batches
        are those that DataLoader would give. ``kwargs`` go to the
        DataLoader (``persistent_workers``, ``multiprocessing_context``...).
        ``len()`` of the result is :meth:`batches_per_epoch`."""
        return Loader(self, num_workers, group_rows, kwargs)

    def _chunks(self, units):
        columns = self.filters.columns()
        for u in units:
            for c in self.source.read(u, self.chunk_rows, columns):
                if self.filters:
                    keep = self.filters.keep(c)
                    if not keep.all():
                        c = {k: v[keep] for k, v in c.items()}
                for k in columns:
                    del c[k]
                if len(c["policy"]):
                    yield c

    def _batches(self):
        """The rows of each batch this process (or worker) yields, as dicts."""
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        units = self._units(worker, workers)
        rng = np.random.default_rng([self.seed, self.epoch, self.rank, worker, 1])
        B = self.batch_size
        pending, n = [], 0  # chunks not yet drawn from, and their rows

        def take(pending, idx):
            return {k: v[idx] for k, v in pending.items()}

        for c in self._chunks(units):
            pending.append(c)
            n += len(c["policy"])
            if self.shuffle_buffer <= 0:
                if n < B:
                    continue
                pool = {k: np.concatenate([p[k] for p in pending]) for k in c}
                k = n // B
                for i in range(k):
                    yield take(pool, slice(i * B, (i + 1) * B))
                pending = [take(pool, slice(k * B, n))]
                n -= k * B
            elif n >= self.shuffle_buffer + B:
                # The buffer in a random order (one gather per column),
                # then batches drawn as slices until half the buffer is left
                # to mix with the rows still to come.
                perm = rng.permutation(n)
                pool = {key: np.concatenate([p[key] for p in pending])[perm] for key in c}
                k = max(1, (n - self.shuffle_buffer // 2) // B)
                for i in range(k):
                    yield take(pool, slice(i * B, (i + 1) * B))
                pending = [take(pool, slice(k * B, n))]
                n -= k * B
        if n == 0:
            return
        pool = {key: np.concatenate([p[key] for p in pending]) for key in pending[0]}
        if self.shuffle_buffer > 0:
            perm = rng.permutation(n)
            pool = {key: v[perm] for key, v in pool.items()}
        for i in range(n // B):
            yield take(pool, slice(i * B, (i + 1) * B))
        if n % B and not self.drop_last:
            yield take(pool, slice((n // B) * B, n))

    def __iter__(self):
        for rows in self._batches():
            yield self._batch(rows)


def _fields(lay):
    """The compact row the workers of ChessDataset.loader send, for layout
    lay: (column, dtype, first byte, end byte) of each column, and the
    row's bytes (136 for chess)."""
    fields, at = [], 0
    for name, dtype, size in (("packed", np.uint8, 8 * lay.packed_shape[0]), ("scalars", np.float32, 4 * lay.num_scalars),
                              ("policy", np.int32, 4), ("score_cp", np.int32, 4), ("result", np.float32, 4)):
        fields.append((name, dtype, at, at + size))
        at += size
    return tuple(fields), at


_FIELDS, ROW_BYTES = _fields(layout.CHESS)


def _encode(batches, lay=layout.CHESS):
    """The rows of several batches as one uint8 array [n, row bytes]."""
    fields, row_bytes = _fields(lay)
    n = sum(len(b["policy"]) for b in batches)
    out = np.empty((n, row_bytes), dtype=np.uint8)
    lo = 0
    for b in batches:
        hi = lo + len(b["policy"])
        for name, dtype, a, z in fields:
            v = np.ascontiguousarray(b[name], dtype=dtype).reshape(hi - lo, -1)
            out[lo:hi, a:z] = v.view(np.uint8)
        lo = hi
    return out


def _decode(rows, lay=layout.CHESS):
    """The columns of compact rows [n, row bytes] of layout lay."""
    n = len(rows)
    out = {}
    for name, dtype, a, z in _fields(lay)[0]:
        v = np.ascontiguousarray(rows[:, a:z]).view(dtype)
        out[name] = v.reshape(n) if z - a == 4 else v
    out["packed"] = out["packed"].reshape((n,) + lay.packed_shape)
    return out


class _Compact(IterableDataset):
    """What a worker of ChessDataset.loader yields: groups of whole batches,
    mirrored as the dataset asks, as (rows [n, ROW_BYTES] uint8, the batch
    sizes)."""

    def __init__(self, ds, group_rows):
        super().__init__()
        self.ds, self.group_rows = ds, group_rows

    def __iter__(self):
        group, n = [], 0
        for rows in self.ds._batches():
            group.append(self.ds._view(rows))
            n += len(rows["policy"])
            if n >= self.group_rows:
                yield _encode(group, self.ds.layout), np.array([len(b["policy"]) for b in group])
                group, n = [], 0
        if group:
            yield _encode(group, self.ds.layout), np.array([len(b["policy"]) for b in group])


class Loader:
    """The batches of a ChessDataset read by DataLoader workers that send
    compact rows; see :meth:`ChessDataset.loader`."""

    def __init__(self, ds, num_workers, group_rows, kwargs):
        self.ds, self.num_workers, self.group_rows, self.kwargs = ds, num_workers, group_rows, kwargs

    def __len__(self):
        return self.ds.batches_per_epoch(self.num_workers)

    def __iter__(self):
        if self.num_workers <= 0:
            yield from self.ds
            return
        dl = DataLoader(_Compact(self.ds, self.group_rows), batch_size=None, num_workers=self.num_workers,
                        **self.kwargs)
        for rows, sizes in dl:
            cols = _decode(rows.numpy(), self.ds.layout)
            lo = 0
            for size in sizes.tolist():
                yield self.ds._tensors({k: v[lo:lo + size] for k, v in cols.items()})
                lo += size
