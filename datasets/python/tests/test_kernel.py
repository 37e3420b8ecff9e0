"""The CPU trainer's compiled path (chessforge_data.nnue_kernel) against
the reference network and torch's optimisers: the same outputs and
gradients up to float rounding, the same bits at any number of threads,
Adam and AdamW steps as torch takes them, and the torch path where no
compiler is found."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch

import fixture
from chessforge_data import ChessDataset, nnue_kernel, nnue_model, nnue_sparse

HAVE_CC = shutil.which((os.environ.get("CC") or "cc").split()[0]) is not None


def batch(n=700):
    ds = ChessDataset(os.path.join(fixture.directory(), "npy"), batch_size=n, side_to_move=True,
                      value_target="blend", blend=0.0, score_scale=400.0)
    return next(iter(ds.compact_batches()))


def reference(model, packed, mirror):
    return model(*nnue_model.sparse_features(nnue_model.piece_bits(packed), mirror))


def run(code, **env):
    """Python code in a fresh interpreter with env added; its stdout."""
    e = dict(os.environ, PYTHONPATH=os.path.join(fixture.ROOT, "datasets", "python"), **env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, check=True).stdout


@unittest.skipUnless(HAVE_CC, "no C compiler: the trainer takes torch's path")
class Compiled(unittest.TestCase):
    def setUp(self):
        self.assertIsNotNone(nnue_kernel.load(), nnue_kernel.why_not())
        self.threads = torch.get_num_threads()

    def tearDown(self):
        torch.set_num_threads(self.threads)

    def test_output_and_gradients_are_the_reference_ones(self):
        rows = batch()
        value = torch.from_numpy(rows["value"])
        # Widths of whole 64-column blocks and of a part block (48, 80).
        for hidden, buckets, mirror in ((256, 8, True), (256, 1, False), (48, 4, True), (80, 1, True)):
            torch.manual_seed(hidden + buckets)
            ref = nnue_model.Net(init_scale=3.0, buckets=buckets, hidden=hidden)
            fast = nnue_model.Net(buckets=buckets, hidden=hidden)
            fast.load_state_dict(ref.state_dict())
            outs = []
            for model, out in ((ref, lambda m: reference(m, rows["packed"], mirror)),
                               (fast, lambda m: nnue_kernel.forward(m, rows["packed"], mirror))):
                o = out(model)
                torch.mean((torch.sigmoid(o) - value) ** 2).backward()
                outs.append(o.detach())
            where = f"hidden {hidden}, {buckets} buckets, mirror {mirror}"
            torch.testing.assert_close(outs[1], outs[0], rtol=1e-5, atol=1e-6, msg=lambda m: f"{where}: {m}")
            fixture.assert_same_gradients(self, ref, fast, where)

    def test_the_accumulators_are_the_torch_paths_bit_for_bit(self):
        # The same rows summed in the same order, then b1: the same floats.
        rows = batch(300)
        torch.manual_seed(5)
        model = nnue_model.Net(init_scale=3.0, buckets=8)
        f = nnue_sparse.features(rows["packed"], True)
        want = torch.nn.functional.embedding_bag(f.idx, model.ft.weight.detach(), f.off, mode="sum")
        want = want.view(-1, 2, 256).add_(model.b1.detach()).view(-1, 512)
        out = nnue_kernel.forward(model, rows["packed"], True)
        acc = out.grad_fn.saved_tensors[1]
        self.assertTrue(torch.equal(acc, want))

    def test_the_gradient_at_the_ends_of_the_clamp(self):
        rows = batch(20)
        value = torch.from_numpy(rows["value"])
        ends = [-0.5, 0.0, 0.5, 1.0, float(np.nextafter(np.float32(1), np.float32(2))), 1.5]
        models = [nnue_model.Net(), nnue_model.Net()]
        with torch.no_grad():
            models[0].ft.weight.zero_()
            models[0].b1.copy_(torch.tensor(ends * 43)[:256])
        models[1].load_state_dict(models[0].state_dict())
        torch.mean((torch.sigmoid(reference(models[0], rows["packed"], False)) - value) ** 2).backward()
        torch.mean((torch.sigmoid(nnue_kernel.forward(models[1], rows["packed"])) - value) ** 2).backward()
        for p, q in zip(models[0].parameters(), models[1].parameters()):
            torch.testing.assert_close(q.grad, p.grad, rtol=1e-6, atol=1e-9)
        self.assertEqual((models[1].b1.grad != 0).tolist(), [0.0 < e <= 1.0 for e in ends * 43][:256])

    def test_the_same_bits_at_any_number_of_threads(self):
        rows = batch()
        g = torch.randn(len(rows["value"]), generator=torch.Generator().manual_seed(1))
        torch.manual_seed(2)
        model = nnue_model.Net(init_scale=3.0, buckets=8, hidden=80)
        results = []
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            out = nnue_kernel.forward(model, rows["packed"], True)
            results.append([out.detach()] + list(torch.autograd.grad(out, list(model.parameters()), g)))
        for other in results[1:]:
            for a, b in zip(results[0], other):
                self.assertTrue(torch.equal(a, b))

    def test_the_fused_step_is_autograds_through_the_forward(self):
        # 700 rows: two whole tiles of 256 and a part one.
        rows = batch()
        value = torch.from_numpy(rows["value"])
        for hidden, buckets, mirror, scale in ((256, 8, True, 400 / 209), (48, 4, True, 1.0), (80, 1, False, 1.0)):
            torch.manual_seed(hidden)
            ref = nnue_model.Net(init_scale=3.0, buckets=buckets, hidden=hidden)
            fast = nnue_model.Net(buckets=buckets, hidden=hidden)
            fast.load_state_dict(ref.state_dict())
            out = nnue_kernel.forward(ref, rows["packed"], mirror) * scale
            want = torch.mean((torch.sigmoid(out) - value) ** 2)
            want.backward()
            where = f"hidden {hidden}, {buckets} buckets, mirror {mirror}, scale {scale:.3f}"
            grads, bits = None, []
            for threads in (1, 2, 3):
                torch.set_num_threads(threads)
                loss = nnue_kernel.train_step(fast, rows["packed"], rows["value"], mirror, scale)
                self.assertAlmostEqual(loss, want.item(), delta=1e-6 * want.item(), msg=where)
                fixture.assert_same_gradients(self, ref, fast, where)
                if grads is None:  # written in place from the second step on
                    grads = [p.grad for p in fast.parameters()]
                self.assertTrue(all(p.grad is g for p, g in zip(fast.parameters(), grads)), where)
                bits.append([loss] + [p.grad.clone() for p in fast.parameters()])
            for other in bits[1:]:  # the same bits at any number of threads
                self.assertEqual(other[0], bits[0][0], where)
                for a, b in zip(bits[0][1:], other[1:]):
                    self.assertTrue(torch.equal(a, b), where)

    def test_the_fused_step_is_the_same_at_any_tile(self):
        rows = batch()
        torch.manual_seed(4)
        model = nnue_model.Net(init_scale=3.0, buckets=8)
        results, was = [], nnue_kernel.TILE
        try:
            for tile in (was, 64, 1000):
                nnue_kernel.TILE = tile
                nnue_kernel._scratch.clear()
                loss = nnue_kernel.train_step(model, rows["packed"], rows["value"], True)
                results.append([loss] + [p.grad.clone() for p in model.parameters()])
        finally:
            nnue_kernel.TILE = was
            nnue_kernel._scratch.clear()
        for other in results[1:]:
            self.assertEqual(other[0], results[0][0])
            for a, b in zip(results[0][1:], other[1:]):
                self.assertTrue(torch.equal(a, b))

    def test_the_fused_step_names_a_bad_row_and_a_bad_value(self):
        rows = np.zeros((300, 12, 8), dtype=np.uint8)
        rows[:, 5, 0], rows[:, 11, 7] = 0x80, 0x01  # kings on a1 and h8
        rows[290, 0, 1:7] = 0xFF  # 48 pawns, in the second tile
        with self.assertRaisesRegex(ValueError, "row 290 of the batch has more than 32 pieces"):
            nnue_kernel.train_step(nnue_model.Net(), rows, np.zeros(300, dtype=np.float32))
        with self.assertRaisesRegex(ValueError, r"300 rows and values of shape \[299\]"):
            nnue_kernel.train_step(nnue_model.Net(), rows, np.zeros(299, dtype=np.float32))

    def test_adam_and_adamw_step_as_torch_does(self):
        rows = batch(256)
        value = torch.from_numpy(rows["value"])
        for compiled, plain, kw in ((nnue_kernel.Adam, torch.optim.Adam, {}),
                                    (nnue_kernel.Adam, torch.optim.Adam, {"weight_decay": 0.01}),
                                    (nnue_kernel.AdamW, torch.optim.AdamW, {"weight_decay": 0.01})):
            torch.manual_seed(3)
            a, b = nnue_model.Net(buckets=4), nnue_model.Net(buckets=4)
            b.load_state_dict(a.state_dict())
            opts = compiled(a.parameters(), lr=1e-3, **kw), plain(b.parameters(), lr=1e-3, **kw)
            for _ in range(25):
                for model, opt in zip((a, b), opts):
                    opt.zero_grad(set_to_none=True)
                    torch.mean((torch.sigmoid(nnue_kernel.forward(model, rows["packed"])) - value) ** 2).backward()
                    opt.step()
            for p, q in zip(a.parameters(), b.parameters()):
                torch.testing.assert_close(p, q, rtol=0, atol=1e-6, msg=lambda m: f"{compiled.__name__} {kw}: {m}")
            # The state is torch's: either optimiser resumes the other's.
            state = opts[0].state_dict()
            self.assertEqual(sorted(state["state"][0]), ["exp_avg", "exp_avg_sq", "step"])
            opts[1].load_state_dict(state)
            self.assertEqual(opts[1].state_dict()["state"][0]["step"].item(), 25)

    def test_an_empty_batch_and_rows_too_short(self):
        out = nnue_kernel.forward(nnue_model.Net(), np.zeros((0, 13, 8), dtype=np.uint8))
        self.assertEqual(out.shape, (0,))
        for shape in ((4, 11, 8), (4, 12, 9), (4, 95)):
            with self.assertRaisesRegex(ValueError, r"compact rows must be uint8 \[B, >=12, 8\], not uint8 "):
                nnue_kernel.forward(nnue_model.Net(), np.zeros(shape, dtype=np.uint8))
        self.assertEqual(nnue_kernel.forward(nnue_model.Net(), np.zeros((4, 96), dtype=np.uint8)).shape, (4,))

    def test_a_row_with_too_many_pieces_is_named(self):
        rows = np.zeros((3, 12, 8), dtype=np.uint8)
        rows[:, 5, 0], rows[:, 11, 7] = 0x80, 0x01  # kings on a1 and h8
        rows[2, 0, 1:7] = 0xFF  # 48 pawns
        with self.assertRaisesRegex(ValueError, "row 2 of the batch has more than 32 pieces"):
            nnue_kernel.forward(nnue_model.Net(), rows)


class Fallback(unittest.TestCase):
    code = ("from chessforge_data import nnue_kernel as k; import sys; "
            "print(k.load() is None, k.why_not())")

    def test_no_compiler_takes_torchs_path_and_says_why(self):
        self.assertEqual(run(self.code, CC="/nonexistent/cc").strip(),
                         "True no C compiler (/nonexistent/cc) found")
        self.assertEqual(run(self.code, CHESSFORGE_KERNEL="torch").strip(), "True CHESSFORGE_KERNEL=torch")
        code = ("from chessforge_data import nnue_kernel as k\ntry:\n    k.load()\nexcept ValueError as e:\n"
                "    print(e)")
        self.assertEqual(run(code, CHESSFORGE_KERNEL="off").strip(),
                         "CHESSFORGE_KERNEL=off: want torch (torch's path) or nothing (the compiled kernel)")

    @unittest.skipUnless(HAVE_CC, "no C compiler")
    def test_a_failed_build_takes_torchs_path_and_leaves_no_library(self):
        with tempfile.TemporaryDirectory() as cache:
            out = run(self.code, CC=shutil.which("cc") + " -DNNUE_KERNEL_BROKEN=1 -include /nonexistent.h",
                      CHESSFORGE_CACHE=cache).strip()
            self.assertTrue(out.startswith("True ") and "failed building" in out and "nonexistent.h" in out, out)
            self.assertEqual(os.listdir(cache), [])

    @unittest.skipUnless(HAVE_CC, "no C compiler")
    def test_the_library_is_built_once_into_the_cache(self):
        with tempfile.TemporaryDirectory() as cache:
            code = "from chessforge_data import nnue_kernel as k; print(k.load() is not None)"
            self.assertEqual(run(code, CHESSFORGE_CACHE=cache).strip(), "True")
            built = os.listdir(cache)
            self.assertEqual(len(built), 1)
            self.assertRegex(built[0], r"^nnue_kernel-[0-9a-f]{16}\.so$")
            when = os.stat(os.path.join(cache, built[0])).st_mtime_ns
            self.assertEqual(run(code, CHESSFORGE_CACHE=cache).strip(), "True")
            self.assertEqual(os.listdir(cache), built)
            self.assertEqual(os.stat(os.path.join(cache, built[0])).st_mtime_ns, when)
            with open(os.path.join(cache, built[0]), "wb") as f:  # damaged: built again
                f.write(b"not a library")
            self.assertEqual(run(code, CHESSFORGE_CACHE=cache).strip(), "True")
            self.assertEqual(os.listdir(cache), built)
            with open(os.path.join(cache, built[0]), "rb") as f:
                self.assertEqual(f.read(4), b"\x7fELF")


class Trainer(unittest.TestCase):
    @unittest.skipUnless(HAVE_CC and hasattr(os, "sched_getaffinity"), "no C compiler")
    def test_threads_0_leaves_the_reader_a_core(self):
        from chessforge_data import nnue_train
        seen, was_train, was_threads = [], nnue_train._train, torch.get_num_threads()
        nnue_train._train = lambda args, device: seen.append(torch.get_num_threads())
        try:
            for threads, inputs in ((0, "auto"), (3, "auto"), (0, "dense")):
                torch.set_num_threads(5)
                nnue_train.train(argparse.Namespace(threads=threads, device="cpu", inputs=inputs))
        finally:
            nnue_train._train = was_train
            torch.set_num_threads(was_threads)
        self.assertEqual(seen, [max(1, len(os.sched_getaffinity(0)) - 1), 3, 5])

    def train(self, out, **env):
        args = [sys.executable, "-m", "chessforge_data.nnue", "train", os.path.join(fixture.directory(), "npy"),
                "--out", out, "--epochs", "2", "--batch-size", "256", "--buckets", "8", "--mirror",
                "--optimizer", "adamw", "--weight-decay", "0.01", "--threads", "1", "--progress", "0"]
        done = subprocess.run(args, capture_output=True, text=True, timeout=600, env=dict(os.environ, **env))
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout, torch.load(os.path.join(out, "epoch-0002.pt"), map_location="cpu")

    @unittest.skipUnless(HAVE_CC, "no C compiler")
    def test_both_paths_train_the_same_network_up_to_rounding(self):
        with tempfile.TemporaryDirectory() as d:
            said, compiled = self.train(os.path.join(d, "c"))
            self.assertIn("on cpu (compiled kernel)", said)
            said, again = self.train(os.path.join(d, "again"))
            said_torch, plain = self.train(os.path.join(d, "t"), CHESSFORGE_KERNEL="torch")
            self.assertIn("on cpu (torch's path: CHESSFORGE_KERNEL=torch)", said_torch)
        for k, v in compiled["model"].items():
            self.assertTrue(torch.equal(v, again["model"][k]), k)  # the same seed: the same bits
            torch.testing.assert_close(v, plain["model"][k], rtol=0, atol=2e-3, msg=lambda m: f"{k}: {m}")
        for a, b in zip(compiled["history"], plain["history"]):
            self.assertAlmostEqual(a["val_loss"], b["val_loss"], delta=1e-4)


if __name__ == "__main__":
    unittest.main()
