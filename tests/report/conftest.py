"""The report's terminal table fits ``COLUMNS`` (report/columns.py); the tests of this
room read whole rows, so they run without the caller's ``COLUMNS`` (pytest-xdist's
workers may have one) and a test that checks the fitting sets its own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
