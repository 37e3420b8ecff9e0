"""The CPU trainer's compiled path: ``nnue_kernel.c`` built on first use
with the system's C compiler (``$CC``, else ``cc``) and called through
ctypes. It runs :meth:`Net.forward <chessforge_data.nnue_model.Net.forward>`
and its backward straight from a batch's compact rows (the features are
found in C, so no feature lists are built in Python): :func:`forward`
under autograd, and :func:`train_step`, a training step's forward, loss
and backward in one call, tile by tile; and the Adam step (:class:`Adam`,
:class:`AdamW`: torch's optimisers, whose ``step`` runs in C for float32
CPU parameters). Its results equal :mod:`nnue_sparse`'s up to float
rounding, and do not depend on the number of threads: each value
is computed by one thread in a fixed order (and, built with
``-ffp-contract=off``, the kernel's own arithmetic is the same on every
x86-64 machine; torch's operations around it, the loss's sigmoid, may
take other vector code on another processor).

The library is cached under ``$CHESSFORGE_CACHE`` (default
``$XDG_CACHE_HOME/chessforge``, else ``~/.cache/chessforge``), named by the
hash of the source, the compiler command and the processor's features, so
that a changed source, compiler or machine builds its own. :func:`load`
returns None, and says why once, where no compiler is found or the build
fails; the trainer then takes :mod:`nnue_sparse`'s torch path.
``CHESSFORGE_KERNEL=torch`` chooses the torch path without trying.
"""

import ctypes
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

from .nnue_model import BUCKETS, INPUTS

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nnue_kernel.c")
FLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-fno-math-errno", "-fPIC", "-shared", "-fopenmp"]
MAX_PIECES = 32  # nnue_kernel.c's: the features a perspective of a row may have
BUILD_TIMEOUT = 300  # seconds

_F32 = ctypes.POINTER(ctypes.c_float)
_U8 = ctypes.POINTER(ctypes.c_uint8)
_I16 = ctypes.POINTER(ctypes.c_int16)
_I32 = ctypes.POINTER(ctypes.c_int32)
_int, _long, _float = ctypes.c_int, ctypes.c_long, ctypes.c_float

_lib = None
_tried = False
_why = None  # why the compiled path is not in use, once tried


def _cpu_features():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return line
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cache_dir():
    d = os.environ.get("CHESSFORGE_CACHE")
    if not d:
        d = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "chessforge")
    return d


def _build(cc, fresh=False):
    """The path of the built library, building it if its cache has none
    (or, with ``fresh``, in place of the one there)."""
    with open(SOURCE, "rb") as f:
        source = f.read()
    key = hashlib.sha256(b"\0".join([source, " ".join(cc + FLAGS).encode(), _cpu_features().encode()]))
    d = _cache_dir()
    path = os.path.join(d, f"nnue_kernel-{key.hexdigest()[:16]}.so")
    if os.path.exists(path) and not fresh:
        return path
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".nnue_kernel-", suffix=".so", dir=d)
    os.close(fd)
    try:
        try:
            done = subprocess.run(cc + FLAGS + ["-o", tmp, SOURCE], capture_output=True, text=True,
                                  errors="replace", timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise OSError(f"{' '.join(cc)} took over {BUILD_TIMEOUT} s building {SOURCE}") from None
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines() or ["no message"]
            first = next((line for line in lines if "error" in line), lines[-1])
            raise OSError(f"{' '.join(cc)} failed building {SOURCE}: {first.strip()}")
        os.replace(tmp, path)  # whole, or not at all: another process may be building it too
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def load():
    """The compiled library (a ctypes CDLL), or None where it cannot be
    built or ``CHESSFORGE_KERNEL=torch``; :func:`why_not` then says why.
    Any other value of ``CHESSFORGE_KERNEL`` but empty is a ValueError."""
    global _lib, _tried, _why
    if _tried:
        return _lib
    choice = os.environ.get("CHESSFORGE_KERNEL", "")
    if choice not in ("", "torch"):
        raise ValueError(f"CHESSFORGE_KERNEL={choice}: want torch (torch's path) or nothing (the compiled kernel)")
    _tried = True
    if choice == "torch":
        _why = "CHESSFORGE_KERNEL=torch"
        return None
    cc = shlex.split(os.environ.get("CC", "")) or ["cc"]
    if shutil.which(cc[0]) is None:
        _why = f"no C compiler ({cc[0]}) found"
        return None
    try:
        try:
            lib = ctypes.CDLL(_build(cc))
        except OSError:  # a damaged library in the cache: build it again, once
            lib = ctypes.CDLL(_build(cc, fresh=True))
    except OSError as err:
        _why = str(err)
        return None
    lib.cf_forward.restype = _int
    lib.cf_forward.argtypes = [_int, _U8, _int, _int, _int, _int, _F32, _F32, _F32, _F32,
                               _F32, _F32, _I16, _I32, _I32, _F32, _int]
    lib.cf_backward.restype = None
    lib.cf_backward.argtypes = [_int, _int, _int, _F32, _I16, _I32, _I32, _F32, _F32,
                                _F32, _F32, _F32, _F32, _int]
    lib.cf_train.restype = _int
    lib.cf_train.argtypes = [_int, _U8, _int, _int, _int, _int, _F32, _F32, _F32, _F32, _F32, _float, _int,
                             _F32, _I16, _I32, _I32, _F32, _F32, _F32, _F32, _F32, _F32, _F32,
                             ctypes.POINTER(ctypes.c_double), _int]
    lib.cf_adam.restype = None
    lib.cf_adam.argtypes = [_long, _F32, _F32, _F32, _F32, _float, _float, _float, _float, _float,
                            _float, _int, _float, _float, _float, _int]
    _lib = lib
    return lib


def _loaded():
    lib = load()
    if lib is None:
        raise RuntimeError(f"nnue_kernel: no compiled kernel: {why_not()}")
    return lib


def why_not():
    """Why :func:`load` returned None (None before it was called or when
    it succeeded)."""
    return _why


def _ptr(t, kind):
    return ctypes.cast(t.data_ptr(), kind)


class _Network(torch.autograd.Function):
    """out [B] from W1 [768, H], b1 [H], W2 [nb, 2H], b2 [nb] and a batch's
    compact rows (uint8 [B, R]: the first 96 bytes of each row its piece
    planes)."""

    @staticmethod
    def forward(ctx, w1, b1, w2, b2, rows, mirror):
        lib = _loaded()
        n = rows.shape[0]
        h, nb = _check_parameters(w1, b1, w2, b2)
        acc = torch.empty(n, 2 * h)
        out = torch.empty(n)
        feats = torch.empty(n, 2, MAX_PIECES, dtype=torch.int16)
        count = torch.empty(n, dtype=torch.int32)
        bkt = torch.empty(n, dtype=torch.int32)
        part = torch.empty(n, 2 * -(-h // 64))
        bad = lib.cf_forward(n, _ptr(rows, _U8), rows.shape[1], int(mirror), nb, h,
                             _ptr(w1, _F32), _ptr(b1, _F32), _ptr(w2, _F32), _ptr(b2, _F32),
                             _ptr(acc, _F32), _ptr(out, _F32), _ptr(feats, _I16), _ptr(count, _I32),
                             _ptr(bkt, _I32), _ptr(part, _F32), torch.get_num_threads())
        if bad:
            raise ValueError(f"row {bad - 1} of the batch has more than {MAX_PIECES} pieces")
        ctx.save_for_backward(w2, acc, feats, count, bkt)
        return out

    @staticmethod
    def backward(ctx, g):
        lib = _loaded()
        w2, acc, feats, count, bkt = ctx.saved_tensors
        g = g.contiguous()
        n, h, nb = acc.shape[0], acc.shape[1] // 2, w2.shape[0]
        gw1, gb1 = torch.empty(INPUTS, h), torch.empty(h)
        gw2, gb2 = torch.empty(nb, 2 * h), torch.empty(nb)
        lib.cf_backward(n, nb, h, _ptr(acc, _F32), _ptr(feats, _I16), _ptr(count, _I32), _ptr(bkt, _I32),
                        _ptr(w2, _F32), _ptr(g, _F32), _ptr(gw1, _F32), _ptr(gb1, _F32), _ptr(gw2, _F32),
                        _ptr(gb2, _F32), torch.get_num_threads())
        return gw1, gb1, gw2, gb2, None, None


def _check_parameters(w1, b1, w2, b2):
    """The accumulators' width and the buckets of a network's parameters,
    or a ValueError where they are not a network's contiguous float32 CPU
    tensors."""
    h, nb = w1.shape[1], w2.shape[0]
    for t in (w1, b1, w2, b2):
        if t.dtype != torch.float32 or not t.is_contiguous() or t.device.type != "cpu":
            raise ValueError("nnue_kernel: the network's parameters must be contiguous float32 on the CPU")
    if (w1.shape != (INPUTS, h) or h % 8 or b1.shape != (h,) or w2.shape != (nb, 2 * h) or b2.shape != (nb,)
            or nb not in BUCKETS):
        raise ValueError(f"nnue_kernel: not a network's shapes: W1 {list(w1.shape)}, b1 {list(b1.shape)}, "
                         f"W2 {list(w2.shape)}, b2 {list(b2.shape)}")
    return h, nb


def _rows(packed):
    """A batch's compact rows as a contiguous uint8 [B, R] CPU tensor."""
    if isinstance(packed, torch.Tensor):
        packed = packed.cpu().numpy()
    packed = np.ascontiguousarray(packed)
    if packed.dtype != np.uint8 or not ((packed.ndim == 3 and packed.shape[1] >= 12 and packed.shape[2] == 8)
                                        or (packed.ndim == 2 and packed.shape[1] >= 96)):
        raise ValueError(f"compact rows must be uint8 [B, >=12, 8], not {packed.dtype} {list(packed.shape)}")
    return torch.from_numpy(packed.reshape(len(packed), int(np.prod(packed.shape[1:]))))


def forward(model, packed, mirror=False):
    """The output (eval / SCALE) of each of a batch's compact rows
    (uint8 [B, >=12, 8]) through ``model`` (a :class:`Net` on the CPU),
    differentiable in its parameters; needs :func:`load`."""
    return _Network.apply(model.ft.weight, model.b1, model.out.weight, model.out.bias, _rows(packed), mirror)


TILE = 256  # the rows of a tile of train_step: their accumulators (512 KiB at 256 wide) stay in the cache


class _Scratch:
    """A tile's room for :func:`train_step` at one width, kept between
    steps so that a step allocates nothing."""

    def __init__(self, h):
        self.acc = torch.empty(TILE, 2 * h)
        self.feats = torch.empty(TILE, 2, MAX_PIECES, dtype=torch.int16)
        self.count = torch.empty(TILE, dtype=torch.int32)
        self.bkt = torch.empty(TILE, dtype=torch.int32)
        self.part = torch.empty(TILE, 2 * -(-h // 64))
        self.out = torch.empty(TILE)
        self.g = torch.empty(TILE)
        self.loss = ctypes.c_double()


_scratch = {}


def train_step(model, packed, value, mirror=False, scale=1.0):
    """One step's forward, loss and backward through ``model`` (a
    :class:`Net` on the CPU) in one call: the mean over a batch's compact
    rows (uint8 [B, >=12, 8]) of ``(sigmoid(out * scale) - value)^2``,
    returned as a float, with each parameter's ``grad`` set to its
    gradient (written in place where it is already a tensor of its shape).
    The gradients are those that autograd gives through :func:`forward` up
    to float rounding, the same bits at any number of threads; the loss is
    summed in double. Needs :func:`load`."""
    lib = _loaded()
    w1, b1, w2, b2 = model.ft.weight, model.b1, model.out.weight, model.out.bias
    h, nb = _check_parameters(w1, b1, w2, b2)
    rows = _rows(packed)
    value = np.ascontiguousarray(value.cpu().numpy() if isinstance(value, torch.Tensor) else value,
                                 dtype=np.float32)
    if value.shape != (len(rows),):
        raise ValueError(f"nnue_kernel.train_step: {len(rows)} rows and values of shape {list(value.shape)}")
    grads = []
    for p in (w1, b1, w2, b2):
        if p.grad is None or p.grad.shape != p.shape or not p.grad.is_contiguous() or p.grad.dtype != torch.float32:
            p.grad = torch.empty_like(p, memory_format=torch.contiguous_format)
        grads.append(p.grad)
    s = _scratch.get(h)
    if s is None:
        s = _scratch[h] = _Scratch(h)
    bad = lib.cf_train(len(rows), _ptr(rows, _U8), rows.shape[1], int(mirror), nb, h,
                       _ptr(w1, _F32), _ptr(b1, _F32), _ptr(w2, _F32), _ptr(b2, _F32),
                       value.ctypes.data_as(_F32), scale, TILE, _ptr(s.acc, _F32), _ptr(s.feats, _I16),
                       _ptr(s.count, _I32), _ptr(s.bkt, _I32), _ptr(s.part, _F32), _ptr(s.out, _F32),
                       _ptr(s.g, _F32), *(_ptr(g, _F32) for g in grads), ctypes.byref(s.loss),
                       torch.get_num_threads())
    if bad:
        raise ValueError(f"row {bad - 1} of the batch has more than {MAX_PIECES} pieces")
    return s.loss.value


def _step(opt, decoupled):
    """One step of ``opt`` (an Adam or AdamW with torch 1.13's state: a
    float ``step`` tensor, ``exp_avg``, ``exp_avg_sq``) in C; every
    parameter and gradient must be a contiguous float32 CPU tensor."""
    lib = _loaded()
    name = type(opt).__name__
    for group in opt.param_groups:
        if group.get("amsgrad") or group.get("maximize"):
            raise ValueError(f"nnue_kernel.{name}: no amsgrad or maximize")
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            if (p.device.type != "cpu" or p.dtype != torch.float32 or g.is_sparse or not p.is_contiguous()
                    or not g.is_contiguous()):
                raise ValueError(f"nnue_kernel.{name}: every parameter must be a contiguous float32 CPU tensor")
            state = opt.state[p]
            if not state:
                state["step"] = torch.tensor(0.0)
                state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["step"] += 1
            step = state["step"].item()
            m, v = state["exp_avg"], state["exp_avg_sq"]
            for t in (m, v):
                if (t.shape != p.shape or t.dtype != torch.float32 or t.device.type != "cpu"
                        or not t.is_contiguous()):
                    raise ValueError(f"nnue_kernel.{name}: a moment of {list(t.shape)} for a parameter of "
                                     f"{list(p.shape)}: not this optimiser's state")
            lib.cf_adam(p.numel(), _ptr(p, _F32), _ptr(g, _F32), _ptr(m, _F32), _ptr(v, _F32),
                        beta1, 1 - beta1, beta2, 1 - beta2, eps, wd, int(decoupled), 1 - lr * wd,
                        lr / (1 - beta1 ** step), (1 - beta2 ** step) ** 0.5, torch.get_num_threads())


class Adam(torch.optim.Adam):
    """torch.optim.Adam whose step runs in C (:func:`load` must not be
    None); its state and state_dict are torch's, so a checkpoint resumes
    under either."""

    @torch.no_grad()
    def step(self, closure=None):
        if closure is not None:
            raise ValueError("nnue_kernel.Adam: no closure")
        _step(self, decoupled=False)


class AdamW(torch.optim.AdamW):
    """torch.optim.AdamW whose step runs in C, as :class:`Adam`."""

    @torch.no_grad()
    def step(self, closure=None):
        if closure is not None:
            raise ValueError("nnue_kernel.AdamW: no closure")
        _step(self, decoupled=True)
