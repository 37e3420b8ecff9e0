"""The commands as a user runs them, each a real process: a mistake ends in
one line naming the file or option (exit 2 for a usage error, 1 for failed
work), never a traceback, and leaves what was there as it was; the
trainer refuses a directory of another run's checkpoints unless --resume
(the same run only) or --force; an output is locked while it is written
(issue 63)."""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import torch

import fixture

# A tiny, quick training run.
QUICK = ("--batch-size", "64", "--steps", "2", "--hidden", "16", "--threads", "1", "--shuffle-buffer", "500",
         "--progress", "0", "--val-every", "5")
NETWORK = os.path.join(fixture.ROOT, "engine", "nnue", "testdata", "test.nnue")


def command(module, *argv, cwd=None):
    """python -m chessforge_data.MODULE ARGV, run to its end."""
    return subprocess.run([sys.executable, "-m", f"chessforge_data.{module}", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


def tree(path):
    """Every file under path (or the file path itself) and its hash: what
    must not change."""
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return {"": hashlib.sha256(f.read()).hexdigest()}
    out = {}
    for root, _, files in os.walk(path):
        for name in files:
            p = os.path.join(root, name)
            with open(p, "rb") as f:
                out[os.path.relpath(p, path)] = hashlib.sha256(f.read()).hexdigest()
    return out


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="chessforge-errors-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.data = os.path.join(fixture.directory(), "npy")

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    def train(self, out, *argv, data=None):
        return command("nnue", "train", data or self.data, "--out", out, *QUICK, *argv)

    def trained(self, out, *argv):
        r = self.train(out, *argv)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def refused(self, r, status, *want):
        """r ended with exit status and one line of stderr holding each of
        want, without a traceback; that line."""
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.returncode, status, r.stderr)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        for w in want:
            self.assertIn(w, lines[0])
        return lines[0]

    def usage(self, r, *want):
        """r refused by argparse: exit 2, its last line naming each of want."""
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.returncode, 2, r.stderr)
        last = r.stderr.strip().splitlines()[-1]
        for w in want:
            self.assertIn(w, last)
        return last


def strip_run_ids(out):
    """Make out's checkpoints those of a trainer before run ids."""
    for name in os.listdir(out):
        p = os.path.join(out, name)
        if name.endswith(".pt"):
            ck = torch.load(p)
            del ck["run_id"]
            torch.save(ck, p)
        elif name == "run.json":
            os.remove(p)


class Runs(Case):
    def test_a_directory_of_another_run_is_refused(self):
        out = self.path("ck")
        self.trained(out, "--epochs", "2")
        before = tree(out)
        line = self.refused(self.train(out, "--epochs", "1", "--seed", "2"), 2, out, "epoch-0001.pt to epoch-0002.pt",
                            "--resume", "--force")
        self.assertIn("seed 1", line)
        self.assertEqual(tree(out), before)

    def test_resume_continues_the_same_run_only(self):
        out, other = self.path("ck"), self.path("other")
        self.trained(out, "--epochs", "1")
        self.trained(out, "--epochs", "2", "--resume")
        first, second = torch.load(os.path.join(out, "epoch-0001.pt")), torch.load(os.path.join(out, "epoch-0002.pt"))
        self.assertTrue(first["run_id"])
        self.assertEqual(first["run_id"], second["run_id"])
        with open(os.path.join(out, "run.json")) as f:
            self.assertIn(first["run_id"], f.read())
        # Another run's checkpoint, newest of the directory: refused by name.
        self.trained(other, "--epochs", "1")
        shutil.copy(os.path.join(other, "epoch-0001.pt"), os.path.join(out, "epoch-0003.pt"))
        before = tree(out)
        self.refused(self.train(out, "--epochs", "4", "--resume"), 2, out, "mixes runs", "epoch-0003.pt",
                     "epoch-0001.pt to epoch-0002.pt")
        self.assertEqual(tree(out), before)
        # And among the older ones.
        os.remove(os.path.join(out, "epoch-0003.pt"))
        shutil.copy(os.path.join(other, "epoch-0001.pt"), os.path.join(out, "epoch-0001.pt"))
        self.refused(self.train(out, "--epochs", "4", "--resume"), 2, "mixes runs")
        self.assertFalse(os.path.exists(os.path.join(out, "epoch-0003.pt")))

    def test_older_checkpoints_resume_when_they_are_one_run(self):
        out, other = self.path("ck"), self.path("other")
        self.trained(out, "--epochs", "2")
        self.trained(other, "--epochs", "1", "--seed", "4")
        strip_run_ids(out)
        strip_run_ids(other)
        mixed = self.path("mixed")
        shutil.copytree(out, mixed)
        shutil.copy(os.path.join(other, "epoch-0001.pt"), os.path.join(mixed, "epoch-0001.pt"))
        self.refused(self.train(out, "--epochs", "3"), 2, out, "--resume")
        self.trained(out, "--epochs", "3", "--resume")
        self.assertIsNone(torch.load(os.path.join(out, "epoch-0003.pt"))["run_id"])
        # Two runs without ids, told apart by their losses.
        before = tree(mixed)
        self.refused(self.train(mixed, "--epochs", "3", "--resume"), 2, "epoch-0001.pt", "mixes runs")
        self.assertEqual(tree(mixed), before)

    def test_force_replaces_the_run_once_the_new_one_has_a_checkpoint(self):
        out = self.path("ck")
        self.trained(out, "--epochs", "3")
        old = torch.load(os.path.join(out, "epoch-0001.pt"))["run_id"]
        before = tree(out)
        # A new run that fails in its first epoch (a damaged shard) leaves
        # the old one as it was.
        broken = self.path("broken")
        shutil.copytree(self.data, broken)
        for name in os.listdir(broken):
            if name.endswith(".npy") and "planes" in name:
                with open(os.path.join(broken, name), "r+b") as f:
                    f.truncate(200)
        r = self.train(out, "--epochs", "1", "--seed", "2", "--force", data=broken)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(tree(out), before)
        # A new directory is made only for the first checkpoint.
        fresh = self.path("new", "ck")
        self.assertEqual(self.train(fresh, "--epochs", "1", data=broken).returncode, 1)
        self.assertFalse(os.path.exists(self.path("new")))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["broken", "ck"])
        r = self.trained(out, "--epochs", "1", "--seed", "2", "--force")
        self.assertIn("--force", r.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["epoch-0001.pt", "run.json"])
        new = torch.load(os.path.join(out, "epoch-0001.pt"))["run_id"]
        self.assertNotEqual(new, old)
        with open(os.path.join(out, "run.json")) as f:
            self.assertIn(new, f.read())
        self.usage(self.train(out, "--epochs", "1", "--force", "--resume"), "--resume")


class Errors(Case):
    def test_a_network_file_is_not_a_checkpoint(self):
        out = self.path("x.nnue")
        self.refused(command("nnue", "export", NETWORK, "--out", out), 1, NETWORK,
                     "is a network file, not a checkpoint")
        self.assertFalse(os.path.exists(out))

    def test_an_empty_or_truncated_checkpoint_is_named(self):
        out = self.path("ck")
        self.trained(out, "--epochs", "1")
        with open(os.path.join(out, "epoch-0001.pt"), "rb") as f:
            whole = f.read()
        for name, content in (("empty.pt", b""), ("cut.pt", whole[:len(whole) // 2])):
            bad = self.path(name)
            with open(bad, "wb") as f:
                f.write(content)
            with self.subTest(name):
                self.refused(self.train(self.path("new"), "--init", bad), 1, bad)
                self.assertFalse(os.path.exists(self.path("new")))
                self.refused(command("nnue", "export", bad, "--out", self.path("n.nnue")), 1, bad)
                self.assertFalse(os.path.exists(self.path("n.nnue")))
                resumed = self.path("resumed-" + name)
                os.mkdir(resumed)
                shutil.copy(bad, os.path.join(resumed, "epoch-0001.pt"))
                self.refused(self.train(resumed, "--epochs", "2", "--resume"), 1,
                             os.path.join(resumed, "epoch-0001.pt"))
                self.assertEqual(os.listdir(resumed), ["epoch-0001.pt"])

    def test_devices_are_checked_before_any_work(self):
        out = self.path("ck")
        bad = ["xyz", "cuda:99"]
        if not torch.cuda.is_available():
            bad.append("cuda")
        for device in bad:
            with self.subTest(device):
                self.usage(self.train(out, "--device", device), "--device", device)
                self.assertFalse(os.path.exists(out))

    def test_a_missing_dataset_is_named(self):
        missing = self.path("nonexistent")
        for argv in (("train", missing), ("bench", missing), ("nnue", "train", missing, "--out", self.path("ck"))):
            with self.subTest(argv[0]):
                line = self.refused(command(*argv, cwd=self.tmp), 1, f"{missing}: no such file or directory")
                self.assertNotIn("pyarrow", line)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_a_directory_without_its_manifest_is_not_an_export(self):
        d = self.path("half")
        shutil.copytree(self.data, d)
        os.remove(os.path.join(d, "manifest.json"))
        for argv in (("nnue", "train", d, "--out", self.path("ck")), ("bench", d), ("train", d)):
            with self.subTest(argv[0]):
                line = self.refused(command(*argv, cwd=self.tmp), 1, f"{d} has no manifest.json: not a NumPy export",
                                    "bin/dataset export -format npy")
                self.assertNotIn("pyarrow", line)
        self.assertFalse(os.path.exists(self.path("ck")))

    def test_parquet_without_pyarrow_says_so(self):
        try:
            import pyarrow  # noqa: F401
            self.skipTest("pyarrow is installed")
        except ImportError:
            pass
        parquet = os.path.join(fixture.directory(), "data", "part-0.parquet")
        self.refused(command("nnue", "train", parquet, "--out", self.path("ck")), 1, parquet, "needs pyarrow")
        self.assertFalse(os.path.exists(self.path("ck")))

    def test_a_truncated_shard_is_named(self):
        d = self.path("npy")
        shutil.copytree(self.data, d)
        shard = sorted(n for n in os.listdir(d) if n.endswith(".npy") and "planes" in n)[0]
        with open(os.path.join(d, shard), "r+b") as f:
            f.truncate(300)
        self.refused(command("bench", d, "--epochs", "1"), 1, os.path.join(d, shard))

    def test_ranges_are_checked_before_any_work(self):
        out = self.path("ck")
        for option, value in (("--lambda", "2"), ("--lambda", "-0.5"), ("--epochs", "0"), ("--lr", "-1"),
                              ("--lr", "nan"), ("--batch-size", "0"), ("--lr-gamma", "-1"), ("--seed", "-1"),
                              ("--steps", "-1"), ("--init-scale", "0"), ("--val-every", "-2")):
            with self.subTest(option=option, value=value):
                self.usage(self.train(out, option, value), option, value)
                self.assertFalse(os.path.exists(out))
        for argv in (("train", self.data, "--epochs", "0"), ("train", self.data, "--batch-size", "0"),
                     ("bench", self.data, "--epochs", "0"), ("bench", self.data, "--threads", "0")):
            with self.subTest(argv=argv):
                self.usage(command(*argv, cwd=self.tmp), argv[2])
        self.assertEqual(os.listdir(self.tmp), [])

    def test_an_output_that_is_an_input_is_refused(self):
        out = self.path("ck")
        self.trained(out, "--epochs", "1")
        ck = os.path.join(out, "epoch-0001.pt")
        before = tree(out)
        for spelling in (ck, os.path.join(out, ".", "epoch-0001.pt")):
            self.refused(command("nnue", "export", ck, "--out", spelling), 2, spelling)
        os.symlink(ck, self.path("link.nnue"))
        self.refused(command("nnue", "export", ck, "--out", self.path("link.nnue")), 2, "link.nnue")
        self.assertEqual(tree(out), before)
        data = self.path("npy")
        shutil.copytree(self.data, data)
        before = tree(data)
        self.refused(self.train(data, "--epochs", "1", data=data), 2, data)
        self.refused(self.train(os.path.join(data, "."), "--epochs", "1", "--val", data), 2, data)
        parquet = self.path("a.parquet")
        shutil.copy(os.path.join(fixture.directory(), "data", "part-0.parquet"), parquet)
        parquet_before = tree(parquet)
        self.refused(command("train", parquet, "--out", parquet, cwd=self.tmp), 2, parquet)
        self.refused(command("train", data, "--out", data, cwd=self.tmp), 2, data)
        self.assertEqual(tree(data), before)
        self.assertEqual(tree(parquet), parquet_before)
        fens = self.path("fen.txt")
        shutil.copy(os.path.join(fixture.directory(), "fen.txt"), fens)
        fens_before = tree(fens)
        self.refused(command("nnue", "vectors", NETWORK, "--data", fens, "--out", fens), 2, fens)
        self.assertEqual(tree(fens), fens_before)

    def test_failed_vectors_keep_the_earlier_file(self):
        # The second position is no FEN: found while the file is written.
        fens = self.path("fen.txt")
        with open(fens, "w") as f:
            f.write("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"
                    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w KQkq - 0 1\n")
        out = self.path("vectors.txt")
        with open(out, "w") as f:
            f.write("the earlier vectors\n")
        before = tree(out)
        self.refused(command("nnue", "vectors", NETWORK, "--data", fens, "--out", out, "-n", "2"), 1, "RNBQKBNZ")
        self.assertEqual(tree(out), before)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["fen.txt", "vectors.txt"])


class Locks(Case):
    def test_a_second_writer_is_refused_at_once(self):
        from chessforge_data import outlock

        out = self.path("ck")
        lock = outlock.acquire(out)
        try:
            with open(out + ".lock") as f:
                self.assertEqual(f.read().splitlines()[0], f"pid {os.getpid()}")
            self.refused(self.train(out, "--epochs", "1"), 1, f"{out} is being written by process {os.getpid()}",
                         f"lock {out}.lock")
            self.assertFalse(os.path.exists(out))
            # The same process cannot take it twice either.
            with self.assertRaises(outlock.HeldError):
                outlock.acquire(out)
            net = self.path("net.nnue")
            with outlock.acquire(net):
                self.refused(command("nnue", "export", NETWORK, "--out", net), 1, "is being written by process")
        finally:
            lock.release()
        self.assertFalse(os.path.exists(out + ".lock"))
        lock.release()  # a second release does nothing

    def test_a_stale_lock_is_taken_over(self):
        out = self.path("ck")
        with open(out + ".lock", "w") as f:
            f.write("pid 999999\ncommand chessforge-nnue train killed\n")
        self.trained(out, "--epochs", "1")
        self.assertTrue(os.path.isfile(os.path.join(out, "epoch-0001.pt")))
        self.assertFalse(os.path.exists(out + ".lock"))


if __name__ == "__main__":
    unittest.main()
