"""Tests of chessforge_data on an Italian draughts dataset the Go code
wrote (datasets/fixture's draughts playouts) and exported."""

import os
import unittest

import numpy as np
import torch

import fixture
from chessforge_data import ChessDataset, NpySource, layout


def _grid(n):
    """The grid index r*8 + f of draughts square n (1-32), worked out from
    the board: 1-4 on rank 8 at a, c, e, g; 5-8 on rank 7 at b, d, f, h..."""
    row = (n - 1) // 4
    return (7 - row) * 8 + 2 * ((n - 1) % 4) + row % 2


class DamaExport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(fixture.dama_directory(), "npy")
        cls.cols = fixture.dama_columns()

    def test_the_source_takes_the_layout_from_the_manifest(self):
        src = NpySource(self.dir)
        self.assertIs(src.layout, layout.DAMA)
        self.assertEqual(src.num_rows, len(self.cols["policy"]))
        got = []
        for u in src.units:
            for c in src.read(u, 300):
                got.append((src.layout.unpack(c["packed"], c["scalars"]), c["policy"]))
        planes = np.concatenate([g[0] for g in got])
        self.assertEqual(planes.shape[1:], (7, 8, 8))
        self.assertTrue(np.array_equal(planes.reshape(-1, 448).view(np.uint32), self.cols["planes"].view(np.uint32)),
                        "draughts planes rebuilt from the npy export differ from the Parquet planes")
        np.testing.assert_array_equal(np.concatenate([g[1] for g in got]), self.cols["policy"])

    def test_the_planes_are_the_fen(self):
        # The men and kings planes, worked out from the PDN FEN here.
        planes = self.cols["planes"].reshape(-1, 7, 64)
        for i in range(0, len(planes), 97):
            want = np.zeros((4, 64), dtype=np.float32)
            side, *fields = self.cols["fen"][i].split(":")
            for f in fields:
                base = 0 if f[0] == "W" else 2
                for item in filter(None, f[1:].split(",")):
                    p = base + item.startswith("K")
                    lo, _, hi = item.lstrip("K").partition("-")
                    for n in range(int(lo), int(hi or lo) + 1):
                        want[p, _grid(n)] = 1
            np.testing.assert_array_equal(planes[i, :4], want, err_msg=self.cols["fen"][i])
            self.assertTrue((planes[i, 5] == (1.0 if side == "W" else 0.0)).all())

    def test_batches_have_the_draughts_shapes(self):
        ds = ChessDataset(self.dir, batch_size=64)
        self.assertIs(ds.layout, layout.DAMA)
        n = 0
        for planes, policy, value, score in ds:
            self.assertEqual(tuple(planes.shape[1:]), (7, 8, 8))
            self.assertEqual(planes.dtype, torch.float32)
            self.assertTrue(((policy >= 0) & (policy < 200 * 64)).all())
            n += len(policy)
        self.assertEqual(n, len(self.cols["policy"]))

    def test_the_loader_workers_send_draughts_rows(self):
        ds = ChessDataset(self.dir, batch_size=50, side_to_move=True)
        direct = [torch.cat(t) for t in zip(*list(ds))]
        via = [torch.cat(t) for t in zip(*list(ds.loader(num_workers=2)))]
        key = lambda planes, policy: sorted(planes[i].numpy().tobytes() + bytes([policy[i] % 256]) for i in range(len(policy)))
        self.assertEqual(key(direct[0], direct[1]), key(via[0], via[1]))

    def test_filters(self):
        c = self.cols
        for kw, keep in [
            ({"skip_captures": True}, ~(c["best_is_capture"] | c["best_is_promotion"])),
            ({"skip_in_check": True}, np.ones(len(c["policy"]), dtype=bool)),
            ({"min_ply": 20}, c["ply"] >= 20),
            ({"max_score": 200}, np.abs(c["score_cp"]) <= 200),
        ]:
            ds = ChessDataset(self.dir, batch_size=1000, **kw)
            got = sum(len(b[1]) for b in ds)
            self.assertEqual(got, int(keep.sum()), kw)
            self.assertEqual(ds.num_rows, int(keep.sum()), kw)
        self.assertFalse(c["in_check"].any(), "a draughts row in check")
        self.assertTrue(c["best_is_capture"].any() and not c["best_is_capture"].all())

    def test_side_to_move_turns_the_board_round(self):
        ds = ChessDataset(self.dir, batch_size=100000, side_to_move=True)
        planes, policy, value, score = next(iter(ds))
        c = self.cols
        black = c["planes"].reshape(-1, 7, 64)[:, 5, 0] == 0
        self.assertTrue(black.any() and not black.all())
        # Independently: the board turned round is the grid reversed.
        want = c["planes"].reshape(-1, 7, 64).copy()
        turned = want[black][:, [2, 3, 0, 1, 4, 5, 6], ::-1].copy()
        turned[:, 5] = 1 - turned[:, 5]
        want[black] = turned
        np.testing.assert_array_equal(planes.numpy().reshape(-1, 7, 64), want)
        self.assertTrue((planes.numpy()[:, 5] == 1).all(), "every row with its side to move as White")
        np.testing.assert_array_equal(score.numpy(), np.where(black, -c["score_cp"], c["score_cp"]))
        # 22-18 (White, from d3 north-west) turned round is 11-15 for
        # Black (from e6 south-east): grid 19 type 3 <-> grid 44 type 1.
        pm = layout.DAMA.policy_mirror
        self.assertEqual(int(pm[3 * 64 + _grid(22)]), 1 * 64 + _grid(11))
        self.assertTrue((pm[pm] == np.arange(len(pm))).all())
        np.testing.assert_array_equal(policy.numpy(), np.where(black, pm[c["policy"]], c["policy"]))

    def test_layouts_by_game(self):
        self.assertIs(layout.for_game(""), layout.CHESS)
        self.assertIs(layout.for_game("dama"), layout.DAMA)
        with self.assertRaises(ValueError):
            layout.for_game("go")

    def test_the_chess_trainers_refuse_it(self):
        # Both trainers' networks are chess's: a draughts dataset is named
        # and refused, never trained on as if it were chess.
        import contextlib
        import io
        import tempfile

        from chessforge_data import nnue, train

        for name, main, argv in [
            ("chessforge-train", train.main, [self.dir, "--epochs", "1"]),
            ("chessforge-nnue", nnue.main, ["train", self.dir, "--out", tempfile.mkdtemp(), "--epochs", "1"]),
        ]:
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                rc = main(argv)
            self.assertEqual(rc, 1, name)
            self.assertIn("a dama dataset", err.getvalue(), name)
