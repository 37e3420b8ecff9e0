"""The README's Python commands, run verbatim on a fresh copy of the
repository: the files git would commit (tracked, or untracked and not
ignored), bin/dataset as `make build` leaves it, and the test dataset where
the README says "your dataset" (data/selfplay.parquet, a directory of
shards as a large self-play run writes)."""

import os
import shutil
import subprocess
import tempfile
import unittest

import fixture

ROOT = fixture.ROOT
SECTION = "### Python (datasets/python)"
DATASET = "data/selfplay.parquet"


def readme_commands(text):
    """The indented command lines of the README's Python section."""
    start = text.index(SECTION)
    end = text.find("\n### ", start + len(SECTION))
    section = text[start:end if end >= 0 else len(text)]
    if DATASET not in section:
        raise AssertionError(f"the README's Python section no longer names {DATASET} as the dataset")
    return [line[4:] for line in section.splitlines() if line.startswith("    ") and line.strip()]


def fresh_copy(dest):
    """Copy the files a clone would have into dest."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           check=True, capture_output=True).stdout.split(b"\0")
    for f in files:
        f = f.decode()
        src = os.path.join(ROOT, f)
        if not f or not os.path.isfile(src):  # a file deleted in the working tree
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, f))


def files_under(d):
    for dirpath, _, names in os.walk(d):
        for n in names:
            yield os.path.relpath(os.path.join(dirpath, n), d)


class Readme(unittest.TestCase):
    def test_the_readme_python_commands_run_verbatim(self):
        if shutil.which("git") is None or not os.path.exists(os.path.join(ROOT, ".git")):
            self.skipTest("not a git checkout: no way to tell the files of a clone")
        with open(os.path.join(ROOT, "README.md")) as f:
            commands = readme_commands(f.read())
        self.assertGreaterEqual(len(commands), 3, commands)
        self.assertTrue(any("chessforge-train" in c for c in commands), commands)
        tmp = tempfile.mkdtemp(prefix="chessforge-readme-")
        self.addCleanup(shutil.rmtree, tmp, True)
        clone = os.path.join(tmp, "chessforge")
        fresh_copy(clone)
        os.makedirs(os.path.join(clone, "bin"))
        built = os.path.join(ROOT, "bin", "dataset")
        if os.access(built, os.X_OK):
            shutil.copy2(built, os.path.join(clone, "bin", "dataset"))
        else:
            subprocess.run(["go", "build", "-o", os.path.join(clone, "bin", "dataset"), "./cmd/dataset"],
                           cwd=ROOT, check=True)
        shutil.copytree(os.path.join(fixture.directory(), "data"), os.path.join(clone, DATASET))
        before = set(files_under(clone))
        outputs = []
        for cmd in commands:
            p = subprocess.run(["bash", "-c", cmd], cwd=clone, capture_output=True, text=True)
            outputs.append(f"$ {cmd}\n{p.stdout}{p.stderr}")
            self.assertEqual(p.returncode, 0, "\n".join(outputs))
        log = "\n".join(outputs)
        self.assertRegex(log, r"epoch 2: \d+ steps", log)
        self.assertTrue(os.path.isfile(os.path.join(clone, "model.pt")), log)
        if any("chessforge-nnue export" in c for c in commands):
            self.assertTrue(os.path.isfile(os.path.join(clone, "data", "nnue", "net.nnue")), log)
        # The installed package imports from outside the source tree, and
        # is the clone's.
        p = subprocess.run([os.path.join(clone, ".venv", "bin", "python"), "-c",
                            "import chessforge_data, sys; print(chessforge_data.__file__)"],
                           cwd=tmp, capture_output=True, text=True, check=True)
        self.assertEqual(os.path.realpath(p.stdout.strip()),
                         os.path.realpath(os.path.join(clone, "datasets", "python", "chessforge_data", "__init__.py")))
        # What the commands wrote is ignored: git would show nothing new.
        subprocess.run(["git", "init", "-q"], cwd=clone, check=True)
        shown = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=clone,
                               check=True, capture_output=True, text=True).stdout.split()
        self.assertEqual(sorted(set(shown) - before), [], "files the commands wrote that git would not ignore")


if __name__ == "__main__":
    unittest.main()
