"""chessforge_data: chessforge's training datasets for PyTorch.

    from torch.utils.data import DataLoader
    from chessforge_data import ChessDataset

    ds = ChessDataset("data/npy", batch_size=256, shuffle_buffer=65536, seed=1)
    for planes, policy, value, score in DataLoader(ds, batch_size=None):
        ...  # planes float32 [B,18,8,8], policy int64 [B], value float32 [B], score float32 [B]

A dataset is read from the NumPy export of ``bin/dataset export -format npy``
(NumPy alone) or from the Parquet files themselves (needs pyarrow). The
format (plane layout, policy index, columns) is described in the
repository's docs and in datasets/python/README.md. A dataset of Italian
draughts (``bin/selfplay -game dama``) reads the same way, its layout taken
from the files: planes [B,7,8,8], a 12800-way policy (``ds.layout``,
:data:`chessforge_data.layout.DAMA`).

Commands installed with the package: ``chessforge-train`` (the example
trainer, :mod:`chessforge_data.train`), ``chessforge-bench`` (the
loader's throughput, :mod:`chessforge_data.bench`) and ``chessforge-nnue``
(the engine's network: train, export, test vectors, :mod:`chessforge_data.nnue`).

Threads: an optimised BLAS (Debian's ``libopenblas0-pthread``) would start
a thread a core of its own beside torch's, which oversubscribes the cores
(it halves the trainer's rate); importing this package first sets
``OPENBLAS_NUM_THREADS=1`` where the environment does not set it, so that
torch's threads (``--threads``) are the only ones. It also sets
``OMP_WAIT_POLICY=PASSIVE`` where the environment does not set it: OpenMP
threads that wait for work sleep rather than spin, which on cores shared
with other work (self-play beside training) kept the trainer at a sixth
of its rate (10,500 against 53,000 positions/s on two busy cores).
"""

import os

# Before NumPy or torch loads OpenBLAS and OpenMP: each reads these once,
# at load.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .dataset import VALUE_TARGETS, ChessDataset, value_target
from .filters import Filters
from .layout import POLICY_MIRROR, POLICY_SIZE, mirror, pack, unpack
from .sources import NpySource, ParquetSource, open_source

__all__ = ["ChessDataset", "Filters", "value_target", "VALUE_TARGETS", "POLICY_SIZE", "POLICY_MIRROR",
           "unpack", "pack", "mirror", "NpySource", "ParquetSource", "open_source"]
