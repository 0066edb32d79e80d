"""Capability predicates for the kernel suites (no pytest here: benchmarks use it too).

Every predicate is cheap and side-effect free, and none runs at import time: skip marks
built from them (:mod:`kernel_tests.support.marks`) call them when a test is set up, and
the probes that touch the device are cached after their first call.
"""

from __future__ import annotations

import functools
import os

import torch

#: Compute units assumed when no GPU reports its own count (the Triton interpreter on
#: CPU). 256 is the CU count of the gfx950 (MI355X) parts upstream's wvSplitKrc targets,
#: so the CPU run skips the same "does not fit" shapes as that hardware.
CPU_STANDIN_CU_COUNT = 256


def is_interpreter() -> bool:
    """True when Triton kernels run through the interpreter (``TRITON_INTERPRET=1``)."""
    return os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "on", "yes")


def is_cuda() -> bool:
    """A CUDA (NVIDIA) GPU is visible to torch."""
    return torch.cuda.is_available() and torch.version.hip is None


def is_hip() -> bool:
    """A ROCm (AMD) GPU is visible to torch."""
    return torch.cuda.is_available() and torch.version.hip is not None


def device() -> torch.device:
    """Where the suites allocate tensors: the GPU when one is visible, else the CPU
    (kernels then run through the Triton interpreter)."""
    return torch.device("cuda") if torch.cuda.is_available() and not is_interpreter() else torch.device("cpu")


@functools.cache
def has_fp8() -> bool:
    """float8_e4m3fn tensors exist and the kernels can read them: the interpreter, a
    CUDA device of compute capability >= 8.9, or a ROCm MI300-class device."""
    if not hasattr(torch, "float8_e4m3fn"):
        return False
    if device().type == "cpu":
        return is_interpreter()
    if is_hip():
        arch = getattr(torch.cuda.get_device_properties(0), "gcnArchName", "")
        return any(g in arch for g in ("gfx942", "gfx950"))
    return torch.cuda.get_device_capability() >= (8, 9)


@functools.cache
def num_compute_units() -> int:
    """SMs (CUDA) or CUs (ROCm) of device 0, or :data:`CPU_STANDIN_CU_COUNT` on CPU."""
    if device().type == "cuda":
        return int(torch.cuda.get_device_properties(0).multi_processor_count)
    return CPU_STANDIN_CU_COUNT
