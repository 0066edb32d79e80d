"""The file side of ``pairwise-param convert --write``: a user's file is sacred.

* :func:`read_source` -- the file's bytes (the codemod decodes them by their PEP 263
  coding line and keeps the line endings);
* :func:`collect_check` -- before anything is written, the converted text is
  collected by pytest in a subprocess, from a temporary file beside the original
  (same folder: same ``conftest.py``, same package), and so is the original: a
  converted file that does not collect is never written, and with
  ``--pairwise-mode=full`` its node ids are compared with the original's (as sorted
  lists: the order of collection is not compared);
* :func:`atomic_write` -- :func:`pairwise_param.files.atomic_write`: a temporary
  file in the same folder, flushed and synced, the original's mode bits, then
  ``os.replace``: a write that fails midway (disk full, quota, ``ulimit -f``) leaves
  the original file as it was; a symlink stays a link and its target is converted.

Every failure is a :class:`ConvertFileError` whose message names the file and says
that it is unchanged (the CLI prints it; no traceback).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pairwise_param import files
from pairwise_param.errors import InvalidArgument
from pairwise_param.files import write_target

__all__ = ["CollectCheck", "atomic_write", "collect_check", "line_length", "read_source"]

#: seconds each of the two checking collections may take
CHECK_TIMEOUT = 300.0


class ConvertFileError(InvalidArgument):
    """A file ``convert`` cannot read or write, or a conversion it refuses to write
    (the converted file does not collect); the file is left as it was."""


def read_source(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConvertFileError(f"{str(path)!r}: cannot read it: {exc.strerror or exc}") from None


def line_length(path: Path, default: int = 88) -> int:
    """The formatter's line length for ``path``: ``line-length`` of the nearest
    ``ruff.toml`` / ``.ruff.toml`` or ``pyproject.toml`` with ``[tool.ruff]`` /
    ``[tool.black]`` above it (the first such file decides), else ``default``
    (ruff's and black's)."""
    from pairwise_param.cli.modelfile import load_toml  # the one TOML reader (tomli on 3.10)
    from pairwise_param.errors import PairwiseError

    for folder in path.resolve().parents:
        for name in ("ruff.toml", ".ruff.toml", "pyproject.toml"):
            f = folder / name
            if not f.is_file():
                continue
            try:
                doc = load_toml(f.read_text(encoding="utf-8"), str(f))
            except (OSError, UnicodeDecodeError, PairwiseError):
                continue
            tool = doc.get("tool", {}) if name == "pyproject.toml" else {"ruff": doc}
            for section in ("ruff", "black"):
                if isinstance(tool.get(section), dict):
                    value = tool[section].get("line-length", tool[section].get("line_length"))
                    return value if isinstance(value, int) and value > 0 else default
    return default


def atomic_write(path: Path, data: bytes) -> Path:
    """Replace ``path``'s content by ``data`` atomically, keeping its mode bits
    (:func:`pairwise_param.files.atomic_write`: a symlink's target is written);
    returns the file written."""
    target = write_target(path)
    if not os.access(target, os.W_OK):
        raise ConvertFileError(f"{str(path)!r} is not writable (permission denied); the file is unchanged")
    try:
        return files.atomic_write(target, data)
    except OSError as exc:
        raise ConvertFileError(
            f"{str(path)!r}: writing the converted file failed ({exc.strerror or exc}); the file is unchanged"
        ) from None


@dataclass
class CollectCheck:
    """What collecting the original and the converted text showed."""

    original_ok: bool
    converted_ok: bool
    original: list[str] = field(default_factory=list)  # node ids without the file part
    full: list[str] = field(default_factory=list)  # the converted file's, --pairwise-mode=full
    error: str = ""  # the converted file's collection error (its last lines)
    original_error: str = ""

    @property
    def ids_identical(self) -> bool:
        """The converted file's full-mode node ids are the original's.  Compared
        sorted: collection order is not part of a node id, and a plugin that
        shuffles it (pytest-randomly) shuffles the two collections differently."""
        return self.original_ok and self.converted_ok and sorted(self.original) == sorted(self.full)


def _collect(path: Path, extra: list[str], timeout: float) -> tuple[bool, list[str], str]:
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
           "-p", "pairwise_param.pytest_plugin", *extra, str(path)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, [], f"collection took more than {timeout:g} s"
    ids = []
    for line in proc.stdout.splitlines():
        if "::" in line and not line.startswith(("ERROR", "FAILED", " ")):
            ids.append(line.strip().split("::", 1)[1])
    ok = proc.returncode in (0, 5)  # 5: no tests collected (all deselected or none)
    tail = "" if ok else "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-12:])
    return ok, ids, tail


def collect_check(
    path: Path, new: bytes, timeout: float = CHECK_TIMEOUT, original_args: Sequence[str] = ()
) -> CollectCheck:
    """Collect ``path`` as it is (with ``original_args``: what makes it run its full
    product, flashinfer's ``--full``) and ``new`` (from a temporary file beside it, removed
    afterwards) with ``--pairwise-mode=full``."""
    ok0, before, err0 = _collect(path, list(original_args), timeout)
    tmp = path.with_name(f"{path.stem}_pwconvert_{secrets.token_hex(3)}.py")
    try:
        try:
            tmp.write_bytes(new)
        except OSError as exc:
            raise ConvertFileError(
                f"{str(path)!r}: cannot write the file to check beside it ({exc.strerror or exc}); "
                "the file is unchanged"
            ) from None
        ok1, full, err1 = _collect(tmp, ["--pairwise-mode=full"], timeout)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return CollectCheck(ok0, ok1, before, full, err1.replace(tmp.name, path.name), err0)
