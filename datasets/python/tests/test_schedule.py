"""Tests of the trainer's schedule by positions seen (--superbatches, the
learning-rate schedules, AdamW), its target (the side to move's result and
score) and the score scale K (--score-scale)."""

import argparse
import contextlib
import io
import json
import math
import os
import shutil
import tempfile
import unittest

import numpy as np
import torch

import fixture
from chessforge_data import nnue, nnue_train


def main(*argv):
    """chessforge-nnue in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = nnue.main(list(argv))
        except SystemExit as exit:  # argparse's errors
            rc = exit.code
    return rc, out.getvalue(), err.getvalue()


def load(path):
    return torch.load(path, map_location="cpu")


class Schedule(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.data = os.path.join(fixture.directory(), "npy")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    # About 3,700 training positions: three superbatches of 1,500 cross a
    # pass's end inside the third, and 1,500 is not a multiple of 128.
    SMALL = ("--batch-size", "128", "--seed", "3", "--shuffle-buffer", "2000", "--val-every", "5",
             "--hidden", "32", "--threads", "1", "--device", "cpu", "--superbatch-positions", "1500")

    def train(self, name, *extra, small=SMALL):
        out = os.path.join(self.tmp, name)
        rc, stdout, stderr = main("train", self.data, "--out", out, *small, *extra)
        self.assertEqual(rc, 0, stderr)
        return out

    def refused(self, name, *extra, status=2):
        """A train run with SMALL's settings that must fail: its stderr."""
        small = self.SMALL[:-2] if "--superbatches" not in extra or "--superbatch-positions" in extra else self.SMALL
        rc, _, stderr = main("train", self.data, "--out", os.path.join(self.tmp, name), *small, *extra)
        self.assertEqual(rc, status, stderr)
        return stderr.strip().splitlines()[-1]  # argparse's usage line before its error

    def assert_same(self, a, b):
        for k in a["model"]:
            self.assertTrue(torch.equal(a["model"][k], b["model"][k]), k)
        self.assertEqual(a["history"], b["history"])
        self.assertEqual(a["stream"], b["stream"])

    def test_superbatches_are_positions_whatever_the_dataset_s_size(self):
        out = self.train("sb", "--superbatches", "3")
        ck = load(os.path.join(out, "epoch-0003.pt"))
        self.assertEqual([h["positions"] for h in ck["history"]], [1500, 1500, 1500])
        self.assertEqual(ck["positions"], 4500)
        self.assertLess(ck["train_rows"], 4500)  # more than one pass: the stream cycled
        self.assertEqual(ck["stream"], {"pass": 1, "offset": 4500 - ck["train_rows"]})
        self.assertEqual([h["pass"] for h in ck["history"]], [1, 1, 2])
        self.assertEqual(ck["settings"]["superbatches"], 3)
        self.assertEqual(ck["settings"]["superbatch_positions"], 1500)
        self.assertEqual(sorted(os.listdir(out)), ["epoch-0001.pt", "epoch-0002.pt", "epoch-0003.pt", "run.json"])

    def test_superbatches_of_a_pass_train_the_epochs_network(self):
        # Superbatches one pass long are the epochs, batch for batch: the
        # same weights, losses and learning rates (--lr-gamma every one).
        small = self.SMALL[:-2]
        epochs = load(os.path.join(self.train("ep", "--epochs", "2", "--lr-gamma", "0.5", small=small),
                                   "epoch-0002.pt"))
        sb = load(os.path.join(self.train("ep-sb", "--superbatches", "2", "--superbatch-positions",
                                          str(epochs["train_rows"]), "--lr-gamma", "0.5", small=small),
                               "epoch-0002.pt"))
        for k in epochs["model"]:
            self.assertTrue(torch.equal(epochs["model"][k], sb["model"][k]), k)
        for a, b in zip(epochs["history"], sb["history"]):
            self.assertEqual({k: a[k] for k in a}, {k: b[k] for k in a})
        self.assertEqual(sb["stream"], {"pass": 1, "offset": epochs["train_rows"]})

    def test_a_stopped_and_resumed_run_is_the_uninterrupted_one(self):
        for mode in ((), ("--preload",)):
            sched = ("--superbatches", "3", "--lr-schedule", "cosine", "--lr-final-fraction", "0.1",
                     "--warmup-positions", "600", "--optimizer", "adamw", *mode)
            whole = load(os.path.join(self.train("whole" + "".join(mode), *sched), "epoch-0003.pt"))
            part = os.path.join(self.tmp, "part" + "".join(mode))
            # Stopped after superbatch 1 (a run told to stop there: the
            # same run, as --resume checks), then after 2, then finished.
            for k in (1, 2):
                shutil.rmtree(part, True)
                self.train("part" + "".join(mode), *sched)
                for j in range(k + 1, 4):
                    os.remove(os.path.join(part, f"epoch-{j:04d}.pt"))
                rc, stdout, stderr = main("train", self.data, "--out", part, *self.SMALL, *sched, "--resume")
                self.assertEqual(rc, 0, stderr)
                self.assertIn(f"resumed from {os.path.join(part, f'epoch-{k:04d}.pt')} (superbatch {k})", stdout)
                self.assert_same(whole, load(os.path.join(part, "epoch-0003.pt")))
        lrs = [(h["lr"], h["lr_end"]) for h in whole["history"]]
        self.assertLess(lrs[0][0], 1e-3 * 128 / 600 * 1.0001)  # the warm-up's first step
        self.assertGreater(lrs[0][1], lrs[1][0])
        self.assertGreater(lrs[1][1], lrs[2][0])
        self.assertGreater(lrs[2][1], 1e-4)  # the final fraction, 0.1, at the run's end
        self.assertLess(lrs[2][1], 1.02e-4)

    def test_the_learning_rate_schedules(self):
        def lr(schedule, unit, seen, batch=100, **kw):
            a = argparse.Namespace(lr=1e-3, lr_schedule=schedule, lr_gamma=kw.get("gamma"),
                                   lr_step_every=kw.get("every"), lr_final_fraction=kw.get("final"),
                                   warmup_positions=kw.get("warmup", 0), superbatches=4,
                                   superbatch_positions=1000)
            return nnue_train.schedule_lr(a, unit, seen, batch)

        self.assertEqual(lr("constant", 3, 3500), 1e-3)
        self.assertEqual([lr("step", u, 0, gamma=0.1, every=2) for u in range(4)],
                         [1e-3, 1e-3, 1e-3 * 0.1, 1e-3 * 0.1])
        self.assertEqual(lr("step", 3, 0, gamma=0.5, every=1), 1e-3 * 0.5 ** 3)  # the epochs' --lr-gamma
        self.assertEqual(lr("cosine", 0, 0, final=0.01), 1e-3)
        self.assertAlmostEqual(lr("cosine", 2, 2000, final=0.01), 1e-3 * (0.01 + 0.99 * 0.5), places=12)
        self.assertAlmostEqual(lr("cosine", 3, 4000, final=0.01), 1e-5, places=12)
        self.assertAlmostEqual(lr("constant", 0, 0, warmup=1000), 1e-4, places=12)  # (0 + 100) / 1000
        self.assertAlmostEqual(lr("constant", 0, 400, warmup=1000), 5e-4, places=12)
        self.assertEqual(lr("constant", 1, 1000, warmup=1000), 1e-3)
        # The epochs' schedule is the one it always was: lr * gamma^epoch.
        a = argparse.Namespace(lr=1e-3, lr_gamma=0.7)
        self.assertEqual(nnue.epoch_lr(a, 5), 1e-3 * 0.7 ** 5)

    def test_epochs_still_count_passes(self):
        out = self.train("epochs", "--epochs", "2", small=self.SMALL[:-2])
        ck = load(os.path.join(out, "epoch-0002.pt"))
        self.assertEqual([h["positions"] for h in ck["history"]], [ck["train_rows"]] * 2)
        self.assertEqual(ck["settings"]["superbatches"], 0)
        self.assertEqual(ck["settings"]["optimizer"], "adam")
        self.assertEqual(ck["settings"]["score_scale"], 400.0)
        self.assertNotIn("stream", ck)
        # A run by epochs is not resumed by superbatches, nor the other way.
        self.assertIn("trained with superbatches 0, resumed with 3",
                      self.refused("epochs", "--superbatches", "3", "--resume", status=1))

    def test_adamw_decays_the_weights(self):
        adam = load(os.path.join(self.train("adam", "--superbatches", "1"), "epoch-0001.pt"))
        adamw = load(os.path.join(self.train("adamw", "--superbatches", "1", "--optimizer", "adamw"), "epoch-0001.pt"))
        self.assertEqual(adamw["optimizer"]["param_groups"][0]["weight_decay"], 0.01)
        self.assertEqual(adam["optimizer"]["param_groups"][0]["weight_decay"], 0)
        self.assertFalse(torch.equal(adam["model"]["ft.weight"], adamw["model"]["ft.weight"]))
        self.assertIn("trained with optimizer 'adamw', resumed with 'adam'",
                      self.refused("adamw", "--superbatches", "2", "--resume", status=1))
        # A step schedule may train on past its superbatches; a cosine one
        # decays over the whole run, so its count is fixed.
        self.train("adamw", "--superbatches", "2", "--optimizer", "adamw", "--resume")
        self.train("cos", "--superbatches", "1", "--lr-schedule", "cosine")
        self.assertIn("trained with superbatches 1, resumed with 2",
                      self.refused("cos", "--superbatches", "2", "--lr-schedule", "cosine", "--resume", status=1))

    def test_options_that_do_not_go_together_are_usage_errors(self):
        for extra, want in (
                (("--superbatches", "2", "--epochs", "2"), "--epochs"),
                (("--superbatches", "2", "--steps", "2"), "--steps"),
                (("--lr-schedule", "cosine"), "--lr-schedule cosine needs --superbatches"),
                (("--superbatches", "2", "--lr-schedule", "cosine", "--lr-gamma", "0.5"), "--lr-gamma"),
                (("--superbatches", "2", "--lr-final-fraction", "0.1"), "--lr-final-fraction"),
                (("--superbatches", "2", "--lr-schedule", "constant", "--lr-step-every", "2"), "--lr-step-every"),
                (("--superbatches", "2", "--weight-decay", "0.1"), "--weight-decay"),
                (("--score-scale", "0"), "--score-scale"),
                (("--superbatches", "2", "--superbatch-positions", "0"), "--superbatch-positions")):
            self.assertIn(want, self.refused("bad", *extra), extra)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "bad")), extra)


class Target(unittest.TestCase):
    """The value target is the side to move's: lam * result_stm + (1 - lam)
    * sigmoid(score_stm / K), the result and the score stored from White's
    point of view (docs/format.md), whatever ended the game."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        # The fixture's export with the first shard's results and scores
        # replaced by games whose ends we know: its rows are real positions
        # (plies alternate, so each game has both sides to move).
        data = os.path.join(cls.tmp, "npy")
        shutil.copytree(os.path.join(fixture.directory(), "npy"), data)
        with open(os.path.join(data, "manifest.json")) as f:
            shard = json.load(f)["shards"][0]
        n = shard["rows"]
        result = np.full(n, 0.5, dtype=np.float32)
        score = (np.arange(n, dtype=np.int32) % 601) - 300
        # Rows 0-19 a white win by the rules (checkmate), 20-39 a black
        # win, 40-59 a draw, 60-79 a win adjudicated for Black (selfplay's
        # resignation: the game's result, 0.0, scores beyond -resign-score),
        # 80-99 an adjudicated draw (0.5), 100-119 a win adjudicated for
        # White; selfplay stores each as the result column's 1.0, 0.5 or
        # 0.0 from White (selfplay/game.go, adjudication.end).
        cls.kinds = {"white win": (0, 1.0), "black win": (20, 0.0), "draw": (40, 0.5),
                     "adjudicated black win": (60, 0.0), "adjudicated draw": (80, 0.5),
                     "adjudicated white win": (100, 1.0)}
        for lo, r in cls.kinds.values():
            result[lo:lo + 20] = r
        score[60:80] = -900 - np.arange(20)
        score[100:120] = 2000 + np.arange(20)
        score[0] = 31990  # a mate score
        np.save(os.path.join(data, shard["result"]), result)
        np.save(os.path.join(data, shard["score_cp"]), score)
        cls.data, cls.n = data, n
        cls.result, cls.score = result, score
        cls.black = np.array([f.split()[1] == "b" for f in fixture.columns()["fen"][:n]])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def rows(self, lam, scale, preload=False):
        args = argparse.Namespace(batch_size=64, shuffle_buffer=0, lam=lam, score_scale=scale, min_ply=0,
                                  max_score=0, skip_in_check=False, skip_captures=False, disagree_score=0)
        ds = nnue_train._dataset(self.data, args, 1, False)
        ds.source.units = ds.source.units[:1]
        if preload:
            ds = nnue.Preloaded(ds, torch.device("cpu"), 64, 1, shuffle=False)
        return np.concatenate([np.asarray(b["value"]) for b in ds.compact_batches()])

    def test_the_target_is_the_side_to_move_s_result_and_score(self):
        for lam, scale in ((0.0, 400.0), (0.3, 400.0), (0.3, 150.0), (1.0, 150.0)):
            for preload in (False, True):
                value = self.rows(lam, scale, preload)
                self.assertEqual(len(value), self.n)
                for kind, (lo, white_result) in self.kinds.items():
                    for i in range(lo, lo + 20):
                        stm = 0 if self.black[i] else 1  # White's result is the side to move's when White moves
                        r = white_result if stm else 1 - white_result
                        s = -self.score[i] if self.black[i] else self.score[i]
                        want = lam * r + (1 - lam) / (1 + math.exp(-s / scale))
                        self.assertAlmostEqual(float(value[i]), want, places=6, msg=(kind, i, lam, scale))
                    # Each game has rows with either side to move.
                    self.assertEqual(set(self.black[lo:lo + 20]), {False, True}, kind)
        # White won, Black to move: the result term is 0, a loss.
        i = next(i for i in range(20) if self.black[i])
        self.assertAlmostEqual(float(self.rows(1.0, 400.0)[i]), 0.0)
        self.assertAlmostEqual(float(self.rows(1.0, 400.0)[i - 1]), 1.0)

    def test_the_output_sigmoid_has_the_score_s_scale(self):
        # sigmoid(out * SCALE / K): the network's eval in centipawns over
        # K, as the target's score; at K = 400 exactly sigmoid(out).
        model = nnue.Net(hidden=32)
        batch = next(nnue.Preloaded(nnue_train._dataset(self.data, argparse.Namespace(
            batch_size=64, shuffle_buffer=0, lam=0.0, score_scale=150.0, min_ply=0, max_score=0,
            skip_in_check=False, skip_captures=False, disagree_score=0), 1, False), torch.device("cpu"), 64, 1,
            shuffle=False).compact_batches())
        x = nnue.sparse_features(nnue.piece_bits(batch["packed"]))
        with torch.no_grad():
            out = model(*x)
            for k in (400.0, 150.0):
                loss, n = nnue_train._loss(model, batch, torch.device("cpu"), False, False, k)
                want = torch.mean((torch.sigmoid(out * (400.0 / k)) - batch["value"]) ** 2)
                self.assertEqual(n, 64)
                self.assertTrue(torch.equal(loss, want) if k == 400.0 else torch.allclose(loss, want), k)
            self.assertTrue(torch.equal(nnue_train._loss(model, batch, torch.device("cpu"), False, False, 400.0)[0],
                                        torch.mean((torch.sigmoid(out) - batch["value"]) ** 2)))


class ScoreScale(unittest.TestCase):
    def test_the_scale_is_recorded_and_checked_on_resume(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        out = os.path.join(tmp, "k")
        common = ("train", os.path.join(fixture.directory(), "npy"), "--out", out, "--batch-size", "128",
                  "--steps", "4", "--val-every", "5", "--hidden", "32", "--threads", "1")
        rc, _, err = main(*common, "--epochs", "1", "--score-scale", "150", "--lambda", "0.3")
        self.assertEqual(rc, 0, err)
        ck = load(os.path.join(out, "epoch-0001.pt"))
        self.assertEqual(ck["settings"]["score_scale"], 150.0)
        with open(os.path.join(out, "run.json")) as f:
            self.assertEqual(json.load(f)["settings"]["score_scale"], 150.0)
        net = os.path.join(tmp, "k.nnue")
        rc, _, err = main("export", os.path.join(out, "epoch-0001.pt"), "--out", net)
        self.assertEqual(rc, 0, err)
        self.assertEqual(nnue.read_net(net)[1]["score_scale"], 150.0)
        rc, _, err = main(*common, "--epochs", "2", "--lambda", "0.3", "--resume")
        self.assertEqual(rc, 1)
        self.assertIn("trained with score_scale 150.0, resumed with 400.0", err)
        self.assertFalse(os.path.exists(os.path.join(out, "epoch-0002.pt")))
        # A checkpoint from before the option trained at 400.
        ck["settings"].pop("score_scale")
        torch.save(ck, os.path.join(tmp, "old.pt"))
        rc, _, err = main("export", os.path.join(tmp, "old.pt"), "--out", os.path.join(tmp, "old.nnue"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(nnue.read_net(os.path.join(tmp, "old.nnue"))[1]["score_scale"], 400.0)


if __name__ == "__main__":
    unittest.main()
