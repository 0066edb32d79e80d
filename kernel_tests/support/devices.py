"""Which GPU each pytest-xdist worker uses (issue 13 section 3).

Pure functions of the environment and a device count, so the policy is tested on CPU
workers with fake counts; :func:`bind_worker` is the one place that touches torch.

Policy:

* a worker's device is its xdist number modulo the visible devices: ``gw0`` -> device 0,
  ``gw1`` -> device 1, ..., ``gw4`` of 4 GPUs -> device 0 again; a run without xdist (or
  the xdist controller) keeps device 0;
* ``CUDA_VISIBLE_DEVICES`` is honoured because the numbers are torch's device indices,
  which count the visible devices only (``CUDA_VISIBLE_DEVICES=2,3``: ``gw0`` -> index 0 =
  physical GPU 2); the device is chosen with ``torch.cuda.set_device``, never by
  rewriting the variable (CUDA reads it once, when the process first touches the driver,
  which this suite's conftest already did);
* ``pytest -n auto`` starts one worker per visible GPU when more than one is present; on
  one GPU one worker (issue 13 measured ``-n 8`` on one H200 slower than serial:
  23.8 s vs 11.9 s pytest time for the pairwise skinny-GEMM suite); on CPU xdist's own
  default (one per core);
* each worker's share of its device's memory is divided among the workers that share
  that device (:func:`workers_per_device`), not among all workers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

__all__ = [
    "auto_workers",
    "bind_worker",
    "device_index",
    "physical_device",
    "worker_number",
    "workers_per_device",
]

_WORKER = re.compile(r"gw(\d+)")


def worker_number(environ: Mapping[str, str]) -> int | None:
    """The xdist worker's number (``PYTEST_XDIST_WORKER=gw3`` -> 3); ``None`` outside a
    worker (a plain run, or the controller)."""
    match = _WORKER.fullmatch(environ.get("PYTEST_XDIST_WORKER", "").strip())
    return int(match.group(1)) if match else None


def device_index(worker: int | None, count: int) -> int | None:
    """The torch device index a worker uses among ``count`` visible devices; ``None``
    when there is no device (CPU run) or no worker (keep the current device)."""
    if count < 1 or worker is None:
        return None
    return worker % count


def physical_device(environ: Mapping[str, str], index: int) -> str:
    """What ``CUDA_VISIBLE_DEVICES`` calls torch's device ``index`` (its ``index``-th
    entry: a number or a ``GPU-...`` UUID), or the index itself when it is unset."""
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None or not visible.strip():
        return str(index)
    entries = [e.strip() for e in visible.split(",") if e.strip()]
    return entries[index] if index < len(entries) else str(index)


def auto_workers(count: int) -> int | None:
    """``-n auto``: one worker per visible GPU (one on a single GPU); ``None`` on CPU
    (xdist's default applies)."""
    return count if count >= 1 else None


def workers_per_device(n_workers: int, count: int) -> int:
    """How many workers share one device (at least 1): all of them on a CPU or one GPU,
    ``ceil(n_workers / count)`` when they are spread over ``count`` GPUs."""
    n = max(n_workers, 1)
    if count <= 1:
        return n
    return -(-n // count)


def bind_worker(environ: Mapping[str, str] | None = None) -> str | None:
    """Make this process's current CUDA device the one its worker number picks; returns
    a description (``gw1 -> cuda:1 (CUDA_VISIBLE_DEVICES entry 3)``) or ``None`` when
    nothing was changed (CPU, or not an xdist worker)."""
    import torch

    env = os.environ if environ is None else environ
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    worker = worker_number(env)
    index = device_index(worker, count)
    if index is None:
        return None
    torch.cuda.set_device(index)
    return f"gw{worker} -> cuda:{index} (CUDA_VISIBLE_DEVICES entry {physical_device(env, index)})"
