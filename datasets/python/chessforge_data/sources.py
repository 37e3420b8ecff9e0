"""Readers of a dataset's rows in compact form, from the NumPy export
(NumPy alone) or from Parquet (pyarrow). A source's ``layout``
(:class:`chessforge_data.layout.Layout`) is its game's, from the manifest
or the Parquet metadata: it gives the planes' shape and packing.

A source lists its *units*, the pieces that DataLoader workers share out
(a shard of the NumPy export; a row group of a Parquet file), tells the
rows of each (:meth:`unit_rows`), and reads a unit as chunks of rows: a
dict of NumPy arrays keyed by column name, holding ``packed`` and
``scalars`` (the planes, as in :mod:`chessforge_data.layout`), ``policy``
(int32), ``score_cp`` (int32), ``result`` (float32) and whichever of the
filter columns ``ply`` (int32), ``in_check``, ``best_is_capture``,
``best_is_promotion`` (bool) were asked for.
"""

import errno
import glob
import json
import os

import numpy as np

from . import layout
from .cli import MissingDependency

NPY_FORMAT = "chessforge-npy"
NPY_VERSION = 1
MANIFEST = "manifest.json"

#: Columns every chunk holds.
BASE_COLUMNS = ("packed", "scalars", "policy", "score_cp", "result")
#: Columns read only when a filter needs them.
FILTER_COLUMNS = ("ply", "in_check", "best_is_capture", "best_is_promotion")


def _check_array(path, arr, dtype, shape):
    if arr.dtype != np.dtype(dtype) or tuple(arr.shape) != tuple(shape):
        raise ValueError(f"{path}: array is {arr.dtype} {tuple(arr.shape)}, want {np.dtype(dtype)} {tuple(shape)}")


def _want_columns(columns):
    columns = tuple(columns)
    for c in columns:
        if c not in FILTER_COLUMNS:
            raise ValueError(f"column {c!r}: a source reads only {FILTER_COLUMNS} beside the planes and targets")
    return columns


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
            raise FileNotFoundError(errno.ENOENT, f"{path} has no {MANIFEST}: not a NumPy export, or an unfinished "
                                                  f"one (make one with bin/dataset export -format npy)") from None
        except OSError as e:
            raise OSError(e.errno, f"{mpath}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"{mpath}: {e}") from None
        try:
            self.layout = layout.for_game(m.get("game"))
        except ValueError as e:
            raise ValueError(f"{mpath}: {e}") from None
        lay = self.layout
        want = {"format": NPY_FORMAT, "version": NPY_VERSION, "planes": lay.planes_version,
                "policy": lay.policy_version, "binary_planes": list(lay.binary_planes),
                "scalar_planes": list(lay.scalar_planes)}
        for k, v in want.items():
            if m.get(k) != v:
                raise ValueError(f"{mpath}: {k} is {m.get(k)!r}, this reader knows {v!r}")
        self.manifest = m
        self.shards = m["shards"]
        self.num_rows = int(m["rows"])
        if sum(s["rows"] for s in self.shards) != self.num_rows:
            raise ValueError(f"{mpath}: shard rows do not add up to {self.num_rows}")
        self.units = list(range(len(self.shards)))

    def unit_rows(self, unit):
        """The rows of shard ``unit``."""
        return int(self.shards[unit]["rows"])

    def _load(self, shard, key, dtype, shape):
        name = shard.get(key)
        if not name:
            raise ValueError(f"{os.path.join(self.path, MANIFEST)}: the shards have no {key!r} array "
                             f"(exported from a dataset without that column, or by an older bin/dataset)")
        p = os.path.join(self.path, name)
        try:
            a = np.load(p, mmap_mode="r")
        except (OSError, ValueError) as e:
            raise ValueError(f"{p}: {e}") from None
        _check_array(p, a, dtype, shape)
        return a

    def _arrays(self, unit, columns):
        shard = self.shards[unit]
        n = shard["rows"]
        specs = [("packed", "planes", np.uint8, (n,) + self.layout.packed_shape),
                 ("scalars", "scalars", np.float32, (n, self.layout.num_scalars)),
                 ("policy", "policy", np.int32, (n,)), ("score_cp", "score_cp", np.int32, (n,)),
                 ("result", "result", np.float32, (n,))]
        specs += [(c, c, np.int32 if c == "ply" else np.uint8, (n,)) for c in columns]
        return {name: self._load(shard, key, dtype, shape) for name, key, dtype, shape in specs}

    def read_columns(self, unit, columns):
        """The whole of shard ``unit``'s columns (filter columns or
        score_cp/result), memory-mapped, without the planes."""
        shard = self.shards[unit]
        n = shard["rows"]
        out = {}
        for c in columns:
            dtype = {"ply": np.int32, "score_cp": np.int32, "result": np.float32}.get(c, np.uint8)
            a = self._load(shard, c, dtype, (n,))
            out[c] = a.view(bool) if dtype is np.uint8 else a
        return out

    def read(self, unit, chunk_rows, columns=()):
        """Yield the rows of shard ``unit`` as chunks of at most chunk_rows,
        with the filter columns named in ``columns``."""
        arrays = self._arrays(unit, _want_columns(columns))
        n = len(arrays["policy"])
        for lo in range(0, n, chunk_rows):
            hi = min(lo + chunk_rows, n)
            chunk = {k: np.asarray(a[lo:hi]) for k, a in arrays.items()}
            for c in ("in_check", "best_is_capture", "best_is_promotion"):
                if c in chunk:
                    chunk[c] = chunk[c].view(bool)
            yield chunk


PARQUET_MAGIC = b"PAR1"


def parquet_files(path):
    """The files of a Parquet dataset: a file, a directory (its *.parquet,
    sorted) or a glob. A path that is none of these, or a file that does
    not start as a Parquet file does, is an error naming it."""
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(glob.escape(path), "*.parquet")))
        if not files:
            raise FileNotFoundError(errno.ENOENT, f"{path} has no {MANIFEST}: not a NumPy export (make one with "
                                                  f"bin/dataset export -format npy), and holds no .parquet files")
        return files
    if os.path.exists(path):
        files = [path]
    else:
        files = sorted(f for f in glob.glob(path) if os.path.isfile(f) and not f.endswith(".tmp"))
        if not files:
            if glob.has_magic(path):
                raise FileNotFoundError(errno.ENOENT, f"{path}: no matching files")
            raise FileNotFoundError(errno.ENOENT, f"{path}: no such file or directory")
    for f in files:
        try:
            with open(f, "rb") as fh:
                magic = fh.read(len(PARQUET_MAGIC))
        except OSError as e:
            raise OSError(e.errno, f"{f}: {e.strerror}") from None
        if magic != PARQUET_MAGIC:
            raise ValueError(f"{f}: not a Parquet file (no {PARQUET_MAGIC.decode()} magic), nor a NumPy export's "
                             f"directory")
    return files


class ParquetSource:
    """A Parquet dataset (file, directory or glob) read through pyarrow.
    One unit per row group of each file."""

    COLUMNS = ["planes", "policy", "score_cp", "result"]

    def __init__(self, path):
        self.path = path
        self.files = parquet_files(path)
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise MissingDependency(f"{path}: reading Parquet needs pyarrow; without it, export the dataset with "
                                    f"`bin/dataset export -format npy {path} -out DIR` and read DIR") from None
        self.units = []
        self._rows = {}
        self._names = {}
        self.num_rows = 0
        self.layout = None
        for f in self.files:
            try:
                pf = pq.ParquetFile(f)
            except Exception as e:  # pyarrow raises several types for a bad file
                raise ValueError(f"{f}: not a readable Parquet file: {e}") from None
            md = pf.metadata.metadata or {}
            try:
                lay = layout.for_game(md.get(b"chessforge.game", b"").decode())
            except ValueError as e:
                raise ValueError(f"{f}: {e}") from None
            if self.layout is not None and lay is not self.layout:
                raise ValueError(f"{f} holds {lay.game} positions, {self.files[0]} {self.layout.game} ones: "
                                 f"a dataset holds one game")
            self.layout = lay
            for key, want in [(b"chessforge.schema_version", b"1"),
                              (b"chessforge.planes", lay.planes_version.encode()),
                              (b"chessforge.policy", lay.policy_version.encode())]:
                if md.get(key) != want:
                    raise ValueError(f"{f}: {key.decode()} is {md.get(key)!r}, this reader knows {want!r}")
            names = pf.schema_arrow.names
            for c in self.COLUMNS:
                if c not in names:
                    raise ValueError(f"{f}: missing column {c!r}")
            self._names[f] = set(names)
            self.num_rows += pf.metadata.num_rows
            for g in range(pf.num_row_groups):
                self.units.append((f, g))
                self._rows[(f, g)] = pf.metadata.row_group(g).num_rows

    def unit_rows(self, unit):
        """The rows of row group ``unit`` = (file, index), from the footer."""
        return self._rows[unit]

    def _check_columns(self, f, columns):
        for c in columns:
            if c not in self._names[f]:
                raise ValueError(f"{f}: no column {c!r}, which a filter needs (a dataset written before it existed)")

    def read_columns(self, unit, columns):
        """Row group ``unit``'s columns named (filter columns or
        score_cp/result), without the planes."""
        import pyarrow.parquet as pq

        f, g = unit
        self._check_columns(f, columns)
        t = pq.ParquetFile(f).read_row_group(g, columns=list(columns))
        return {c: t.column(c).to_numpy() for c in columns}

    def read(self, unit, chunk_rows, columns=()):
        """Yield the rows of row group ``unit`` = (file, index) as chunks,
        with the filter columns named in ``columns``."""
        import pyarrow.parquet as pq  # imported here: a source is pickled to spawned workers

        columns = _want_columns(columns)
        f, g = unit
        self._check_columns(f, columns)
        pf = pq.ParquetFile(f)
        for rb in pf.iter_batches(batch_size=chunk_rows, row_groups=[g], columns=self.COLUMNS + list(columns)):
            planes = rb.column(rb.schema.get_field_index("planes"))
            values = planes.flatten().to_numpy(zero_copy_only=False)
            size = self.layout.input_size
            if len(values) != len(rb) * size:
                raise ValueError(f"{f}: row group {g}: planes hold {len(values)} values for {len(rb)} rows")
            packed, scalars = self.layout.pack(values.reshape(len(rb), size), where=f"{f}: row group {g}")
            chunk = {"packed": packed, "scalars": scalars}
            for c in ("policy", "score_cp", "result") + columns:
                chunk[c] = rb.column(rb.schema.get_field_index(c)).to_numpy(zero_copy_only=False)
            yield chunk


class MultiSource:
    """Several sources of one game read as one dataset: their units, each
    a pair (index of its source, the source's unit), in the order given."""

    def __init__(self, sources):
        if not sources:
            raise ValueError("no datasets given")
        self.sources = list(sources)
        self.path = [s.path for s in self.sources]
        self.layout = self.sources[0].layout
        for s in self.sources[1:]:
            if s.layout is not self.layout:
                raise ValueError(f"{s.path} holds {s.layout.game} positions, {self.sources[0].path} "
                                 f"{self.layout.game} ones: datasets read together hold one game")
        self.num_rows = sum(s.num_rows for s in self.sources)
        self.units = [(i, u) for i, s in enumerate(self.sources) for u in s.units]

    def unit_rows(self, unit):
        """The rows of ``unit`` = (source index, the source's unit)."""
        i, u = unit
        return self.sources[i].unit_rows(u)

    def read_columns(self, unit, columns):
        """As the unit's source's read_columns."""
        i, u = unit
        return self.sources[i].read_columns(u, columns)

    def read(self, unit, chunk_rows, columns=()):
        """As the unit's source's read."""
        i, u = unit
        return self.sources[i].read(u, chunk_rows, columns)


def open_source(path, fmt="auto"):
    """Open a dataset: fmt "npy" (a NumPy export directory), "parquet", or
    "auto" (npy when path is a directory holding manifest.json). A list of
    paths opens each (fmt applies to all) and reads them as one
    (:class:`MultiSource`); a list of one is that path."""
    if isinstance(path, (list, tuple)):
        if len(path) == 1:
            return open_source(path[0], fmt)
        return MultiSource([open_source(p, fmt) for p in path])
    if fmt == "auto":
        fmt = "npy" if os.path.isfile(os.path.join(path, MANIFEST)) else "parquet"
    if fmt == "npy":
        return NpySource(path)
    if fmt == "parquet":
        return ParquetSource(path)
    raise ValueError(f"format {fmt!r}: want 'npy', 'parquet' or 'auto'")
