"""A user's file is sacred: the one way pairwise-param writes one.

:func:`atomic_write` is used for every file a user keeps (``convert --write``'s test
file, the ``--pairwise-rotate`` history):

* **atomic**: the data goes to a temporary file in the same folder as the file,
  flushed and synced, then ``os.replace``; a write that fails midway (disk full,
  quota, ``ulimit -f``, a refused replace) leaves the file as it was and no
  temporary file behind;
* **symlinks are followed**: a link stays a link and its target gets the new content,
  as an editor or ``echo >`` would (replacing the link by a regular file would leave
  the real file unchanged); the temporary file is made beside the target;
* **modes**: an existing file keeps its mode bits; a new file gets the default of the
  process's umask (``0666 & ~umask``: ``0644`` under the usual ``022``), never the
  ``0600`` of :func:`tempfile.mkstemp`.

Errors are the :class:`OSError` of the step that failed; each caller turns it into
its own message (``convert``: "the file is unchanged").
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

__all__ = ["atomic_write", "write_target"]


def write_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` changes: ``path`` with its symlinks followed
    (a dangling link names the file it would create)."""
    return Path(os.path.realpath(path))


def atomic_write(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace the content of ``path`` (its target, if a symlink) by ``data``
    atomically; returns the file written."""
    target = write_target(path)
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.pairwise-tmp")
    try:
        # 0o666: the kernel applies the umask, so a new file gets the user's default mode
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return target
