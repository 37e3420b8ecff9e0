"""Measure the loader: positions per second streamed as float32 batches.

    chessforge-bench PATH [--batch-size 256] [--shuffle-buffer 65536] [--workers 0] [--epochs 2]
    taskset -c 0 chessforge-bench PATH      # one core

Prints positions per wall-clock second and per CPU second (this process
and its DataLoader workers together, from the moment the loader starts:
imports and start-up are not counted), the figure to compare on a shared
machine. Torch runs on one thread unless ``--threads`` says otherwise.
With ``--workers K`` the batches come through ``ds.loader(K)`` (workers send
compact rows), or with ``--dataloader`` through a plain
``DataLoader(ds, batch_size=None, num_workers=K)`` (workers send float32).
"""

import argparse
import resource
import sys
import time

import torch
from torch.utils.data import DataLoader

from . import cli
from .cli import natural_int, positive_int
from .dataset import ChessDataset


def cpu_seconds():
    """User and system CPU seconds of this process and its finished children."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def run(path, batch_size=256, shuffle_buffer=65536, workers=0, epochs=2, side_to_move=False, dataloader=False,
        **filters):
    """Read the dataset ``epochs`` times; return (positions, wall seconds,
    CPU seconds)."""
    ds = ChessDataset(path, batch_size=batch_size, shuffle_buffer=shuffle_buffer, seed=1,
                      side_to_move=side_to_move, **filters)
    loader = DataLoader(ds, batch_size=None, num_workers=workers) if dataloader else ds.loader(workers)
    n = 0
    wall, cpu = time.perf_counter(), cpu_seconds()
    for epoch in range(epochs):
        ds.set_epoch(epoch)
        for planes, policy, value, score in loader:
            n += len(policy)
    return n, time.perf_counter() - wall, cpu_seconds() - cpu


def main(argv=None):
    p = argparse.ArgumentParser(prog="chessforge-bench", description=__doc__.split("\n\n")[0])
    p.add_argument("path", help="NumPy export directory, or Parquet file/directory/glob (needs pyarrow)")
    p.add_argument("--batch-size", type=positive_int, default=256)
    p.add_argument("--shuffle-buffer", type=natural_int, default=65536)
    p.add_argument("--workers", type=natural_int, default=0, help="DataLoader worker processes")
    p.add_argument("--epochs", type=positive_int, default=2)
    p.add_argument("--dataloader", action="store_true",
                   help="read through a plain DataLoader (workers send float32 planes)")
    p.add_argument("--side-to-move", action="store_true", help="mirror rows with Black to move")
    p.add_argument("--min-ply", type=natural_int, default=0, help="read-time filter: keep rows with ply >= N")
    p.add_argument("--skip-captures", action="store_true", help="read-time filter: drop captures and promotions")
    p.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads")
    a = p.parse_args(argv)
    torch.set_num_threads(a.threads)

    def work():
        n, wall, cpu = run(a.path, a.batch_size, a.shuffle_buffer, a.workers, a.epochs, a.side_to_move,
                           a.dataloader, min_ply=a.min_ply, skip_captures=a.skip_captures)
        print(f"loader: {n} positions, {wall:.2f} s, {n / max(wall, 1e-9):.0f} positions/s, "
              f"{n / max(cpu, 1e-9):.0f} positions per CPU second")
    return cli.run("chessforge-bench", work)


if __name__ == "__main__":
    sys.exit(main())
