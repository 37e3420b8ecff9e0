"""Readers of a dataset's rows in compact form, from the NumPy export
(NumPy alone) or from Parquet (pyarrow).

A source lists its *units*, the pieces that DataLoader workers share out
(a shard of the NumPy export; a row group of a Parquet file), and reads a
unit as chunks of rows: ``Chunk(packed, scalars, policy, score_cp, result)``
with packed bits and scalars as in :mod:`chessforge_data.layout`.
"""

import collections
import glob
import json
import os

import numpy as np

from . import layout

Chunk = collections.namedtuple("Chunk", "packed scalars policy score_cp result")

NPY_FORMAT = "chessforge-npy"
NPY_VERSION = 1
MANIFEST = "manifest.json"


def _check_array(path, arr, dtype, shape):
    if arr.dtype != np.dtype(dtype) or tuple(arr.shape) != tuple(shape):
        raise ValueError(f"{path}: array is {arr.dtype} {tuple(arr.shape)}, want {np.dtype(dtype)} {tuple(shape)}")


class NpySource:
    """The NumPy export in a directory: ``manifest.json`` and its shards,
    memory-mapped. One unit per shard."""

    def __init__(self, path):
        self.path = path
        mpath = os.path.join(path, MANIFEST)
        try:
            with open(mpath) as f:
                m = json.load(f)
        except FileNotFoundError:
            raise FileNotFoundError(f"{mpath}: no manifest (not a NumPy export, or an unfinished one)") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"{mpath}: {e}") from None
        want = {"format": NPY_FORMAT, "version": NPY_VERSION, "planes": layout.PLANES_VERSION,
                "policy": layout.POLICY_VERSION, "binary_planes": list(layout.BINARY_PLANES),
                "scalar_planes": list(layout.SCALAR_PLANES)}
        for k, v in want.items():
            if m.get(k) != v:
                raise ValueError(f"{mpath}: {k} is {m.get(k)!r}, this reader knows {v!r}")
        self.manifest = m
        self.shards = m["shards"]
        self.num_rows = int(m["rows"])
        if sum(s["rows"] for s in self.shards) != self.num_rows:
            raise ValueError(f"{mpath}: shard rows do not add up to {self.num_rows}")
        self.units = list(range(len(self.shards)))

    def _load(self, shard):
        n = shard["rows"]
        specs = [("planes", np.uint8, (n,) + layout.PACKED_SHAPE),
                 ("scalars", np.float32, (n, layout.NUM_SCALARS)),
                 ("policy", np.int32, (n,)), ("score_cp", np.int32, (n,)), ("result", np.float32, (n,))]
        arrays = []
        for key, dtype, shape in specs:
            p = os.path.join(self.path, shard[key])
            try:
                a = np.load(p, mmap_mode="r")
            except (OSError, ValueError) as e:
                raise ValueError(f"{p}: {e}") from None
            _check_array(p, a, dtype, shape)
            arrays.append(a)
        return arrays

    def read(self, unit, chunk_rows):
        """Yield the rows of shard ``unit`` as Chunks of at most chunk_rows."""
        packed, scalars, policy, score, result = self._load(self.shards[unit])
        for lo in range(0, len(policy), chunk_rows):
            hi = min(lo + chunk_rows, len(policy))
            yield Chunk(np.array(packed[lo:hi]), np.array(scalars[lo:hi]),
                        policy[lo:hi].astype(np.int64), score[lo:hi].astype(np.float32),
                        np.array(result[lo:hi]))


def parquet_files(path):
    """The files of a Parquet dataset: a file, a directory (its *.parquet,
    sorted) or a glob."""
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(glob.escape(path), "*.parquet")))
        if not files:
            raise FileNotFoundError(f"{path}: directory holds no .parquet files")
        return files
    if os.path.exists(path):
        return [path]
    files = sorted(f for f in glob.glob(path) if os.path.isfile(f) and not f.endswith(".tmp"))
    if not files:
        raise FileNotFoundError(f"{path}: no such file, directory or matching files")
    return files


class ParquetSource:
    """A Parquet dataset (file, directory or glob) read through pyarrow.
    One unit per row group of each file."""

    COLUMNS = ["planes", "policy", "score_cp", "result"]

    def __init__(self, path):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("reading Parquet needs pyarrow; without it, export the dataset with "
                              "`bin/dataset export -format npy PATH -out DIR` and read DIR") from None
        self.path = path
        self.files = parquet_files(path)
        self.units = []
        self.num_rows = 0
        for f in self.files:
            try:
                pf = pq.ParquetFile(f)
            except Exception as e:  # pyarrow raises several types for a bad file
                raise ValueError(f"{f}: not a readable Parquet file: {e}") from None
            md = pf.metadata.metadata or {}
            for key, want in [(b"chessforge.schema_version", b"1"),
                              (b"chessforge.planes", layout.PLANES_VERSION.encode()),
                              (b"chessforge.policy", layout.POLICY_VERSION.encode())]:
                if md.get(key) != want:
                    raise ValueError(f"{f}: {key.decode()} is {md.get(key)!r}, this reader knows {want!r}")
            names = pf.schema_arrow.names
            for c in self.COLUMNS:
                if c not in names:
                    raise ValueError(f"{f}: missing column {c!r}")
            self.num_rows += pf.metadata.num_rows
            self.units += [(f, g) for g in range(pf.num_row_groups)]

    def read(self, unit, chunk_rows):
        """Yield the rows of row group ``unit`` = (file, index) as Chunks."""
        import pyarrow.parquet as pq  # imported here: a source is pickled to spawned workers

        f, g = unit
        pf = pq.ParquetFile(f)
        for rb in pf.iter_batches(batch_size=chunk_rows, row_groups=[g], columns=self.COLUMNS):
            planes = rb.column(rb.schema.get_field_index("planes"))
            values = planes.flatten().to_numpy(zero_copy_only=False)
            if len(values) != len(rb) * layout.INPUT_SIZE:
                raise ValueError(f"{f}: row group {g}: planes hold {len(values)} values for {len(rb)} rows")
            packed, scalars = layout.pack(values.reshape(len(rb), layout.INPUT_SIZE), where=f"{f}: row group {g}")
            col = lambda name: rb.column(rb.schema.get_field_index(name)).to_numpy(zero_copy_only=False)
            yield Chunk(packed, scalars, col("policy").astype(np.int64),
                        col("score_cp").astype(np.float32), col("result").astype(np.float32))


def open_source(path, fmt="auto"):
    """Open a dataset: fmt "npy" (a NumPy export directory), "parquet", or
    "auto" (npy when path is a directory holding manifest.json)."""
    if fmt == "auto":
        fmt = "npy" if os.path.isfile(os.path.join(path, MANIFEST)) else "parquet"
    if fmt == "npy":
        return NpySource(path)
    if fmt == "parquet":
        return ParquetSource(path)
    raise ValueError(f"format {fmt!r}: want 'npy', 'parquet' or 'auto'")
