"""Verbose comparison of a kernel's output with its fp32 reference (every family).

Nothing here depends on pytest or Triton: benchmarks use it too.
"""

from __future__ import annotations

import torch

__all__ = ["assert_close_verbose", "mismatch_report"]


def mismatch_report(actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float,
                    *, limit: int = 8) -> str | None:
    """None when every element of ``actual`` is within ``atol + rtol * |ref|`` of the
    reference (NaNs in the same places count as equal); otherwise a readable report:
    how many elements differ, the worst errors, and the first ``limit`` offenders with
    their indices.

    ``expected`` is the fp32 reference. When ``actual`` has a lower-precision float
    dtype, an element also passes if it is within tolerance of the reference *rounded
    to that dtype* -- the value a reference computing in that dtype (upstream's
    ``torch.nn.functional.linear`` / ``torch._scaled_mm``) would produce. Both checks
    use the same atol/rtol. Why both: the kernel's own final rounding can be up to half
    an ulp from the exact value (3.9e-3 near 1.0 in bf16, above FP8's 1e-3), which the
    rounded comparison forgives; and two fp32 accumulations in different orders can
    straddle a rounding midpoint and land one ulp apart after rounding (7.8e-3 above 1.0
    in bf16, above wvSplitKrc's 5e-3), which the exact comparison forgives.
    """
    if actual.shape != expected.shape:
        return f"shape mismatch: actual {tuple(actual.shape)} vs expected {tuple(expected.shape)}"
    a = actual.detach().float().cpu()
    e = expected.detach().float().cpu()
    diff = (a - e).abs()
    allowed = atol + rtol * e.abs()
    both_nan = torch.isnan(a) & torch.isnan(e)
    bad = ~((diff <= allowed) | both_nan)
    if actual.dtype.is_floating_point and torch.finfo(actual.dtype).bits < 32 and bool(bad.any()):
        e_rounded = expected.detach().to(actual.dtype).float().cpu()
        diff_r = (a - e_rounded).abs()
        bad &= ~(diff_r <= atol + rtol * e_rounded.abs())
    n_bad = int(bad.sum())
    if n_bad == 0:
        return None
    rel = diff / e.abs().clamp(min=torch.finfo(torch.float32).tiny)
    idx = bad.nonzero()[:limit]
    dtype_name = str(actual.dtype).replace("torch.", "")
    lines = [
        (f"{n_bad} of {a.numel()} elements ({100.0 * n_bad / a.numel():.3g}%) differ beyond "
         f"atol={atol:.3g} + rtol={rtol:.3g}*|expected| (from the fp32 reference and from it rounded to "
         f"{dtype_name}); max abs err {float(diff[bad].max()):.4g}, max rel err {float(rel[bad].max()):.4g}")
    ]
    for i in idx.tolist():
        t = tuple(i)
        lines.append(f"  at {t}: actual {float(a[t]):.6g}, expected {float(e[t]):.6g}, "
                     f"err {float(diff[t]):.3g} (allowed {float(allowed[t]):.3g})")
    if n_bad > limit:
        lines.append(f"  ... and {n_bad - limit} more")
    return "\n".join(lines)


def assert_close_verbose(actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float,
                         *, context: str = "") -> None:
    """``torch.testing.assert_close``-style check whose failure message says how many
    and which elements differ (see :func:`mismatch_report`)."""
    report = mismatch_report(actual, expected, atol, rtol)
    if report is not None:
        raise AssertionError(f"{context}: {report}" if context else report)
