"""The plane layout (docs/format.md §1) and the NumPy export's compact form of it.

A position is 18×8×8 float32 planes in absolute orientation, element
``p*64 + rank*8 + file`` of the flat 1152 values. The NumPy export
(``bin/dataset export -format npy``) keeps the 0/1 planes (pieces 0–11 and
en passant 16) as bits, ``np.packbits`` layout, and the planes that hold one
value over the whole board (repetitions, side to move, castling, halfmove
clock) as one float32 each. :func:`unpack` rebuilds the float32 planes bit
for bit; :func:`pack` is its inverse, used for rows read from Parquet.

:func:`mirror` turns rows with Black to move into the same position seen
from the side to move (ranks flipped, colours swapped), in this compact
form, and :data:`POLICY_MIRROR` maps a policy index to the index of the
mirrored move.
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
# unpack's slices assume this order.
assert BINARY_PLANES == tuple(range(12)) + (16,) and SCALAR_PLANES == (12, 13, 14, 15, 17)


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
    # Slices rather than index arrays: a third faster. The planes in order:
    # 0-11 pieces (bits 0-11), 12-15 scalars 0-3, 16 en passant (bit 12),
    # 17 scalar 4.
    flat[:, 0:12] = bits[:, 0:12]
    flat[:, 12:16] = scalars[:, 0:4, None]
    flat[:, PLANE_EN_PASSANT] = bits[:, 12]
    flat[:, PLANE_HALFMOVE] = scalars[:, 4, None]
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


# Mirroring: the position with ranks flipped and colours swapped, so that
# the side to move plays "up" the board as White.

#: The packed planes' order after swapping colours: White's pieces take
#: Black's planes and the other way round; en passant stays last.
MIRROR_PACKED = np.array(list(range(6, 12)) + list(range(6)) + [len(BINARY_PLANES) - 1])
#: The scalars' order after swapping colours: the castling planes trade
#: places (repetitions, side to move and halfmove clock keep theirs).
MIRROR_SCALARS = np.array([0, 1, 3, 2, 4])
_SCALAR_SIDE = SCALAR_PLANES.index(PLANE_SIDE_TO_MOVE)


def _policy_mirror():
    """The policy index of each move after a rank flip: the from square
    flips rank; directions N and S, NE and SE, NW and SW trade places (E and
    W stay); a knight's (df, dr) becomes (df, -dr); an under-promotion keeps
    its piece and df."""
    direction = [4, 3, 2, 1, 0, 7, 6, 5]  # N NE E SE S SW W NW under dr -> -dr
    knight = [3, 2, 1, 0, 7, 6, 5, 4]     # (+1,+2)<->(+1,-2), (+2,+1)<->(+2,-1), ...
    kind = np.empty(73, dtype=np.int64)
    for t in range(56):
        kind[t] = direction[t // 7] * 7 + t % 7
    for k in range(8):
        kind[56 + k] = 56 + knight[k]
    kind[64:] = np.arange(64, 73)
    t, sq = np.divmod(np.arange(POLICY_SIZE), 64)
    return (kind[t] * 64 + (sq ^ 56)).astype(np.int32)


#: POLICY_MIRROR[i] is the policy index of move i with ranks flipped.
POLICY_MIRROR = _policy_mirror()


def black_to_move(scalars):
    """A boolean per row: Black is to move (plane 13 is 0)."""
    return np.asarray(scalars)[:, _SCALAR_SIDE] == 0


def mirror(packed, scalars, rows=None):
    """Packed planes and scalars of the rows with ranks flipped and colours
    swapped, the mirrored position: White's pieces become Black's on the
    flipped squares and the other way round, the other side is to move
    (plane 13 becomes 1 - plane 13), the castling planes trade places and
    the en-passant square flips. A row with Black to move becomes White to
    move: the board as the side to move sees it. With
    ``rows`` (a boolean mask), only those rows are mirrored. New arrays are
    returned; the inputs are not changed."""
    packed = np.asarray(packed, dtype=np.uint8)
    scalars = np.asarray(scalars, dtype=np.float32)
    if rows is None:
        mp = np.ascontiguousarray(packed[:, MIRROR_PACKED, ::-1])  # byte j of a plane is rank j
        ms = scalars[:, MIRROR_SCALARS]
        ms[:, _SCALAR_SIDE] = 1 - ms[:, _SCALAR_SIDE]
        return mp, ms
    mp, ms = mirror(packed[rows], scalars[rows])
    out_p, out_s = packed.copy(), scalars.copy()
    out_p[rows] = mp
    out_s[rows] = ms
    return out_p, out_s
