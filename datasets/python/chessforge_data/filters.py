"""Read-time filters: the rows a trainer skips, with the names every reader
of chessforge datasets uses (Go flags ``-min-ply``, ``-max-score``,
``-skip-in-check``, ``-skip-captures``, ``-disagree-score``; here keyword
arguments with underscores).

The dataset keeps every position of a game (games are contiguous, so they
replay); what to train on is chosen here, when reading.
"""

import numpy as np


class Filters:
    """The read-time filters; every one is off at its zero value.

    - ``min_ply``: keep rows with ``ply >= min_ply``.
    - ``max_score``: keep rows with ``|score_cp| <= max_score``.
    - ``skip_in_check``: drop rows whose side to move is in check
      (column ``in_check``).
    - ``skip_captures``: drop rows whose best move is a capture or a
      promotion (columns ``best_is_capture``, ``best_is_promotion``).
    - ``disagree_score``: drop rows whose ``score_cp`` (White's point of
      view) is ``>= disagree_score`` while the game's result is 0.0 (White
      lost), or ``<= -disagree_score`` while it is 1.0.
    """

    def __init__(self, min_ply=0, max_score=0, skip_in_check=False, skip_captures=False, disagree_score=0):
        for name, v in (("min_ply", min_ply), ("max_score", max_score), ("disagree_score", disagree_score)):
            if int(v) != v or v < 0:
                raise ValueError(f"{name} {v!r}: want a whole number, 0 (off) or more")
        self.min_ply = int(min_ply)
        self.max_score = int(max_score)
        self.skip_in_check = bool(skip_in_check)
        self.skip_captures = bool(skip_captures)
        self.disagree_score = int(disagree_score)

    def __bool__(self):
        """Whether any filter is on."""
        return bool(self.min_ply or self.max_score or self.skip_in_check or self.skip_captures
                    or self.disagree_score)

    def __repr__(self):
        on = {k: v for k, v in vars(self).items() if v}
        return "Filters(" + ", ".join(f"{k}={v!r}" for k, v in on.items()) + ")"

    def columns(self):
        """The filter columns (beyond score_cp and result) the filters read."""
        cols = []
        if self.min_ply:
            cols.append("ply")
        if self.skip_in_check:
            cols.append("in_check")
        if self.skip_captures:
            cols += ["best_is_capture", "best_is_promotion"]
        return tuple(cols)

    def keep(self, rows):
        """A boolean mask of the rows to keep, from a dict of columns
        (``score_cp``, ``result`` and those of :meth:`columns`)."""
        score = np.asarray(rows["score_cp"])
        keep = np.ones(len(score), dtype=bool)
        if self.min_ply:
            keep &= np.asarray(rows["ply"]) >= self.min_ply
        if self.max_score:
            keep &= np.abs(score) <= self.max_score
        if self.skip_in_check:
            keep &= ~np.asarray(rows["in_check"], dtype=bool)
        if self.skip_captures:
            keep &= ~(np.asarray(rows["best_is_capture"], dtype=bool) | np.asarray(rows["best_is_promotion"], dtype=bool))
        if self.disagree_score:
            result = np.asarray(rows["result"])
            d = self.disagree_score
            keep &= ~(((score >= d) & (result == 0)) | ((score <= -d) & (result == 1)))
        return keep
