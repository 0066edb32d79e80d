"""Triton device helpers shared by the families' kernels (imported only by kernel modules).

The Triton interpreter (``TRITON_INTERPRET=1``) stores fp32 -> bf16 by truncation, not
round-to-nearest-even as GPUs do; a kernel that writes bf16 rounds first with
:func:`round_fp32_to_bf16_rne` under a constexpr flag (``ROUND_BF16=is_interpreter()
and out.dtype == torch.bfloat16``), so the GPU code path is untouched and the store is
exact in both places.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def round_fp32_to_bf16_rne(x):
    """fp32 -> fp32 holding the round-to-nearest-even bf16 value, with integer ops.

    Storing the result as bf16 is then exact even where the store truncates (the
    Triton interpreter). Finite inputs only (inf/nan bit patterns are not special-cased).
    """
    bits = x.to(tl.int32, bitcast=True)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & -65536
    return bits.to(tl.float32, bitcast=True)
