"""Where a case's time goes: the named phases of a kernel check.

Each family's ``check_*`` wraps its steps in ``with phase("inputs"):``, ``"kernel"``,
``"reference"`` and ``"compare"``. By default nothing records and a phase costs a global
lookup. The profile command (``benchmarks/gpu_profile.py``, through its pytest plugin
``benchmarks/profile_plugin.py``) switches recording on with :func:`start_recording`;
then every phase synchronizes the device when it starts and ends, so its time is its
own work, the GPU's included, and :meth:`Recorder.take` hands the sums to the plugin
after each test. Triton's compilation happens inside the first launch of a variant, so
it is part of ``kernel`` here; the plugin times it with Triton's hooks and reports it
on its own line.

Nothing here depends on pytest or Triton: benchmarks use it too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

import torch

__all__ = ["PHASES", "Recorder", "phase", "recording", "start_recording", "stop_recording"]

#: The phases a check is made of, in the order a case runs them.
PHASES = ("inputs", "kernel", "reference", "compare")


def _synchronize() -> None:
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


class Recorder:
    """Seconds per phase since the last :meth:`take` (device synchronized at each edge)."""

    def __init__(self, sync: Callable[[], None] = _synchronize) -> None:
        self.sync = sync
        self.totals = dict.fromkeys(PHASES, 0.0)
        self.open: str | None = None

    def take(self) -> dict[str, float]:
        """The sums since the last call, and start new ones."""
        totals, self.totals = self.totals, dict.fromkeys(PHASES, 0.0)
        return totals


#: The process's recorder while the profile plugin records; None otherwise. A process
#: holds at most one: the profile is of one pytest process.
_recorder: Recorder | None = None


def start_recording(sync: Callable[[], None] = _synchronize) -> Recorder:
    """Record every phase from now on (into the returned recorder)."""
    global _recorder
    _recorder = Recorder(sync)
    return _recorder


def stop_recording(previous: Recorder | None = None) -> None:
    """Stop recording (or go back to ``previous``, a recorder saved from :func:`recording`)."""
    global _recorder
    _recorder = previous


def recording() -> Recorder | None:
    """The active recorder, if the profile plugin switched one on."""
    return _recorder


class phase:
    """``with phase("kernel"): ...``: the block's time goes to that phase (when recording).

    Phases do not nest: a phase opened inside another is a ``RuntimeError`` while
    recording (its time would be counted twice)."""

    __slots__ = ("name", "start")

    def __init__(self, name: str) -> None:
        if name not in PHASES:
            raise ValueError(f"phase({name!r}): expected one of {', '.join(PHASES)}")
        self.name = name
        self.start = 0.0

    def __enter__(self) -> None:
        rec = _recorder
        if rec is None:
            return
        if rec.open is not None:
            raise RuntimeError(f"phase({self.name!r}) opened inside phase({rec.open!r}); phases do not nest")
        rec.open = self.name
        rec.sync()
        self.start = time.perf_counter()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        rec = _recorder
        if rec is None or rec.open != self.name:
            return
        rec.sync()
        rec.totals[self.name] += time.perf_counter() - self.start
        rec.open = None
