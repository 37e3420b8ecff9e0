"""chessforge_data: chessforge's training datasets for PyTorch.

    from torch.utils.data import DataLoader
    from chessforge_data import ChessDataset

    ds = ChessDataset("data/npy", batch_size=256, shuffle_buffer=65536, seed=1)
    for planes, policy, value, score in DataLoader(ds, batch_size=None, num_workers=2):
        ...  # planes float32 [B,18,8,8], policy int64 [B], value float32 [B], score float32 [B]

A dataset is read from the NumPy export of ``bin/dataset export -format npy``
(NumPy alone) or from the Parquet files themselves (needs pyarrow).
"""

from .dataset import VALUE_TARGETS, ChessDataset, value_target
from .layout import POLICY_SIZE, unpack, pack
from .sources import NpySource, ParquetSource, open_source

__all__ = ["ChessDataset", "value_target", "VALUE_TARGETS", "POLICY_SIZE", "unpack", "pack",
           "NpySource", "ParquetSource", "open_source"]
