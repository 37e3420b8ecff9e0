"""NNUE for the engine: train, export and check chessforge's network
(``768x2-H-B-screlu`` with accumulators H wide, a multiple of 16 from 16 to
1024, 256 by default, and B = 1, 2, 4 or 8 output buckets, the contract of
engine/nnue: QA = 255, QB = 64, SCALE = 400). This module is the command
line, ``chessforge-nnue``:

    chessforge-nnue train DATA --out DIR [--val PATH] [--epochs 4] [--seed 1] [--resume | --force]
                          [--superbatches N [--superbatch-positions P] [--lr-schedule cosine] [--warmup-positions W]]
                          [--optimizer adamw] [--score-scale K] [--lambda L]
                          [--hidden 256] [--buckets 8] [--mirror] [--device cuda] [--inputs auto] [--preload]
                          [--init CHECKPOINT.pt | --init NETWORK.nnue]
    chessforge-nnue export DIR/epoch-0004.pt --out net.nnue [--pawn-scale 58,58,91,120,128]
    chessforge-nnue pawnscale DATA... --network net.nnue --write [--level-of current.nnue]
    chessforge-nnue table net.nnue [--set 44,44,68,90,96]
    chessforge-nnue vectors net.nnue --data fen.txt --out vectors.txt -n 1200

The work is done beside it, a module per concern, and every public name of
those modules is importable from here too:

- :mod:`chessforge_data.nnue_model`: the architecture, the features of a
  position and the float network (:class:`Net`);
- :mod:`chessforge_data.nnue_train`: training, its loss, checkpoints and
  ``--resume``, ``--init`` and ``--preload``;
- :mod:`chessforge_data.nnue_export`: quantization, the integer forward
  pass, the network file and its pawn table, a checkpoint's export;
- :mod:`chessforge_data.nnue_check`: a network's scores of a dataset and
  its test vectors.

``export`` writes ``--pawn-scale``, else the table of the network the
checkpoint was trained from with ``--init``, else the table every network
had before format version 3 (:data:`LEGACY_PAWN_SCALE`); ``pawnscale
--network FILE --write`` fits the table to the network's own scores on a
dataset and writes it into the file. The entry for 4 or more pawns is the
table's level, the network's overall scale into the search's units; the
fit keeps the file's level, or with ``--level-of OTHER.nnue`` takes the
level that puts the network's scores on OTHER's scale (the network whose
search the engine's margins were tuned with), and ``table FILE --set``
writes a whole table chosen by matches.
"""

import argparse
import os
import sys

from . import outlock, pawnscale
from .cli import (UsageError, device, natural_float, natural_int, positive_float, positive_int, run, same_file,
                  seed_int, unit_float)
from .nnue_check import network_scores, read_fens, vectors
from .nnue_export import (ACTIVATION_SCRELU, FEATURES_MIRRORED, FEATURES_PLAIN, HEADER, HEADER_V1,
                          LEGACY_PAWN_SCALE, MAGIC, PAWN_GROUPS, PAWN_SCALE_ONE, QA, QB, VERSION,
                          check_pawn_scale, dequantize, export, payload_bytes, quantize, quantized_eval, read_net,
                          set_pawn_scale, tdiv, write_net)
from .nnue_model import (BUCKETS, CLIP, HIDDEN, HIDDEN_STEP, INPUTS, MAX_HIDDEN, SCALE, THEM, WIDTH_RULE, Net,
                         architecture, batch_features, bucket, dense_features, fen_features, piece_bits,
                         sparse_features, valid_hidden)
from .nnue_train import (INPUTS_CHOICES, LR_FINAL_FRACTION, LR_SCHEDULES, OPTIMIZERS, SCORE_SCALE,
                         SUPERBATCH_POSITIONS, WEIGHT_DECAY, Preloaded, Stream, epoch_lr, evaluate, initial_state,
                         read_checkpoint, schedule_lr, train, with_buckets)

__all__ = [
    # nnue_model
    "INPUTS", "HIDDEN", "HIDDEN_STEP", "MAX_HIDDEN", "WIDTH_RULE", "BUCKETS", "SCALE", "CLIP", "THEM", "Net",
    "valid_hidden", "architecture", "bucket", "batch_features", "piece_bits", "sparse_features",
    "dense_features", "fen_features",
    # nnue_export
    "ACTIVATION_SCRELU", "QA", "QB", "MAGIC", "VERSION", "HEADER", "HEADER_V1", "FEATURES_PLAIN",
    "FEATURES_MIRRORED", "PAWN_GROUPS", "PAWN_SCALE_ONE", "LEGACY_PAWN_SCALE", "payload_bytes",
    "check_pawn_scale", "quantize", "tdiv", "quantized_eval", "write_net", "read_net", "dequantize", "export",
    "set_pawn_scale",
    # nnue_train
    "INPUTS_CHOICES", "SCORE_SCALE", "SUPERBATCH_POSITIONS", "LR_SCHEDULES", "OPTIMIZERS", "LR_FINAL_FRACTION",
    "WEIGHT_DECAY", "initial_state", "read_checkpoint", "with_buckets", "evaluate", "Preloaded", "Stream", "epoch_lr",
    "schedule_lr", "train",
    # nnue_check
    "network_scores", "read_fens", "vectors",
    # the command line
    "matching_level", "parse_pawn_scale", "export_checked", "main",
]


def matching_level(args, network, table):
    """pawnscale --level-of: the level at which ``network`` (a scoring
    function of args.network), with ``table``, matches args.level_of's
    scores on args.data (:func:`pawnscale.level`), its line printed."""
    reference, ref_id = network_scores(args.level_of)
    ref_table = read_net(args.level_of)[0]["pawn_scale"]
    level, exact, rows = pawnscale.level(args.data, network, table, reference, ref_table, args.every,
                                         args.max_score)
    print(f"level {level}: the scale of network {ref_id}'s scores (table {' '.join(map(str, ref_table))}) "
          f"over {rows} positions, {exact:.1f} exactly")
    return level


def parse_pawn_scale(text):
    """``--pawn-scale``'s value, five comma-separated entries."""
    try:
        table = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want {PAWN_GROUPS} comma-separated integers, "
                                         f"such as {','.join(map(str, LEGACY_PAWN_SCALE))}") from None
    try:
        return check_pawn_scale(table)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def export_checked(args):
    """export with its output checked first: not the checkpoint itself
    nor a directory, and locked while it is written; returns the id."""
    if same_file(args.out, args.checkpoint):
        raise UsageError(f"--out {args.out} is the checkpoint {args.checkpoint}: the network file needs a name "
                         f"of its own")
    if os.path.isdir(args.out):
        raise UsageError(f"--out {args.out} is a directory: give the network file's name")
    with outlock.acquire(args.out):
        read_checkpoint(args.checkpoint)  # a clear error for a file that is not a checkpoint
        return export(args.checkpoint, args.out, args.pawn_scale)


def main(argv=None):
    """Run chessforge-nnue with these arguments (default: sys.argv[1:]);
    returns the exit status, with a user's error on one line of stderr: 2
    for the command line (argparse's, or a refused --out), 1 for failed
    work (a file that cannot be read)."""
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="chessforge-nnue", description="Train, export and check the engine's NNUE.")
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train (or --resume) a network on a dataset")
    t.add_argument("data", nargs="+",
                   help="NumPy export directory or Parquet file/directory/glob; several are read as one dataset")
    t.add_argument("--out", required=True, help="directory of the checkpoints (epoch-NNNN.pt)")
    t.add_argument("--val", help="validation dataset (default: every --val-every-th unit of DATA, taken "
                                 "in the order given, held out)")
    t.add_argument("--val-every", type=natural_int, default=10, help="hold out every Nth unit when --val is absent")
    t.add_argument("--epochs", type=positive_int,
                   help="total epochs, passes over the data (with --resume: up to this many; default 4 "
                        "unless --superbatches)")
    t.add_argument("--superbatches", type=positive_int,
                   help="train by positions instead of epochs: this many superbatches of --superbatch-positions "
                        "each, drawn from pass after pass over the data, a checkpoint after each "
                        "(epoch-NNNN.pt, NNNN the superbatch)")
    t.add_argument("--superbatch-positions", type=positive_int,
                   help=f"positions a superbatch (default {SUPERBATCH_POSITIONS:,}, bullet's)")
    t.add_argument("--steps", type=natural_int, default=0, help="at most this many steps per epoch (0: all)")
    t.add_argument("--batch-size", type=positive_int, default=1024)
    t.add_argument("--shuffle-buffer", type=natural_int, default=262144)
    t.add_argument("--lr", type=natural_float, default=1e-3, help="the learning rate of the first epoch or superbatch")
    t.add_argument("--lr-schedule", choices=LR_SCHEDULES,
                   help="step (the default): lr times --lr-gamma every --lr-step-every epochs or superbatches; "
                        "cosine: from lr to lr times --lr-final-fraction over the superbatches' positions; "
                        "constant")
    t.add_argument("--lr-gamma", type=positive_float,
                   help="step: multiplies the learning rate every --lr-step-every epochs or superbatches "
                        "(default 1: epoch e trains at lr*gamma^(e-1))")
    t.add_argument("--lr-step-every", type=positive_int, help="step: epochs or superbatches between decays (default 1)")
    t.add_argument("--lr-final-fraction", type=unit_float,
                   help=f"cosine: the learning rate at the run's end, a fraction of --lr (default {LR_FINAL_FRACTION})")
    t.add_argument("--warmup-positions", type=natural_int, default=0,
                   help="raise the learning rate linearly over the first this many positions (0: none)")
    t.add_argument("--optimizer", choices=OPTIMIZERS, default="adam",
                   help="adam (the default) or adamw, Adam with decoupled weight decay")
    t.add_argument("--weight-decay", type=natural_float,
                   help=f"adamw: the weight decay (default {WEIGHT_DECAY})")
    t.add_argument("--score-scale", type=positive_float, default=SCORE_SCALE,
                   help="K, centipawns: the target's score term is sigmoid(score/K) and the output's "
                        "sigmoid(eval/K), one scale for both (default 400; pawnscale DATA fits K to the data)")
    t.add_argument("--lambda", dest="lam", type=unit_float, default=0.0,
                   help="weight of the game result in the target (the rest: sigmoid(score/K)); "
                        "0 by default: with a few million positions the result term overfits")
    t.add_argument("--seed", type=seed_int, default=1)
    t.add_argument("--init-scale", type=positive_float, default=1.0,
                   help="scale of the initial W1 (uniform +-0.1 s) and W2 (+-0.05 s sqrt(256/H)); clipped")
    t.add_argument("--hidden", type=int,
                   help=f"accumulator width per perspective, {WIDTH_RULE} "
                        f"(default: the --init network's, else {HIDDEN})")
    t.add_argument("--buckets", type=int, choices=BUCKETS,
                   help="output buckets, chosen by the number of pieces on the board "
                        "(default: as many as the --init network has, else 1)")
    t.add_argument("--mirror", action="store_const", const=True,
                   help="king-mirrored features: each side's squares file-mirrored while its king is on files e-h "
                        "(default: as the --init network has them, else plain)")
    t.add_argument("--threads", type=natural_int, default=0, help="torch CPU threads (0: torch's default, or with the compiled CPU kernel one fewer than the cores); on a CPU the batches are read on one more")
    t.add_argument("--device", type=device, help="cpu, cuda or cuda:N (default: cuda when present)")
    t.add_argument("--inputs", choices=INPUTS_CHOICES, default="auto",
                   help="the features as sparse lists (EmbeddingBag) or dense rows (matrix products); "
                        "auto: dense on CUDA, sparse on the CPU. The same network up to float rounding")
    t.add_argument("--preload", action="store_true",
                   help="read the rows the filters keep once and keep them on the device (96 bytes a position), "
                        "each epoch drawing them all in a random order from the seed and the epoch; "
                        "--shuffle-buffer is not used. What keeps a GPU busy")
    start = t.add_mutually_exclusive_group()
    start.add_argument("--resume", action="store_true",
                       help="continue the run whose checkpoints --out holds, from its last (a new run when it "
                            "holds none); a directory mixing runs is refused")
    start.add_argument("--force", action="store_true",
                       help="start a new run even where --out holds another run's checkpoints: the new run's "
                            "first checkpoint replaces them")
    t.add_argument("--init", help="start from this checkpoint's (.pt) or network file's (.nnue) weights "
                                  "instead of random ones (a fresh optimizer; epochs count from 1)")
    t.add_argument("--progress", type=natural_float, default=10,
                   help="seconds between progress lines within an epoch, on stderr (0: none)")
    t.add_argument("--min-ply", type=natural_int, default=0)
    t.add_argument("--max-score", type=natural_int, default=0)
    t.add_argument("--skip-in-check", action="store_true")
    t.add_argument("--skip-captures", action="store_true")
    t.add_argument("--disagree-score", type=natural_int, default=0)
    e = sub.add_parser("export", help="quantize a checkpoint into the engine's network file")
    e.add_argument("checkpoint")
    e.add_argument("--out", required=True)
    e.add_argument("--pawn-scale", type=parse_pawn_scale,
                   help="the network's pawn table: its score is scaled by the entry (of 128) for the pawns of the "
                        "side it favours, 0, 1, 2, 3 and 4 or more (default: the table of the network the "
                        "checkpoint was trained from with --init, else "
                        f"{','.join(map(str, LEGACY_PAWN_SCALE))}, the table of networks before format version 3; "
                        "pawnscale --network FILE --write fits it)")
    v = sub.add_parser("vectors", help="write FEN;eval test vectors with the quantized forward pass")
    v.add_argument("net")
    v.add_argument("--data", required=True, help="FEN text file, pyfixture directory (fen.txt) or Parquet")
    v.add_argument("--out", required=True)
    v.add_argument("-n", type=positive_int, default=1200)
    c = sub.add_parser("pawnscale", help="measure how the side ahead's pawns change what its score is worth "
                                         "and fit a network's pawn table (engine/nnue/pawnscale.go)")
    c.add_argument("data", nargs="+", help="NumPy export directory or Parquet file/directory/glob; several are read as one")
    c.add_argument("--min-score", type=int, default=50, help="use rows whose |score| is at least this")
    c.add_argument("--max-score", type=int, default=1500, help="and at most this")
    c.add_argument("--max-material", type=int, default=0,
                   help="use rows whose pieces other than pawns and kings are worth at most this many pawns "
                        "(N, B 3, R 5, Q 9; 0: all rows)")
    c.add_argument("--every", type=positive_int, default=1, help="read every Nth unit (export shard) only")
    c.add_argument("--network", help="fit this network file's own score of each position instead of the "
                                     "recorded search score")
    c.add_argument("--min-rows", type=int, default=1000, help="fit a pawn count with at least this many rows")
    c.add_argument("--write", action="store_true",
                   help="write the pawn table the fit gives, at the file's level (its entry for 4+ pawns), "
                        "into the --network file (a new id)")
    c.add_argument("--level-of", metavar="REFERENCE",
                   help="with --network: give the table the level at which the network's scores of these positions "
                        "match this network file's (with its own table) in scale, in place of the file's level")
    b = sub.add_parser("table", help="print a network file's id and pawn table, or --set the table")
    b.add_argument("net")
    b.add_argument("--set", type=parse_pawn_scale,
                   help="write this pawn table, T0,T1,T2,T3,T4 of 128, into the file (a new id; the "
                        "weights kept, the command recorded in its provenance)")
    args = p.parse_args(argv)
    args.command = "chessforge-nnue " + " ".join(argv)

    def work():
        try:
            if args.cmd == "train":
                path = train(args)
                print(f"checkpoint {path}")
            elif args.cmd == "export":
                print(f"wrote {args.out}: network {export_checked(args)}")
            elif args.cmd == "pawnscale":
                if args.min_rows < 1:
                    raise UsageError(f"pawnscale --min-rows {args.min_rows}: want at least 1")
                if args.write and not args.network:
                    raise UsageError("pawnscale --write: needs --network FILE, the network whose table it writes")
                if args.level_of and not args.network:
                    raise UsageError("pawnscale --level-of: needs --network FILE, the network whose level it fits")
                network, scorer = None, ""
                if args.network:
                    network, net_id = network_scores(args.network)
                    scorer = f" (network {net_id}'s)"
                rows, fits = pawnscale.fit(args.data, args.min_score, args.max_score, args.max_material, args.every,
                                           args.min_rows, network)
                for line in pawnscale.report(rows, fits, args.min_score, args.max_score, args.max_material, scorer):
                    print(line)
                if args.network:
                    try:
                        table = pawnscale.table(fits, read_net(args.network)[0]["pawn_scale"][-1])
                        if args.level_of:
                            table = pawnscale.table(fits, matching_level(args, network, table))
                    except ValueError as err:
                        if args.write:
                            raise
                        print(f"pawn table: {err}")
                        return 0
                    print(f"pawn table {' '.join(map(str, table))}")
                    if args.write:
                        new_id = set_pawn_scale(args.network, table, args.command)
                        print(f"wrote {args.network}: network {new_id}")
            elif args.cmd == "table":
                if args.set is not None:
                    print(f"wrote {args.net}: network {set_pawn_scale(args.net, args.set, args.command)}")
                q, _, net_id = read_net(args.net)
                print(f"network {net_id}: pawn table {' '.join(map(str, q['pawn_scale']))}")
            else:
                for name, given in (("the network", args.net), ("--data", args.data)):
                    if same_file(args.out, given):
                        raise UsageError(f"--out {args.out} is {name} {given}: the vectors need a file of their own")
                print(f"wrote {args.out}: {vectors(args.net, args.data, args.out, args.n)} positions")
        except pawnscale.TooFewRows as err:  # its own exit status, before the ValueErrors
            print(f"chessforge-nnue: {err}", file=sys.stderr)
            return pawnscale.EXIT_TOO_FEW

    return run("chessforge-nnue", work)


if __name__ == "__main__":
    sys.exit(main())
