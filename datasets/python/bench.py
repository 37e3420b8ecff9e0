#!/usr/bin/env python3
"""Measure the loader: positions per second streamed as float32 batches.

    python3 bench.py PATH [--batch-size 256] [--shuffle-buffer 65536] [--workers 0] [--epochs 2]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from torch.utils.data import DataLoader  # noqa: E402

from chessforge_data import ChessDataset  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--shuffle-buffer", type=int, default=65536)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--epochs", type=int, default=2)
    a = p.parse_args()
    ds = ChessDataset(a.path, batch_size=a.batch_size, shuffle_buffer=a.shuffle_buffer, seed=1)
    loader = DataLoader(ds, batch_size=None, num_workers=a.workers)
    n = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for epoch in range(a.epochs):
        ds.set_epoch(epoch)
        for planes, policy, value, score in loader:
            n += len(policy)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"loader: {n} positions, {wall:.2f} s, {n / wall:.0f} positions/s "
          f"({n / max(cpu, 1e-9):.0f} per CPU second of this process)")


if __name__ == "__main__":
    main()
