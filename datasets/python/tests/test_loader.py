"""Tests of chessforge_data on a dataset the Go code wrote and exported."""

import json
import os
import shutil
import sys
import tempfile
import unittest

import numpy as np
import torch
from torch.utils.data import DataLoader

import fixture
from chessforge_data import ChessDataset, NpySource, layout, train, value_target


def fingerprints(planes, policy):
    """One bytes value per row, to compare rows as multisets."""
    p = planes.reshape(len(policy), -1).numpy() if torch.is_tensor(planes) else planes
    pol = policy.numpy() if torch.is_tensor(policy) else policy
    return [p[i].tobytes() + int(pol[i]).to_bytes(4, "little") for i in range(len(pol))]


def all_rows(ds, loader=None):
    planes, policy, value, score = [], [], [], []
    for b in (loader if loader is not None else ds):
        planes.append(b[0])
        policy.append(b[1])
        value.append(b[2])
        score.append(b[3])
    return torch.cat(planes), torch.cat(policy), torch.cat(value), torch.cat(score)


class NpyExport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(fixture.directory(), "npy")
        cls.planes, cls.policy, cls.score, cls.result = fixture.expected()

    def test_npy_rebuilds_the_parquet_planes_exactly(self):
        src = NpySource(self.dir)
        self.assertEqual(src.num_rows, len(self.policy))
        self.assertGreater(len(src.units), 1)
        got = []
        for u in src.units:
            for c in src.read(u, 300):
                got.append((layout.unpack(c["packed"], c["scalars"]), c["policy"], c["score_cp"], c["result"]))
        planes = np.concatenate([g[0] for g in got]).reshape(-1, layout.INPUT_SIZE)
        self.assertEqual(planes.dtype, np.float32)
        # Bit-for-bit: compare the float32 bit patterns.
        self.assertTrue(np.array_equal(planes.view(np.uint32), self.planes.view(np.uint32)),
                        "planes rebuilt from the npy export differ from the Parquet planes")
        np.testing.assert_array_equal(np.concatenate([g[1] for g in got]), self.policy)
        np.testing.assert_array_equal(np.concatenate([g[2] for g in got]), self.score)
        np.testing.assert_array_equal(np.concatenate([g[3] for g in got]), self.result)

    def test_batches_have_the_contract_shapes_and_types(self):
        ds = ChessDataset(self.dir, batch_size=100)
        batches = list(ds)
        n = len(self.policy)
        self.assertEqual(len(batches), -(-n // 100))
        planes, policy, value, score = batches[0]
        self.assertEqual(tuple(planes.shape), (100, 18, 8, 8))
        self.assertEqual((planes.dtype, policy.dtype, value.dtype, score.dtype),
                         (torch.float32, torch.int64, torch.float32, torch.float32))
        self.assertEqual(len(batches[-1][1]), n % 100 or 100)
        p, pol, val, sc = all_rows(ds)
        self.assertTrue(np.array_equal(p.reshape(n, -1).numpy(), self.planes))
        np.testing.assert_array_equal(pol.numpy(), self.policy)
        np.testing.assert_array_equal(val.numpy(), self.result)  # value target "result"
        np.testing.assert_array_equal(sc.numpy(), self.score.astype(np.float32))
        dropped = list(ChessDataset(self.dir, batch_size=100, drop_last=True))
        self.assertEqual(len(dropped), n // 100)

    def test_shuffle_is_seeded_and_keeps_every_row(self):
        base = sorted(fingerprints(self.planes, self.policy))
        a = all_rows(ChessDataset(self.dir, batch_size=64, shuffle_buffer=1500, seed=3))
        b = all_rows(ChessDataset(self.dir, batch_size=64, shuffle_buffer=1500, seed=3))
        c = all_rows(ChessDataset(self.dir, batch_size=64, shuffle_buffer=1500, seed=4))
        self.assertTrue(torch.equal(a[1], b[1]) and torch.equal(a[0], b[0]), "same seed, different order")
        self.assertFalse(torch.equal(a[1], c[1]), "different seeds, same order")
        self.assertFalse(torch.equal(a[1], torch.from_numpy(self.policy.astype(np.int64))), "not shuffled")
        self.assertEqual(sorted(fingerprints(a[0], a[1])), base, "shuffling lost or duplicated rows")
        ds = ChessDataset(self.dir, batch_size=64, shuffle_buffer=1500, seed=3)
        ds.set_epoch(1)
        self.assertFalse(torch.equal(all_rows(ds)[1], a[1]), "the epoch does not change the order")

    def test_workers_and_ranks_share_the_shards(self):
        base = sorted(fingerprints(self.planes, self.policy))
        ds = ChessDataset(self.dir, batch_size=128, shuffle_buffer=500, seed=1)
        rows = all_rows(ds, DataLoader(ds, batch_size=None, num_workers=2))
        self.assertEqual(sorted(fingerprints(rows[0], rows[1])), base)
        parts = []
        for rank in range(3):
            r = all_rows(ChessDataset(self.dir, batch_size=128, rank=rank, world_size=3))
            self.assertGreater(len(r[1]), 0)
            parts += fingerprints(r[0], r[1])
        self.assertEqual(sorted(parts), base)

    def test_value_targets(self):
        result = np.array([1, 0.5, 0, 1], dtype=np.float32)
        score = np.array([0, 400, -400, 31990], dtype=np.int32)
        np.testing.assert_array_equal(value_target(result, score, "result"), result)
        s = value_target(result, score, "score", score_scale=400)
        np.testing.assert_allclose(s, [0.5, 1 / (1 + np.exp(-1)), 1 / (1 + np.exp(1)), 1.0], rtol=1e-6)
        np.testing.assert_allclose(value_target(result, score, "blend", blend=0.25), 0.25 * result + 0.75 * s, rtol=1e-6)
        ds = ChessDataset(self.dir, batch_size=4096, value_target="score", score_scale=200)
        _, _, v, sc = next(iter(ds))
        np.testing.assert_allclose(v.numpy(), 1 / (1 + np.exp(-sc.numpy().astype(np.float64) / 200)), rtol=1e-6)
        with self.assertRaises(ValueError):
            ChessDataset(self.dir, value_target="elo")

    def test_bad_exports_give_errors_naming_the_file(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with self.assertRaisesRegex(FileNotFoundError, "manifest"):
            NpySource(tmp)
        bad = os.path.join(tmp, "bad")
        shutil.copytree(self.dir, bad)
        with open(os.path.join(bad, "manifest.json")) as f:
            m = json.load(f)
        m["planes"] = "18x8x8-v9"
        with open(os.path.join(bad, "manifest.json"), "w") as f:
            json.dump(m, f)
        with self.assertRaisesRegex(ValueError, "manifest.json: planes"):
            NpySource(bad)
        m["planes"] = "18x8x8-v1"
        with open(os.path.join(bad, "manifest.json"), "w") as f:
            json.dump(m, f)
        shard = os.path.join(bad, m["shards"][0]["policy"])
        np.save(shard, np.zeros(3, dtype=np.int32))
        with self.assertRaisesRegex(ValueError, m["shards"][0]["policy"]):
            list(NpySource(bad).read(0, 100))

    def test_pack_is_the_inverse_of_unpack(self):
        packed, scalars = layout.pack(self.planes[:500])
        back = layout.unpack(packed, scalars).reshape(500, -1)
        self.assertTrue(np.array_equal(back, self.planes[:500]))
        bad = self.planes[:2].copy()
        bad[1, 3 * 64 + 5] = 0.5
        with self.assertRaisesRegex(ValueError, "row 1"):
            layout.pack(bad)


class SeveralDatasets(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(fixture.directory(), "npy")
        cls.planes, cls.policy, _, _ = fixture.expected()
        # A second export: the first two shards of the fixture's.
        cls.tmp = tempfile.mkdtemp()
        cls.part = os.path.join(cls.tmp, "part")
        shutil.copytree(cls.dir, cls.part)
        with open(os.path.join(cls.part, "manifest.json")) as f:
            m = json.load(f)
        m["shards"] = m["shards"][:2]
        m["rows"] = sum(s["rows"] for s in m["shards"])
        with open(os.path.join(cls.part, "manifest.json"), "w") as f:
            json.dump(m, f)
        cls.part_rows = m["rows"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_several_paths_read_as_one_dataset(self):
        ds = ChessDataset([self.dir, self.part], batch_size=100)
        one, part = NpySource(self.dir), NpySource(self.part)
        self.assertEqual(ds.num_rows, len(self.policy) + self.part_rows)
        self.assertEqual(ds.source.units, [(0, u) for u in one.units] + [(1, u) for u in part.units])
        planes, policy, _, _ = all_rows(ds)
        k = self.part_rows
        want_planes = np.concatenate([self.planes, self.planes[:k]])
        self.assertTrue(np.array_equal(planes.reshape(len(policy), -1).numpy(), want_planes))
        np.testing.assert_array_equal(policy.numpy(), np.concatenate([self.policy, self.policy[:k]]))
        # Shuffled and shared among workers: every row of both, once.
        ds = ChessDataset([self.dir, self.part], batch_size=128, shuffle_buffer=700, seed=4, min_ply=0)
        rows = all_rows(ds, DataLoader(ds, batch_size=None, num_workers=2))
        self.assertEqual(sorted(fingerprints(rows[0], rows[1])),
                         sorted(fingerprints(want_planes, np.concatenate([self.policy, self.policy[:k]]))))
        # A list of one path is that path.
        self.assertIsInstance(ChessDataset([self.dir]).source, NpySource)

    def test_filters_count_the_rows_of_every_path(self):
        one = ChessDataset(self.dir, skip_in_check=True, min_ply=10)
        part = ChessDataset(self.part, skip_in_check=True, min_ply=10)
        both = ChessDataset([self.dir, self.part], skip_in_check=True, min_ply=10)
        self.assertLess(both.num_rows, len(self.policy) + self.part_rows)
        self.assertEqual(both.num_rows, one.num_rows + part.num_rows)
        self.assertEqual(sum(len(b[1]) for b in both), both.num_rows)

    def test_datasets_of_two_games_are_an_error_naming_both(self):
        dama = os.path.join(fixture.dama_directory(), "npy")
        with self.assertRaises(ValueError) as e:
            ChessDataset([self.dir, dama])
        self.assertIn(dama, str(e.exception))
        self.assertIn(self.dir, str(e.exception))
        self.assertIn("one game", str(e.exception))


class ParquetPath(unittest.TestCase):
    def setUp(self):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            self.skipTest("pyarrow is not installed: the Parquet path is not tested here")

    def test_parquet_and_npy_give_the_same_batches(self):
        d = fixture.directory()
        planes, policy, score, result = fixture.expected()
        pq = all_rows(ChessDataset(os.path.join(d, "data"), batch_size=256))
        self.assertTrue(np.array_equal(pq[0].reshape(len(policy), -1).numpy(), planes))
        np.testing.assert_array_equal(pq[1].numpy(), policy)
        ds = ChessDataset(os.path.join(d, "data"), batch_size=128, shuffle_buffer=700, seed=2)
        self.assertGreater(len(ds.source.units), 2)
        rows = all_rows(ds, DataLoader(ds, batch_size=None, num_workers=2))
        self.assertEqual(sorted(fingerprints(rows[0], rows[1])), sorted(fingerprints(planes, policy)))


class Training(unittest.TestCase):
    def test_train_loss_falls_and_saves_a_checkpoint(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        out = os.path.join(tmp, "model.pt")
        args = train.parse([os.path.join(fixture.directory(), "npy"), "--epochs", "2",
                                          "--batch-size", "64", "--max-steps", "25", "--channels", "16",
                                          "--blocks", "1", "--shuffle-buffer", "2000", "--out", out])
        lines = []
        model, steps, epochs = train.train(args, log=lines.append)
        self.assertEqual(len(steps), 50)
        first, last = np.mean(steps[:5]), np.mean(steps[-5:])
        sys.stderr.write(f"\nchessforge-train on the npy export: loss {first:.3f} (first 5 steps) -> {last:.3f} (last 5); "
                         f"{lines[-2] if len(lines) > 1 else ''}\n")
        self.assertLess(last, first - 1.0, f"loss did not fall: {first:.3f} -> {last:.3f}")
        self.assertTrue(any(l.startswith("epoch 2:") and "policy accuracy" in l for l in lines), lines)
        ck = torch.load(out)
        self.assertEqual(ck["epoch"], 2)
        fresh = train.Net(16, 1)
        fresh.load_state_dict(ck["model"])
        x = torch.zeros(1, 18, 8, 8)
        model.eval()
        fresh.eval()
        self.assertTrue(torch.equal(model(x)[0], fresh(x)[0]))

    def test_the_dataset_is_given_once(self):
        self.assertEqual(train.parse(["--data", "d"]).data, "d")
        self.assertEqual(train.parse(["d", "--epochs", "1"]).data, "d")
        for argv in ([], ["a", "--data", "b"]):
            with self.assertRaises(SystemExit):
                with open(os.devnull, "w") as null:
                    stderr, sys.stderr = sys.stderr, null
                    try:
                        train.parse(argv)
                    finally:
                        sys.stderr = stderr


if __name__ == "__main__":
    unittest.main()
