"""The NNUE trainer's reading of its rows (chessforge_data.nnue_reader):
in a process of its own the same rows in the same order as in the
trainer's, resumed at an offset, and its errors raised as they were."""

import os
import shutil
import tempfile
import unittest

import numpy as np

import fixture
from chessforge_data import ChessDataset, nnue_reader


def dataset(path=None, **kw):
    return ChessDataset(path or os.path.join(fixture.directory(), "npy"), batch_size=300, shuffle_buffer=1000,
                        seed=3, side_to_move=True, value_target="blend", blend=0.0, score_scale=400.0, **kw)


def taken(it, n):
    return [next(it) for _ in range(n)]


class Reader(unittest.TestCase):
    def test_apart_the_same_rows_in_the_same_order(self):
        here = taken(nnue_reader.pieces(dataset(), 2, 500), 40)  # over two passes' end
        apart = taken(nnue_reader.pieces_apart(dataset(), 2, 500, ahead=3), 40)
        self.assertEqual([p for p, _, _ in here], [p for p, _, _ in apart])
        self.assertEqual(len({p for p, _, _ in here}), 3)
        for (_, pa, va), (_, pb, vb) in zip(here, apart):
            self.assertIsInstance(pb, np.ndarray)
            self.assertTrue(np.array_equal(pa, pb))
            self.assertTrue(np.array_equal(va, vb))

    def test_the_offset_drops_the_first_rows_of_the_first_pass(self):
        whole = np.concatenate([v for _, _, v in nnue_reader.pieces(dataset(), 1, 0, passes=1)])
        later = np.concatenate([v for _, _, v in nnue_reader.pieces_apart(dataset(), 1, 450, passes=1)])
        self.assertEqual(len(later), len(whole) - 450)
        self.assertTrue(np.array_equal(later, whole[450:]))

    def test_an_error_is_raised_as_it_was(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(fixture.directory(), "npy"), os.path.join(d, "npy"))
            shard = sorted(n for n in os.listdir(os.path.join(d, "npy")) if n.endswith(".npy") and "planes" in n)[0]
            with open(os.path.join(d, "npy", shard), "r+b") as f:
                f.truncate(300)
            errors = []
            for read in (nnue_reader.pieces, nnue_reader.pieces_apart):
                with self.assertRaises(Exception) as cm:
                    list(read(dataset(os.path.join(d, "npy")), passes=1))
                errors.append(cm.exception)
        self.assertEqual(type(errors[1]), type(errors[0]))
        self.assertEqual(str(errors[1]), str(errors[0]))
        self.assertIn(shard, str(errors[0]))

    def test_a_pass_without_rows(self):
        ds = dataset(min_ply=10**6)  # nothing kept
        self.assertEqual(list(nnue_reader.pieces_apart(ds, passes=1, empty_ok=True)), [])
        with self.assertRaisesRegex(ValueError, "no training positions"):
            list(nnue_reader.pieces_apart(ds, passes=1))


if __name__ == "__main__":
    unittest.main()
