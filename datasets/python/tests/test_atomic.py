"""chessforge_data.atomic: a file is written whole or not at all."""

import os
import tempfile
import unittest

from chessforge_data import atomic


class AtomicWrite(unittest.TestCase):
    def test_replaces_the_target_and_leaves_no_temporary(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "net.nnue")
            with open(path, "wb") as f:
                f.write(b"old contents, longer than the new")
            atomic.write(path, lambda f: f.write(b"new"))
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"new")
            self.assertEqual(os.listdir(d), ["net.nnue"])
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o644)

    def test_a_failed_write_keeps_the_old_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "epoch-0001.pt")
            with open(path, "wb") as f:
                f.write(b"old")

            def fail(f):
                f.write(b"half of the ne")
                raise OSError(28, "No space left on device")

            with self.assertRaises(OSError):
                atomic.write(path, fail)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"old")
            self.assertEqual(os.listdir(d), ["epoch-0001.pt"])

    def test_two_writers_use_distinct_temporaries(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.json")
            seen = []

            def outer(f):
                seen.append(f.name)
                atomic.write(path, lambda g: (seen.append(g.name), g.write("inner")), binary=False)
                f.write("outer")

            atomic.write(path, outer, binary=False)
            self.assertEqual(len(set(seen)), 2, seen)
            with open(path) as f:
                self.assertEqual(f.read(), "outer")
            self.assertEqual(os.listdir(d), ["run.json"])


if __name__ == "__main__":
    unittest.main()
