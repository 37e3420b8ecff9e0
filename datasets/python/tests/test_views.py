"""The side-to-move option, the read-time filters and len(), checked against
planes and policy indexes this file derives from FENs and UCI moves on its
own (from the format's description, not from the package's tables)."""

import os
import shutil
import json
import tempfile
import unittest

import numpy as np
import torch
from torch.utils.data import DataLoader

import fixture
from chessforge_data import POLICY_MIRROR, ChessDataset

PIECES = "PNBRQKpnbrqk"  # planes 0-11


def square(name):
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


def planes_from_fen(fen, repetition):
    """The 18x8x8 planes of a FEN (plane 12, repetitions, is not in a FEN:
    it is given)."""
    placement, side, castling, ep, halfmove, _ = fen.split()
    p = np.zeros((18, 64), dtype=np.float32)
    for i, row in enumerate(placement.split("/")):
        rank, f = 7 - i, 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                p[PIECES.index(ch), rank * 8 + f] = 1
                f += 1
    p[12] = repetition
    p[13] = 1.0 if side == "w" else 0.0
    p[14] = sum(c in castling for c in "KQ") / 2
    p[15] = sum(c in castling for c in "kq") / 2
    if ep != "-":
        p[16, square(ep)] = 1
    p[17] = min(np.float32(int(halfmove)) / np.float32(100), np.float32(1))
    return p.reshape(18, 8, 8)


def mirror_fen(fen):
    """The FEN with ranks flipped, colours swapped and the other side to move."""
    placement, side, castling, ep, halfmove, fullmove = fen.split()
    placement = "/".join(reversed(placement.split("/"))).swapcase()
    side = "b" if side == "w" else "w"
    if castling != "-":
        castling = "".join(c for c in "KQkq" if c in castling.swapcase())
    if ep != "-":
        ep = ep[0] + str(9 - int(ep[1]))
    return " ".join([placement, side, castling, ep, halfmove, fullmove])


def mirror_move(uci):
    """The UCI move with ranks flipped."""
    return uci[0] + str(9 - int(uci[1])) + uci[2] + str(9 - int(uci[3])) + uci[4:]


def policy_index(uci):
    """The policy index of a UCI move, from the format's description."""
    fr, to = square(uci[0:2]), square(uci[2:4])
    df, dr = to % 8 - fr % 8, to // 8 - fr // 8
    if len(uci) == 5 and uci[4] in "nbr":
        return (64 + "nbr".index(uci[4]) * 3 + df + 1) * 64 + fr
    knights = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
    if (df, dr) in knights:
        return (56 + knights.index((df, dr))) * 64 + fr
    dirs = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
    dist = max(abs(df), abs(dr))
    assert df in (0, dist, -dist) and dr in (0, dist, -dist), uci
    d = dirs.index((np.sign(df), np.sign(dr)))
    return (d * 7 + dist - 1) * 64 + fr


def all_moves():
    """Every from-to geometry the policy index has, with promotions."""
    names = [f + r for r in "12345678" for f in "abcdefgh"]
    for a in names:
        for b in names:
            if a == b:
                continue
            df, dr = ord(b[0]) - ord(a[0]), int(b[1]) - int(a[1])
            if df == 0 or dr == 0 or abs(df) == abs(dr) or {abs(df), abs(dr)} == {1, 2}:
                yield a + b
                if abs(df) <= 1 and abs(dr) == 1 and (a[1], b[1]) in (("7", "8"), ("2", "1")):
                    for piece in "qrbn":
                        yield a + b + piece


def rows(ds, loader=None):
    out = [[], [], [], []]
    for b in (loader if loader is not None else ds):
        for i in range(4):
            out[i].append(b[i])
    return [torch.cat(x) for x in out]


class SideToMove(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.npy = os.path.join(fixture.directory(), "npy")
        cls.cols = fixture.columns()

    def test_the_fen_decoder_and_policy_encoder_of_this_test_agree_with_the_data(self):
        c = self.cols
        n = len(c["fen"])
        for i in range(n):
            rep = c["planes"][i, 12 * 64]
            want = planes_from_fen(c["fen"][i], rep).reshape(-1)
            self.assertTrue(np.array_equal(want, c["planes"][i]), f"row {i}: {c['fen'][i]}")
            self.assertEqual(policy_index(c["best_move"][i]), c["policy"][i], f"row {i}: {c['best_move'][i]}")

    def test_policy_mirror_matches_every_mirrored_move(self):
        seen = set()
        for m in all_moves():
            i = policy_index(m)
            self.assertEqual(POLICY_MIRROR[i], policy_index(mirror_move(m)), m)
            seen.add(i)
        # 1792 queen-like and knight moves, 2 × 66 under-promotions (White's and Black's).
        self.assertEqual(len(seen), 1792 + 132)
        self.assertTrue(np.array_equal(np.sort(POLICY_MIRROR), np.arange(4672)), "not a permutation")
        self.assertTrue(np.array_equal(POLICY_MIRROR[POLICY_MIRROR], np.arange(4672)), "not its own inverse")

    def test_the_mirrored_batch_is_the_batch_of_the_mirrored_fens(self):
        c = self.cols
        n = len(c["fen"])
        planes, policy, value, score = rows(ChessDataset(self.npy, batch_size=300, side_to_move=True))
        black = np.array([f.split()[1] == "b" for f in c["fen"]])
        self.assertGreater(black.sum(), 100)
        for i in range(n):
            fen, move = c["fen"][i], c["best_move"][i]
            if black[i]:
                fen, move = mirror_fen(fen), mirror_move(move)
            want = planes_from_fen(fen, c["planes"][i, 12 * 64])
            self.assertTrue(np.array_equal(planes[i].numpy(), want), f"row {i}: {c['fen'][i]} mirrored {fen}")
            self.assertEqual(int(policy[i]), policy_index(move), f"row {i}: {move}")
        self.assertTrue(torch.all(planes[:, 13] == 1), "the side to move is not always 'White'")
        np.testing.assert_array_equal(value.numpy(), np.where(black, 1 - c["result"], c["result"]))
        np.testing.assert_array_equal(score.numpy(), np.where(black, -c["score_cp"], c["score_cp"]).astype(np.float32))
        # The value target "score" is taken from the side to move's score.
        _, _, v, s = rows(ChessDataset(self.npy, batch_size=1000, side_to_move=True, value_target="score"))
        np.testing.assert_allclose(v.numpy(), 1 / (1 + np.exp(-s.numpy().astype(np.float64) / 400)), rtol=1e-6)

    def test_shuffled_mirrored_rows_are_the_same_rows(self):
        a = rows(ChessDataset(self.npy, batch_size=300, side_to_move=True))
        ds = ChessDataset(self.npy, batch_size=128, side_to_move=True, shuffle_buffer=900, seed=5)
        b = rows(ds, DataLoader(ds, batch_size=None, num_workers=2))

        def keys(r):
            return sorted(r[0][i].numpy().tobytes() + bytes(str((int(r[1][i]), float(r[2][i]), float(r[3][i]))), "ascii")
                          for i in range(len(r[1])))
        self.assertEqual(keys(a), keys(b))


def expected_mask(c, min_ply=0, max_score=0, skip_in_check=False, skip_captures=False, disagree_score=0):
    """The rows each filter keeps, written out row by row."""
    keep = []
    for i in range(len(c["ply"])):
        s, r = int(c["score_cp"][i]), float(c["result"][i])
        k = True
        if min_ply and c["ply"][i] < min_ply:
            k = False
        if max_score and abs(s) > max_score:
            k = False
        if skip_in_check and c["in_check"][i]:
            k = False
        if skip_captures and (c["best_is_capture"][i] or c["best_is_promotion"][i]):
            k = False
        if disagree_score and ((s >= disagree_score and r == 0) or (s <= -disagree_score and r == 1)):
            k = False
        keep.append(k)
    return np.array(keep)


FILTERS = [dict(min_ply=20), dict(max_score=300), dict(skip_in_check=True), dict(skip_captures=True),
           dict(disagree_score=200),
           dict(min_ply=8, max_score=1000, skip_in_check=True, skip_captures=True, disagree_score=150)]


class Filters(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.npy = os.path.join(fixture.directory(), "npy")
        cls.cols = fixture.columns()

    def test_each_filter_keeps_the_rows_it_names(self):
        c = self.cols
        for f in FILTERS:
            keep = expected_mask(c, **f)
            self.assertTrue(0 < keep.sum() < len(keep), f"{f}: keeps {keep.sum()} of {len(keep)}: no test")
            ds = ChessDataset(self.npy, batch_size=100, **f)
            planes, policy, value, score = rows(ds)
            self.assertEqual(len(policy), keep.sum(), f)
            self.assertTrue(np.array_equal(planes.reshape(len(policy), -1).numpy(), c["planes"][keep]), f)
            np.testing.assert_array_equal(policy.numpy(), c["policy"][keep])
            np.testing.assert_array_equal(score.numpy(), c["score_cp"][keep].astype(np.float32))
            self.assertEqual(ds.num_rows, keep.sum(), f)
            self.assertEqual(len(ds), -(-int(keep.sum()) // 100), f)

    def test_filters_and_mirroring_together(self):
        c = self.cols
        f = dict(disagree_score=150, skip_captures=True)
        keep = expected_mask(c, **f)
        _, policy, value, _ = rows(ChessDataset(self.npy, batch_size=256, side_to_move=True, **f))
        black = np.array([x.split()[1] == "b" for x in c["fen"]])[keep]
        np.testing.assert_array_equal(value.numpy(), np.where(black, 1 - c["result"][keep], c["result"][keep]))
        np.testing.assert_array_equal(policy.numpy(), np.where(black, POLICY_MIRROR[c["policy"][keep]], c["policy"][keep]))

    def test_a_filter_names_the_column_an_old_export_lacks(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        old = os.path.join(tmp, "old")
        shutil.copytree(self.npy, old)
        mpath = os.path.join(old, "manifest.json")
        with open(mpath) as f:
            m = json.load(f)
        for s in m["shards"]:
            del s["in_check"]
        with open(mpath, "w") as f:
            json.dump(m, f)
        self.assertEqual(len(rows(ChessDataset(old, batch_size=500, min_ply=4))[1]), expected_mask(self.cols, min_ply=4).sum())
        with self.assertRaisesRegex(ValueError, "in_check"):
            rows(ChessDataset(old, skip_in_check=True))
        with self.assertRaisesRegex(ValueError, "max_score"):
            ChessDataset(old, max_score=-1)


class ParquetViews(unittest.TestCase):
    def setUp(self):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            self.skipTest("pyarrow is not installed: the Parquet path is not tested here")

    def test_parquet_filters_and_mirroring_match_the_export(self):
        d = fixture.directory()
        for f in FILTERS + [dict()]:
            pq = ChessDataset(os.path.join(d, "data"), batch_size=200, side_to_move=True, **f)
            npy = ChessDataset(os.path.join(d, "npy"), batch_size=200, side_to_move=True, **f)
            a, b = rows(pq), rows(npy)
            for x, y in zip(a, b):
                self.assertTrue(torch.equal(x, y), f)
            self.assertEqual((len(pq), pq.num_rows), (len(npy), npy.num_rows), f)


class Length(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.npy = os.path.join(fixture.directory(), "npy")

    def test_len_is_the_batches_iterated(self):
        for kw in [dict(batch_size=100), dict(batch_size=100, drop_last=True), dict(batch_size=64, shuffle_buffer=700),
                   dict(batch_size=50, rank=1, world_size=3), dict(batch_size=128, min_ply=10, shuffle_buffer=500),
                   dict(batch_size=7, skip_captures=True, rank=0, world_size=2)]:
            for epoch in (0, 1):
                ds = ChessDataset(self.npy, seed=2, **kw)
                ds.set_epoch(epoch)
                self.assertEqual(len(ds), sum(1 for _ in ds), kw)
                self.assertEqual(len(ds), ds.batches_per_epoch(0))
                got = sum(1 for _ in DataLoader(ds, batch_size=None, num_workers=2))
                self.assertEqual(ds.batches_per_epoch(2), got, kw)
                self.assertEqual(len(ds.loader(2)), got, kw)

    def test_the_compact_loader_gives_the_dataloader_batches(self):
        for kw in [dict(), dict(side_to_move=True, shuffle_buffer=700, skip_in_check=True, value_target="blend")]:
            ds = ChessDataset(self.npy, batch_size=100, seed=3, **kw)
            plain = list(DataLoader(ds, batch_size=None, num_workers=2))
            compact = list(ds.loader(2, group_rows=250))
            self.assertEqual(len(plain), len(compact), kw)
            # The same batches; the workers' batches may interleave differently.
            key = lambda b: b[0].numpy().tobytes() + b[1].numpy().tobytes() + b[2].numpy().tobytes() + b[3].numpy().tobytes()
            self.assertEqual(sorted(map(key, plain)), sorted(map(key, compact)), kw)
            for b in compact:
                self.assertEqual((b[0].dtype, b[1].dtype, b[2].dtype, b[3].dtype),
                                 (torch.float32, torch.int64, torch.float32, torch.float32))
            self.assertEqual([len(b[1]) for b in ds.loader(0)], [len(b[1]) for b in ds])

    def test_num_rows(self):
        ds = ChessDataset(self.npy)
        self.assertEqual(ds.num_rows, len(fixture.columns()["policy"]))


if __name__ == "__main__":
    unittest.main()
