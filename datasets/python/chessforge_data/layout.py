"""The plane layouts (docs/format.md) and the NumPy export's compact form of them.

The module-level names are chess's layout (§1); :class:`Layout` objects,
:data:`CHESS` and :data:`DAMA` (Italian draughts), carry each game's, and
:func:`for_game` finds one by the name a dataset records.

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


# The layouts by game. A dataset names its game (Parquet metadata
# ``chessforge.game``, the export manifest's ``game``; absent: chess), and
# the readers take the planes' shape and the packing from its Layout.


def _bit_reverse():
    """BIT_REVERSE[b] is byte b with its bits in the opposite order."""
    t = np.zeros(256, dtype=np.uint8)
    for b in range(256):
        t[b] = int(f"{b:08b}"[::-1], 2)
    return t


_BIT_REVERSE = _bit_reverse()


class Layout:
    """One game's planes and policy layout (docs/format.md), with the
    NumPy export's compact form of its planes: the 0/1 planes
    ``binary_planes`` as bits (``np.packbits`` layout), the whole-board
    planes ``scalar_planes`` as one float32 each."""

    def __init__(self, game, planes_version, policy_version, num_planes, policy_size,
                 binary_planes, scalar_planes, side_plane):
        self.game = game
        self.planes_version, self.policy_version = planes_version, policy_version
        self.num_planes, self.policy_size = num_planes, policy_size
        self.input_size = num_planes * PLANE_SIZE
        self.binary_planes, self.scalar_planes = tuple(binary_planes), tuple(scalar_planes)
        self.packed_shape = (len(self.binary_planes), 8)
        self.num_scalars = len(self.scalar_planes)
        self._binary, self._scalar = np.array(self.binary_planes), np.array(self.scalar_planes)
        self._side = self.scalar_planes.index(side_plane)

    def __repr__(self):
        return f"Layout({self.game}: planes {self.planes_version}, policy {self.policy_version})"

    def unpack(self, packed, scalars, out=None):
        """Rebuild float32 planes [n, num_planes, 8, 8] from packed bits
        [n, *packed_shape] (uint8) and scalars [n, num_scalars] (float32)."""
        packed = np.asarray(packed, dtype=np.uint8)
        scalars = np.asarray(scalars, dtype=np.float32)
        n = packed.shape[0]
        if packed.shape[1:] != self.packed_shape or scalars.shape != (n, self.num_scalars):
            raise ValueError(f"unpack: packed {packed.shape} and scalars {scalars.shape} do not match "
                             f"[n, {self.packed_shape[0]}, 8] and [n, {self.num_scalars}] ({self.game})")
        if out is None:
            out = np.empty((n, self.num_planes, 8, 8), dtype=np.float32)
        flat = out.reshape(n, self.num_planes, PLANE_SIZE)
        flat[:, self._binary] = np.unpackbits(packed, axis=-1)
        flat[:, self._scalar] = scalars[:, :, None]
        return out

    def pack(self, planes, where="planes"):
        """Split float32 planes [n, input_size] into packed bits and
        scalars; ValueError (naming ``where``) for planes that would not
        come back unchanged."""
        planes = np.asarray(planes, dtype=np.float32).reshape(-1, self.num_planes, PLANE_SIZE)
        binary = planes[:, self._binary, :]
        ok = (binary == 0) | (binary == 1)
        if not ok.all():
            row = int(np.argwhere(~ok)[0][0])
            raise ValueError(f"{where}: row {row}: a 0/1 plane holds another value")
        scal = planes[:, self._scalar, :]
        const = (scal == scal[:, :, :1]).all(axis=-1)
        if not const.all():
            row = int(np.argwhere(~const)[0][0])
            raise ValueError(f"{where}: row {row}: a whole-board plane is not constant")
        return np.packbits(binary.astype(np.uint8), axis=-1), np.ascontiguousarray(scal[:, :, 0])

    def black_to_move(self, scalars):
        """A boolean per row: Black is to move (the side-to-move plane is 0)."""
        return np.asarray(scalars)[:, self._side] == 0


class _ChessLayout(Layout):
    """Chess: the module's functions, its unpack faster by slices."""

    policy_mirror = POLICY_MIRROR

    def unpack(self, packed, scalars, out=None):
        return unpack(packed, scalars, out)

    def pack(self, planes, where="planes"):
        return pack(planes, where)

    def mirror(self, packed, scalars, rows=None):
        """See :func:`mirror`: ranks flipped, colours swapped."""
        return mirror(packed, scalars, rows)


CHESS = _ChessLayout("chess", PLANES_VERSION, POLICY_VERSION, NUM_PLANES, POLICY_SIZE,
                     BINARY_PLANES, SCALAR_PLANES, PLANE_SIDE_TO_MOVE)


def _dama_policy_mirror():
    """The draughts policy index of each move with the board turned round
    (docs/format.md): the from square becomes 63 - square, a step's
    direction and a capture's first jump reverse (NE <-> SW, SE <-> NW),
    and a capture's offset to its last landing square changes sign."""
    t, sq = np.divmod(np.arange(200 * 64), 64)
    d, o = np.divmod(t - 4, 49)
    turned = np.where(t < 4, (t + 2) % 4, 4 + (d + 2) % 4 * 49 + (48 - o))
    return (turned * 64 + (63 - sq)).astype(np.int32)


class _DamaLayout(Layout):
    """Italian draughts: 7 planes (White men, kings, Black men, kings,
    repetitions, side to move, quiet plies), a 200×8×8 policy."""

    policy_mirror = _dama_policy_mirror()

    def mirror(self, packed, scalars, rows=None):
        """Packed planes and scalars of the rows with the board turned round
        (ranks and files flipped: a draughts board's dark squares map to
        dark squares only so) and colours swapped: the position as the other
        side sees it. With ``rows`` (a boolean mask), only those rows. New
        arrays are returned."""
        packed = np.asarray(packed, dtype=np.uint8)
        scalars = np.asarray(scalars, dtype=np.float32)
        if rows is None:
            mp = np.ascontiguousarray(_BIT_REVERSE[packed[:, [2, 3, 0, 1], ::-1]])
            ms = scalars.copy()
            ms[:, self._side] = 1 - ms[:, self._side]
            return mp, ms
        mp, ms = self.mirror(packed[rows], scalars[rows])
        out_p, out_s = packed.copy(), scalars.copy()
        out_p[rows] = mp
        out_s[rows] = ms
        return out_p, out_s


DAMA = _DamaLayout("dama", "dama-7x8x8-v1", "dama-200x8x8-v1", 7, 200 * 64,
                   (0, 1, 2, 3), (4, 5, 6), 5)

#: The layouts by game name.
LAYOUTS = {"chess": CHESS, "dama": DAMA}


def for_game(game):
    """The layout of a game ("" or None: chess); ValueError for another."""
    game = game or "chess"
    if game not in LAYOUTS:
        raise ValueError(f"game {game!r}: this reader knows {sorted(LAYOUTS)}")
    return LAYOUTS[game]
