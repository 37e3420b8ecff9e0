"""The plane layout (SPEC §1) and the NumPy export's compact form of it.

A position is 18×8×8 float32 planes in absolute orientation, element
``p*64 + rank*8 + file`` of the flat 1152 values. The NumPy export
(``bin/dataset export -format npy``) keeps the 0/1 planes (pieces 0–11 and
en passant 16) as bits, ``np.packbits`` layout, and the planes that hold one
value over the whole board (repetitions, side to move, castling, halfmove
clock) as one float32 each. :func:`unpack` rebuilds the float32 planes bit
for bit; :func:`pack` is its inverse, used for rows read from Parquet.
"""

import numpy as np

NUM_PLANES = 18
PLANE_SIZE = 64
INPUT_SIZE = NUM_PLANES * PLANE_SIZE  # 1152
POLICY_SIZE = 73 * 64  # 4672

PLANES_VERSION = "18x8x8-v1"
POLICY_VERSION = "73x8x8-v1"

PLANE_REPETITION = 12
PLANE_SIDE_TO_MOVE = 13
PLANE_WHITE_CASTLING = 14
PLANE_BLACK_CASTLING = 15
PLANE_EN_PASSANT = 16
PLANE_HALFMOVE = 17

#: Planes stored as bits in the export, in this order.
BINARY_PLANES = tuple(range(12)) + (PLANE_EN_PASSANT,)
#: Planes stored as one float32 per row in the export, in this order.
SCALAR_PLANES = (PLANE_REPETITION, PLANE_SIDE_TO_MOVE, PLANE_WHITE_CASTLING,
                 PLANE_BLACK_CASTLING, PLANE_HALFMOVE)

PACKED_SHAPE = (len(BINARY_PLANES), 8)  # uint8 per row: 13 planes × 8 bytes
NUM_SCALARS = len(SCALAR_PLANES)

_BINARY = np.array(BINARY_PLANES)
_SCALAR = np.array(SCALAR_PLANES)


def unpack(packed, scalars, out=None):
    """Rebuild float32 planes [n, 18, 8, 8] from packed bits [n, 13, 8]
    (uint8) and scalars [n, 5] (float32)."""
    packed = np.asarray(packed, dtype=np.uint8)
    scalars = np.asarray(scalars, dtype=np.float32)
    n = packed.shape[0]
    if packed.shape[1:] != PACKED_SHAPE or scalars.shape != (n, NUM_SCALARS):
        raise ValueError(f"unpack: packed {packed.shape} and scalars {scalars.shape} do not match "
                         f"[n, {PACKED_SHAPE[0]}, {PACKED_SHAPE[1]}] and [n, {NUM_SCALARS}]")
    if out is None:
        out = np.empty((n, NUM_PLANES, 8, 8), dtype=np.float32)
    flat = out.reshape(n, NUM_PLANES, PLANE_SIZE)
    bits = np.unpackbits(packed, axis=-1)  # [n, 13, 64], big bit order
    flat[:, _BINARY, :] = bits
    flat[:, _SCALAR, :] = scalars[:, :, None]
    return out


def pack(planes, where="planes"):
    """Split float32 planes [n, 1152] (or [n, 18, 8, 8]) into packed bits
    and scalars. Raises ValueError, naming ``where``, when a binary plane
    holds a value other than 0 or 1 or a scalar plane is not constant, as
    such planes would not come back unchanged."""
    planes = np.asarray(planes, dtype=np.float32).reshape(-1, NUM_PLANES, PLANE_SIZE)
    binary = planes[:, _BINARY, :]
    ok = (binary == 0) | (binary == 1)
    if not ok.all():
        row = int(np.argwhere(~ok)[0][0])
        raise ValueError(f"{where}: row {row}: a piece or en-passant plane holds a value other than 0 or 1")
    scal = planes[:, _SCALAR, :]
    const = (scal == scal[:, :, :1]).all(axis=-1)
    if not const.all():
        row = int(np.argwhere(~const)[0][0])
        raise ValueError(f"{where}: row {row}: a whole-board plane is not constant")
    packed = np.packbits(binary.astype(np.uint8), axis=-1)
    return packed, np.ascontiguousarray(scal[:, :, 0])
