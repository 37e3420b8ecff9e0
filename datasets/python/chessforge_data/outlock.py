"""A lock on an output, the same as the Go tools' (internal/outlock), so
that two runs never write one output: a command that writes PATH first
takes PATH.lock, a file beside it held with an exclusive flock(2) and
holding the owner's process id and command line::

    lock = outlock.acquire(out)   # HeldError when a live process holds it
    try:
        ...
    finally:
        lock.release()

The kernel drops the flock when its process ends, however it ends, so a
lock file left behind by a killed run is taken over by the next one.
"""

import errno
import fcntl
import os
import sys

#: Appended to an output's path to name its lock file.
SUFFIX = ".lock"


class HeldError(OSError):
    """An output whose lock another live process holds."""

    def __init__(self, output, lock_file, pid=0, command=""):
        self.output, self.lock_file, self.pid, self.command = output, lock_file, pid, command
        who = "another process"
        if pid > 0:
            who = f"process {pid}" + (f" ({command})" if command else "")
        super().__init__(errno.EAGAIN, f"{output} is being written by {who}; wait for it to finish or stop it "
                                       f"(lock {lock_file})")

    def __str__(self):
        return self.strerror


def path(output):
    """The lock file of ``output``."""
    return os.path.normpath(output) + SUFFIX


class Lock:
    """A held lock on one output; :meth:`release` gives it up (also as a
    context manager)."""

    def __init__(self, lock_path, fd):
        self.path, self._fd = lock_path, fd

    def release(self):
        """Remove the lock file and drop the lock; later calls do nothing."""
        if self._fd is None:
            return
        # Removed before the unlock, so that a process waiting on this name
        # finds it gone rather than holding a removed file.
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def _owner(fd):
    """The holder's (pid, command) from its lock file; 0 and "" when unknown."""
    pid, command = 0, ""
    try:
        text = os.pread(fd, 4096, 0).decode(errors="replace")
    except OSError:
        return pid, command
    for line in text.split("\n"):
        key, _, value = line.partition(" ")
        if key == "pid":
            try:
                pid = int(value)
            except ValueError:
                pass
        elif key == "command":
            command = value
    return pid, command


def _command_line():
    args = [os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "python")] + sys.argv[1:]
    return " ".join(args).replace("\n", " ")


def acquire(output):
    """Take the lock of ``output`` (whose directory must exist) and record
    this process in it. Fails at once with :class:`HeldError`, naming the
    holder, when a live process holds it; other failures are OSErrors
    naming the output."""
    lock_path = path(output)
    for _ in range(16):
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as err:
            raise OSError(err.errno, f"locking {output}: {lock_path}: {err.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid, command = _owner(fd)
            os.close(fd)
            raise HeldError(output, lock_path, pid, command) from None
        except OSError as err:
            os.close(fd)
            raise OSError(err.errno, f"locking {output}: {err.strerror}") from None
        # The holder before us may have removed the file between our open
        # and our lock: then we would hold a lock on a name no one sees.
        try:
            named = os.stat(lock_path)
        except FileNotFoundError:
            named = None
        mine = os.fstat(fd)
        if named is None or (named.st_dev, named.st_ino) != (mine.st_dev, mine.st_ino):
            os.close(fd)
            continue
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}\ncommand {_command_line()}\n".encode(), 0)
            os.fsync(fd)
        except OSError as err:
            try:
                os.unlink(lock_path)
            finally:
                os.close(fd)
            raise OSError(err.errno, f"locking {output}: {err.strerror}") from None
        return Lock(lock_path, fd)
    raise OSError(errno.EAGAIN, f"locking {output}: the lock file {lock_path} keeps being replaced")
