"""Every shell command of the manual, run: the ```sh blocks of README.md,
datasets/python/README.md and every docs/**/*.md page (but docs/history.md,
which make history writes, and the dated notes of docs/notes/), page by page,
each page in a fresh copy of the repository: the files git would commit
(tracked, or untracked and not ignored) and the built bin/ (make build).

The commands rule (README.md and docs/README.md state it for writers): a
shell command sits in a fenced block tagged sh, one command a line (a
trailing backslash continues it, a line starting with # is a comment);
blocks tagged text, json, yaml... are not run. Each page's blocks run in
order from the copy's root, so a page makes its own tiny data first, and
each command finishes within COMMAND_TIMEOUT seconds. Only the commands
that CI runs itself (SKIPPED) are not run. Everything the commands write
must be ignored by git, and no file of the copy may change.

Besides, what a command says it writes must be there: chessforge-train
--epochs N prints epoch N and writes its --out (model.pt by default),
chessforge-nnue train --out D --epochs N (or --superbatches N) writes
D/epoch-000N.pt, and
chessforge-nnue export --out F writes a network file F. A page that makes
the virtual environment .venv gets a chessforge_data that imports, from
outside the source tree, from the copy's own source. And every relative
link of the pages leads to a file (and, into a markdown page, to one of its
headings)."""

import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import fixture

ROOT = fixture.ROOT

# The commands CI runs itself: shown, never run by this test.
SKIPPED = ("make test", "bash .ci/run")

# Seconds one command may take: the manual's commands are tiny.
COMMAND_TIMEOUT = int(os.environ.get("CHESSFORGE_DOCS_TIMEOUT", "180"))

# Pages whose commands must be found, with at least this many each: a
# rename of the block's tag (or of the page) would otherwise let them go
# unchecked.
AT_LEAST = {"README.md": 5, "docs/training.md": 5}

# The ways a fenced block of shell commands would hide from this test.
SHELL_TAGS = {"bash", "shell", "console", "zsh", "shell-session", "sh-session"}

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$")


class DocsError(Exception):
    """A page that breaks the commands rule: its path, line and problem."""


def sh_commands(text, name="page"):
    """The commands of a markdown text's ```sh blocks, in order, as
    (line number, command) pairs: the number is the command's first line
    (1-based), a command continued by trailing backslashes keeps them and
    its newlines (bash reads it so), blank lines and # comment lines are
    left out. Other blocks are not read. A ```sh block that is not closed,
    or a block tagged as a shell other than sh, is a DocsError."""
    commands = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, tag = m.group(1), m.group(2), m.group(3).lower()
        start = i
        i += 1
        body = []
        while i < len(lines):
            close = lines[i].strip()
            if close.startswith(fence[0] * len(fence)) and close.strip(fence[0]) == "":
                break
            body.append((i + 1, lines[i]))
            i += 1
        else:
            raise DocsError(f"{name}:{start + 1}: a block opened by {fence}{tag} is not closed")
        i += 1  # the closing fence
        if tag in SHELL_TAGS:
            raise DocsError(f"{name}:{start + 1}: a block tagged {tag}: shell commands are tagged sh "
                            f"(and then run by the docs test), other text text")
        if tag != "sh":
            continue
        pending, first = None, 0
        for number, line in body:
            if line.startswith(indent):
                line = line[len(indent):]
            if pending is None:
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                pending, first = line, number
            else:
                pending += "\n" + line
            if pending.endswith("\\"):
                continue
            commands.append((first, pending))
            pending = None
        if pending is not None:
            raise DocsError(f"{name}:{first}: the command's last line ends in a backslash, "
                            f"continuing past the end of its block")
    return commands


def skipped(command):
    """Whether the command is one that CI runs itself (SKIPPED), a trailing
    comment aside."""
    words = command.split("#", 1)[0].split()
    return " ".join(words) in SKIPPED


def pages():
    """The pages whose commands run, relative to ROOT, sorted; only those
    named in CHESSFORGE_DOCS_PAGES (space-separated) when it is set, so
    that a writer can run one page's commands alone."""
    only = os.environ.get("CHESSFORGE_DOCS_PAGES", "").split()
    found = []
    for path in ["README.md", "datasets/python/README.md"] + glob.glob("docs/**/*.md", root_dir=ROOT, recursive=True):
        if path == "docs/history.md" or path.startswith("docs/notes/"):
            continue
        if os.path.isfile(os.path.join(ROOT, path)) and (not only or path in only):
            found.append(path)
    return sorted(set(found))


def clone_files():
    """The files a clone would have: tracked, or untracked and not ignored,
    that exist in the working tree."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           check=True, capture_output=True).stdout.split(b"\0")
    return [f.decode() for f in files if f and os.path.isfile(os.path.join(ROOT, f.decode()))]


def fresh_copy(dest):
    """Copy the files a clone would have into dest, and the built bin/;
    return the clone's files."""
    files = clone_files()
    for f in files:
        os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dest, f))
    shutil.copytree(os.path.join(ROOT, "bin"), os.path.join(dest, "bin"), symlinks=True)
    return files


def snapshot(d):
    """Every file under d but .git/, with its size and modification time."""
    seen = {}
    for dirpath, dirs, names in os.walk(d):
        if dirpath == d and ".git" in dirs:
            dirs.remove(".git")
        for n in names:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            seen[os.path.relpath(p, d)] = (st.st_size, st.st_mtime_ns)
    return seen


def option(words, name, default=None):
    """The value of --name in a command's words."""
    for k, w in enumerate(words):
        if w == name and k + 1 < len(words):
            return words[k + 1]
        if w.startswith(name + "="):
            return w[len(name) + 1:]
    return default


def program_words(command, program):
    """The words of the command's part that runs program (a path ending in
    it), from the program on; None where it does not run it."""
    try:
        words = shlex.split(command.replace("\\\n", " "), comments=True)
    except ValueError:
        return None
    for k, w in enumerate(words):
        if w == program or w.endswith("/" + program):
            rest = words[k + 1:]
            for j, x in enumerate(rest):
                if x in ("&&", "||", ";", "|"):
                    rest = rest[:j]
                    break
            return rest
    return None


def promised(command, output, clone):
    """What the command's output and files lack of what it says it writes:
    a list of problems, empty when all is there."""
    problems = []
    words = program_words(command, "chessforge-train")
    if words is not None and "-h" not in words and "--help" not in words:
        epochs = option(words, "--epochs", "2")
        if not re.search(rf"^epoch {re.escape(epochs)}: \d+ steps", output, re.M):
            problems.append(f"no line 'epoch {epochs}: N steps' in its output")
        out = option(words, "--out", "model.pt")
        if out and not os.path.isfile(os.path.join(clone, out)):
            problems.append(f"no model file {out}")
    words = program_words(command, "chessforge-nnue")
    if words and words[0] == "train":
        unit, epochs, out = "epoch", option(words, "--epochs", "4"), option(words, "--out")
        if "--superbatches" in words:  # a checkpoint a superbatch, named as the epochs'
            unit, epochs = "superbatch", option(words, "--superbatches")
        if not re.search(rf"^{unit} {re.escape(epochs)}: lr ", output, re.M):
            problems.append(f"no line '{unit} {epochs}: lr ...' in its output")
        ck = os.path.join(out or "", f"epoch-{int(epochs):04d}.pt")
        if out and not os.path.isfile(os.path.join(clone, ck)):
            problems.append(f"no checkpoint {ck}")
    if words and words[0] == "export":
        out = option(words, "--out")
        path = os.path.join(clone, out or "")
        if not out or not os.path.isfile(path):
            problems.append(f"no network file {out}")
        else:
            with open(path, "rb") as f:
                if f.read(4) != b"CFNN":
                    problems.append(f"{out} is not a network file (no CFNN magic)")
    return problems


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def anchors(text):
    """The anchors of a markdown text: its headings', as GitHub makes them
    (lower case, punctuation dropped, spaces to hyphens, a repeat
    numbered), and those an HTML tag sets (<a id="x"></a>)."""
    seen, out = {}, set()
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line))
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def broken_links(page, text, root):
    """The relative links of a page (its path under root) that lead
    nowhere: a missing file, or a missing heading of a markdown file, as
    "page:line: target: problem" lines. Links inside code are not links."""
    problems = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # http:, https:, mailto:
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(root, os.path.dirname(page), path)) if path else \
                os.path.join(root, page)
            if not os.path.exists(full):
                problems.append(f"{page}:{number}: {target}: no such file")
                continue
            if anchor and full.endswith(".md") and os.path.isfile(full):
                with open(full) as f:
                    if anchor not in anchors(f.read()):
                        problems.append(f"{page}:{number}: {target}: no heading #{anchor}")
    return problems


def tail(text, n=4000):
    return text if len(text) <= n else "...\n" + text[-n:]


class Extract(unittest.TestCase):
    """The extractor alone, on markdown strings."""

    def test_commands_and_their_lines(self):
        text = "\n".join([
            "# A page",                                      # 1
            "",                                              # 2
            "```sh",                                         # 3
            "bin/selfplay -games 8 -out data/a.parquet",     # 4
            "# a comment, not a command",                    # 5
            "",                                              # 6
            "bin/dataset export -format npy data/a.parquet \\",  # 7
            "    -out data/npy",                             # 8
            "```",                                           # 9
            "```text",                                       # 10
            "bin/loop -cycles 100   # prose, not run",       # 11
            "```",                                           # 12
            "  ```sh",                                       # 13
            "  make nnue  # indented in a list",             # 14
            "  ```",                                         # 15
            "```json",                                       # 16
            '{"games": 8}',                                  # 17
            "```",                                           # 18
            "````sh",                                        # 19
            "echo '```'",                                    # 20
            "````",                                          # 21
        ])
        self.assertEqual(sh_commands(text), [
            (4, "bin/selfplay -games 8 -out data/a.parquet"),
            (7, "bin/dataset export -format npy data/a.parquet \\\n    -out data/npy"),
            (14, "make nnue  # indented in a list"),
            (20, "echo '```'"),
        ])

    def test_no_blocks(self):
        self.assertEqual(sh_commands("Nothing to run.\n\n    bin/engine   # indented, not fenced\n"), [])

    def test_broken_pages(self):
        for name, text, want in [
            ("unclosed", "x\n```sh\nbin/engine\n", "page:2: a block opened by ```sh is not closed"),
            ("bash", "```bash\nls\n```\n", "page:1: a block tagged bash"),
            ("console", "text\n\n```console\n$ ls\n```\n", "page:3: a block tagged console"),
            ("dangling", "```sh\nls \\\n```\n", "page:2: the command's last line ends in a backslash"),
        ]:
            with self.subTest(name):
                with self.assertRaises(DocsError) as c:
                    sh_commands(text, "page")
                self.assertIn(want, str(c.exception))

    def test_skipped(self):
        for command, want in [("make test", True), ("make  test   # all of it", True), ("bash .ci/run", True),
                              ("make test-python", False), ("make nnue", False), ("bash .ci/run2", False)]:
            with self.subTest(command):
                self.assertEqual(skipped(command), want)

    def test_promised(self):
        tmp = tempfile.mkdtemp(prefix="chessforge-docs-unit-")
        self.addCleanup(shutil.rmtree, tmp, True)
        os.makedirs(os.path.join(tmp, "ck"))
        open(os.path.join(tmp, "ck", "epoch-0002.pt"), "wb").close()
        with open(os.path.join(tmp, "net.nnue"), "wb") as f:
            f.write(b"CFNN\x03\x00\x00\x00")
        with open(os.path.join(tmp, "bad.nnue"), "wb") as f:
            f.write(b"junk")
        for command, output, want in [
            (".venv/bin/chessforge-nnue train data/npy --out ck --epochs 2", "epoch 2: lr 0.001, train loss", []),
            (".venv/bin/chessforge-nnue train data/npy --out ck --epochs 3", "epoch 3: lr 0.001, train loss",
             ["no checkpoint ck/epoch-0003.pt"]),
            (".venv/bin/chessforge-nnue train data/npy --out ck --epochs 2", "epoch 1: lr 0.001",
             ["no line 'epoch 2: lr ...' in its output"]),
            (".venv/bin/chessforge-nnue train data/npy --out ck --superbatches 2", "superbatch 2: lr 0.001 to", []),
            (".venv/bin/chessforge-nnue train data/npy --out ck --superbatches 2", "epoch 2: lr 0.001",
             ["no line 'superbatch 2: lr ...' in its output"]),
            (".venv/bin/chessforge-nnue export ck/epoch-0002.pt --out net.nnue", "", []),
            (".venv/bin/chessforge-nnue export ck/epoch-0002.pt --out bad.nnue", "",
             ["bad.nnue is not a network file (no CFNN magic)"]),
            (".venv/bin/chessforge-train data/npy --epochs 1", "epoch 1: 5 steps, 40 positions",
             ["no model file model.pt"]),
            (".venv/bin/chessforge-train data/npy --out net.nnue", "epoch 2: 5 steps", []),
            ("bin/dataset describe data/a.parquet", "", []),
        ]:
            with self.subTest(command):
                self.assertEqual(promised(command, output, tmp), want)


    def test_links(self):
        tmp = tempfile.mkdtemp(prefix="chessforge-docs-unit-")
        self.addCleanup(shutil.rmtree, tmp, True)
        os.makedirs(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "docs", "nnue.md"), "w") as f:
            f.write("# The network\n\n## The file: `CFNN`\n\n```sh\n# not a heading\n```\n\n## Speed\n\n## Speed\n"
                    '<a id="v1"></a>\n')
        with open(os.path.join(tmp, "docs", "nnue.md")) as f:
            self.assertEqual(anchors(f.read()), {"the-network", "the-file-cfnn", "speed", "speed-1", "v1"})
        text = "\n".join([
            "[ok](docs/nnue.md#the-file-cfnn) and [web](https://example.org/x) and [here](#a)",  # 1
            "[gone](docs/missing.md)",                                                          # 2
            "[bad anchor](docs/nnue.md#speed-2) `[code](nowhere.md)`",                          # 3
            "```text",                                                                          # 4
            "[in a block](nowhere.md)",                                                         # 5
            "```",                                                                              # 6
            "# A",                                                                              # 7
        ])
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write(text)
        self.assertEqual(broken_links("README.md", text, tmp), [
            "README.md:2: docs/missing.md: no such file",
            "README.md:3: docs/nnue.md#speed-2: no heading #speed-2",
        ])
        self.assertEqual(broken_links("docs/nnue.md", "[up](../README.md#a) [x](../README.md#b)", tmp),
                         ["docs/nnue.md:1: ../README.md#b: no heading #b"])


class Pages(unittest.TestCase):
    """Every page's commands, run; every page's links, followed."""

    def test_links_resolve(self):
        problems = []
        for page in pages():
            with open(os.path.join(ROOT, page)) as f:
                problems += broken_links(page, f.read(), ROOT)
        self.assertEqual(problems, [], "links that lead nowhere:\n" + "\n".join(problems))

    def test_every_command_of_the_docs_runs(self):
        if shutil.which("git") is None or not os.path.exists(os.path.join(ROOT, ".git")):
            self.skipTest("not a git checkout: no way to tell the files of a clone")
        built = sorted(os.listdir(os.path.join(ROOT, "bin"))) if os.path.isdir(os.path.join(ROOT, "bin")) else []
        self.assertTrue(built, "bin/ is empty: run make build first (the pages' commands use the built binaries)")
        found = {}
        for page in pages():
            with open(os.path.join(ROOT, page)) as f:
                found[page] = sh_commands(f.read(), page)
        self.assertTrue(found, "no page found: CHESSFORGE_DOCS_PAGES names none of the pages")
        for page, least in AT_LEAST.items():
            if page not in found and os.environ.get("CHESSFORGE_DOCS_PAGES"):
                continue
            n = len(found.get(page, []))
            self.assertGreaterEqual(n, least, f"{page}: {n} commands in ```sh blocks, want at least {least}")
        for page, commands in found.items():
            if commands:
                with self.subTest(page=page):
                    self.run_page(page, commands)

    def run_page(self, page, commands):
        tmp = tempfile.mkdtemp(prefix="chessforge-docs-")
        self.addCleanup(shutil.rmtree, tmp, True)
        clone = os.path.join(tmp, "chessforge")
        files = fresh_copy(clone)
        before = snapshot(clone)
        start = time.monotonic()
        ran, passed_over = 0, []
        for number, command in commands:
            where = f"{page}:{number}"
            if skipped(command):
                passed_over.append(command)
                continue
            t0 = time.monotonic()
            # Its own process group, so that a timeout ends what it started
            # too (an engine, a trainer), not bash alone.
            proc = subprocess.Popen(["bash", "-c", command], cwd=clone, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
            try:
                stdout, stderr = proc.communicate(timeout=COMMAND_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                stdout, stderr = proc.communicate()
                self.fail(f"{where}: $ {command}\ntook over {COMMAND_TIMEOUT} s (the manual's commands are tiny)\n"
                          f"{tail(stdout + stderr)}")
            p = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
            output = p.stdout + p.stderr
            if p.returncode != 0:
                self.fail(f"{where}: $ {command}\nexit status {p.returncode}\n{tail(output)}")
            problems = promised(command, p.stdout, clone)
            if problems:
                self.fail(f"{where}: $ {command}\n" + "; ".join(problems) + f"\n{tail(output)}")
            ran += 1
            print(f"docs: {where}: {time.monotonic() - t0:.1f}s: {command.splitlines()[0][:100]}",
                  file=sys.stderr, flush=True)
        print(f"docs: {page}: {ran} commands ran in {time.monotonic() - start:.0f}s"
              + (f", not run (CI runs them): {', '.join(passed_over)}" if passed_over else ""),
              file=sys.stderr, flush=True)
        venv = os.path.join(clone, ".venv", "bin", "python")
        if os.path.exists(venv):
            # The installed package imports from outside the source tree,
            # and is the copy's.
            p = subprocess.run([venv, "-c", "import chessforge_data; print(chessforge_data.__file__)"],
                               cwd=tmp, capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, f"{page}: .venv's python cannot import chessforge_data:\n{p.stderr}")
            self.assertEqual(os.path.realpath(p.stdout.strip()),
                             os.path.realpath(os.path.join(clone, "datasets", "python", "chessforge_data",
                                                           "__init__.py")),
                             f"{page}: .venv's chessforge_data is not the copy's")
        after = snapshot(clone)
        changed = sorted(f for f in files if after.get(f) != before.get(f))
        self.assertEqual(changed, [], f"{page}: its commands changed or removed files of the repository")
        # What the commands wrote is ignored: git would show nothing new.
        subprocess.run(["git", "init", "-q"], cwd=clone, check=True)
        shown = subprocess.run(["git", "ls-files", "-z", "--others", "--exclude-standard"], cwd=clone,
                               check=True, capture_output=True).stdout.decode().split("\0")
        new = sorted(f for f in shown if f and f not in before)
        self.assertEqual(new, [], f"{page}: files its commands wrote that .gitignore does not ignore")


if __name__ == "__main__":
    unittest.main()
