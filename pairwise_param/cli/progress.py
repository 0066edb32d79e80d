"""The progress line of ``pairwise-param generate`` on long engine runs.

The engine reports :class:`~pairwise_param.engine.Progress` through
``EngineOptions.on_progress`` (counted in work units, never seconds, so rows
stay deterministic); this module alone turns that into a line on stderr at
most every :data:`INTERVAL` seconds of wall time.  It only writes: the run is
the same with or without it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from pairwise_param.engine import Progress

__all__ = ["ProgressLine"]

#: Seconds between two progress lines.
INTERVAL = 2.0


class ProgressLine:
    """Callable for ``on_progress``: writes ``pairwise-param generate: improving: ...``
    to ``err`` when :data:`INTERVAL` seconds have passed since the last line
    (``clock`` is injectable so tests need not sleep)."""

    def __init__(self, err: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.err = err
        self.clock = clock
        self.start = clock()
        self.last = self.start
        self.lines = 0

    def __call__(self, p: Progress) -> None:
        now = self.clock()
        if now - self.last < INTERVAL:
            return
        self.last = now
        self.lines += 1
        share = 100.0 * p.work / p.budget if p.budget else 100.0
        self.err.write(
            f"pairwise-param generate: improving: best {p.rows} rows (lower bound {p.lower_bound}), "
            f"{min(share, 100.0):.0f}% of the work budget, {now - self.start:.0f} s; Ctrl-C keeps the best table\n"
        )
        self.err.flush()
