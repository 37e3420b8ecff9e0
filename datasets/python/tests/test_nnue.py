"""Tests of chessforge-nnue: features, seeded and resumable training, the
network file, and the quantized forward pass against the engine's committed
test vectors (engine/nnue/testdata)."""

import argparse
import contextlib
import hashlib
import io
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch

import fixture
from chessforge_data import ChessDataset, NpySource, nnue, nnue_model, nnue_train

TESTDATA = os.path.join(fixture.ROOT, "engine", "nnue", "testdata")
# The float model's eval (SCALE * out) and the quantized one differ by the
# rounding of the weights (W1 to 1/255, W2 to 1/64) and the truncations:
# on average within FLOAT_MEAN_CP, on every position within FLOAT_MAX_CP
# (a network trained 3 epochs on 106,409 self-play positions: mean 9 cp,
# 99th percentile 28, largest 36).
FLOAT_MEAN_CP = 15
FLOAT_MAX_CP = 60


def run(*argv):
    """chessforge-nnue in this process, its output swallowed; exit status 0."""
    with contextlib.redirect_stdout(io.StringIO()):
        rc = nnue.main(list(argv))
    assert rc == 0, argv


def state(path):
    return torch.load(path)["model"]


class Features(unittest.TestCase):
    def test_fen_features_equal_the_training_features_of_every_row(self):
        ds = ChessDataset(os.path.join(fixture.directory(), "npy"), batch_size=500, side_to_move=True)
        fens = fixture.columns()["fen"]
        for mirror in (False, True):
            row, flipped = 0, 0
            for planes, _, _, _ in ds:
                us, us_off, them, them_off = nnue.batch_features(planes, mirror)
                ends = list(us_off[1:].tolist()) + [len(us)]
                for i, (lo, hi) in enumerate(zip(us_off.tolist(), ends)):
                    want_us, want_them = nnue.fen_features(fens[row + i], mirror)
                    np.testing.assert_array_equal(np.sort(us[lo:hi].numpy()), want_us, fens[row + i])
                    np.testing.assert_array_equal(np.sort(them[lo:hi].numpy()), want_them, fens[row + i])
                    flipped += not np.array_equal(want_us, nnue.fen_features(fens[row + i])[0])
                row += len(planes)
            self.assertEqual(row, len(fens))
            # Kings on both wings occur, so mirroring changes some rows' features.
            self.assertEqual(flipped > 0, mirror)

    def test_mirrored_features_are_the_same_for_the_file_mirrored_board(self):
        # King-mirrored features see a board and its file mirror (castling
        # rights dropped) alike, from both sides, wherever the kings stand.
        def flip_files(fen):
            f = fen.split()
            f[0] = "/".join(rank_of(r)[::-1] for r in f[0].split("/"))
            f[2], f[3] = "-", "-"
            return " ".join(f)

        def rank_of(r):
            return "".join("1" * int(c) if c.isdigit() else c for c in r)

        fens = fixture.columns()["fen"][::11]
        for fen in fens:
            a, b = nnue.fen_features(fen, True), nnue.fen_features(flip_files(fen), True)
            np.testing.assert_array_equal(a[0], b[0], fen)
            np.testing.assert_array_equal(a[1], b[1], fen)
        # A white king on e1: White's squares mirrored (e1 -> d1), Black's
        # (king a8) not.
        us, them = nnue.fen_features("k7/8/8/8/8/8/8/R3K3 w - - 0 1", True)
        self.assertEqual(us.tolist(), sorted([3 * 64 + (0 ^ 7), 5 * 64 + (4 ^ 7), (6 + 5) * 64 + (56 ^ 7)]))
        self.assertEqual(them.tolist(), sorted([5 * 64 + 0, (6 + 3) * 64 + 56, (6 + 5) * 64 + 60]))

    def test_piece_bits_and_dense_features_are_the_planes_features(self):
        # The trainer's inputs from compact rows: the piece bits are the
        # planes' first 768 values, and the dense rows hold exactly the
        # features the sparse lists name, for both perspectives.
        ds = ChessDataset(os.path.join(fixture.directory(), "npy"), batch_size=300, side_to_move=True,
                          shuffle_buffer=1000, seed=5)
        batches = 0
        for (planes, _, value, _), rows in zip(ds, ds.compact_batches()):
            x = nnue.piece_bits(torch.from_numpy(rows["packed"]))
            self.assertEqual(x.dtype, torch.uint8)
            self.assertTrue(torch.equal(nnue_model._shifted_bits(torch.from_numpy(rows["packed"])), x))  # the GPU's way
            self.assertTrue(torch.equal(x.bool(), planes.reshape(len(planes), -1)[:, :768] != 0))
            np.testing.assert_array_equal(rows["value"], value.numpy())
            for mirror in (False, True):
                us_idx, off, them_idx, _ = nnue.sparse_features(x, mirror)
                rows_of = torch.repeat_interleave(torch.arange(len(x)), torch.diff(off, append=torch.tensor([len(us_idx)])))
                for dense, idx in zip(nnue.dense_features(x, mirror), (us_idx, them_idx)):
                    want = torch.zeros(len(x), 768)
                    want[rows_of, idx] = 1
                    self.assertEqual(dense.dtype, torch.float32)
                    self.assertTrue(torch.equal(dense, want), mirror)
            batches += 1
        self.assertEqual(batches, len(ds))

    def test_contract_index(self):
        us, them = nnue.fen_features("4k3/8/8/8/8/8/8/R3K3 b - - 0 1")
        # Black to move: its king on e8 (60) is its own king (type 5) on e1 (4).
        self.assertEqual(us.tolist(), sorted([5 * 64 + 4, (6 + 3) * 64 + (0 ^ 56), (6 + 5) * 64 + (4 ^ 56)]))
        self.assertEqual(them.tolist(), sorted([3 * 64 + 0, 5 * 64 + 4, (6 + 5) * 64 + 60]))
        np.testing.assert_array_equal(nnue.THEM[nnue.THEM], np.arange(768))

    def test_truncating_division(self):
        self.assertEqual(nnue.tdiv(np.array([-7, 7, -6, 0]), 2).tolist(), [-3, 3, -3, 0])


class Training(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.data = os.path.join(fixture.directory(), "npy")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def train(self, name, *extra):
        out = os.path.join(self.tmp, name)
        run("train", self.data, "--out", out, "--batch-size", "128", "--steps", "8", "--seed", "3",
            "--shuffle-buffer", "2000", "--val-every", "5", *extra)
        return out

    def failed_run(self, out, *extra):
        """A train run with train()'s settings into out that must fail:
        its stderr."""
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = nnue.main(["train", self.data, "--out", out, "--batch-size", "128", "--steps", "8", "--seed", "3",
                            "--shuffle-buffer", "2000", "--val-every", "5", *extra])
        self.assertEqual(rc, 1)
        return err.getvalue()

    def test_seeded_training_is_reproducible(self):
        a, b = self.train("a", "--epochs", "1"), self.train("b", "--epochs", "1")
        sa, sb = state(os.path.join(a, "epoch-0001.pt")), state(os.path.join(b, "epoch-0001.pt"))
        for k in sa:
            self.assertTrue(torch.equal(sa[k], sb[k]), k)
        self.assertFalse(torch.equal(sa["ft.weight"], nnue.Net().state_dict()["ft.weight"]))
        w = torch.cat([sa["ft.weight"].flatten(), sa["b1"], sa["out.weight"].flatten()])
        self.assertLessEqual(float(w.abs().max()), nnue.CLIP)

    def test_dense_inputs_train_the_same_network(self):
        # The GPU's inputs (dense rows, matrix products) on the CPU: the
        # weights of the sparse run up to float rounding, the same losses,
        # and a run that repeats itself.
        cpu = ("--epochs", "2", "--buckets", "4", "--mirror", "--hidden", "32", "--device", "cpu")
        sparse = self.train("sparse", *cpu, "--inputs", "sparse")
        dense = self.train("dense", *cpu, "--inputs", "dense")
        again = self.train("dense2", *cpu, "--inputs", "dense")
        a, b = torch.load(os.path.join(sparse, "epoch-0002.pt")), torch.load(os.path.join(dense, "epoch-0002.pt"))
        c = torch.load(os.path.join(again, "epoch-0002.pt"))
        for k in a["model"]:
            self.assertTrue(torch.allclose(a["model"][k], b["model"][k], rtol=0, atol=1e-5), k)
            self.assertTrue(torch.equal(b["model"][k], c["model"][k]), k)
        self.assertFalse(torch.equal(a["model"]["ft.weight"], torch.load(os.path.join(sparse, "epoch-0001.pt"))["model"]["ft.weight"]))
        for x, y in zip(a["history"], b["history"]):
            self.assertAlmostEqual(x["train_loss"], y["train_loss"], places=5)
            self.assertAlmostEqual(x["val_loss"], y["val_loss"], places=5)

    def test_preloaded_rows_train_like_the_streamed_ones(self):
        # The same rows as streaming (every row the filters keep, once an
        # epoch, the same validation loss of the same model), in an order of
        # their own that the seed and epoch fix: a repeated run and a resumed
        # one give the same weights.
        common = ("--lr-gamma", "0.5", "--buckets", "2", "--hidden", "32", "--min-ply", "4", "--skip-in-check",
                  "--steps", "0")
        streamed = self.train("streamed", "--epochs", "1", *common)
        pre = self.train("pre", "--epochs", "2", "--preload", *common)
        again = self.train("pre2", "--epochs", "2", "--preload", *common)
        self.train("pre3", "--epochs", "1", "--preload", *common)
        resumed = self.train("pre3", "--epochs", "2", "--preload", "--resume", *common)
        a = torch.load(os.path.join(pre, "epoch-0002.pt"))
        for path in (again, resumed):
            b = torch.load(os.path.join(path, "epoch-0002.pt"))
            for k in a["model"]:
                self.assertTrue(torch.equal(a["model"][k], b["model"][k]), (path, k))
            self.assertEqual(a["history"], b["history"])
        s = torch.load(os.path.join(streamed, "epoch-0001.pt"))
        self.assertEqual(a["history"][0]["positions"], s["history"][0]["positions"])
        self.assertEqual(a["history"][0]["positions"], a["train_rows"])
        self.assertFalse(torch.equal(torch.load(os.path.join(pre, "epoch-0001.pt"))["model"]["ft.weight"],
                                     s["model"]["ft.weight"]))  # another order of the same rows
        # One model's validation loss, read streamed and preloaded.
        args = argparse.Namespace(batch_size=100, shuffle_buffer=0, lam=0.0, min_ply=4, max_score=0,
                                  skip_in_check=True, skip_captures=False, disagree_score=0)
        ds = nnue_train._dataset(self.data, args, 3, False)
        model = nnue.Net(buckets=2, hidden=32)
        model.load_state_dict(a["model"])
        loss, n = nnue.evaluate(model, ds, torch.device("cpu"))
        ploss, pn = nnue.evaluate(model, nnue.Preloaded(ds, torch.device("cpu"), 100, 3, shuffle=False),
                                  torch.device("cpu"))
        self.assertEqual(n, pn)
        self.assertEqual(n, ds.num_rows)
        self.assertAlmostEqual(loss, ploss, places=9)
        # An epoch's order: every row once, fixed by the seed and the epoch.
        pre_ds = nnue.Preloaded(ds, torch.device("cpu"), 100, 3)

        def order(seed, epoch):
            pre_ds.seed = seed
            pre_ds.set_epoch(epoch)
            return torch.cat([b["value"] for b in pre_ds.compact_batches()])

        first = order(3, 0)
        self.assertTrue(torch.equal(first, order(3, 0)))
        self.assertTrue(torch.equal(first.sort().values, pre_ds.value.sort().values))
        self.assertFalse(torch.equal(first, order(3, 1)))
        self.assertFalse(torch.equal(first, order(4, 0)))
        # The mode is part of the run: a streamed resume of it is an error.
        self.assertIn("trained with preload True, resumed with False",
                      self.failed_run(pre, "--epochs", "3", "--resume", *common))

    def test_resume_gives_the_uninterrupted_run(self):
        whole = self.train("whole", "--epochs", "3", "--lr-gamma", "0.5")
        part = self.train("part", "--epochs", "1", "--lr-gamma", "0.5")
        self.train("part", "--epochs", "3", "--lr-gamma", "0.5", "--resume")
        a, b = torch.load(os.path.join(whole, "epoch-0003.pt")), torch.load(os.path.join(part, "epoch-0003.pt"))
        for k in a["model"]:
            self.assertTrue(torch.equal(a["model"][k], b["model"][k]), k)
        self.assertEqual(a["history"], b["history"])
        self.assertEqual([h["lr"] for h in a["history"]], [1e-3, 5e-4, 2.5e-4])
        self.assertIsNotNone(a["history"][-1]["val_loss"])
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = nnue.main(["train", self.data, "--out", part, "--batch-size", "128", "--steps", "8", "--seed", "3",
                            "--shuffle-buffer", "2000", "--val-every", "5", "--epochs", "4", "--lr-gamma", "0.5",
                            "--lambda", "0.25", "--resume"])
        self.assertEqual(rc, 1)
        self.assertIn("trained with lam 0.0, resumed with 0.25", err.getvalue())
        self.assertFalse(os.path.exists(os.path.join(part, "epoch-0004.pt")))

    def test_export_reads_back_and_bad_files_are_errors(self):
        out = self.train("exp", "--epochs", "1")
        net = os.path.join(self.tmp, "x.nnue")
        run("export", os.path.join(out, "epoch-0001.pt"), "--out", net)
        q, prov, netid = nnue.read_net(net)
        with open(net, "rb") as f:
            data = f.read()
        self.assertEqual(data[:4], b"CFNN")
        self.assertEqual(struct.unpack_from("<9I", data, 4), (4, 768, 256, 1, 1, 0, 255, 64, 400))
        n = struct.unpack_from("<I", data, 72)[0]
        self.assertEqual(len(data), 76 + n + nnue.payload_bytes(1))
        # Version 4: the hash covers the file but itself; the id is the
        # payload's hash.
        self.assertEqual(hashlib.sha256(data[:40] + data[72:]).digest(), data[40:72])
        self.assertEqual(netid, hashlib.sha256(data[76 + n:]).hexdigest()[:16])
        self.assertFalse(q["mirror"])
        self.assertEqual(prov["architecture"], "768x2-256-1-screlu")
        for k in ("command", "seed", "positions", "epochs", "losses", "dataset", "created"):
            self.assertIn(k, prov)
        self.assertEqual((prov["seed"], prov["epochs"], prov["positions_trained"]), (3, 1, 8 * 128))
        rows = fixture.expected()[1].size
        self.assertEqual(prov["positions"] + prov["validation_positions"], rows)
        self.assertGreater(prov["validation_positions"], 0)
        want = nnue.quantize(state(os.path.join(out, "epoch-0001.pt")))
        for k in ("w1", "b1", "w2", "b2"):
            np.testing.assert_array_equal(q[k], want[k])
        # The pawn table closes the payload: for a network trained from
        # scratch, by default the one networks had before format version 3,
        # and the provenance says so.
        self.assertEqual(q["pawn_scale"], nnue.LEGACY_PAWN_SCALE)
        self.assertEqual(struct.unpack_from("<5H", data, len(data) - 10), nnue.LEGACY_PAWN_SCALE)
        self.assertEqual(prov["pawn_scale"], list(nnue.LEGACY_PAWN_SCALE))

        def rehashed(table):
            """The file with another pawn table and the hash that matches it."""
            body = data[:-10] + struct.pack("<5H", *table)
            return body[:40] + hashlib.sha256(body[:40] + body[72:]).digest() + body[72:]

        bad = {"wrong magic": b"XFNN" + data[4:], "unsupported version 5": data[:4] + b"\x05" + data[5:],
               "unsupported version 0": data[:4] + b"\x00" + data[5:],
               "pawn table [58, 58, 91, 120, 257]: entry 4 is 257, want 1 to 256": rehashed((58, 58, 91, 120, 257)),
               "entry 2 (57) is below entry 1 (58)": rehashed((58, 58, 57, 120, 128)),
               "entry 0 is 0": rehashed((0, 58, 91, 120, 128)),
               "other architecture": data[:12] + b"\x81" + data[13:], "truncated": data[:-1],
               "trailing bytes": data + b"\0", "feature set 2": data[:24] + b"\x02" + data[25:], "hash does not match its contents (damaged file)": data[:-1] + bytes([data[-1] ^ 1]),
               "truncated (expected at least": data[:40]}
        for why, content in bad.items():
            p = os.path.join(self.tmp, "bad.nnue")
            with open(p, "wb") as f:
                f.write(content)
            with self.assertRaises(ValueError) as cm:
                nnue.read_net(p)
            self.assertIn(p, str(cm.exception))
            self.assertIn(why, str(cm.exception))

    def test_several_datasets_train_as_one(self):
        # The fixture's export given twice: twice the rows, of which every
        # --val-every-th unit of the two together is held out.
        out = os.path.join(self.tmp, "two")
        run("train", self.data, self.data, "--out", out, "--batch-size", "128", "--steps", "8", "--seed", "3",
            "--shuffle-buffer", "2000", "--val-every", "5", "--epochs", "1")
        ck = torch.load(os.path.join(out, "epoch-0001.pt"))
        self.assertEqual(ck["settings"]["data"], [self.data, self.data])
        src = NpySource(self.data)
        units = [src.unit_rows(u) for u in src.units] * 2
        self.assertEqual(ck["val_rows"], sum(n for i, n in enumerate(units) if i % 5 == 4))
        self.assertEqual(ck["train_rows"] + ck["val_rows"], 2 * fixture.expected()[1].size)
        net = os.path.join(self.tmp, "two.nnue")
        run("export", os.path.join(out, "epoch-0001.pt"), "--out", net)
        self.assertEqual(nnue.read_net(net)[1]["dataset"], [self.data, self.data])
        # A resumed run reads the same datasets.
        err = self.failed_run(out, "--epochs", "2", "--resume")
        self.assertIn(f"trained with data {[self.data, self.data]!r}, resumed with {[self.data]!r}", err)
        # A checkpoint written when the data was one path resumes on it.
        one = self.train("one-path", "--epochs", "1")
        ck = torch.load(os.path.join(one, "epoch-0001.pt"))
        ck["settings"]["data"] = self.data
        torch.save(ck, os.path.join(one, "epoch-0001.pt"))
        self.train("one-path", "--epochs", "2", "--resume")
        self.assertTrue(os.path.exists(os.path.join(one, "epoch-0002.pt")))

    def test_mirrored_networks_export_and_start_only_mirrored_training(self):
        out = self.train("mirror", "--epochs", "1", "--mirror", "--buckets", "8")
        net = os.path.join(self.tmp, "mirror.nnue")
        run("export", os.path.join(out, "epoch-0001.pt"), "--out", net)
        q, prov, _ = nnue.read_net(net)
        self.assertTrue(q["mirror"])
        self.assertEqual(prov["architecture"], "768hmx2-256-8-screlu")
        with open(net, "rb") as f:
            self.assertEqual(struct.unpack_from("<2I", f.read(), 20), (1, 1))  # activation, feature set
        # Its quantized forward pass is its float model's, on mirrored features.
        model = nnue.Net(buckets=8)
        model.load_state_dict(state(os.path.join(out, "epoch-0001.pt")))
        for fen in fixture.columns()["fen"][::97]:
            us, them = nnue.fen_features(fen, True)
            with torch.no_grad():
                f = float(model(torch.from_numpy(us), torch.tensor([0]), torch.from_numpy(them),
                                torch.tensor([0]))[0]) * nnue.SCALE
            self.assertLess(abs(f - nnue.quantized_eval(q, us, them)), FLOAT_MAX_CP, fen)
        # A run from a mirrored start (network or checkpoint) trains a
        # mirrored network without being told; --mirror from a plain start
        # is an error.
        for start in (net, os.path.join(out, "epoch-0001.pt")):
            on = self.train("mirror-on-" + os.path.basename(start), "--epochs", "1", "--init", start)
            self.assertTrue(torch.load(os.path.join(on, "epoch-0001.pt"))["settings"]["mirror"], start)
        plain = os.path.join(TESTDATA, "test.nnue")
        err = self.failed_run(os.path.join(self.tmp, "mx"), "--init", plain, "--mirror")
        self.assertIn(f"--init {plain}: plain features, training king-mirrored ones", err)
        # Resuming needs the same feature set.
        err = self.failed_run(out, "--epochs", "2", "--buckets", "8", "--resume")
        self.assertIn("trained with mirror True, resumed with False", err)

    def test_init_starts_from_a_network_or_a_checkpoint(self):
        # A network file dequantizes to weights that quantize back to it
        # exactly: the committed network, and one trained here.
        default = os.path.join(fixture.ROOT, "engine", "nnue", "default.nnue")
        q = nnue.read_net(default)[0]
        back = nnue.quantize(nnue.dequantize(q))
        for k in ("w1", "b1", "w2", "b2"):
            np.testing.assert_array_equal(back[k], q[k])
        # Training from it starts from those weights: with a learning rate
        # of 0 the first epoch's network is the committed one. The start
        # here is a copy with a table of its own, which the checkpoint
        # carries and export writes unless given another (--pawn-scale).
        start = os.path.join(self.tmp, "start.nnue")
        shutil.copyfile(default, start)
        nnue.set_pawn_scale(start, (30, 40, 50, 60, 128), "test")
        out = self.train("init-net", "--epochs", "1", "--lr", "0", "--init", start)
        self.assertEqual(torch.load(os.path.join(out, "epoch-0001.pt"))["pawn_scale"], [30, 40, 50, 60, 128])
        net = os.path.join(self.tmp, "init.nnue")
        run("export", os.path.join(out, "epoch-0001.pt"), "--out", net)
        got, want = nnue.read_net(net)[0], nnue.read_net(default)[0]
        for k in ("w1", "b1", "w2", "b2"):
            np.testing.assert_array_equal(got[k], want[k])
        self.assertEqual(got["pawn_scale"], (30, 40, 50, 60, 128))
        run("export", os.path.join(out, "epoch-0001.pt"), "--out", net, "--pawn-scale", "58,58,91,120,128")
        self.assertEqual(nnue.read_net(net)[0]["pawn_scale"], nnue.LEGACY_PAWN_SCALE)
        # A checkpoint trained from that checkpoint carries the table on.
        again = self.train("init-again", "--epochs", "1", "--lr", "0", "--init", os.path.join(out, "epoch-0001.pt"))
        self.assertEqual(torch.load(os.path.join(again, "epoch-0001.pt"))["pawn_scale"], [30, 40, 50, 60, 128])
        # The starting network's validation loss is measured before any
        # step: with a learning rate of 0, the first epoch's equals it.
        ck = torch.load(os.path.join(out, "epoch-0001.pt"))
        self.assertIsNotNone(ck["init_val_loss"])
        self.assertAlmostEqual(ck["init_val_loss"], ck["history"][0]["val_loss"], places=6)
        # From a checkpoint: its weights, a fresh optimizer, epochs from 1;
        # resuming keeps the run's own checkpoints, and needs the same --init.
        first = os.path.join(self.train("init-a", "--epochs", "1"), "epoch-0001.pt")
        out = self.train("init-ck", "--epochs", "1", "--lr", "0", "--init", first)
        for k, v in state(first).items():
            self.assertTrue(torch.equal(v, state(os.path.join(out, "epoch-0001.pt"))[k]), k)
        self.train("init-ck", "--epochs", "2", "--lr", "0", "--init", first, "--resume")
        resumed = torch.load(os.path.join(out, "epoch-0002.pt"))
        self.assertEqual([h["epoch"] for h in resumed["history"]], [1, 2])
        self.assertEqual(resumed["settings"]["init"], first)
        self.assertEqual(resumed["init_val_loss"], torch.load(os.path.join(out, "epoch-0001.pt"))["init_val_loss"])
        self.assertIsNone(torch.load(first)["init_val_loss"])
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = nnue.main(["train", self.data, "--out", out, "--batch-size", "128", "--steps", "8", "--seed", "3",
                            "--shuffle-buffer", "2000", "--val-every", "5", "--epochs", "3", "--lr", "0", "--resume"])
        self.assertEqual(rc, 1)
        self.assertIn(f"trained with init {first!r}, resumed with None", err.getvalue())
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = nnue.main(["train", self.data, "--out", os.path.join(self.tmp, "x"), "--init",
                            os.path.join(self.tmp, "missing.pt")])
        self.assertEqual(rc, 1)
        self.assertIn("--init " + os.path.join(self.tmp, "missing.pt") + ": no such file", err.getvalue())

    def test_quantized_forward_is_close_to_the_float_model(self):
        for buckets in (1, 8):
            out = self.train(f"float-{buckets}", "--epochs", "1", "--buckets", str(buckets))
            ck = os.path.join(out, "epoch-0001.pt")
            model = nnue.Net(buckets=buckets)
            model.load_state_dict(state(ck))
            q = nnue.quantize(model.state_dict())
            fens = fixture.columns()["fen"][::4]
            diffs = []
            for fen in fens:
                us, them = nnue.fen_features(fen)
                with torch.no_grad():
                    f = float(model(torch.from_numpy(us), torch.tensor([0]), torch.from_numpy(them),
                                    torch.tensor([0]))[0]) * nnue.SCALE
                diffs.append(abs(f - nnue.quantized_eval(q, us, them)))
            mean, worst = float(np.mean(diffs)), max(diffs)
            sys.stderr.write(f"\n{buckets} output bucket(s): quantized vs float eval over {len(fens)} positions: "
                             f"{mean:.1f} cp apart on average, at most {worst:.1f}\n")
            self.assertLessEqual(mean, FLOAT_MEAN_CP)
            self.assertLessEqual(worst, FLOAT_MAX_CP)

    def test_output_buckets(self):
        # The bucket follows the number of pieces: 2-5 pieces bucket 0, ...,
        # 30-32 bucket 7; one bucket is always bucket 0.
        pieces = torch.arange(2, 33)
        self.assertEqual(nnue.bucket(pieces, 8).tolist(), [min((n - 2) // 4, 7) for n in range(2, 33)])
        self.assertEqual(nnue.bucket(pieces, 1).tolist(), [0] * 31)
        self.assertEqual([nnue.bucket(n, 8) for n in (2, 5, 6, 29, 30, 32)], [0, 0, 1, 6, 7, 7])
        # In a batch, each position is scored by its own bucket's output.
        model = nnue.Net(init_scale=4, buckets=8)
        fens = fixture.columns()["fen"][::37][:64]
        feats = [nnue.fen_features(f) for f in fens]
        us = torch.from_numpy(np.concatenate([u for u, _ in feats]))
        them = torch.from_numpy(np.concatenate([t for _, t in feats]))
        off = torch.tensor([0] + list(np.cumsum([len(u) for u, _ in feats])[:-1]))
        with torch.no_grad():
            batch = model(us, off, them, off)
            for i, (u, t) in enumerate(feats):
                one = model(torch.from_numpy(u), torch.tensor([0]), torch.from_numpy(t), torch.tensor([0]))
                self.assertEqual(float(batch[i]), float(one[0]), fens[i])
        self.assertGreater(len({nnue.bucket(len(u), 8) for u, _ in feats}), 3)
        # The bucket's row is picked by a one-hot product (a GPU's fast
        # gradient): the same outputs and gradients as indexing the rows.
        us_acc = model.ft(us, off) + model.b1
        them_acc = model.ft(them, off) + model.b1
        pieces = torch.tensor([len(u) for u, _ in feats])
        x = torch.cat([us_acc, them_acc], 1).clamp(0, 1).pow(2)
        b = nnue.bucket(pieces, 8)
        grads = []
        for out in (model._output(us_acc, them_acc, pieces),
                    (x * model.out.weight[b]).sum(1) + model.out.bias[b]):
            model.zero_grad()
            (out * torch.linspace(-1, 1, len(out))).sum().backward(retain_graph=True)
            grads.append((out.detach(), model.out.weight.grad.clone(), model.out.bias.grad.clone()))
        self.assertTrue(torch.equal(grads[0][0], grads[1][0]))  # the rows themselves: exactly
        for got, want in zip(grads[0][1:], grads[1][1:]):  # their sums: up to the order of adding
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        self.assertGreater(int((grads[0][1].abs().sum(1) > 0).sum()), 3)  # several buckets' rows learn
        # A one-output network is the start of every bucket: with a
        # learning rate of 0, the 8-bucket network evaluates as it does.
        one = os.path.join(TESTDATA, "test.nnue")
        q1 = nnue.read_net(one)[0]
        self.assertEqual(len(q1["b2"]), 1)
        out = self.train("init-buckets", "--epochs", "1", "--lr", "0", "--buckets", "8", "--init", one)
        net = os.path.join(self.tmp, "buckets.nnue")
        run("export", os.path.join(out, "epoch-0001.pt"), "--out", net)
        q8, prov, _ = nnue.read_net(net)
        self.assertEqual(q8["w2"].shape, (8, 2 * nnue.HIDDEN))
        self.assertEqual(prov["architecture"], "768x2-256-8-screlu")
        for u, t in feats:
            self.assertEqual(nnue.quantized_eval(q8, u, t), nnue.quantized_eval(q1, u, t))
        # Resuming with another bucket count is refused; so is starting an
        # 8-bucket network from a 4-bucket one.
        four = self.train("four", "--epochs", "1", "--buckets", "4")
        err = self.failed_run(four, "--epochs", "2", "--buckets", "8", "--resume")
        self.assertIn("trained with buckets 4, resumed with 8", err)
        ck = os.path.join(four, "epoch-0001.pt")
        # Without --buckets, a network trained from another has its buckets.
        on = self.train("four-on", "--epochs", "1", "--init", ck)
        self.assertEqual(state(os.path.join(on, "epoch-0001.pt"))["out.weight"].shape[0], 4)
        self.assertEqual(torch.load(os.path.join(on, "epoch-0001.pt"))["settings"]["buckets"], 4)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = nnue.main(["train", self.data, "--out", os.path.join(self.tmp, "y"), "--buckets", "8", "--init", ck])
        self.assertEqual(rc, 1)
        self.assertIn(f"--init {ck}: 4 output buckets, training 8", err.getvalue())

    def test_other_widths_train_export_and_read_back(self):
        # A network 32 wide: trained, exported with its width in the header
        # and the payload sized by it, quantized as its float model.
        out = self.train("narrow", "--epochs", "1", "--hidden", "32", "--buckets", "8")
        ck = os.path.join(out, "epoch-0001.pt")
        self.assertEqual(tuple(state(ck)["ft.weight"].shape), (768, 32))
        net = os.path.join(self.tmp, "narrow.nnue")
        run("export", ck, "--out", net)
        q, prov, _ = nnue.read_net(net)
        self.assertEqual((q["w1"].shape, q["b1"].shape, q["w2"].shape), ((768, 32), (32,), (8, 64)))
        self.assertEqual(prov["architecture"], "768x2-32-8-screlu")
        with open(net, "rb") as f:
            data = f.read()
        self.assertEqual(struct.unpack_from("<3I", data, 8), (768, 32, 8))
        n = struct.unpack_from("<I", data, 72)[0]
        self.assertEqual(len(data), 76 + n + nnue.payload_bytes(8, 32))
        self.assertEqual(nnue.payload_bytes(8, 32), 768 * 32 * 2 + 32 * 2 + 8 * (4 * 32 + 4) + 10)
        model = nnue.Net(buckets=8, hidden=32)
        model.load_state_dict(state(ck))
        for fen in fixture.columns()["fen"][::97]:
            us, them = nnue.fen_features(fen)
            with torch.no_grad():
                f = float(model(torch.from_numpy(us), torch.tensor([0]), torch.from_numpy(them),
                                torch.tensor([0]))[0]) * nnue.SCALE
            self.assertLess(abs(f - nnue.quantized_eval(q, us, them)), FLOAT_MAX_CP, fen)
        # Its float model scores a dataset at its width (pawnscale --network).
        run("pawnscale", self.data, "--network", net, "--min-rows", "1", "--min-score", "0")
        # Training from it keeps its width without being told; another
        # --hidden, an invalid one and resuming with another are errors.
        on = self.train("narrow-on", "--epochs", "1", "--lr", "0", "--init", net)
        self.assertEqual(torch.load(os.path.join(on, "epoch-0001.pt"))["settings"]["hidden"], 32)
        err = self.failed_run(os.path.join(self.tmp, "nx"), "--init", net, "--hidden", "64")
        self.assertIn(f"--init {net}: accumulators 32 wide, training 64 (--hidden)", err)
        for bad in ("24", "0", "2048"):
            err = self.failed_run(os.path.join(self.tmp, "nb"), "--hidden", bad)
            self.assertIn(f"--hidden {bad}: want a multiple of 16 from 16 to 1024", err)
        err = self.failed_run(out, "--epochs", "2", "--buckets", "8", "--resume")
        self.assertIn("trained with hidden 32, resumed with 256", err)
        # A checkpoint from before --hidden resumes at 256.
        old = self.train("pre-hidden", "--epochs", "1")
        ck = torch.load(os.path.join(old, "epoch-0001.pt"))
        del ck["settings"]["hidden"]
        torch.save(ck, os.path.join(old, "epoch-0001.pt"))
        self.train("pre-hidden", "--epochs", "2", "--resume")
        self.assertTrue(os.path.exists(os.path.join(old, "epoch-0002.pt")))
        # A width the format does not allow is another architecture.
        for width in (24, 0, 2048):
            p = os.path.join(self.tmp, "bad-width.nnue")
            with open(p, "wb") as f:
                f.write(data[:12] + struct.pack("<I", width) + data[16:])
            with self.assertRaises(ValueError) as cm:
                nnue.read_net(p)
            self.assertIn(f"{p}: other architecture 768x2-{width}-8", str(cm.exception))

    def test_export_writes_the_pawn_table_the_engine_reads(self):
        out = self.train("table", "--epochs", "1")
        ck = os.path.join(out, "epoch-0001.pt")
        legacy, table = os.path.join(self.tmp, "legacy.nnue"), os.path.join(self.tmp, "table.nnue")
        run("export", ck, "--out", legacy)
        run("export", ck, "--out", table, "--pawn-scale", "40,60,80,100,128")
        q, prov, net_id = nnue.read_net(table)
        self.assertEqual(q["pawn_scale"], (40, 60, 80, 100, 128))
        self.assertEqual(prov["pawn_scale"], [40, 60, 80, 100, 128])
        # The same weights with another table are another network.
        self.assertNotEqual(net_id, nnue.read_net(legacy)[2])
        # The engine reads the table the trainer wrote.
        engine = os.path.join(fixture.ROOT, "bin", "engine")
        if not os.access(engine, os.X_OK):
            self.skipTest(f"{engine} is not built (make build)")
        r = subprocess.run([engine], input=f"setoption name EvalFile value {table}\nisready\nquit\n",
                           capture_output=True, text=True, timeout=60)
        self.assertIn(f"NNUE evaluation using {table}, network {net_id}, pawn table 40 60 80 100 128\n", r.stdout)
        # A version 4 file, whose provenance the hash covers: a flip there
        # and the engine refuses the file, naming it.
        with open(table, "rb") as f:
            data = bytearray(f.read())
        self.assertEqual(struct.unpack_from("<I", data, 4)[0], 4)
        data[80] ^= 1
        damaged = os.path.join(self.tmp, "damaged.nnue")
        with open(damaged, "wb") as f:
            f.write(data)
        r = subprocess.run([engine], input=f"setoption name EvalFile value {damaged}\nisready\nquit\n",
                           capture_output=True, text=True, timeout=60)
        self.assertIn(f"info string nnue: {damaged}: hash does not match its contents (damaged file); "
                      "the hand-crafted evaluation stays in use\n", r.stdout)
        # A table the engine would refuse is an error naming the entry.
        for value, why in (("40,60,80,100", "4 entries, want 5"), ("40,60,x,100,128", "5 comma-separated integers"),
                           ("40,60,80,100,300", "entry 4 is 300, want 1 to 256")):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                with self.assertRaises(SystemExit) as cm:
                    nnue.main(["export", ck, "--out", os.path.join(self.tmp, "no.nnue"), "--pawn-scale", value])
            self.assertEqual(cm.exception.code, 2)
            self.assertIn(why, err.getvalue())
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "no.nnue")))

    def test_the_console_script_runs(self):
        exe = os.path.join(os.path.dirname(sys.executable), "chessforge-nnue")
        if not os.access(exe, os.X_OK):
            self.skipTest(f"{exe} is not installed")
        r = subprocess.run([exe, "export", os.path.join(self.tmp, "missing.pt"), "--out", "x"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing.pt", r.stderr)


class NetworkFile(unittest.TestCase):
    """Version 4 files, whose hash covers the whole file, and the older
    ones, whose hash covers the payload: every reader of a damaged file
    names it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.v3 = os.path.join(TESTDATA, "narrow.nnue")  # version 3, 32 wide
        self.q, self.prov, self.id = nnue.read_net(self.v3)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def table(self, *argv):
        """chessforge-nnue table ARGV...: (exit status, stdout, stderr)."""
        with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()) as err:
            rc = nnue.main(["table", *argv])
        return rc, out.getvalue(), err.getvalue()

    def test_the_writer_writes_version_4_and_the_id_is_the_payload_s_hash(self):
        path = os.path.join(self.tmp, "v4.nnue")
        net_id = nnue.write_net(path, self.q, self.prov, self.q["mirror"], self.q["pawn_scale"])
        with open(path, "rb") as f:
            data = f.read()
        n = struct.unpack_from("<I", data, 72)[0]
        self.assertEqual(struct.unpack_from("<I", data, 4)[0], 4)
        self.assertEqual(data[40:72], hashlib.sha256(data[:40] + data[72:]).digest())
        # The same weights and table as the version 3 file: the same id.
        self.assertEqual(net_id, self.id)
        self.assertEqual(net_id, hashlib.sha256(data[76 + n:]).hexdigest()[:16])
        q, prov, read_id = nnue.read_net(path)
        self.assertEqual((prov, read_id), (self.prov, self.id))
        for k in ("w1", "b1", "w2", "b2"):
            np.testing.assert_array_equal(q[k], self.q[k])
        # The embedded network, which the Go writer wrote as version 4,
        # keeps the id records name it by.
        default = os.path.join(fixture.ROOT, "engine", "nnue", "default.nnue")
        with open(default, "rb") as f:
            self.assertEqual(struct.unpack_from("<I", f.read(8), 4)[0], 4)
        self.assertEqual(nnue.read_net(default)[2], "1e3bf8638d5e0a3e")

    def test_a_flip_anywhere_in_a_version_4_file_names_the_damaged_file(self):
        path = os.path.join(self.tmp, "v4.nnue")
        nnue.write_net(path, self.q, self.prov, self.q["mirror"], self.q["pawn_scale"])
        with open(path, "rb") as f:
            good = f.read()
        n = struct.unpack_from("<I", good, 72)[0]
        damaged = "hash does not match its contents (damaged file)"
        for what, at, bit, why in (("provenance", 76 + n // 2, 0x01, damaged),
                                   ("provenance's first byte", 76, 0x20, damaged),  # { to [: no longer an object
                                   ("provenance's last byte", 75 + n, 0x80, damaged),  # not UTF-8
                                   ("feature set", 24, 0x01, damaged),  # mirrored to plain: a valid field
                                   ("hash", 50, 0x04, damaged),
                                   ("weight", len(good) - 50, 0x01, damaged),
                                   ("quantization", 28, 0x01, "other architecture")):
            data = bytearray(good)
            data[at] ^= bit
            bad = self.write(f"flipped {what}.nnue", data)
            with self.assertRaises(ValueError) as cm:
                nnue.read_net(bad)
            self.assertIn(f"{bad}: {why}", str(cm.exception), what)
            # chessforge-nnue table: one line naming the file, exit status
            # 1; with --set nothing is written.
            rc, out, err = self.table(bad)
            self.assertEqual((rc, out), (1, ""), what)
            self.assertEqual(err.splitlines(), [f"chessforge-nnue: {str(cm.exception)}"], what)
            rc, out, err = self.table(bad, "--set", "40,50,60,70,80")
            self.assertEqual((rc, out), (1, ""), what)
            self.assertIn(f"chessforge-nnue: {bad}: {why}", err)
            with open(bad, "rb") as f:
                self.assertEqual(f.read(), data)

    def test_version_3_files_read_as_before_with_their_provenance_checked(self):
        with open(self.v3, "rb") as f:
            good = f.read()
        self.assertEqual(struct.unpack_from("<I", good, 4)[0], 3)
        self.assertEqual(self.id, "25f82e16ad4bdbdd")
        self.assertEqual(self.id, good[40:48].hex())  # the payload's hash, stored
        n = struct.unpack_from("<I", good, 72)[0]
        # The hash does not cover the provenance: a flip that keeps it JSON
        # goes unnoticed, as before; one that does not is an error naming
        # the file and the provenance.
        i = good.index(b'"seed": 1', 76) + len('"seed": ')
        kept = self.write("kept.nnue", good[:i] + b"3" + good[i + 1:])
        self.assertEqual(nnue.read_net(kept)[1]["seed"], 3)
        self.assertEqual(nnue.read_net(kept)[2], self.id)
        colon = good.index(b'":', 76) + 1
        for name, at, new, why in (("brace", 76, b"[", "provenance is not valid JSON (Expecting"),
                                   ("json", colon, b";", "provenance is not valid JSON (Expecting ':' delimiter"),
                                   ("utf8", 75 + n, b"\xfd", "provenance is not valid JSON ('utf-8' codec"),
                                   ("string", 76, b'"' + b"x" * (n - 2) + b'"', "provenance is not a JSON object")):
            data = bytearray(good)
            data[at:at + len(new)] = new
            bad = self.write(f"{name}.nnue", data)
            with self.assertRaises(ValueError) as cm:
                nnue.read_net(bad)
            self.assertIn(f"{bad}: {why}", str(cm.exception), name)
            rc, out, err = self.table(bad)
            self.assertEqual((rc, out), (1, ""), name)
            self.assertEqual(err.splitlines(), [f"chessforge-nnue: {str(cm.exception)}"], name)
        data = bytearray(good)
        data[-20] ^= 1
        bad = self.write("weight.nnue", data)
        with self.assertRaises(ValueError) as cm:
            nnue.read_net(bad)
        self.assertIn(f"{bad}: hash does not match its payload (damaged file)", str(cm.exception))
        # table --set rewrites a version 3 file as version 4, its weights kept.
        net = self.write("net.nnue", good)
        rc, out, _ = self.table(net, "--set", "58,58,91,120,128")  # the table it has: the same id
        self.assertEqual(rc, 0)
        self.assertEqual(out.splitlines()[-1], f"network {self.id}: pawn table 58 58 91 120 128")
        with open(net, "rb") as f:
            self.assertEqual(struct.unpack_from("<I", f.read(8), 4)[0], 4)


# The committed test networks and their vectors: one output, and eight
# output buckets (every bucket used by some line), plain and king-mirrored,
# and a king-mirrored one 32 wide.
COMMITTED = (("test.nnue", "vectors.txt", 1), ("buckets.nnue", "buckets-vectors.txt", 8),
             ("mirrored.nnue", "mirrored-vectors.txt", 8), ("narrow.nnue", "narrow-vectors.txt", 8))


class Vectors(unittest.TestCase):
    def test_the_committed_vectors_are_the_quantized_forward_pass(self):
        for net, vectors, buckets in COMMITTED:
            q, prov, _ = nnue.read_net(os.path.join(TESTDATA, net))
            self.assertEqual(len(q["b2"]), buckets)
            self.assertEqual(q["pawn_scale"], nnue.LEGACY_PAWN_SCALE)  # version 1 and 2 files, or trained from scratch
            with open(os.path.join(TESTDATA, vectors)) as f:
                lines = f.read().splitlines()
            self.assertGreaterEqual(len(lines), 1000)
            evals, used = set(), set()
            for line in lines:
                fen, want = line.rsplit(";", 1)
                us, them = nnue.fen_features(fen, q["mirror"])
                self.assertEqual(nnue.quantized_eval(q, us, them), int(want), fen)
                evals.add(int(want))
                used.add(nnue.bucket(len(us), buckets))
            self.assertGreater(len(evals), 100)  # the vectors tell networks apart
            self.assertTrue(any(e < 0 for e in evals) and any(e > 0 for e in evals))
            self.assertEqual(used, set(range(buckets)), net)

    def test_the_vectors_command_rewrites_the_committed_vectors(self):
        # The committed files are `chessforge-nnue vectors` on the test
        # fixture's FENs (datasets/python/README.md has the commands); a
        # change to the fixture's games means running them again.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        for net, vectors, _ in COMMITTED:
            out = os.path.join(tmp, vectors)
            run("vectors", os.path.join(TESTDATA, net), "--data", fixture.directory(), "--out", out, "-n", "1200")
            with open(out) as a, open(os.path.join(TESTDATA, vectors)) as b:
                self.assertEqual(a.read(), b.read(), vectors)


if __name__ == "__main__":
    unittest.main()
