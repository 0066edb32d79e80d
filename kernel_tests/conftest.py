"""Shared setup of every kernel family: device, backend option, clean-up, Hypothesis profiles.

No family is imported here (adding a family adds a folder; see support/README.md). Each
family's own ``conftest.py`` builds its ``backend`` parameter from its loaders with
:class:`kernel_tests.support.backends.BackendSelector`.

Device. With a CUDA/ROCm GPU visible the kernels run there. Without one, this file sets
``TRITON_INTERPRET=1`` at import time (before any test module imports Triton kernels),
unless the variable is already set, so the kernels run on the CPU through the Triton
interpreter. Threads: ``OPENBLAS_NUM_THREADS`` defaults to 1 (unless set) and, on CPU
runs without ``OMP_NUM_THREADS``, torch uses one intra-op thread: each xdist worker
then owns one core instead of fighting over all of them (see the comment below).

Options (``pytest kernel_tests --help``, group "kernel tests"):

* ``--kernel-backend={triton,native,all}``: which implementations the ``backend``
  parameter of each family runs. Default: every backend available here (Triton always;
  the family's native upstream ops when importable). Naming a backend that is missing
  does not drop it silently: its cases are reported as skipped, with the requirement as
  the reason.
* ``--per-test-cleanup``: release device memory after every test as well (upstream's
  global clean-up; slow on GPUs). By default it is released once per module by an
  autouse module-scoped fixture, as upstream's ``skip_global_cleanup`` suites do,
  and also after any test that leaves more cached device memory than this worker's
  share allows (``cache_limit_bytes``; ``KERNEL_TESTS_CACHE_LIMIT_GIB``). On a GPU the
  module clean-up is skipped when less than ``MODULE_RELEASE_BYTES`` is cached.
* ``KERNEL_TESTS_CPU_BUDGET`` / ``KERNEL_TESTS_<FAMILY>_CPU_BUDGET`` (environment):
  per-case cost budgets under the interpreter, one per family; see
  :mod:`kernel_tests.support.budget`. A malformed value is a usage error before any test.
* pytest-xdist on several GPUs: worker ``gwN`` runs on visible device ``N mod count``
  (``CUDA_VISIBLE_DEVICES`` honoured) and ``-n auto`` starts one worker per visible GPU;
  see :mod:`kernel_tests.support.devices`.
* Capability marks (``kernel_tests.support.marks.requires``) are evaluated here, at
  test set-up, never at import time.

Hypothesis profiles: ``kernel-ci`` (derandomized, no deadline; loaded when
``HYPOTHESIS_PROFILE=ci`` or, without that variable, when ``CI`` is set) and
``kernel-dev`` (random, no deadline); ``--hypothesis-profile`` overrides either.
"""

from __future__ import annotations

import gc
import os

# numpy's OpenBLAS only serves the interpreter's tl.dot here; with xdist workers sharing
# a few cores its thread pool oversubscribes them (measured: one 64x512x256 dot takes
# 0.35 ms on 1 thread, 11 ms on 2 busy ones). Default it to one thread unless the user
# chose. Must precede the first numpy import (torch imports numpy).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"
if not torch.cuda.is_available() and "OMP_NUM_THREADS" not in os.environ:
    # CPU run: one intra-op thread per (xdist) process, for the same reason.
    torch.set_num_threads(1)

import pytest
from hypothesis import HealthCheck, settings

#: asked once: the per-test teardown runs after every one of thousands of items
_ON_GPU = torch.cuda.is_available()

from kernel_tests.support import devices, platform
from kernel_tests.support.backends import BACKEND_NAMES
from kernel_tests.support.budget import check_budget_environment
from kernel_tests.support.marks import MARK_HELP, skip_unmet_requirements

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.differing_executors],
    "print_blob": True,
}
# Same effect as tests/conftest.py's ci/dev (so loading one here does not change the
# library's own tests when both directories run in one session); the fuzz tests set
# their own max_examples.
settings.register_profile("kernel-ci", derandomize=True, **_COMMON)
settings.register_profile("kernel-dev", **_COMMON)
# HYPOTHESIS_PROFILE=ci|dev (as scripts/test.sh and tests/ use) picks kernel-ci|kernel-dev.
_profile = os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev")
settings.load_profile({"ci": "kernel-ci", "dev": "kernel-dev"}.get(_profile, _profile))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kernel tests")
    group.addoption("--kernel-backend", choices=(*BACKEND_NAMES, "all"), default=None,
                    help="kernel implementations to test: triton, native (upstream's own ops) or all; "
                         "default: every backend available here")
    group.addoption("--per-test-cleanup", action="store_true", default=False,
                    help="also release device memory after every test (default: once per module)")


#: Test files that check the project's tooling on the kernel suites (the fault study and
#: localize, the upstream CI audit, the GPU profile's arithmetic, the xdist device
#: mapping): they need no GPU, so they run in CPU CI and the GPU job leaves them out
#: (``-m "not tooling"``; docs/kernels.md, "The GPU job").
TOOLING_FILES = ("test_fault_localize.py", "test_fault_study.py", "test_gpu_profile.py",
                 "test_upstream_ci_audit.py", "support/test_devices.py")
TOOLING = "tooling"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARK_HELP)
    config.addinivalue_line("markers", f"{TOOLING}: a test of the tooling, not of a kernel (the GPU job skips it)")
    check_budget_environment()  # a malformed budget is a usage error, before any test runs
    # pytest-xdist: each worker on its own GPU (gw0 -> cuda:0, ...); see support/devices.py
    devices.bind_worker()


def _visible_gpus() -> int:
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: one worker per visible GPU (support/devices.py); CPU: xdist's default."""
    return devices.auto_workers(_visible_gpus())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    tooling = {os.path.join(here, *name.split("/")) for name in TOOLING_FILES}
    mark = getattr(pytest.mark, TOOLING)
    for item in items:
        if str(item.path) in tooling:
            item.add_marker(mark)


def pytest_runtest_setup(item: pytest.Item) -> None:
    skip_unmet_requirements(item)


# ----------------------------------------------------------------------------- device


@pytest.fixture(scope="session")
def device() -> torch.device:
    """The GPU when one is visible, else the CPU (kernels through the interpreter)."""
    return platform.device()


# ----------------------------------------------------------------------------- clean-up


def release_device_memory(keep: int = 0) -> None:
    """Wait for the device and return cached blocks to the driver; then, only if the
    allocator still holds more than ``keep`` bytes (live tensors, maybe held by reference
    cycles), ``gc.collect()`` and return what that freed. Most clean-ups need no gc: the
    tests' tensors die with their references, and a full collection over a session of
    thousands of items costs 0.1-0.3 s (12 module clean-ups, 1.8 s of the warm job's
    profile on an H200, issue 39). Without a GPU it always collects."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        if _reserved() <= keep:
            return
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


#: On a GPU, the module clean-up runs only when this process's caching allocator holds
#: more than this: below it there is nothing worth returning, and the clean-up's
#: ``gc.collect()`` over a session of thousands of items costs about 0.2 s a module
#: (measured on an H200, issue 22: 21 module teardowns of 0.1-0.3 s, 4.8 s of a 61 s run).
MODULE_RELEASE_BYTES = 1 << 30


@pytest.fixture(scope="module", autouse=True)
def _release_memory_per_module():
    yield
    if not _ON_GPU or _reserved() > MODULE_RELEASE_BYTES:
        release_device_memory(keep=MODULE_RELEASE_BYTES)


def cache_limit_bytes() -> int:
    """How much memory this process's caching allocator may keep between tests.

    Module-scoped clean-up lets the allocator keep what a large case reserved; with
    pytest-xdist workers sharing one GPU, a few workers each holding a 30 GiB cache
    leave no room for the next 7 GiB FP8 case (seen on the H200 with ``-n 8`` in full
    mode). So each worker may keep at most half of its share of the device
    (``KERNEL_TESTS_CACHE_LIMIT_GIB`` overrides; workers spread over several GPUs share
    only their own device); above that its cache is released right after the test, which
    costs nothing for the many small cases.
    """
    env = os.environ.get("KERNEL_TESTS_CACHE_LIMIT_GIB")
    if env:
        try:
            return int(float(env) * 2**30)
        except ValueError:
            raise pytest.UsageError(
                f"KERNEL_TESTS_CACHE_LIMIT_GIB={env!r} is not a number of GiB"
            ) from None
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    return total // (2 * devices.workers_per_device(workers, _visible_gpus()))


_CACHE_LIMIT: list[int] = []  # cache_limit_bytes(), computed at the first teardown


def _reserved() -> int:
    """Bytes this process's caching allocator holds. ``torch.cuda.memory_reserved()`` builds
    the whole flattened statistics dict (about 160 recursive calls) to read one number: a
    GPU profile of the warm job (issue 39) showed 1.9 s of 41 s in it, once per test."""
    stats = torch.cuda.memory_stats_as_nested_dict()  # {} before the allocator's first use
    return int(stats.get("reserved_bytes", {}).get("all", {}).get("current", 0))


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if item.config.getoption("per_test_cleanup"):
        release_device_memory()
        return
    if not _ON_GPU:
        return
    if not _CACHE_LIMIT:
        _CACHE_LIMIT.append(cache_limit_bytes())
    if _reserved() > _CACHE_LIMIT[0]:
        release_device_memory(keep=_CACHE_LIMIT[0])
