"""The CPU trainer's torch path (chessforge_data.nnue_sparse) against the
reference network: the same features, the same outputs and the same
gradients of every parameter, for plain and king-mirrored features, one
and several output buckets."""

import os
import subprocess
import sys
import threading
import unittest

import numpy as np
import torch

import fixture
from chessforge_data import ChessDataset, nnue_model, nnue_sparse


def batches(batch_size=300):
    ds = ChessDataset(os.path.join(fixture.directory(), "npy"), batch_size=batch_size, side_to_move=True,
                      value_target="blend", blend=0.0, score_scale=400.0)
    return list(ds.compact_batches())


def bags(idx, off):
    """An EmbeddingBag input's lists, each sorted."""
    ends = off[1:].tolist() + [len(idx)]
    return [sorted(idx[lo:hi].tolist()) for lo, hi in zip(off.tolist(), ends)]


class FastPath(unittest.TestCase):
    def test_features_are_the_reference_features(self):
        for mirror in (False, True):
            for rows in batches():
                us, us_off, them, them_off = nnue_model.sparse_features(nnue_model.piece_bits(rows["packed"]), mirror)
                f = nnue_sparse.features(rows["packed"], mirror)
                got = bags(f.idx, f.off)
                self.assertEqual(got[0::2], bags(us, us_off))
                self.assertEqual(got[1::2], bags(them, them_off))
                self.assertEqual(f.pieces.tolist(), torch.diff(us_off, append=torch.tensor([len(us)])).tolist())
                # The same pairs by feature: feature f's bags hold f.
                ends = f.t_off[1:].tolist() + [len(f.t_bag)]
                pairs = sorted((feat, int(b)) for feat, (lo, hi) in enumerate(zip(f.t_off.tolist(), ends))
                               for b in f.t_bag[lo:hi])
                want = sorted((int(feat), b) for b, fs in enumerate(got) for feat in fs)
                self.assertEqual(pairs, want)

    def test_output_and_gradients_are_the_reference_ones(self):
        rows = batches(700)[0]
        value = torch.from_numpy(rows["value"])
        for mirror in (False, True):
            for buckets in (1, 8):
                # init_scale 3: accumulators on both sides of the clamp.
                torch.manual_seed(buckets)
                ref = nnue_model.Net(init_scale=3.0, buckets=buckets)
                fast = nnue_model.Net(init_scale=3.0, buckets=buckets)
                fast.load_state_dict(ref.state_dict())
                acc = ref.ft(*nnue_model.sparse_features(nnue_model.piece_bits(rows["packed"]), mirror)[:2])
                acc = acc + ref.b1
                self.assertTrue(((acc < 0).any() and (acc > 1).any()).item())
                outs = []
                for model, out in (
                        (ref, lambda m: m(*nnue_model.sparse_features(nnue_model.piece_bits(rows["packed"]), mirror))),
                        (fast, lambda m: nnue_sparse.forward(m, nnue_sparse.features(rows["packed"], mirror)))):
                    o = out(model)
                    torch.mean((torch.sigmoid(o) - value) ** 2).backward()
                    outs.append(o.detach())
                torch.testing.assert_close(outs[1], outs[0], rtol=1e-5, atol=1e-6)
                fixture.assert_same_gradients(self, ref, fast, f"mirror {mirror}, {buckets} buckets")

    def test_the_gradient_at_the_ends_of_the_clamp(self):
        # Accumulators exactly 0, 1 and the float after 1: autograd's clamp
        # passes the gradient at 0 and 1, not beyond.
        rows = batches(20)[0]
        value = torch.from_numpy(rows["value"])
        ends = [-0.5, 0.0, 0.5, 1.0, float(np.nextafter(np.float32(1), np.float32(2))), 1.5]
        models = [nnue_model.Net(), nnue_model.Net()]
        with torch.no_grad():
            models[0].ft.weight.zero_()
            models[0].b1.copy_(torch.tensor(ends * 43)[:256])
        models[1].load_state_dict(models[0].state_dict())
        out = models[0](*nnue_model.sparse_features(nnue_model.piece_bits(rows["packed"])))
        torch.mean((torch.sigmoid(out) - value) ** 2).backward()
        out = nnue_sparse.forward(models[1], nnue_sparse.features(rows["packed"]))
        torch.mean((torch.sigmoid(out) - value) ** 2).backward()
        for p, q in zip(models[0].parameters(), models[1].parameters()):
            torch.testing.assert_close(q.grad, p.grad, rtol=1e-6, atol=1e-9)
        self.assertEqual((models[1].b1.grad != 0).tolist(), [0.0 < e <= 1.0 for e in ends * 43][:256])

    def test_no_gradient_without_it(self):
        rows = batches(50)[0]
        model = nnue_model.Net()
        with torch.no_grad():
            out = nnue_sparse.forward(model, nnue_sparse.features(rows["packed"]))
        self.assertFalse(out.requires_grad)
        self.assertEqual(out.shape, (50,))


class Threads(unittest.TestCase):
    def test_openblas_and_openmp_threads_unless_the_environment_says(self):
        path = os.path.join(fixture.ROOT, "datasets", "python")
        for name, default, other in (("OPENBLAS_NUM_THREADS", "1", "3"), ("OMP_WAIT_POLICY", "PASSIVE", "ACTIVE")):
            code = f"import os, chessforge_data; print(os.environ['{name}'])"
            for given, want in ((None, default), (other, other)):
                env = {k: v for k, v in os.environ.items() if k != name}
                env["PYTHONPATH"] = path
                if given:
                    env[name] = given
                out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
                self.assertEqual(out.stdout.strip(), want, name)


class Ahead(unittest.TestCase):
    def test_the_same_batches_in_order_with_their_features(self):
        want = batches(100)
        got = list(nnue_sparse.ahead(iter(want), mirror=True))
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g["packed"], w["packed"])
            f = nnue_sparse.features(w["packed"], True)
            for a, b in zip(g["features"], f):
                self.assertTrue(torch.equal(a, b))

    def test_an_error_of_the_reader_is_raised_to_the_caller(self):
        def failing():
            yield batches(10)[0]
            raise OSError("shard 3: truncated")
        it = nnue_sparse.ahead(failing())
        next(it)
        with self.assertRaisesRegex(OSError, "shard 3: truncated"):
            next(it)

    def test_a_caller_that_stops_early_stops_the_reader(self):
        read = []

        def endless():
            rows = batches(10)[0]
            while True:
                read.append(1)
                yield rows
        it = nnue_sparse.ahead(endless(), depth=2)
        next(it)
        it.close()  # returns: the reader thread has stopped
        n = len(read)
        self.assertLessEqual(n, 5)
        threading.Event().wait(0.2)
        self.assertEqual(len(read), n)


if __name__ == "__main__":
    unittest.main()
