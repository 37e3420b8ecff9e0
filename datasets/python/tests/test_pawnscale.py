"""Tests of chessforge_data.pawnscale: the rows it reads against the
fixture's FENs, the fit on data of a known K, and the command."""

import contextlib
import io
import os
import shutil
import tempfile
import unittest

import numpy as np

import fixture
from chessforge_data import nnue, pawnscale
from chessforge_data.sources import open_source

VALUES = {"n": 3, "b": 3, "r": 5, "q": 9}


def from_fens(cols, min_score, max_score, max_material=0, scores=None):
    """What pawnscale.read should give, from the FENs: the side ahead's
    score, result and pawns (at most 4); ``scores`` in place of the
    recorded ones."""
    score, result, pawns = [], [], []
    for fen, s, r in zip(cols["fen"], cols["score_cp"] if scores is None else scores, cols["result"]):
        board = fen.split()[0]
        if not min_score <= abs(int(s)) <= max_score:
            continue
        if max_material and sum(VALUES.get(c.lower(), 0) for c in board) > max_material:
            continue
        white = s > 0
        score.append(abs(int(s)))
        result.append(r if white else 1 - r)
        pawns.append(min(board.count("P" if white else "p"), 4))
    return np.array(score, dtype=np.float64), np.array(result, dtype=np.float64), np.array(pawns)


class PawnScale(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.npy = os.path.join(fixture.directory(), "npy")
        cls.cols = fixture.columns()

    def test_rows_are_the_side_ahead_as_its_fen_says(self):
        for lo, hi, material in ((1, 100000, 0), (50, 1500, 0), (20, 800, 12)):
            got = pawnscale.read(self.npy, lo, hi, material)
            want = from_fens(self.cols, lo, hi, material)
            self.assertGreater(len(want[0]), 100, (lo, hi, material))
            for g, w, name in zip(got, want, ("score", "result", "pawns")):
                np.testing.assert_array_equal(g, w, err_msg=f"{name} with scores in [{lo}, {hi}], material {material}")
        # Every other unit: fewer rows, a subset.
        half = pawnscale.read(self.npy, 1, 100000, every=2)
        self.assertLess(len(half[0]), len(pawnscale.read(self.npy, 1, 100000)[0]))

    def test_a_network_scores_each_position_as_the_engine_does(self):
        path = os.path.join(fixture.ROOT, "engine", "nnue", "default.nnue")
        scores, net_id = nnue.network_scores(path)
        q, _, want_id = nnue.read_net(path)
        self.assertEqual(net_id, want_id)
        src = open_source(self.npy)
        got = np.concatenate([scores(c) for u in src.units for c in src.read(u, 1000)])
        want = []
        for fen in self.cols["fen"]:
            v = nnue.quantized_eval(q, *nnue.fen_features(fen, q["mirror"]))
            want.append(v if fen.split()[1] == "w" else -v)
        want = np.array(want)
        self.assertEqual(len(got), len(want))
        # The float model differs from the integer forward pass by rounding alone
        # (at most 1.02 centipawns on the fixture's 4,745 positions).
        self.assertLessEqual(np.abs(got - want).max(), 2)
        self.assertGreater(np.abs(want).mean(), 50)
        # read fits those scores in place of the search's.
        lo, hi = 50, 1500
        rows = pawnscale.read(self.npy, lo, hi, network=scores)
        expect = from_fens(self.cols, lo, hi, scores=np.rint(got).astype(np.int64))
        for g, w, name in zip(rows, expect, ("score", "result", "pawns")):
            np.testing.assert_array_equal(g, w, err_msg=name)
        self.assertGreater(len(rows[0]), 100)
        searched = pawnscale.read(self.npy, lo, hi)[0]
        self.assertFalse(len(searched) == len(rows[0]) and (searched == rows[0]).all())

    def test_the_fit_recovers_a_known_k(self):
        rng = np.random.default_rng(7)
        score = rng.uniform(50, 1500, 200000)
        for k in (150.0, 400.0):
            result = (rng.random(len(score)) < 1 / (1 + np.exp(-score / k))).astype(np.float64)
            fitted, loss = pawnscale.fit_k(score, result)
            self.assertLess(abs(fitted / k - 1), 0.05, (k, fitted))
            for other in (fitted * 0.9, fitted * 1.1):
                self.assertLess(loss, np.mean((1 / (1 + np.exp(-score / other)) - result) ** 2))
        # Scales are K of four or more pawns over each count's K.
        pawns = np.repeat(np.arange(5), 40000)
        score = rng.uniform(50, 1500, len(pawns))
        ks = np.array([800.0, 400.0, 250.0, 200.0, 160.0])
        result = (rng.random(len(score)) < 1 / (1 + np.exp(-score / ks[pawns]))).astype(np.float64)
        fits = pawnscale.measure(score, result, pawns)
        for n, (rows, k, scale) in enumerate(fits):
            self.assertEqual(rows, 40000)
            self.assertLess(abs(scale / (160.0 / ks[n]) - 1), 0.1, (n, k, scale))
        self.assertEqual(fits[-1][2], 1.0)
        few = pawnscale.measure(score[pawns > 0], result[pawns > 0], pawns[pawns > 0])
        self.assertEqual(few[0], (0, None, None))
        with self.assertRaises(pawnscale.TooFewRows) as e:
            pawnscale.measure(score[pawns < 4], result[pawns < 4], pawns[pawns < 4])
        self.assertIn("0 rows with four or more pawns", str(e.exception))

    def test_a_fit_gives_the_table_the_engine_applies(self):
        def fits(*scales):
            return [(5000, 200.0, sc) for sc in scales]
        # Each entry the scale of ONE, at most ONE; no pawns one pawn's entry.
        self.assertEqual(pawnscale.table(fits(0.2, 0.45, 0.71, 0.94, 1.0)), (58, 58, 91, 120, 128))
        self.assertEqual(pawnscale.table(fits(None, 0.57, 1.02, 1.09, 1.0)), (73, 73, 128, 128, 128))
        # A fit's noise never makes more pawns worth less.
        self.assertEqual(pawnscale.table(fits(0.5, 0.8, 0.75, 0.9, 1.0)), (102, 102, 102, 115, 128))
        self.assertEqual(pawnscale.table(fits(0.0, 0.001, 0.5, 1.0, 1.0)), (1, 1, 64, 128, 128))
        for t in (pawnscale.table(fits(0.2, 0.45, 0.71, 0.94, 1.0)), pawnscale.table(fits(0.5, 0.8, 0.75, 0.9, 1.0))):
            self.assertEqual(nnue.check_pawn_scale(t), t)
        few = fits(0.2, 0.45, 0.71, 0.94, 1.0)
        few[2] = few[3] = (300, None, None)
        with self.assertRaises(pawnscale.TooFewRows) as e:
            pawnscale.table(few)
        self.assertIn("too few positions to fit the pawn table for 2, 3 pawns (300, 300 rows)", str(e.exception))
        # At a level below ONE every entry is the scale of the level, and
        # none above it.
        self.assertEqual(pawnscale.table(fits(0.2, 0.45, 0.71, 0.94, 1.0), 96), (43, 43, 68, 90, 96))
        self.assertEqual(pawnscale.table(fits(None, 0.57, 1.02, 1.09, 1.0), 96), (55, 55, 96, 96, 96))
        self.assertEqual(pawnscale.table(fits(0.0, 0.001, 0.5, 1.0, 1.0), 2), (1, 1, 1, 2, 2))
        # Above ONE the level raises every entry alike, and the engine
        # takes the table.
        raised = pawnscale.table(fits(0.2, 0.45, 0.71, 0.94, 1.0), 192)
        self.assertEqual(raised, (86, 86, 136, 180, 192))
        self.assertEqual(nnue.check_pawn_scale(raised), raised)
        for level in (0, 257):
            with self.assertRaises(ValueError) as e:
                pawnscale.table(fits(0.2, 0.45, 0.71, 0.94, 1.0), level)
            self.assertIn(f"pawn table level {level}: want 1 to 256", str(e.exception))

    def test_write_puts_the_fitted_table_in_the_network(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        default = os.path.join(fixture.ROOT, "engine", "nnue", "default.nnue")
        net = os.path.join(tmp, "net.nnue")
        shutil.copy(default, net)
        # Whatever table the committed network has, the copy starts from one
        # the fit below does not give, so that writing must change the file.
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(nnue.main(["table", net, "--set", "30,40,50,60,128"]), 0)
        before, prov_before, id_before = nnue.read_net(net)
        argv = ["pawnscale", self.npy, "--network", net, "--min-score", "20", "--min-rows", "150", "--write"]
        with contextlib.redirect_stdout(io.StringIO()) as out:
            rc = nnue.main(argv)
        self.assertEqual(rc, 0)
        scores, _ = nnue.network_scores(default)
        # The fit keeps the file's level, its entry for four or more pawns.
        level = before["pawn_scale"][-1]
        want = pawnscale.table(pawnscale.fit(self.npy, 20, 1500, min_rows=150, network=scores)[1], level)
        self.assertEqual(want[-1], level)
        after, prov, net_id = nnue.read_net(net)
        self.assertEqual(after["pawn_scale"], want)
        for k in ("w1", "b1", "w2", "b2", "mirror"):
            np.testing.assert_array_equal(after[k], before[k], err_msg=k)
        self.assertNotEqual(net_id, id_before)
        self.assertEqual(prov["pawn_scale"], list(want))
        self.assertEqual(prov["pawn_scale_command"], "chessforge-nnue " + " ".join(argv))
        self.assertEqual({k: v for k, v in prov.items() if not k.startswith("pawn_scale")},
                         {k: v for k, v in prov_before.items() if not k.startswith("pawn_scale")})
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[-2:], [f"pawn table {' '.join(map(str, want))}", f"wrote {net}: network {net_id}"])
        # Writing again fits the network's own scores, which the table does
        # not change: the same table, the same file.
        with open(net, "rb") as f:
            first = f.read()
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(nnue.main(argv), 0)
        with open(net, "rb") as f:
            self.assertEqual(f.read(), first)
        # A file at a lower level keeps it: every entry of the fit is of 96.
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(nnue.main(["table", net, "--set", "40,50,60,70,96"]), 0)
            self.assertEqual(nnue.main(argv), 0)
        at96 = pawnscale.table(pawnscale.fit(self.npy, 20, 1500, min_rows=150, network=scores)[1], 96)
        self.assertEqual(at96[-1], 96)
        self.assertNotEqual(at96, want)
        self.assertEqual(nnue.read_net(net)[0]["pawn_scale"], at96)
        # Back at level 128, the fit writes the first file again, byte for byte.
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(nnue.main(["table", net, "--set", ",".join(map(str, want))]), 0)
            self.assertEqual(nnue.main(argv), 0)
        with open(net, "rb") as f:
            self.assertEqual(f.read(), first)
        # Too few rows to fit: its own exit status, which a recipe reads as
        # "keep the table". No network: an error. The file untouched.
        too_few = pawnscale.EXIT_TOO_FEW
        for extra, why, want_rc in (
                (["--network", net, "--write"], "too few positions to fit the pawn table", too_few),
                (["--network", net, "--write", "--min-rows", "100000"], "rows with four or more pawns for the side ahead, want at least 100000", too_few),
                (["--network", net, "--write", "--min-rows", "0"], "pawnscale --min-rows 0: want at least 1", 2),
                (["--write"], "pawnscale --write: needs --network FILE", 2)):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                rc = nnue.main(["pawnscale", self.npy] + extra)
            self.assertEqual(rc, want_rc, extra)
            self.assertIn(why, err.getvalue())
            with open(net, "rb") as f:
                self.assertEqual(f.read(), first)

    def test_level_puts_a_network_on_another_s_scale(self):
        default = os.path.join(fixture.ROOT, "engine", "nnue", "default.nnue")
        scores, _ = nnue.network_scores(default)
        table = (64, 64, 96, 120, 128)
        # The same network at three quarters of the table: its level is 96.
        level, exact, rows = pawnscale.level(self.npy, scores, table, scores, (48, 48, 72, 90, 96), max_score=10**9)
        self.assertEqual(level, 96)
        self.assertAlmostEqual(exact, 96.0, places=6)
        self.assertEqual(rows, len(self.cols["fen"]))
        # The pawn table's fractions count: with a flat table the same
        # scores no longer match exactly, and the fit lies between.
        flat = pawnscale.level(self.npy, scores, (128,) * 5, scores, (48, 48, 72, 90, 96))[1]
        self.assertTrue(72 < flat < 96, flat)
        # Twice the reference's scores want half its level, half its scores
        # twice (the most a table holds), a quarter four times, which is
        # held at MAX.
        level, exact, _ = pawnscale.level(self.npy, lambda c: 2 * scores(c), table, scores, table)
        self.assertEqual((level, round(exact, 6)), (64, 64.0))
        level, exact, _ = pawnscale.level(self.npy, lambda c: scores(c) / 2, table, scores, table)
        self.assertEqual((level, round(exact, 6)), (256, 256.0))
        level, exact, _ = pawnscale.level(self.npy, lambda c: scores(c) / 4, table, scores, table)
        self.assertEqual((level, round(exact, 6)), (pawnscale.MAX, 512.0))
        # Rows beyond max_score by the reference are left out.
        src = open_source(self.npy)
        near = sum(int(np.count_nonzero(np.abs(scores(c)) <= 100)) for u in src.units for c in src.read(u, 8192))
        _, _, rows = pawnscale.level(self.npy, scores, table, scores, (128,) * 5, max_score=100)
        self.assertEqual(rows, near)
        self.assertTrue(0 < rows < len(self.cols["fen"]), rows)
        with self.assertRaisesRegex(ValueError, "no position with a score to compare"):
            pawnscale.level(self.npy, lambda c: 0 * scores(c), table, scores, table)

    def test_write_level_of_takes_the_reference_s_scale(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        default = os.path.join(fixture.ROOT, "engine", "nnue", "default.nnue")
        net, ref = os.path.join(tmp, "net.nnue"), os.path.join(tmp, "ref.nnue")
        shutil.copy(default, net)
        shutil.copy(default, ref)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(nnue.main(["table", ref, "--set", "40,50,60,70,80"]), 0)
        argv = ["pawnscale", self.npy, "--network", net, "--min-score", "20", "--min-rows", "150", "--write",
                "--level-of", ref]
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(nnue.main(argv), 0)
        scores, _ = nnue.network_scores(default)
        fits = pawnscale.fit(self.npy, 20, 1500, min_rows=150, network=scores)[1]
        at_file = pawnscale.table(fits, nnue.read_net(default)[0]["pawn_scale"][-1])
        level, exact, rows = pawnscale.level(self.npy, scores, at_file, scores, (40, 50, 60, 70, 80))
        self.assertLess(level, 100)
        want = pawnscale.table(fits, level)
        after, prov, net_id = nnue.read_net(net)
        self.assertEqual(after["pawn_scale"], want)
        self.assertEqual(prov["pawn_scale_command"], "chessforge-nnue " + " ".join(argv))
        ref_id = nnue.read_net(ref)[2]
        self.assertEqual(out.getvalue().splitlines()[-3:], [
            f"level {level}: the scale of network {ref_id}'s scores (table 40 50 60 70 80) over {rows} positions, "
            f"{exact:.1f} exactly",
            f"pawn table {' '.join(map(str, want))}", f"wrote {net}: network {net_id}"])
        # Without a network there is no level to fit: a usage error, nothing written.
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(nnue.main(["pawnscale", self.npy, "--level-of", ref]), 2)
        self.assertIn("pawnscale --level-of: needs --network FILE", err.getvalue())

    def test_table_shows_and_sets_a_network_s_table(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        net = os.path.join(tmp, "net.nnue")
        shutil.copy(os.path.join(fixture.ROOT, "engine", "nnue", "default.nnue"), net)
        before, prov_before, id_before = nnue.read_net(net)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(nnue.main(["table", net]), 0)
        self.assertEqual(out.getvalue(), f"network {id_before}: pawn table {' '.join(map(str, before['pawn_scale']))}\n")
        argv = ["table", net, "--set", "40,50,60,70,80"]
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(nnue.main(argv), 0)
        after, prov, net_id = nnue.read_net(net)
        self.assertEqual(after["pawn_scale"], (40, 50, 60, 70, 80))
        for k in ("w1", "b1", "w2", "b2", "mirror"):
            np.testing.assert_array_equal(after[k], before[k], err_msg=k)
        self.assertNotEqual(net_id, id_before)
        self.assertEqual(prov["pawn_scale"], [40, 50, 60, 70, 80])
        self.assertEqual(prov["pawn_scale_command"], "chessforge-nnue " + " ".join(argv))
        self.assertEqual({k: v for k, v in prov.items() if not k.startswith("pawn_scale")},
                         {k: v for k, v in prov_before.items() if not k.startswith("pawn_scale")})
        self.assertEqual(out.getvalue().splitlines(),
                         [f"wrote {net}: network {net_id}", f"network {net_id}: pawn table 40 50 60 70 80"])
        # A table the engine would refuse: exit status 2, the file untouched.
        with open(net, "rb") as f:
            first = f.read()
        for bad, why in (("40,50,60,70", "4 entries, want 5"), ("40,50,60,70,257", "entry 4 is 257, want 1 to 256"),
                         ("40,30,60,70,80", "entry 1 (30) is below entry 0 (40)")):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                with self.assertRaises(SystemExit) as e:
                    nnue.main(["table", net, "--set", bad])
            self.assertEqual(e.exception.code, 2)
            self.assertIn(why, err.getvalue())
            with open(net, "rb") as f:
                self.assertEqual(f.read(), first)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = nnue.main(["table", os.path.join(tmp, "missing.nnue")])
        self.assertEqual(rc, 1)
        self.assertIn("missing.nnue", err.getvalue())

    def test_the_command(self):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            rc = nnue.main(["pawnscale", self.npy, "--min-score", "1", "--max-score", "100000"])
        self.assertEqual(rc, 0)
        lines = out.getvalue().splitlines()
        n = len(from_fens(self.cols, 1, 100000)[0])
        self.assertEqual(lines[0], f"{n} positions with the side ahead's score in [1, 100000]: "
                                   f"its result fitted to sigmoid(score/K)")
        self.assertEqual([l.split(":")[0] for l in lines[1:]], ["0 pawns", "1 pawn", "2 pawns", "3 pawns", "4+ pawns"])
        self.assertTrue(lines[-1].endswith("scale 1.00 (128/128)"), lines[-1])
        net = os.path.join(fixture.ROOT, "engine", "nnue", "default.nnue")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            rc = nnue.main(["pawnscale", self.npy, "--network", net])
        self.assertEqual(rc, 0)
        net_id = nnue.read_net(net)[2]
        self.assertRegex(out.getvalue().splitlines()[0],
                         rf"^\d+ positions with the side ahead's score \(network {net_id}'s\) in \[50, 1500\]: ")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = nnue.main(["pawnscale", self.npy, "--network", os.path.join(self.npy, "manifest.json")])
        self.assertEqual(rc, 1)
        self.assertIn(f"chessforge-nnue: {os.path.join(self.npy, 'manifest.json')}: wrong magic", err.getvalue())
        dama = os.path.join(fixture.dama_directory(), "npy")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = nnue.main(["pawnscale", dama])
        self.assertEqual(rc, 1)
        self.assertIn("a dama dataset; pawnscale measures chess positions", err.getvalue())


if __name__ == "__main__":
    unittest.main()
