"""What the commands (chessforge-nnue, chessforge-train, chessforge-bench)
share: the error boundary of their main(), which turns a user's error into
one line "PROG: message" and an exit status (2 for a usage error, 1 for
failed work) while a bug still raises, and the argparse types that
range-check numeric options before any work."""

import argparse
import math
import os
import sys


class UsageError(ValueError):
    """A command line the command refuses before doing anything: exit 2."""


class MissingDependency(ImportError):
    """An optional package the input needs is not installed (pyarrow for
    Parquet): failed work, exit 1."""


def message(err):
    """The one-line message of a user's error: an OSError as "FILE: why",
    a DataLoader worker's re-raised error as the worker's own message."""
    if isinstance(err, OSError) and err.strerror:
        text = f"{err.filename}: {err.strerror}" if err.filename is not None else err.strerror
    else:
        text = str(err)
    if "\nOriginal Traceback" in text:  # raised in a DataLoader worker: its last line is the error
        last = text.rstrip().splitlines()[-1]
        text = last.split(": ", 1)[1] if ": " in last else last
    return " ".join(text.split("\n"))


def run(prog, work):
    """Call work() and return its exit status (0 when it returns None),
    or print a user's error on one line and return 2 for a
    :class:`UsageError`, 1 for other ValueErrors, OSErrors and a
    :class:`MissingDependency`. Other exceptions are bugs and propagate."""
    try:
        status = work()
    except UsageError as err:
        print(f"{prog}: {message(err)}", file=sys.stderr)
        return 2
    except (OSError, ValueError, MissingDependency) as err:
        print(f"{prog}: {message(err)}", file=sys.stderr)
        return 1
    return 0 if status is None else status


def _number(kind, low=None, high=None, low_open=False):
    """An argparse type: ``kind`` (int or float), finite, within [low,
    high] (low excluded with low_open)."""
    if high is not None:
        want = f"from {low} to {high}"
    else:
        want = f"more than {low}" if low_open else f"at least {low}"

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: want {'an integer' if kind is int else 'a number'}") from None
        if kind is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r}: want a finite number")
        if (value <= low if low_open else value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text}: want {want}")
        return value
    return parse


#: Integers of at least 1; of at least 0; a seed, 0 to 2^32 - 1 (which
#: the trainers' generators take whatever they mix it with).
positive_int = _number(int, 1)
natural_int = _number(int, 0)
seed_int = _number(int, 0, 2**32 - 1)
#: Floats above 0; in [0, 1].
positive_float = _number(float, 0, low_open=True)
natural_float = _number(float, 0)
unit_float = _number(float, 0, 1)


def device(text):
    """--device: "cpu", "cuda" or "cuda:N", one that this machine has."""
    import torch

    try:
        d = torch.device(text)
    except RuntimeError:
        raise argparse.ArgumentTypeError(f"{text!r}: want cpu, cuda or cuda:N") from None
    if d.type == "cpu":
        return text
    if d.type != "cuda":
        raise argparse.ArgumentTypeError(f"{text!r}: want cpu, cuda or cuda:N")
    if not torch.cuda.is_available():
        raise argparse.ArgumentTypeError(f"{text}: torch sees no CUDA device here (use cpu)")
    if d.index is not None and d.index >= torch.cuda.device_count():
        raise argparse.ArgumentTypeError(f"{text}: this machine has {torch.cuda.device_count()} CUDA devices")
    return text


def same_file(a, b):
    """Whether paths a and b name one existing file or directory (links
    and spellings resolved)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
