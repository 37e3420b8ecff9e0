"""How often an advantage is converted, by the pawns of the side ahead.

The engine scales a network's score by the pawns of the side it favours
(the network's pawn table, engine/nnue/pawnscale.go): a side with few
pawns converts an advantage far less often than its score says. This
module measures that scale on a chess dataset: for each row whose search
score lies within a range, the side ahead (by the score's sign) and its
pawns n (4 or more counted as 4), it fits the game result of that side to
``sigmoid(|score| / K_n)`` by least squares, and gives each n's scale as
``K_4 / K_n``: the fraction of a score with four or more pawns that the same
score with n pawns is worth.

With a network (``--network FILE``) the score fitted is that network's own
evaluation of each position instead of the recorded search score: the
scale such a network's raw scores need. A search score already carries
the table the engine played with, so a network trained on such scores has
part of the scale in it, and its table is to be fitted to its own scores.

Each network file carries its own table (from format version 3), fitted so:
:func:`table` turns a fit into one, and ``chessforge-nnue pawnscale DATA...
--network FILE --write`` writes it into the file. The entry for four or
more pawns is the table's level, the network's overall scale into the
search's units: a fit compares pawn counts only, so it keeps the file's
level, which matches decide (``chessforge-nnue table FILE --set``) or
:func:`level` fits to another network's scale (``--level-of FILE``).

``chessforge-nnue pawnscale DATA...`` prints the fit. Data with too few
positions for it make the command exit with :data:`EXIT_TOO_FEW`, the
file untouched, so that a recipe on a small dataset keeps the network's
table rather than fail.
"""

import numpy as np

from . import layout
from .sources import open_source

#: Pawn counts told apart: 0, 1, 2, 3, and 4 or more.
GROUPS = 5
#: A table entry's unit: an entry of ONE leaves a score as it is.
ONE = 128
#: The largest entry (engine/nnue/pawnscale.go's PawnScaleMax): a level
#: above ONE raises a network whose scores run smaller than the search's.
MAX = 2 * ONE
#: Plane of each colour's pawns, and of its knights to queens (docs/format.md §1).
_PAWNS = (0, 6)
_PIECES = ((1, 2, 3, 4), (7, 8, 9, 10))
_PIECE_VALUES = np.array([3, 3, 5, 9])
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.int32)
#: ``chessforge-nnue pawnscale``'s exit status when the data hold too few
#: positions for the fit (:class:`TooFewRows`): a recipe then keeps the
#: network's table and goes on (cmd/internal/stage's ExitTooFewRows).
EXIT_TOO_FEW = 3


class TooFewRows(ValueError):
    """The data hold too few positions for the fit asked for: more data,
    not other arguments, would make it."""


def _counts(packed):
    """The pieces on each of the 12 piece planes of packed rows [n, 13, 8]."""
    return _POPCOUNT[packed[:, :12, :]].sum(axis=2)


def _chess_units(paths, every):
    """The chess dataset at paths (one path or a list) and every
    ``every``-th of its units."""
    src = open_source(paths)
    if src.layout is not layout.CHESS:
        raise ValueError(f"{paths}: a {src.layout.game} dataset; pawnscale measures chess positions")
    if every < 1:
        raise ValueError(f"every {every}: want at least 1")
    return src, src.units[::every]


def read(paths, min_score=50, max_score=1500, max_material=0, every=1, network=None):
    """The rows of the dataset (one path or a list) that the fit uses: the
    score of the side ahead (float64), its result (1, 0.5, 0) and its pawns
    (0 to 4), as three arrays. A row is used when ``min_score <= |score| <=
    max_score`` and, with ``max_material`` > 0, the pieces other than pawns
    and kings of both sides are worth at most that many pawns (knight and
    bishop 3, rook 5, queen 9). ``every`` reads every Nth unit only.
    ``network``, when given, scores the rows in place of their search
    score: a function of a chunk of rows (their ``packed`` and ``scalars``)
    giving each one's score in centipawns from White's point of view, such
    as :func:`chessforge_data.nnue.network_scores`'s."""
    src, units = _chess_units(paths, every)
    scores, results, pawns = [], [], []
    for unit in units:
        # A network's planes take 4.6 KB a row: smaller chunks for it.
        for chunk in src.read(unit, 65536 if network is None else 8192):
            score = (chunk["score_cp"] if network is None else np.rint(network(chunk))).astype(np.int64)
            ahead = np.abs(score)
            counts = _counts(chunk["packed"])
            keep = (ahead >= min_score) & (ahead <= max_score)
            if max_material > 0:
                keep &= sum(counts[:, list(p)] @ _PIECE_VALUES for p in _PIECES) <= max_material
            white, counts = score[keep] > 0, counts[keep]
            result = chunk["result"][keep].astype(np.float64)
            scores.append(ahead[keep].astype(np.float64))
            results.append(np.where(white, result, 1.0 - result))
            pawns.append(_favoured_pawns(counts, score[keep]))
    if not scores:
        return np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64)
    return np.concatenate(scores), np.concatenate(results), np.concatenate(pawns).astype(np.int64)


def _favoured_pawns(counts, score):
    """Each row's pawns (4 or more counted as 4) of the side its score
    (from White's point of view) favours, as the engine picks a table entry."""
    return np.minimum(np.where(score > 0, counts[:, _PAWNS[0]], counts[:, _PAWNS[1]]), GROUPS - 1)


def level(paths, network, table, reference, ref_table, every=1, max_score=1500):
    """The level at which ``network``, with the pawn table ``table`` scaled
    to it, scores the rows of the dataset (one path or a list) on the scale
    of ``reference`` with its table ``ref_table``: the least-squares slope,
    through the origin, of the reference's scores (as the engine applies
    its table) on the network's at level ONE, times ONE. ``network`` and
    ``reference`` are functions as :func:`read` takes (such as
    :func:`chessforge_data.nnue.network_scores`'s); rows whose reference
    score is beyond ``max_score`` are left out (mates and won endings would
    decide the slope). Returns (the level, rounded, within 1 to MAX; the
    slope's exact level; the rows used). A network whose scores run larger
    than the reference's gets a level below ONE, one whose scores run
    smaller a level above it (a network trained at a smaller score scale K
    than its data's), up to MAX, twice ONE. :class:`TooFewRows` when no row
    has a score to compare."""
    src, units = _chess_units(paths, every)
    at_one = np.asarray(table, dtype=np.float64) / table[-1]
    ref_scale = np.asarray(ref_table, dtype=np.float64) / ONE
    xy = xx = 0.0
    rows = 0
    for unit in units:
        for chunk in src.read(unit, 8192):
            counts = _counts(chunk["packed"])
            raw, ref = network(chunk), reference(chunk)
            ref = ref * ref_scale[_favoured_pawns(counts, ref)]
            x = raw * at_one[_favoured_pawns(counts, raw)]
            keep = np.abs(ref) <= max_score
            xy += float(np.dot(x[keep], ref[keep]))
            xx += float(np.dot(x[keep], x[keep]))
            rows += int(np.count_nonzero(keep))
    if xx == 0:
        raise TooFewRows(f"{paths}: no position with a score to compare (want rows whose reference score "
                         f"is within {max_score} and the network's is not 0)")
    exact = ONE * xy / xx
    return int(min(MAX, max(1, round(exact)))), exact, rows


def fit_k(score, result, lo=10.0, hi=5000.0, iterations=60):
    """The K that minimises the mean of (sigmoid(score / K) - result)^2,
    by golden-section search on log K within [lo, hi], and that mean."""
    def loss(log_k):
        return float(np.mean((1.0 / (1.0 + np.exp(-score / np.exp(log_k))) - result) ** 2))

    a, b = np.log(lo), np.log(hi)
    g = (np.sqrt(5.0) - 1.0) / 2.0
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = loss(c), loss(d)
    for _ in range(iterations):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = loss(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = loss(d)
    k = (a + b) / 2.0
    return float(np.exp(k)), loss(k)


def measure(score, result, pawns, min_rows=1000):
    """Fit K for each pawn count: a list of GROUPS entries, each (rows, K,
    scale) with scale = K of four or more pawns / K, or (rows, None, None)
    for a count with fewer than min_rows rows. Four or more pawns must
    have min_rows (:class:`TooFewRows` otherwise)."""
    fits = []
    for n in range(GROUPS):
        sel = pawns == n
        rows = int(np.count_nonzero(sel))
        fits.append((rows, fit_k(score[sel], result[sel])[0] if rows >= min_rows else None))
    ref = fits[-1][1]
    if ref is None:
        raise TooFewRows(f"{fits[-1][0]} rows with four or more pawns for the side ahead, want at least {min_rows}")
    return [(rows, k, None if k is None else ref / k) for rows, k in fits]


def table(fits, level=ONE):
    """The pawn table a fit (:func:`measure`'s) gives, as the engine applies
    it (of ONE), at ``level``: the entry for four or more pawns, the
    network's overall scale into the search's units, which a fit cannot
    tell (it only compares pawn counts) and so keeps. Each count's entry is
    its scale times level, at most level (a table only takes away), kept no
    lower than the entry for one pawn fewer (more pawns never make an
    advantage worth less, and a fit's noise must not say otherwise), and no
    pawns given one pawn's entry: the engine's drawish-material scales
    already apply there, and a smaller entry would make the side ahead keep
    its last pawn rather than promote it. :class:`TooFewRows` when one,
    two or three pawns have too few rows to fit; ValueError when level is
    not 1 to MAX."""
    if not 1 <= level <= MAX:
        raise ValueError(f"pawn table level {level}: want 1 to {MAX}")
    missing = [n for n in range(1, GROUPS) if fits[n][2] is None]
    if missing:
        raise TooFewRows(f"too few positions to fit the pawn table for {', '.join(map(str, missing))} pawns "
                         f"({', '.join(str(fits[n][0]) for n in missing)} rows); give more data")
    entries = []
    for n in range(1, GROUPS):
        entry = max(1, min(level, round(fits[n][2] * level)))
        entries.append(max(entry, entries[-1]) if entries else entry)
    return tuple([entries[0]] + entries)


def fit(paths, min_score=50, max_score=1500, max_material=0, every=1, min_rows=1000, network=None):
    """Read the rows (:func:`read`) and fit them (:func:`measure`): (the
    number of rows, the fits)."""
    score, result, pawns = read(paths, min_score, max_score, max_material, every, network)
    return len(score), measure(score, result, pawns, min_rows)


def report(rows, fits, min_score=50, max_score=1500, max_material=0, scorer=""):
    """A fit of ``rows`` rows (:func:`fit`'s) as printable lines, the
    scores named in the first line by ``scorer``."""
    lines = [f"{rows} positions with the side ahead's score{scorer} in [{min_score}, {max_score}]"
             + (f", other pieces worth at most {max_material}" if max_material > 0 else "")
             + ": its result fitted to sigmoid(score/K)"]
    for n, (count, k, scale) in enumerate(fits):
        name = f"{n} pawn{'' if n == 1 else 's'}" if n < GROUPS - 1 else f"{n}+ pawns"
        if k is None:
            lines.append(f"{name}: {count} positions, too few to fit")
        else:
            lines.append(f"{name}: {count} positions, K {k:.0f}, scale {scale:.2f} ({round(scale * ONE)}/{ONE})")
    return lines
