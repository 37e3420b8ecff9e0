"""Training of chessforge's NNUE (``chessforge-nnue train``): the start
(random, seeded, or ``--init`` from a checkpoint or a network file), the
datasets and their validation split, the loss, ``--preload``, the
optimiser and the schedule, each epoch or superbatch written as a
checkpoint DIR/epoch-NNNN.pt that ``--resume`` continues.

Loss: the squared error between ``sigmoid(out * SCALE / K)`` (that is
``sigmoid(eval / K)``, the eval in centipawns) and the target ``lam *
result + (1 - lam) * sigmoid(score / K)``, both from the side to move,
``lam`` = ``--lambda`` (default 0: the search score alone) and ``K`` =
``--score-scale`` (default 400, where the output's sigmoid is
``sigmoid(out)``). After every step W1, b1 and W2 are clipped to [-CLIP,
CLIP] (:meth:`Net.clip_`).

Schedule: by epochs (``--epochs``, a pass over the data each), or by
positions seen (``--superbatches N``, each ``--superbatch-positions`` long,
drawn from pass after pass over the data, each pass shuffled from the seed
and its number: :class:`Stream`). The learning rate of each step is
:func:`schedule_lr`'s: step decay (``--lr-gamma`` every ``--lr-step-every``
epochs or superbatches), a cosine to ``--lr-final-fraction`` of ``--lr``
over the superbatches, or constant, after a linear ``--warmup-positions``;
the optimiser Adam or AdamW (``--weight-decay``).

Inputs: ``--inputs`` chooses the features as sparse lists or dense rows
(:data:`INPUTS_CHOICES`). ``--preload`` reads the rows once into the
device's memory (:class:`Preloaded`) and draws each epoch from there, which
is what keeps a GPU busy: streamed, the CPU's reading is the bottleneck.
"""

import datetime
import glob
import inspect
import json
import math
import os
import pickle
import secrets
import sys
import time

import numpy as np
import torch

from . import atomic, layout, nnue_kernel, nnue_sparse, outlock
from .cli import UsageError, same_file
from .dataset import ChessDataset
from .nnue_export import MAGIC, dequantize, read_net
from .nnue_model import HIDDEN, SCALE, WIDTH_RULE, Net, architecture, dense_features, piece_bits, sparse_features, valid_hidden


def initial_state(path, buckets=None):
    """The model state to start training from, with this many output
    buckets (None: the start's own), its feature set (True: king-mirrored)
    and its pawn table (None where it has none): a network file's
    (``.nnue``, dequantized) or a checkpoint's. A one-output start is
    copied into every bucket."""
    if path.endswith(".nnue"):
        q = read_net(path)[0]
        state, mirror, pawns = dequantize(q), q["mirror"], q["pawn_scale"]
    elif not os.path.isfile(path):
        raise ValueError(f"--init {path}: no such file")
    else:
        ck = read_checkpoint(path)
        state, mirror, pawns = ck["model"], ck.get("settings", {}).get("mirror", False), ck.get("pawn_scale")
    return with_buckets(state, buckets, path), mirror, pawns


def read_checkpoint(path):
    """A checkpoint of chessforge-nnue train, read onto the CPU; a file
    that is not one (a network file, an empty or truncated one, another
    torch file) is a ValueError naming it."""
    with open(path, "rb") as f:
        head = f.read(len(MAGIC))
    if head == MAGIC:
        raise ValueError(f"{path} is a network file, not a checkpoint (.pt)")
    if not head:
        raise ValueError(f"{path}: empty, not a checkpoint (.pt)")
    try:
        ck = torch.load(path, map_location="cpu")
    except (pickle.UnpicklingError, EOFError, RuntimeError, ValueError) as err:
        # RuntimeError: torch's zip reader on a truncated file.
        raise ValueError(f"{path}: truncated or not a checkpoint (.pt): {err}") from None
    if not isinstance(ck, dict) or not isinstance(ck.get("model"), dict) or "ft.weight" not in ck["model"] \
            or not {"settings", "epoch", "history"} <= ck.keys():
        raise ValueError(f"{path}: not a checkpoint of chessforge-nnue train (no network, settings and epoch)")
    return ck


def with_buckets(state, buckets, path):
    """``state`` with this many output buckets (None: as it is): a
    one-output state's layer copied into every bucket; any other change is
    an error naming ``path``, where the state came from."""
    had = state["out.weight"].shape[0]
    if buckets is None or buckets == had:
        return state
    if had != 1:
        raise ValueError(f"--init {path}: {had} output buckets, training {buckets}")
    return dict(state, **{"out.weight": state["out.weight"].repeat(buckets, 1),
                          "out.bias": state["out.bias"].repeat(buckets)})

#: --score-scale's default, K: the target's sigmoid(score / K) and the
#: output's sigmoid(eval / K) as they always were (eval = SCALE * out).
SCORE_SCALE = 400.0
#: --superbatch-positions' default: bullet's superbatch, 6,104 batches of
#: 16,384 (docs/training.md).
SUPERBATCH_POSITIONS = 100_000_000
#: --lr-schedule's and --optimizer's choices.
LR_SCHEDULES = ("step", "cosine", "constant")
OPTIMIZERS = ("adam", "adamw")
#: --lr-final-fraction's and --weight-decay's defaults where they apply
#: (cosine; AdamW): about bullet's examples' (0.3^5; 0.01).
LR_FINAL_FRACTION = 0.0025
WEIGHT_DECAY = 0.01


def _dataset(path, args, seed, shuffle):
    return ChessDataset(path, batch_size=args.batch_size, shuffle_buffer=args.shuffle_buffer if shuffle else 0,
                        seed=seed, value_target="blend", blend=args.lam,
                        score_scale=getattr(args, "score_scale", SCORE_SCALE), side_to_move=True,
                        min_ply=args.min_ply, max_score=args.max_score, skip_in_check=args.skip_in_check,
                        skip_captures=args.skip_captures, disagree_score=args.disagree_score)


def _split(train, val_every):
    """Hold out every ``val_every``-th unit of ``train``'s source (at
    least one when it has two or more) for validation: (train, val units)."""
    units = list(train.source.units)
    if len(units) < 2 or val_every <= 0:
        return None
    held = [u for i, u in enumerate(units) if i % val_every == val_every - 1] or units[-1:]
    train.source.units = [u for u in units if u not in held]
    return held


#: The trainer's inputs: "sparse" feature lists summed by the EmbeddingBag
#: (the least work, best on a CPU), "dense" 0/1 rows through matrix
#: products (best on a GPU, whose time the sparse sums and their
#: sort-based deterministic gradient take), "auto" dense on CUDA only.
INPUTS_CHOICES = ("auto", "sparse", "dense")


def _dense(inputs, device):
    return inputs == "dense" or (inputs == "auto" and device.type == "cuda")


def _tensor(a):
    return a if isinstance(a, torch.Tensor) else torch.from_numpy(a)


def _loss(model, rows, device, mirror, dense, score_scale=SCORE_SCALE):
    """The mean squared error of a batch of compact rows and its size:
    ``sigmoid(out * SCALE / score_scale)`` against the rows' value.
    ``rows["packed"]`` and ``rows["value"]`` are NumPy arrays or tensors
    on any device (:class:`Preloaded`'s). Dense: the rows' bits go to the
    device as they are (104 bytes a row) and the features are built there.
    Sparse: on a CPU the network runs through :mod:`nnue_kernel`'s
    compiled forward and backward, or where it cannot be built through
    :mod:`nnue_sparse`'s; on a GPU the lists are built on the CPU."""
    if dense:
        out = model.forward_dense(*dense_features(piece_bits(_tensor(rows["packed"]).to(device)), mirror))
    else:
        packed = rows["packed"]
        if isinstance(packed, torch.Tensor):
            packed = packed.cpu()
        if device.type == "cpu" and nnue_kernel.load() is not None:
            out = nnue_kernel.forward(model, packed, mirror)
        elif device.type == "cpu":
            f = rows["features"] if "features" in rows else nnue_sparse.features(packed, mirror)
            out = nnue_sparse.forward(model, f)
        else:
            us, us_off, them, them_off = sparse_features(piece_bits(packed), mirror)
            out = model(us.to(device), us_off.to(device), them.to(device), them_off.to(device))
    if score_scale != SCALE:  # at SCALE, out itself (as before the option)
        out = out * (SCALE / score_scale)
    value = _tensor(rows["value"]).to(device)
    return torch.mean((torch.sigmoid(out) - value) ** 2), len(value)


def evaluate(model, ds, device, mirror=False, inputs="auto", score_scale=SCORE_SCALE):
    """The mean loss over a dataset (no gradient) and its rows; ``ds`` is
    a :class:`ChessDataset` or a :class:`Preloaded` one, its value target
    made with this score scale."""
    total, n = torch.zeros((), dtype=torch.float64, device=device), 0
    dense = _dense(inputs, device)
    with torch.no_grad():
        for rows in ds.compact_batches():
            loss, k = _loss(model, rows, device, mirror, dense, score_scale)
            total += loss.double() * k
            n += k
    return float(total) / max(n, 1), n


class Preloaded:
    """A dataset's rows read once and kept on a device (``--preload``):
    the side to move's 768 piece bits (uint8 [N, 12, 8], 96 bytes a row)
    and the value target (float32 [N]) of every row the dataset's filters
    keep, as the dataset presents them. A GPU then trains from its own
    memory, without waiting for the CPU to read, filter and mirror each
    epoch again; on a CPU it saves the reading too.

    :meth:`set_epoch` chooses the epoch; :meth:`compact_batches` yields
    its batches: all rows in a random order drawn on the CPU from the seed
    and the epoch alone (so a CPU and a GPU run, or a resumed one, see the
    same batches), or in the order read with ``shuffle`` false (validation).
    """

    def __init__(self, ds, device, batch_size, seed, shuffle=True):
        read_rows = max(batch_size, 65536)  # large reads: the batch size is the training's alone
        was, ds.batch_size = ds.batch_size, read_rows
        saved_buffer, ds.shuffle_buffer = ds.shuffle_buffer, 0
        packed, value = [], []
        try:
            for rows in ds.compact_batches():
                packed.append(torch.from_numpy(np.ascontiguousarray(rows["packed"][:, :12])).to(device))
                value.append(torch.from_numpy(rows["value"]).to(device))
        finally:
            ds.batch_size, ds.shuffle_buffer = was, saved_buffer
        self.packed = torch.cat(packed) if packed else torch.zeros((0, 12, 8), dtype=torch.uint8, device=device)
        self.value = torch.cat(value) if value else torch.zeros(0, dtype=torch.float32, device=device)
        self.batch_size, self.seed, self.shuffle, self.epoch = batch_size, seed, shuffle, 0

    def __len__(self):
        return len(self.value)

    @property
    def nbytes(self):
        return self.packed.numel() + 4 * self.value.numel()

    def set_epoch(self, epoch):
        self.epoch = epoch

    def compact_batches(self):
        n, B = len(self), self.batch_size
        if self.shuffle:
            g = torch.Generator().manual_seed(self.seed * 1_000_003 + self.epoch)
            order = torch.randperm(n, generator=g).to(self.packed.device)
            for i in range(0, n, B):
                idx = order[i:i + B]
                yield {"packed": self.packed[idx], "value": self.value[idx]}
        else:
            for i in range(0, n, B):
                yield {"packed": self.packed[i:i + B], "value": self.value[i:i + B]}


class Stream:
    """The training rows as one stream without end, for --superbatches:
    pass after pass over ``ds`` (a :class:`ChessDataset` or a
    :class:`Preloaded` one), each pass in its own order (``set_epoch`` with
    the pass's number, so the seed and the pass fix it), cut into batches
    of ``batch_size`` rows, a pass's last rows completing a batch with the
    next pass's first ones. ``pass_`` and ``offset`` say where it stands:
    the rows of that pass already taken (0-based; a resumed run starts
    there, the rows before it read and dropped)."""

    def __init__(self, ds, batch_size, pass_=0, offset=0):
        self.ds, self.batch_size, self.pass_, self.offset = ds, batch_size, pass_, offset
        self._pieces = self._read()
        self._held = None  # rows read and not yet taken: (pass, packed, value)

    def _read(self):
        p, skip = self.pass_, self.offset
        while True:
            self.ds.set_epoch(p)
            seen = 0
            for rows in self.ds.compact_batches():
                packed, value = rows["packed"], rows["value"]
                k = len(value)
                seen += k
                if seen <= skip:
                    continue
                if seen - k < skip:
                    cut = skip - (seen - k)
                    packed, value = packed[cut:], value[cut:]
                yield p, packed, value
            if not seen:
                raise ValueError("no training positions (after the filters): a superbatch has none to draw")
            p, skip = p + 1, 0

    def batches(self, n):
        """The next n rows, as batches of batch_size (the last one short
        when n is not a multiple): dicts of ``packed`` and ``value``."""
        while n > 0:
            want = min(self.batch_size, n)
            parts, got = [], 0
            while got < want:
                if self._held is None:
                    self._held = next(self._pieces)
                p, packed, value = self._held
                if p != self.pass_:
                    self.pass_, self.offset = p, 0
                k = min(want - got, len(value))
                parts.append((packed[:k], value[:k]))
                self._held = None if k == len(value) else (p, packed[k:], value[k:])
                got += k
                self.offset += k
            n -= want
            if len(parts) == 1:
                yield {"packed": parts[0][0], "value": parts[0][1]}
            else:
                cat = torch.cat if isinstance(parts[0][1], torch.Tensor) else np.concatenate
                yield {"packed": cat([a for a, _ in parts]), "value": cat([v for _, v in parts])}

    def state(self):
        """Where the stream stands, as a checkpoint records it."""
        return {"pass": self.pass_, "offset": self.offset}


# The settings a resumed run must share with the checkpoint's, so that it
# continues the same run (epochs, threads, device and inputs may change;
# superbatches too, but for a cosine, which spans them all).
_SAME_ON_RESUME = ("data", "val", "val_every", "steps", "batch_size", "shuffle_buffer", "lr", "lr_gamma", "lam", "seed",
                   "init_scale", "hidden", "buckets", "mirror", "min_ply", "max_score", "skip_in_check", "skip_captures", "disagree_score",
                   "init", "preload", "score_scale", "superbatch_positions", "lr_schedule", "lr_step_every",
                   "lr_final_fraction", "warmup_positions", "optimizer", "weight_decay")

# Settings added after checkpoints were first written, with the value an
# older checkpoint's run had.
_ADDED_SETTINGS = {"lr_gamma": 1.0, "buckets": 1, "mirror": False, "hidden": HIDDEN, "preload": False,
                   "score_scale": SCORE_SCALE, "superbatches": 0, "superbatch_positions": None, "lr_schedule": "step",
                   "lr_step_every": 1, "lr_final_fraction": None, "warmup_positions": 0, "optimizer": "adam",
                   "weight_decay": 0.0}


#: The file of a run's directory that names its run, written with the
#: run's first checkpoint: its run id, command, settings and start.
RUN_FILE = "run.json"


def _checkpoints(out):
    return sorted(glob.glob(os.path.join(glob.escape(out), "epoch-*.pt")))


def _names(paths):
    """Checkpoint files for a message."""
    names = [os.path.basename(p) for p in paths]
    return names[0] if len(names) == 1 else f"{names[0]} to {names[-1]} ({len(names)} files)"


def _run_name(ck):
    """A checkpoint's run, for a message: its id, seed and data."""
    s = ck.get("settings", {})
    data = s.get("data")
    data = " ".join(data) if isinstance(data, list) else data
    rid = ck.get("run_id")
    return f"{'run ' + rid if rid else 'a run without a run id'} (seed {s.get('seed')}, data {data})"


def _recorded_run(out):
    """The run id that out's RUN_FILE names; None when it has none."""
    path = os.path.join(out, RUN_FILE)
    try:
        with open(path) as f:
            run = json.load(f)
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: {err}") from None
    if not isinstance(run, dict) or not isinstance(run.get("run_id"), str):
        raise ValueError(f"{path}: no run_id")
    return run["run_id"]


def _refuse(out, found):
    """The error of a fresh run into a directory holding checkpoints."""
    what = ""
    try:
        what = f" of {_run_name(read_checkpoint(found[-1]))}"
    except (OSError, ValueError):
        pass
    return UsageError(f"{out} holds checkpoints {_names(found)}{what}: --resume continues that run, "
                      f"--force starts a new one in its place")


def _resumable(out, found):
    """The newest checkpoint of found (out's, by epoch), read, when all of
    them are of one run: one run id (or none, older checkpoints), which
    out's RUN_FILE names too, each one's losses those of the newest's
    first epochs and its name its epoch. Otherwise a UsageError naming the
    files of each run."""
    runs, metas, ck = {}, [], None
    for p in found:
        ck = read_checkpoint(p)
        metas.append((p, {"run_id": ck.get("run_id"), "settings": ck["settings"], "epoch": ck["epoch"],
                          "history": ck["history"]}))
        runs.setdefault(ck.get("run_id"), []).append(p)
    fix = "--resume continues one run; move the others away, or --force starts afresh"
    if len(runs) > 1:
        meta = dict(metas)
        parts = "; ".join(f"{_names(ps)} of {_run_name(meta[ps[-1]])}" for ps in runs.values())
        raise UsageError(f"{out} mixes runs: {parts}: {fix}")
    newest_path, newest = metas[-1]
    recorded = _recorded_run(out)
    if recorded is not None and recorded != newest["run_id"]:
        raise UsageError(f"{out}: its {RUN_FILE} names run {recorded}, its checkpoints {_names(found)} are of "
                         f"{_run_name(newest)}: {fix}")
    for p, m in metas:
        name = os.path.basename(p)
        if name != f"epoch-{m['epoch']:04d}.pt":
            raise UsageError(f"{p}: holds epoch {m['epoch']}, not the one its name says: {fix}")
        if m["history"] != newest["history"][:len(m["history"])]:
            raise UsageError(f"{out}: {name} is not of the run of {os.path.basename(newest_path)} (their losses "
                             f"differ), the directory mixes runs: {fix}")
    return newest_path, ck


def _make_parents(out):
    """Create the missing directories above out; returns them, the
    outermost first."""
    missing, d = [], os.path.dirname(os.path.abspath(out))
    while not os.path.isdir(d):
        missing.append(d)
        d = os.path.dirname(d)
    made = []
    for d in reversed(missing):
        os.mkdir(d)
        made.append(d)
    return made


def _remove_dirs(dirs):
    """Remove these directories where still empty, the innermost first."""
    for d in reversed(dirs):
        try:
            os.rmdir(d)
        except OSError:
            pass


def _check_out(args):
    """--out against the inputs: a directory of its own, none of the
    datasets, and not holding the --init checkpoint that --force would
    replace."""
    out = args.out
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out} is a file, not a directory (the checkpoints' directory)")
    for p in list(args.data) + ([args.val] if args.val else []):
        if same_file(out, p):
            raise UsageError(f"--out {out} is the dataset {p}: the checkpoints go into a directory of their own")
    if args.init and getattr(args, "force", False) and any(same_file(args.init, p) for p in _checkpoints(out)):
        raise UsageError(f"--init {args.init} is a checkpoint in --out {out}, which --force replaces: "
                         f"copy it elsewhere first")


def _save(out, path, checkpoint, saved, run=None, replaced=()):
    """Write a checkpoint to a temporary name beside path and rename it.
    The first of a new run (``run``, its RUN_FILE record) then writes
    RUN_FILE and removes the checkpoints it replaces (another run's, with
    --force), so that a new run that fails before it leaves out as it was."""
    os.makedirs(out, exist_ok=True)
    atomic.write(path, lambda f: torch.save(checkpoint, f))
    saved.append(path)
    if run is None:
        return
    run_path = os.path.join(out, RUN_FILE)
    atomic.write(run_path, lambda f: f.write(json.dumps(run, indent=1, sort_keys=True) + "\n"), binary=False)
    for p in replaced:
        if os.path.basename(p) != os.path.basename(path):
            try:
                os.remove(p)
            except FileNotFoundError:
                pass


def epoch_lr(args, epoch):
    """The learning rate of an epoch (0-based) by the default schedule:
    --lr decayed by --lr-gamma each epoch, so that it depends on the epoch
    alone and a resumed run (even one given more --epochs) continues the
    same schedule."""
    return args.lr * args.lr_gamma ** epoch


def schedule_lr(args, unit, seen, batch):
    """The learning rate of a step: ``unit`` is its epoch or superbatch
    (0-based), ``seen`` the positions the run trained before it, ``batch``
    its rows. ``step``: --lr times --lr-gamma every --lr-step-every units
    (every epoch by default: :func:`epoch_lr`); ``cosine``: from --lr to
    --lr times --lr-final-fraction over the run's superbatches, by
    positions; ``constant``: --lr. A --warmup-positions run scales it by
    the positions seen (this step's included) over the warm-up's, up to 1.
    A function of the position in the run alone, so that a resumed run
    continues the same schedule."""
    lr = args.lr
    if args.lr_schedule == "step":
        lr = lr * args.lr_gamma ** (unit // args.lr_step_every)
    elif args.lr_schedule == "cosine":
        t = min(seen / (args.superbatches * args.superbatch_positions), 1.0)
        f = args.lr_final_fraction
        lr = lr * (f + (1 - f) * 0.5 * (1 + math.cos(math.pi * t)))
    if args.warmup_positions and seen + batch < args.warmup_positions:
        lr = lr * (seen + batch) / args.warmup_positions
    return lr


def _schedule_settings(args):
    """Check the schedule's and optimiser's options against each other and
    fill in their defaults, before any work: a UsageError names the
    option. What the run does not use is None (--epochs with
    --superbatches, --superbatch-positions without, the decay's settings
    of another schedule)."""
    a = lambda name, default=None: getattr(args, name, default)
    given = lambda name: a(name) is not None
    sb = a("superbatches") or 0
    args.superbatches = sb
    if sb:
        if given("epochs"):
            raise UsageError("--epochs and --superbatches: a run counts passes or superbatches, give one")
        if a("steps"):
            raise UsageError("--steps and --superbatches: a superbatch is --superbatch-positions long")
        args.superbatch_positions = a("superbatch_positions") or SUPERBATCH_POSITIONS
        if args.superbatch_positions < 1:
            raise UsageError(f"--superbatch-positions {args.superbatch_positions}: want at least 1")
    else:
        if given("superbatch_positions"):
            raise UsageError("--superbatch-positions needs --superbatches N")
        args.superbatch_positions = None
        if not given("epochs"):
            args.epochs = 4
    sched = a("lr_schedule") or "step"
    if sched not in LR_SCHEDULES:
        raise UsageError(f"--lr-schedule {sched}: want one of {', '.join(LR_SCHEDULES)}")
    if sched == "cosine" and not sb:
        raise UsageError("--lr-schedule cosine needs --superbatches N: it decays over the run's positions")
    args.lr_schedule = sched
    for name, option, default, owner in (("lr_gamma", "--lr-gamma", 1.0, "step"),
                                         ("lr_step_every", "--lr-step-every", 1, "step"),
                                         ("lr_final_fraction", "--lr-final-fraction", LR_FINAL_FRACTION, "cosine")):
        if sched != owner:
            if given(name):
                raise UsageError(f"{option} is --lr-schedule {owner}'s, not {sched}'s")
            setattr(args, name, None)
        elif not given(name):
            setattr(args, name, default)
    if args.lr_schedule == "step" and args.lr_step_every < 1:
        raise UsageError(f"--lr-step-every {args.lr_step_every}: want at least 1")
    args.warmup_positions = a("warmup_positions") or 0
    args.optimizer = a("optimizer") or "adam"
    if args.optimizer not in OPTIMIZERS:
        raise UsageError(f"--optimizer {args.optimizer}: want one of {', '.join(OPTIMIZERS)}")
    if args.optimizer == "adam":
        if a("weight_decay"):
            raise UsageError("--weight-decay is AdamW's: add --optimizer adamw")
        args.weight_decay = 0.0
    elif not given("weight_decay"):
        args.weight_decay = WEIGHT_DECAY
    args.score_scale = float(a("score_scale") or SCORE_SCALE)
    if not args.score_scale > 0:
        raise UsageError(f"--score-scale {args.score_scale}: want more than 0")


def _compiled(args, device):
    """Whether the run trains through the compiled CPU kernel
    (:mod:`nnue_kernel`): sparse inputs on a CPU, where it could be built."""
    return device.type == "cpu" and not _dense(args.inputs, device) and nnue_kernel.load() is not None


def _optimizer(args, model, device):
    """The run's optimiser: torch's, or with the compiled kernel the same
    one stepping in C (its state the same, so that a run may resume on
    either)."""
    adamw = args.optimizer == "adamw"
    kw = {"weight_decay": args.weight_decay} if adamw else {}
    if _compiled(args, device):
        return (nnue_kernel.AdamW if adamw else nnue_kernel.Adam)(model.parameters(), lr=args.lr, **kw)
    cls = torch.optim.AdamW if adamw else torch.optim.Adam
    if device.type == "cuda" and "fused" in inspect.signature(cls).parameters:
        # One kernel for all four tensors instead of a dozen each (at batch
        # 2,048 a step took 3.5 ms instead of 3.8: record
        # 2026-12-04-gpu-train-step-variants).
        kw["fused"] = True
    return cls(model.parameters(), lr=args.lr, **kw)


def kernel_threads():
    """The compiled kernel's threads where --threads is 0: one fewer than
    the cores this process may run on, the other one the reader's (on 2
    cores one thread trained 176,000 positions/s, two 167,000: record
    2026-12-02-nnue-train-cpu-kernel)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


def train(args):
    """Train (or resume) a network; returns the last checkpoint's path.
    torch's deterministic mode and thread count are restored afterwards."""
    det, threads = torch.are_deterministic_algorithms_enabled(), torch.get_num_threads()
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    try:
        if device.type == "cuda":
            # cuBLAS repeats itself only with a fixed workspace; where a CUDA
            # kernel has no deterministic form torch warns instead of failing
            # (CPU runs are exact).
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=device.type != "cpu")
        if args.threads:
            torch.set_num_threads(args.threads)
        elif _compiled(args, device):
            torch.set_num_threads(kernel_threads())
        return _train(args, device)
    finally:
        torch.use_deterministic_algorithms(det)
        torch.set_num_threads(threads)


def _train(args, device):
    if isinstance(args.data, str):  # one path, as a caller may give it
        args.data = [args.data]
    force = getattr(args, "force", False)
    if force and args.resume:
        raise UsageError("--force starts a new run, --resume continues one: give one of them")
    _schedule_settings(args)
    _check_out(args)
    # The --init weights, feature set and pawn table, read once. The table
    # goes into every checkpoint, and export writes it: the weights learnt
    # their scale beside it.
    init_state, init_mirror, init_pawns = None, False, None
    if args.init:
        init_state, init_mirror, init_pawns = initial_state(args.init)
    if args.buckets is None:  # the --init network's, else one
        args.buckets = init_state["out.weight"].shape[0] if init_state is not None else 1
    init_hidden = init_state["ft.weight"].shape[1] if init_state is not None else None
    if args.hidden is None:  # the --init network's width, else HIDDEN
        args.hidden = init_hidden or HIDDEN
    elif init_hidden is not None and args.hidden != init_hidden:
        raise ValueError(f"--init {args.init}: accumulators {init_hidden} wide, training {args.hidden} (--hidden)")
    if not valid_hidden(args.hidden):
        raise ValueError(f"--hidden {args.hidden}: want {WIDTH_RULE}")
    if args.mirror is None:  # the --init network's feature set, else plain
        args.mirror = init_mirror
    elif args.init and args.mirror != init_mirror:
        raise ValueError(f"--init {args.init}: {'king-mirrored' if init_mirror else 'plain'} features, "
                         f"training {'king-mirrored' if args.mirror else 'plain'} ones (--mirror)")
    tr = _dataset(args.data, args, args.seed, True)
    if tr.layout.game != layout.CHESS.game:
        raise ValueError(f"{' '.join(args.data)}: a {tr.layout.game} dataset ({tr.layout}); the network's features are chess pieces")
    val = None
    if args.val:
        val = _dataset(args.val, args, args.seed, False)
    else:
        held = _split(tr, args.val_every)
        if held:
            val = _dataset(args.data, args, args.seed, False)
            val.source.units = held
    # The output: its lock (beside it, so its parent is made first), then
    # what it holds. Directories made here are removed again when the run
    # fails before its first checkpoint.
    made = _make_parents(args.out)
    if not os.path.isdir(args.out):
        made.append(os.path.abspath(args.out))
    saved = []
    try:
        with outlock.acquire(args.out):
            return _epochs(args, device, tr, val, init_state, init_pawns, force, saved)
    finally:
        if not saved:
            _remove_dirs(made)


def _epochs(args, device, tr, val, init_state, init_pawns, force, saved):
    """The run in args.out, whose lock is held: its start (fresh, resumed,
    or with --force in place of another), then its epochs."""
    found = _checkpoints(args.out)
    if found and not args.resume and not force:
        raise _refuse(args.out, found)
    resumed = None
    if args.resume and found:
        resumed_path, resumed = _resumable(args.out, found)
        was = resumed["settings"]
        for k in ("superbatches",) + _SAME_ON_RESUME:
            had = was.get(k, _ADDED_SETTINGS.get(k))
            if k == "data" and isinstance(had, str):  # one path, as checkpoints wrote it before lists
                had = [had]
            now = getattr(args, k)
            if k == "superbatches" and had and now and args.lr_schedule != "cosine":
                continue  # step and constant schedules may train on past their superbatches
            if had != now:
                raise ValueError(f"{resumed_path}: trained with {k} {had!r}, resumed with {now!r}")
    # A new run's id, or the resumed run's (none for a run begun before
    # run ids); RUN_FILE is written with a new run's first checkpoint.
    run_id = resumed.get("run_id") if resumed is not None else secrets.token_hex(8)
    run = None
    if resumed is None:
        run = {"run_id": run_id, "command": args.command, "settings": _settings(args),
               "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    replaced = found if force else []
    if replaced:
        print(f"--force: a new run {run_id} in {args.out}; its first checkpoint replaces "
              f"{_names(replaced)} there", file=sys.stderr, flush=True)
    torch.manual_seed(args.seed)
    model = Net(args.init_scale, args.buckets, args.hidden).to(device)
    opt = _optimizer(args, model, device)
    unit = "superbatch" if args.superbatches else "epoch"
    history, start, positions, stream_at = [], 0, 0, {"pass": 0, "offset": 0}
    init_val = None  # the --init network's validation loss, before any training
    if resumed is not None:
        model.load_state_dict(resumed["model"])
        opt.load_state_dict(resumed["optimizer"])
        history, start, positions = resumed["history"], resumed["epoch"], resumed["positions"]
        stream_at = resumed.get("stream", stream_at)
        init_val = resumed.get("init_val_loss")
        print(f"resumed from {resumed_path} ({unit} {start})", flush=True)
        resumed = None  # its tensors are the model's and the optimizer's now
    if args.init and not start:
        model.load_state_dict(with_buckets(init_state, args.buckets, args.init))
        model.clip_()
        print(f"starting from {args.init}", flush=True)

    def rows(ds):
        return sum(ds.unit_rows(u) for u in ds.source.units) if ds else 0

    n_train, n_val = rows(tr), rows(val)
    on = str(device)
    if _compiled(args, device):
        on += " (compiled kernel)"
    elif device.type == "cpu" and not _dense(args.inputs, device):
        on += f" (torch's path: {nnue_kernel.why_not()})"
    print(f"{n_train} training positions, {n_val} validation, on {on}, "
          f"lambda {args.lam}, score scale {args.score_scale:g}, {architecture(args.buckets, args.mirror, args.hidden)}",
          flush=True)
    if args.superbatches and not n_train:
        raise ValueError(f"{' '.join(args.data)}: no training positions (after the filters) to draw superbatches from")
    if args.preload:
        t0 = time.perf_counter()
        tr = Preloaded(tr, device, args.batch_size, args.seed)
        if val:
            val = Preloaded(val, device, args.batch_size, args.seed, shuffle=False)
        print(f"preloaded {len(tr)} training and {len(val) if val else 0} validation positions "
              f"({(tr.nbytes + (val.nbytes if val else 0)) / 2**20:.0f} MiB on {device}) "
              f"in {time.perf_counter() - t0:.1f} s", flush=True)
    if args.init and not start and val:
        model.eval()
        init_val = round(evaluate(model, val, device, args.mirror, args.inputs, args.score_scale)[0], 7)
        print(f"starting network: val loss {init_val:.6f}", flush=True)
    path = None
    dense = _dense(args.inputs, device)
    fused = _compiled(args, device)
    stream = None
    if args.superbatches and start < args.superbatches:
        if stream_at["offset"]:
            print(f"skipping to position {stream_at['offset']} of pass {stream_at['pass'] + 1}", flush=True)
        stream = Stream(tr, args.batch_size, stream_at["pass"], stream_at["offset"])
    for epoch in range(start, args.superbatches or args.epochs):
        if stream is None:
            tr.set_epoch(epoch)
            batches = tr.compact_batches()
        else:
            batches = stream.batches(args.superbatch_positions)
        model.train()
        t0, c0 = time.perf_counter(), time.process_time()
        # The running total stays on the device, so that a step need not
        # wait for the last one (a GPU's queue stays full).
        total, n, steps = torch.zeros((), dtype=torch.float64, device=device), 0, 0
        shown, first_lr, lr = t0, None, None
        if device.type == "cpu" and not dense:
            # Read (and built) ahead on a thread of their own, by as many rows
            # as the shuffle buffer: its batches come in bursts, one each
            # time it is refilled (at 16,384 rows, with a queue of 2 batches
            # the training thread waited 30-40% of the time, with 8 10-15%:
            # record 2026-12-02-nnue-train-fused-tiles).
            ahead = max(2, -(-getattr(tr, "shuffle_buffer", 0) // args.batch_size))
            batches = nnue_sparse.ahead(batches, args.mirror, depth=ahead, build=nnue_kernel.load() is None)
        for rows in batches:
            lr = schedule_lr(args, epoch, positions + n, len(rows["value"]))
            if first_lr is None:
                first_lr = lr
            for group in opt.param_groups:
                group["lr"] = lr
            if fused:  # forward, loss and backward in one call of the compiled kernel
                k = len(rows["value"])
                loss = nnue_kernel.train_step(model, rows["packed"], rows["value"], args.mirror,
                                              SCALE / args.score_scale)
                total += loss * k
            else:
                loss, k = _loss(model, rows, device, args.mirror, dense, args.score_scale)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                total += loss.detach().double() * k
            opt.step()
            model.clip_()
            n += k
            steps += 1
            if args.progress and time.perf_counter() - shown >= args.progress:
                shown = time.perf_counter()
                of = (f"of {args.superbatch_positions} a superbatch" if stream else
                      f"of {n_train} an epoch, after the filters")
                print(f"{unit} {epoch + 1}: {n} positions, train loss {float(total) / n:.6f}, "
                      f"{n / (shown - t0):.0f} positions/s ({of})", file=sys.stderr, flush=True)
            if args.steps and steps >= args.steps:
                break
        if first_lr is None:  # an epoch without rows
            first_lr = lr = schedule_lr(args, epoch, positions, 0)
        total = float(total)  # waits for the last step
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        positions += n
        vloss = evaluate(model, val, device, args.mirror, args.inputs, args.score_scale)[0] if val else None
        entry = {"epoch": epoch + 1, "lr": first_lr, "train_loss": round(total / max(n, 1), 7),
                 "val_loss": None if vloss is None else round(vloss, 7), "positions": n}
        if stream is not None:
            entry.update(lr_end=lr, **{"pass": stream.pass_ + 1})
        elif args.warmup_positions:
            entry["lr_end"] = lr
        history.append(entry)
        lrs = f"lr {first_lr:.3g}" + (f" to {lr:.3g}" if lr != first_lr else "")
        where = f" (pass {stream.pass_ + 1})" if stream is not None else ""
        print(f"{unit} {epoch + 1}: {lrs}, train loss {total / max(n, 1):.6f}, val loss "
              f"{'-' if vloss is None else f'{vloss:.6f}'}, {n} positions{where}, {n / wall:.0f} positions/s, "
              f"{n / max(cpu, 1e-9):.0f} per CPU second", flush=True)
        path = os.path.join(args.out, f"epoch-{epoch + 1:04d}.pt")
        checkpoint = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch + 1,
                      "history": history, "positions": positions, "train_rows": n_train, "val_rows": n_val,
                      "init_val_loss": init_val, "run_id": run_id,
                      "pawn_scale": None if init_pawns is None else list(init_pawns),
                      "settings": _settings(args), "command": args.command,
                      "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        if stream is not None:
            checkpoint["stream"] = stream.state()
        _save(args.out, path, checkpoint, saved, None if saved else run, replaced)
    if path is None:  # resumed at or past --epochs: its newest checkpoint
        path = found[-1]
    return path


def _settings(args):
    """The run's settings as its checkpoints record them."""
    return {k: v for k, v in vars(args).items() if k not in ("func", "resume", "force")}
