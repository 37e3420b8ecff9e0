"""Example: train a small residual network on a chessforge dataset, on CPU.

    chessforge-train DATA [--val PATH] [--epochs 2] [--out model.pt]
    python3 -m chessforge_data.train DATA ...      # the same

DATA is a NumPy export directory or a Parquet file, directory or glob
(needs pyarrow); ``--data DATA`` is accepted too.

The network takes the 18×8×8 planes and has two heads: a policy over the
4672 moves of the policy index (a 1×1 convolution to 73 planes, flattened
in C order, so that output ``type*64 + from_square`` is the move's index)
and a value in [0, 1], the expected result for White (for the side to move
with ``--side-to-move``). Loss: cross-entropy of the policy plus the
squared error of the value. Prints loss and policy accuracy per epoch and
saves a checkpoint (model weights and the settings).
"""

import argparse
import os
import sys
import time

import torch
from torch import nn
from torch.nn import functional as F

from . import atomic, layout, outlock
from .cli import UsageError, natural_float, natural_int, positive_int, run, same_file, seed_int
from .dataset import ChessDataset
from .layout import NUM_PLANES, POLICY_SIZE


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class Net(nn.Module):
    """A small residual tower with policy and value heads."""

    def __init__(self, channels=32, blocks=2):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(NUM_PLANES, channels, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(channels), nn.ReLU())
        self.tower = nn.Sequential(*[Block(channels) for _ in range(blocks)])
        self.policy = nn.Conv2d(channels, POLICY_SIZE // 64, 1)  # 73 move types per square
        self.value = nn.Sequential(nn.Conv2d(channels, 1, 1), nn.ReLU(), nn.Flatten(),
                                   nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, planes):
        x = self.tower(self.stem(planes))
        policy = self.policy(x).flatten(1)  # [B, 4672], index type*64 + rank*8 + file
        value = torch.sigmoid(self.value(x)).squeeze(1)
        return policy, value


def losses(model, batch):
    planes, policy, value, _ = batch
    logits, v = model(planes)
    pl = F.cross_entropy(logits, policy)
    vl = F.mse_loss(v, value)
    correct = (logits.argmax(1) == policy).sum().item()
    return pl, vl, correct


def reading(args):
    """The ChessDataset keyword arguments the settings choose beside the
    path: value target, side to move and the read-time filters."""
    return dict(value_target=args.value_target, side_to_move=args.side_to_move, min_ply=args.min_ply,
                max_score=args.max_score, skip_in_check=args.skip_in_check,
                skip_captures=args.skip_captures, disagree_score=args.disagree_score)


def evaluate(model, data, batch_size, args):
    ds = ChessDataset(data, batch_size=batch_size, **reading(args))
    model.eval()
    tot = n = correct = 0
    with torch.no_grad():
        for batch in ds:
            pl, vl, c = losses(model, batch)
            b = len(batch[1])
            tot += (pl.item() + vl.item()) * b
            correct += c
            n += b
    model.train()
    return tot / max(n, 1), correct / max(n, 1)


def save(path, model, args, epoch):
    atomic.write(path, lambda f: torch.save({"model": model.state_dict(), "settings": vars(args), "epoch": epoch}, f))


def train(args, log=print):
    """Train as the settings ask; return the loss of every step and the
    per-epoch summaries."""
    torch.manual_seed(args.seed)
    model = Net(args.channels, args.blocks)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    ds = ChessDataset(args.data, batch_size=args.batch_size, shuffle_buffer=args.shuffle_buffer,
                      seed=args.seed, **reading(args))
    if ds.layout.game != layout.CHESS.game:
        raise ValueError(f"{args.data}: a {ds.layout.game} dataset ({ds.layout}); this network is chess's "
                         f"(18 input planes, 4672 moves)")
    loader = ds.loader(args.workers)
    log(f"data: {args.data}: {ds.num_rows} positions{'' if not ds.filters else ' kept by ' + repr(ds.filters)}; model: {sum(p.numel() for p in model.parameters())} parameters")
    steps, epochs = [], []
    for epoch in range(1, args.epochs + 1):
        ds.set_epoch(epoch)
        start = time.time()
        tot = n = correct = k = 0
        for batch in loader:
            pl, vl, c = losses(model, batch)
            loss = pl + vl
            opt.zero_grad()
            loss.backward()
            opt.step()
            b = len(batch[1])
            steps.append(loss.item())
            tot += loss.item() * b
            correct += c
            n += b
            k += 1
            if args.max_steps and k >= args.max_steps:
                break
        summary = {"epoch": epoch, "steps": k, "positions": n, "loss": tot / max(n, 1),
                   "accuracy": correct / max(n, 1), "seconds": time.time() - start}
        line = (f"epoch {epoch}: {k} steps, {n} positions, loss {summary['loss']:.4f}, "
                f"policy accuracy {100 * summary['accuracy']:.1f}%, {n / max(summary['seconds'], 1e-9):.0f} positions/s")
        if args.val:
            vloss, vacc = evaluate(model, args.val, args.batch_size, args)
            summary.update(val_loss=vloss, val_accuracy=vacc)
            line += f"; validation loss {vloss:.4f}, policy accuracy {100 * vacc:.1f}%"
        log(line)
        epochs.append(summary)
        if args.out:
            save(args.out, model, args, epoch)
    if args.out:
        log(f"checkpoint: {args.out}")
    return model, steps, epochs


def parser():
    p = argparse.ArgumentParser(prog="chessforge-train", description=__doc__.split("\n\n")[0])
    p.add_argument("data", nargs="?", help="NumPy export directory, or Parquet file/directory/glob (needs pyarrow)")
    p.add_argument("--data", dest="data_flag", metavar="DATA", help="the same as the DATA argument")
    p.add_argument("--val", help="validation dataset, evaluated after each epoch")
    p.add_argument("--epochs", type=positive_int, default=2)
    p.add_argument("--batch-size", type=positive_int, default=256)
    p.add_argument("--max-steps", type=natural_int, default=0, help="stop each epoch after this many steps (0: whole epoch)")
    p.add_argument("--lr", type=natural_float, default=1e-3)
    p.add_argument("--channels", type=positive_int, default=32)
    p.add_argument("--blocks", type=natural_int, default=2)
    p.add_argument("--shuffle-buffer", type=natural_int, default=65536)
    p.add_argument("--value-target", default="result", choices=["result", "score", "blend"])
    p.add_argument("--side-to-move", action="store_true",
                   help="mirror rows with Black to move: planes, policy, value and score from the side to move")
    p.add_argument("--min-ply", type=natural_int, default=0, help="keep rows with ply >= N (0: off)")
    p.add_argument("--max-score", type=natural_int, default=0, help="keep rows with |score_cp| <= N (0: off)")
    p.add_argument("--skip-in-check", action="store_true", help="drop rows whose side to move is in check")
    p.add_argument("--skip-captures", action="store_true", help="drop rows whose best move is a capture or a promotion")
    p.add_argument("--disagree-score", type=natural_int, default=0,
                   help="drop rows scored >= N for White in a game White lost, or <= -N in one White won (0: off)")
    p.add_argument("--workers", type=natural_int, default=0, help="DataLoader worker processes")
    p.add_argument("--seed", type=seed_int, default=1)
    p.add_argument("--threads", type=natural_int, default=0, help="torch CPU threads (0: torch's default)")
    p.add_argument("--out", default="model.pt", help="checkpoint file ('' for none)")
    return p


def parse(argv=None):
    """Parse the command line: DATA or --data DATA, one of them."""
    p = parser()
    args = p.parse_args(argv)
    if (args.data is None) == (args.data_flag is None):
        p.error("give the dataset once: DATA or --data DATA")
    if args.data is None:
        args.data = args.data_flag
    del args.data_flag
    return args


def check_out(args):
    """--out against the inputs: not a dataset, nor a directory."""
    if not args.out:
        return
    for p in [args.data] + ([args.val] if args.val else []):
        if same_file(args.out, p):
            raise UsageError(f"--out {args.out} is the dataset {p}: the checkpoint needs a name of its own")
    if os.path.isdir(args.out):
        raise UsageError(f"--out {args.out} is a directory: give the checkpoint file's name")


def main(argv=None):
    """Run chessforge-train; returns the exit status, 2 for a usage error
    and 1 for failed work, with the error on one line of stderr."""
    args = parse(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    def work():
        check_out(args)
        lock = outlock.acquire(args.out) if args.out else None
        try:
            _, steps, epochs = train(args)
        finally:
            if lock:
                lock.release()
        if epochs:
            print(f"train: {len(steps)} steps, loss {steps[0]:.4f} -> {steps[-1]:.4f}, "
                  f"policy accuracy {100 * epochs[-1]['accuracy']:.1f}%")
    return run("chessforge-train", work)


if __name__ == "__main__":
    sys.exit(main())
