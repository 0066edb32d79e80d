"""A user's file is sacred: the one atomic write (issue 38 item 15).

Every write of a user's file (``convert --write``, the rotation history) goes
through :func:`pairwise_param.files.atomic_write`: a symlink stays a symlink and
its target gets the new content (as an editor or ``echo >`` would), an existing
file keeps its mode bits, a new file gets the umask's default (not 0600), and a
write that fails leaves the file as it was, with no temporary file beside it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pairwise_param.files import atomic_write


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_a_symlink_stays_a_link_and_its_target_is_written(tmp_path: Path) -> None:
    real = tmp_path / "real" / "data.txt"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(Path("real") / "data.txt")
    atomic_write(link, b"new\n")
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / "data.txt")
    assert real.read_text() == "new\n"
    assert sorted(p.name for p in real.parent.iterdir()) == ["data.txt"]  # the temporary was beside the target
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real"]


def test_a_dangling_symlink_creates_its_target(tmp_path: Path, umask_022: None) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    atomic_write(link, b"{}\n")
    assert link.is_symlink() and (tmp_path / "new.json").read_text() == "{}\n"


def test_an_existing_files_mode_is_kept(tmp_path: Path) -> None:
    f = tmp_path / "shared.json"
    f.write_text("x")
    f.chmod(0o644)
    atomic_write(f, b"y")
    assert stat.S_IMODE(f.stat().st_mode) == 0o644 and f.read_text() == "y"
    f.chmod(0o751)
    atomic_write(f, b"z")
    assert stat.S_IMODE(f.stat().st_mode) == 0o751


def test_a_new_file_gets_the_umask_default_not_0600(tmp_path: Path, umask_022: None) -> None:
    f = tmp_path / "new.json"
    atomic_write(f, b"{}")
    assert stat.S_IMODE(f.stat().st_mode) == 0o644


def test_a_failed_replace_leaves_the_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "keep.txt"
    f.write_text("old")

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PermissionError):
        atomic_write(f, b"new")
    assert f.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
