"""The NNUE trainer's training rows, read pass after pass: :func:`pieces`
in the trainer's own process, :func:`pieces_apart` in a process of its
own, so that reading, filtering, shuffling and mirroring do not wait for
the training thread's hold on Python's interpreter lock (beside a
training thread, a reading thread of the same process ran about three
times slower than alone: record 2026-12-02-nnue-train-fused-tiles). Both
give the same rows in the same order.
"""

import time

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset


def pieces(ds, pass_=0, offset=0, passes=None, empty_ok=False):
    """(pass, packed, value) for each of ``ds``'s compact batches, pass
    after pass from ``pass_`` (``set_epoch`` with the pass's number, so
    the seed and the pass fix its order), the first ``offset`` rows of the
    first pass dropped; ``passes`` passes, or without end. ``ds`` is a
    :class:`ChessDataset` or the trainer's ``Preloaded`` one. A pass
    without rows is a ValueError unless ``empty_ok``."""
    p, skip, done = pass_, offset, 0
    while passes is None or done < passes:
        ds.set_epoch(p)
        seen = 0
        for rows in ds.compact_batches():
            packed, value = rows["packed"], rows["value"]
            k = len(value)
            seen += k
            if seen <= skip:
                continue
            if seen - k < skip:
                cut = skip - (seen - k)
                packed, value = packed[cut:], value[cut:]
            yield p, packed, value
        if not seen and not empty_ok:
            raise ValueError("no training positions (after the filters): a superbatch has none to draw")
        p, skip, done = p + 1, 0, done + 1


class _Failed:
    """An error of the reading process, carried to the trainer's."""

    def __init__(self, err):
        self.err = err


class _Pieces(IterableDataset):
    def __init__(self, ds, pass_, offset, passes, empty_ok):
        super().__init__()
        self.ds, self.args = ds, (pass_, offset, passes, empty_ok)

    def __iter__(self):
        try:
            for p, packed, value in pieces(self.ds, *self.args):
                yield p, np.ascontiguousarray(packed), np.ascontiguousarray(value), time.process_time()
        except Exception as err:  # raised again, as it is, in the trainer's process
            yield _Failed(err)


class Apart:
    """The iterator :func:`pieces_apart` returns; ``cpu_seconds`` is the
    reading process's CPU time as of the last piece it handed over (the
    trainer's own process time does not count it)."""

    def __init__(self, ds, pass_, offset, passes, empty_ok, ahead):
        self.cpu_seconds = 0.0
        self._items = iter(DataLoader(_Pieces(ds, pass_, offset, passes, empty_ok), batch_size=None, num_workers=1,
                                      prefetch_factor=max(1, ahead)))

    def __iter__(self):
        return self

    def __next__(self):
        item = next(self._items)
        if isinstance(item, _Failed):
            raise item.err
        p, packed, value, self.cpu_seconds = item
        return int(p), _array(packed), _array(value)


def _array(t):
    return t.numpy() if isinstance(t, torch.Tensor) else t


def pieces_apart(ds, pass_=0, offset=0, passes=None, empty_ok=False, ahead=2):
    """:func:`pieces`, read by one DataLoader worker process up to
    ``ahead`` batches ahead and handed over in shared memory, as NumPy
    arrays (an :class:`Apart`). An error of the reading is raised here as
    it was raised there (the same type and message)."""
    return Apart(ds, pass_, offset, passes, empty_ok, ahead)
