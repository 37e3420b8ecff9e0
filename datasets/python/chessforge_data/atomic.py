"""Writing a file whole or not at all, as Go's internal/atomicfile does:
into a temporary file of a unique name beside the target (".NAME-*.tmp"),
renamed over the target once complete, so that a reader never sees half a
file, two writers never share a temporary, and a failed write leaves the
old file as it was."""

import os
import tempfile


def write(path, fill, binary=True):
    """Write path through fill(f), a function writing the contents to the
    open temporary file f (binary unless binary is False), then rename it
    over path with mode 0644. On any error the temporary is removed and
    path is untouched."""
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + "-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if binary else "w") as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        raise
