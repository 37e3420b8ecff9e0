"""The Go-written dataset the tests read: built once per run.

CHESSFORGE_PYTEST_DIR names a directory that pyfixture and the npy export
already filled (make test-python does this); otherwise it is built here in
a temporary directory with `go run` (pyfixture) and bin/dataset (or
`go run ./cmd/dataset` when bin/dataset is missing).
"""

import atexit
import os
import shutil
import subprocess
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
INPUT_SIZE = 1152

_dir = None


def build(out):
    subprocess.run(["go", "run", "./datasets/python/internal/pyfixture", "-out", out],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, "bin", "dataset")
    cmd = [binary] if os.access(binary, os.X_OK) else ["go", "run", "./cmd/dataset"]
    subprocess.run(cmd + ["export", "-format", "npy", os.path.join(out, "data"), "-out",
                          os.path.join(out, "npy"), "-shard-rows", "1000", "-quiet"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def directory():
    """The fixture directory: data/ (Parquet), npy/ (export), raw dumps."""
    global _dir
    if _dir is None:
        d = os.environ.get("CHESSFORGE_PYTEST_DIR")
        if not d or not os.path.isfile(os.path.join(d, "npy", "manifest.json")):
            d = d or tempfile.mkdtemp(prefix="chessforge-pytest-")
            if not os.environ.get("CHESSFORGE_PYTEST_DIR"):
                atexit.register(shutil.rmtree, d, True)
            build(d)
        _dir = d
    return _dir


def expected():
    """The Go reader's dump of the Parquet rows: planes [n, 1152] float32,
    policy, score_cp (int32) and result (float32)."""
    d = directory()
    planes = np.fromfile(os.path.join(d, "planes.f32"), dtype="<f4").reshape(-1, INPUT_SIZE)
    policy = np.fromfile(os.path.join(d, "policy.i32"), dtype="<i4")
    score = np.fromfile(os.path.join(d, "score_cp.i32"), dtype="<i4")
    result = np.fromfile(os.path.join(d, "result.f32"), dtype="<f4")
    return planes, policy, score, result


def columns():
    """Every dumped column by name: planes, policy, score_cp, result, ply,
    in_check, best_is_capture, best_is_promotion (bool), fen, best_move
    (lists of str)."""
    d = directory()
    planes, policy, score, result = expected()
    cols = {"planes": planes, "policy": policy, "score_cp": score, "result": result,
            "ply": np.fromfile(os.path.join(d, "ply.i32"), dtype="<i4")}
    for c in ("in_check", "best_is_capture", "best_is_promotion"):
        cols[c] = np.fromfile(os.path.join(d, c + ".u8"), dtype=np.uint8).astype(bool)
    for c in ("fen", "best_move"):
        with open(os.path.join(d, c + ".txt")) as f:
            cols[c] = f.read().splitlines()
    return cols


def dama_directory():
    """The draughts fixture: pyfixture's dama/ directory (data/, the raw
    dumps), with its npy/ export made here when it is missing (make
    test-python exports the chess data only)."""
    d = os.path.join(directory(), "dama")
    if not os.path.isfile(os.path.join(d, "npy", "manifest.json")):
        binary = os.path.join(ROOT, "bin", "dataset")
        cmd = [binary] if os.access(binary, os.X_OK) else ["go", "run", "./cmd/dataset"]
        subprocess.run(cmd + ["export", "-format", "npy", os.path.join(d, "data"), "-out",
                              os.path.join(d, "npy"), "-shard-rows", "1000", "-quiet"],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return d


def dama_columns():
    """The draughts fixture's dumped columns, as columns() gives the chess
    ones: planes [n, 448] float32, and the rest by name."""
    d = dama_directory()
    cols = {"planes": np.fromfile(os.path.join(d, "planes.f32"), dtype="<f4").reshape(-1, 448)}
    for c, dtype in (("policy", "<i4"), ("score_cp", "<i4"), ("result", "<f4"), ("ply", "<i4")):
        cols[c] = np.fromfile(os.path.join(d, c + (".f32" if dtype == "<f4" else ".i32")), dtype=dtype)
    for c in ("in_check", "best_is_capture", "best_is_promotion"):
        cols[c] = np.fromfile(os.path.join(d, c + ".u8"), dtype=np.uint8).astype(bool)
    for c in ("fen", "best_move"):
        with open(os.path.join(d, c + ".txt")) as f:
            cols[c] = f.read().splitlines()
    return cols


def assert_same_gradients(test, ref, fast, where=""):
    """That every parameter of ``fast`` (a network) has ``ref``'s gradient
    up to float rounding, relative to the largest of that gradient (which
    must not be all zero)."""
    import torch  # the fixture's other users need no torch

    for (name, p), q in zip(ref.named_parameters(), fast.parameters()):
        scale = p.grad.abs().max().item()
        test.assertGreater(scale, 0, name)
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-5, atol=1e-5 * scale, msg=lambda m: f"{name} ({where}): {m}")
